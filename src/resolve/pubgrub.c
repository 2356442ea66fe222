/*
 * pubgrub.c - PubGrub version solving over finite candidate bitsets.
 *
 * The algorithm is Natalie Weizenbaum's PubGrub as documented for Dart pub:
 * incompatibilities, unit propagation, conflict resolution that learns new
 * incompatibilities and backjumps, and decision making. Version sets are the
 * bitsets described in pubgrub-private.h.
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

#include "resolve/pubgrub-private.h"

#define PG_CHUNK (64 * 1024)

struct pg_chunk {
	struct pg_chunk *next;
	size_t used;
	size_t cap;
	uint64_t data[];
};

struct pg_term {
	uint32_t pkg;
	uint64_t *set;
};

struct pg_inc {
	struct pg_term *terms;
	uint32_t nterms;
	enum pg_kind kind;
	bool superseded; /* replaced by a merged dependency incompatibility */
	int32_t tag;
	const char *a; /* requirement or constraint text */
	const char *b; /* why nothing matches / why unusable */
	const char *o; /* origin of a root requirement or constraint */
	uint32_t cause1;
	uint32_t cause2;
	uint32_t dep_pkg; /* PG_K_DEP: the dependency's package, for merging */
};

struct pg_assign {
	uint32_t pkg;
	uint32_t level;
	int32_t cause; /* incompatibility id, -1 for a decision */
	uint64_t *set;
};

struct pg_pkg {
	const char *name;
	uint32_t ncand;
	uint32_t nwords;
	const char *const *vtext;
	int32_t preferred;
	int32_t decided;
	uint64_t *cur;	     /* intersection of this package's assignments */
	uint64_t *deps_done; /* candidates whose dependencies were added */
	uint32_t *incs;
	size_t nincs;
	size_t capincs;
	bool dirty;
};

struct pg_solver {
	struct pg_ops ops;
	struct pg_chunk *chunks;
	struct pg_pkg *pkgs;
	size_t npkgs;
	size_t cappkgs;
	struct pg_inc *incs;
	size_t nincs;
	size_t capincs;
	struct pg_assign *log;
	size_t nlog;
	size_t caplog;
	uint32_t level;
	size_t steps;
	int32_t failure; /* the terminal incompatibility, -1 while none */
	uint32_t *stack;
	size_t nstack;
	size_t capstack;
	int32_t *reason; /* per package: the first positive derivation's cause, after success */
};

/* ---- arena ------------------------------------------------------------ */

static void *pg_alloc(struct pg_solver *s, size_t bytes)
{
	size_t words = (bytes + 7) / 8;
	struct pg_chunk *c = s->chunks;
	void *p;

	if (!c || c->cap - c->used < words) {
		size_t cap = words > PG_CHUNK / 8 ? words : PG_CHUNK / 8;
		c = rr_xmalloc(sizeof(*c) + cap * 8);
		c->cap = cap;
		c->used = 0;
		c->next = s->chunks;
		s->chunks = c;
	}
	p = c->data + c->used;
	c->used += words;
	memset(p, 0, words * 8);
	return p;
}

static const char *pg_strdup(struct pg_solver *s, const char *str)
{
	size_t n;
	char *p;

	if (!str)
		return NULL;
	n = strlen(str);
	p = pg_alloc(s, n + 1);
	memcpy(p, str, n + 1);
	return p;
}

/* ---- sets ------------------------------------------------------------- */

static uint64_t last_mask(const struct pg_pkg *p)
{
	uint32_t bits = (p->ncand + 1) % 64;
	return bits ? (UINT64_C(1) << bits) - 1 : ~UINT64_C(0);
}

static uint64_t *set_copy(struct pg_solver *s, const struct pg_pkg *p, const uint64_t *src)
{
	uint64_t *d = pg_alloc(s, p->nwords * 8);
	memcpy(d, src, p->nwords * 8);
	return d;
}

static void set_fill(const struct pg_pkg *p, uint64_t *d)
{
	for (uint32_t i = 0; i < p->nwords; i++)
		d[i] = ~UINT64_C(0);
	d[p->nwords - 1] &= last_mask(p);
}

static void set_not(const struct pg_pkg *p, uint64_t *d)
{
	for (uint32_t i = 0; i < p->nwords; i++)
		d[i] = ~d[i];
	d[p->nwords - 1] &= last_mask(p);
}

static bool set_subset(const struct pg_pkg *p, const uint64_t *a, const uint64_t *b)
{
	for (uint32_t i = 0; i < p->nwords; i++)
		if (a[i] & ~b[i])
			return false;
	return true;
}

static bool set_disjoint(const struct pg_pkg *p, const uint64_t *a, const uint64_t *b)
{
	for (uint32_t i = 0; i < p->nwords; i++)
		if (a[i] & b[i])
			return false;
	return true;
}

static bool set_eq(const struct pg_pkg *p, const uint64_t *a, const uint64_t *b)
{
	return memcmp(a, b, p->nwords * 8) == 0;
}

static bool set_full(const struct pg_pkg *p, const uint64_t *a)
{
	for (uint32_t i = 0; i + 1 < p->nwords; i++)
		if (a[i] != ~UINT64_C(0))
			return false;
	return a[p->nwords - 1] == last_mask(p);
}

static uint32_t set_count_versions(const struct pg_pkg *p, const uint64_t *a)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nwords; i++)
		n += (uint32_t)__builtin_popcountll(a[i]);
	return n - (pg_set_has(a, p->ncand) ? 1 : 0);
}

/* ---- packages, incompatibilities -------------------------------------- */

struct pg_solver *pg_new(const struct pg_ops *ops)
{
	static const char *const root_v[] = {""};
	struct pg_solver *s = rr_xcalloc(1, sizeof(*s));
	uint64_t *none;

	s->ops = *ops;
	s->failure = -1;
	pg_pkg_add(s, "root", 1, root_v, -1);
	/* {root not selected} is the one incompatibility that starts everything */
	none = pg_set_new(s, PG_ROOT);
	pg_set_add(none, 1);
	pg_add_forbidden(s, PG_ROOT, none, PG_K_ROOT, -1, NULL, NULL, NULL);
	return s;
}

struct pg_solver *pg_free(struct pg_solver *s)
{
	if (!s)
		return NULL;
	while (s->chunks) {
		struct pg_chunk *n = s->chunks->next;
		free(s->chunks);
		s->chunks = n;
	}
	for (size_t i = 0; i < s->npkgs; i++)
		free(s->pkgs[i].incs);
	free(s->pkgs);
	free(s->incs);
	free(s->log);
	free(s->stack);
	free(s->reason);
	free(s);
	return NULL;
}

uint32_t pg_pkg_add(struct pg_solver *s, const char *name, uint32_t ncand,
		    const char *const *vtext, int32_t preferred)
{
	struct pg_pkg *p = &RR_PUSH(s->pkgs, s->npkgs, s->cappkgs);

	memset(p, 0, sizeof(*p));
	p->name = pg_strdup(s, name);
	p->ncand = ncand;
	p->nwords = (ncand + 1 + 63) / 64;
	p->vtext = vtext;
	p->preferred = preferred;
	p->decided = -1;
	p->cur = pg_alloc(s, p->nwords * 8);
	set_fill(p, p->cur);
	p->deps_done = pg_alloc(s, p->nwords * 8);
	return (uint32_t)(s->npkgs - 1);
}

const char *pg_pkg_name(const struct pg_solver *s, uint32_t pkg)
{
	return s->pkgs[pkg].name;
}

uint32_t pg_pkg_ncand(const struct pg_solver *s, uint32_t pkg)
{
	return s->pkgs[pkg].ncand;
}

uint64_t *pg_set_new(struct pg_solver *s, uint32_t pkg)
{
	return pg_alloc(s, s->pkgs[pkg].nwords * 8);
}

static uint32_t inc_new(struct pg_solver *s, uint32_t nterms, enum pg_kind kind, int32_t tag,
			const char *o, const char *a, const char *b)
{
	struct pg_inc *in = &RR_PUSH(s->incs, s->nincs, s->capincs);

	memset(in, 0, sizeof(*in));
	in->terms = pg_alloc(s, nterms * sizeof(struct pg_term));
	in->nterms = nterms;
	in->kind = kind;
	in->tag = tag;
	in->a = pg_strdup(s, a);
	in->b = pg_strdup(s, b);
	in->o = pg_strdup(s, o);
	return (uint32_t)(s->nincs - 1);
}

static void inc_register(struct pg_solver *s, uint32_t id)
{
	struct pg_inc *in = &s->incs[id];

	for (uint32_t i = 0; i < in->nterms; i++) {
		struct pg_pkg *p = &s->pkgs[in->terms[i].pkg];
		RR_PUSH(p->incs, p->nincs, p->capincs) = id;
	}
}

void pg_add_forbidden(struct pg_solver *s, uint32_t pkg, const uint64_t *set, enum pg_kind kind,
		      int32_t tag, const char *origin, const char *a, const char *b)
{
	uint32_t id = inc_new(s, 1, kind, tag, origin, a, b);

	s->incs[id].terms[0].pkg = pkg;
	s->incs[id].terms[0].set = set_copy(s, &s->pkgs[pkg], set);
	inc_register(s, id);
}

/*
 * candidates of one package with the same dependency are merged into one
 * incompatibility {pkg in X, not dep in S}, as pubgrub-rs does, so that the
 * explanation can say "vllm >=0.10.1,<=0.11.0 depends on torch==2.8.0"
 * instead of listing every version; the merged one replaces the old one
 */
void pg_add_dependency(struct pg_solver *s, uint32_t pkg, uint32_t cand, uint32_t dep,
		       const uint64_t *depset, int32_t tag, const char *origin, const char *a,
		       const char *nomatch)
{
	struct pg_pkg *p = &s->pkgs[pkg];
	struct pg_pkg *d = &s->pkgs[dep];
	uint64_t *mine = pg_set_new(s, pkg);
	uint64_t *neg;
	uint32_t id;

	pg_set_add(mine, cand);
	if (set_count_versions(d, depset) == 0) {
		id = inc_new(s, 1, PG_K_NOMATCH, tag, origin, a, nomatch);
		s->incs[id].terms[0].pkg = pkg;
		s->incs[id].terms[0].set = mine;
		s->incs[id].dep_pkg = dep;
		inc_register(s, id);
		return;
	}
	neg = set_copy(s, d, depset);
	set_not(d, neg);
	if (pkg != PG_ROOT) {
		for (size_t k = 0; k < p->nincs; k++) {
			struct pg_inc *o = &s->incs[p->incs[k]];
			if (o->kind != PG_K_DEP || o->superseded || o->nterms != 2 ||
			    o->terms[0].pkg != pkg || o->dep_pkg != dep ||
			    !set_eq(d, o->terms[1].set, neg) || !rr_str_eq(o->a, a))
				continue;
			for (uint32_t w = 0; w < p->nwords; w++)
				mine[w] |= o->terms[0].set[w];
			o->superseded = true;
			break;
		}
	}
	id = inc_new(s, 2, PG_K_DEP, tag, origin, a, NULL);
	s->incs[id].terms[0].pkg = pkg;
	s->incs[id].terms[0].set = mine;
	s->incs[id].terms[1].pkg = dep;
	s->incs[id].terms[1].set = neg;
	s->incs[id].dep_pkg = dep;
	inc_register(s, id);
}

/* ---- partial solution ------------------------------------------------- */

enum pg_rel { REL_SATISFIED, REL_ALMOST, REL_CONTRADICTED, REL_INCONCLUSIVE };

static enum pg_rel relation(const struct pg_solver *s, const struct pg_inc *in, uint32_t *unsat)
{
	uint32_t u = UINT32_MAX;

	for (uint32_t i = 0; i < in->nterms; i++) {
		const struct pg_pkg *p = &s->pkgs[in->terms[i].pkg];
		if (set_subset(p, p->cur, in->terms[i].set))
			continue;
		if (set_disjoint(p, p->cur, in->terms[i].set))
			return REL_CONTRADICTED;
		if (u != UINT32_MAX)
			return REL_INCONCLUSIVE;
		u = i;
	}
	*unsat = u;
	return u == UINT32_MAX ? REL_SATISFIED : REL_ALMOST;
}

static void assign(struct pg_solver *s, uint32_t pkg, uint64_t *set, int32_t cause)
{
	struct pg_pkg *p = &s->pkgs[pkg];
	struct pg_assign *a = &RR_PUSH(s->log, s->nlog, s->caplog);

	a->pkg = pkg;
	a->level = s->level;
	a->cause = cause;
	a->set = set;
	for (uint32_t w = 0; w < p->nwords; w++)
		p->cur[w] &= set[w];
}

/* derive "not term" from an incompatibility whose other terms all hold */
static void derive(struct pg_solver *s, uint32_t id, uint32_t ti)
{
	const struct pg_term *t = &s->incs[id].terms[ti];
	struct pg_pkg *p = &s->pkgs[t->pkg];
	uint64_t *set = set_copy(s, p, t->set);

	set_not(p, set);
	assign(s, t->pkg, set, (int32_t)id);
}

static void backtrack(struct pg_solver *s, uint32_t level)
{
	bool any = false;

	while (s->nlog && s->log[s->nlog - 1].level > level) {
		struct pg_assign *a = &s->log[--s->nlog];
		struct pg_pkg *p = &s->pkgs[a->pkg];
		if (a->cause < 0)
			p->decided = -1;
		p->dirty = true;
		any = true;
	}
	s->level = level;
	if (!any)
		return;
	for (size_t i = 0; i < s->npkgs; i++)
		if (s->pkgs[i].dirty)
			set_fill(&s->pkgs[i], s->pkgs[i].cur);
	for (size_t i = 0; i < s->nlog; i++) {
		struct pg_pkg *p = &s->pkgs[s->log[i].pkg];
		if (!p->dirty)
			continue;
		for (uint32_t w = 0; w < p->nwords; w++)
			p->cur[w] &= s->log[i].set[w];
	}
	for (size_t i = 0; i < s->npkgs; i++)
		s->pkgs[i].dirty = false;
}

/* ---- conflict resolution ---------------------------------------------- */

/* "root is not selected" itself is resolved once more, to blame its cause */
static bool is_terminal(const struct pg_inc *in)
{
	return in->nterms == 0 ||
	       (in->nterms == 1 && in->terms[0].pkg == PG_ROOT && in->kind != PG_K_ROOT);
}

/*
 * the resolvent of two incompatibilities on package p: the terms for p are
 * united ({p in A, x} and {p in B, y} give {p in A|B, x, y}), all other terms
 * for one package intersected; a term covering everything is dropped
 */
static uint32_t prior_cause(struct pg_solver *s, uint32_t i1, uint32_t i2, uint32_t p)
{
	struct pg_term tmp[64];
	struct pg_term *terms = tmp;
	uint32_t n = 0;
	uint32_t max = s->incs[i1].nterms + s->incs[i2].nterms;
	uint32_t id;
	uint32_t out = 0;

	if (max > RR_ARRAY_LEN(tmp))
		terms = rr_xmalloc(max * sizeof(*terms));
	for (int k = 0; k < 2; k++) {
		const struct pg_inc *in = &s->incs[k ? i2 : i1];
		for (uint32_t i = 0; i < in->nterms; i++) {
			const struct pg_term *t = &in->terms[i];
			const struct pg_pkg *pk = &s->pkgs[t->pkg];
			uint32_t j;
			for (j = 0; j < n; j++)
				if (terms[j].pkg == t->pkg)
					break;
			if (j == n) {
				terms[n].pkg = t->pkg;
				terms[n++].set = set_copy(s, pk, t->set);
				continue;
			}
			for (uint32_t w = 0; w < pk->nwords; w++) {
				if (t->pkg == p)
					terms[j].set[w] |= t->set[w];
				else
					terms[j].set[w] &= t->set[w];
			}
		}
	}
	for (uint32_t j = 0; j < n; j++)
		if (!set_full(&s->pkgs[terms[j].pkg], terms[j].set))
			out++;
	id = inc_new(s, out, PG_K_DERIVED, -1, NULL, NULL, NULL);
	out = 0;
	for (uint32_t j = 0; j < n; j++)
		if (!set_full(&s->pkgs[terms[j].pkg], terms[j].set))
			s->incs[id].terms[out++] = terms[j];
	s->incs[id].cause1 = i1;
	s->incs[id].cause2 = i2;
	if (terms != tmp)
		free(terms);
	return id;
}

/*
 * Dart's conflict resolution: walk back to the assignment that made the
 * incompatibility true (the satisfier); if it is a decision or the rest was
 * already true at an earlier level, learn and backjump there, otherwise
 * resolve with the satisfier's cause and repeat
 */
static bool resolve_conflict(struct pg_solver *s, uint32_t id, uint32_t *ret)
{
	bool learned = false;

	for (;;) {
		struct pg_inc *in = &s->incs[id];
		int64_t early[64];
		uint64_t *acc[64];
		int64_t *earliest = early;
		uint64_t **accs = acc;
		uint32_t left;
		int64_t sat = -1;
		uint32_t st = 0;
		int64_t prev = -1;
		uint32_t prev_level;
		const struct pg_assign *sa;

		if (is_terminal(in)) {
			s->failure = (int32_t)id;
			return false;
		}
		if (in->nterms > RR_ARRAY_LEN(early)) {
			earliest = rr_xmalloc(in->nterms * sizeof(*earliest));
			accs = rr_xmalloc(in->nterms * sizeof(*accs));
		}
		for (uint32_t i = 0; i < in->nterms; i++) {
			earliest[i] = -1;
			accs[i] = pg_set_new(s, in->terms[i].pkg);
			set_fill(&s->pkgs[in->terms[i].pkg], accs[i]);
		}
		left = in->nterms;
		for (size_t k = 0; k < s->nlog && left; k++) {
			const struct pg_assign *a = &s->log[k];
			for (uint32_t i = 0; i < in->nterms; i++) {
				const struct pg_pkg *p = &s->pkgs[a->pkg];
				if (in->terms[i].pkg != a->pkg || earliest[i] >= 0)
					continue;
				for (uint32_t w = 0; w < p->nwords; w++)
					accs[i][w] &= a->set[w];
				if (set_subset(p, accs[i], in->terms[i].set)) {
					earliest[i] = (int64_t)k;
					left--;
				}
			}
		}
		for (uint32_t i = 0; i < in->nterms; i++) {
			if (earliest[i] > sat) {
				sat = earliest[i];
				st = i;
			}
		}
		if (left || sat < 0) {
			/* not satisfied: cannot happen for a conflict */
			if (earliest != early) {
				free(earliest);
				free(accs);
			}
			s->failure = (int32_t)id;
			return false;
		}
		for (uint32_t i = 0; i < in->nterms; i++)
			if (i != st && earliest[i] > prev)
				prev = earliest[i];
		sa = &s->log[sat];
		{
			/* the satisfier may need earlier assignments of its package */
			const struct pg_pkg *p = &s->pkgs[sa->pkg];
			uint64_t *x = set_copy(s, p, sa->set);
			if (!set_subset(p, x, in->terms[st].set)) {
				for (int64_t k = 0; k < sat; k++) {
					if (s->log[k].pkg != sa->pkg)
						continue;
					for (uint32_t w = 0; w < p->nwords; w++)
						x[w] &= s->log[k].set[w];
					if (set_subset(p, x, in->terms[st].set)) {
						if (k > prev)
							prev = k;
						break;
					}
				}
			}
		}
		if (earliest != early) {
			free(earliest);
			free(accs);
		}
		/*
		 * root requirements are added up front, so they propagate at
		 * level 0 and Dart's "at least level 1" floor does not apply
		 */
		prev_level = prev >= 0 ? s->log[prev].level : 0;
		if (sa->cause < 0 || prev_level != sa->level) {
			if (learned)
				inc_register(s, id);
			backtrack(s, prev_level);
			*ret = id;
			return true;
		}
		id = prior_cause(s, id, (uint32_t)sa->cause, sa->pkg);
		learned = true;
	}
}

/* ---- propagation and decisions ---------------------------------------- */

static void push_changed(struct pg_solver *s, uint32_t pkg)
{
	for (size_t i = 0; i < s->nstack; i++)
		if (s->stack[i] == pkg)
			return;
	RR_PUSH(s->stack, s->nstack, s->capstack) = pkg;
}

static rr_err propagate(struct pg_solver *s, uint32_t start, bool *failed, rr_error *err)
{
	s->nstack = 0;
	push_changed(s, start);
	while (s->nstack) {
		uint32_t pkg = s->stack[--s->nstack];
		struct pg_pkg *p = &s->pkgs[pkg];
		for (size_t k = p->nincs; k-- > 0;) {
			uint32_t id = p->incs[k];
			uint32_t ti;
			enum pg_rel r;
			if (s->incs[id].superseded)
				continue;
			r = relation(s, &s->incs[id], &ti);
			if (r == REL_SATISFIED) {
				uint32_t cause;
				if (!resolve_conflict(s, id, &cause)) {
					*failed = true;
					return RR_OK;
				}
				if (relation(s, &s->incs[cause], &ti) != REL_ALMOST)
					return rr_fail(err, RR_E_INTERNAL,
						       "resolver: learned incompatibility is not unit");
				derive(s, cause, ti);
				s->nstack = 0;
				push_changed(s, s->incs[cause].terms[ti].pkg);
				break;
			}
			if (r == REL_ALMOST) {
				derive(s, id, ti);
				push_changed(s, s->incs[id].terms[ti].pkg);
			}
		}
	}
	*failed = false;
	return RR_OK;
}

/* a decision must not make an incompatibility true; then propagate instead */
static bool decision_conflicts(const struct pg_solver *s, uint32_t pkg, uint32_t cand)
{
	const struct pg_pkg *p = &s->pkgs[pkg];

	for (size_t k = 0; k < p->nincs; k++) {
		const struct pg_inc *in = &s->incs[p->incs[k]];
		bool all = true;
		if (in->superseded)
			continue;
		for (uint32_t i = 0; i < in->nterms && all; i++) {
			const struct pg_term *t = &in->terms[i];
			const struct pg_pkg *q = &s->pkgs[t->pkg];
			if (t->pkg == pkg)
				all = pg_set_has(t->set, cand);
			else
				all = set_subset(q, q->cur, t->set);
		}
		if (all)
			return true;
	}
	return false;
}

/*
 * the next package to decide: one with a single choice left first (the fixed
 * stack, exact pins), else the first one met (the order packages were added:
 * the roots in the order they were written, then their dependencies as they
 * were found), as uv and pip do. "Fewest choices first" decided an unbounded
 * root (pandas) before a bounded one that caps it (gradio <=5.50 needing
 * pandas<3), and the resolver then walked down every release of the bounded
 * one, each a metadata fetch, before it could backtrack.
 */
static int64_t pick_package(const struct pg_solver *s)
{
	int64_t best = -1;

	for (size_t i = 0; i < s->npkgs; i++) {
		const struct pg_pkg *p = &s->pkgs[i];
		if (p->decided >= 0 || pg_set_has(p->cur, p->ncand))
			continue;
		if (set_count_versions(p, p->cur) <= 1)
			return (int64_t)i;
		if (best < 0)
			best = (int64_t)i;
	}
	return best;
}

/* candidate i of pkg is known to have unknown dependencies */
static bool known_unknown(const struct pg_solver *s, uint32_t pkg, uint32_t i)
{
	const struct pg_pkg *p = &s->pkgs[pkg];

	return s->ops.deps_unknown && pg_set_has(p->deps_done, i) &&
	       s->ops.deps_unknown(s->ops.ctx, pkg, i);
}

/*
 * How many candidates of one package may turn out to have unknown dependencies
 * before the walk stops preferring known ones: each costs a whole sdist
 * download, and a project whose sdists all predate Metadata-Version 2.2 (or
 * build everything dynamically) would otherwise be walked release by release.
 */
#define PG_UNKNOWN_WALK 8

static uint32_t count_unknown(const struct pg_solver *s, uint32_t pkg)
{
	const struct pg_pkg *p = &s->pkgs[pkg];
	uint32_t n = 0;

	for (uint32_t i = 0; s->ops.deps_unknown && i < p->ncand; i++)
		n += known_unknown(s, pkg, i);
	return n;
}

/*
 * the installed candidate when allowed, else the newest; a candidate whose
 * dependencies proved unknown only when no other allowed one is left that
 * may have known ones (or PG_UNKNOWN_WALK of them were met already)
 */
static int32_t pick_version(const struct pg_solver *s, uint32_t pkg, bool skip_unknown)
{
	const struct pg_pkg *p = &s->pkgs[pkg];

	if (skip_unknown && s->ops.deps_unknown && count_unknown(s, pkg) >= PG_UNKNOWN_WALK)
		skip_unknown = false;

	if (p->preferred >= 0 && pg_set_has(p->cur, (uint32_t)p->preferred) &&
	    !(skip_unknown && known_unknown(s, pkg, (uint32_t)p->preferred)))
		return p->preferred;
	for (uint32_t i = p->ncand; i-- > 0;)
		if (pg_set_has(p->cur, i) && !(skip_unknown && known_unknown(s, pkg, i)))
			return (int32_t)i;
	return skip_unknown ? pick_version(s, pkg, false) : -1;
}

size_t pg_next_allowed(const struct pg_solver *s, uint32_t pkg, uint32_t cand, uint32_t *out,
		       size_t max)
{
	const struct pg_pkg *p = &s->pkgs[pkg];
	size_t n = 0;
	bool pref = p->preferred >= 0 && (uint32_t)p->preferred != cand &&
		    pg_set_has(p->cur, (uint32_t)p->preferred) &&
		    !pg_set_has(p->deps_done, (uint32_t)p->preferred);

	if (pref && n < max)
		out[n++] = (uint32_t)p->preferred;
	for (uint32_t i = p->ncand; i-- > 0 && n < max;)
		if (i != cand && (!pref || i != (uint32_t)p->preferred) && pg_set_has(p->cur, i) &&
		    !pg_set_has(p->deps_done, i))
			out[n++] = i;
	return n;
}

rr_err pg_solve(struct pg_solver *s, size_t max_steps, bool *ok, rr_error *err)
{
	uint32_t next = PG_ROOT;
	bool failed;
	rr_err rc;

	s->level = 0;
	for (;;) {
		int64_t pk;
		int32_t v;
		struct pg_pkg *p;

		rc = propagate(s, next, &failed, err);
		if (rc)
			return rc;
		if (failed) {
			*ok = false;
			return RR_OK;
		}
		pk = pick_package(s);
		if (pk < 0)
			break;
		if (max_steps && s->steps >= max_steps)
			return rr_fail(err, RR_E_LIMIT, "resolver: gave up after %zu steps", s->steps);
		if (s->ops.should_cancel && s->ops.should_cancel(s->ops.ctx))
			return rr_fail(err, RR_E_LIMIT, "resolver: cancelled after %zu steps",
				       s->steps);
		s->steps++;
		p = &s->pkgs[pk];
		v = pick_version(s, (uint32_t)pk, true);
		if (v < 0)
			return rr_fail(err, RR_E_INTERNAL, "resolver: no version left for '%s'",
				       p->name);
		if (!pg_set_has(p->deps_done, (uint32_t)v)) {
			pg_set_add(p->deps_done, (uint32_t)v);
			if (pk != PG_ROOT && s->ops.dependencies) {
				rc = s->ops.dependencies(s->ops.ctx, s, (uint32_t)pk, (uint32_t)v, err);
				if (rc)
					return rc;
				p = &s->pkgs[pk]; /* the callback may have grown the array */
			}
			if (known_unknown(s, (uint32_t)pk, (uint32_t)v) &&
			    pick_version(s, (uint32_t)pk, true) != v) {
				/* unknown dependencies: try the next allowed candidate first */
				next = (uint32_t)pk;
				continue;
			}
		}
		next = (uint32_t)pk;
		if (decision_conflicts(s, (uint32_t)pk, (uint32_t)v))
			continue;
		s->level++;
		{
			uint64_t *set = pg_set_new(s, (uint32_t)pk);
			pg_set_add(set, (uint32_t)v);
			assign(s, (uint32_t)pk, set, -1);
		}
		p->decided = v;
	}
	/* one pass over the log answers every later pg_reason */
	s->reason = rr_xmalloc(s->npkgs * sizeof(*s->reason));
	for (size_t i = 0; i < s->npkgs; i++)
		s->reason[i] = -1;
	for (size_t i = 0; i < s->nlog; i++) {
		const struct pg_assign *as = &s->log[i];
		if (as->cause >= 0 && s->reason[as->pkg] < 0 &&
		    !pg_set_has(as->set, s->pkgs[as->pkg].ncand))
			s->reason[as->pkg] = as->cause;
	}
	*ok = true;
	return RR_OK;
}

size_t pg_steps(const struct pg_solver *s)
{
	return s->steps;
}

int32_t pg_decision(const struct pg_solver *s, uint32_t pkg)
{
	return s->pkgs[pkg].decided;
}

bool pg_reason(const struct pg_solver *s, uint32_t pkg, uint32_t *parent, const char **origin,
	       const char **a, int32_t *tag)
{
	const struct pg_pkg *p = &s->pkgs[pkg];

	if (p->decided < 0 || !s->reason || s->reason[pkg] < 0)
		return false;
	{
		const struct pg_inc *in = &s->incs[s->reason[pkg]];
		/* the other term of that dependency is the dependent */
		*parent = PG_ROOT;
		for (uint32_t t = 0; t < in->nterms; t++)
			if (in->terms[t].pkg != pkg)
				*parent = in->terms[t].pkg;
		*origin = in->o;
		*a = in->a;
		if (tag)
			*tag = in->tag;
		return true;
	}
}

/* ---- explanation ------------------------------------------------------ */

/* versions of a set (none bit ignored) as runs over the candidate list */
static void fmt_versions(const struct pg_pkg *p, const uint64_t *set, struct rr_strbuf *out)
{
	uint32_t runs = 0;
	uint32_t first = UINT32_MAX;
	uint32_t last = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->ncand; i++) {
		if (!pg_set_has(set, i))
			continue;
		if (!i || !pg_set_has(set, i - 1))
			runs++;
		if (first == UINT32_MAX)
			first = i;
		last = i;
		n++;
	}
	if (runs > 3) {
		rr_strbuf_addf(out, "%s (%u versions from %s to %s)", p->name, n, p->vtext[first],
			       p->vtext[last]);
		return;
	}
	rr_strbuf_adds(out, p->name);
	rr_strbuf_addch(out, ' ');
	runs = 0;
	for (uint32_t i = 0; i < p->ncand; i++) {
		uint32_t j;
		if (!pg_set_has(set, i))
			continue;
		for (j = i; j + 1 < p->ncand && pg_set_has(set, j + 1); j++)
			;
		if (runs++)
			rr_strbuf_adds(out, " or ");
		if (i == j)
			rr_strbuf_adds(out, p->vtext[i]);
		else if (j == p->ncand - 1)
			rr_strbuf_addf(out, ">=%s", p->vtext[i]);
		else if (i == 0)
			rr_strbuf_addf(out, "<=%s", p->vtext[j]);
		else
			rr_strbuf_addf(out, ">=%s,<=%s", p->vtext[i], p->vtext[j]);
		i = j;
	}
}

/* "vllm 0.10.1", "every version of vllm" */
static void fmt_pos(const struct pg_pkg *p, const uint64_t *set, struct rr_strbuf *out)
{
	if (set_count_versions(p, set) == p->ncand)
		rr_strbuf_addf(out, "every version of %s", p->name);
	else
		fmt_versions(p, set, out);
}

static void fmt_external(const struct pg_solver *s, const struct pg_inc *in, struct rr_strbuf *out)
{
	const struct pg_term *t = in->nterms ? &in->terms[0] : NULL;
	bool root = !t || t->pkg == PG_ROOT;

	switch (in->kind) {
	case PG_K_DEP:
	case PG_K_NOMATCH:
		if (root)
			rr_strbuf_addf(out, "%s requires %s", in->o ? in->o : "the request", in->a);
		else {
			fmt_pos(&s->pkgs[t->pkg], t->set, out);
			rr_strbuf_addf(out, " depends on %s", in->a);
		}
		if (in->kind == PG_K_NOMATCH)
			rr_strbuf_addf(out, " but %s", in->b);
		break;
	case PG_K_CONSTRAINT:
		fmt_pos(&s->pkgs[t->pkg], t->set, out);
		rr_strbuf_addf(out, " is excluded by the constraint %s", in->a);
		if (in->o)
			rr_strbuf_addf(out, " (%s)", in->o);
		break;
	case PG_K_UNAVAILABLE:
		fmt_pos(&s->pkgs[t->pkg], t->set, out);
		rr_strbuf_addf(out, " %s", in->b);
		break;
	case PG_K_ROOT:
		rr_strbuf_adds(out, "the request must be satisfied");
		break;
	case PG_K_DERIVED:
		break;
	}
}

/* the versions a negative term asks for: "torch 2.9.1", or just "torch" for all */
static void fmt_neg(const struct pg_pkg *p, const uint64_t *set, struct rr_strbuf *out)
{
	uint64_t *neg = rr_xmalloc(p->nwords * 8);

	memcpy(neg, set, p->nwords * 8);
	set_not(p, neg);
	if (set_count_versions(p, neg) == p->ncand)
		rr_strbuf_adds(out, p->name);
	else
		fmt_versions(p, neg, out);
	free(neg);
}

/* what an incompatibility concludes, as a phrase */
static void fmt_terms(const struct pg_solver *s, const struct pg_inc *in, struct rr_strbuf *out)
{
	const struct pg_term *ts[64];
	uint32_t n = 0;

	for (uint32_t i = 0; i < in->nterms && n < RR_ARRAY_LEN(ts); i++) {
		const struct pg_term *t = &in->terms[i];
		if (t->pkg == PG_ROOT && !pg_set_has(t->set, 1))
			continue; /* "the request is chosen" holds always */
		ts[n++] = t;
	}
	if (n == 0) {
		rr_strbuf_adds(out, "the requirements cannot be satisfied");
		return;
	}
	if (n == 1) {
		const struct pg_pkg *p = &s->pkgs[ts[0]->pkg];
		if (!pg_set_has(ts[0]->set, p->ncand)) {
			if (set_count_versions(p, ts[0]->set) == p->ncand)
				rr_strbuf_addf(out, "no version of %s can be installed", p->name);
			else {
				fmt_versions(p, ts[0]->set, out);
				rr_strbuf_adds(out, " cannot be installed");
			}
		} else {
			fmt_neg(p, ts[0]->set, out);
			rr_strbuf_adds(out, " is required");
		}
		return;
	}
	if (n == 2 && pg_set_has(ts[0]->set, s->pkgs[ts[0]->pkg].ncand) &&
	    !pg_set_has(ts[1]->set, s->pkgs[ts[1]->pkg].ncand)) {
		const struct pg_term *t = ts[0];
		ts[0] = ts[1];
		ts[1] = t;
	}
	if (n == 2 && !pg_set_has(ts[0]->set, s->pkgs[ts[0]->pkg].ncand) &&
	    pg_set_has(ts[1]->set, s->pkgs[ts[1]->pkg].ncand)) {
		fmt_pos(&s->pkgs[ts[0]->pkg], ts[0]->set, out);
		rr_strbuf_adds(out, " requires ");
		fmt_neg(&s->pkgs[ts[1]->pkg], ts[1]->set, out);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct pg_pkg *p = &s->pkgs[ts[i]->pkg];
		if (i)
			rr_strbuf_adds(out, i + 1 == n ? " and " : ", ");
		if (pg_set_has(ts[i]->set, p->ncand)) {
			rr_strbuf_adds(out, "not ");
			fmt_neg(p, ts[i]->set, out);
		} else
			fmt_pos(p, ts[i]->set, out);
	}
	rr_strbuf_adds(out, " are incompatible");
}

struct pg_report {
	const struct pg_solver *s;
	struct rr_strbuf *out;
	uint32_t *refs;	   /* how many derived parents point at each incompatibility */
	uint32_t *line_of; /* line number given to a shared derived node, 0 when none */
	uint32_t nlines;
};

static void rep_begin(struct pg_report *r)
{
	if (r->out->len)
		rr_strbuf_addch(r->out, '\n');
}

static void rep_blank(struct pg_report *r)
{
	rr_strbuf_addch(r->out, '\n');
}

static bool is_derived(const struct pg_solver *s, uint32_t id)
{
	return s->incs[id].kind == PG_K_DERIVED;
}

static bool shared(const struct pg_report *r, uint32_t id)
{
	return r->refs[id] > 1;
}

static void rep_recursive(struct pg_report *r, uint32_t id);

/* "Because A and B, C." with A / B external or referenced lines */
static void rep_part(struct pg_report *r, uint32_t id)
{
	if (is_derived(r->s, id)) {
		fmt_terms(r->s, &r->s->incs[id], r->out);
		rr_strbuf_addf(r->out, " (%u)", r->line_of[id]);
	} else
		fmt_external(r->s, &r->s->incs[id], r->out);
}

static bool is_root_fact(const struct pg_solver *s, uint32_t id)
{
	const struct pg_inc *in = &s->incs[id];
	return in->kind != PG_K_DERIVED && in->nterms && in->terms[0].pkg == PG_ROOT;
}

static void rep_line(struct pg_report *r, const char *lead, uint32_t a, int64_t b, uint32_t concl)
{
	/* a person reads from the request outwards: root requirements first */
	if (b >= 0 && is_root_fact(r->s, (uint32_t)b) && !is_root_fact(r->s, a)) {
		uint32_t t = a;
		a = (uint32_t)b;
		b = t;
	}
	rep_begin(r);
	rr_strbuf_adds(r->out, lead);
	rep_part(r, a);
	if (b >= 0) {
		rr_strbuf_adds(r->out, " and ");
		rep_part(r, (uint32_t)b);
	}
	rr_strbuf_adds(r->out, ", ");
	fmt_terms(r->s, &r->s->incs[concl], r->out);
	rr_strbuf_addch(r->out, '.');
}

static void add_line_ref(struct pg_report *r, uint32_t id)
{
	r->line_of[id] = ++r->nlines;
	rr_strbuf_addf(r->out, " (%u)", r->nlines);
}

static void rep_one_each(struct pg_report *r, uint32_t cur, uint32_t der, uint32_t ext)
{
	const struct pg_inc *d = &r->s->incs[der];

	if (r->line_of[der]) {
		rep_line(r, "Because ", der, ext, cur);
		return;
	}
	/* chain: "And because <prior external> and <external>, ..." */
	if (is_derived(r->s, d->cause1) != is_derived(r->s, d->cause2)) {
		uint32_t pd = is_derived(r->s, d->cause1) ? d->cause1 : d->cause2;
		uint32_t pe = is_derived(r->s, d->cause1) ? d->cause2 : d->cause1;
		rep_recursive(r, pd);
		rep_line(r, "And because ", pe, ext, cur);
		return;
	}
	rep_recursive(r, der);
	rep_line(r, "And because ", ext, -1, cur);
}

static void rep_helper(struct pg_report *r, uint32_t cur)
{
	const struct pg_inc *in = &r->s->incs[cur];
	uint32_t c1 = in->cause1;
	uint32_t c2 = in->cause2;
	bool d1 = is_derived(r->s, c1);
	bool d2 = is_derived(r->s, c2);

	if (!d1 && !d2) {
		rep_line(r, "Because ", c1, c2, cur);
	} else if (d1 != d2) {
		rep_one_each(r, cur, d1 ? c1 : c2, d1 ? c2 : c1);
	} else if (r->line_of[c1] && r->line_of[c2]) {
		rep_line(r, "Because ", c1, c2, cur);
	} else if (r->line_of[c1] || r->line_of[c2]) {
		uint32_t have = r->line_of[c1] ? c1 : c2;
		rep_recursive(r, have == c1 ? c2 : c1);
		rep_line(r, "And because ", have, -1, cur);
	} else {
		rep_recursive(r, c1);
		if (shared(r, c1)) {
			rep_blank(r);
			rep_helper(r, cur);
		} else {
			add_line_ref(r, c1);
			rep_blank(r);
			rep_recursive(r, c2);
			rep_line(r, "And because ", c1, -1, cur);
		}
	}
}

static void rep_recursive(struct pg_report *r, uint32_t id)
{
	rep_helper(r, id);
	if (shared(r, id) && !r->line_of[id])
		add_line_ref(r, id);
}

static void count_refs(const struct pg_solver *s, uint32_t id, uint32_t *refs, bool *seen)
{
	const struct pg_inc *in = &s->incs[id];

	if (seen[id])
		return;
	seen[id] = true;
	if (in->kind != PG_K_DERIVED)
		return;
	refs[in->cause1]++;
	refs[in->cause2]++;
	count_refs(s, in->cause1, refs, seen);
	count_refs(s, in->cause2, refs, seen);
}

void pg_explain(const struct pg_solver *s, struct rr_strbuf *out)
{
	struct pg_report r = {s, out, NULL, NULL, 0};
	bool *seen;
	uint32_t f;

	if (s->failure < 0)
		return;
	f = (uint32_t)s->failure;
	/* "the request must be satisfied" goes without saying */
	while (is_derived(s, f) && (s->incs[s->incs[f].cause1].kind == PG_K_ROOT ||
				    s->incs[s->incs[f].cause2].kind == PG_K_ROOT))
		f = s->incs[s->incs[f].cause1].kind == PG_K_ROOT ? s->incs[f].cause2
								 : s->incs[f].cause1;
	if (!is_derived(s, f)) {
		rep_begin(&r);
		rr_strbuf_adds(out, "Because ");
		fmt_external(s, &s->incs[f], out);
		rr_strbuf_adds(out, ", ");
		fmt_terms(s, &s->incs[f], out);
		rr_strbuf_adds(out, ".");
		return;
	}
	r.refs = rr_xcalloc(s->nincs, sizeof(*r.refs));
	r.line_of = rr_xcalloc(s->nincs, sizeof(*r.line_of));
	seen = rr_xcalloc(s->nincs, sizeof(*seen));
	count_refs(s, f, r.refs, seen);
	rep_recursive(&r, f);
	free(seen);
	free(r.refs);
	free(r.line_of);
}

static void collect_tags(const struct pg_solver *s, uint32_t id, bool *seen, int32_t **v,
			 size_t *n, size_t *cap)
{
	const struct pg_inc *in = &s->incs[id];

	if (seen[id])
		return;
	seen[id] = true;
	if (in->kind == PG_K_DERIVED) {
		collect_tags(s, in->cause1, seen, v, n, cap);
		collect_tags(s, in->cause2, seen, v, n, cap);
	} else if (in->tag >= 0) {
		for (size_t i = 0; i < *n; i++)
			if ((*v)[i] == in->tag)
				return;
		RR_PUSH(*v, *n, *cap) = in->tag;
	}
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a;
	int32_t y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

size_t pg_culprits(const struct pg_solver *s, int32_t **ret)
{
	int32_t *v = NULL;
	size_t n = 0;
	size_t cap = 0;
	bool *seen;

	if (s->failure >= 0) {
		seen = rr_xcalloc(s->nincs, sizeof(*seen));
		collect_tags(s, (uint32_t)s->failure, seen, &v, &n, &cap);
		free(seen);
	}
	if (n)
		rr_qsort(v, n, sizeof(*v), cmp_i32);
	*ret = v;
	return n;
}
