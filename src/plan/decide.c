/*
 * decide.c - one decision per input item.
 *
 * The rules, in order, for each requirement line (constraints included):
 *   1. a marker that is false for the venv's interpreter: keep the line as
 *      written (the installer will skip it too);
 *   2. a CUDA-only project (policy rule): strip;
 *   3. a URL or path to a protected project: strip (it would replace the build);
 *   4. a project sharing an import module with a protected one (the triton
 *      family): strip (it would overwrite the protected files);
 *   5. a protected project: pin to the installed version, keeping extras and
 *      marker; warn when the request asked for something else;
 *   6. a constraint on anything else: kept, in a filtered copy of its file;
 *   7. with a resolution: a requirement with no safe version is stripped with
 *      the resolver's explanation; one that needs a build against torch (no
 *      wheel here, policy torch_build) is stripped with the command that builds
 *      it against the installed torch; one held back for the stack is pinned;
 *      otherwise keep.
 * A line breaks the stack (check) when it does itself (CUDA-only, another torch,
 * a URL over a protected build), or when the resolution of the input as written
 * (uv's and pip's choices) replaces a protected package or adds a CUDA-only or
 * clashing one through it.
 * Index options that point at CUDA wheel indexes are stripped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"

#include "plan-private.h"

/* what the plan calls the stack: NGC's CUDA torch is no ROCm stack */
static const char *stack_name(const struct builder *b)
{
	return b->plan->rocm_stack ? "ROCm stack" : "protected stack";
}

static char *source_of(const struct rr_item *it)
{
	return rr_xasprintf("%s:%u", it->path ? it->path : "-", it->line);
}

/* the requirement as the user wrote it, extras/specifier/marker included, credentials hidden */
static char *display_text(const struct rr_item *it)
{
	return rr_redact_credentials(it->text ? it->text : "");
}

/* name[extras]==version ; marker - keeps what the user asked for besides the version */
static char *pin_line(const struct rr_requirement *r, const char *version)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_strbuf_adds(&sb, r->name);
	if (r->nextras) {
		rr_strbuf_addch(&sb, '[');
		for (size_t i = 0; i < r->nextras; i++) {
			if (i)
				rr_strbuf_addch(&sb, ',');
			rr_strbuf_adds(&sb, r->extras[i]);
		}
		rr_strbuf_addch(&sb, ']');
	}
	rr_strbuf_addf(&sb, "==%s", version);
	if (r->marker) {
		rr_strbuf_adds(&sb, " ; ");
		rr_marker_format(r->marker, &sb);
	}
	return rr_strbuf_detach(&sb, NULL);
}

/* the item re-emitted: -e prefix, the text, then per-requirement options */
static char *keep_line(const struct rr_item *it)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	if (it->editable)
		rr_strbuf_adds(&sb, "-e ");
	/* a plan never carries a secret: the installer takes it from netrc, keyring or ${VAR} */
	RR_AUTOFREE char *text = rr_strip_credentials(it->text, NULL);
	const char *t = text;
	size_t n = strlen(t);

	/* " six>=1" of a pyproject array is six>=1: the line starts with the requirement */
	while (*t == ' ' || *t == '\t')
		t++, n--;
	while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	rr_strbuf_add(&sb, t, n);
	for (size_t i = 0; i < it->nhashes; i++)
		rr_strbuf_addf(&sb, " --hash=%s", it->hashes[i]);
	for (size_t i = 0; i < it->noptions; i++)
		rr_strbuf_addf(&sb, " %s", it->options[i]);
	return rr_strbuf_detach(&sb, NULL);
}

static struct rr_decision *new_decision(struct builder *b, const struct rr_item *it, size_t idx)
{
	struct rr_decision *d = &RR_PUSH(b->plan->decisions, b->plan->ndecisions, b->cap_decisions);

	memset(d, 0, sizeof(*d));
	d->item = idx;
	d->source = source_of(it);
	d->requirement = display_text(it);
	d->name = it->req.name ? rr_xstrdup(it->req.name) : NULL;
	d->constraint = it->constraint;
	return d;
}

/* why, split into its head and its derivation lines (see struct rr_cause) */
static void cause_take(struct rr_cause *c, char *why)
{
	char *nl = strchr(why, '\n');

	c->head = why;
	if (!nl)
		return;
	*nl = '\0';
	for (const char *s = nl + 1;; s++) {
		size_t n = strcspn(s, "\n");
		c->lines = rr_xrealloc(c->lines, (c->nlines + 1) * sizeof(*c->lines));
		c->lines[c->nlines++] = rr_xstrndup(s, n);
		s += n;
		if (!*s)
			break;
	}
}

char *rr_cause_text(const struct rr_cause *c)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_strbuf_adds(&sb, c->head ? c->head : "");
	for (size_t i = 0; i < c->nlines; i++)
		rr_strbuf_addf(&sb, "\n%s", c->lines[i]);
	return rr_strbuf_detach(&sb, NULL);
}

static void decide(struct rr_decision *d, rr_action a, rr_reason r, char *output, char *why)
{
	d->action = a;
	d->reason = r;
	d->output = output;
	cause_take(&d->cause, why);
}

/* a pin decision: the line pins version, keeping the input's extras and marker */
static void decide_pin(struct rr_decision *d, const struct rr_requirement *req, rr_reason r,
		       const char *version, char *why)
{
	decide(d, RR_ACT_PIN, r, pin_line(req, version), why);
	d->version = rr_xstrdup(version);
	d->conditional = req->marker != NULL;
}

/*
 * the first cause of a protection, in a few words for a comment: "ROCm build" of
 * "ROCm build: version carries a ROCm local label (+rocmX.Y...) (2.9.1+rocm7.2.0)"; the
 * whole reason stays in the JSON and in `inspect`
 */
char *rr_plan_short_why(const char *why)
{
	size_t n = strlen(why);
	const char *cuts[] = {": ", " (", "; "};

	for (size_t i = 0; i < RR_ARRAY_LEN(cuts); i++) {
		const char *c = strstr(why, cuts[i]);
		if (c && (size_t)(c - why) < n)
			n = (size_t)(c - why);
	}
	return rr_xstrndup(why, n);
}

/*
 * would the installed version satisfy what the user asked for? A lock entry
 * (exact) only when it is that very version: 2.9.1+rocm7.2 meets "==2.9.1" in a
 * requirements file, but `uv sync` replaces it with the locked 2.9.1
 */
static bool request_satisfied_by(const struct rr_item *it, const struct rr_dist *dist)
{
	const struct rr_requirement *r = &it->req;

	if (r->url || !dist || !dist->version_ok)
		return false;
	if (it->exact_version)
		return r->spec.n == 1 && r->spec.items[0].op == RR_OP_EQ &&
		       !r->spec.items[0].wildcard &&
		       rr_version_cmp(&r->spec.items[0].ver, &dist->version) == 0;
	return rr_specset_contains(&r->spec, &dist->version, RR_PRE_POLICY_ALLOW);
}

static void decide_resolved(struct builder *b, struct rr_decision *d, const struct rr_item *it,
			    size_t idx);

/* the closure's entry for key when its file comes from a --find-links location */
static const struct rr_locked *find_links_taken(const struct rr_resolution *res, const char *key)
{
	for (size_t i = 0; res && key && i < res->nlocked; i++)
		if (res->locked[i].find_links && !res->locked[i].fixed &&
		    strcmp(res->locked[i].name, key) == 0)
			return &res->locked[i];
	return NULL;
}

/* the local project item idx names, when its metadata was read */
static const struct rr_plan_local *local_of(const struct rr_plan_input *in, size_t idx)
{
	return in->local && in->local[idx].name ? &in->local[idx] : NULL;
}

static bool item_changes(const struct rr_resolution *res, size_t idx);

/* "a, b, c": the names of an item's alternatives */
static char *alternative_names(const struct rr_alternatives *alts)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	for (size_t k = 0; k < alts->n; k++)
		rr_strbuf_addf(&sb, "%s%s", k ? ", " : "", alts->reqs[k].name);
	return rr_strbuf_detach(&sb, NULL);
}

/*
 * a line with ROCm builds (policy rocm_counterpart): the first of them the resolution
 * could take replaces it, pinned where the stack holds it back. None, and a CUDA-only
 * line is stripped as CUDA-only, naming the builds it looked for and why the last one
 * could not be taken (installing it as written breaks the stack either way); a line
 * that is not CUDA-only is its own last choice, decided as any other (cuda_rule NULL)
 */
static void decide_counterpart(struct builder *b, struct rr_decision *d, const struct rr_item *it,
			       size_t idx, const char *cuda_rule)
{
	const struct rr_plan_input *in = b->in;
	const struct rr_alternatives *alts = &in->alternatives[idx];
	const struct rr_policy_rule *rule = in->alternative_rules ? in->alternative_rules[idx]
								  : NULL;
	const struct rr_item_result *r = rr_resolution_item(in->res, idx);
	RR_AUTOFREE char *names = alternative_names(alts);
	const struct rr_requirement *alt;
	RR_AUTOFREE char *line = NULL;
	RR_AUTOFREE char *asked = rr_requirement_to_string(&it->req);
	RR_AUTOFREE char *torch = NULL;
	char *why;

	/* the line itself was resolved, its own last choice (not CUDA-only) */
	bool itself = r && r->alternative && r->alternative <= alts->n &&
		      alts->reqs[r->alternative - 1].key && it->req.key &&
		      !strcmp(alts->reqs[r->alternative - 1].key, it->req.key);

	if (in->res && r && r->symbols < 0 && rule && rule->torch_bound && !itself) {
		/* its extensions need what the installed torch does not define: it would
		 * install and fail at import */
		d->breaks_stack = cuda_rule != NULL;
		decide(d, RR_ACT_STRIP, RR_WHY_COUNTERPART, NULL,
		       rr_xasprintf("%s%s%sits ROCm build does not fit the installed torch: %s",
				    cuda_rule ? "CUDA-only (" : "", cuda_rule ? cuda_rule : "",
				    cuda_rule ? "); " : "", r->symbols_why));
		return;
	}
	if (!cuda_rule && (!in->res || !r || !r->alternative || itself)) {
		decide_resolved(b, d, it, idx);
		return;
	}
	d->breaks_stack = cuda_rule != NULL || (in->res->as_written && item_changes(in->res, idx));
	if (!in->res || !r || !r->alternative || r->alternative > alts->n) {
		const char *nl = r && r->unsat_why ? strchr(r->unsat_why, '\n') : NULL;
		/* the head as any CUDA-only line's (a comment shows it), what was looked for
		 * on the line after it */
		decide(
		    d, RR_ACT_STRIP, RR_WHY_CUDA_ONLY, NULL,
		    !in->res ? rr_xasprintf("CUDA-only (%s)\nits ROCm builds (%s) were not looked "
					    "for: not resolved against an index",
					    cuda_rule, names)
		    : r && r->unsat_why
			? rr_xasprintf("CUDA-only (%s)\nnone of its ROCm builds (%s) can be "
				       "installed here: %.*s",
				       cuda_rule, names,
				       nl ? (int)(nl - r->unsat_why) : (int)strlen(r->unsat_why),
				       r->unsat_why)
			: rr_xasprintf("CUDA-only (%s)\nnone of its ROCm builds (%s) was resolved",
				       cuda_rule, names));
		return;
	}
	alt = &alts->reqs[r->alternative - 1];
	torch = !rule || !rule->torch_bound ? rr_xstrdup("")
		: r->symbols > 0
		    ? rr_xasprintf("; its extensions' symbols were checked against the installed "
				   "torch (%s)",
				   r->symbols_why)
		    : rr_xasprintf("; whether its extensions were built against the installed "
				   "torch is unknown (their symbols were not read%s%s)",
				   r->symbols_why ? ": " : "",
				   r->symbols_why ? r->symbols_why : "");
	why = cuda_rule
		  ? rr_xasprintf("replaced: %s is CUDA-only (%s); %s is its ROCm build (%s)%s",
				 asked, cuda_rule, alt->name,
				 rule ? rule->reason : "policy rocm_counterpart", torch)
		  : rr_xasprintf("replaced: %s -> %s (%s)%s", asked, alt->name,
				 rule ? rule->reason : "its ROCm build", torch);
	if (r->pin_version) {
		RR_AUTOFREE char *held = why;
		decide_pin(d, alt, RR_WHY_COUNTERPART, r->pin_version,
			   rr_xasprintf("%s; held back: %s", held, r->pin_why));
		return;
	}
	line = rr_requirement_to_string(alt);
	decide(d, RR_ACT_KEEP, RR_WHY_COUNTERPART, RR_STEAL(line), why);
}

/* the rule that decides an item before any resolution (the order of the header) */
enum rule {
	RULE_MARKER_FALSE,
	RULE_CUDA_INDEX,
	RULE_UNNAMED,
	RULE_CUDA_ONLY,
	RULE_COUNTERPART, /* CUDA-only, with ROCm builds to resolve in its place */
	RULE_PROTECTED_URL,
	RULE_CLASH,
	RULE_PROTECTED,
	RULE_CONSTRAINT,
	RULE_LOCAL_CONFLICT,
	RULE_RESOLVE,
};

struct verdict {
	enum rule rule;
	const char *key;                 /* the project's normalised name, NULL when unknown */
	const char *match;               /* the policy rule's reason (CUDA index, CUDA-only) */
	const struct rr_protected *prot; /* the protected package it is, or clashes with */
	const struct rr_plan_local *local;
	char *marker_error; /* the marker could not be evaluated (taken as true): why */
};

/*
 * which rule decides item idx: a function of the item, the policy, the stack and the
 * environment alone (no plan, no resolution); *marker_error is set (caller frees) when
 * the marker could not be evaluated
 */
static struct verdict classify(const struct rr_plan_input *in, const struct rr_marker_env *env,
			       const struct rr_item *it, size_t idx)
{
	struct verdict v = {.local = local_of(in, idx)};
	bool is_url = it->kind == RR_ITEM_URL || it->req.url;
	bool yes = true;
	rr_error err = RR_ERROR_INIT;

	v.key = v.local && !it->req.key ? v.local->key : it->req.key;
	if (it->req.marker && rr_marker_eval(it->req.marker, env, &yes, &err)) {
		v.marker_error = RR_STEAL(err.msg);
		rr_error_release(&err);
		yes = true;
	}
	if (!yes)
		v.rule = RULE_MARKER_FALSE;
	/* matched on the expanded form (${VAR}), printed as written */
	else if (is_url && (v.match = rr_policy_match_cuda_index(
				in->policy, it->req.url ? it->req.url : it->text_expanded)))
		v.rule = RULE_CUDA_INDEX;
	else if (!v.key)
		v.rule = RULE_UNNAMED;
	else if (in->alternatives && in->alternatives[idx].n && !is_url) {
		v.match = rr_policy_match_cuda_only(in->policy, v.key); /* NULL: not CUDA-only */
		v.rule = RULE_COUNTERPART;
	} else if ((v.match = rr_policy_match_cuda_only(in->policy, v.key)))
		v.rule = RULE_CUDA_ONLY;
	else if ((v.prot = rr_stack_lookup(in->stack, v.key)))
		v.rule = is_url ? RULE_PROTECTED_URL : RULE_PROTECTED;
	else if ((v.prot = rr_stack_clash(in->stack, in->policy, v.key)))
		v.rule = RULE_CLASH;
	else if (it->constraint)
		v.rule = RULE_CONSTRAINT;
	else if (v.local && v.local->conflicts)
		v.rule = RULE_LOCAL_CONFLICT;
	else
		v.rule = RULE_RESOLVE;
	return v;
}

void rr_plan_decide_item(struct builder *b, const struct rr_item *it, size_t idx)
{
	const struct rr_plan_input *in = b->in;
	struct rr_decision *d = new_decision(b, it, idx);
	struct verdict v = classify(in, &b->env, it, idx);
	const struct rr_plan_local *local = v.local;
	const struct rr_protected *prot = v.prot;

	if (v.marker_error) {
		rr_plan_warn(b,
			     rr_xasprintf("%s:%u: cannot evaluate marker (%s); treating it as true",
					  it->path, it->line, v.marker_error));
		free(v.marker_error);
	}
	if (local && !d->name && v.rule != RULE_MARKER_FALSE && v.rule != RULE_CUDA_INDEX)
		d->name = rr_xstrdup(local->name);
	switch (v.rule) {
	case RULE_MARKER_FALSE:
		decide(d, RR_ACT_KEEP, RR_WHY_MARKER_FALSE, it->constraint ? NULL : keep_line(it),
		       rr_xstrdup("marker is false for this environment; kept as written"));
		return;
	case RULE_CUDA_INDEX:
		decide(d, RR_ACT_STRIP, RR_WHY_CUDA_INDEX, NULL,
		       rr_xasprintf("a CUDA wheel URL (%s)", v.match));
		d->breaks_stack = true;
		return;
	case RULE_UNNAMED:
		decide(d, RR_ACT_KEEP, RR_WHY_OK, it->constraint ? NULL : keep_line(it),
		       rr_xstrdup("project name cannot be known without fetching the URL; kept"));
		rr_plan_warn(b, rr_xasprintf("%s:%u: cannot tell which project '%s' installs; kept "
					     "as written",
					     it->path, it->line, d->requirement));
		return;
	case RULE_CUDA_ONLY:
		decide(d, RR_ACT_STRIP, RR_WHY_CUDA_ONLY, NULL,
		       rr_xasprintf("CUDA-only (%s)", v.match));
		d->breaks_stack = true;
		return;
	case RULE_COUNTERPART:
		decide_counterpart(b, d, it, idx, v.match);
		return;
	case RULE_PROTECTED_URL: {
		RR_AUTOFREE char *why = rr_plan_short_why(prot->why);
		decide(d, RR_ACT_STRIP, RR_WHY_PROTECTED_URL, NULL,
		       rr_xasprintf("a direct URL would replace the protected %s %s, %s",
				    prot->name, prot->version, why));
		d->breaks_stack = true;
		return;
	}
	case RULE_CLASH:
		decide(
		    d, RR_ACT_STRIP, RR_WHY_CLASH, NULL,
		    rr_xasprintf("%s ships the same '%s' module as the protected %s %s and would "
				 "overwrite its files",
				 it->req.name, prot->clash_group ? prot->clash_group : v.key,
				 prot->name, prot->version));
		d->breaks_stack = true;
		return;
	case RULE_PROTECTED: {
		bool satisfied = request_satisfied_by(it, prot->dist);

		d->breaks_stack = !satisfied;
		if (it->constraint) {
			/* the plan pins the installed build itself (above, or in the file) */
			decide(d, RR_ACT_STRIP, RR_WHY_PROTECTED, NULL,
			       rr_xasprintf(satisfied ? "a constraint on the protected %s, which "
							"the plan pins"
						      : "it would replace the protected %s, which "
							"the plan pins",
					    prot->name));
			return;
		}
		RR_AUTOFREE char *why = rr_plan_short_why(prot->why);
		decide_pin(d, &it->req, RR_WHY_PROTECTED, prot->version,
			   satisfied ? rr_xasprintf("protected, %s", why)
				     : rr_xasprintf("the version asked for would replace the "
						    "protected build, %s",
						    why));
		if (!satisfied)
			rr_plan_warn(
			    b, rr_xasprintf("%s: '%s' asks for another %s than the installed "
					    "%s; pinned to the installed build",
					    d->source, d->requirement, prot->name, prot->version));
		return;
	}
	case RULE_CONSTRAINT:
		decide(d, RR_ACT_KEEP, RR_WHY_CONSTRAINT, NULL, rr_xstrdup("constraint kept"));
		return;
	case RULE_LOCAL_CONFLICT:
		/* a local project whose own lines break the stack: said with their file and
		 * line, with or without an index */
		decide(d, RR_ACT_STRIP, RR_WHY_NO_SAFE_VERSION, NULL,
		       rr_xasprintf("the local project %s (%s) cannot be installed next to the "
				    "%s: %s",
				    local->name, local->source, stack_name(b), local->conflicts));
		d->breaks_stack = true;
		return;
	case RULE_RESOLVE:
		decide_resolved(b, d, it, idx);
		return;
	}
}

/* does the input as written change the stack through reqset item idx? */
static bool item_changes(const struct rr_resolution *res, size_t idx)
{
	for (size_t i = 0; i < res->nchanges; i++)
		if (res->changes[i].item == idx)
			return true;
	return false;
}

/* the line of a kept requirement: as written, or the bare name of a relaxed one (req) */
static char *resolved_line(const struct rr_item *it, const struct rr_requirement *req)
{
	return req == &it->req ? keep_line(it) : rr_xstrdup(req->name);
}

/* a kept requirement: what the resolution says about it */
static void decide_resolved(struct builder *b, struct rr_decision *d, const struct rr_item *it,
			    size_t idx)
{
	const struct rr_plan_input *in = b->in;
	const struct rr_item_result *r = rr_resolution_item(in->res, idx);
	const struct rr_locked *link;
	const char *family;

	if (!in->res) {
		decide(d, RR_ACT_KEEP, RR_WHY_OK, keep_line(it),
		       rr_xasprintf("not in conflict with the %s itself; its dependencies "
				    "were not checked (%s)",
				    stack_name(b),
				    in->unresolved ? in->unresolved : "not resolved"));
		return;
	}
	/* what installing the line as written does: the input as written tells, else
	 * (not resolved) the plan's own change stands in for it */
	bool breaks = in->res->as_written ? item_changes(in->res, idx) : true;
	/* a locked version the stack cannot have was resolved as the bare name: the plan
	 * writes that, and the lock's own version is what the lock installs (it breaks) */
	struct rr_requirement bare = RR_REQUIREMENT_INIT;
	const struct rr_requirement *req = &it->req;

	if (r && r->relaxed) {
		bare.name = it->req.name;
		bare.key = it->req.key;
		req = &bare;
		breaks = true;
		rr_plan_warn(b,
			     rr_xasprintf("%s:%u: the locked '%s' cannot be installed next to the "
					  "stack; planned as '%s', the newest release that can",
					  it->path, it->line, it->text, it->req.name));
	}

	if (r && r->build_why) {
		decide(d, RR_ACT_STRIP, RR_WHY_BUILD_NEEDS_TORCH, NULL, rr_xstrdup(r->build_why));
		d->breaks_stack = in->res->as_written && breaks;
		return;
	}
	if (r && r->unsat_why) {
		const struct rr_plan_local *local = local_of(in, idx);
		decide(d, RR_ACT_STRIP, RR_WHY_NO_SAFE_VERSION, NULL,
		       local ? rr_xasprintf("the local project %s (%s) cannot be installed next to "
					    "the %s: %s",
					    local->name, local->source, stack_name(b), r->unsat_why)
			     : rr_xstrdup(r->unsat_why));
		d->breaks_stack = breaks;
		return;
	}
	if (r && r->pin_version) {
		decide_pin(d, req, RR_WHY_HELD_BACK, r->pin_version, rr_xstrdup(r->pin_why));
		d->breaks_stack = breaks;
		return;
	}
	d->breaks_stack = in->res->as_written && breaks;
	if ((link = find_links_taken(in->res, it->req.key))) {
		decide_pin(
		    d, req, RR_WHY_FIND_LINKS, link->version,
		    rr_xasprintf("the resolution takes %s %s from --find-links %s: pinned, so "
				 "the installers take that file and not a newer release an index "
				 "has",
				 link->name, link->version, link->find_links));
		return;
	}
	if (r && r->deps_unknown && local_of(in, idx) && local_of(in, idx)->unknown) {
		decide(d, RR_ACT_KEEP, RR_WHY_DEPS_UNKNOWN, resolved_line(it, req),
		       rr_xasprintf("dependencies unknown: %s; not checked against the stack",
				    local_of(in, idx)->unknown));
		return;
	}
	if (r && r->deps_unknown && it->req.key) {
		family = rr_policy_match_gpu_family(in->policy, it->req.key);
		decide(d, RR_ACT_KEEP, RR_WHY_DEPS_UNKNOWN, resolved_line(it, req),
		       family
			   ? rr_xasprintf("dependencies unknown until it is built, and its build "
					  "needs torch: build it with --no-build-isolation against "
					  "the installed torch, or use a ROCm wheel (%s)",
					  family)
			   : rr_xstrdup("dependencies unknown until it is built: not checked "
					"against the stack"));
		return;
	}
	/* a lock line: what its locked version does comes first, then what the plan takes */
	decide(
	    d, RR_ACT_KEEP, RR_WHY_OK, resolved_line(it, req),
	    r && r->relaxed
		? rr_xasprintf("the locked '%s' breaks the %s; '%s', the newest release "
			       "that can be installed next to it, resolves with its dependencies "
			       "with no conflict",
			       it->text, stack_name(b), it->req.name)
		: rr_xasprintf("resolved with its dependencies: no conflict with the %s",
			       stack_name(b)));
}

void rr_plan_classify(const struct rr_plan_input *in, bool *resolvable)
{
	struct rr_marker_env env;
	char pybuf[16];

	rr_venv_marker_env(in->venv, &env, pybuf);
	for (size_t i = 0; i < in->reqs->nitems; i++) {
		const struct rr_item *it = &in->reqs->items[i];
		struct verdict v = classify(in, &env, it, i);
		free(v.marker_error);
		resolvable[i] = (v.rule == RULE_RESOLVE || v.rule == RULE_CONSTRAINT ||
				 v.rule == RULE_UNNAMED || v.rule == RULE_COUNTERPART) &&
				(it->req.key || v.local);
	}
}
