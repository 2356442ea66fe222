/*
 * test-pubgrub.c - the PubGrub core with plain integer versions: Dart's
 * canonical walkthroughs, their error reports, and a randomized comparison
 * against a brute-force oracle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

#include "resolve/pubgrub-private.h"

/* ---- a tiny world: "name version: dep spec, dep spec" lines ---------- */

#define MAXP 8
#define MAXV 8
#define MAXD 8

struct wdep {
	int pkg;
	unsigned mask; /* allowed versions of pkg */
	char text[32];
};

struct wpkg {
	char name[16];
	int nv;
	char vtext[MAXV][16];
	const char *vptr[MAXV];
	int ndeps[MAXV];
	struct wdep deps[MAXV][MAXD];
	int32_t id; /* pubgrub id, -1 until mentioned */
};

struct world {
	int np;
	struct wpkg p[MAXP];
	int nroot;
	struct wdep root[MAXD];
};

static unsigned vnum(const char *v)
{
	unsigned a = 0;
	unsigned b = 0;
	unsigned c = 0;
	sscanf(v, "%u.%u.%u", &a, &b, &c);
	return a * 10000 + b * 100 + c;
}

/* caret, >=, <, or exact, enough for Dart's examples */
static bool spec_ok(const char *spec, const char *v)
{
	unsigned x = vnum(v);
	if (spec[0] == '^') {
		unsigned lo = vnum(spec + 1);
		return x >= lo && x < (lo / 10000 + 1) * 10000;
	}
	if (spec[0] == '>' && spec[1] == '=')
		return x >= vnum(spec + 2);
	if (spec[0] == '<')
		return x < vnum(spec + 1);
	return x == vnum(spec);
}

static int wfind(struct world *w, const char *name)
{
	for (int i = 0; i < w->np; i++)
		if (!strcmp(w->p[i].name, name))
			return i;
	return -1;
}

static void wversion(struct world *w, const char *name, const char *v)
{
	int i = wfind(w, name);
	struct wpkg *p;
	if (i < 0) {
		i = w->np++;
		memset(&w->p[i], 0, sizeof(w->p[i]));
		snprintf(w->p[i].name, sizeof(w->p[i].name), "%s", name);
		w->p[i].id = -1;
	}
	p = &w->p[i];
	snprintf(p->vtext[p->nv], sizeof(p->vtext[0]), "%s", v);
	p->vptr[p->nv] = p->vtext[p->nv];
	p->nv++;
}

/* resolve the textual deps once every version is known */
static void wdep_set(struct world *w, struct wdep *d, const char *name, const char *spec)
{
	struct wpkg *q;
	d->pkg = wfind(w, name);
	assert_true(d->pkg >= 0);
	q = &w->p[d->pkg];
	d->mask = 0;
	for (int i = 0; i < q->nv; i++)
		if (spec_ok(spec, q->vtext[i]))
			d->mask |= 1u << i;
	snprintf(d->text, sizeof(d->text), "%s %s", name, spec);
}

struct pending {
	const char *pkg;
	const char *ver; /* NULL = root */
	const char *dep;
	const char *spec;
};

static void wbuild(struct world *w, const char *const *versions, const struct pending *deps)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; versions[i]; i += 2)
		wversion(w, versions[i], versions[i + 1]);
	for (size_t i = 0; deps[i].pkg || deps[i].dep; i++) {
		struct wdep *d;
		if (!deps[i].ver) {
			d = &w->root[w->nroot++];
		} else {
			struct wpkg *p = &w->p[wfind(w, deps[i].pkg)];
			int v;
			for (v = 0; v < p->nv; v++)
				if (!strcmp(p->vtext[v], deps[i].ver))
					break;
			assert_true(v < p->nv);
			d = &p->deps[v][p->ndeps[v]++];
		}
		wdep_set(w, d, deps[i].dep, deps[i].spec);
	}
}

static uint32_t wid(struct pg_solver *s, struct world *w, int i)
{
	if (w->p[i].id < 0)
		w->p[i].id = (int32_t)pg_pkg_add(s, w->p[i].name, (uint32_t)w->p[i].nv, w->p[i].vptr, -1);
	return (uint32_t)w->p[i].id;
}

static uint64_t *wset(struct pg_solver *s, struct world *w, const struct wdep *d)
{
	uint32_t id = wid(s, w, d->pkg);
	uint64_t *set = pg_set_new(s, id);
	for (int i = 0; i < w->p[d->pkg].nv; i++)
		if (d->mask >> i & 1)
			pg_set_add(set, (uint32_t)i);
	return set;
}

static rr_err wdeps(void *ctx, struct pg_solver *s, uint32_t pkg, uint32_t cand, rr_error *err)
{
	struct world *w = ctx;
	(void)err;
	for (int i = 0; i < w->np; i++) {
		struct wpkg *p = &w->p[i];
		if (p->id != (int32_t)pkg)
			continue;
		for (int k = 0; k < p->ndeps[cand]; k++) {
			const struct wdep *d = &p->deps[cand][k];
			uint64_t *set = wset(s, w, d);
			pg_add_dependency(s, pkg, cand, wid(s, w, d->pkg), set, -1, NULL, d->text,
					  "no version matches");
		}
	}
	return RR_OK;
}

/* solve; the chosen version of every package (-1 = absent) goes to pick[] */
static bool wsolve(struct world *w, int *pick, struct rr_strbuf *explain, int32_t **culprits,
		   size_t *nculprits)
{
	struct pg_ops ops = {w, wdeps, NULL, NULL};
	struct pg_solver *s = pg_new(&ops);
	bool ok = false;
	rr_error err = RR_ERROR_INIT;

	for (int i = 0; i < w->np; i++)
		w->p[i].id = -1;
	for (int k = 0; k < w->nroot; k++) {
		const struct wdep *d = &w->root[k];
		char origin[16];
		snprintf(origin, sizeof(origin), "root:%d", k + 1);
		pg_add_dependency(s, PG_ROOT, 0, wid(s, w, d->pkg), wset(s, w, d), k, origin,
				  d->text, "no version matches");
	}
	if (pg_solve(s, 100000, &ok, &err))
		fail_msg("solve: %s", err.msg);
	for (int i = 0; i < w->np; i++)
		pick[i] = w->p[i].id < 0 ? -1 : pg_decision(s, (uint32_t)w->p[i].id);
	if (!ok && explain)
		pg_explain(s, explain);
	if (!ok && culprits)
		*nculprits = pg_culprits(s, culprits);
	pg_free(s);
	return ok;
}

static const char *picked(struct world *w, const int *pick, const char *name)
{
	int i = wfind(w, name);
	return pick[i] < 0 ? "-" : w->p[i].vtext[pick[i]];
}

#define ROOT(dep, spec) {"", NULL, dep, spec}

static void test_pubgrub_no_conflicts(void **state)
{
	static const char *const v[] = {"foo", "1.0.0", "bar", "1.0.0", "bar", "2.0.0", NULL};
	static const struct pending d[] = {
		ROOT("foo", "^1.0.0"),
		{"foo", "1.0.0", "bar", "^1.0.0"},
		{NULL, NULL, NULL, NULL},
	};
	struct world w;
	int pick[MAXP];
	(void)state;
	wbuild(&w, v, d);
	assert_true(wsolve(&w, pick, NULL, NULL, NULL));
	assert_string_equal(picked(&w, pick, "foo"), "1.0.0");
	assert_string_equal(picked(&w, pick, "bar"), "1.0.0");
}

static void test_pubgrub_avoid_conflict_in_decision(void **state)
{
	static const char *const v[] = {"foo", "1.0.0", "foo", "1.1.0", "bar", "1.0.0",
					"bar", "1.1.0", "bar", "2.0.0", NULL};
	static const struct pending d[] = {
		ROOT("foo", "^1.0.0"),
		ROOT("bar", "^1.0.0"),
		{"foo", "1.1.0", "bar", "^2.0.0"},
		{NULL, NULL, NULL, NULL},
	};
	struct world w;
	int pick[MAXP];
	(void)state;
	wbuild(&w, v, d);
	assert_true(wsolve(&w, pick, NULL, NULL, NULL));
	assert_string_equal(picked(&w, pick, "foo"), "1.0.0");
	assert_string_equal(picked(&w, pick, "bar"), "1.1.0");
}

static void test_pubgrub_conflict_resolution(void **state)
{
	static const char *const v[] = {"foo", "1.0.0", "foo", "2.0.0", "bar", "1.0.0", NULL};
	static const struct pending d[] = {
		ROOT("foo", ">=1.0.0"),
		{"foo", "2.0.0", "bar", "^1.0.0"},
		{"bar", "1.0.0", "foo", "^1.0.0"},
		{NULL, NULL, NULL, NULL},
	};
	struct world w;
	int pick[MAXP];
	(void)state;
	wbuild(&w, v, d);
	assert_true(wsolve(&w, pick, NULL, NULL, NULL));
	assert_string_equal(picked(&w, pick, "foo"), "1.0.0");
	assert_string_equal(picked(&w, pick, "bar"), "-");
}

static void test_pubgrub_partial_satisfier(void **state)
{
	static const char *const v[] = {"foo", "1.0.0", "foo", "1.1.0", "left", "1.0.0",
					"right", "1.0.0", "shared", "1.0.0", "shared", "2.0.0",
					"target", "1.0.0", "target", "2.0.0", NULL};
	static const struct pending d[] = {
		ROOT("foo", "^1.0.0"),
		ROOT("target", "^2.0.0"),
		{"foo", "1.1.0", "left", "^1.0.0"},
		{"foo", "1.1.0", "right", "^1.0.0"},
		{"left", "1.0.0", "shared", ">=1.0.0"},
		{"right", "1.0.0", "shared", "<2.0.0"},
		{"shared", "1.0.0", "target", "^1.0.0"},
		{NULL, NULL, NULL, NULL},
	};
	struct world w;
	int pick[MAXP];
	(void)state;
	wbuild(&w, v, d);
	assert_true(wsolve(&w, pick, NULL, NULL, NULL));
	assert_string_equal(picked(&w, pick, "foo"), "1.0.0");
	assert_string_equal(picked(&w, pick, "target"), "2.0.0");
	assert_string_equal(picked(&w, pick, "left"), "-");
	assert_string_equal(picked(&w, pick, "shared"), "-");
}

static void test_pubgrub_linear_error(void **state)
{
	static const char *const v[] = {"foo", "1.0.0", "bar", "2.0.0", "baz", "1.0.0",
					"baz", "3.0.0", NULL};
	static const struct pending d[] = {
		ROOT("foo", "^1.0.0"),
		ROOT("baz", "^1.0.0"),
		{"foo", "1.0.0", "bar", "^2.0.0"},
		{"bar", "2.0.0", "baz", "^3.0.0"},
		{NULL, NULL, NULL, NULL},
	};
	struct world w;
	int pick[MAXP];
	RR_AUTO_STRBUF struct rr_strbuf ex = RR_STRBUF_INIT;
	RR_AUTOFREE int32_t *cul = NULL;
	size_t ncul = 0;
	(void)state;
	wbuild(&w, v, d);
	assert_false(wsolve(&w, pick, &ex, &cul, &ncul));
	assert_string_equal(ex.buf,
			    "Because every version of foo depends on bar ^2.0.0 and every version "
			    "of bar depends on baz ^3.0.0, every version of foo requires baz "
			    "3.0.0.\n"
			    "And because root:1 requires foo ^1.0.0 and root:2 requires baz "
			    "^1.0.0, the requirements cannot be satisfied.");
	assert_int_equal(ncul, 2);
	assert_int_equal(cul[0], 0);
	assert_int_equal(cul[1], 1);
}

static void test_pubgrub_branching_error(void **state)
{
	static const char *const v[] = {"foo", "1.0.0", "foo", "1.1.0", "a", "1.0.0",
					"b", "1.0.0", "b", "2.0.0", "x", "1.0.0",
					"y", "1.0.0", "y", "2.0.0", NULL};
	static const struct pending d[] = {
		ROOT("foo", "^1.0.0"),
		{"foo", "1.0.0", "a", "^1.0.0"},
		{"foo", "1.0.0", "b", "^1.0.0"},
		{"foo", "1.1.0", "x", "^1.0.0"},
		{"foo", "1.1.0", "y", "^1.0.0"},
		{"a", "1.0.0", "b", "^2.0.0"},
		{"x", "1.0.0", "y", "^2.0.0"},
		{NULL, NULL, NULL, NULL},
	};
	struct world w;
	int pick[MAXP];
	RR_AUTO_STRBUF struct rr_strbuf ex = RR_STRBUF_INIT;
	(void)state;
	wbuild(&w, v, d);
	assert_false(wsolve(&w, pick, &ex, NULL, NULL));
	assert_string_equal(
		ex.buf,
		"Because every version of a depends on b ^2.0.0 and foo 1.0.0 depends on a ^1.0.0, "
		"foo 1.0.0 requires b 2.0.0.\n"
		"And because foo 1.0.0 depends on b ^1.0.0, foo 1.0.0 cannot be installed. (1)\n"
		"\n"
		"Because every version of x depends on y ^2.0.0 and foo 1.1.0 depends on x ^1.0.0, "
		"foo 1.1.0 requires y 2.0.0.\n"
		"And because foo 1.1.0 depends on y ^1.0.0, foo 1.1.0 cannot be installed.\n"
		"And because foo 1.0.0 cannot be installed (1), no version of foo can be installed.\n"
		"And because root:1 requires foo ^1.0.0, the requirements cannot be satisfied.");
}

/* ---- property check against a brute-force oracle --------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

static bool dep_ok(const struct wdep *d, const int *pick)
{
	return pick[d->pkg] >= 0 && (d->mask >> pick[d->pkg] & 1);
}

static bool valid(const struct world *w, const int *pick)
{
	for (int k = 0; k < w->nroot; k++)
		if (!dep_ok(&w->root[k], pick))
			return false;
	for (int i = 0; i < w->np; i++) {
		if (pick[i] < 0)
			continue;
		for (int k = 0; k < w->p[i].ndeps[pick[i]]; k++)
			if (!dep_ok(&w->p[i].deps[pick[i]][k], pick))
				return false;
	}
	return true;
}

static bool oracle(const struct world *w, int *pick, int i)
{
	if (i == w->np)
		return valid(w, pick);
	for (int v = -1; v < w->p[i].nv; v++) {
		pick[i] = v;
		if (oracle(w, pick, i + 1))
			return true;
	}
	return false;
}

static void random_world(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->np = 2 + (int)rnd(5);
	for (int i = 0; i < w->np; i++) {
		struct wpkg *p = &w->p[i];
		snprintf(p->name, sizeof(p->name), "p%d", i);
		p->nv = 1 + (int)rnd(4);
		p->id = -1;
		for (int v = 0; v < p->nv; v++) {
			snprintf(p->vtext[v], sizeof(p->vtext[0]), "%d.0", v + 1);
			p->vptr[v] = p->vtext[v];
			p->ndeps[v] = (int)rnd(3);
			for (int k = 0; k < p->ndeps[v]; k++) {
				struct wdep *d = &p->deps[v][k];
				d->pkg = (int)rnd((uint32_t)w->np);
				if (d->pkg == i)
					d->pkg = (i + 1) % w->np;
				d->mask = rnd(16);
				snprintf(d->text, sizeof(d->text), "p%d mask %u", d->pkg, d->mask);
			}
		}
	}
	/* masks were drawn before later packages had their version counts */
	for (int i = 0; i < w->np; i++)
		for (int v = 0; v < w->p[i].nv; v++)
			for (int k = 0; k < w->p[i].ndeps[v]; k++) {
				struct wdep *d = &w->p[i].deps[v][k];
				d->mask &= (1u << w->p[d->pkg].nv) - 1;
			}
	w->nroot = 1 + (int)rnd(3);
	for (int k = 0; k < w->nroot; k++) {
		struct wdep *d = &w->root[k];
		d->pkg = (int)rnd((uint32_t)w->np);
		d->mask = rnd(1u << w->p[d->pkg].nv);
		if (rnd(3))
			d->mask |= 1u << rnd((uint32_t)w->p[d->pkg].nv);
		snprintf(d->text, sizeof(d->text), "p%d mask %u", d->pkg, d->mask);
	}
}

static void test_pubgrub_property(void **state)
{
	int solvable = 0;
	int total = 3000;
	(void)state;

	for (int n = 0; n < total; n++) {
		struct world w;
		int pick[MAXP];
		int opick[MAXP];
		bool ok;
		bool oracle_ok;
		RR_AUTO_STRBUF struct rr_strbuf ex = RR_STRBUF_INIT;

		random_world(&w);
		ok = wsolve(&w, pick, &ex, NULL, NULL);
		oracle_ok = oracle(&w, opick, 0);
		if (ok != oracle_ok)
			fail_msg("world %d: solver says %d, oracle says %d", n, ok, oracle_ok);
		if (ok) {
			solvable++;
			if (!valid(&w, pick))
				fail_msg("world %d: solver returned an invalid solution", n);
		} else {
			assert_true(ex.len > 0);
		}
	}
	printf("property: %d random worlds, %d solvable, %d unsolvable, all agree with the oracle\n",
	       total, solvable, total - solvable);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pubgrub_no_conflicts),
		cmocka_unit_test(test_pubgrub_avoid_conflict_in_decision),
		cmocka_unit_test(test_pubgrub_conflict_resolution),
		cmocka_unit_test(test_pubgrub_partial_satisfier),
		cmocka_unit_test(test_pubgrub_linear_error),
		cmocka_unit_test(test_pubgrub_branching_error),
		cmocka_unit_test(test_pubgrub_property),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
