/*
 * cmd-inspect.c - `inspect`: what rocm-resolve sees in the venv.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "session.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"

static void strv_json(struct rr_strbuf *out, const char *k, char **v, size_t n, bool comma)
{
	rr_strbuf_add_json_str(out, k);
	rr_strbuf_adds(out, ":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			rr_strbuf_addch(out, ',');
		rr_strbuf_add_json_str(out, v[i]);
	}
	rr_strbuf_addch(out, ']');
	if (comma)
		rr_strbuf_addch(out, ',');
}

static void bool_json(struct rr_strbuf *out, const char *k, bool v, bool comma)
{
	rr_strbuf_add_json_str(out, k);
	rr_strbuf_addf(out, ":%s%s", v ? "true" : "false", comma ? "," : "");
}

/*
 * the stack snapshot (schema 2, data/inspect.schema.json): everything
 * rr_venv_load_snapshot needs to give the same struct rr_venv back, one
 * distribution a line so a committed snapshot diffs well
 */
void rr_cli_inspect_json(const struct rr_session *s, struct rr_strbuf *out)
{
	const struct rr_venv *v = s->venv;
	const struct rr_stack *st = s->stack;
	struct rr_marker_env env;
	struct rr_target target;
	char pybuf[16];

	rr_venv_marker_env(v, &env, pybuf);
	rr_venv_target(v, &target);
	rr_strbuf_addf(out, "{\"schema\":%d,\n", RR_VENV_SNAPSHOT_SCHEMA);
	rr_strbuf_add_json_kv(out, "venv", v->root, true);
	rr_strbuf_add_json_kv(out, "python", v->python_version, true);
	rr_strbuf_add_json_kv(out, "home", v->home, true);
	bool_json(out, "system_site_packages", v->system_site_packages, true);
	rr_strbuf_add_json_kv(out, "site_packages", v->site_packages, true);
	strv_json(out, "bridged_sites", v->bridged_sites, v->nbridged_sites, true);
	rr_strbuf_adds(out, "\n\"markers\":{");
	for (int i = 0, n = 0; i < RR_MVAR__MAX; i++)
		if (i != RR_MVAR_EXTRA && env.vars[i])
			rr_strbuf_add_json_kv(out, rr_marker_var_to_string((enum rr_marker_var)i),
					      env.vars[i], ++n < RR_MVAR__MAX - 1);
	rr_strbuf_adds(out, "},\n\"platform\":{");
	rr_strbuf_add_json_kv(out, "machine", target.machine, true);
	if (target.glibc_major) {
		char glibc[32];
		snprintf(glibc, sizeof(glibc), "%u.%u", target.glibc_major, target.glibc_minor);
		rr_strbuf_add_json_kv(out, "glibc", glibc, false);
	} else {
		rr_strbuf_add_json_kv(out, "glibc", NULL, false);
	}
	rr_strbuf_adds(out, "},\n");
	rr_strbuf_add_json_kv(out, "rocm_version", v->rocm_version, true);
	rr_strbuf_add_json_kv(out, "rocm_path", v->rocm_path, true);
	rr_strbuf_adds(out, "\"torch\":{");
	rr_strbuf_add_json_kv(out, "version", v->torch_version, true);
	rr_strbuf_add_json_kv(out, "hip", v->torch_hip, true);
	rr_strbuf_add_json_kv(out, "cuda", v->torch_cuda, false);
	rr_strbuf_adds(out, "},");
	rr_strbuf_add_json_kv(out, "pip_constraint", v->pip_constraint, true);
	rr_strbuf_adds(out, "\n\"protected\":[");
	for (size_t i = 0; i < st->n; i++) {
		const struct rr_dist *d = st->items[i].dist;
		rr_strbuf_adds(out, i ? ",\n{" : "\n{");
		rr_strbuf_add_json_kv(out, "name", st->items[i].name, true);
		rr_strbuf_add_json_kv(out, "version", st->items[i].version, true);
		rr_strbuf_add_json_kv(out, "clash_group", st->items[i].clash_group, true);
		rr_strbuf_add_json_kv(out, "bridge", d && d->bridged ? d->site : NULL, true);
		rr_strbuf_add_json_kv(out, "why", st->items[i].why, false);
		rr_strbuf_addch(out, '}');
	}
	rr_strbuf_adds(out, "],\n\"distributions\":[");
	for (size_t i = 0; i < v->ndists; i++) {
		const struct rr_dist *d = &v->dists[i];
		rr_strbuf_adds(out, i ? ",\n{" : "\n{");
		rr_strbuf_add_json_kv(out, "name", d->name, true);
		rr_strbuf_add_json_kv(out, "version", d->version_text, true);
		rr_strbuf_add_json_kv(out, "requires_python", d->meta.requires_python, true);
		strv_json(out, "requires_dist", d->meta.requires_dist, d->meta.nrequires_dist, true);
		strv_json(out, "provides_extra", d->meta.provides_extra, d->meta.nprovides_extra,
			  true);
		strv_json(out, "top_level", d->top_level, d->ntop_level, true);
		rr_strbuf_add_json_kv(out, "installer", d->installer, true);
		rr_strbuf_add_json_kv(out, "direct_url", d->direct_url, true);
		bool_json(out, "editable", d->editable, true);
		bool_json(out, "egg_info", d->egg_info, true);
		bool_json(out, "bridged", d->bridged, true);
		rr_strbuf_add_json_kv(out, "problem", d->problem, true);
		rr_strbuf_add_json_kv(out, "site", d->site, true);
		rr_strbuf_add_json_kv(out, "path", d->path, false);
		rr_strbuf_addch(out, '}');
	}
	rr_strbuf_adds(out, "],\n");
	strv_json(out, "warnings", v->warnings, v->nwarnings, false);
	rr_strbuf_adds(out, "}\n");
}

static void inspect_text(const struct rr_session *s, struct rr_strbuf *out)
{
	const struct rr_venv *v = s->venv;
	const struct rr_stack *st = s->stack;
	size_t broken = 0;

	if (v->snapshot)
		rr_strbuf_addf(out, "stack snapshot: %s\n", v->snapshot);
	rr_strbuf_addf(out, "venv:           %s\n", v->root);
	rr_strbuf_addf(out, "python:         %s\n", v->python_version ? v->python_version : "unknown");
	rr_strbuf_addf(out, "site-packages:  %s\n", v->site_packages ? v->site_packages : "none");
	for (size_t i = 0; i < v->nbridged_sites; i++)
		rr_strbuf_addf(out, "bridged site:   %s\n", v->bridged_sites[i]);
	rr_strbuf_addf(out, "ROCm:           %s%s%s%s\n", v->rocm_version ? v->rocm_version : "not found",
		       v->rocm_path ? " (" : "", v->rocm_path ? v->rocm_path : "",
		       v->rocm_path ? ")" : "");
	if (v->torch_version)
		rr_strbuf_addf(out, "torch:          %s (hip %s, cuda %s)\n", v->torch_version,
			       v->torch_hip ? v->torch_hip : "None",
			       v->torch_cuda ? v->torch_cuda : "None");
	else
		rr_strbuf_adds(out, "torch:          not installed\n");
	if (v->pip_constraint)
		rr_strbuf_addf(out, "pip constraint: %s\n", v->pip_constraint);
	for (size_t i = 0; i < v->ndists; i++)
		broken += v->dists[i].problem != NULL;
	rr_strbuf_addf(out, "distributions:  %zu (%zu unreadable)\n", v->ndists, broken);
	rr_strbuf_addf(out, "protected:      %zu\n", st->n);
	for (size_t i = 0; i < st->n; i++) {
		const char *why = st->items[i].why;
		const struct rr_dist *d = st->items[i].dist;
		rr_strbuf_addf(out, "  %s %s", st->items[i].name, st->items[i].version);
		if (d && d->bridged)
			rr_strbuf_addf(out, " (bridged: %s)", d->site);
		rr_strbuf_addch(out, '\n');
		/* one reason per line */
		while (*why) {
			const char *semi = strstr(why, "; ");
			size_t n = semi ? (size_t)(semi - why) : strlen(why);
			rr_strbuf_addf(out, "      - %.*s\n", (int)n, why);
			why += n + (semi ? 2 : 0);
		}
	}
	for (size_t i = 0; i < v->ndists; i++)
		if (v->dists[i].problem)
			rr_strbuf_addf(out, "unreadable:     %s: %s\n", v->dists[i].path,
				       v->dists[i].problem);
}

int cmd_inspect(struct rr_cli *cli)
{
	struct rr_session s;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	int status;

	if (cli->ninputs) {
		fprintf(stderr, "rocm-resolve: error: inspect takes no INPUT (got '%s')\n",
			cli->inputs[0]);
		return RR_EXIT_USAGE;
	}
	status = rr_session_open(&s, cli, false);
	if (status >= 0)
		return status;
	if (cli->format == RR_FORMAT_JSON)
		rr_cli_inspect_json(&s, &out);
	else
		inspect_text(&s, &out);
	rr_session_close(&s);
	return rr_cli_write_stdout(out.buf, out.len) ? RR_EXIT_OK : RR_EXIT_ENV;
}
