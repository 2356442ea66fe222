/*
 * project.c - `rocm-resolve project`: the [tool.uv] settings of a uv project that
 * keep uv off the protected stack (see include/rocm-resolve/project.h), read from
 * the same plan and resolution every other command uses.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rocm-resolve/flow.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/project.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/tomledit.h"
#include "rocm-resolve/venv.h"
#include "flow/flow-private.h"

static const char *const TOOL_UV[] = {"tool", "uv"};
static const char KEY_EXCLUDE[] = "exclude-dependencies";
static const char KEY_CONSTRAINT[] = "constraint-dependencies";

static bool is_ours(const char *comment)
{
	return comment && strncmp(comment, RR_PROJECT_MARK, strlen(RR_PROJECT_MARK)) == 0;
}

/* one line of comment text: line breaks and control characters become spaces */
static char *one_line(const char *s)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	bool space = false;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f) {
			space = sb.len > 0;
			continue;
		}
		if (space && c != ' ')
			rr_strbuf_addch(&sb, ' ');
		space = false;
		rr_strbuf_addch(&sb, (char)c);
	}
	return rr_strbuf_detach(&sb, NULL);
}

static void list_add(struct rr_project_list *l, const char *value, char *comment_owned, bool ours)
{
	struct rr_project_entry *e;

	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].value, value) == 0) {
			free(comment_owned); /* the first cause stays */
			return;
		}
	e = &RR_PUSH(l->v, l->n, l->cap);
	e->value = rr_xstrdup(value);
	e->comment = comment_owned;
	e->ours = ours;
}

static void ours(struct rr_project_list *l, const char *value, char *why_owned)
{
	RR_AUTOFREE char *flat = one_line(why_owned);
	free(why_owned);
	list_add(l, value, rr_xasprintf("%s %s", RR_PROJECT_MARK, flat), true);
}

static void list_release(struct rr_project_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].value);
		free(l->v[i].comment);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* by the package's name ("rr-speech" before "rr-speech-io"), then the whole entry */
static int entry_cmp(const void *a, const void *b)
{
	const char *x = ((const struct rr_project_entry *)a)->value;
	const char *y = ((const struct rr_project_entry *)b)->value;
	static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789._-";
	size_t nx = strspn(x, name_chars), ny = strspn(y, name_chars);
	RR_AUTOFREE char *kx = rr_name_normalize_n(x, nx);
	RR_AUTOFREE char *ky = rr_name_normalize_n(y, ny);
	int c = strcmp(kx, ky);

	return c ? c : strcmp(x, y);
}

static void project_warn(struct rr_project *p, char *owned)
{
	p->warnings = rr_xrealloc(p->warnings, (p->nwarnings + 1) * sizeof(char *));
	p->warnings[p->nwarnings++] = owned;
}

/* line n (1-based) of the text, without its line break */
static char *line_of(const struct rr_strbuf *t, unsigned n)
{
	const char *s = t->buf, *end = t->buf + t->len;

	for (unsigned i = 1; i < n && s < end; i++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		s = nl ? nl + 1 : end;
	}
	return rr_xstrndup(s, strcspn(s, "\r\n"));
}

/* the options as `uv lock` in the project's directory sees them */
static void as_uv_lock(struct rr_flow_opts *fo, const struct rr_project *p)
{
	fo->all_extras = true;
	fo->all_groups = true;
	fo->installer = "uv";
	fo->cwd = p->dir;
}

/* the flow on the root's file as `uv lock` locks it, the user's constraints among its lines */
static rr_err open_flow(const struct rr_project *p, const struct rr_flow_opts *o,
			struct rr_flow **ret, rr_error *err)
{
	struct rr_flow_opts fo = *o;
	const char *inputs[] = {p->path};
	struct rr_flow *f = NULL;
	rr_err rc;

	/* as `uv lock` locks it: every member, extra and group, uv's indexes for the root */
	fo.inputs = inputs;
	fo.ninputs = 1;
	fo.want_inputs = true;
	fo.all_members = true;
	fo.uv_settings = false; /* the settings are what is worked out here */
	as_uv_lock(&fo, p);
	if ((rc = rr_flow_open(&fo, &f, err)))
		return rc;
	/* the user's own constraints bound the resolution, as uv will apply them */
	for (size_t i = 0; i < p->cur_constraints.n; i++) {
		const struct rr_toml_entry *e = &p->cur_constraints.v[i];
		struct rr_requirement req = RR_REQUIREMENT_INIT;
		struct rr_item *it;
		if (is_ours(e->comment))
			continue;
		if ((rc = rr_requirement_parse(e->value, &req, err))) {
			RR_AUTOFREE char *line = line_of(&p->text, e->line);
			rr_error_prefix(err, "[tool.uv] constraint-dependencies entry '%s': ", e->value);
			rr_error_set_origin(err, p->path, e->line, e->col + 1, line);
			rr_flow_free(f);
			return rc;
		}
		it = rr_reqset_add_item(&f->reqs);
		it->path = rr_xstrdup(p->path);
		it->line = e->line;
		it->col = e->col;
		it->text = rr_xstrdup(e->value);
		it->text_expanded = it->text;
		it->constraint = true;
		it->kind = RR_ITEM_REQ;
		it->req = req;
		it->url_written = it->req.url;
	}
	*ret = f;
	return RR_OK;
}

rr_err rr_project_open(const struct rr_flow_opts *o, const char *pyproject, struct rr_project **ret,
		       rr_error *err)
{
	struct rr_project *p = rr_xcalloc(1, sizeof(*p));
	rr_err rc;

	p->asked = rr_xstrdup(pyproject);
	if ((rc = rr_strbuf_read_file(&p->text, pyproject, RR_REQFILE_MAX_SIZE, err)) ||
	    (rc = rr_toml_check(pyproject, p->text.buf, p->text.len, err)) ||
	    (rc = rr_workspace_find(pyproject, &p->ws, err)))
		goto fail;
	/* the settings live in the workspace root, the only place uv reads them */
	p->path = rr_xstrdup(p->ws->root_pyproject);
	p->dir = rr_xstrdup(p->ws->root);
	if (strcmp(p->path, pyproject) != 0) {
		rr_strbuf_reset(&p->text);
		if ((rc = rr_strbuf_read_file(&p->text, p->path, RR_REQFILE_MAX_SIZE, err)) ||
		    (rc = rr_toml_check(p->path, p->text.buf, p->text.len, err)))
			goto fail;
	}
	pyproject = p->path;
	if ((rc = rr_tomledit_get_array(pyproject, p->text.buf, p->text.len, TOOL_UV, 2,
					KEY_EXCLUDE, &p->cur_excludes, err)) ||
	    (rc = rr_tomledit_get_array(pyproject, p->text.buf, p->text.len, TOOL_UV, 2,
					KEY_CONSTRAINT, &p->cur_constraints, err)))
		goto fail;
	if ((rc = open_flow(p, o, &p->flow, err)))
		goto fail;
	*ret = p;
	return RR_OK;
fail:
	rr_project_free(p);
	return rc;
}

/* "numpy<2" of a protected torchvision: what uv no longer sees once torchvision is excluded */
static void stack_requirements(struct rr_project *p)
{
	const struct rr_flow *f = p->flow;
	struct rr_marker_env env;
	char pybuf[16];
	const char *none[] = {""};

	rr_venv_marker_env(f->venv, &env, pybuf);
	for (size_t i = 0; i < f->stack->n; i++) {
		const struct rr_protected *prot = &f->stack->items[i];
		if (!prot->dist)
			continue;
		for (size_t k = 0; k < prot->dist->meta.nrequires_dist; k++) {
			struct rr_requirement r = RR_REQUIREMENT_INIT;
			bool yes = false;
			if (rr_requirement_parse(prot->dist->meta.requires_dist[k], &r, NULL) || !r.key)
				goto next;
			if (rr_requirement_applies(&r, &env, none, 1, &yes, NULL) || !yes || r.url ||
			    !r.spec.n || rr_stack_lookup(f->stack, r.key) ||
			    rr_policy_match_cuda_only(f->policy, r.key) ||
			    rr_stack_clash(f->stack, f->policy, r.key))
				goto next;
			rr_marker_free(r.marker);
			r.marker = NULL;
			for (size_t e = 0; e < r.nextras; e++)
				free(r.extras[e]);
			r.nextras = 0;
			{
				RR_AUTOFREE char *value = rr_requirement_to_string(&r);
				ours(&p->constraints, value,
				     rr_xasprintf("the protected %s %s requires %s", prot->name,
						  prot->version, value));
			}
next:
			rr_requirement_release(&r);
		}
	}
}

static void excludes_of_stack(struct rr_project *p)
{
	const struct rr_flow *f = p->flow;

	for (size_t i = 0; i < f->stack->n; i++) {
		const struct rr_protected *prot = &f->stack->items[i];
		ours(&p->excludes, prot->key,
		     rr_xasprintf("protected, the environment has %s", prot->version));
	}
	for (size_t i = 0; i < f->stack->n; i++) {
		const struct rr_protected *prot = &f->stack->items[i];
		struct rr_strv names = RR_STRV_INIT;
		if (!prot->clash_group)
			continue;
		if (!rr_policy_clash_members(f->policy, prot->clash_group, &names))
			project_warn(p, rr_xasprintf("the clash group '%s' of the protected %s names "
						     "no finite list: only its members met in the "
						     "resolution are excluded",
						     prot->clash_group, prot->name));
		for (size_t k = 0; k < names.n; k++)
			if (!rr_stack_lookup(f->stack, names.v[k]))
				ours(&p->excludes, names.v[k],
				     rr_xasprintf("would overwrite the files of the protected %s %s",
						  prot->name, prot->version));
		rr_strv_release(&names);
	}
}

static void add_unmet(struct rr_project *p, size_t item, char *owned)
{
	p->unmet = rr_xrealloc(p->unmet, (p->nunmet + 1) * sizeof(char *));
	p->unmet_item = rr_xrealloc(p->unmet_item, (p->nunmet + 1) * sizeof(size_t));
	p->unmet_item[p->nunmet] = item;
	p->unmet[p->nunmet++] = owned;
}

/*
 * an unmet requirement with a version bound, resolved again as the name alone: where a
 * release fits the stack, its own bound is what is in the way (the lower bound `uv add`
 * writes: it locks the newest release, blind to the excluded stack) - named, with the
 * edit that takes the release that fits
 */
static void relax_unmet(struct rr_project *p, const struct rr_flow_opts *o)
{
	for (size_t k = 0; k < p->nunmet; k++) {
		size_t i = p->unmet_item[k];
		const struct rr_item *it = i < p->flow->reqs.nitems ? &p->flow->reqs.items[i]
								    : NULL;
		struct rr_flow_opts fo = *o;
		struct rr_flow *f = NULL;
		rr_error e = RR_ERROR_INIT;
		const struct rr_decision *d;
		const char *fits = NULL;
		char *more;

		if (!it || !it->req.key || !it->req.spec.n || it->req.url || it->constraint)
			continue;
		as_uv_lock(&fo, p);
		if (open_flow(p, o, &f, &e) || i >= f->reqs.nitems ||
		    strcmp(f->reqs.items[i].text, it->text) != 0)
			goto next;
		rr_specset_release(&f->reqs.items[i].req.spec);
		f->reqs.items[i].req.spec = (struct rr_specset)RR_SPECSET_INIT;
		if (rr_flow_plan(f, &fo, &e) || !f->plan->resolved)
			goto next;
		d = &f->plan->decisions[i];
		if (d->action == RR_ACT_STRIP || d->reason == RR_WHY_NO_SAFE_VERSION)
			goto next;
		fits = d->version;
		for (size_t l = 0; !fits && l < f->res.nlocked; l++)
			if (rr_name_eq(f->res.locked[l].name, it->req.key))
				fits = f->res.locked[l].version;
		if (!fits)
			goto next;
		more = rr_xasprintf(
		    "%s; only its own bound is in the way: %s %s fits the stack (`uv "
		    "add` writes the newest release as a lower bound, blind to the "
		    "excluded stack): write '%s>=%s' (or '%s') there, or add it with "
		    "`uv add --raw --frozen %s`, then `rocm-resolve project --write` "
		    "and `uv lock`",
		    p->unmet[k], it->req.name, fits, it->req.name, fits, it->req.name,
		    it->req.name);
		free(p->unmet[k]);
		p->unmet[k] = more;
	next:
		rr_error_release(&e);
		rr_flow_free(f);
	}
}

static void from_plan(struct rr_project *p)
{
	const struct rr_plan *plan = p->flow->plan;
	const struct rr_resolution *res = &p->flow->res;

	for (size_t i = 0; i < plan->ndecisions; i++) {
		const struct rr_decision *d = &plan->decisions[i];
		if (d->constraint || !d->name)
			continue;
		if (d->reason == RR_WHY_HELD_BACK) {
			RR_AUTOFREE char *key = rr_name_normalize(d->name);
			RR_AUTOFREE char *value = rr_xasprintf("%s==%s", key, d->version);
			ours(&p->constraints, value, rr_cause_text(&d->cause));
		} else if (d->reason == RR_WHY_NO_SAFE_VERSION) {
			const char *why = d->cause.head;
			/* the chain down to the protected build, as check names it; the
			 * derivation's first line may stop short of the stack */
			for (size_t k = 0; k < plan->nchanges; k++)
				if (plan->changes[k].decision == d->item && plan->changes[k].why) {
					why = plan->changes[k].why;
					break;
				}
			add_unmet(p, i, NULL);
			p->unmet[p->nunmet - 1] = rr_xasprintf("%s: '%s': %.*s", d->source,
							       d->requirement,
							       (int)strcspn(why, "\n"), why);
		} else if (((d->reason == RR_WHY_CUDA_ONLY || d->reason == RR_WHY_CLASH) &&
			    d->action == RR_ACT_STRIP) ||
			   d->reason == RR_WHY_COUNTERPART) {
			RR_AUTOFREE char *key = rr_name_normalize(d->name);
			RR_AUTOFREE char *why = rr_cause_text(&d->cause);
			/* what was asked, not where: the comment must not change with the file's
			 * layout or with how its directory was named */
			ours(&p->excludes, key,
			     rr_xasprintf("%s; the project asks for '%s'", why, d->requirement));
		}
	}
	for (size_t i = 0; i < plan->nholds; i++) {
		RR_AUTOFREE char *value =
			rr_xasprintf("%s==%s", plan->holds[i].name, plan->holds[i].version);
		ours(&p->constraints, value, rr_xstrdup(plan->holds[i].why));
	}
	if (res->failed) {
		add_unmet(p, SIZE_MAX, rr_xstrdup(res->failed));
	}
}

/* the user's entries (no mark) after ours, as they were; one of ours the user has
 * already is the user's (it stays where it is, and no second copy is added) */
static void keep_users(struct rr_project_list *l, const struct rr_toml_array *cur)
{
	for (size_t i = 0; i < cur->n; i++) {
		if (is_ours(cur->v[i].comment))
			continue;
		for (size_t k = 0; k < l->n; k++)
			if (l->v[k].ours && strcmp(l->v[k].value, cur->v[i].value) == 0) {
				free(l->v[k].value);
				free(l->v[k].comment);
				memmove(&l->v[k], &l->v[k + 1], (l->n - k - 1) * sizeof(*l->v));
				l->n--;
				break;
			}
		list_add(l, cur->v[i].value,
			 cur->v[i].comment ? rr_xstrdup(cur->v[i].comment) : NULL, false);
	}
}

/*
 * a uv.toml beside the pyproject.toml: uv reads its settings first and warns that the
 * [tool.uv] keys "will be ignored in favor of the uv.toml file", yet `uv lock` and
 * `uv sync` (uv 0.13.9, checked) apply exclude-dependencies and constraint-dependencies
 * from the project's pyproject.toml only and ignore them in a uv.toml; so they stay in
 * the pyproject.toml, and the user is told what uv will do
 */
static void uv_toml_beside(struct rr_project *p)
{
	RR_AUTOFREE char *uv_toml = rr_xasprintf("%s/uv.toml", p->dir);
	struct stat st;

	if (stat(uv_toml, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	project_warn(p,
		     rr_xasprintf("%s sits beside %s: uv warns that [tool.uv]'s %s and %s "
				  "\"will be ignored in favor of the uv.toml file\", but uv lock "
				  "and uv sync apply these two keys from pyproject.toml only (in "
				  "a uv.toml they have no effect), so they belong in %s",
				  uv_toml, p->path, KEY_EXCLUDE, KEY_CONSTRAINT, p->path));
}

rr_err rr_project_plan(struct rr_project *p, const struct rr_flow_opts *o, rr_error *err)
{
	struct rr_flow_opts fo = *o;
	rr_err rc;

	as_uv_lock(&fo, p);
	if ((rc = rr_flow_plan(p->flow, &fo, err)))
		return rc;
	excludes_of_stack(p);
	from_plan(p);
	if (p->nunmet && p->flow->plan->resolved)
		relax_unmet(p, o);
	stack_requirements(p);
	if (!p->flow->plan->resolved)
		project_warn(p, rr_xasprintf("not resolved against an index (%s): "
					     "constraint-dependencies hold only what the stack itself "
					     "requires, no package it keeps below its newest release",
					     p->flow->plan->unresolved ? p->flow->plan->unresolved
								       : "no index"));
	uv_toml_beside(p);
	rr_qsort(p->excludes.v, p->excludes.n, sizeof(*p->excludes.v), entry_cmp);
	rr_qsort(p->constraints.v, p->constraints.n, sizeof(*p->constraints.v), entry_cmp);
	keep_users(&p->excludes, &p->cur_excludes);
	keep_users(&p->constraints, &p->cur_constraints);
	return RR_OK;
}

/* one entry as an array's line: `"value",  # comment` */
static char *entry_text(const struct rr_project_entry *e)
{
	RR_AUTOFREE char *q = rr_toml_quote(e->value);
	RR_AUTOFREE char *c = e->comment ? one_line(e->comment) : NULL;

	return c ? rr_xasprintf("%s,  # %s", q, c) : rr_xasprintf("%s,", q);
}

/* the array as TOML, one entry a line with its comment */
static char *array_text(const struct rr_project_list *l)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	if (!l->n)
		return rr_xstrdup("[]");
	rr_strbuf_adds(&sb, "[\n");
	for (size_t i = 0; i < l->n; i++) {
		RR_AUTOFREE char *line = entry_text(&l->v[i]);
		rr_strbuf_addf(&sb, "    %s\n", line);
	}
	rr_strbuf_adds(&sb, "]");
	return rr_strbuf_detach(&sb, NULL);
}

void rr_project_indexes(const struct rr_project *p, struct rr_strbuf *out)
{
	const struct rr_flow *f = p->flow;

	if (!f->plan || !f->plan->resolved) {
		rr_strbuf_addf(out, "not resolved against an index (%s)",
			       f->plan && f->plan->unresolved ? f->plan->unresolved : "no index");
		return;
	}
	rr_strbuf_adds(out, "resolved against ");
	for (size_t i = 0; i < f->nindexes; i++)
		rr_strbuf_addf(out, "%s%s (%s)", i ? ", " : "", f->indexes[i].url,
			       f->indexes[i].origin);
}

void rr_project_format(const struct rr_project *p, struct rr_strbuf *out)
{
	RR_AUTO_STRBUF struct rr_strbuf idx = RR_STRBUF_INIT;
	const struct rr_venv *v = p->flow->venv;
	RR_AUTOFREE char *ex = array_text(&p->excludes);
	RR_AUTOFREE char *co = array_text(&p->constraints);

	rr_project_indexes(p, &idx);
	rr_strbuf_addf(out, "# rocm-resolve %s: [tool.uv] settings for %s that keep `uv lock`,\n"
			    "# `uv sync` and `uv add` off the ROCm stack of %s (python %s%s%s);\n"
			    "# %s;\n"
			    "# `rocm-resolve project --write` puts them in the file\n",
		       RR_VERSION, p->path, v->root, v->python_version ? v->python_version : "?",
		       v->torch_version ? ", torch " : "", v->torch_version ? v->torch_version : "",
		       idx.buf);
	rr_strbuf_addf(out, "[tool.uv]\n%s = %s\n%s = %s\n", KEY_EXCLUDE, ex, KEY_CONSTRAINT, co);
}

bool rr_project_reaches_stack(const struct rr_project *p)
{
	const struct rr_plan *plan = p->flow->plan;
	const struct rr_resolution *res = &p->flow->res;

	if (!plan || res->failed || p->nunmet || plan->nholds || res->npins || res->nexcludes ||
	    res->nchanges)
		return true;
	/* unresolved (no index usable): the lines alone are all there is to go by */
	for (size_t i = 0; i < plan->ndecisions; i++) {
		const struct rr_decision *d = &plan->decisions[i];
		if (d->action != RR_ACT_KEEP || d->reason == RR_WHY_HELD_BACK ||
		    d->reason == RR_WHY_NO_SAFE_VERSION)
			return true;
	}
	for (size_t i = 0; i < res->nlocked; i++) {
		RR_AUTOFREE char *key = rr_name_normalize(res->locked[i].name);
		if (res->locked[i].fixed || rr_stack_lookup(p->flow->stack, key))
			return true;
		/* a package the stack itself requires ("sympy>=1.13.3" of torch) */
		for (size_t k = 0; k < p->constraints.n; k++) {
			const char *v = p->constraints.v[k].value;
			size_t n = strcspn(v, "<>=!~ ;[");
			RR_AUTOFREE char *ck = rr_name_normalize_n(v, n);
			if (p->constraints.v[k].ours && strcmp(ck, key) == 0)
				return true;
		}
	}
	return false;
}

const char *rr_project_uv_needed(const struct rr_project *p, const char **key)
{
	/* constraint-dependencies is older: uv 0.9.0 applies it */
	if (p->excludes.n || p->cur_excludes.found) {
		*key = KEY_EXCLUDE;
		return "0.9.8";
	}
	*key = NULL;
	return NULL;
}

static const char **values_of(const struct rr_project_list *l)
{
	const char **v = rr_xcalloc(l->n + 1, sizeof(char *));

	for (size_t i = 0; i < l->n; i++)
		v[i] = l->v[i].value;
	return v;
}

rr_err rr_project_edit(const struct rr_project *p, char **ret, size_t *retlen, rr_error *err)
{
	const struct rr_project_list *lists[] = {&p->excludes, &p->constraints};
	const char *const keys[] = {KEY_EXCLUDE, KEY_CONSTRAINT};
	RR_AUTOFREE const char **ev = values_of(&p->excludes);
	RR_AUTOFREE const char **cv = values_of(&p->constraints);
	const char *const *vals[] = {ev, cv};
	const size_t nvals[] = {p->excludes.n, p->constraints.n};
	char *text = rr_xstrndup(p->text.buf, p->text.len);
	size_t len = p->text.len;
	rr_err rc;

	for (size_t k = 0; k < 2; k++) {
		/* our entries replaced, the user's left where and as they are */
		char **lines = rr_xcalloc(lists[k]->n + 1, sizeof(char *));
		size_t nlines = 0;
		char *next;
		size_t nlen;
		for (size_t i = 0; i < lists[k]->n; i++)
			if (lists[k]->v[i].ours)
				lines[nlines++] = entry_text(&lists[k]->v[i]);
		rc = rr_tomledit_set_ours(p->path, text, len, TOOL_UV, 2, keys[k], RR_PROJECT_MARK,
					  (const char *const *)lines, nlines, &next, &nlen, err);
		rr_strv_free_array(lines, nlines);
		if (rc) {
			free(text);
			return rc;
		}
		free(text);
		text = next;
		len = nlen;
	}
	rc = rr_toml_check_edit(p->path, p->text.buf, p->text.len, text, len, TOOL_UV, 2, keys, vals,
				nvals, 2, err);
	if (rc) {
		free(text);
		return rc;
	}
	*ret = text;
	*retlen = len;
	return RR_OK;
}

/* stale: whether an entry no longer wanted counts (not when the resolution is missing) */
static void compare_one(const char *key, const struct rr_project_list *want,
			const struct rr_toml_array *have, bool stale, struct rr_strbuf *why,
			bool *ok)
{
	for (size_t i = 0; i < want->n; i++) {
		bool found = false;
		for (size_t k = 0; k < have->n && !found; k++)
			found = strcmp(have->v[k].value, want->v[i].value) == 0;
		if (!found) {
			*ok = false;
			rr_strbuf_addf(why, "%s lacks \"%s\"%s%s\n", key, want->v[i].value,
				       want->v[i].comment ? "  # " : "",
				       want->v[i].comment ? want->v[i].comment : "");
		}
	}
	for (size_t k = 0; stale && k < have->n; k++) {
		bool found = false;
		for (size_t i = 0; i < want->n && !found; i++)
			found = strcmp(have->v[k].value, want->v[i].value) == 0;
		if (!found) {
			*ok = false;
			rr_strbuf_addf(why, "%s holds \"%s\", which is no longer needed\n", key,
				       have->v[k].value);
		}
	}
}

bool rr_project_compare(const struct rr_project *p, struct rr_strbuf *why)
{
	/* unresolved (no index usable): the exclusions follow from the stack and the lines
	 * alone; a constraint the resolution put there cannot be judged stale */
	bool resolved = p->flow->plan && p->flow->plan->resolved;
	bool ok = true;

	compare_one(KEY_EXCLUDE, &p->excludes, &p->cur_excludes, true, why, &ok);
	compare_one(KEY_CONSTRAINT, &p->constraints, &p->cur_constraints, resolved, why, &ok);
	return ok;
}

/* ---- the project environment ------------------------------------------- */

static bool same_dir(const char *a, const char *b)
{
	RR_AUTOFREE char *ra = a ? realpath(a, NULL) : NULL;
	RR_AUTOFREE char *rb = b ? realpath(b, NULL) : NULL;

	return ra && rb && strcmp(ra, rb) == 0;
}

void rr_project_env_find(struct rr_project_env *e, const char *root, const char *protected_root,
			 const char *(*getenv_fn)(const char *))
{
	const char *(*get)(const char *) = getenv_fn ? getenv_fn
						     : (const char *(*)(const char *))getenv;
	const char *upe = get("UV_PROJECT_ENVIRONMENT");
	const char *active = get("VIRTUAL_ENV");
	struct stat st;

	memset(e, 0, sizeof(*e));
	if (upe && *upe) {
		e->path = upe[0] == '/' ? rr_xstrdup(upe) : rr_xasprintf("%s/%s", root, upe);
		e->how = "UV_PROJECT_ENVIRONMENT";
	} else {
		e->path = rr_xasprintf("%s/.venv", root);
		e->how = ".venv";
	}
	e->exists = stat(e->path, &st) == 0;
	e->is_protected = same_dir(e->path, protected_root);
	if (active && *active && !e->is_protected && !same_dir(active, e->path) &&
	    same_dir(active, protected_root))
		e->active = rr_xstrdup(active);
}

/* "torch, torchaudio, ..." of the stack */
static char *stack_names(const struct rr_project *p)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	for (size_t i = 0; i < p->flow->stack->n; i++)
		rr_strbuf_addf(&sb, "%s%s", i ? ", " : "", p->flow->stack->items[i].name);
	return rr_strbuf_detach(&sb, NULL);
}

char *rr_project_env_hazard(const struct rr_project_env *e, const struct rr_project *p, bool *fatal)
{
	const char *prot = p->flow->venv->root;
	RR_AUTOFREE char *names = stack_names(p);

	*fatal = false;
	if (e->is_protected) {
		*fatal = true;
		return rr_xasprintf(
		    "the project environment %s (%s) is the protected environment %s: `uv sync` "
		    "uninstalls every package uv.lock does not hold, and with these settings the "
		    "lock holds none of the stack (%s): it would uninstall them, and no [tool.uv] "
		    "setting changes that (`uv remove` does the same). The one safe command there: "
		    "uv sync "
		    "--inexact (and `uv remove --no-sync`); or sync into a project venv bridged "
		    "to it instead (README: uv projects)",
		    e->path, e->how, prot, names);
	}
	if (e->active && !e->exists) {
		*fatal = true;
		return rr_xasprintf(
		    "no project venv at %s, and $VIRTUAL_ENV is the protected environment %s: "
		    "`uv sync --active` syncs into it and uninstalls every package uv.lock does "
		    "not hold, the stack (%s) included. The one safe command there: uv sync "
		    "--active --inexact; or make a bridged project venv: uv venv --python "
		    "%s/bin/python %s && rocm-resolve project --bridge",
		    e->path, prot, names, prot, e->path);
	}
	if (e->active)
		return rr_xasprintf("$VIRTUAL_ENV is the protected environment %s: `uv sync "
				    "--active` would sync into it and uninstall the stack (%s); "
				    "plain `uv sync` uses the project venv %s",
				    prot, names, e->path);
	return NULL;
}

void rr_project_env_release(struct rr_project_env *e)
{
	free(e->path);
	free(e->active);
	memset(e, 0, sizeof(*e));
}

struct rr_project *rr_project_free(struct rr_project *p)
{
	if (!p)
		return NULL;
	free(p->path);
	free(p->dir);
	free(p->asked);
	rr_workspace_free(p->ws);
	rr_strbuf_release(&p->text);
	rr_toml_array_release(&p->cur_excludes);
	rr_toml_array_release(&p->cur_constraints);
	rr_flow_free(p->flow);
	list_release(&p->excludes);
	list_release(&p->constraints);
	rr_strv_free_array(p->unmet, p->nunmet);
	free(p->unmet_item);
	rr_strv_free_array(p->warnings, p->nwarnings);
	free(p);
	return NULL;
}
