/*
 * test-resolve.c - the packaging layer of the resolver through its public
 * API: fixed packages, why-chains, culprits, skipped markers, extras,
 * rr_resolve_each, provider errors, the step cap, and a large world.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rocm-resolve/provider.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/resolve.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

static void add(struct rr_provider_mem *m, const char *name, const char *ver,
		const char *const *reqs)
{
	size_t h;
	assert_int_equal(rr_provider_mem_add(m, name, ver, &h, NULL), RR_OK);
	for (size_t i = 0; reqs && reqs[i]; i++)
		rr_provider_mem_add_requires(m, h, reqs[i]);
}

struct reqs {
	struct rr_requirement r[8];
	struct rr_root_requirement rr[8];
	char origin[8][16];
	size_t n;
};

static void reqs_set(struct reqs *q, const char *const *lines)
{
	memset(q, 0, sizeof(*q));
	for (; lines[q->n]; q->n++) {
		assert_int_equal(rr_requirement_parse(lines[q->n], &q->r[q->n], NULL), RR_OK);
		snprintf(q->origin[q->n], sizeof(q->origin[0]), "req.txt:%zu", q->n + 1);
		q->rr[q->n].req = &q->r[q->n];
		q->rr[q->n].origin = q->origin[q->n];
	}
}

static void reqs_release(struct reqs *q)
{
	for (size_t i = 0; i < q->n; i++)
		rr_requirement_release(&q->r[i]);
}

static const struct rr_fixed torch291[] = {
	{"torch", "2.9.1+rocm7.2.0.lw.git7e1940d4", "ROCm build", NULL, 0},
};

static struct rr_provider_mem *world(void)
{
	static const char *const tv191[] = {"torch==2.4.1", "numpy", NULL};
	static const char *const tv241[] = {"torch==2.9.1", "numpy", NULL};
	static const char *const vllm[] = {"torch==2.8.0", NULL};
	static const char *const acc[] = {"torch>=2.0.0", "numpy", NULL};
	struct rr_provider_mem *m = rr_provider_mem_new();

	add(m, "torchvision", "0.19.1", tv191);
	add(m, "torchvision", "0.24.1", tv241);
	add(m, "vllm", "0.10.1", vllm);
	add(m, "accelerate", "1.10.1", acc);
	add(m, "numpy", "2.3.4", NULL);
	add(m, "torch", "2.9.1", NULL);
	assert_int_equal(rr_provider_mem_add_installed(m, "numpy", "2.1.3", NULL), RR_OK);
	return m;
}

static void test_resolve_solution_and_why(void **state)
{
	static const char *const lines[] = {"torchvision", "pywin32; sys_platform == 'win32'", NULL};
	struct rr_provider_mem *m = world();
	struct rr_provider p;
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol;
	const struct rr_solved *it;
	const size_t *sk;
	(void)state;

	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	rq.fixed = torch291;
	rq.nfixed = 1;
	rr_provider_mem_get(m, &p);
	assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
	assert_true(rr_solution_ok(sol));
	assert_int_equal(rr_solution_count(sol), 3);
	it = rr_solution_find(sol, "torch");
	assert_non_null(it);
	assert_true(it->fixed);
	assert_string_equal(it->version, "2.9.1+rocm7.2.0.lw.git7e1940d4");
	assert_string_equal(it->why,
			    "req.txt:1 requires torchvision; torchvision 0.24.1 requires torch==2.9.1");
	it = rr_solution_find(sol, "numpy");
	assert_true(it->installed); /* the installed 2.1.3 beats the newer 2.3.4 */
	assert_string_equal(it->version, "2.1.3");
	assert_null(rr_solution_find(sol, "pywin32"));
	assert_int_equal(rr_solution_skipped(sol, &sk), 1);
	assert_int_equal(sk[0], 1);
	assert_string_equal(rr_solution_explain(sol), "");
	rr_solution_free(sol);
	reqs_release(&q);
	rr_provider_mem_free(m);
}

static void test_resolve_explain_torchvision_vllm(void **state)
{
	static const char *const lines[] = {"accelerate", "torchvision==0.19.1", "vllm==0.10.1", NULL};
	struct rr_provider_mem *m = world();
	struct rr_provider p;
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol;
	struct rr_each_result er;
	const size_t *cul;
	(void)state;

	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	rq.fixed = torch291;
	rq.nfixed = 1;
	rr_provider_mem_get(m, &p);
	assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
	assert_false(rr_solution_ok(sol));
	assert_int_equal(rr_solution_count(sol), 0);
	assert_int_equal(rr_solution_culprits(sol, &cul), 1);
	rr_solution_free(sol);

	assert_int_equal(rr_resolve_each(&p, &rq, &er, NULL), RR_OK);
	assert_int_equal(er.nstripped, 2);
	/* the first failure rests on torchvision alone, so it goes first */
	assert_int_equal(er.stripped[0].index, 1);
	assert_string_equal(er.stripped[0].explanation,
			    "Because req.txt:2 requires torchvision==0.19.1 and torchvision 0.19.1 "
			    "depends on torch==2.4.1 but torch is fixed at "
			    "2.9.1+rocm7.2.0.lw.git7e1940d4 (ROCm build), the requirements cannot be "
			    "satisfied.");
	assert_int_equal(er.stripped[1].index, 2);
	assert_string_equal(er.stripped[1].explanation,
			    "Because req.txt:3 requires vllm==0.10.1 and every version of vllm depends "
			    "on torch==2.8.0 but torch is fixed at 2.9.1+rocm7.2.0.lw.git7e1940d4 "
			    "(ROCm build), the requirements cannot be satisfied.");
	assert_true(rr_solution_ok(er.solution));
	assert_string_equal(rr_solution_find(er.solution, "accelerate")->version, "1.10.1");
	rr_each_result_release(&er);
	reqs_release(&q);
	rr_provider_mem_free(m);
}

static rr_err failing_candidates(void *ctx, const char *key, const struct rr_candidate **ret,
				 size_t *n, rr_error *err)
{
	(void)ctx;
	(void)ret;
	(void)n;
	return rr_fail(err, RR_E_NETWORK, "cannot reach the index for '%s'", key);
}

static void test_resolve_provider_error(void **state)
{
	static const char *const lines[] = {"numpy", NULL};
	struct rr_provider p = {.candidates = failing_candidates};
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol = NULL;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	assert_int_equal(rr_resolve(&p, &rq, &sol, &err), RR_E_NETWORK);
	assert_null(sol);
	assert_string_equal(err.msg, "cannot reach the index for 'numpy'");
	rr_error_release(&err);
	reqs_release(&q);
}

/* a chain of 150 packages with 12 versions each and a few edges per release */
static struct rr_provider_mem *big_world(size_t npk)
{
	struct rr_provider_mem *m = rr_provider_mem_new();
	char name[32];
	char ver[32];
	char req[64];

	for (size_t i = 0; i < npk; i++) {
		snprintf(name, sizeof(name), "pkg-%zu", i);
		for (int v = 1; v <= 12; v++) {
			size_t h;
			snprintf(ver, sizeof(ver), "%d.%d.0", v / 4 + 1, v % 4);
			assert_int_equal(rr_provider_mem_add(m, name, ver, &h, NULL), RR_OK);
			for (size_t k = 1; k <= 3 && i + k < npk; k++) {
				snprintf(req, sizeof(req), "pkg-%zu>=%d.0,!=%d.2.0; python_version >= '3.8'",
					 i + k, v / 6 + 1, v / 4 + 1);
				rr_provider_mem_add_requires(m, h, req);
			}
		}
	}
	return m;
}

/* a 150-package world resolves completely and identically every time (timing lives in bench/) */
static void test_resolve_big_world(void **state)
{
	static const char *const lines[] = {"pkg-0", "pkg-1>=2", "pkg-2", NULL};
	struct rr_provider_mem *m = big_world(150);
	struct rr_provider p;
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol;
	(void)state;

	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	rr_provider_mem_get(m, &p);
	for (int run = 0; run < 3; run++) {
		assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
		assert_true(rr_solution_ok(sol));
		assert_int_equal(rr_solution_count(sol), 150);
		rr_solution_free(sol);
	}
	reqs_release(&q);
	rr_provider_mem_free(m);
}

static void test_resolve_step_cap(void **state)
{
	static const char *const lines[] = {"pkg-0", NULL};
	struct rr_provider_mem *m = big_world(40);
	struct rr_provider p;
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol = NULL;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	rq.max_steps = 5;
	rr_provider_mem_get(m, &p);
	assert_int_equal(rr_resolve(&p, &rq, &sol, &err), RR_E_LIMIT);
	assert_null(sol);
	rr_error_release(&err);
	reqs_release(&q);
	rr_provider_mem_free(m);
}

struct hints {
	char keys[256];
	char deps[256];
};

static void hint_keys(void *ctx, const char *const *keys, size_t n)
{
	struct hints *h = ((struct rr_provider *)ctx)->ctx;
	for (size_t i = 0; i < n; i++)
		snprintf(h->keys + strlen(h->keys), sizeof(h->keys) - strlen(h->keys), "%s ",
			 keys[i]);
}

static void hint_deps(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	struct hints *h = ((struct rr_provider *)ctx)->ctx;
	for (size_t i = 0; i < n; i++)
		snprintf(h->deps + strlen(h->deps), sizeof(h->deps) - strlen(h->deps), "%s-%s ",
			 key, cs[i]->version_text);
}

/* the hints go through a wrapper whose ctx points at the real provider */
static struct rr_provider hinted_inner;

static rr_err wrap_candidates(void *ctx, const char *key, const struct rr_candidate **ret,
			      size_t *n, rr_error *err)
{
	(void)ctx;
	return hinted_inner.candidates(hinted_inner.ctx, key, ret, n, err);
}

static rr_err wrap_dependencies(void *ctx, const char *key, const struct rr_candidate *c,
				const struct rr_dependency **ret, size_t *n, rr_error *err)
{
	(void)ctx;
	return hinted_inner.dependencies(hinted_inner.ctx, key, c, ret, n, err);
}

static void test_resolve_prefetch_hints(void **state)
{
	static const char *const lines[] = {"torchvision", NULL};
	struct rr_provider_mem *m = world();
	struct hints h = {"", ""};
	struct rr_provider self = {.ctx = &h};
	struct rr_provider p = {.ctx = &self,
				.candidates = wrap_candidates,
				.dependencies = wrap_dependencies,
				.prefetch = hint_keys,
				.prefetch_deps = hint_deps};
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol;
	(void)state;

	rr_provider_mem_get(m, &hinted_inner);
	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	rq.fixed = torch291;
	rq.nfixed = 1;
	assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
	assert_true(rr_solution_ok(sol));
	/* dependencies of the chosen torchvision are announced before they are asked for;
	 * not the fixed torch, which the resolver never asks the provider about (a provider
	 * may fetch whatever it is told: the input as written names projects the crawl skips) */
	assert_string_equal(h.keys, "numpy ");
	/* newest torchvision, installed numpy; fixed torch never reaches the index */
	assert_string_equal(h.deps, "torchvision-0.24.1 numpy-2.1.3 ");
	rr_solution_free(sol);
	reqs_release(&q);
	rr_provider_mem_free(m);
}


static void hint_upcoming(void *ctx, const char *key, const struct rr_candidate *const *cs,
			  size_t n)
{
	struct hints *h = ((struct rr_provider *)ctx)->ctx;
	for (size_t i = 0; i < n; i++)
		snprintf(h->deps + strlen(h->deps), sizeof(h->deps) - strlen(h->deps), "%s%s-%s",
			 i ? " " : "", key, cs[i]->version_text);
	snprintf(h->deps + strlen(h->deps), sizeof(h->deps) - strlen(h->deps), " | ");
}

/*
 * a walk down a project's releases: before each release's dependencies are
 * asked for, the provider hears which ones the resolver would try next, in its
 * order, within what the decisions so far allow (a<5 here: never 5.0), and
 * without those it already asked about
 */
static void test_resolve_upcoming_walk(void **state)
{
	static const char *const lines[] = {"a<5", NULL};
	static const char *const needs_b2[] = {"b>=2", NULL};
	struct rr_provider_mem *m = rr_provider_mem_new();
	struct hints h = {"", ""};
	struct rr_provider self = {.ctx = &h};
	struct rr_provider p = {.ctx = &self,
				.candidates = wrap_candidates,
				.dependencies = wrap_dependencies,
				.upcoming = hint_upcoming};
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol;
	(void)state;

	add(m, "a", "1.0", NULL);
	add(m, "a", "2.0", NULL);
	add(m, "a", "3.0", needs_b2);
	add(m, "a", "4.0", needs_b2);
	add(m, "a", "5.0", NULL);
	add(m, "b", "1.0", NULL);
	rr_provider_mem_get(m, &hinted_inner);
	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
	assert_true(rr_solution_ok(sol));
	assert_string_equal(h.deps, "a-4.0 a-3.0 a-2.0 a-1.0 | a-3.0 a-2.0 a-1.0 | a-2.0 a-1.0 | ");
	rr_solution_free(sol);
	reqs_release(&q);
	rr_provider_mem_free(m);
}

/* a release whose dependencies need a build is taken only when nothing known fits */
static void test_resolve_prefers_known_dependencies(void **state)
{
	static const char *const any[] = {"xformers", NULL};
	static const char *const newest[] = {"xformers>=0.0.30", NULL};
	static const char *const via[] = {"app", NULL};
	static const char *const t28[] = {"torch==2.8.0", NULL};
	static const char *const xf[] = {"xformers<0.0.31", NULL};
	const char *const *cases[] = {any, newest, via};
	const char *want[] = {"0.0.29", "0.0.31", "0.0.29"};
	(void)state;

	for (size_t k = 0; k < RR_ARRAY_LEN(cases); k++) {
		struct rr_provider_mem *m = rr_provider_mem_new();
		struct rr_provider p;
		struct reqs q;
		struct rr_resolve_request rq = {0};
		struct rr_solution *sol;
		const struct rr_solved *it;
		size_t h;

		/* 0.0.31 and 0.0.30: sdists whose requirements are only known after a build
		 * (the real 0.0.30 pins torch 2.7.0); 0.0.29: a wheel, known */
		add(m, "xformers", "0.0.29", t28);
		assert_int_equal(rr_provider_mem_add(m, "xformers", "0.0.30", &h, NULL), RR_OK);
		rr_provider_mem_set_deps_unknown(m, h);
		assert_int_equal(rr_provider_mem_add(m, "xformers", "0.0.31", &h, NULL), RR_OK);
		rr_provider_mem_set_deps_unknown(m, h);
		add(m, "torch", "2.8.0", NULL);
		add(m, "app", "1.0", xf);
		reqs_set(&q, cases[k]);
		rq.reqs = q.rr;
		rq.nreqs = q.n;
		rr_provider_mem_get(m, &p);
		assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
		assert_true(rr_solution_ok(sol));
		it = rr_solution_find(sol, "xformers");
		assert_non_null(it);
		/* any: the known 0.0.29 over the newer unknown ones; >=0.0.30: only unknown
		 * ones fit, the newest is taken; via app (<0.0.31): the known 0.0.29 again */
		print_message("case %zu: xformers %s\n", k, it->version);
		assert_string_equal(it->version, want[k]);
		if (k == 0)
			assert_non_null(rr_solution_find(sol, "torch")); /* its known deps count */
		rr_solution_free(sol);
		reqs_release(&q);
		rr_provider_mem_free(m);
	}
}

/* the walk past unknown candidates is bounded: 8 of them, then the best one */
static void test_resolve_unknown_walk_bound(void **state)
{
	static const char *const any[] = {"sdistonly", NULL};
	(void)state;

	for (int nunknown = 7; nunknown <= 10; nunknown += 3) {
		struct rr_provider_mem *m = rr_provider_mem_new();
		struct rr_provider p;
		struct reqs q;
		struct rr_resolve_request rq = {0};
		struct rr_solution *sol;
		char ver[16];
		size_t h;

		add(m, "sdistonly", "1.0", NULL);
		for (int i = 0; i < nunknown; i++) {
			snprintf(ver, sizeof(ver), "2.%d", i);
			assert_int_equal(rr_provider_mem_add(m, "sdistonly", ver, &h, NULL), RR_OK);
			rr_provider_mem_set_deps_unknown(m, h);
		}
		reqs_set(&q, any);
		rq.reqs = q.rr;
		rq.nreqs = q.n;
		rr_provider_mem_get(m, &p);
		assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
		/* 7 unknown: all walked, the known 1.0 wins; 10: the walk stops at 8 and
		 * the newest is taken (its dependencies stay unknown) */
		snprintf(ver, sizeof(ver), "2.%d", nunknown - 1);
		assert_string_equal(rr_solution_find(sol, "sdistonly")->version,
				    nunknown == 7 ? "1.0" : ver);
		assert_int_equal(rr_solution_find(sol, "sdistonly")->candidate->deps_unknown,
				 nunknown != 7);
		rr_solution_free(sol);
		reqs_release(&q);
		rr_provider_mem_free(m);
	}
}

/* issue 16: a candidate's Requires-Dist lines come parsed, once: the same array on every
 * ask; an invalid line carries its error, and the release that has it is unusable */
static void test_dependencies_parsed_once(void **state)
{
	static const char *const a_reqs[] = {"b>=1", "c >= = 1", NULL};
	static const char *const lines[] = {"a", NULL};
	struct rr_provider_mem *m = rr_provider_mem_new();
	struct rr_provider p;
	const struct rr_candidate *cs;
	const struct rr_dependency *d1, *d2;
	size_t nc, n1, n2;
	struct reqs q;
	struct rr_resolve_request rq = {0};
	struct rr_solution *sol;
	(void)state;

	add(m, "a", "1.0", a_reqs);
	add(m, "b", "1.0", NULL);
	rr_provider_mem_get(m, &p);
	assert_int_equal(p.candidates(p.ctx, "a", &cs, &nc, NULL), RR_OK);
	assert_int_equal(nc, 1);
	assert_int_equal(p.dependencies(p.ctx, "a", &cs[0], &d1, &n1, NULL), RR_OK);
	assert_int_equal(p.dependencies(p.ctx, "a", &cs[0], &d2, &n2, NULL), RR_OK);
	assert_ptr_equal(d1, d2);
	assert_int_equal(n1, 2);
	assert_int_equal(d1[0].rc, RR_OK);
	assert_string_equal(d1[0].req.key, "b");
	assert_string_equal(d1[0].text, "b>=1");
	assert_null(d1[0].why);
	assert_int_equal(d1[1].rc, RR_E_PARSE);
	assert_string_equal(d1[1].text, "c >= = 1");
	assert_non_null(d1[1].why);

	reqs_set(&q, lines);
	rq.reqs = q.rr;
	rq.nreqs = q.n;
	assert_int_equal(rr_resolve(&p, &rq, &sol, NULL), RR_OK);
	assert_false(rr_solution_ok(sol));
	assert_non_null(strstr(rr_solution_explain(sol), "has invalid metadata: 'c >= = 1': "));
	assert_non_null(strstr(rr_solution_explain(sol), d1[1].why));
	rr_solution_free(sol);
	reqs_release(&q);
	rr_provider_mem_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_solution_and_why),
		cmocka_unit_test(test_resolve_explain_torchvision_vllm),
		cmocka_unit_test(test_resolve_provider_error),
		cmocka_unit_test(test_resolve_big_world),
		cmocka_unit_test(test_resolve_step_cap),
		cmocka_unit_test(test_resolve_prefetch_hints),
		cmocka_unit_test(test_resolve_upcoming_walk),
		cmocka_unit_test(test_resolve_prefers_known_dependencies),
		cmocka_unit_test(test_resolve_unknown_walk_bound),
		cmocka_unit_test(test_dependencies_parsed_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
