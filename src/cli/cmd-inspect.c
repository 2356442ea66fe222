/*
 * cmd-inspect.c - `inspect`: what rocm-resolve sees in the venv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "session.h"
#include "rocm-resolve/loadcheck.h"
#include "rocm-resolve/loadenv.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"

/*
 * the end of one reason in a why ("; " joins them): the first "; " outside parentheses
 * and double quotes, since a Requires-Dist in parentheses holds "; " before its marker
 * (an apostrophe in a reason is no quote)
 */
static size_t reason_len(const char *why)
{
	int depth = 0;
	char quote = 0;

	for (const char *p = why; *p; p++) {
		if (quote)
			quote = *p == quote ? 0 : quote;
		else if (*p == '"')
			quote = *p;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (!depth && p[0] == ';' && p[1] == ' ')
			return (size_t)(p - why);
	}
	return strlen(why);
}

static void inspect_text(const struct rr_session *s, struct rr_strbuf *out)
{
	const struct rr_venv *v = s->venv;
	const struct rr_stack *st = s->stack;
	size_t broken = 0;

	if (v->stack_file)
		rr_strbuf_addf(out, "stack file:     %s\n", v->stack_file);
	rr_strbuf_addf(out, "venv:           %s\n", v->root);
	rr_strbuf_addf(out, "python:         %s\n", v->python_version ? v->python_version : "unknown");
	rr_strbuf_addf(out, "site-packages:  %s\n", v->site_packages ? v->site_packages : "none");
	for (size_t i = 0; i < v->nbridged_sites; i++)
		rr_strbuf_addf(out, "bridged site:   %s\n", v->bridged_sites[i]);
	for (size_t i = 0; i < v->nbase_sites; i++)
		rr_strbuf_addf(out, "inherited site: %s (include-system-site-packages)\n",
			       v->base_sites[i]);
	rr_strbuf_addf(out, "ROCm:           %s%s%s%s\n", v->rocm_version ? v->rocm_version : "not found",
		       v->rocm_path ? " (" : "", v->rocm_path ? v->rocm_path : "",
		       v->rocm_path ? ")" : "");
	/* torch.version.hip / .cuda as facts, not Python's None */
	if (v->torch_version && (v->torch_hip || v->torch_cuda))
		rr_strbuf_addf(out, "torch:          %s (%s%s%s%s%s)\n", v->torch_version,
			       v->torch_hip ? "hip " : "", v->torch_hip ? v->torch_hip : "",
			       v->torch_hip && v->torch_cuda ? ", " : "",
			       v->torch_cuda ? "cuda " : "", v->torch_cuda ? v->torch_cuda : "");
	else if (v->torch_version)
		rr_strbuf_addf(out, "torch:          %s (built for neither HIP nor CUDA)\n",
			       v->torch_version);
	else
		rr_strbuf_adds(out, "torch:          not installed\n");
	if (v->pip_constraint)
		rr_strbuf_addf(out, "pip constraint: %s (%zu requirement%s)\n", v->pip_constraint,
			       v->nconstraints, v->nconstraints == 1 ? "" : "s");
	for (size_t i = 0; i < v->ndists; i++)
		broken += v->dists[i].problem != NULL;
	rr_strbuf_addf(out, "distributions:  %zu (%zu unreadable)\n", v->ndists, broken);
	rr_strbuf_addf(out, "protected:      %zu\n", st->n);
	for (size_t i = 0; i < st->n; i++) {
		const char *why = st->items[i].why;
		const struct rr_dist *d = st->items[i].dist;
		rr_strbuf_addf(out, "  %s %s", st->items[i].name, st->items[i].version);
		if (d && d->inherited)
			rr_strbuf_addf(out, " (inherited: %s)", d->site);
		else if (d && d->bridged)
			rr_strbuf_addf(out, " (bridged: %s)", d->site);
		rr_strbuf_addch(out, '\n');
		/* one reason per line */
		while (*why) {
			size_t n = reason_len(why);
			rr_strbuf_addf(out, "      - %.*s\n", (int)n, why);
			why += n + (why[n] ? 2 : 0);
		}
	}
	for (size_t i = 0; i < v->ndists; i++)
		if (v->dists[i].problem)
			rr_strbuf_addf(out, "unreadable:     %s: %s\n", v->dists[i].path,
				       v->dists[i].problem);
}

/*
 * the load check for the protected stack and what links it (its dependants: distributions
 * whose ELF files load a protected distribution's libraries); a live venv only
 */
static void inspect_native(const struct rr_session *s, struct rr_strbuf *out)
{
	const struct rr_venv *v = s->venv;
	struct rr_loadcheck_report *r = NULL;
	rr_error err = RR_ERROR_INIT;
	struct rr_loadenv le;
	bool *prot, any = false;

	if (v->stack_file)
		return;
	prot = rr_xcalloc(v->ndists + 1, sizeof(*prot));
	for (size_t i = 0; i < s->stack->n; i++)
		if (s->stack->items[i].dist)
			prot[s->stack->items[i].dist - v->dists] = true;
	rr_loadenv_init(&le, v, rr_flow_policy(s->flow), getenv("LD_LIBRARY_PATH"));
	if (rr_loadcheck_run(&le.opts, &r, &err)) {
		rr_strbuf_addf(out, "native code:    not checked: %s\n", err.msg);
		rr_error_release(&err);
	}
	for (size_t i = 0; r && i < r->ndists; i++) {
		const struct rr_loadcheck_dist *d = &r->dists[i];
		RR_AUTO_STRBUF struct rr_strbuf links = RR_STRBUF_INIT;
		bool dependant = false;

		for (size_t k = 0; k < d->nlinks; k++)
			if (prot[d->links[k]]) {
				dependant = true;
				rr_strbuf_addf(&links, "%s%s", links.len ? ", " : "",
					       v->dists[d->links[k]].name);
			}
		if (!prot[d->index] && !dependant)
			continue;
		if (!any)
			rr_strbuf_adds(out,
				       "native code:    the protected stack and what links it, "
				       "checked as the loader would load it\n");
		any = true;
		rr_strbuf_addf(out, "  %s %s", d->name, d->version ? d->version : "");
		if (!prot[d->index])
			rr_strbuf_addf(out, " (links %s)", links.buf);
		rr_strbuf_addf(out, ": %zu ELF file%s %s\n", d->nfiles, d->nfiles == 1 ? "" : "s",
			       d->ok      ? (d->nfiles == 1 ? "loads" : "load")
			       : d->loads ? "load, but do not fit this environment"
					  : "will not load");
		for (size_t k = 0; k < d->nproblems; k++)
			rr_strbuf_addf(out, "      - %s\n", d->problems[k].text);
	}
	if (r && !any)
		rr_strbuf_adds(out,
			       "native code:    no ELF shared objects in the protected stack\n");
	rr_loadcheck_report_free(r);
	rr_loadenv_release(&le);
	free(prot);
}

int cmd_inspect(struct rr_cli *cli)
{
	struct rr_session s;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	int status;

	if (cli->ninputs) {
		return rr_cli_error(RR_E_USAGE, "inspect takes no INPUT (got '%s')",
				    cli->inputs[0]);
	}
	status = rr_session_open(&s, cli, false);
	if (status != RR_CLI_GO_ON)
		return status;
	if (cli->format == RR_FORMAT_JSON)
		rr_stack_file_format(s.venv, s.stack, &out);
	else {
		inspect_text(&s, &out);
		inspect_native(&s, &out);
	}
	rr_session_close(&s);
	return rr_cli_write_stdout(out.buf, out.len) ? RR_EXIT_OK : RR_EXIT_ENV;
}
