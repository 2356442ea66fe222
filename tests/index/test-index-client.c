/*
 * The index client against the real fixture server (tests/index/serve.py)
 * over real libcurl on 127.0.0.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "index-fixture.h"
#include "index/client-private.h"
#include "index/index-private.h"
#include "rocm-resolve/index-provider.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/resolve.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"

static char *base;
static pid_t server;
static char cachedir[] = "/tmp/rr-index-test-XXXXXX";

static int setup(void **state)
{
	(void)state;
	server = rr_test_index_start(NULL, &base);
	if (server < 0)
		return -1;
	return mkdtemp(cachedir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];
	(void)state;
	rr_test_index_stop(server);
	free(base);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cachedir);
	return system(cmd) == 0 ? 0 : -1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * a client on base+paths, no cache unless dir given. These clients ask for JSON
 * pages, as the tests below count requests and read PEP 700 sizes; the measured
 * choice of format (RR_INDEX_PAGES_AUTO, two HEADs first) has tests of its own.
 */
static struct rr_index_client *client(const char *dir, int nurls, ...)
{
	const char *urls[4];
	char *owned[4];
	struct rr_index_opts o = {.index_urls = urls, .nindex_urls = (size_t)nurls,
				  .cache_dir = dir, .no_cache = dir == NULL,
				  .pages = RR_INDEX_PAGES_JSON};
	struct rr_index_client *c = NULL;
	rr_error err = RR_ERROR_INIT;
	va_list ap;

	va_start(ap, nurls);
	for (int i = 0; i < nurls; i++) {
		const char *p = va_arg(ap, const char *);
		owned[i] = strncmp(p, "http", 4) == 0 ? strdup(p) : rr_xasprintf("%s%s", base, p);
		urls[i] = owned[i];
	}
	va_end(ap);
	assert_int_equal(rr_index_client_new(&o, &c, &err), RR_OK);
	for (int i = 0; i < nurls; i++)
		free(owned[i]);
	return c;
}

static struct rr_index_client *client_opts(struct rr_index_opts *o, const char *path)
{
	static const char *urls[1];
	static char buf[512];
	struct rr_index_client *c = NULL;
	rr_error err = RR_ERROR_INIT;

	snprintf(buf, sizeof(buf), "%s%s", strncmp(path, "http", 4) == 0 ? "" : base, path);
	urls[0] = buf;
	o->index_urls = urls;
	o->nindex_urls = 1;
	if (o->pages == RR_INDEX_PAGES_AUTO)
		o->pages = RR_INDEX_PAGES_JSON; /* see client() */
	assert_int_equal(rr_index_client_new(o, &c, &err), RR_OK);
	return c;
}

static const struct rr_index_file *find_file(const struct rr_index_project *p, const char *fn)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (strcmp(p->files[i].filename, fn) == 0)
			return &p->files[i];
	fail_msg("no file %s", fn);
	return NULL;
}

static void test_json_page(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");
	const struct rr_index_project *p;
	const struct rr_index_file *f;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	/* any spelling: the URL carries the normalised name */
	assert_int_equal(rr_index_get_project(c, "Torch", &p, &err), RR_OK);
	assert_string_equal(p->key, "torch");
	assert_int_equal(p->nfiles, 16); /* 8 releases of 2 wheels (fixtures/index/world.txt) */
	f = find_file(p, "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl");
	assert_string_equal(f->version, "2.8.0");
	assert_true(f->size > 0); /* PEP 700 size: only the JSON form has it */
	assert_true(f->has_metadata);
	assert_non_null(f->metadata_sha256);
	assert_non_null(f->sha256);
	assert_string_equal(f->requires_python, ">=3.9.0");
	assert_true(rr_str_endswith(f->url, "/files/torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl"));
	assert_null(strstr(f->url, ".."));
	assert_int_equal(rr_index_get_project(c, "typing_extensions", &p, &err), RR_OK);
	assert_string_equal(p->key, "typing-extensions");
	assert_int_equal(rr_index_get_project(c, "pillow", &p, &err), RR_OK);
	f = find_file(p, "pillow-11.2.0-cp312-cp312-manylinux_2_28_x86_64.whl");
	assert_true(f->yanked);
	assert_string_equal(f->yanked_reason, "synthetic yank for tests: broken build");
	assert_int_equal(rr_index_get_project(c, "no-such-project", &p, &err), RR_E_NOTFOUND);
	assert_non_null(strstr(err.msg, "no-such-project"));
	rr_error_release(&err);
	rr_index_client_free(c);
}

static void test_html_pytorch_index(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/whl/rocm6.4/");
	const struct rr_index_project *p;
	const struct rr_index_file *f;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 4);
	f = find_file(p, "torch-2.9.1+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl");
	assert_string_equal(f->version, "2.9.1+rocm6.4");
	assert_non_null(strstr(f->url, "/whl/rocm6.4/torch-2.9.1%2Brocm6.4-cp312"));
	assert_null(strchr(f->url, '#'));
	assert_int_equal(f->size, -1);
	assert_non_null(f->sha256);
	assert_true(f->has_metadata);
	assert_string_equal(p->index_url, f->index_url);
	rr_index_client_free(c);
}

static void test_first_index_wins(void **state)
{
	struct rr_index_client *c = client(NULL, 2, "/simple", "/private/simple");
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *keys[] = {"torch", "rr-private-only", "numpy"};
	(void)state;

	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_OK);
	/* the private index's torch 99.0.0 must never be seen */
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_true(rr_str_endswith(p->index_url, "/simple"));
	for (size_t i = 0; i < p->nfiles; i++)
		assert_string_not_equal(p->files[i].version, "99.0.0");
	assert_int_equal(rr_index_get_project(c, "rr-private-only", &p, &err), RR_OK);
	assert_true(rr_str_endswith(p->index_url, "/private/simple"));
	rr_index_client_free(c);

	/* a pytorch index first: its numpy is the only numpy */
	c = client(NULL, 2, "/whl/cu121", "/simple");
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_OK);
	for (size_t i = 0; i < p->nfiles; i++)
		assert_string_equal(p->files[i].version, "1.26.3");
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	for (size_t i = 0; i < p->nfiles; i++)
		assert_string_equal(p->files[i].version, "2.4.1+cu121");
	assert_int_equal(rr_index_get_project(c, "pillow", &p, &err), RR_OK);
	assert_true(rr_str_endswith(p->index_url, "/simple"));
	rr_index_client_free(c);
}

static void test_jsonapi_fallback(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/simple/");
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	(void)state;

	assert_int_equal(rr_index_get_project(c, "rr_api_only", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 1);
	assert_non_null(p->files[0].sha256);
	assert_false(p->files[0].has_metadata);
	/* no .metadata: the wheel itself is read */
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Requires-Dist: idna\n"));
	rr_index_client_free(c);
}

static void test_metadata_paths(void **state)
{
	struct rr_index_client *c = client(NULL, 2, "/simple", "/whl/cu121");
	const struct rr_index_project *p;
	const struct rr_index_file *fs[4];
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	(void)state;

	/* PEP 658 .metadata, hash checked */
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	fs[0] = find_file(p, "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl");
	fs[1] = find_file(p, "torch-2.4.1-cp311-cp311-manylinux_2_28_x86_64.whl");
	assert_int_equal(rr_index_fetch_metadata(c, fs, 2, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, fs[0], &txt, &len, &err), RR_OK);
	assert_int_equal(len, strlen(txt));
	assert_non_null(strstr(txt, "Requires-Dist: triton==3.4.0; platform_system == \"Linux\""));
	assert_non_null(strstr(txt, "Requires-Dist: nvidia-cudnn-cu12==9.10.2.21;"));
	assert_int_equal(rr_index_get_metadata(c, fs[1], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Version: 2.4.1\n"));

	/* advertised but 404: falls back to the wheel */
	assert_int_equal(rr_index_get_project(c, "rr-lost-metadata", &p, &err), RR_OK);
	assert_true(p->files[0].has_metadata);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Requires-Dist: packaging\n"));

	/* not advertised: wheel via libarchive */
	assert_int_equal(rr_index_get_project(c, "rr-no-metadata", &p, &err), RR_OK);
	assert_false(p->files[0].has_metadata);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Requires-Dist: idna>=3\n"));

	/* sdists: static PKG-INFO is used, dynamic and pre-2.2 need a build */
	assert_int_equal(rr_index_get_project(c, "rr-static-sdist", &p, &err), RR_OK);
	assert_false(p->files[0].is_wheel);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Metadata-Version: 2.2\n"));
	assert_non_null(strstr(txt, "Requires-Dist: packaging>=20.0\n"));
	assert_int_equal(rr_index_get_project(c, "rr-dynamic-demo", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "rr_dynamic_demo-1.0.0.tar.gz"));
	assert_non_null(strstr(err.msg, "dynamic"));
	rr_error_release(&err);
	assert_int_equal(rr_index_get_project(c, "flash-attn", &p, &err), RR_OK);
	fs[0] = &p->files[0];
	/* in a batch, a file needing a build does not fail the others */
	assert_int_equal(rr_index_fetch_metadata(c, fs, 1, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, fs[0], &txt, &len, &err), RR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "2.2"));
	rr_error_release(&err);

	/* HTML-only cu121 index without .metadata: the +cu121 wheel is downloaded */
	assert_int_equal(rr_index_get_project(c, "torchvision", &p, &err), RR_OK);
	assert_true(rr_str_endswith(p->index_url, "/simple")); /* first index wins */
	rr_index_client_free(c);
	c = client(NULL, 1, "/whl/cu121");
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_false(p->files[0].has_metadata);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Version: 2.4.1+cu121\n"));
	assert_non_null(strstr(txt, "Requires-Dist: triton==3.0.0;"));
	rr_index_client_free(c);
}

static void test_metadata_integrity(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/_fault/corrupt/simple");
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	(void)state;

	assert_int_equal(rr_index_get_project(c, "packaging", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_E_DATA);
	assert_non_null(strstr(err.msg, "sha256 mismatch"));
	assert_non_null(strstr(err.msg, ".metadata"));
	rr_error_release(&err);
	assert_int_equal(rr_index_get_project(c, "rr-no-metadata", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_E_DATA);
	assert_non_null(strstr(err.msg, "rr_no_metadata-2.0.0-py3-none-any.whl"));
	rr_error_release(&err);
	rr_index_client_free(c);

	/* /_fault/nometa: every .metadata 404s, every answer still comes (from wheels) */
	c = client(NULL, 1, "/_fault/nometa/simple");
	assert_int_equal(rr_index_get_project(c, "requests", &p, &err), RR_OK);
	assert_true(p->files[0].has_metadata);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Requires-Dist: certifi>=2017.4.17\n"));
	rr_index_client_free(c);
}

/* a fault path that must succeed after retries */
static void expect_ok(const char *path, const char *key)
{
	struct rr_index_opts o = {.no_cache = true, .retries = 3};
	struct rr_index_client *c = client_opts(&o, path);
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;

	if (rr_index_get_project(c, key, &p, &err) != RR_OK)
		fail_msg("%s: %s", path, err.msg);
	assert_true(p->nfiles > 0);
	rr_index_client_free(c);
}

/* a fault path that must fail with code, naming the URL, never the secret */
static void expect_fail(const char *path, const char *key, rr_err code, long timeout_ms)
{
	struct rr_index_opts o = {.no_cache = true, .retries = 2, .timeout_ms = timeout_ms};
	char *u = rr_xasprintf("http://alice:s3cr3t-pw@%s%s", base + 7, path);
	struct rr_index_client *c = client_opts(&o, u);
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	char *want = rr_xasprintf("%s%s/%s/", base + 7, path, key);

	assert_int_equal(rr_index_get_project(c, key, &p, &err), code);
	print_message("%s -> %s\n", path, err.msg);
	if (!strstr(err.msg, want))
		fail_msg("message '%s' does not name '%s'", err.msg, want);
	assert_null(strstr(err.msg, "s3cr3t"));
	assert_null(strstr(err.msg, "alice"));
	rr_error_release(&err);
	rr_index_client_free(c);
	free(u);
	free(want);
}

static void test_faults(void **state)
{
	double t0;
	(void)state;

	rr_test_index_reset(base);
	expect_ok("/_fault/5xx/2/simple", "filelock");
	expect_ok("/_fault/drop/2/simple", "filelock");
	expect_ok("/_fault/trunc/2/simple", "filelock");
	expect_ok("/_fault/latency/300/simple", "filelock");
	{
		/* a body that stops mid-way is given up after 5 s of silence and asked
		 * again, not waited on for the 30 s request timeout */
		struct rr_index_opts o = {.no_cache = true};
		struct rr_index_client *c;
		const struct rr_index_project *p;
		rr_error err = RR_ERROR_INIT;
		double t1 = now_s();
		rr_test_index_reset(base);
		c = client_opts(&o, "/_fault/stall/1/simple");
		assert_int_equal(rr_index_get_project(c, "filelock", &p, &err), RR_OK);
		assert_true(p->nfiles > 0);
		assert_int_equal(rr_index_client_requests(c), 2);
		print_message("a stalled body, retried: %.2f s\n", now_s() - t1);
		assert_true(now_s() - t1 >= 4.5 && now_s() - t1 < 12);
		rr_index_client_free(c);
	}
	expect_fail("/_fault/always5xx/simple", "filelock", RR_E_HTTP, 0);
	expect_fail("/_fault/drop/100/simple", "filelock", RR_E_NETWORK, 0);
	expect_fail("/_fault/trunc/100/simple", "filelock", RR_E_NETWORK, 0);
	expect_fail("/_fault/badjson/simple", "torch", RR_E_PARSE, 0);
	expect_fail("/_fault/ctype/simple", "torch", RR_E_HTTP, 0);
	t0 = now_s();
	expect_fail("/_fault/latency/2000/whl/cu121", "torch", RR_E_NETWORK, 200);
	/* three attempts of 200 ms plus backoff, not 3 x 2 s */
	assert_true(now_s() - t0 < 1.9);
	/* 5xx retried exactly retries times: 1 + 2 attempts */
	rr_test_index_reset(base);
	expect_fail("/_fault/always5xx/whl/cu121", "torch", RR_E_HTTP, 0);
	assert_int_equal(rr_test_index_requests(base), 3);
}

static void test_auth(void **state)
{
	char *good = rr_xasprintf("http://alice:pa%%40ss@%s/_auth/alice/pa@ss/simple", base + 7);
	char *bad = rr_xasprintf("http://alice:wrong-pw@%s/_auth/alice/pa@ss/simple", base + 7);
	struct rr_index_opts o = {.no_cache = true};
	struct rr_index_client *c = client_opts(&o, good);
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	(void)state;

	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_non_null(strstr(p->index_url, "***@"));
	assert_null(strstr(p->index_url, "alice:"));
	assert_null(strstr(p->files[0].url, "alice:"));
	/* credentials follow to files on the same host: the .metadata needs them */
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	rr_index_client_free(c);

	c = client_opts(&o, bad);
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_E_HTTP);
	assert_non_null(strstr(err.msg, "401"));
	assert_non_null(strstr(err.msg, "/_auth/alice/"));
	assert_null(strstr(err.msg, "wrong-pw"));
	rr_error_release(&err);
	rr_index_client_free(c);
	free(good);
	free(bad);
}

static void test_parallel(void **state)
{
	const char *keys[] = {"filelock", "numpy", "pillow", "sympy", "mpmath", "networkx",
			      "jinja2", "markupsafe", "fsspec", "setuptools", "packaging", "psutil",
			      "tqdm", "requests", "idna", "urllib3", "certifi", "charset-normalizer",
			      "pyyaml", "safetensors", "huggingface-hub", "tokenizers", "regex",
			      "einops", "accelerate", "peft", "transformers", "bitsandbytes",
			      "xformers", "vllm", "torch", "torchvision"};
	struct rr_index_opts o = {.no_cache = true, .max_parallel = 16};
	struct rr_index_client *c = client_opts(&o, "/_fault/latency/250/simple");
	rr_error err = RR_ERROR_INIT;
	const struct rr_index_project *p;
	double t0 = now_s();
	double dt;
	(void)state;

	assert_int_equal(rr_index_fetch_projects(c, keys, RR_ARRAY_LEN(keys), &err), RR_OK);
	dt = now_s() - t0;
	print_message("%zu pages at 250 ms latency each: %.2f s\n", RR_ARRAY_LEN(keys), dt);
	/* serial would be 8 s; two waves of 16 take ~0.5 s */
	assert_true(dt < 1.5);
	for (size_t i = 0; i < RR_ARRAY_LEN(keys); i++)
		assert_int_equal(rr_index_get_project(c, keys[i], &p, &err), RR_OK);
	assert_int_equal(rr_index_client_requests(c), RR_ARRAY_LEN(keys));
	rr_index_client_free(c);
}

/* the page transfers that finished with 200 (the client's thread) */
static void count_pages_ok(void *ctx, const struct rr_index_event *ev)
{
	if (ev->url && ev->status == 200 && !ev->head && strstr(ev->url, "/simple/"))
		(*(size_t *)ctx)++;
}

static size_t count_files(const char *dir)
{
	char cmd[600];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "find '%s' -type f ! -name '*.tmp.*' | wc -l", dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%zu", &n), 1);
	pclose(f);
	return n;
}

/*
 * A client freed while pages it did not wait for are still being parsed: every
 * page that came whole is parsed by a worker and its cache entry goes to the
 * writer, which must still be there to write it (it once stopped as soon as its
 * queue was empty, and an entry pushed after that was lost, and leaked)
 */
static void test_close_while_parsing(void **state)
{
	const char *keys[] = {"filelock",     "numpy",       "pillow",
			      "sympy",        "mpmath",      "networkx",
			      "jinja2",       "markupsafe",  "fsspec",
			      "setuptools",   "packaging",   "psutil",
			      "tqdm",         "requests",    "idna",
			      "urllib3",      "certifi",     "charset-normalizer",
			      "pyyaml",       "safetensors", "huggingface-hub",
			      "tokenizers",   "regex",       "einops",
			      "accelerate",   "peft",        "transformers",
			      "bitsandbytes", "xformers",    "vllm",
			      "torch",        "torchvision"};
	(void)state;

	for (int round = 0; round < 3; round++) {
		char dir[512];
		size_t pages_ok = 0;
		struct rr_index_opts o = {
		    .max_parallel = 32, .observe = count_pages_ok, .observe_ctx = &pages_ok};
		struct rr_index_client *c;
		const struct rr_index_project *p;
		rr_error err = RR_ERROR_INIT;

		snprintf(dir, sizeof(dir), "%s/close%d", cachedir, round);
		o.cache_dir = dir;
		/* pages of 2000 releases: parsing them keeps the workers busy */
		c = client_opts(&o, "/_fault/many/1000/simple");
		for (size_t i = 0; i < RR_ARRAY_LEN(keys); i++)
			rr_index_want_project(c, keys[i], 0);
		assert_int_equal(rr_index_get_project(c, keys[RR_ARRAY_LEN(keys) - 1], &p, &err),
				 RR_OK);
		rr_index_client_free(c);
		assert_true(pages_ok >= 1);
		assert_int_equal(count_files(dir), pages_ok);
	}
}

static void note_thread(struct rr_index_client *c, struct rr_index_get *g)
{
	(void)c;
	*(pthread_t *)g->ready_ctx = pthread_self();
}

/*
 * a small answer is worked on at once by the thread that settled it; a big one on a
 * worker, while the rest download (a small page once waited behind the big ones)
 */
static void test_small_ready_inline(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");
	pthread_t small_th, big_th;
	struct rr_index_get gs[2] = {
	    {.url = rr_xasprintf("%s/simple/idna/", base),
	     .accept = RR_INDEX_ACCEPT,
	     .klass = "test",
	     .ready = note_thread,
	     .ready_ctx = &small_th},
	    {.url = rr_xasprintf("%s/_fault/many/2000/simple/idna/", base),
	     .accept = RR_INDEX_ACCEPT,
	     .klass = "test",
	     .ready = note_thread,
	     .ready_ctx = &big_th},
	};
	(void)state;

	rr_index_get_batch(c, gs, 2);
	assert_int_equal(gs[0].status, 200);
	assert_int_equal(gs[1].status, 200);
	assert_true(gs[0].body.len < 64 * 1024);
	assert_true(gs[1].body.len > 64 * 1024);
	assert_true(pthread_equal(small_th, pthread_self()));
	assert_false(pthread_equal(big_th, pthread_self()));
	for (int i = 0; i < 2; i++)
		rr_index_get_release(&gs[i]);
	rr_index_client_free(c);
}

static void test_cache(void **state)
{
	char dir[512];
	struct rr_index_opts o = {0};
	struct rr_index_client *c;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *keys[] = {"torch", "numpy", "rr-private-only-nowhere"};
	const char *txt;
	size_t len;
	long before;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/c1", cachedir);
	o.cache_dir = dir;
	c = client_opts(&o, "/simple");
	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_OK);
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_true(rr_index_client_requests(c) >= 4);
	rr_index_client_free(c);

	/* warm: fresh entries (max-age=600), not even a revalidation; also the 404 */
	before = rr_test_index_requests(base);
	c = client_opts(&o, "/simple");
	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_OK);
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: torch"));
	assert_int_equal(rr_index_get_project(c, "rr-private-only-nowhere", &p, &err), RR_E_NOTFOUND);
	rr_error_release(&err);
	assert_int_equal(rr_index_client_requests(c), 0);
	assert_int_equal(rr_test_index_requests(base), before);
	rr_index_client_free(c);

	/* refresh: every page revalidated (conditional GET, 304), same content */
	o.refresh = true;
	c = client_opts(&o, "/simple");
	rr_test_index_reset(base);
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 16);
	assert_int_equal(rr_index_client_requests(c), 1);
	rr_index_client_free(c);
	o.refresh = false;

	/* offline: cached answers, misses named */
	o.offline = true;
	c = client_opts(&o, "/simple");
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_project(c, "pillow", &p, &err), RR_E_NETWORK);
	assert_non_null(strstr(err.msg, "offline and not cached: "));
	assert_non_null(strstr(err.msg, "/simple/pillow/"));
	rr_error_release(&err);
	assert_int_equal(rr_index_client_requests(c), 0);
	rr_index_client_free(c);
	o.offline = false;

	/* no-cache pages: stored, but revalidated on each use (304) */
	c = client_opts(&o, "/_fault/nocache/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	rr_index_client_free(c);
	c = client_opts(&o, "/_fault/nocache/simple");
	rr_test_index_reset(base);
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 1);
	assert_int_equal(rr_index_client_requests(c), 1);
	assert_int_equal(rr_test_index_requests(base), 1);
	rr_index_client_free(c);

	/* no_cache: nothing read or written */
	o.no_cache = true;
	c = client_opts(&o, "/simple");
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_OK);
	assert_int_equal(rr_index_client_requests(c), 1);
	rr_index_client_free(c);
}

/* writers racing on the same entries while a reader checks each one it sees */
static void test_cache_atomic(void **state)
{
	char dir[512];
	pid_t kids[3];
	const size_t big = 1u << 20;
	int bad = 0, seen = 0;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/atomic", cachedir);
	for (int k = 0; k < 3; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0) {
			struct rr_cache_entry e = {.status = 200, .max_age = 60, .body = RR_STRBUF_INIT};
			for (size_t i = 0; i < big; i++)
				rr_strbuf_addch(&e.body, (char)('a' + k));
			for (int round = 0; round < 40; round++) {
				char url[64];
				snprintf(url, sizeof(url), "http://h/simple/p%d/", round % 4);
				e.url = url;
				e.stored = round;
				if (rr_cache_store(dir, "simple", &e, NULL) != RR_OK)
					_exit(2);
			}
			_exit(0);
		}
	}
	/* read until the two surviving writers are done; the third is killed mid-way */
	for (int i = 0, running = 2, st; running > 0; i++) {
		char url[64];
		struct rr_cache_entry e = {.body = RR_STRBUF_INIT};
		snprintf(url, sizeof(url), "http://h/simple/p%d/", i % 4);
		if (rr_cache_load(dir, "simple", url, &e, NULL) == RR_OK) {
			seen++;
			if (e.body.len != big || e.body.buf[0] < 'a' || e.body.buf[0] > 'c' ||
			    memchr(e.body.buf, e.body.buf[0] == 'a' ? 'b' : 'a', e.body.len) ||
			    strcmp(e.url, url) != 0)
				bad++;
		}
		rr_cache_entry_release(&e);
		if (seen == 20) {
			kill(kids[2], SIGKILL);
			waitpid(kids[2], &st, 0);
		}
		for (int k = 0; k < 2; k++) {
			if (kids[k] > 0 && waitpid(kids[k], &st, WNOHANG) == kids[k]) {
				assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
				kids[k] = 0;
				running--;
			}
		}
	}
	if (seen < 20) {
		kill(kids[2], SIGKILL);
		waitpid(kids[2], NULL, 0);
	}
	print_message("reader saw %d complete entries, %d bad\n", seen, bad);
	assert_true(seen > 0);
	assert_int_equal(bad, 0);
	/* after the dust settles every entry loads whole */
	for (int i = 0; i < 4; i++) {
		char url[64];
		struct rr_cache_entry e = {.body = RR_STRBUF_INIT};
		snprintf(url, sizeof(url), "http://h/simple/p%d/", i);
		assert_int_equal(rr_cache_load(dir, "simple", url, &e, NULL), RR_OK);
		assert_int_equal(e.body.len, big);
		rr_cache_entry_release(&e);
	}
}

/* the fetch layer: body caps and Accept negotiation, below the client */
static void test_fetch_layer(void **state)
{
	struct rr_fetch_opts fo = {.retries = 0};
	struct rr_fetcher *f = NULL;
	struct rr_fetch r[3];
	(void)state;

	assert_int_equal(rr_fetcher_new(&fo, &f, NULL), RR_OK);
	memset(r, 0, sizeof(r));
	r[0].url = rr_xasprintf("%s/simple/torch/", base);
	r[0].max_body = 1000;
	r[0].accept = RR_INDEX_ACCEPT;
	r[1].url = rr_xasprintf("%s/simple/torch/", base);
	r[1].accept = "text/html";
	r[2].url = rr_xasprintf("%s/simple/torch/", base);
	r[2].accept = "application/vnd.pypi.simple.latest+json";
	rr_fetch_run(f, r, 3);
	assert_int_equal(r[0].rc, RR_E_LIMIT);
	assert_non_null(strstr(r[0].err.msg, "/simple/torch/"));
	assert_int_equal(r[1].rc, RR_OK);
	assert_string_equal(r[1].content_type, "text/html");
	assert_non_null(strstr(r[1].body.buf, "data-core-metadata=\"sha256="));
	assert_int_equal(r[2].rc, RR_OK);
	assert_string_equal(r[2].content_type, "application/vnd.pypi.simple.v1+json");
	assert_non_null(r[2].etag);
	for (int i = 0; i < 3; i++) {
		free((char *)r[i].url);
		rr_fetch_release(&r[i]);
	}
	rr_fetcher_free(f);

	/* a 503 is retried, unless the request is asked once (a guess someone may wait
	 * for): then its one answer is final */
	fo = (struct rr_fetch_opts){.retries = 2, .backoff_ms = 20};
	assert_int_equal(rr_fetcher_new(&fo, &f, NULL), RR_OK);
	memset(r, 0, sizeof(r));
	r[0].url = rr_xasprintf("%s/_fault/5xx/1/simple/six/", base);
	r[1].url = rr_xasprintf("%s/_fault/5xx/1/simple/idna/", base);
	r[1].once = true;
	rr_fetch_run(f, r, 2);
	assert_int_equal(r[0].attempts, 2);
	assert_int_equal(r[0].status, 200);
	assert_int_equal(r[1].attempts, 1);
	assert_int_equal(r[1].status, 503);
	for (int i = 0; i < 2; i++) {
		free((char *)r[i].url);
		rr_fetch_release(&r[i]);
	}
	rr_fetcher_free(f);
}


/*
 * the core metadata of project's only file through a fresh, uncached client on
 * path: it must hold want; *st gets the client's counts; returns the file's size
 */
static long long read_metadata(const char *path, const char *project, const char *want,
			       struct rr_index_stats *st)
{
	struct rr_index_client *c = client(NULL, 1, path);
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	long long size;

	assert_int_equal(rr_index_get_project(c, project, &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 1);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, want));
	size = p->files[0].size;
	rr_index_client_stats(c, st);
	rr_index_client_free(c);
	return size;
}

/* PEP 658 absent: a wheel's METADATA by range requests, never the whole wheel */
static void test_range_metadata(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");
	const struct rr_index_project *p;
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	unsigned long long before;
	long long size;
	(void)state;

	assert_int_equal(rr_index_get_project(c, "rr-big-wheel", &p, &err), RR_OK);
	assert_false(p->files[0].has_metadata);
	size = p->files[0].size;
	assert_true(size > 400000);
	rr_index_client_stats(c, &st);
	before = st.bytes;
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-big-wheel\n"));
	assert_non_null(strstr(txt, "Requires-Dist: idna>=3\n"));
	rr_index_client_stats(c, &st);
	/* the tail, a longer tail with the central directory (it starts before the first
	 * tail), the member (a 256 KiB member lies between it and the directory) */
	assert_int_equal(st.range_requests, 3);
	assert_int_equal(st.whole_files, 0);
	print_message("range reads: %llu of %lld bytes\n", st.bytes - before, size);
	/* not the whole file: the longer tail reaches back half a directory and 32 KiB
	 * past it, which in this small wheel of 1500 members is most of the rest */
	assert_true(st.bytes - before < (unsigned long long)size);
	/* most wheels: the dist-info last, just before a directory larger than the first
	 * tail: the longer tail brings both (before: the directory, then the member) */
	assert_int_equal(rr_index_get_project(c, "rr-many-wheel", &p, &err), RR_OK);
	assert_false(p->files[0].has_metadata);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-many-wheel\n"));
	rr_index_client_stats(c, &st);
	assert_int_equal(st.range_requests, 5);
	/* the dist-info first (pdm-backend): the first wheel of the project by its end and
	 * then the member at its start; the next wheel, taught by it, by its start alone */
	assert_int_equal(rr_index_get_project(c, "rr-infofirst", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 2);
	for (size_t i = 0; i < 2; i++) {
		unsigned long long was;
		rr_index_client_stats(c, &st);
		was = st.range_requests;
		assert_int_equal(rr_index_get_metadata(c, &p->files[i], &txt, &len, &err), RR_OK);
		assert_non_null(strstr(txt, "Name: rr-infofirst\n"));
		assert_non_null(strstr(txt, i ? "Version: 2.0.0\n" : "Version: 1.0.0\n"));
		rr_index_client_stats(c, &st);
		assert_int_equal(st.range_requests - was, i ? 1 : 3);
	}
	/* a small wheel lies whole in its tail: one request, hash checked */
	assert_int_equal(rr_index_get_project(c, "rr-no-metadata", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Requires-Dist: idna>=3\n"));
	rr_index_client_stats(c, &st);
	assert_int_equal(st.range_requests, 10);
	rr_index_client_free(c);

	/* a server that answers Range with the whole file: streamed to a temp file */
	read_metadata("/_fault/noranges/simple", "rr-big-wheel", "Requires-Dist: idna>=3\n", &st);
	assert_int_equal(st.range_requests, 0);
	assert_int_equal(st.whole_files, 1);
	assert_int_equal(st.requests, 2); /* the page, the file */

	/* the whole-file path still checks the file's hash */
	c = client(NULL, 1, "/_fault/noranges/_fault/corrupt/simple");
	assert_int_equal(rr_index_get_project(c, "rr-big-wheel", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_E_DATA);
	assert_non_null(strstr(err.msg, "sha256 mismatch"));
	rr_error_release(&err);
	rr_index_client_free(c);
}

/*
 * a wheel's shared libraries by range requests: the end, the directory, then the two
 * members that lie far from it, asked together; the same with a server that ignores Range
 * (the whole file, once); over the bound, and garbage, fail with the reason
 */
static void test_wheel_libraries(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");
	const struct rr_index_project *p;
	struct rr_index_members m = {0};
	rr_error err = RR_ERROR_INIT;
	(void)state;

	if (access("/usr/bin/gcc", X_OK) != 0)
		skip(); /* the fixture server builds the ELF members with gcc */
	assert_int_equal(rr_index_get_project(c, "rr-elf-wheel", &p, &err), RR_OK);
	assert_int_equal(rr_index_wheel_libraries(c, &p->files[0], 0, &m, &err), RR_OK);
	assert_int_equal(m.n, 2);
	for (size_t i = 0; i < m.n; i++) {
		assert_true(!strcmp(m.v[i].path, "rr_elf/_a.so") ||
			    !strcmp(m.v[i].path, "rr_elf/lib/libb.so.7"));
		assert_true(m.v[i].len > 1000 && !memcmp(m.v[i].data, "\177ELF", 4));
	}
	/* the end, the directory (1500 members: it starts before the end's 60 KiB), and the
	 * two members at once */
	assert_int_equal(m.requests, 4);
	print_message("libraries: %llu bytes fetched of a %lld-byte wheel\n", m.fetched,
		      p->files[0].size);
	assert_true(m.fetched < (unsigned long long)p->files[0].size / 2);
	rr_index_members_release(&m);
	/* bounded: over it, RR_E_LIMIT naming the sizes */
	assert_int_equal(rr_index_wheel_libraries(c, &p->files[0], 4096, &m, &err), RR_E_LIMIT);
	assert_non_null(strstr(err.msg, "over 4096 (16384)"));
	rr_error_release(&err);
	/* a wheel without libraries: none */
	assert_int_equal(rr_index_get_project(c, "rr-big-wheel", &p, &err), RR_OK);
	assert_int_equal(rr_index_wheel_libraries(c, &p->files[0], 0, &m, &err), RR_OK);
	assert_int_equal(m.n, 0);
	rr_index_members_release(&m);
	rr_index_client_free(c);

	c = client(NULL, 1, "/_fault/noranges/simple");
	assert_int_equal(rr_index_get_project(c, "rr-elf-wheel", &p, &err), RR_OK);
	assert_int_equal(rr_index_wheel_libraries(c, &p->files[0], 0, &m, &err), RR_OK);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.requests, 1);
	assert_int_equal(m.fetched, (unsigned long long)p->files[0].size);
	rr_index_members_release(&m);
	rr_index_client_free(c);

	c = client(NULL, 1, "/_fault/garbage/simple");
	assert_int_equal(rr_index_get_project(c, "rr-elf-wheel", &p, &err), RR_OK);
	assert_int_equal(rr_index_wheel_libraries(c, &p->files[0], 0, &m, &err), RR_E_ARCHIVE);
	assert_non_null(strstr(err.msg, "not a zip file"));
	rr_error_release(&err);
	rr_index_client_free(c);
}

/* the server saw Range: v this many times since the last reset (0: never) */
static long range_seen(const char *v)
{
	long n = rr_test_index_stat(base, v);

	/* a value it never saw is absent from its stats: that they came is checked */
	assert_true(rr_test_index_stat(base, "ranges") >= 0);
	return n < 0 ? 0 : n;
}

/*
 * a platform wheel's start is asked beside its end when no wheel of its project was
 * read yet: where its dist-info comes first (older maturin and auditwheel builds),
 * METADATA is in that answer, not two round trips later. One guess per project, none
 * for a pure wheel, and a server that ignores Range cuts the guess off
 */
static void test_range_guess(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");
	const struct rr_index_project *p;
	const struct rr_index_file *fs[2];
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	(void)state;

	/* the dist-info first: the guess brings the member, which is not asked alone (the
	 * old way: the end, a longer end with the directory, then the member) */
	rr_test_index_reset(base);
	assert_int_equal(rr_index_get_project(c, "rr-platfirst", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 2);
	assert_false(p->files[0].has_metadata);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-platfirst\nVersion: 1.0.0\n"));
	/* the end's requests may still be out: the server counts them when it answers */
	rr_index_wait_all(c);
	assert_int_equal(range_seen("bytes=0-32767"), 1);
	assert_int_equal(rr_test_index_stat(base, "starts"), 1);
	rr_index_client_stats(c, &st);
	assert_int_equal(st.whole_files, 0);
	/* the next wheel of the project, taught by the first: its start alone, no guess */
	rr_test_index_reset(base);
	assert_int_equal(rr_index_get_metadata(c, &p->files[1], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Version: 2.0.0\n"));
	rr_index_wait_all(c);
	assert_int_equal(rr_test_index_stat(base, "ranges"), 1);
	assert_int_equal(range_seen("bytes=0-32767"), 0);
	rr_index_client_free(c);

	/* two wheels of the project at once: one guess */
	c = client(NULL, 1, "/simple");
	rr_test_index_reset(base);
	assert_int_equal(rr_index_get_project(c, "rr-platfirst", &p, &err), RR_OK);
	fs[0] = &p->files[0];
	fs[1] = &p->files[1];
	assert_int_equal(rr_index_fetch_metadata(c, fs, 2, &err), RR_OK);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(rr_index_get_metadata(c, fs[i], &txt, &len, &err), RR_OK);
		assert_non_null(strstr(txt, i ? "Version: 2.0.0\n" : "Version: 1.0.0\n"));
	}
	rr_index_wait_all(c);
	assert_int_equal(range_seen("bytes=0-32767"), 1);
	/* a pure wheel (pdm-backend's, the dist-info first too): no guess */
	assert_int_equal(rr_index_get_project(c, "rr-infofirst", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-infofirst\n"));
	rr_index_wait_all(c);
	assert_int_equal(range_seen("bytes=0-32767"), 1);
	/* the dist-info last: the guess is asked, and the end's steps bring METADATA */
	assert_int_equal(rr_index_get_project(c, "rr-platlast", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-platlast\n"));
	rr_index_wait_all(c);
	assert_int_equal(range_seen("bytes=0-32767"), 2);
	rr_index_client_stats(c, &st);
	assert_int_equal(st.whole_files, 0);
	rr_index_client_free(c);

	/* a server that ignores Range: the guess is cut off at its size (a failure that
	 * stays its own), the end's request brings the whole file */
	c = client(NULL, 1, "/_fault/noranges/simple");
	assert_int_equal(rr_index_get_project(c, "rr-platfirst", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-platfirst\nVersion: 1.0.0\n"));
	rr_index_client_stats(c, &st);
	assert_int_equal(st.whole_files, 1);
	assert_int_equal(st.range_requests, 0);
	assert_int_equal(rr_index_get_metadata(c, &p->files[1], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Version: 2.0.0\n"));
	rr_index_client_free(c);
}

/* an sdist's PKG-INFO: the scan stops at it, and does not dig forever for it */
static void test_sdist_scan_bound(void **state)
{
	struct rr_index_client *c;
	const struct rr_index_project *p;
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	(void)state;

	/* PKG-INFO comes first: read out of the file's first 60 KiB, not the whole file */
	read_metadata("/_fault/zeros/64/simple", "idna", "Requires-Dist: idna\n", &st);
	assert_int_equal(st.range_requests, 1);
	assert_int_equal(st.whole_files, 0);
	assert_true(st.bytes < 64 * 1024); /* the page and the head */

	/* PKG-INFO after 150 KiB that do not compress (Pillow 9.5.0's sdist has 185 KB of
	 * CHANGES before it): the head grows to 256 KiB and finds it, no whole file */
	read_metadata("/_fault/noisefirst/150/simple", "idna", "Requires-Dist: idna\n", &st);
	assert_int_equal(st.range_requests, 2);
	assert_int_equal(st.whole_files, 0);
	assert_true(st.bytes < 300 * 1024);

	/* 300 MiB of zeros before PKG-INFO: past the scan bound, so unknown */
	c = client(NULL, 1, "/_fault/zerosfirst/300/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err),
			 RR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "256 MiB"));
	assert_non_null(strstr(err.msg, "without a build"));
	rr_error_release(&err);
	/* not in the heads of 60 and 256 KiB: the third, up to 1 MiB, holds the rest of
	 * the file (~300 KiB compressed) */
	rr_index_client_stats(c, &st);
	assert_int_equal(st.range_requests, 3);
	assert_int_equal(st.whole_files, 0);
	rr_index_client_free(c);

	/* PKG-INFO last, after 5 MB (builders other than setuptools write it last): past
	 * the heads of 256 KiB and 1 MiB (where a static pyproject.toml may be: see
	 * test_sdist_pyproject), chunks to 4 MiB and to the end; each byte comes once */
	read_metadata("/_fault/noisefirst/5000/simple", "idna", "Requires-Dist: idna\n", &st);
	assert_int_equal(st.range_requests, 5);
	assert_int_equal(st.whole_files, 1);
	assert_true(st.bytes < 5200 * 1024);
}

/*
 * an sdist whose PKG-INFO cannot be trusted (2.1, and last in the file, as meson-python
 * writes it) but whose pyproject.toml has a static [project]: the dependencies are
 * read from there (PEP 621), within the first MiB, and are known. Dynamic there: unknown,
 * after the whole file
 */
static void test_sdist_pyproject(void **state)
{
	struct rr_index_client *c;
	const struct rr_index_project *p;
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	struct rr_metadata m = RR_METADATA_INIT;
	const char *txt;
	size_t len;
	(void)state;

	/* pyproject.toml ~600 KiB in: heads of 60 KiB, 256 KiB and 1 MiB, never the rest
	 * (4.6 MiB) */
	read_metadata("/_fault/pyprojectlast/600/simple", "idna",
		      "Metadata-Version: 2.2\nName: idna\nVersion: 0.1\n", &st);
	assert_int_equal(st.range_requests, 3);
	assert_int_equal(st.whole_files, 0);
	assert_true(st.bytes < 1100 * 1024);

	c = client(NULL, 1, "/_fault/pyprojectlast/600/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_int_equal(rr_metadata_parse(txt, len, "t", &m, &err), RR_OK);
	assert_string_equal(m.requires_python, ">=3.8");
	assert_int_equal(m.nrequires_dist, 2);
	assert_string_equal(m.requires_dist[0], "idna>=2");
	/* the extra's name normalised (PEP 685), its marker kept beside it */
	assert_string_equal(m.requires_dist[1],
			    "PySocks>=1.5; (python_version >= \"3\") and extra == \"socks\"");
	assert_non_null(strstr(txt, "Provides-Extra: socks\n"));
	rr_metadata_release(&m);
	rr_index_client_free(c);

	/* ~2 MiB in (6 MiB in all): past the heads, one chunk to 4 MiB */
	read_metadata("/_fault/pyprojectlast/2000/simple", "idna", "Requires-Dist: idna>=2\n", &st);
	assert_int_equal(st.range_requests, 4);
	assert_int_equal(st.whole_files, 0);
	assert_true(st.bytes > 4000 * 1024 && st.bytes < 4200 * 1024);

	/* a pyproject.toml that names another project says nothing of this one */
	c = client(NULL, 1, "/_fault/pyprojectother/600/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err),
			 RR_E_UNSUPPORTED);
	rr_error_release(&err);
	rr_index_client_free(c);

	/* the same with the dependencies dynamic: PKG-INFO 2.1 decides (whole file) */
	c = client(NULL, 1, "/_fault/pyprojectdyn/600/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err),
			 RR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "predates Metadata-Version 2.2"));
	rr_error_release(&err);
	rr_index_client_stats(c, &st);
	assert_int_equal(st.whole_files, 1);
	rr_index_client_free(c);
}

/* a .zip sdist is read like a wheel: its directory, then only <top>/PKG-INFO */
static void test_zip_sdist_ranges(void **state)
{
	struct rr_index_stats st;
	long long size;
	(void)state;

	/* its PKG-INFO (the name there), by the tail (directory inside), then the member
	 * at the file's start */
	size = read_metadata("/simple", "rr-zip-sdist", "Name: rr-zip-sdist\nVersion: 1.0.0\n", &st);
	assert_int_equal(st.range_requests, 2);
	assert_int_equal(st.whole_files, 0);
	assert_true(size > 256 * 1024);
	assert_true(st.bytes < (unsigned long long)size / 2);

	/* a server that ignores Range: the whole .zip, PKG-INFO read from it */
	read_metadata("/_fault/noranges/simple", "rr-zip-sdist", "Requires-Dist: idna>=3\n", &st);
	assert_int_equal(st.range_requests, 0);
	assert_int_equal(st.whole_files, 1);
}

/* a page over the cap is refused with a message naming it */
static void test_page_cap(void **state)
{
	struct rr_index_opts o = {.no_cache = true, .max_page_bytes = 100000};
	struct rr_index_client *c = client_opts(&o, "/_fault/many/2000/simple");
	const struct rr_index_project *p;
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	char dir[512];
	(void)state;

	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_E_LIMIT);
	assert_non_null(strstr(err.msg, "project page is larger than"));
	rr_error_release(&err);
	rr_index_client_free(c);
	o.max_page_bytes = 0;
	/* ~760 KB: within the memory large pages may hold (the default), kept in memory;
	 * past it (500000 bytes), written to a temporary file as it came and parsed from a
	 * mapping */
	for (int spill = 0; spill < 2; spill++) {
		o.page_memory = spill ? 500000 : 0;
		c = client_opts(&o, "/_fault/many/2000/simple");
		assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
		assert_int_equal(p->nfiles, 2001);
		rr_index_client_stats(c, &st);
		assert_int_equal(st.pages_spilled, spill);
		rr_index_client_free(c);
	}
	/* with a cache: what the parse of the mapped page found is stored, and loads */
	snprintf(dir, sizeof(dir), "%s/spill", cachedir);
	for (int run = 0; run < 2; run++) {
		struct rr_index_opts oc = {.cache_dir = dir, .page_memory = 500000};
		c = client_opts(&oc, "/_fault/many/2000/simple");
		assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
		assert_int_equal(p->nfiles, 2001);
		assert_string_equal(p->files[2000].filename, p->files[2000].url +
								   strlen(p->files[2000].url) -
								   strlen(p->files[2000].filename));
		rr_index_client_stats(c, &st);
		assert_int_equal(st.pages_spilled, run == 0 ? 1 : 0);
		assert_int_equal(st.requests, run == 0 ? 1 : 0);
		rr_index_client_free(c);
	}
}

/* a failing URL is asked once per run, retries included, not once per caller */
static void test_failure_cache(void **state)
{
	struct rr_index_opts o = {.no_cache = true, .retries = 2};
	struct rr_index_client *c = client_opts(&o, "/_fault/always5xx/simple");
	const struct rr_index_project *p;
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	const char *keys[] = {"requests"};
	(void)state;

	/* the prefetch pattern: a batch fails, then the resolver asks for it */
	assert_int_equal(rr_index_fetch_projects(c, keys, 1, &err), RR_E_HTTP);
	rr_error_release(&err);
	/* the page and the JSON API beside it, 3 attempts each */
	assert_int_equal(rr_index_client_requests(c), 6);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rr_index_get_project(c, "requests", &p, &err), RR_E_HTTP);
		assert_non_null(strstr(err.msg, "HTTP 503"));
		rr_error_release(&err);
	}
	rr_index_client_stats(c, &st);
	assert_int_equal(st.requests, 6);
	assert_int_equal(st.failures_reused, 3);
	rr_index_client_free(c);
}

/* one deadline bounds every transfer and retry of the client */
static void test_deadline(void **state)
{
	struct rr_index_opts o = {.no_cache = true, .retries = 3};
	struct rr_index_client *c;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *keys[] = {"requests", "idna", "numpy"};
	double t0 = now_s();
	size_t before;
	(void)state;

	o.deadline_ms = rr_index_now_ms() + 1500;
	c = client_opts(&o, "/_fault/hang/simple");
	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_E_NETWORK);
	assert_non_null(strstr(err.msg, "--timeout"));
	rr_error_release(&err);
	print_message("a hanging server, 1.5 s deadline: %.2f s\n", now_s() - t0);
	/* the per-request timeout (30 s) and 3 retries would make it minutes */
	assert_true(now_s() - t0 < 15);
	/* past the deadline nothing new starts */
	before = rr_index_client_requests(c);
	assert_int_equal(rr_index_get_project(c, "pillow", &p, &err), RR_E_NETWORK);
	assert_non_null(strstr(err.msg, "--timeout"));
	rr_error_release(&err);
	assert_int_equal(rr_index_client_requests(c), before);
	rr_index_client_free(c);
}

/* a .metadata whose hash does not match is never stored */
static void test_bad_hash_not_cached(void **state)
{
	char dir[512];
	struct rr_index_opts o = {0};
	struct rr_index_client *c;
	const struct rr_index_project *p;
	struct rr_cache_entry ce = {.max_age = -1, .body = RR_STRBUF_INIT};
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	RR_AUTOFREE char *murl = NULL;
	(void)state;

	snprintf(dir, sizeof(dir), "%s/badhash", cachedir);
	o.cache_dir = dir;
	c = client_opts(&o, "/_fault/corrupt/simple");
	assert_int_equal(rr_index_get_project(c, "packaging", &p, &err), RR_OK);
	assert_true(p->files[0].has_metadata);
	murl = rr_xasprintf("%s.metadata", p->files[0].url);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_E_DATA);
	assert_non_null(strstr(err.msg, "sha256 mismatch"));
	assert_non_null(strstr(err.msg, "--refresh"));
	rr_error_release(&err);
	assert_int_equal(rr_cache_load(dir, "file", murl, &ce, NULL), RR_E_NOTFOUND);
	rr_cache_entry_release(&ce);
	rr_index_client_free(c);
}

/* credentials on a page's own links never reach a cache entry */
static void test_link_credentials_not_cached(void **state)
{
	char dir[512];
	char cmd[700];
	struct rr_index_opts o = {0};
	struct rr_index_client *c;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	const char *keys[] = {"idna", "rr-no-metadata", "rr-static-sdist"};
	(void)state;

	snprintf(dir, sizeof(dir), "%s/creds", cachedir);
	o.cache_dir = dir;
	c = client_opts(&o, "/_fault/credlinks/simple");
	for (size_t i = 0; i < RR_ARRAY_LEN(keys); i++) {
		assert_int_equal(rr_index_get_project(c, keys[i], &p, &err), RR_OK);
		assert_non_null(strstr(p->files[0].url, "alice:s3cretpw@"));
		assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	}
	rr_index_client_free(c);
	/* the pages themselves hold the links (they are the server's bodies), so look
	 * at the entries' header blocks only: everything before the first blank line */
	snprintf(cmd, sizeof(cmd),
		 "for f in $(find '%s' -type f); do sed '/^$/q' \"$f\"; done | grep -c s3cretpw",
		 dir);
	assert_int_not_equal(system(cmd), 0); /* grep finds nothing: exit 1 */
	snprintf(cmd, sizeof(cmd),
		 "for f in $(find '%s' -type f); do sed '/^$/q' \"$f\"; done | grep -q '^url: http'",
		 dir);
	assert_int_equal(system(cmd), 0);
}

/* a mirror without cache headers: pages stay fresh for the heuristic window */
static void test_noheaders_cache(void **state)
{
	char dir[512];
	struct rr_index_opts o = {0};
	struct rr_index_client *c;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	const char *keys[] = {"idna", "requests", "rr-private-only-nowhere"};
	(void)state;

	snprintf(dir, sizeof(dir), "%s/noheaders", cachedir);
	o.cache_dir = dir;
	c = client_opts(&o, "/_fault/noheaders/simple");
	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_OK);
	assert_int_equal(rr_index_get_project(c, "requests", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	rr_index_client_free(c);

	/* warm, within the window: not one request (pages, the 404, the .metadata) */
	rr_test_index_reset(base);
	c = client_opts(&o, "/_fault/noheaders/simple");
	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_OK);
	assert_int_equal(rr_index_get_project(c, "requests", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_int_equal(rr_index_client_requests(c), 0);
	assert_int_equal(rr_test_index_requests(base), 0);
	rr_index_client_free(c);

	/* --refresh: the pages again (no validators: whole; the 404 with its JSON API) */
	o.refresh = true;
	c = client_opts(&o, "/_fault/noheaders/simple");
	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_OK);
	assert_int_equal(rr_index_client_requests(c), 4);
	rr_index_client_free(c);
	o.refresh = false;

	/* the window is an option: negative means revalidate every run */
	o.heuristic_ttl_s = -1;
	c = client_opts(&o, "/_fault/noheaders/simple");
	assert_int_equal(rr_index_fetch_projects(c, keys, 3, &err), RR_OK);
	assert_int_equal(rr_index_client_requests(c), 4);
	rr_index_client_free(c);
}

/* a provider over c on the ROCm 7.2 fixture venv (loaded into *v) */
static struct rr_index_provider *fixture_provider(struct rr_index_client *c, struct rr_venv **v)
{
	struct rr_venv_opts vo = {0};
	RR_AUTOFREE char *vpath = rr_xasprintf("%s/fixtures/venvs/rocm72", getenv("RR_SRCDIR"));

	assert_int_equal(rr_venv_load(vpath, &vo, v, NULL), RR_OK);
	return rr_index_provider_new(c, *v, NULL, NULL);
}

/*
 * the crawl does not go ring by ring: while one root's page is slow to come, the
 * other root's metadata and the pages of what it requires are asked for already
 * (a ring-by-ring crawl asked for them only once every page of the ring was in)
 */
static void test_crawl_pipelined(void **state)
{
	static const char *const lines[] = {"six", "requests"};
	struct rr_requirement r[2];
	const struct rr_requirement *rp[2];
	struct rr_index_client *c = client(NULL, 1, "/_fault/slow/1500/six/simple");
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip;
	(void)state;

	for (size_t i = 0; i < 2; i++) {
		r[i] = (struct rr_requirement)RR_REQUIREMENT_INIT;
		assert_int_equal(rr_requirement_parse(lines[i], &r[i], NULL), RR_OK);
		rp[i] = &r[i];
	}
	rr_test_index_reset(base);
	ip = fixture_provider(c, &v);
	rr_index_provider_prefetch_roots(ip, rp, 2);
	rr_index_wait_all(c);
	/* requests' METADATA, and the page of a project it requires, before six's page */
	assert_int_equal(rr_test_index_order(base, "in:requests-2.32.5", "out:/simple/six/"), 1);
	assert_int_equal(rr_test_index_order(base, "in:/simple/idna/", "out:/simple/six/"), 1);
	/* and six was asked for all the same (its metadata is the venv's: installed) */
	assert_int_equal(rr_test_index_seen(base, "/simple/six/"), 1);
	rr_index_provider_free(ip);
	for (size_t i = 0; i < 2; i++)
		rr_requirement_release(&r[i]);
	rr_venv_free(v);
	rr_index_client_free(c);
}

static const char *held_torch(void *ctx, const char *key)
{
	(void)ctx;
	return strcmp(key, "torch") == 0 ? "2.9.1+rocm7.2.0.lw.git7e1940d4" : NULL;
}

/* the crawl from one root line over the ROCm 7.2 venv, torch held at its installed build
 * and its page wanted beside the crawl, with the edges given (rr_index_provider_edges;
 * NULL, 0: none here, the fixture index is no PyPI and nothing was learned) */
static void crawl_held_edges(struct rr_index_client *c, const char *line, const char *edges,
			     long long budget)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	const struct rr_requirement *rp = &r;
	static const char *const stack[] = {"torch"};
	struct rr_venv_opts vo = {0};
	RR_AUTOFREE char *vpath = rr_xasprintf("%s/fixtures/venvs/rocm72", getenv("RR_SRCDIR"));
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip;

	assert_int_equal(rr_requirement_parse(line, &r, NULL), RR_OK);
	assert_int_equal(rr_venv_load(vpath, &vo, &v, NULL), RR_OK);
	rr_test_index_reset(base);
	ip = rr_index_provider_new(c, v, held_torch, NULL);
	rr_index_provider_edges(ip, edges, budget);
	rr_index_provider_pages(ip, stack, 1);
	rr_index_provider_prefetch_roots(ip, &rp, 1);
	rr_index_wait_all(c);
	rr_index_provider_free(ip);
	rr_requirement_release(&r);
	rr_venv_free(v);
}

static void crawl_held(struct rr_index_client *c, const char *line)
{
	crawl_held_edges(c, line, NULL, 0);
}

/*
 * the input as written is resolved too, without the stack held: where a line excludes
 * the installed torch (xformers 0.0.28.post3 requires torch==2.5.1), an installer takes
 * torch 2.5.1 from the index, and with it a dozen CUDA projects. The crawl follows that
 * torch and those projects (pages and metadata, the pages all at once while the first is
 * slow) while the plan's resolution runs; before, it skipped them, and the resolution of
 * the input as written fetched them one after the other at the end. Where the installed
 * build satisfies every line (xformers 0.0.31: torch>=2.7), no torch is fetched
 */
static void test_crawl_held(void **state)
{
	struct rr_index_client *c = client(NULL, 1,
					   "/_fault/slow/800/nvidia-cuda-nvrtc-cu12/simple");
	(void)state;

	crawl_held(c, "xformers==0.0.28.post3");
	assert_int_equal(rr_test_index_seen(base, "torch-2.5.1-"), 1);
	assert_int_equal(rr_test_index_seen(base, "/simple/nvidia-cuda-nvrtc-cu12/"), 1);
	assert_int_equal(rr_test_index_order(base, "in:/simple/nvidia-nvtx-cu12/",
					     "out:/simple/nvidia-cuda-nvrtc-cu12/"), 1);
	assert_int_equal(rr_test_index_seen(base, "nvidia_nvtx_cu12-12.4.127"), 1);
	assert_int_equal(rr_test_index_seen(base, "nvidia_cuda_nvrtc_cu12-12.4.127"), 1);
	/* the triton torch 2.5.1 pins (not held here) is followed like any project */
	assert_int_equal(rr_test_index_seen(base, "triton-3.1.0-"), 1);

	rr_index_client_free(c);

	/* the plan's resolution fixes torch: no xformers below 0.0.31 can be taken (each
	 * pins another torch), and the crawl walks them all at once */
	c = client(NULL, 1, "/simple");
	crawl_held(c, "xformers<0.0.31");
	assert_int_equal(rr_test_index_seen(base, "xformers-0.0.29.post3-"), 1);
	assert_int_equal(rr_test_index_seen(base, "xformers-0.0.28.post1-"), 1);
	rr_index_client_free(c);

	c = client(NULL, 1, "/simple");
	crawl_held(c, "xformers==0.0.31");
	assert_int_equal(rr_test_index_seen(base, "/simple/xformers/"), 1);
	assert_int_equal(rr_test_index_seen(base, "xformers-0.0.31-"), 1);
	assert_int_equal(rr_test_index_seen(base, "torch-"), 0);
	assert_int_equal(rr_test_index_seen(base, "/simple/nvidia-"), 0);
	rr_index_client_free(c);
}

/* how many answered request paths (since the last reset) each sub must be in */
struct seen {
	const char *sub;
	long n;
};

static void expect_seen(const struct seen *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (rr_test_index_seen(base, e[i].sub) != e[i].n)
			fail_msg("'%s' seen %ld times, not %ld", e[i].sub,
				 rr_test_index_seen(base, e[i].sub), e[i].n);
	}
}

/* the crawl alone, from one root line over the ROCm 7.2 venv, until it rests (the
 * index's log tells what it asked for) */
static void crawl_line(const char *line)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	const struct rr_requirement *rp = &r;
	struct rr_index_client *c = client(NULL, 1, "/simple");
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip = fixture_provider(c, &v);

	assert_int_equal(rr_requirement_parse(line, &r, NULL), RR_OK);
	rr_test_index_reset(base);
	rr_index_provider_prefetch_roots(ip, &rp, 1);
	rr_index_wait_all(c);
	rr_index_provider_free(ip);
	rr_requirement_release(&r);
	rr_venv_free(v);
	rr_index_client_free(c);
}

/*
 * line resolved through the fixture index behind path (a fault, or "/simple"), with
 * the crawl: the version of key it picks must be want (the index's log tells the rest)
 */
static void walk_resolve(const char *path, const char *line, const char *key, const char *want)
{
	struct rr_requirement req = RR_REQUIREMENT_INIT;
	const struct rr_requirement *rp = &req;
	struct rr_root_requirement root = {&req, "test:1"};
	struct rr_resolve_request rq = {.reqs = &root, .nreqs = 1};
	struct rr_index_client *c = client(NULL, 1, path);
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip;
	struct rr_provider prov;
	struct rr_solution *sol = NULL;
	const struct rr_solved *got;

	assert_int_equal(rr_requirement_parse(line, &req, NULL), RR_OK);
	rr_test_index_reset(base);
	ip = fixture_provider(c, &v);
	rr_index_provider_get(ip, &prov);
	rr_index_provider_prefetch_roots(ip, &rp, 1);
	assert_int_equal(rr_resolve(&prov, &rq, &sol, NULL), RR_OK);
	assert_true(rr_solution_ok(sol));
	assert_non_null(got = rr_solution_find(sol, key));
	assert_string_equal(got->version, want);
	rr_solution_free(sol);
	rr_index_provider_free(ip);
	rr_requirement_release(&req);
	rr_venv_free(v);
	rr_index_client_free(c);
}

/*
 * a walk down a project's releases: once the resolver misses a release below the
 * one it asked about before, the metadata of the releases it would try next is
 * asked for at once (3.0 and 1.0 while 5.0 is still on its way), and only of
 * those its decisions allow (never 4.0 or 2.0, which the root excludes)
 */
static void test_walk_ahead(void **state)
{
	(void)state;
	walk_resolve("/_fault/slow/1000/rr_walk-5.0/simple", "rr-walk<7,!=4.0,!=2.0", "rr-walk",
		     "1.0");
	assert_int_equal(rr_test_index_order(base, "in:rr_walk-1.0-", "out:rr_walk-5.0-"), 1);
	assert_int_equal(rr_test_index_order(base, "in:rr_walk-3.0-", "out:rr_walk-5.0-"), 1);
	assert_int_equal(rr_test_index_seen(base, "rr_walk-4.0-"), 0);
	assert_int_equal(rr_test_index_seen(base, "rr_walk-2.0-"), 0);
	assert_int_equal(rr_test_index_seen(base, "rr_walk-7.0-"), 0);
}

/*
 * a long walk (40 releases, only 1.0 fits): each miss doubles the window fetched ahead
 * (8, then 16), so the walk from 40.0 costs three misses (39.0, 30.0, 13.0),
 * not one per 9 releases. 13.0 is slow: with the window grown, 12.0 to 1.0 are asked
 * for with it; a fixed window of 8 asked for 1.0 only after 13.0 came and failed
 */
static void test_walk_grows(void **state)
{
	(void)state;
	walk_resolve("/_fault/slow/1000/rr_longwalk-13.0/simple", "rr-longwalk", "rr-longwalk",
		     "1.0");
	assert_int_equal(rr_test_index_order(base, "in:rr_longwalk-1.0-", "out:rr_longwalk-13.0-"),
			 1);
	assert_int_equal(rr_test_index_order(base, "in:rr_longwalk-12.0-", "out:rr_longwalk-13.0-"),
			 1);
}

/*
 * the crawl's likely release of rr-legacywalk (12.0, a legacy sdist) has dependencies
 * only a build would tell; the resolver then tries the releases below it before it
 * settles (up to 8), one PKG-INFO each. The crawl asks for 11.0 to 4.0 at once, and no
 * further; before, it asked for 12.0 alone and the resolver walked the rest at the end
 */
static void test_crawl_unknown(void **state)
{
	static const struct seen want[] = {
	    {"rr_legacywalk-12.0.", 1},
	    {"rr_legacywalk-11.0.", 1},
	    {"rr_legacywalk-4.0.", 1},
	    {"rr_legacywalk-3.0.", 0},
	};
	(void)state;

	crawl_line("rr-legacywalk");
	expect_seen(want, RR_ARRAY_LEN(want));
}

/* a venv in dir (a mkdtemp template) holding rr-awbase 1.0, which requires rr-awsix */
static struct rr_venv *awbase_venv(char *dir)
{
	static const char *const files[][2] = {
	    {"pyvenv.cfg", "version = 3.12.3\n"},
	    {"lib/python3.12/site-packages/rr_awbase-1.0.dist-info/METADATA",
	     "Metadata-Version: 2.1\nName: rr-awbase\nVersion: 1.0\nRequires-Dist: rr-awsix\n"},
	};
	struct rr_venv_opts vo = {0};
	struct rr_venv *v = NULL;
	char cmd[256];

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/lib/python3.12/site-packages/rr_awbase-1.0.dist-info'", dir);
	assert_int_equal(system(cmd), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		RR_AUTOFREE char *path = rr_xasprintf("%s/%s", dir, files[i][0]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(files[i][1], f);
		fclose(f);
	}
	assert_int_equal(rr_venv_load(dir, &vo, &v, NULL), RR_OK);
	assert_non_null(rr_venv_lookup(v, "rr-awbase"));
	return v;
}

/* rr-awtop resolved on prov, newest first or (as_written) installed first: the
 * versions of rr-awx and rr-awbase it takes must be x and b */
static void aw_resolve(const struct rr_provider *prov, bool as_written, const char *x,
		       const char *b)
{
	struct rr_requirement req = RR_REQUIREMENT_INIT;
	struct rr_root_requirement root = {&req, "test:1"};
	struct rr_resolve_request rq = {.reqs = &root, .nreqs = 1};
	struct rr_solution *sol = NULL;

	assert_int_equal(rr_requirement_parse("rr-awtop", &req, NULL), RR_OK);
	rq.flags = as_written ? 0 : RR_RESOLVE_NEWEST;
	assert_int_equal(rr_resolve(prov, &rq, &sol, NULL), RR_OK);
	assert_true(rr_solution_ok(sol));
	assert_string_equal(rr_solution_find(sol, "rr-awx")->version, x);
	assert_string_equal(rr_solution_find(sol, "rr-awbase")->version, b);
	rr_solution_free(sol);
	rr_requirement_release(&req);
}

/*
 * the input as written is resolved after the plan, and prefers the venv's rr-awbase
 * 1.0, which rr-awx 7.0 to 12.0 exclude. The crawl walks down rr-awx for it ahead
 * (11.0 to 4.0 at once, nothing below: the plan's resolution met rr-awbase first),
 * asks for what the release that fits pins (rr-awpin 2.0, not the newest 3.0) and for
 * the page of what the installed rr-awbase requires (rr-awsix). After the plan's
 * resolution, that one then asks for nothing. Before, it walked rr-awx and fetched
 * rr-awpin and rr-awsix itself, in a row
 */
static void test_crawl_as_written(void **state)
{
	char dir[] = "/tmp/rr-aw-venv-XXXXXX";
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	const struct rr_requirement *rp = &r;
	struct rr_index_client *c = client(NULL, 1, "/simple");
	struct rr_venv *v = awbase_venv(dir);
	struct rr_index_provider *ip = rr_index_provider_new(c, v, NULL, NULL);
	struct rr_provider prov;
	char cmd[128];
	(void)state;

	assert_int_equal(rr_requirement_parse("rr-awtop", &r, NULL), RR_OK);
	rr_index_provider_get(ip, &prov);
	rr_test_index_reset(base);
	rr_index_provider_prefetch_roots(ip, &rp, 1);
	/* the plan's resolution: it meets rr-awbase before rr-awx */
	aw_resolve(&prov, false, "12.0", "2.0");
	rr_index_wait_all(c);
	{
		static const struct seen want[] = {
		    {"rr_awx-11.0-", 1},      {"rr_awx-6.0-", 1},   {"rr_awx-4.0-", 1},
		    {"rr_awx-3.0-", 0},       {"rr_awpin-2.0-", 1}, {"rr_awpin-3.0-", 0},
		    {"/simple/rr-awsix/", 1},
		};
		expect_seen(want, RR_ARRAY_LEN(want));
	}
	rr_test_index_reset(base);
	aw_resolve(&prov, true, "6.0", "1.0");
	assert_int_equal(rr_test_index_requests(base), 0);
	rr_index_provider_free(ip);
	rr_requirement_release(&r);
	rr_venv_free(v);
	rr_index_client_free(c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * the crawl over the index at path for two root lines, then the resolution: the files
 * want names were asked for (or not) before the resolver asked, the resolution picks
 * pick[0] at pick[1] (and pick[2] at pick[3] when given) and asks for nothing more
 */
static void crawl_then_resolve(const char *path, const char *const lines[2],
			       const struct seen *want, size_t nwant, const char *const pick[4])
{
	struct rr_requirement r[2];
	const struct rr_requirement *rp[2];
	struct rr_root_requirement roots[2];
	struct rr_resolve_request rq = {.reqs = roots, .nreqs = 2, .flags = RR_RESOLVE_NEWEST};
	struct rr_index_client *c = client(NULL, 1, path);
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip = fixture_provider(c, &v);
	struct rr_provider prov;
	struct rr_solution *sol = NULL;

	for (size_t i = 0; i < 2; i++) {
		r[i] = (struct rr_requirement)RR_REQUIREMENT_INIT;
		assert_int_equal(rr_requirement_parse(lines[i], &r[i], NULL), RR_OK);
		rp[i] = &r[i];
		roots[i] = (struct rr_root_requirement){&r[i], "test:1"};
	}
	rr_index_provider_get(ip, &prov);
	rr_test_index_reset(base);
	rr_index_provider_prefetch_roots(ip, rp, 2);
	rr_index_wait_all(c);
	expect_seen(want, nwant);
	rr_test_index_reset(base);
	assert_int_equal(rr_resolve(&prov, &rq, &sol, NULL), RR_OK);
	assert_true(rr_solution_ok(sol));
	for (size_t i = 0; i < 4 && pick[i]; i += 2)
		assert_string_equal(rr_solution_find(sol, pick[i])->version, pick[i + 1]);
	assert_int_equal(rr_test_index_requests(base), 0);
	rr_solution_free(sol);
	rr_index_provider_free(ip);
	for (size_t i = 0; i < 2; i++)
		rr_requirement_release(&r[i]);
	rr_venv_free(v);
	rr_index_client_free(c);
}

/*
 * walks the crawl knows for certain, before the resolver gets there: with rr-rootcap<2
 * asked for, no rr-rootwalk from 31.0 to 40.0 can be taken (each needs rr-rootcap>=2);
 * the crawl asks for 39.0 down to 30.0, in windows of 8 and 16 as the resolver's walk
 * grows them (so down to 16.0, not to 1.0), and the resolution then asks for nothing
 * more. Before, the resolver walked them, a window per round trip
 */
static void test_walk_certain(void **state)
{
	static const char *const lines[] = {"rr-rootcap<2", "rr-rootwalk"};
	static const struct seen want[] = {
	    {"rr_rootwalk-39.0-", 1}, {"rr_rootwalk-31.0-", 1}, {"rr_rootwalk-30.0-", 1},
	    {"rr_rootwalk-16.0-", 1}, {"rr_rootwalk-15.0-", 0}, {"rr_rootwalk-1.0-", 0},
	};
	static const char *const pick[4] = {"rr-rootwalk", "30.0"};
	(void)state;

	crawl_then_resolve("/simple", lines, want, RR_ARRAY_LEN(want), pick);
}

/*
 * the release a walk finds pins another release of a dependency than the release it
 * walked down from: rr-fwpkg 3.0 needs rr-fwcap>=2 (which the input rules out) and
 * pins rr-fwcore 3.0, the walk's pick 2.0 pins rr-fwcore 2.0. The crawl asks for
 * rr-fwcore 2.0's METADATA, also when rr-fwcore's page comes only after the walk found
 * 2.0 (here 400 ms late). Before, it asked for the newest release every line seen
 * allows (==3.0 and ==2.0: none), or nothing while the page was out, and the resolver
 * fetched 2.0 at the end (coqui TTS: pydantic 2.14.4 pins pydantic-core 2.50.5, the
 * walk's pick 2.13.5 pins 2.46.5)
 */
static void test_walk_pin(void **state)
{
	static const char *const lines[] = {"rr-fwcap<2", "rr-fwpkg"};
	static const struct seen want[] = {{"rr_fwpkg-2.0-", 1}, {"rr_fwcore-2.0-", 1}};
	static const char *const pick[4] = {"rr-fwpkg", "2.0", "rr-fwcore", "2.0"};
	(void)state;

	crawl_then_resolve("/simple", lines, want, RR_ARRAY_LEN(want), pick);
	crawl_then_resolve("/_fault/slow/400/rr-fwcore/simple", lines, want, RR_ARRAY_LEN(want),
			   pick);
	/* rr-fwcap's page after rr-fwpkg 3.0's METADATA: the walk starts when that page
	 * lands (before, the crawl did not walk at all in that order, and the test was
	 * flaky on a loaded machine) */
	crawl_then_resolve("/_fault/slow/400/rr-fwcap/simple", lines, want, RR_ARRAY_LEN(want),
			   pick);
}

/*
 * no release of rr-pyonly admits Python 3.12 (each says <3.12): the plan's resolution
 * fails on it, and the input as written is resolved again as uv reads Requires-Python
 * (upper bounds ignored), taking rr-pyonly 1.0 and rr-pyonly-dep. The crawl follows
 * that release: rr-pyonly-dep's page comes before any resolution asks. Before, the crawl
 * stopped at rr-pyonly, and uv's resolution fetched the rest at the end (coqui TTS's
 * trainer, 0.3 s)
 */
static void test_crawl_python_upper(void **state)
{
	static const struct seen want[] = {{"rr_pyonly-1.0-", 1}, {"/simple/rr-pyonly-dep/", 1}};
	(void)state;

	crawl_line("rr-pyonly");
	expect_seen(want, RR_ARRAY_LEN(want));
}

/* rr-sdistwalk's candidates from version `from` down, highest first, into cs */
static size_t sdistwalk_from(const struct rr_candidate *all, size_t n, int from,
			     const struct rr_candidate **cs)
{
	size_t k = 0;

	for (int v = from; v >= 1; v--)
		for (size_t i = 0; i < n; i++)
			if (atoi(all[i].version_text) == v)
				cs[k++] = &all[i];
	return k;
}

/*
 * past the first 8 of a grown window, only wheels are fetched ahead (an sdist's
 * PKG-INFO costs a head, often the whole file): rr-sdistwalk 25.0 to 14.0 have no
 * wheel. The resolver's calls are made by hand: 40.0, then a miss at 35.0 (window 8:
 * 34.0 to 27.0), then a miss at 26.0 (window 16: 25.0 to 18.0 whatever they are, then of
 * 17.0 to 10.0 the wheels 13.0 to 10.0, not the sdists 17.0 to 14.0)
 */
static void test_walk_wheels(void **state)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip;
	struct rr_provider prov;
	const struct rr_candidate *all;
	const struct rr_candidate *cs[64];
	rr_error err = RR_ERROR_INIT;
	size_t n, k;
	(void)state;

	rr_test_index_reset(base);
	ip = fixture_provider(c, &v);
	rr_index_provider_get(ip, &prov);
	assert_int_equal(prov.candidates(prov.ctx, "rr-sdistwalk", &all, &n, &err), RR_OK);
	assert_int_equal(n, 40);
	k = sdistwalk_from(all, n, 40, cs);
	prov.upcoming(prov.ctx, "rr-sdistwalk", cs, 1);
	k = sdistwalk_from(all, n, 35, cs);
	prov.upcoming(prov.ctx, "rr-sdistwalk", cs, k);
	k = sdistwalk_from(all, n, 26, cs);
	prov.upcoming(prov.ctx, "rr-sdistwalk", cs, k);
	rr_index_wait_all(c);
	{
		static const struct seen want[] = {
		    {"sdistwalk-27.0-", 1},       {"sdistwalk-18.0.tar.gz", 1},
		    {"sdistwalk-13.0-", 1},       {"sdistwalk-10.0-", 1},
		    {"sdistwalk-17.0.tar.gz", 0}, {"sdistwalk-14.0.tar.gz", 0},
		    {"sdistwalk-9.0-", 0},
		};
		expect_seen(want, RR_ARRAY_LEN(want));
	}
	rr_index_provider_free(ip);
	rr_venv_free(v);
	rr_index_client_free(c);
}

/*
 * the page format is measured (RR_INDEX_PAGES_AUTO): HTML while two HEADs measure
 * the first page, then the smaller format (JSON only when it is clearly smaller);
 * the choice kept in the cache for the next run's pages
 */
static void test_pages_format(void **state)
{
	char dir[] = "/tmp/rr-pages-format-XXXXXX";
	struct rr_index_opts o = {0};
	struct rr_index_client *c;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *urls[1];
	RR_AUTOFREE char *simple = rr_xasprintf("%s/simple", base);
	RR_AUTOFREE char *bightml = rr_xasprintf("%s/_fault/bightml/simple", base);
	char cmd[128];
	(void)state;

	assert_non_null(mkdtemp(dir));
	o.cache_dir = dir;
	urls[0] = simple;
	o.index_urls = urls;
	o.nindex_urls = 1;
	rr_test_index_reset(base);
	assert_int_equal(rr_index_client_new(&o, &c, &err), RR_OK);
	/* the fixture's JSON is indented: HTML is smaller, and stays */
	assert_int_equal(rr_index_get_project(c, "requests", &p, &err), RR_OK);
	rr_index_wait_all(c);
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_true(p->nfiles > 0);
	assert_int_equal(p->files[0].size, -1); /* no PEP 700 size in HTML */
	assert_int_equal(rr_test_index_stat(base, "heads"), 2);
	assert_int_equal(rr_test_index_stat(base, "html"), 2);
	assert_int_equal(rr_test_index_stat(base, "json"), 0);
	rr_index_client_free(c);
	/* the next run knows the choice: no HEAD */
	assert_int_equal(rr_index_client_new(&o, &c, &err), RR_OK);
	assert_int_equal(rr_index_get_project(c, "six", &p, &err), RR_OK);
	assert_int_equal(rr_test_index_stat(base, "heads"), 2);
	assert_int_equal(rr_test_index_stat(base, "html"), 3);
	rr_index_client_free(c);
	/* where HTML is the larger, JSON it is once measured */
	urls[0] = bightml;
	o.no_cache = true;
	rr_test_index_reset(base);
	assert_int_equal(rr_index_client_new(&o, &c, &err), RR_OK);
	assert_int_equal(rr_index_get_project(c, "requests", &p, &err), RR_OK);
	assert_int_equal(rr_test_index_stat(base, "html"), 1);
	rr_index_wait_all(c);
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_true(p->files[0].size > 0);
	assert_int_equal(rr_test_index_stat(base, "heads"), 2);
	assert_int_equal(rr_test_index_stat(base, "json"), 1);
	rr_index_client_free(c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* the provider's crawl fetches only what can matter for the roots given */
static void test_provider_crawl(void **state)
{
	static const char *const lines[] = {"rr-big-wheel", "torchvision==0.19.1",
					    "pywin32; sys_platform == 'win32'"};
	struct rr_requirement r[3];
	const struct rr_requirement *rp[3];
	struct rr_index_client *c = client(NULL, 1, "/simple");
	struct rr_venv_opts vo = {0};
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip;
	struct rr_index_stats st;
	RR_AUTOFREE char *vpath = rr_xasprintf("%s/fixtures/venvs/rocm72", getenv("RR_SRCDIR"));
	(void)state;

	assert_int_equal(rr_venv_load(vpath, &vo, &v, NULL), RR_OK);
	for (size_t i = 0; i < 3; i++) {
		r[i] = (struct rr_requirement)RR_REQUIREMENT_INIT;
		assert_int_equal(rr_requirement_parse(lines[i], &r[i], NULL), RR_OK);
		rp[i] = &r[i];
	}
	rr_test_index_reset(base);
	ip = rr_index_provider_new(c, v, NULL, NULL);
	rr_index_provider_prefetch_roots(ip, rp, 3);
	rr_index_wait_all(c);
	/* the dependency of the big wheel, not its extra's; nothing for win32 */
	assert_int_equal(rr_test_index_seen(base, "/simple/idna/"), 1);
	assert_int_equal(rr_test_index_seen(base, "/simple/rr-static-sdist/"), 0);
	assert_int_equal(rr_test_index_seen(base, "/simple/pywin32/"), 0);
	/* the release the user's pin allows, and the torch it pins: not the newest */
	assert_int_equal(rr_test_index_seen(base, "torchvision-0.19.1-"), 1);
	assert_int_equal(rr_test_index_seen(base, "torchvision-0.24.1-"), 0);
	assert_int_equal(rr_test_index_seen(base, "torch-2.4.1-"), 1);
	assert_int_equal(rr_test_index_seen(base, "torch-2.9.1-"), 0);
	/* torch 2.4.1's triton==3.0.0 (python_version < "3.13" holds for 3.12) */
	assert_int_equal(rr_test_index_seen(base, "/simple/triton/"), 1);
	rr_index_client_stats(c, &st);
	assert_true(st.requests > 0 && st.bytes > 0);
	ip = rr_index_provider_free(ip);

	/* an extra asked for: its lines count */
	rr_requirement_release(&r[0]);
	r[0] = (struct rr_requirement)RR_REQUIREMENT_INIT;
	assert_int_equal(rr_requirement_parse("rr-big-wheel[test]", &r[0], NULL), RR_OK);
	ip = rr_index_provider_new(c, v, NULL, NULL);
	rr_index_provider_prefetch_roots(ip, rp, 1);
	rr_index_wait_all(c);
	assert_int_equal(rr_test_index_seen(base, "/simple/rr-static-sdist/"), 1);
	ip = rr_index_provider_free(ip);

	for (size_t i = 0; i < 3; i++)
		rr_requirement_release(&r[i]);
	rr_venv_free(v);
	rr_index_client_free(c);
}

/* --find-links: a directory and an HTML page join the candidates */
static void test_find_links(void **state)
{
	char dir[512];
	char page[512];
	const char *fl[2] = {dir, page};
	const char *urls[1];
	RR_AUTOFREE char *simple = rr_xasprintf("%s/simple", base);
	struct rr_index_opts o = {.no_cache = true, .find_links = fl, .nfind_links = 2};
	struct rr_index_client *c = NULL;
	const struct rr_index_project *p;
	struct rr_fetch_opts fo = {.retries = 0};
	struct rr_fetcher *f = NULL;
	struct rr_fetch r;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	bool rocm = false, plain = false;
	FILE *out;
	RR_AUTOFREE char *wpath = NULL;
	(void)state;

	/* a directory holding a wheel no index has (the private index's, copied) */
	snprintf(dir, sizeof(dir), "%s/flat", cachedir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(rr_fetcher_new(&fo, &f, NULL), RR_OK);
	memset(&r, 0, sizeof(r));
	r.url = rr_xasprintf("%s/private/files/rr_private_only-1.0.0-py3-none-any.whl", base);
	rr_fetch_run(f, &r, 1);
	assert_int_equal(r.rc, RR_OK);
	assert_int_equal(r.status, 200);
	wpath = rr_xasprintf("%s/rr_private_only-1.0.0-py3-none-any.whl", dir);
	out = fopen(wpath, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(r.body.buf, 1, r.body.len, out), r.body.len);
	fclose(out);
	free((char *)r.url);
	rr_fetch_release(&r);
	rr_fetcher_free(f);
	/* and an HTML page of links: the ROCm index's torch page */
	snprintf(page, sizeof(page), "%s/whl/rocm6.4/torch/", base);

	urls[0] = simple;
	o.index_urls = urls;
	o.nindex_urls = 1;
	assert_int_equal(rr_index_client_new(&o, &c, &err), RR_OK);
	/* no index has it: the directory makes it exist, read in place */
	assert_int_equal(rr_index_get_project(c, "rr-private-only", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 1);
	assert_string_equal(p->index_url, dir);
	assert_true(strncmp(p->files[0].url, "file:///", 8) == 0);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-private-only\n"));
	/* the index has it too: the page's files join the index's */
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_true(rr_str_endswith(p->index_url, "/simple"));
	for (size_t i = 0; i < p->nfiles; i++) {
		rocm |= strcmp(p->files[i].version, "2.9.1+rocm6.4") == 0;
		plain |= strcmp(p->files[i].version, "2.9.1") == 0;
	}
	assert_true(rocm && plain);
	/* what neither has stays missing */
	assert_int_equal(rr_index_get_project(c, "rr-nowhere-at-all", &p, &err), RR_E_NOTFOUND);
	rr_error_release(&err);
	rr_index_client_free(c);
}

/* index order is priority (uv's rule): the lead lists --extra-index-url / --index
 * entries before the default index; an earlier index's answer is final */
static void test_index_priority(void **state)
{
	struct rr_index_client *c = client(NULL, 2, "/private/simple", "/simple");
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	/* the extra (private) index first: its torch is the only torch */
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_true(rr_str_endswith(p->index_url, "/private/simple"));
	for (size_t i = 0; i < p->nfiles; i++)
		assert_string_equal(p->files[i].version, "99.0.0");
	/* a 404 there: the next index is asked */
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_OK);
	assert_true(rr_str_endswith(p->index_url, "/simple"));
	rr_index_client_free(c);

	/* an earlier index that fails (not a 404) is not skipped over */
	c = client(NULL, 2, "/_fault/always5xx/simple", "/simple");
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_E_HTTP);
	rr_error_release(&err);
	rr_index_client_free(c);
}

/* the files of torch's page (fixture: cp311 and cp312 wheels of each release) a
 * client for target keeps; *nforeign: how many it left out; *hits: answers from the
 * cache (may be NULL) */
static size_t torch_files_hits(const struct rr_target *t, const char *dir, size_t *ncp311,
			       size_t *nforeign, size_t *hits)
{
	struct rr_index_opts o = {.cache_dir = dir, .no_cache = dir == NULL, .target = t};
	struct rr_index_client *c = client_opts(&o, "/simple");
	const struct rr_index_project *p;
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	size_t n;

	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	n = p->nfiles;
	*nforeign = p->nforeign;
	*ncp311 = 0;
	for (size_t i = 0; i < p->nfiles; i++)
		*ncp311 += strstr(p->files[i].filename, "-cp311-") != NULL;
	rr_index_client_stats(c, &st);
	if (hits)
		*hits = st.cache_hits;
	rr_index_client_free(c);
	return n;
}

static size_t torch_files(const struct rr_target *t, const char *dir, size_t *ncp311,
			  size_t *nforeign)
{
	return torch_files_hits(t, dir, ncp311, nforeign, NULL);
}

/*
 * a client told the target keeps only the wheels the target can install (a CPython
 * 3.12 venv: no cp311 wheel), counting the others as left out, so that a page of
 * thousands of files costs memory (and parsing) for the few a resolution can use.
 * The cache keeps what the target keeps, as that target's: a run for another
 * interpreter, or without a target, never takes it for the whole page.
 */
static void test_target_files(void **state)
{
	struct rr_target t312, t311;
	char dir[] = "/tmp/rr-target-XXXXXX";
	char cmd[64];
	size_t all, kept, cp311, foreign, foreign_all, hits;
	(void)state;

	rr_target_init(&t312, "3.12", "x86_64", 2, 36);
	rr_target_init(&t311, "3.11", "x86_64", 2, 36);
	all = torch_files(NULL, NULL, &cp311, &foreign_all);
	assert_true(cp311 > 0);
	kept = torch_files(&t312, NULL, &cp311, &foreign);
	assert_int_equal(cp311, 0);
	assert_true(kept > 0 && kept < all);
	assert_int_equal(foreign, foreign_all + (all - kept));
	/* through the cache: a 3.12 client's digest serves the next 3.12 client ... */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(torch_files_hits(&t312, dir, &cp311, &foreign, &hits), kept);
	assert_int_equal(hits, 0);
	assert_int_equal(torch_files_hits(&t312, dir, &cp311, &foreign, &hits), kept);
	assert_int_equal(foreign, foreign_all + (all - kept));
	assert_int_equal(cp311, 0);
	assert_true(hits > 0);
	/* ... and no other: a 3.11 client sees its cp311 wheels, a client without a target
	 * every file */
	assert_true(torch_files(&t311, dir, &cp311, &foreign) > 0);
	assert_true(cp311 > 0);
	assert_int_equal(torch_files(NULL, dir, &cp311, &foreign), all);
	assert_true(cp311 > 0);
	assert_int_equal(foreign, foreign_all);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* issue 19 item 3: a remote page's links are data, never local paths (a file:// URL in a
 * JSON page, a relative link under <base href="file://...">); before, the client took
 * them and opened the local files */
static void test_remote_file_links(void **state)
{
	struct rr_index_client *c;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	c = client(NULL, 1, "/_fault/filelinks/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 0);
	assert_int_equal(p->nignored, 1);
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 0);
	assert_true(p->nignored > 1);
	rr_index_client_free(c);
	c = client(NULL, 1, "/_fault/filelinks/whl/rocm6.4/");
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 0);
	assert_true(p->nignored > 1);
	rr_index_client_free(c);
	/* the same pages without the fault: every file stands */
	c = client(NULL, 1, "/whl/rocm6.4/");
	assert_int_equal(rr_index_get_project(c, "torch", &p, &err), RR_OK);
	assert_true(p->nfiles > 1);
	assert_int_equal(p->nignored, 0);
	rr_index_client_free(c);
}

/* issue 19 item 4: a page's files of another project are not the project's (pip and uv
 * skip them), nor are those of another project's page digest planted in the cache;
 * before, 'idna' got numpy's wheels and a lock pinned their hashes */
static void test_other_project_files(void **state)
{
	char dir[512];
	struct rr_index_opts o = {0};
	struct rr_index_client *c;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	RR_AUTOFREE char *from = NULL;
	RR_AUTOFREE char *to = NULL;
	RR_AUTOFREE char *numpy_url = rr_xasprintf("%s/simple/numpy/", base);
	RR_AUTOFREE char *idna_url = rr_xasprintf("%s/simple/idna/", base);
	(void)state;

	c = client(NULL, 1, "/_fault/imposter/numpy/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 0);
	assert_true(p->nignored > 1);
	/* its own page still lists its own files */
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_OK);
	assert_true(p->nfiles > 1);
	assert_int_equal(p->nignored, 0);
	rr_index_client_free(c);

	snprintf(dir, sizeof(dir), "%s/planted", cachedir);
	o.cache_dir = dir;
	c = client_opts(&o, "/simple");
	assert_int_equal(rr_index_get_project(c, "numpy", &p, &err), RR_OK);
	assert_true(p->nfiles > 1);
	rr_index_client_free(c);
	from = rr_cache_path(dir, "simple", numpy_url);
	to = rr_cache_path(dir, "simple", idna_url);
	{
		char cmd[2048];
		snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", to, from,
			 to);
		assert_int_equal(system(cmd), 0);
	}
	o.offline = true;
	c = client_opts(&o, "/simple");
	assert_int_equal(rr_index_get_project(c, "idna", &p, &err), RR_OK);
	assert_int_equal(p->nfiles, 0);
	assert_true(p->nignored > 1);
	rr_index_client_free(c);
}

/* issue 19 item 9: an archive that cannot be read is named by the URL it came from (the
 * index, the mirror path), whether read by ranges or downloaded whole; before, only the
 * dist's filename */
static void test_archive_error_names_url(void **state)
{
	static const char *const paths[] = {"/_fault/garbage/_fault/nohash/_fault/nometa/simple",
					    "/_fault/garbage/_fault/noranges/_fault/nohash/"
					    "_fault/nometa/simple"};
	static const char *const projects[] = {"idna", "rr-static-sdist"};
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(paths); i++) {
		for (size_t k = 0; k < RR_ARRAY_LEN(projects); k++) {
			struct rr_index_client *c = client(NULL, 1, paths[i]);
			const struct rr_index_project *p;
			rr_error err = RR_ERROR_INIT;
			const char *txt;
			assert_int_equal(rr_index_get_project(c, projects[k], &p, &err), RR_OK);
			assert_int_equal(p->nfiles, 1);
			assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, NULL, &err),
					 RR_E_ARCHIVE);
			/* the URL as the page gave it, resolved: .../files/<filename>: <why> */
			assert_true(strncmp(err.msg, base, strlen(base)) == 0);
			assert_non_null(strstr(err.msg, "/files/"));
			assert_non_null(strstr(err.msg, p->files[0].filename));
			assert_non_null(strstr(err.msg, "_fault/garbage/"));
			rr_error_release(&err);
			rr_index_client_free(c);
		}
	}
}

/*
 * one run of the crawl and the resolver over the fixture index behind path, requests and
 * six as the roots, with the edges given (NULL: none but what the cache learned; budget
 * as rr_index_provider_edges takes it): the solution as "key==version" lines into got,
 * the client's stats into st
 */
static void predict_run(const char *path, const char *dir, bool refresh, const char *edges,
			long long budget, struct rr_strbuf *got, struct rr_index_stats *st)
{
	static const char *const lines[] = {"requests", "six"};
	struct rr_requirement r[2];
	const struct rr_requirement *rp[2];
	struct rr_root_requirement roots[2];
	struct rr_resolve_request rq = {.reqs = roots, .nreqs = 2, .flags = RR_RESOLVE_NEWEST};
	struct rr_index_opts o = {.cache_dir = dir, .no_cache = dir == NULL, .refresh = refresh};
	struct rr_index_client *c = client_opts(&o, path);
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip;
	struct rr_provider prov;
	struct rr_solution *sol = NULL;

	for (size_t i = 0; i < 2; i++) {
		r[i] = (struct rr_requirement)RR_REQUIREMENT_INIT;
		assert_int_equal(rr_requirement_parse(lines[i], &r[i], NULL), RR_OK);
		rp[i] = &r[i];
		roots[i] = (struct rr_root_requirement){&r[i], "test:1"};
	}
	rr_test_index_reset(base);
	ip = fixture_provider(c, &v);
	rr_index_provider_edges(ip, edges, budget);
	rr_index_provider_get(ip, &prov);
	rr_index_provider_prefetch_roots(ip, rp, 2);
	assert_int_equal(rr_resolve(&prov, &rq, &sol, NULL), RR_OK);
	assert_true(rr_solution_ok(sol));
	rr_strbuf_reset(got);
	for (size_t i = 0; i < rr_solution_count(sol); i++)
		rr_strbuf_addf(got, "%s==%s\n", rr_solution_at(sol, i)->key,
			       rr_solution_at(sol, i)->version);
	rr_solution_free(sol);
	rr_index_wait_all(c);
	rr_index_client_stats(c, st);
	rr_index_provider_free(ip);
	for (size_t i = 0; i < 2; i++)
		rr_requirement_release(&r[i]);
	rr_venv_free(v);
	rr_index_client_free(c);
}

/*
 * prediction (src/index/predict.c): with edges saying requests requires idna and urllib3,
 * their pages are asked for the moment the crawl asks for requests' page, while that page
 * is still out (slow here), so before its METADATA names them; certifi, which no edge
 * names, only after. A wrong edge (six "requires" rr-big-wheel) costs that page, counted
 * as unused, and changes no resolution. What a run learned is kept in the cache: a later
 * run that fetches the pages again (--refresh), with no edges given, guesses from it, and
 * not the wrong edge. Without edges (the old crawl) idna waits for requests' page
 */
static void test_predict(void **state)
{
	static const char *const edges = "# test edges, sorted\n"
					 "requests 1 idna urllib3\n"
					 "six 1 rr-big-wheel\n";
	const char *path = "/_fault/slow/300/requests/simple";
	RR_AUTOFREE char *dir = rr_xasprintf("%s/predict", cachedir);
	RR_AUTO_STRBUF struct rr_strbuf plain = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf guessed = RR_STRBUF_INIT;
	struct rr_index_stats st;
	(void)state;

	/* no edges: nothing guessed, idna asked for once requests' METADATA is in */
	predict_run(path, NULL, false, NULL, -1, &plain, &st);
	assert_int_equal(st.guesses, 0);
	assert_int_equal(rr_test_index_order(base, "out:/simple/requests/", "in:/simple/idna/"), 1);
	assert_int_equal(rr_test_index_seen(base, "/simple/rr-big-wheel/"), 0);

	/* the edges: idna and urllib3 before requests' page is out, certifi after */
	assert_int_equal(mkdir(dir, 0700), 0);
	predict_run(path, dir, false, edges, 0, &guessed, &st);
	assert_int_equal(rr_test_index_order(base, "in:/simple/idna/", "out:/simple/requests/"), 1);
	assert_int_equal(rr_test_index_order(base, "in:/simple/urllib3/", "out:/simple/requests/"),
			 1);
	assert_int_equal(rr_test_index_order(base, "out:/simple/requests/", "in:/simple/certifi/"),
			 1);
	/* the wrong guess: fetched, unused, and the same solution */
	assert_int_equal(rr_test_index_seen(base, "/simple/rr-big-wheel/"), 1);
	assert_int_equal(st.guesses, 3);
	assert_int_equal(st.guesses_used, 2);
	assert_true(st.guess_bytes_unused > 0);
	assert_string_equal(guessed.buf, plain.buf);
	assert_null(strstr(guessed.buf, "rr-big-wheel"));

	/* learned: the next run guesses requests' lines, all four, from the cache's note */
	predict_run(path, dir, true, NULL, 0, &guessed, &st);
	assert_int_equal(rr_test_index_order(base, "in:/simple/idna/", "out:/simple/requests/"), 1);
	assert_int_equal(rr_test_index_order(base, "in:/simple/certifi/", "out:/simple/requests/"),
			 1);
	assert_int_equal(rr_test_index_seen(base, "/simple/rr-big-wheel/"), 0);
	assert_int_equal(st.guesses, 4);
	assert_int_equal(st.guesses_used, 4);
	assert_int_equal(st.guess_bytes_unused, 0);
	assert_string_equal(guessed.buf, plain.buf);
}

/* crawl_held_edges from six through a client of its own */
static void stack_run(const char *edges, long long budget)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");

	crawl_held_edges(c, "six", edges, budget);
	rr_index_client_free(c);
}

/*
 * the stack's pages, which the resolution of the input as written asks for where a line
 * names one: with edges to tell, only where the roots likely reach one (six does not:
 * before, torch's page came all the same, the stack's ~1 MB in every run), and then what
 * its installed build requires too (triton, filelock), not what the index's newest torch
 * does (nvidia-*); without edges, at once as before
 */
static void test_predict_stack(void **state)
{
	(void)state;
	stack_run("six 1\n", 0);
	assert_int_equal(rr_test_index_seen(base, "/simple/torch/"), 0);
	assert_int_equal(rr_test_index_seen(base, "/simple/six/"), 1);

	stack_run("six 1 torch\n", 0);
	assert_int_equal(rr_test_index_seen(base, "/simple/torch/"), 1);
	assert_int_equal(rr_test_index_seen(base, "/simple/triton/"), 1);
	assert_int_equal(rr_test_index_seen(base, "/simple/filelock/"), 1);
	assert_int_equal(rr_test_index_seen(base, "/simple/nvidia-cublas-cu12/"), 0);

	stack_run(NULL, -1);
	assert_int_equal(rr_test_index_seen(base, "/simple/torch/"), 1);
}

/* rr-many-wheel's first wheel's METADATA through a new client on /simple (cache dir or
 * none), its hint seeded with v first when given: the range requests it took */
static size_t many_wheel_ranges(const unsigned long long *v)
{
	struct rr_index_client *c = client(NULL, 1, "/simple");
	const struct rr_index_project *p;
	struct rr_index_stats st;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;

	if (v)
		rr_index_tail_hint_seed(c, "rr-many-wheel", v);
	assert_int_equal(rr_index_get_project(c, "rr-many-wheel", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, &len, &err), RR_OK);
	assert_non_null(strstr(txt, "Name: rr-many-wheel\n"));
	rr_index_client_stats(c, &st);
	rr_index_client_free(c);
	return st.range_requests;
}

/*
 * where a project's wheels keep METADATA, learned by one run and told to the next (the
 * cache's note, data/edges.txt: "@need,cd,head"): the first wheel's first range then
 * brings METADATA. rr-many-wheel's directory is larger than the first tail: two range
 * requests without the hint, one with it, seeded by hand or from an edge line; a run
 * that read a wheel writes its hint into the note
 */
static void test_tail_seed(void **state)
{
	struct rr_index_client *c;
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	const struct rr_requirement *rp = &r;
	struct rr_venv *v = NULL;
	struct rr_index_provider *ip;
	struct rr_index_stats st;
	unsigned long long hint[3];
	RR_AUTOFREE char *edges = NULL;
	RR_AUTOFREE char *dir = rr_xasprintf("%s/tailseed", cachedir);
	RR_AUTO_STRBUF struct rr_strbuf note = RR_STRBUF_INIT;
	const struct rr_index_project *p;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	(void)state;

	assert_int_equal(many_wheel_ranges(NULL), 2);
	/* what that read taught */
	c = client(NULL, 1, "/simple");
	assert_int_equal(rr_index_get_project(c, "rr-many-wheel", &p, &err), RR_OK);
	assert_int_equal(rr_index_get_metadata(c, &p->files[0], &txt, NULL, &err), RR_OK);
	assert_true(rr_index_tail_hint(c, "rr-many-wheel", hint));
	rr_index_client_free(c);
	assert_int_equal(many_wheel_ranges(hint), 1);

	/* from an edge line, through the crawl */
	edges = rr_xasprintf("rr-many-wheel 1 @%llu,%llu,%llu idna\n", hint[0], hint[1], hint[2]);
	assert_int_equal(rr_requirement_parse("rr-many-wheel", &r, NULL), RR_OK);
	assert_int_equal(mkdir(dir, 0700), 0);
	{
		struct rr_index_opts o = {.cache_dir = dir};
		c = client_opts(&o, "/simple");
	}
	ip = fixture_provider(c, &v);
	rr_index_provider_edges(ip, edges, 0);
	rr_index_provider_prefetch_roots(ip, &rp, 1);
	rr_index_wait_all(c);
	rr_index_client_stats(c, &st);
	assert_int_equal(st.range_requests, 1);
	rr_index_provider_free(ip);
	rr_index_client_free(c);
	rr_venv_free(v);
	v = NULL;

	/* the note that run wrote keeps it */
	c = client(dir, 1, "/simple");
	assert_int_equal(rr_index_note_load(c, "learned-edges-v1", &note, NULL), RR_OK);
	{
		RR_AUTOFREE char *want = rr_xasprintf("\nrr-many-wheel %s", "");
		const char *line = strstr(note.buf, want);
		RR_AUTOFREE char *at = rr_xasprintf(" @%llu,%llu,%llu", hint[0], hint[1], hint[2]);
		assert_non_null(line);
		assert_non_null(strstr(line, at));
		assert_true(strstr(line, at) < strchr(line + 1, '\n'));
	}
	rr_index_client_free(c);
	rr_requirement_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_page),
	    cmocka_unit_test(test_html_pytorch_index),
	    cmocka_unit_test(test_first_index_wins),
	    cmocka_unit_test(test_jsonapi_fallback),
	    cmocka_unit_test(test_metadata_paths),
	    cmocka_unit_test(test_metadata_integrity),
	    cmocka_unit_test(test_faults),
	    cmocka_unit_test(test_auth),
	    cmocka_unit_test(test_parallel),
	    cmocka_unit_test(test_close_while_parsing),
	    cmocka_unit_test(test_small_ready_inline),
	    cmocka_unit_test(test_cache),
	    cmocka_unit_test(test_cache_atomic),
	    cmocka_unit_test(test_fetch_layer),
	    cmocka_unit_test(test_range_metadata),
	    cmocka_unit_test(test_wheel_libraries),
	    cmocka_unit_test(test_range_guess),
	    cmocka_unit_test(test_sdist_scan_bound),
	    cmocka_unit_test(test_sdist_pyproject),
	    cmocka_unit_test(test_zip_sdist_ranges),
	    cmocka_unit_test(test_page_cap),
	    cmocka_unit_test(test_failure_cache),
	    cmocka_unit_test(test_deadline),
	    cmocka_unit_test(test_bad_hash_not_cached),
	    cmocka_unit_test(test_link_credentials_not_cached),
	    cmocka_unit_test(test_noheaders_cache),
	    cmocka_unit_test(test_provider_crawl),
	    cmocka_unit_test(test_crawl_pipelined),
	    cmocka_unit_test(test_walk_ahead),
	    cmocka_unit_test(test_walk_grows),
	    cmocka_unit_test(test_walk_wheels),
	    cmocka_unit_test(test_crawl_unknown),
	    cmocka_unit_test(test_crawl_as_written),
	    cmocka_unit_test(test_walk_certain),
	    cmocka_unit_test(test_walk_pin),
	    cmocka_unit_test(test_crawl_python_upper),
	    cmocka_unit_test(test_crawl_held),
	    cmocka_unit_test(test_predict),
	    cmocka_unit_test(test_predict_stack),
	    cmocka_unit_test(test_tail_seed),
	    cmocka_unit_test(test_pages_format),
	    cmocka_unit_test(test_find_links),
	    cmocka_unit_test(test_index_priority),
	    cmocka_unit_test(test_target_files),
	    cmocka_unit_test(test_remote_file_links),
	    cmocka_unit_test(test_other_project_files),
	    cmocka_unit_test(test_archive_error_names_url),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
