/*
 * plan.c - one decision per input item.
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
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/venv.h"

#define RR_ACTION_STR_(sym, str) str,
static const char *const action_names[] = {RR_ACTION_LIST(RR_ACTION_STR_)};
#undef RR_ACTION_STR_
#define RR_REASON_STR_(sym, str) str,
static const char *const reason_names[] = {RR_REASON_LIST(RR_REASON_STR_)};
#undef RR_REASON_STR_

const char *rr_action_to_string(rr_action a)
{
	return (unsigned)a < RR_ARRAY_LEN(action_names) ? action_names[a] : "unknown";
}

const char *rr_reason_to_string(rr_reason r)
{
	return (unsigned)r < RR_ARRAY_LEN(reason_names) ? reason_names[r] : "unknown";
}

static const char *match_cuda_index(const struct rr_policy *pol, const char *url);

struct builder {
	const struct rr_plan_input *in;
	struct rr_plan *plan;
	struct rr_marker_env env;
	char pybuf[16];
	size_t cap_decisions, cap_warnings, cap_opts, cap_stripped, cap_pins, cap_extra,
	    cap_constraints, cap_inherited, cap_links;
};

/* what the plan calls the stack: NGC's CUDA torch is no ROCm stack */
static const char *stack_name(const struct builder *b)
{
	return b->plan->rocm_stack ? "ROCm stack" : "protected stack";
}

/* a ROCm build among the protected (a ROCm torch, a +rocm label, a ROCm URL) */
static bool stack_is_rocm(const struct rr_plan_input *in)
{
	if (in->stack->rocm_torch || in->venv->torch_hip)
		return true;
	for (size_t i = 0; i < in->stack->n; i++)
		if (in->stack->items[i].why && strstr(in->stack->items[i].why, "ROCm"))
			return true;
	return false;
}

static void add_warning(struct builder *b, char *msg_owned)
{
	RR_PUSH(b->plan->warnings, b->plan->nwarnings, b->cap_warnings) = msg_owned;
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

/* the first of the stack's reasons: enough for a comment, the JSON keeps them all */
/* the first of the stack's reasons, without " (VERSION)": the pin line shows the version */
/*
 * the first cause of a protection, in a few words for a comment: "ROCm build" of
 * "ROCm build: version carries a ROCm local label (+rocmX.Y...) (2.9.1+rocm7.2.0)"; the
 * whole reason stays in the JSON and in `inspect`
 */
static char *short_why(const char *why)
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
	else if (is_url && (v.match = match_cuda_index(
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

static void decide_item(struct builder *b, const struct rr_item *it, size_t idx)
{
	const struct rr_plan_input *in = b->in;
	struct rr_decision *d = new_decision(b, it, idx);
	struct verdict v = classify(in, &b->env, it, idx);
	const struct rr_plan_local *local = v.local;
	const struct rr_protected *prot = v.prot;

	if (v.marker_error) {
		add_warning(b,
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
		add_warning(b, rr_xasprintf("%s:%u: cannot tell which project '%s' installs; kept "
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
		RR_AUTOFREE char *why = short_why(prot->why);
		decide(d, RR_ACT_STRIP, RR_WHY_PROTECTED_URL, NULL,
		       rr_xasprintf("a direct URL would replace the protected %s %s, %s", prot->name,
				    prot->version, why));
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
		RR_AUTOFREE char *why = short_why(prot->why);
		decide_pin(d, &it->req, RR_WHY_PROTECTED, prot->version,
			   satisfied ? rr_xasprintf("protected, %s", why)
				     : rr_xasprintf("the version asked for would replace the "
						    "protected build, %s",
						    why));
		if (!satisfied)
			add_warning(b, rr_xasprintf("%s: '%s' asks for another %s than the installed "
						    "%s; pinned to the installed build",
						    d->source, d->requirement, prot->name,
						    prot->version));
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
		add_warning(b,
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

static const char *match_cuda_index(const struct rr_policy *pol, const char *url)
{
	return rr_policy_match_cuda_index(pol, url);
}

static bool option_takes_url(const char *name)
{
	return strcmp(name, "--index-url") == 0 || strcmp(name, "-i") == 0 ||
	       strcmp(name, "--extra-index-url") == 0 || strcmp(name, "--find-links") == 0 ||
	       strcmp(name, "-f") == 0;
}

static bool option_is_index(const char *name)
{
	return strcmp(name, "--index-url") == 0 || strcmp(name, "-i") == 0 ||
	       strcmp(name, "--extra-index-url") == 0;
}

static bool option_is_include(const char *name)
{
	return strcmp(name, "-r") == 0 || strcmp(name, "--requirement") == 0 ||
	       strcmp(name, "-c") == 0 || strcmp(name, "--constraint") == 0;
}

static bool option_is_find_links(const char *name)
{
	return strcmp(name, "--find-links") == 0 || strcmp(name, "-f") == 0;
}

/*
 * an option as the plan writes it: a URL without a literal secret (${VAR} kept); a local
 * --find-links directory as an absolute path, found as pip finds it (next to the file
 * that names it when it is there, else from the working directory), so the plan reads
 * the same from stdin, from another directory, or saved elsewhere
 */
static char *option_line(const struct rr_optline *o)
{
	RR_AUTOFREE char *abs = NULL;
	RR_AUTOFREE char *value = NULL;

	if (option_is_find_links(o->name) && !strstr(o->value, "://") && o->value[0] != '/') {
		const char *slash = o->path ? strrchr(o->path, '/') : NULL;
		RR_AUTOFREE char *rel = slash ? rr_xasprintf("%.*s/%s", (int)(slash - o->path),
							     o->path, o->value_expanded)
					      : NULL;
		abs = realpath(rel ? rel : o->value_expanded, NULL);
		if (!abs && rel)
			abs = realpath(o->value_expanded, NULL);
		if (abs && !strchr(o->value, '$'))
			return rr_xasprintf("%s %s", o->name, abs);
	}
	if (!option_takes_url(o->name))
		return rr_xasprintf("%s %s", o->name, o->value);
	value = rr_strip_credentials(o->value, NULL);
	return rr_xasprintf("%s %s", o->name, value);
}

/* where option line o stands among the items (their decisions): before the first item of
 * its file below it, else after its file's last item, else after everything */
static size_t option_at(const struct rr_reqset *rs, const struct rr_optline *o)
{
	size_t after = rs->nitems;

	for (size_t k = 0; k < rs->nitems; k++) {
		if (strcmp(rs->items[k].path, o->path) != 0)
			continue;
		if (rs->items[k].line > o->line)
			return k;
		after = k + 1;
	}
	return after;
}

static void decide_options(struct builder *b)
{
	const struct rr_reqset *rs = b->in->reqs;

	for (size_t i = 0; i < rs->nopts; i++) {
		const struct rr_optline *o = &rs->opts[i];
		const char *rule = NULL;
		char *line;

		if (option_is_include(o->name))
			continue; /* includes are flattened into the decisions */
		line = o->value ? option_line(o) : rr_xstrdup(o->name);
		if (o->value && option_takes_url(o->name))
			rule = match_cuda_index(b->in->policy, o->value_expanded);
		if (!rule && option_is_index(o->name)) {
			/* the plan names every index it was resolved against itself */
			free(line);
			continue;
		}
		if (rule) {
			RR_AUTOFREE char *raw = rr_xasprintf("%s %s", o->name, o->value);
			RR_AUTOFREE char *shown = rr_redact_credentials(raw);
			size_t n = b->plan->nstripped_options;
			RR_PUSH(b->plan->stripped_options, b->plan->nstripped_options, b->cap_stripped) =
				rr_xasprintf("%s:%u: %s: %s", o->path, o->line, shown, rule);
			b->plan->stripped_option_at =
				rr_xrealloc(b->plan->stripped_option_at,
					    b->cap_stripped * sizeof(*b->plan->stripped_option_at));
			b->plan->stripped_option_at[n] = option_at(rs, o);
			free(line);
			continue;
		}
		/* duplicates (the same option in two included files) are written once */
		for (size_t j = 0; j < b->plan->noption_lines; j++)
			if (strcmp(b->plan->option_lines[j], line) == 0) {
				line = rr_free(line);
				break;
			}
		if (line)
			RR_PUSH(b->plan->option_lines, b->plan->noption_lines, b->cap_opts) = line;
	}
}

static void add_pins(struct builder *b)
{
	const struct rr_stack *st = b->in->stack;

	for (size_t i = 0; i < st->n; i++) {
		const struct rr_protected *p = &st->items[i];
		struct rr_plan_pin *pin = &RR_PUSH(b->plan->pins, b->plan->npins, b->cap_pins);

		pin->name = rr_xstrdup(p->name);
		pin->version = rr_xstrdup(p->version);
		pin->why = rr_xstrdup(p->why);
		pin->short_why = short_why(p->why);
		pin->in_requirements = false;
		pin->clash_group = p->clash_group ? rr_xstrdup(p->clash_group) : NULL;
		pin->bridge = p->dist && p->dist->bridged && p->dist->site ? rr_xstrdup(p->dist->site)
									   : NULL;
		if (p->dist && p->dist->inherited) {
			/* the base interpreter's (include-system-site-packages): pip sees it, uv not */
			RR_PUSH(b->plan->inherited, b->plan->ninherited, b->cap_inherited) =
				rr_xstrdup(p->key);
			if (!b->plan->base_site && p->dist->site)
				b->plan->base_site = rr_xstrdup(p->dist->site);
		} else if (p->dist && p->dist->bridged) {
			b->plan->bridged = rr_xrealloc(b->plan->bridged,
						       (b->plan->nbridged + 1) * sizeof(char *));
			b->plan->bridged[b->plan->nbridged++] = rr_xstrdup(p->key);
			if (!b->plan->bridge_site && p->dist->site)
				b->plan->bridge_site = rr_xstrdup(p->dist->site);
		}
		for (size_t j = 0; j < b->plan->ndecisions; j++) {
			const struct rr_decision *d = &b->plan->decisions[j];
			if (d->action == RR_ACT_PIN && d->name && rr_name_eq(d->name, p->name) &&
			    !d->conditional)
				pin->in_requirements = true;
		}
	}
}

/*
 * constraint files: when none of their entries had to go, the plan refers to
 * the file itself; otherwise the kept entries are written to a content-addressed
 * file in scratch_dir (atomically) and the plan refers to that copy
 */
static rr_err write_atomically(const char *dir, const char *hint, const char *name,
			       const char *data, size_t len, char **ret_path, rr_error *err)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/%s", dir, name);

	if (rr_mkdir_p(dir, 0700))
		return rr_fail(err, RR_E_ENV,
			       "cannot create '%s' (for a filtered copy of a "
			       "constraints file): %s%s%s",
			       dir, strerror(errno), hint ? "; " : "", hint ? hint : "");
	/* a random temporary name, O_EXCL|O_NOFOLLOW: a shared cache can hold planted symlinks */
	if (rr_file_write_atomic(path, data, len, 0600, err)) {
		if (err)
			err->code = RR_E_ENV;
		return RR_E_ENV;
	}
	*ret_path = RR_STEAL(path);
	return RR_OK;
}

static rr_err add_constraints(struct builder *b, rr_error *err)
{
	const struct rr_plan *p = b->plan;
	RR_AUTO_STRBUF struct rr_strbuf kept = RR_STRBUF_INIT;
	bool any = false;
	bool filtered = false;
	char hex[65];
	RR_AUTOFREE char *name = NULL;
	RR_AUTOFREE char *path = NULL;
	rr_err rc;

	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (!d->constraint)
			continue;
		any = true;
		if (d->action == RR_ACT_STRIP) {
			filtered = true;
			continue;
		}
		rr_strbuf_addf(&kept, "%s\n", b->in->reqs->items[i].text);
	}
	if (!any)
		return RR_OK;
	if (!filtered) {
		/* every constraint survived: point at the original files, each once, in the
		 * order their first entries came */
		for (size_t i = 0; i < p->ndecisions; i++) {
			const char *file = b->in->reqs->items[i].path;
			bool seen = false;
			char *abs;
			if (!p->decisions[i].constraint || !file)
				continue;
			for (size_t k = 0; k < i && !seen; k++)
				seen = p->decisions[k].constraint && b->in->reqs->items[k].path &&
				       strcmp(b->in->reqs->items[k].path, file) == 0;
			if (seen)
				continue;
			abs = realpath(file, NULL);
			RR_PUSH(b->plan->constraint_lines, b->plan->nconstraint_lines,
				b->cap_constraints) = rr_xasprintf("-c %s", abs ? abs : file);
			free(abs);
		}
		return RR_OK;
	}
	if (!kept.len)
		return RR_OK;
	if (!b->in->scratch_dir) {
		add_warning(b, rr_xstrdup("constraint files needed filtering and no cache directory "
					  "is available; their remaining entries are left out of "
					  "the plan"));
		return RR_OK;
	}
	rr_sha256_hex(kept.buf, kept.len, hex);
	hex[16] = '\0';
	name = rr_xasprintf("constraints-%s.txt", hex);
	rc = write_atomically(b->in->scratch_dir, b->in->scratch_hint, name, kept.buf, kept.len,
			      &path, err);
	if (rc)
		return rc;
	RR_PUSH(b->plan->constraint_lines, b->plan->nconstraint_lines, b->cap_constraints) =
		rr_xasprintf("-c %s", path);
	return RR_OK;
}

/* what the plan does instead of the change ch: the decision on its line, else a hold
 * on its way, else the stack's own pins */
static char *instead_of(const struct rr_plan *p, const struct rr_stack_change *ch,
			const struct rr_decision *d, bool is_protected)
{
	if (d && d->action == RR_ACT_STRIP)
		return rr_xstrdup("the plan strips it");
	if (d && d->action == RR_ACT_PIN && d->output)
		return rr_xasprintf("the plan has %s", d->output);
	for (size_t i = 0; i < p->nholds; i++) {
		bool on_way = rr_name_eq(p->holds[i].name, ch->name);
		for (size_t k = 0; k < ch->nchain && !on_way; k++)
			on_way = rr_name_eq(p->holds[i].name, ch->chain[k]);
		if (on_way)
			return rr_xasprintf("the plan holds %s at %s", p->holds[i].name,
					    p->holds[i].version);
	}
	for (size_t i = 0; i < p->nexcludes; i++)
		if (rr_name_eq(p->excludes[i], ch->name))
			return rr_xasprintf("the plan needs %s excluded (uv --excludes)", ch->name);
	if (is_protected)
		return rr_xasprintf("the plan pins the protected %s", ch->name);
	return rr_xasprintf("the plan's resolution leaves %s out", ch->name);
}

static void add_change(struct builder *b, const struct rr_stack_change *ch)
{
	struct rr_plan *p = b->plan;
	const struct rr_decision *d = ch->item < p->ndecisions ? &p->decisions[ch->item] : NULL;
	struct rr_plan_change *x = &p->changes[p->nchanges++];

	x->decision = d ? ch->item : SIZE_MAX;
	x->source = rr_xstrdup(d ? d->source : "-");
	x->requirement = rr_xstrdup(d ? d->requirement : "-");
	x->name = rr_xstrdup(ch->name);
	x->version = rr_xstrdup(ch->version);
	x->why = rr_xstrdup(ch->why);
	x->uv_only = ch->uv_only;
	x->instead = instead_of(p, ch, d, rr_stack_lookup(b->in->stack, ch->name) != NULL);
}

/* what the resolution adds besides the decisions: held-back packages, exclusions, warnings */
static void add_resolution(struct builder *b)
{
	const struct rr_resolution *res = b->in->res;
	struct rr_plan *p = b->plan;

	if (!res)
		return;
	p->holds = rr_xcalloc(res->npins + 1, sizeof(*p->holds));
	for (size_t i = 0; i < res->npins; i++) {
		struct rr_plan_hold *h = &p->holds[p->nholds++];
		h->name = rr_xstrdup(res->pins[i].name);
		h->version = rr_xstrdup(res->pins[i].version);
		h->why = rr_xstrdup(res->pins[i].why);
		h->origin = res->pins[i].origin ? rr_xstrdup(res->pins[i].origin) : NULL;
		h->newest = res->pins[i].newest ? rr_xstrdup(res->pins[i].newest) : NULL;
	}
	p->as_written = res->as_written;
	p->as_written_unknown = res->as_written_unknown ? rr_xstrdup(res->as_written_unknown) : NULL;
	if (res->as_written_unknown)
		add_warning(b, rr_xasprintf("the input as written was not resolved (%s): check judges "
					    "it by the plan's own changes",
					    res->as_written_unknown));
	for (size_t i = 0; i < res->nwarnings; i++)
		add_warning(b, rr_xstrdup(res->warnings[i]));
	if (res->failed)
		add_warning(b, rr_xstrdup(res->failed));
	/* what comes from --find-links and no input line names: pinned next to the option */
	for (size_t i = 0; i < res->nlocked; i++) {
		const struct rr_locked *l = &res->locked[i];
		struct rr_plan_link *k;
		bool named = false;
		if (!l->find_links || l->fixed)
			continue;
		for (size_t j = 0; j < p->ndecisions && !named; j++)
			named = p->decisions[j].reason == RR_WHY_FIND_LINKS && p->decisions[j].name &&
				rr_name_eq(p->decisions[j].name, l->name);
		for (size_t j = 0; j < p->nholds && !named; j++)
			named = rr_name_eq(p->holds[j].name, l->name);
		if (named)
			continue;
		k = &RR_PUSH(p->links, p->nlinks, b->cap_links);
		k->name = rr_xstrdup(l->name);
		k->version = rr_xstrdup(l->version);
		k->location = rr_xstrdup(l->find_links);
	}
	p->files = rr_xcalloc(res->nlocked + 1, sizeof(*p->files));
	for (size_t i = 0; i < res->nlocked; i++)
		rr_locked_copy(&p->files[p->nfiles++], &res->locked[i]);
	p->nunknown = res->nunknown;
	p->excludes = rr_xcalloc(res->nexcludes + 1, sizeof(char *));
	for (size_t i = 0; i < res->nexcludes; i++)
		p->excludes[p->nexcludes++] = rr_xstrdup(res->excludes[i]);
	p->changes = rr_xcalloc(res->nchanges + 1, sizeof(*p->changes));
	for (size_t i = 0; i < res->nchanges; i++)
		add_change(b, &res->changes[i]);
}

static const struct rr_locked *closure_entry(const struct rr_resolution *res, const char *key)
{
	for (size_t i = 0; res && i < res->nlocked; i++)
		if (rr_name_eq(res->locked[i].name, key))
			return &res->locked[i];
	return NULL;
}

static struct rr_plan_kept *kept_push(struct rr_plan_kept **v, size_t *n, size_t *cap,
				      const char *name, const char *version, char *why)
{
	struct rr_plan_kept *k = &RR_PUSH(*v, *n, *cap);

	memset(k, 0, sizeof(*k));
	k->name = rr_xstrdup(name);
	k->version = rr_xstrdup(version);
	k->why = why;
	return k;
}

static int kept_cmp(const void *a, const void *b)
{
	return rr_str_casecmp(((const struct rr_plan_kept *)a)->name,
			      ((const struct rr_plan_kept *)b)->name);
}

/* the archive d was installed from, when direct_url.json records it with a hash */
static void kept_direct_url(struct rr_plan_kept *k, const struct rr_dist *d)
{
	const char *base;

	if (!d->direct_url || !d->direct_url_sha256 ||
	    !(rr_str_startswith(d->direct_url, "https://") ||
	      rr_str_startswith(d->direct_url, "http://") ||
	      rr_str_startswith(d->direct_url, "file://")) ||
	    rr_text_unsafe(d->direct_url, strlen(d->direct_url), true, NULL) != SIZE_MAX)
		return;
	k->url = rr_strip_credentials(d->direct_url, NULL);
	k->sha256 = rr_xstrdup(d->direct_url_sha256);
	base = strrchr(k->url, '/');
	k->filename = base && base[1] ? rr_xstrdup(base + 1) : NULL;
}

size_t rr_plan_kept_list(const struct rr_venv *v, const struct rr_stack *st,
			 const struct rr_resolution *res, struct rr_plan_kept **ret)
{
	struct rr_strv queue = RR_STRV_INIT, why = RR_STRV_INIT, seen = RR_STRV_INIT;
	struct rr_plan_kept *kept = NULL;
	size_t n = 0, cap = 0;
	struct rr_marker_env env;
	char pybuf[16];

	rr_venv_marker_env(v, &env, pybuf);
	for (size_t i = 0; i < st->n; i++)
		if (st->items[i].dist && !st->items[i].dist->bridged &&
		    !st->items[i].dist->inherited) {
			rr_strv_push(&queue, st->items[i].key);
			rr_strv_push(&why, "protected ROCm build");
		}
	for (size_t q = 0; q < queue.n; q++) {
		const struct rr_dist *d = rr_venv_lookup(v, queue.v[q]);
		const struct rr_locked *l;
		bool dup = false;

		for (size_t k = 0; k < seen.n && !dup; k++)
			dup = strcmp(seen.v[k], queue.v[q]) == 0;
		if (dup || !d || d->problem || d->bridged || d->inherited)
			continue;
		rr_strv_push(&seen, queue.v[q]);
		l = closure_entry(res, d->key);
		if (l && l->url)
			continue; /* the lock installs a file of it: its line is there */
		kept_direct_url(
		    kept_push(&kept, &n, &cap, d->name, d->version_text, rr_xstrdup(why.v[q])), d);
		for (size_t r = 0; r < d->meta.nrequires_dist; r++) {
			struct rr_requirement req = RR_REQUIREMENT_INIT;
			const char *none[] = {""};
			bool yes = false;
			if (!rr_requirement_parse(d->meta.requires_dist[r], &req, NULL) &&
			    req.key && !rr_requirement_applies(&req, &env, none, 1, &yes, NULL) &&
			    yes) {
				rr_strv_push(&queue, req.key);
				rr_strv_take(
				    &why, rr_xasprintf(
					      "needed by %s %s%s", d->name, d->version_text,
					      rr_stack_lookup(st, d->key) ? " (protected)" : ""));
			}
			rr_requirement_release(&req);
		}
	}
	/* what the resolution took as installed and nothing above listed */
	for (size_t i = 0; res && i < res->nlocked; i++) {
		const struct rr_locked *l = &res->locked[i];
		bool dup = false;
		if (l->url || l->fixed)
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = rr_name_eq(kept[k].name, l->name);
		if (!dup)
			kept_push(&kept, &n, &cap, l->name, l->version,
				  rr_xstrdup("installed; the resolution keeps it"));
	}
	rr_qsort(kept, n, sizeof(*kept), kept_cmp);
	rr_strv_release(&queue);
	rr_strv_release(&why);
	rr_strv_release(&seen);
	*ret = kept;
	return n;
}

void rr_plan_kept_release(struct rr_plan_kept *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(k[i].name);
		free(k[i].version);
		free(k[i].why);
		free(k[i].url);
		free(k[i].sha256);
		free(k[i].filename);
		free(k[i].index_url);
	}
	free(k);
}

/* what a lock keeps as installed, each named by the file it came from where that is known */
static void add_kept(struct builder *b)
{
	const struct rr_resolution *res = b->in->res;
	struct rr_plan *p = b->plan;

	if (!res)
		return;
	p->nkept = rr_plan_kept_list(b->in->venv, b->in->stack, res, &p->kept);
	for (size_t i = 0; i < p->nkept; i++) {
		struct rr_plan_kept *k = &p->kept[i];
		for (size_t j = 0; !k->url && j < res->ninstalled_files; j++) {
			const struct rr_locked *f = &res->installed_files[j];
			if (!rr_name_eq(f->name, k->name) || strcmp(f->version, k->version))
				continue;
			k->url = rr_xstrdup(f->url);
			k->sha256 = rr_xstrdup(f->sha256);
			k->filename = f->filename ? rr_xstrdup(f->filename) : NULL;
			k->index_url = f->index_url ? rr_xstrdup(f->index_url) : NULL;
		}
	}
}

rr_err rr_plan_build(const struct rr_plan_input *in, struct rr_plan **ret, rr_error *err)
{
	struct builder b = {0};
	const struct rr_reqset *rs = in->reqs;
	const struct rr_venv *v = in->venv;
	rr_err rc;

	b.in = in;
	b.plan = rr_xcalloc(1, sizeof(*b.plan));
	b.plan->venv = rr_xstrdup(v->root);
	b.plan->python = rr_xstrdup(v->python_version ? v->python_version : "unknown");
	b.plan->rocm = v->rocm_version ? rr_xstrdup(v->rocm_version) : NULL;
	b.plan->rocm_stack = stack_is_rocm(in);
	if (v->torch_version)
		b.plan->torch = v->torch_hip
				    ? rr_xasprintf("%s (hip %s)", v->torch_version, v->torch_hip)
				: v->torch_cuda
				    ? rr_xasprintf("%s (cuda %s)", v->torch_version, v->torch_cuda)
				    : rr_xstrdup(v->torch_version);
	b.plan->torch_version = v->torch_version ? rr_xstrdup(v->torch_version) : NULL;
	b.plan->torch_hip = v->torch_hip ? rr_xstrdup(v->torch_hip) : NULL;
	b.plan->torch_cuda = v->torch_cuda ? rr_xstrdup(v->torch_cuda) : NULL;
	b.plan->inputs = rr_xcalloc(rs->nfiles + 1, sizeof(char *));
	for (size_t i = 0; i < rs->nfiles; i++)
		b.plan->inputs[b.plan->ninputs++] = rr_xstrdup(rs->files[i]);
	rr_venv_marker_env(v, &b.env, b.pybuf);

	for (size_t i = 0; i < rs->nwarnings; i++)
		add_warning(&b, rr_xstrdup(rs->warnings[i]));
	decide_options(&b);
	for (size_t i = 0; i < rs->nitems; i++)
		decide_item(&b, &rs->items[i], i);
	add_pins(&b);
	add_resolution(&b);
	add_kept(&b);
	b.plan->resolved = in->res != NULL;
	b.plan->unresolved = in->unresolved ? rr_xstrdup(in->unresolved) : NULL;
	b.plan->no_index = rs->no_index;
	b.plan->installer = in->installer ? in->installer : "uv";
	if (!rs->no_index) {
		b.plan->indexes = rr_xcalloc(in->nindexes + 1, sizeof(*b.plan->indexes));
		for (size_t i = 0; i < in->nindexes; i++) {
			struct rr_plan_index *x = &b.plan->indexes[b.plan->nindexes++];
			*x = in->indexes[i];
			x->url = rr_xstrdup(in->indexes[i].url);
			x->origin = rr_xstrdup(in->indexes[i].origin);
		}
	}
	rc = add_constraints(&b, err);
	if (rc) {
		rr_plan_free(b.plan);
		return rc;
	}
	for (size_t i = 0; i < b.plan->ndecisions; i++)
		b.plan->counts[b.plan->decisions[i].action]++;
	if ((rc = rr_plan_check_lines(b.plan, err))) {
		rr_plan_free(b.plan);
		return rc;
	}
	*ret = b.plan;
	return RR_OK;
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

bool rr_plan_breaks_stack(const struct rr_plan *p)
{
	if (p->nstripped_options || p->nexcludes || p->nchanges)
		return true;
	/* without the input as written, a package the plan holds back stands in for it */
	if (p->resolved && !p->as_written && p->nholds)
		return true;
	for (size_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].breaks_stack)
			return true;
	return false;
}

struct rr_plan *rr_plan_free(struct rr_plan *p)
{
	if (!p)
		return NULL;
	free(p->venv);
	free(p->python);
	free(p->rocm);
	free(p->torch);
	free(p->torch_version);
	free(p->torch_hip);
	free(p->torch_cuda);
	rr_strv_free_array(p->inputs, p->ninputs);
	rr_strv_free_array(p->option_lines, p->noption_lines);
	rr_strv_free_array(p->stripped_options, p->nstripped_options);
	free(p->stripped_option_at);
	for (size_t i = 0; i < p->ndecisions; i++) {
		struct rr_decision *d = &p->decisions[i];
		free(d->source);
		free(d->requirement);
		free(d->name);
		free(d->output);
		free(d->version);
		free(d->cause.head);
		rr_strv_free_array(d->cause.lines, d->cause.nlines);
	}
	free(p->decisions);
	for (size_t i = 0; i < p->npins; i++) {
		free(p->pins[i].name);
		free(p->pins[i].version);
		free(p->pins[i].why);
		free(p->pins[i].short_why);
		free(p->pins[i].clash_group);
		free(p->pins[i].bridge);
	}
	free(p->pins);
	for (size_t i = 0; i < p->nholds; i++) {
		free(p->holds[i].name);
		free(p->holds[i].version);
		free(p->holds[i].why);
		free(p->holds[i].origin);
		free(p->holds[i].newest);
	}
	free(p->holds);
	for (size_t i = 0; i < p->nchanges; i++) {
		struct rr_plan_change *x = &p->changes[i];
		free(x->source);
		free(x->requirement);
		free(x->name);
		free(x->version);
		free(x->why);
		free(x->instead);
	}
	free(p->changes);
	for (size_t i = 0; i < p->nfiles; i++)
		rr_locked_release(&p->files[i]);
	free(p->files);
	rr_plan_kept_release(p->kept, p->nkept);
	free(p->as_written_unknown);
	for (size_t i = 0; i < p->nindexes; i++) {
		free(p->indexes[i].url);
		free(p->indexes[i].origin);
	}
	free(p->indexes);
	free(p->unresolved);
	rr_strv_free_array(p->bridged, p->nbridged);
	rr_strv_free_array(p->inherited, p->ninherited);
	for (size_t i = 0; i < p->nlinks; i++) {
		free(p->links[i].name);
		free(p->links[i].version);
		free(p->links[i].location);
	}
	free(p->links);
	free(p->base_site);
	free(p->bridge_site);
	rr_strv_free_array(p->constraint_lines, p->nconstraint_lines);
	rr_strv_free_array(p->warnings, p->nwarnings);
	rr_strv_free_array(p->excludes, p->nexcludes);
	free(p);
	return NULL;
}
