/*
 * emit.c - writers for a built plan: the requirements file that goes to the
 * installer, the JSON document, and the `check` report. Writers only read
 * the plan.
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/plan.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/strbuf.h"

void rr_plan_format_text(const struct rr_plan *p, struct rr_strbuf *out)
{
	size_t shown_pins = 0;
	size_t stripped = p->counts[RR_ACT_STRIP] + p->nstripped_options;

	rr_strbuf_addf(out, "# rocm-resolve %s install plan for %s\n", RR_VERSION, p->venv);
	rr_strbuf_addf(out, "# python %s", p->python);
	if (p->rocm)
		rr_strbuf_addf(out, ", ROCm %s", p->rocm);
	if (p->torch)
		rr_strbuf_addf(out, ", torch %s", p->torch);
	rr_strbuf_addch(out, '\n');
	if (p->ninputs) {
		rr_strbuf_adds(out, "# inputs:");
		for (size_t i = 0; i < p->ninputs; i++)
			rr_strbuf_addf(out, " %s", p->inputs[i]);
		rr_strbuf_addch(out, '\n');
	}
	rr_strbuf_addf(out,
		       "# %zu kept, %zu pinned, %zu stripped, %zu rewritten; %zu protected "
		       "distributions\n",
		       p->counts[RR_ACT_KEEP], p->counts[RR_ACT_PIN], stripped,
		       p->counts[RR_ACT_REWRITE], p->npins);
	for (size_t i = 0; i < p->nexcludes; i++)
		rr_strbuf_addf(out,
			       "# WARNING: this plan needs %s kept out (it would overwrite a protected "
			       "module): use `rocm-resolve install` or `uv pip install --excludes FILE` "
			       "(--uv-excludes FILE)\n",
			       p->excludes[i]);
	for (size_t i = 0; i < p->noption_lines; i++)
		rr_strbuf_addf(out, "%s\n", p->option_lines[i]);
	for (size_t i = 0; i < p->nconstraint_lines; i++)
		rr_strbuf_addf(out, "%s\n", p->constraint_lines[i]);
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (!d->output)
			continue;
		if (d->action == RR_ACT_KEEP)
			rr_strbuf_addf(out, "%s\n", d->output);
		else
			rr_strbuf_addf(out, "%s  # %s: %s\n", d->output, rr_action_to_string(d->action),
				       d->why);
	}
	for (size_t i = 0; i < p->npins; i++)
		shown_pins += !p->pins[i].in_requirements;
	if (shown_pins) {
		rr_strbuf_adds(out, "# protected ROCm stack: installed builds held at their versions\n");
		for (size_t i = 0; i < p->npins; i++) {
			const struct rr_plan_pin *pin = &p->pins[i];
			if (pin->in_requirements)
				continue;
			rr_strbuf_addf(out, "%s==%s  # %s\n", pin->name, pin->version, pin->short_why);
		}
	}
	if (p->nextra_pins) {
		rr_strbuf_adds(out, "# pins chosen by resolution so the installer cannot pick a "
				    "version that breaks the stack\n");
		for (size_t i = 0; i < p->nextra_pins; i++)
			rr_strbuf_addf(out, "%s\n", p->extra_pins[i]);
	}
	if (stripped) {
		rr_strbuf_adds(out, "# stripped:\n");
		for (size_t i = 0; i < p->nstripped_options; i++)
			rr_strbuf_addf(out, "#   %s\n", p->stripped_options[i]);
		for (size_t i = 0; i < p->ndecisions; i++) {
			const struct rr_decision *d = &p->decisions[i];
			if (d->action != RR_ACT_STRIP)
				continue;
			rr_strbuf_addf(out, "#   %s%s  (%s: %s)\n", d->constraint ? "-c " : "",
				       d->requirement, d->source, d->why);
		}
	}
}

/* the plan lines, exactly as the text writer prints them */
static void json_plan_lines(const struct rr_plan *p, struct rr_strbuf *out)
{
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	const char *s;
	bool first = true;

	rr_plan_format_text(p, &text);
	rr_strbuf_addch(out, '[');
	s = text.buf;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		RR_AUTOFREE char *line = rr_xstrndup(s, n);
		if (!first)
			rr_strbuf_addch(out, ',');
		first = false;
		rr_strbuf_add_json_str(out, line);
		s += n + (nl ? 1 : 0);
	}
	rr_strbuf_addch(out, ']');
}

void rr_plan_format_json(const struct rr_plan *p, struct rr_strbuf *out)
{
	rr_strbuf_adds(out, "{\"schema\":1,");
	rr_strbuf_add_json_kv(out, "venv", p->venv, true);
	rr_strbuf_add_json_kv(out, "python", p->python, true);
	rr_strbuf_add_json_kv(out, "rocm", p->rocm, true);
	rr_strbuf_add_json_kv(out, "torch", p->torch, true);
	rr_strbuf_adds(out, "\"protected\":[");
	for (size_t i = 0; i < p->npins; i++) {
		if (i)
			rr_strbuf_addch(out, ',');
		rr_strbuf_addch(out, '{');
		rr_strbuf_add_json_kv(out, "name", p->pins[i].name, true);
		rr_strbuf_add_json_kv(out, "version", p->pins[i].version, true);
		rr_strbuf_add_json_kv(out, "why", p->pins[i].why, false);
		rr_strbuf_addch(out, '}');
	}
	rr_strbuf_adds(out, "],\"decisions\":[");
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (i)
			rr_strbuf_addch(out, ',');
		rr_strbuf_addch(out, '{');
		rr_strbuf_add_json_kv(out, "source", d->source, true);
		rr_strbuf_add_json_kv(out, "requirement", d->requirement, true);
		rr_strbuf_add_json_kv(out, "name", d->name, true);
		rr_strbuf_add_json_kv(out, "action", rr_action_to_string(d->action), true);
		rr_strbuf_add_json_kv(out, "reason", rr_reason_to_string(d->reason), true);
		rr_strbuf_add_json_kv(out, "output", d->output, true);
		rr_strbuf_add_json_kv(out, "why", d->why, true);
		rr_strbuf_addf(out, "\"constraint\":%s,\"breaks_stack\":%s}",
			       d->constraint ? "true" : "false", d->breaks_stack ? "true" : "false");
	}
	rr_strbuf_adds(out, "],\"stripped_options\":[");
	for (size_t i = 0; i < p->nstripped_options; i++) {
		if (i)
			rr_strbuf_addch(out, ',');
		rr_strbuf_add_json_str(out, p->stripped_options[i]);
	}
	rr_strbuf_adds(out, "],\"plan\":");
	json_plan_lines(p, out);
	rr_strbuf_adds(out, ",\"excludes\":[");
	for (size_t i = 0; i < p->nexcludes; i++) {
		if (i)
			rr_strbuf_addch(out, ',');
		rr_strbuf_add_json_str(out, p->excludes[i]);
	}
	rr_strbuf_adds(out, "],\"warnings\":[");
	for (size_t i = 0; i < p->nwarnings; i++) {
		if (i)
			rr_strbuf_addch(out, ',');
		rr_strbuf_add_json_str(out, p->warnings[i]);
	}
	rr_strbuf_adds(out, "]}\n");
}

static void add_name_once(const char ***seen, size_t *n, size_t *cap, const char *name,
			  struct rr_strbuf *out)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*seen)[i], name) == 0)
			return;
	RR_PUSH(*seen, *n, *cap) = name;
	rr_strbuf_addf(out, "%s\n", name);
}

void rr_plan_format_excludes(const struct rr_plan *p, struct rr_strbuf *out)
{
	const char **seen = NULL;
	size_t n = 0;
	size_t cap = 0;

	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (d->action == RR_ACT_STRIP && d->name &&
		    (d->reason == RR_WHY_CUDA_ONLY || d->reason == RR_WHY_CLASH))
			add_name_once(&seen, &n, &cap, d->name, out);
	}
	for (size_t i = 0; i < p->nexcludes; i++)
		add_name_once(&seen, &n, &cap, p->excludes[i], out);
	free(seen);
}

void rr_plan_format_check(const struct rr_plan *p, struct rr_strbuf *out)
{
	for (size_t i = 0; i < p->nexcludes; i++)
		rr_strbuf_addf(out, "a dependency needs %s, which would overwrite a protected module\n",
			       p->excludes[i]);
	for (size_t i = 0; i < p->nstripped_options; i++)
		rr_strbuf_addf(out, "%s\n", p->stripped_options[i]);
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (d->breaks_stack)
			rr_strbuf_addf(out, "%s: %s%s: %s\n", d->source, d->constraint ? "-c " : "",
				       d->requirement, d->why);
	}
}

void rr_plan_format_lock(const struct rr_plan *p, const struct rr_resolution *res,
			 struct rr_strbuf *out)
{
	size_t n = 0;

	for (size_t i = 0; i < res->nlocked; i++)
		n += !res->locked[i].fixed && res->locked[i].url;
	rr_strbuf_addf(out, "# rocm-resolve %s lock for %s: %zu packages to install\n", RR_VERSION,
		       p->venv, n);
	rr_strbuf_adds(out, "# install with: uv pip install --no-deps --require-hashes -r -\n");
	for (size_t i = 0; i < res->nlocked; i++) {
		const struct rr_locked *l = &res->locked[i];
		if (l->fixed)
			rr_strbuf_addf(out, "# %s==%s  (protected ROCm build, installed)\n", l->name,
				       l->version);
		else if (!l->url)
			rr_strbuf_addf(out, "# %s==%s  (installed, kept)\n", l->name, l->version);
	}
	for (size_t i = 0; i < res->nlocked; i++) {
		const struct rr_locked *l = &res->locked[i];
		if (l->fixed || !l->url)
			continue;
		rr_strbuf_addf(out, "%s==%s", l->name, l->version);
		if (l->sha256)
			rr_strbuf_addf(out, " \\\n    --hash=sha256:%s", l->sha256);
		rr_strbuf_addch(out, '\n');
	}
}
