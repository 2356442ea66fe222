#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"

struct ctx {
	const struct rr_venv *v;
	const struct rr_policy *pol;
	struct rr_stack *s;
	struct rr_strbuf *why; /* one per dist; empty = not protected */
	size_t cap_warn;
};

static void warn(struct ctx *c, const char *fmt, ...) RR_PRINTF(2, 3);
static void warn(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	struct rr_strbuf sb = RR_STRBUF_INIT;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	RR_PUSH(c->s->warnings, c->s->nwarnings, c->cap_warn) = rr_strbuf_detach(&sb, NULL);
}

static void add_why(struct ctx *c, size_t i, const char *fmt, ...) RR_PRINTF(3, 4);
static void add_why(struct ctx *c, size_t i, const char *fmt, ...)
{
	va_list ap;

	if (c->why[i].len)
		rr_strbuf_adds(&c->why[i], "; ");
	va_start(ap, fmt);
	rr_strbuf_vaddf(&c->why[i], fmt, ap);
	va_end(ap);
}

/* the local label as written ("rocm7.2.0.lw.git7e1940d4"), or NULL */
static const char *local_of(const struct rr_dist *d)
{
	const char *plus = d->version_text ? strchr(d->version_text, '+') : NULL;
	return plus && plus[1] ? plus + 1 : NULL;
}

static bool is_stock_local(const struct ctx *c, const struct rr_dist *d)
{
	const char *local = local_of(d);
	return local && rr_policy_match_stock_label(c->pol, local);
}

static bool torch_is_rocm(struct ctx *c, const struct rr_dist *torch)
{
	if (!torch)
		return false;
	if (torch->version_text && rr_policy_match_rocm_version(c->pol, torch->version_text))
		return true;
	/* source builds (2.10.0+git8514f05) have no label, only torch.version.hip */
	return c->v->torch_hip && *c->v->torch_hip && !is_stock_local(c, torch);
}

/*
 * another installed member of d's clash group: then d may be the package that
 * overwrote the ROCm build (PyPI triton next to pytorch-triton-rocm), so only a
 * label, a URL or torch's exact pin may protect it, not mere family membership
 */
static bool group_peer_installed(const struct ctx *c, const struct rr_dist *d)
{
	const char *group = rr_policy_clash_group(c->pol, d->key);

	if (!group)
		return false;
	for (size_t i = 0; i < c->v->ndists; i++) {
		const struct rr_dist *o = &c->v->dists[i];
		const char *g;
		if (o == d || o->problem)
			continue;
		g = rr_policy_clash_group(c->pol, o->key);
		if (g && strcmp(g, group) == 0)
			return true;
	}
	return false;
}

static void classify(struct ctx *c, size_t i, const struct rr_dist *torch, bool rocm_torch,
		     const char *const *extra, size_t nextra)
{
	const struct rr_dist *d = &c->v->dists[i];
	const char *reason, *local = local_of(d);
	bool rocm_label = false, url_said = false;

	if (d->version_text && (reason = rr_policy_match_rocm_version(c->pol, d->version_text))) {
		add_why(c, i, "ROCm build: %s (%s)", reason, d->version_text);
		rocm_label = true;
	}
	if (d == torch && c->v->torch_hip && *c->v->torch_hip && !is_stock_local(c, d))
		add_why(c, i, "ROCm build: torch.version.hip is '%s'", c->v->torch_hip);
	if (d->direct_url && (reason = rr_policy_match_rocm_url(c->pol, d->direct_url))) {
		add_why(c, i, "installed from %s (%s)", reason, d->direct_url);
		url_said = true;
	}
	if ((reason = rr_policy_match_gpu_family(c->pol, d->key))) {
		if (d->direct_url && !url_said)
			add_why(c, i, "GPU-family package installed from a direct URL (%s)",
				d->direct_url);
		else if (local && !rocm_label && !is_stock_local(c, d))
			add_why(c, i, "GPU-family package with a custom build label '+%s'", local);
		else if (rocm_torch && d != torch && !rocm_label && !url_said &&
			 !group_peer_installed(c, d))
			add_why(c, i, "GPU-family package installed with the ROCm torch %s",
				torch->version_text);
	}
	for (size_t j = 0; j < nextra; j++) {
		RR_AUTOFREE char *k = rr_name_normalize(extra[j]);
		if (strcmp(k, d->key) == 0) {
			add_why(c, i, "protected on request (--protect %s)", extra[j]);
			break;
		}
	}
}

/*
 * the pip constraint in force is the image's own statement of its stack (NGC images pin
 * torch, torchvision, triton, numpy... there and set PIP_CONSTRAINT): an exact pin of an
 * installed distribution at its installed version protects it; one at another version
 * is said, since pip (which reads PIP_CONSTRAINT) would then refuse the environment's
 * own build
 */
static void constraint_facts(struct ctx *c)
{
	const struct rr_venv *v = c->v;

	for (size_t i = 0; i < v->nconstraints; i++) {
		const struct rr_venv_constraint *k = &v->constraints[i];
		struct rr_requirement req = RR_REQUIREMENT_INIT;
		const struct rr_spec *exact;
		const struct rr_dist *d;

		if (rr_requirement_parse(k->requirement, &req, NULL)) {
			warn(c, "%s:%u: cannot parse the pip constraint '%s'", k->file, k->line,
			     k->requirement);
			continue;
		}
		exact = req.url ? NULL : rr_specset_exact(&req.spec);
		d = exact && req.key ? rr_venv_lookup(v, req.key) : NULL;
		if (d && !d->problem && d->version_ok) {
			if (rr_spec_match(exact, &d->version))
				add_why(c, (size_t)(d - v->dists), "pinned by the pip constraint %s:%u "
								   "(%s)",
					k->file, k->line, k->requirement);
			else
				warn(c, "%s:%u: the pip constraint '%s' does not hold the installed %s %s",
				     k->file, k->line, k->requirement, d->name, d->version_text);
		}
		rr_requirement_release(&req);
	}
}

/*
 * a GPU-family distribution of a clash group (the triton family) in the site of a
 * protected torch is the build that torch runs with, labelled or not: NGC images ship an
 * unlabelled triton 3.3.0 next to their torch 2.8.0a0+...nv25.5, and PyPI's triton would
 * overwrite it. Not when another member of the group is installed too (which of the two
 * is the image's is then for a label, a URL or torch's exact pin to say).
 */
static void torch_companions(struct ctx *c, const struct rr_dist *torch)
{
	const struct rr_venv *v = c->v;
	size_t ti;

	if (!torch)
		return;
	ti = (size_t)(torch - v->dists);
	if (!c->why[ti].len)
		return;
	for (size_t i = 0; i < v->ndists; i++) {
		const struct rr_dist *d = &v->dists[i];
		const struct rr_policy_rule *g;
		if (d == torch || d->problem || c->why[i].len || !d->site || !torch->site ||
		    strcmp(d->site, torch->site) != 0 || !rr_policy_match_gpu_family(c->pol, d->key) ||
		    !(g = rr_policy_match(c->pol, RR_POL_CLASH_GROUP, d->key)) ||
		    group_peer_installed(c, d))
			continue;
		add_why(c, i, "ships the '%s' module in the site of the protected torch %s: the "
			      "build that torch runs with",
			g->module ? g->module : g->id, torch->version_text);
	}
}

/* exact pins in the Requires-Dist of protected dists protect their targets */
static void follow_pins(struct ctx *c)
{
	const struct rr_venv *v = c->v;
	struct rr_marker_env env;
	char pybuf[16];
	RR_AUTOFREE size_t *queue = rr_xcalloc(v->ndists + 1, sizeof(size_t));
	RR_AUTOFREE bool *queued = rr_xcalloc(v->ndists + 1, sizeof(bool));
	size_t head = 0, tail = 0;

	rr_venv_marker_env(v, &env, pybuf);
	for (size_t i = 0; i < v->ndists; i++)
		if (c->why[i].len) {
			queue[tail++] = i;
			queued[i] = true;
		}
	while (head < tail) {
		const struct rr_dist *p = &v->dists[queue[head++]];
		for (size_t r = 0; r < p->meta.nrequires_dist; r++) {
			struct rr_requirement req = RR_REQUIREMENT_INIT;
			rr_error e = RR_ERROR_INIT;
			const struct rr_spec *exact;
			const struct rr_dist *t;
			bool applies = true;
			size_t ti;

			if (rr_requirement_parse(p->meta.requires_dist[r], &req, &e)) {
				warn(c, "%s %s: cannot parse Requires-Dist '%s': %s", p->name,
				     p->version_text, p->meta.requires_dist[r], e.msg);
				goto next;
			}
			/* requirements behind an extra depend on what the user asked for once */
			if (req.marker && rr_marker_uses_extra(req.marker))
				goto next;
			if (req.marker && (rr_marker_eval(req.marker, &env, &applies, &e) || !applies))
				goto next;
			exact = rr_specset_exact(&req.spec);
			if (!exact)
				goto next;
			t = rr_venv_lookup(v, req.key);
			if (!t || t->problem || !t->version_ok) {
				if (!t)
					warn(c, "%s %s requires %s, which is not installed", p->name,
					     p->version_text, p->meta.requires_dist[r]);
				goto next;
			}
			if (!rr_spec_match(exact, &t->version)) {
				warn(c, "%s %s requires %s but %s %s is installed", p->name,
				     p->version_text, p->meta.requires_dist[r], t->name,
				     t->version_text);
				goto next;
			}
			ti = (size_t)(t - v->dists);
			add_why(c, ti, "pinned exactly by %s %s (Requires-Dist: %s)", p->name,
				p->version_text, p->meta.requires_dist[r]);
			if (!queued[ti]) {
				queued[ti] = true;
				queue[tail++] = ti;
			}
next:
			rr_requirement_release(&req);
			rr_error_release(&e);
		}
	}
}

struct modkey {
	const char *module;
	const char *key;
};

static int cmp_modkey(const void *a, const void *b)
{
	const struct modkey *x = a, *y = b;
	int r = strcmp(x->module, y->module);
	return r ? r : strcmp(x->key, y->key);
}

/* names packages put at the top level by mistake; sharing them is no real clash */
static bool generic_module(const char *m)
{
	static const char *const names[] = {"benchmarks", "docs", "examples", "scripts", "test",
					    "tests", "tools", "src"};
	for (size_t i = 0; i < RR_ARRAY_LEN(names); i++)
		if (strcmp(m, names[i]) == 0)
			return true;
	return false;
}

static void find_clashes(struct ctx *c)
{
	const struct rr_venv *v = c->v;
	struct modkey *mk = NULL;
	size_t n = 0, cap = 0, capc = 0;

	for (size_t i = 0; i < v->ndists; i++) {
		const struct rr_dist *d = &v->dists[i];
		if (d->problem)
			continue;
		for (size_t j = 0; j < d->ntop_level; j++)
			if (!generic_module(d->top_level[j]))
				RR_PUSH(mk, n, cap) = (struct modkey){d->top_level[j], d->key};
	}
	if (n)
		rr_qsort(mk, n, sizeof(*mk), cmp_modkey);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && strcmp(mk[j].module, mk[i].module) == 0)
			j++;
		if (j - i > 1) {
			struct rr_clash *cl = &RR_PUSH(c->s->clashes, c->s->nclashes, capc);
			RR_AUTO_STRBUF struct rr_strbuf who = RR_STRBUF_INIT;
			cl->module = rr_xstrdup(mk[i].module);
			cl->nkeys = j - i;
			cl->keys = rr_xcalloc(cl->nkeys, sizeof(char *));
			for (size_t k = i; k < j; k++) {
				cl->keys[k - i] = rr_xstrdup(mk[k].key);
				rr_strbuf_addf(&who, "%s%s", k > i ? ", " : "", mk[k].key);
			}
			warn(c, "import package '%s' is installed by several distributions (%s); "
				"their files overwrite each other",
			     cl->module, who.buf);
		}
		i = j;
	}
	free(mk);
}

static const char *detected_group(const struct rr_stack *s, const char *key)
{
	for (size_t i = 0; i < s->nclashes; i++)
		for (size_t k = 0; k < s->clashes[i].nkeys; k++)
			if (strcmp(s->clashes[i].keys[k], key) == 0)
				return s->clashes[i].module;
	return NULL;
}

rr_err rr_stack_compute(const struct rr_venv *v, const struct rr_policy *pol,
			const char *const *extra_protect, size_t nextra, struct rr_stack **ret,
			rr_error *err)
{
	struct ctx c = {.v = v, .pol = pol};
	const struct rr_dist *torch;
	bool rocm_torch;
	size_t cap = 0;

	if (!v || !pol)
		return rr_fail(err, RR_E_INTERNAL, "stack needs a venv and a policy");
	c.s = rr_xcalloc(1, sizeof(*c.s));
	c.why = rr_xcalloc(v->ndists + 1, sizeof(*c.why));
	for (size_t i = 0; i < v->ndists; i++)
		rr_strbuf_init(&c.why[i]);
	torch = rr_venv_lookup(v, "torch");
	if (torch && torch->problem)
		torch = NULL;
	rocm_torch = torch_is_rocm(&c, torch);
	if (rocm_torch)
		c.s->rocm_torch = rr_xasprintf("torch %s", torch->version_text);
	for (size_t i = 0; i < v->ndists; i++)
		classify(&c, i, torch, rocm_torch, extra_protect, nextra);
	constraint_facts(&c);
	torch_companions(&c, torch);
	follow_pins(&c);
	for (size_t j = 0; j < nextra; j++) {
		RR_AUTOFREE char *k = rr_name_normalize(extra_protect[j]);
		if (!rr_venv_lookup(v, k))
			warn(&c, "--protect %s: no such distribution is installed", extra_protect[j]);
	}
	find_clashes(&c);
	for (size_t i = 0; i < v->ndists; i++) {
		const struct rr_dist *d = &v->dists[i];
		struct rr_protected *p;
		if (!c.why[i].len)
			continue;
		p = &RR_PUSH(c.s->items, c.s->n, cap);
		p->key = rr_xstrdup(d->key);
		p->name = rr_xstrdup(d->name);
		p->version = d->version_text ? rr_xstrdup(d->version_text) : NULL;
		if (d->problem)
			add_why(&c, i, "(its metadata is unusable: %s)", d->problem);
		p->why = rr_strbuf_detach(&c.why[i], NULL);
		p->dist = d;
		p->clash_group = rr_policy_clash_group(pol, d->key);
		if (!p->clash_group)
			p->clash_group = detected_group(c.s, d->key);
	}
	for (size_t i = 0; i < v->ndists; i++)
		rr_strbuf_release(&c.why[i]);
	free(c.why);
	*ret = c.s;
	return RR_OK;
}

const struct rr_protected *rr_stack_lookup(const struct rr_stack *s, const char *key)
{
	size_t lo = 0, hi = s ? s->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(s->items[mid].key, key);
		if (r == 0)
			return &s->items[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool has_module(const struct rr_dist *d, const char *m)
{
	for (size_t i = 0; i < d->ntop_level; i++)
		if (strcmp(d->top_level[i], m) == 0)
			return true;
	return false;
}

const struct rr_protected *rr_stack_clash(const struct rr_stack *s, const struct rr_policy *pol,
					  const char *key)
{
	const char *group;
	RR_AUTOFREE char *module = NULL;

	if (!s || !key)
		return NULL;
	group = rr_policy_clash_group(pol, key);
	if (group)
		for (size_t i = 0; i < s->n; i++)
			if (s->items[i].clash_group && strcmp(s->items[i].clash_group, group) == 0 &&
			    strcmp(s->items[i].key, key) != 0)
				return &s->items[i];
	for (size_t i = 0; i < s->nclashes; i++) {
		const struct rr_clash *cl = &s->clashes[i];
		bool member = false;
		for (size_t k = 0; k < cl->nkeys && !member; k++)
			member = strcmp(cl->keys[k], key) == 0;
		for (size_t k = 0; k < cl->nkeys && member; k++) {
			const struct rr_protected *p = rr_stack_lookup(s, cl->keys[k]);
			if (p && strcmp(p->key, key) != 0)
				return p;
		}
	}
	/* "functorch" would land in torch's functorch/ */
	module = rr_xstrdup(key);
	for (char *m = module; *m; m++)
		if (*m == '-')
			*m = '_';
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->items[i].key, key) != 0 && s->items[i].dist &&
		    has_module(s->items[i].dist, module))
			return &s->items[i];
	return NULL;
}

rr_err rr_stack_require(const struct rr_stack *s, const struct rr_venv *v, rr_error *err)
{
	if (s && s->n)
		return RR_OK;
	if (v && v->stack_file)
		return rr_fail(err, RR_E_ENV,
			       "nothing to protect in the stack file '%s' (%zu distributions, "
			       "no ROCm build among them); write it with `rocm-resolve inspect "
			       "--format json` in the ROCm container",
			       v->stack_file, v->ndists);
	return rr_fail(err, RR_E_ENV,
		       "nothing to protect in '%s' (%zu distributions, no ROCm build among them): "
		       "it is not the ROCm environment; pass --venv DIR of the ROCm venv, activate "
		       "it, or pass --stack FILE written by `rocm-resolve inspect --format json` in "
		       "the container (--protect NAME protects a distribution by hand)",
		       v ? v->root : "?", v ? v->ndists : 0);
}

struct rr_stack *rr_stack_free(struct rr_stack *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		free(s->items[i].key);
		free(s->items[i].name);
		free(s->items[i].version);
		free(s->items[i].why);
	}
	free(s->items);
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	for (size_t i = 0; i < s->nclashes; i++) {
		free(s->clashes[i].module);
		for (size_t k = 0; k < s->clashes[i].nkeys; k++)
			free(s->clashes[i].keys[k]);
		free(s->clashes[i].keys);
	}
	free(s->clashes);
	free(s->rocm_torch);
	free(s);
	return NULL;
}
