#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/policy.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"

static struct rr_policy *pol_;

static int setup(void **state)
{
	(void)state;
	unsetenv("ROCM_PATH");
	unsetenv("PIP_CONSTRAINT");
	return rr_policy_load_default(&pol_, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	pol_ = rr_policy_free(pol_);
	return 0;
}

struct world {
	struct rr_venv *v;
	struct rr_stack *s;
};

static struct world load(const char *name, const char *const *extra, size_t nextra)
{
	const char *src = getenv("RR_SRCDIR");
	RR_AUTOFREE char *root = rr_xasprintf("%s/fixtures/venvs/%s", src ? src : ".", name);
	struct rr_venv_opts o = {.sysroot = "/nonexistent"};
	struct world w = {0};
	rr_error e = RR_ERROR_INIT;

	if (rr_venv_load(root, &o, &w.v, &e))
		fail_msg("%s: %s", root, e.msg);
	if (rr_stack_compute(w.v, pol_, extra, nextra, &w.s, &e))
		fail_msg("stack %s: %s", root, e.msg);
	return w;
}

static struct world load_in(const char *name, const char *sysroot)
{
	const char *src = getenv("RR_SRCDIR");
	RR_AUTOFREE char *root = rr_xasprintf("%s/fixtures/venvs/%s", src ? src : ".", name);
	RR_AUTOFREE char *sr = rr_xasprintf("%s/fixtures/venvs/%s", src ? src : ".", sysroot);
	struct rr_venv_opts o = {.sysroot = sr};
	struct world w = {0};
	rr_error e = RR_ERROR_INIT;

	if (rr_venv_load(root, &o, &w.v, &e))
		fail_msg("%s: %s", root, e.msg);
	if (rr_stack_compute(w.v, pol_, NULL, 0, &w.s, &e))
		fail_msg("stack %s: %s", root, e.msg);
	return w;
}

static void drop(struct world *w)
{
	rr_stack_free(w->s);
	rr_venv_free(w->v);
}

static void expect_stack(const struct rr_stack *s, const char *const *want, size_t n)
{
	RR_AUTO_STRBUF struct rr_strbuf got = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf exp = RR_STRBUF_INIT;

	for (size_t i = 0; i < s->n; i++)
		rr_strbuf_addf(&got, "%s==%s\n", s->items[i].key, s->items[i].version);
	for (size_t i = 0; i < n; i++)
		rr_strbuf_addf(&exp, "%s\n", want[i]);
	assert_string_equal(got.buf, exp.buf);
}

static bool has_warning(const struct rr_stack *s, const char *part)
{
	for (size_t i = 0; i < s->nwarnings; i++)
		if (strstr(s->warnings[i], part))
			return true;
	return false;
}

static void test_stack_rocm72(void **state)
{
	static const char *const want[] = {
		"apex==1.9.0+rocm7.2.0.gite37ed124", "torch==2.9.1+rocm7.2.0.lw.git7e1940d4",
		"torchaudio==2.9.0+rocm7.2.0.gite3c6ee2b", "torchvision==0.24.0+rocm7.2.0.gitb919bd0c",
		"triton==3.5.1+rocm7.2.0.gita272dfa8"};
	struct world w = load("rocm72", NULL, 0);
	const struct rr_protected *p;
	(void)state;

	expect_stack(w.s, want, RR_ARRAY_LEN(want));
	assert_string_equal(w.s->rocm_torch, "torch 2.9.1+rocm7.2.0.lw.git7e1940d4");
	p = rr_stack_lookup(w.s, "torch");
	assert_ptr_equal(p->dist, rr_venv_lookup(w.v, "torch"));
	assert_non_null(strstr(p->why, "ROCm local label"));
	assert_non_null(strstr(p->why, "torch.version.hip is '7.2.26015-fc0010cf6a'"));
	assert_non_null(strstr(p->why, "compute-artifactory"));
	assert_null(p->clash_group);
	p = rr_stack_lookup(w.s, "triton");
	assert_non_null(strstr(p->why, "pinned exactly by torch 2.9.1+rocm7.2.0.lw.git7e1940d4 "
				       "(Requires-Dist: triton==3.5.1+rocm7.2.0.gita272dfa8"));
	assert_string_equal(p->clash_group, "triton");
	/* torchvision's plain torch==2.9.1 pin is satisfied by the ROCm build */
	assert_non_null(strstr(rr_stack_lookup(w.s, "torch")->why, "pinned exactly by torchvision"));
	assert_null(rr_stack_lookup(w.s, "numpy"));
	assert_null(rr_stack_lookup(w.s, "filelock"));
	/* installing any other triton-family dist would overwrite triton/ */
	p = rr_stack_clash(w.s, pol_, "pytorch-triton-rocm");
	assert_non_null(p);
	assert_string_equal(p->key, "triton");
	assert_null(rr_stack_clash(w.s, pol_, "triton"));
	/* functorch (an old PyPI dist) lands in torch's functorch/ */
	p = rr_stack_clash(w.s, pol_, "functorch");
	assert_string_equal(p->key, "torch");
	assert_null(rr_stack_clash(w.s, pol_, "numpy"));
	assert_int_equal(w.s->nwarnings, 0);
	assert_int_equal(w.s->nclashes, 0);
	drop(&w);
}

static void test_stack_pytorch_rocm64(void **state)
{
	static const char *const want[] = {"pytorch-triton-rocm==3.4.0", "torch==2.8.0+rocm6.4",
					   "torchaudio==2.8.0+rocm6.4",
					   "torchvision==0.23.0+rocm6.4"};
	struct world w = load("pytorch-rocm64", NULL, 0);
	const struct rr_protected *p;
	(void)state;

	expect_stack(w.s, want, RR_ARRAY_LEN(want));
	p = rr_stack_clash(w.s, pol_, "triton");
	assert_non_null(p);
	assert_string_equal(p->key, "pytorch-triton-rocm");
	assert_string_equal(p->clash_group, "triton");
	assert_non_null(strstr(p->why, "pinned exactly by torch 2.8.0+rocm6.4"));
	assert_non_null(strstr(p->why, "GPU-family package installed with the ROCm torch"));
	assert_string_equal(rr_stack_clash(w.s, pol_, "triton-rocm")->key, "pytorch-triton-rocm");
	assert_null(rr_stack_clash(w.s, pol_, "pytorch-triton-rocm"));
	drop(&w);
}

static void test_stack_cpu(void **state)
{
	struct world w = load("cpu", NULL, 0);
	(void)state;

	assert_int_equal(w.s->n, 0);
	assert_null(w.s->rocm_torch);
	assert_null(rr_stack_clash(w.s, pol_, "triton"));
	drop(&w);
}

static void test_stack_source_build(void **state)
{
	static const char *const want[] = {"pytorch-triton-rocm==3.3.0+git96316ce5",
					   "torch==2.7.0a0+git3f903c3",
					   "torchvision==0.22.0a0+a6b1c2d"};
	struct world w = load("rocm-source", NULL, 0);
	const struct rr_protected *p;
	(void)state;

	expect_stack(w.s, want, RR_ARRAY_LEN(want));
	p = rr_stack_lookup(w.s, "torch");
	/* no ROCm label: only torch.version.hip tells (and the label is no stock variant) */
	assert_string_equal(p->why, "ROCm build: torch.version.hip is '6.3.42131'; "
				    "GPU-family package with a custom build label '+git3f903c3'");
	p = rr_stack_lookup(w.s, "torchvision");
	assert_non_null(strstr(p->why, "custom build label '+a6b1c2d'"));
	drop(&w);
}

static void test_stack_clash_detected(void **state)
{
	static const char *const want[] = {"pytorch-triton-rocm==3.1.0", "torch==2.5.1+rocm6.1"};
	struct world w = load("clash", NULL, 0);
	(void)state;

	/* PyPI triton sits on top of pytorch-triton-rocm: not protected, but reported */
	expect_stack(w.s, want, RR_ARRAY_LEN(want));
	assert_int_equal(w.s->nclashes, 1);
	assert_string_equal(w.s->clashes[0].module, "triton");
	assert_int_equal(w.s->clashes[0].nkeys, 2);
	assert_string_equal(w.s->clashes[0].keys[0], "pytorch-triton-rocm");
	assert_string_equal(w.s->clashes[0].keys[1], "triton");
	assert_true(has_warning(w.s, "import package 'triton' is installed by several"));
	assert_string_equal(rr_stack_clash(w.s, pol_, "triton")->key, "pytorch-triton-rocm");
	drop(&w);
}

static void test_stack_protect_and_broken(void **state)
{
	static const char *const extra[] = {"NumPy", "not_installed"};
	struct world w = load("broken-metadata", extra, RR_ARRAY_LEN(extra));
	const struct rr_protected *p;
	(void)state;

	p = rr_stack_lookup(w.s, "amd-widget");
	assert_non_null(p);
	assert_non_null(strstr(p->why, "its metadata is unusable"));
	assert_true(has_warning(w.s, "--protect not_installed: no such distribution"));
	drop(&w);

	w = load("rocm72", extra, 1);
	p = rr_stack_lookup(w.s, "numpy");
	assert_string_equal(p->why, "protected on request (--protect NumPy)");
	assert_int_equal(w.s->n, 6);
	drop(&w);
}

static void test_stack_bridged(void **state)
{
	struct world w = load("bridged", NULL, 0);
	(void)state;

	/* the image's stack is protected from the project venv too */
	assert_int_equal(w.s->n, 5);
	assert_non_null(rr_stack_lookup(w.s, "torch"));
	assert_null(rr_stack_lookup(w.s, "myproj"));
	drop(&w);
}

/* issue 14: the stack of a --system-site-packages venv is the base interpreter's */
static void test_stack_inherited(void **state)
{
	static const char *const want[] = {"pytorch-triton-rocm==2.1.0+34f8189eae",
					   "torch==2.1.2+git70dfd51", "torchvision==0.16.1+fdea156"};
	struct world w = load_in("syssite", "sysroot-conda");
	(void)state;

	expect_stack(w.s, want, RR_ARRAY_LEN(want));
	assert_true(rr_stack_lookup(w.s, "torch")->dist->inherited);
	drop(&w);
}

/*
 * issue 14: an NGC image: torch and torchvision by their build labels, the unlabelled
 * triton because it ships the triton module in torch's site; with the image's
 * /etc/pip/constraint.txt, numpy too (pinned there at its installed version), and each
 * constraint named in the reasons; a pin of something not installed protects nothing
 */
static void test_stack_ngc(void **state)
{
	static const char *const bare[] = {"torch==2.8.0a0+5228986c39.nv25.5",
					   "torchvision==0.22.0a0+95f10a4e", "triton==3.3.0"};
	static const char *const pinned[] = {"numpy==1.26.4", "torch==2.8.0a0+5228986c39.nv25.5",
					     "torchvision==0.22.0a0+95f10a4e", "triton==3.3.0"};
	struct world w = load("sysroot-ngc/usr", NULL, 0);
	const struct rr_protected *t;
	(void)state;

	expect_stack(w.s, bare, RR_ARRAY_LEN(bare));
	t = rr_stack_lookup(w.s, "triton");
	assert_non_null(strstr(t->why, "ships the 'triton' module in the site of the protected "
					"torch 2.8.0a0+5228986c39.nv25.5"));
	assert_string_equal(t->clash_group, "triton");
	/* PyPI's pytorch-triton would land in the same triton/ */
	assert_ptr_equal(rr_stack_clash(w.s, pol_, "pytorch-triton"), t);
	drop(&w);

	w = load_in("sysroot-ngc/usr", "sysroot-ngc");
	expect_stack(w.s, pinned, RR_ARRAY_LEN(pinned));
	assert_non_null(strstr(rr_stack_lookup(w.s, "numpy")->why,
			       "pinned by the pip constraint "));
	assert_non_null(strstr(rr_stack_lookup(w.s, "numpy")->why, "constraint.txt:5 (numpy==1.26.4)"));
	drop(&w);

	/* a constraint on another version of an installed build: said */
	w = load_in("sysroot-ngc/usr", "sysroot-rocm72");
	assert_true(has_warning(w.s, "the pip constraint 'torch==2.9.1+rocm7.2.0.lw.git7e1940d4' "
				     "does not hold the installed torch"));
	drop(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_rocm72),
		cmocka_unit_test(test_stack_pytorch_rocm64),
		cmocka_unit_test(test_stack_cpu),
		cmocka_unit_test(test_stack_source_build),
		cmocka_unit_test(test_stack_clash_detected),
		cmocka_unit_test(test_stack_protect_and_broken),
		cmocka_unit_test(test_stack_bridged),
		cmocka_unit_test(test_stack_inherited),
		cmocka_unit_test(test_stack_ngc),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
