/* the install store: the manifest parser, and take / check / repair on a site the test builds */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/store.h"
#include "rocm-resolve/strbuf.h"

#define H43 "UY8q0TwqoqvC7kYJhQ1BVTfCsUm8EAPoysPXmx81c8U"

static rr_err parse(const char *text, struct rr_store **s, rr_error *e)
{
	return rr_store_parse(text, strlen(text), "manifest", s, e);
}

static void test_parse_ok(void **state)
{
	struct rr_store *s = NULL;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(parse("rocm-resolve-snapshot 1\nroot\t/v\nsite\t/v/site\n"
			       "present\t/v/site/t-1.dist-info\npack\tpack-1\n"
			       "packed\t" H43 "\t0\t22\n"
			       "dist\tt\t1\t/v/site\t/v/site/t-1.dist-info\nmodule\tt\n"
			       "file\t" H43 "\t22\t644\t1\t2\t3\t4\t/v/site/t/a\tb.py\n"
			       "file\t" H43 "\t22\t644\t1\t2\t3\t-1\t/v/site/t/x.py\n"
			       "file\t" H43 "\t22\t644\t1\t2\t3\t4\t/v/site/t/x.py\n",
			       &s, &e),
			 RR_OK);
	assert_string_equal(rr_store_venv_root(s), "/v");
	assert_int_equal(rr_store_ndists(s), 1);
	/* a tab inside the last field is part of the path; a path listed twice counts once */
	assert_int_equal(rr_store_nfiles(s), 2);
	s = rr_store_free(s);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
	} bad[] = {
		{"", 1},
		{"rocm-resolve-snapshot 2\nroot\t/v\n", 1},
		{"rocm-resolve-snapshot 1\n", 1}, /* no root */
		{"rocm-resolve-snapshot 1\nroot\trelative\n", 1},
		{"rocm-resolve-snapshot 1\nroot\t/v\nbogus\tx\n", 3},
		/* a file before any dist */
		{"rocm-resolve-snapshot 1\nroot\t/v\nfile\t" H43 "\t1\t644\t1\t2\t3\t4\t/p\n", 3},
		{"rocm-resolve-snapshot 1\nroot\t/v\ndist\tt\t1\t/s\n", 3},
		{"rocm-resolve-snapshot 1\nroot\t/v\ndist\tt\t1\t/s\t/s/t.dist-info\n"
		 "file\tshort\t1\t644\t1\t2\t3\t4\t/p\n", 4},
		{"rocm-resolve-snapshot 1\nroot\t/v\ndist\tt\t1\t/s\t/s/t.dist-info\n"
		 "file\t" H43 "\t1\t999\t1\t2\t3\t4\t/p\n", 4},
		{"rocm-resolve-snapshot 1\nroot\t/v\ndist\tt\t1\t/s\t/s/t.dist-info\n"
		 "file\t" H43 "\t1\t644\t1\t2\t3\t4\trelative\n", 4},
		{"rocm-resolve-snapshot 1\nroot\t/v\ndist\tt\t1\t/s\t/s/t.dist-info\n"
		 "file\t" H43 "\t99999999999999999999999\t644\t1\t2\t3\t4\t/p\n", 4},
		/* a pack entry larger than a small file can be, a pack name that is a path */
		{"rocm-resolve-snapshot 1\nroot\t/v\npack\tpack-1\npacked\t" H43 "\t0\t2000000\n", 4},
		{"rocm-resolve-snapshot 1\nroot\t/v\npack\t../x\n", 3},
		{"rocm-resolve-snapshot 1\nroot\t/v\npacked\t" H43 "\t0\t1\n", 1},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct rr_store *s = NULL;
		rr_error e = RR_ERROR_INIT;
		if (parse(bad[i].text, &s, &e) != RR_E_DATA)
			fail_msg("case %zu parsed", i);
		assert_null(s);
		if (e.line != bad[i].line)
			fail_msg("case %zu: line %u, want %u (%s)", i, e.line, bad[i].line, e.msg);
		rr_error_release(&e);
	}
}

/* ---------------------------------------------------------------- a site on disk */

static char tmp[256];

static void put(const char *rel, const char *data, size_t len)
{
	RR_AUTOFREE char *p = rr_xasprintf("%s/%s", tmp, rel);
	char *slash = strrchr(p, '/');
	FILE *f;

	for (char *s = p + strlen(tmp) + 1; s < slash; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	*slash = '\0';
	mkdir(p, 0755);
	*slash = '/';
	unlink(p); /* a new file, as installers write */
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void puts_(const char *rel, const char *data)
{
	put(rel, data, strlen(data));
}

static bool same(const char *rel, const char *data, size_t len)
{
	RR_AUTOFREE char *p = rr_xasprintf("%s/%s", tmp, rel);
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	return rr_strbuf_read_file(&sb, p, 1u << 30, NULL) == RR_OK && sb.len == len &&
	       !memcmp(sb.buf, data, len);
}

static bool exists(const char *rel)
{
	RR_AUTOFREE char *p = rr_xasprintf("%s/%s", tmp, rel);
	struct stat st;

	return lstat(p, &st) == 0;
}

static void record_line(struct rr_strbuf *rec, const char *rel, const char *data, size_t len)
{
	unsigned char d[32];
	char b64[44];
	struct rr_sha256 h;

	rr_sha256_init(&h);
	rr_sha256_update(&h, data, len);
	rr_sha256_final(&h, d);
	rr_sha256_digest_to_b64url(d, b64);
	rr_strbuf_addf(rec, "%s,sha256=%s,%zu\n", rel, b64, len);
}

static char *big; /* over RR_STORE_COPY_MAX: kept as a hard link */
static size_t nbig;

/* venv/site: triton 1.0+rocm (protected) and six (not), pytorch-triton 9 (an old clash) */
static void build_site(void)
{
	RR_AUTO_STRBUF struct rr_strbuf rec = RR_STRBUF_INIT;
	static const char *const files[][2] = {
		{"triton/__init__.py", "rocm triton\n"},
		{"triton/language/core.py", "core\n"},
		{"triton-1.0+rocm.dist-info/METADATA", "Name: triton\nVersion: 1.0+rocm\n"},
	};

	nbig = RR_STORE_COPY_MAX + 4096;
	big = rr_xmalloc(nbig);
	for (size_t i = 0; i < nbig; i++)
		big[i] = (char)('a' + i % 23);
	for (size_t i = 0; i < 3; i++) {
		RR_AUTOFREE char *rel = rr_xasprintf("venv/site/%s", files[i][0]);
		puts_(rel, files[i][1]);
		record_line(&rec, files[i][0], files[i][1], strlen(files[i][1]));
	}
	put("venv/site/triton/_C/libtriton.so", big, nbig);
	record_line(&rec, "triton/_C/libtriton.so", big, nbig);
	rr_strbuf_adds(&rec, "triton-1.0+rocm.dist-info/RECORD,,\n");
	puts_("venv/site/triton-1.0+rocm.dist-info/RECORD", rec.buf);
	puts_("venv/site/six.py", "six\n");
	puts_("venv/site/six-1.0.dist-info/RECORD", "six.py,,\n");
	/* already there at snapshot time: verify reports it; repair must leave it alone */
	puts_("venv/site/pytorch_triton-9.dist-info/RECORD", "triton/__init__.py,,\n");
}

/* a snapshot of venv/site's triton 1.0+rocm into store */
static rr_err take(const char *store, struct rr_store_stats *st, rr_error *e)
{
	RR_AUTOFREE char *root = rr_xasprintf("%s/venv", tmp);
	RR_AUTOFREE char *site = rr_xasprintf("%s/venv/site", tmp);
	RR_AUTOFREE char *di = rr_xasprintf("%s/venv/site/triton-1.0+rocm.dist-info", tmp);
	const char *sites[] = {site};
	struct rr_store_dist d = {"triton", "1.0+rocm", di, site};
	struct rr_store_spec sp = {root, sites, 1, &d, 1};

	return rr_store_take(store, &sp, st, e);
}

/* the store's last snapshot, checked against venv/ (as restore does before a repair) */
static struct rr_store *load_validated(const char *store)
{
	RR_AUTOFREE char *root = rr_xasprintf("%s/venv", tmp);
	RR_AUTOFREE char *site = rr_xasprintf("%s/venv/site", tmp);
	const char *sites[] = {site};
	struct rr_store *s = NULL;
	rr_error e = RR_ERROR_INIT;

	if (rr_store_load(store, &s, &e))
		fail_msg("load: %s", e.msg);
	if (rr_store_validate(s, root, sites, 1, &e))
		fail_msg("validate: %s", e.msg);
	return s;
}

static struct rr_store *take_and_load(const char *store)
{
	struct rr_store_stats st;
	rr_error e = RR_ERROR_INIT;

	if (take(store, &st, &e))
		fail_msg("take: %s", e.msg);
	assert_int_equal(st.dists, 1);
	/* 4 RECORD entries with a hash, RECORD itself (hashed here) */
	assert_int_equal(st.files, 5);
	return load_validated(store);
}

static bool listed(char *const *v, size_t n, const char *part)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(v[i], part))
			return true;
	return false;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/rr-test-store-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	build_site();
	return 0;
}

static int teardown(void **state)
{
	RR_AUTOFREE char *cmd = rr_xasprintf("rm -rf '%s'", tmp);
	(void)state;
	free(big);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_check_repair(void **state)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	struct rr_store *s = take_and_load(store);
	struct rr_store_result r;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	/* nothing touched: every file is judged by its inode and times, none is hashed */
	assert_int_equal(rr_store_check(s, 0, &r, &e), RR_OK);
	assert_int_equal(r.files, 5);
	assert_int_equal(r.hashed, 0);
	assert_int_equal(r.nchanged + r.nintruders, 0);
	rr_store_result_release(&r);
	/* the full pass hashes them all and still finds nothing */
	assert_int_equal(rr_store_check(s, RR_STORE_FULL, &r, &e), RR_OK);
	assert_int_equal(r.hashed, 5);
	assert_int_equal(r.nchanged, 0);
	rr_store_result_release(&r);

	/* an installer: rewrites a file (new inode, same bytes: not a change), replaces one,
	 * removes the big library, and adds a dist shipping the protected module */
	puts_("venv/site/triton/language/core.py", "core\n");
	puts_("venv/site/triton/__init__.py", "cuda triton\n");
	{
		RR_AUTOFREE char *lib = rr_xasprintf("%s/venv/site/triton/_C/libtriton.so", tmp);
		assert_int_equal(unlink(lib), 0);
	}
	puts_("venv/site/triton/backends/nvidia/driver.py", "nvidia\n");
	puts_("venv/site/triton_cu-3.1.dist-info/RECORD",
	      "triton/__init__.py,,\ntriton/backends/nvidia/driver.py,,\n../../bin/evil,,\n"
	      "linkdir/victim,,\n"
	      "triton_cu-3.1.dist-info/RECORD,,\n");
	puts_("bin/evil", "outside the venv: must stay\n");
	/* a symlinked directory inside the site must not lead a removal out of the venv */
	puts_("outside/victim", "must stay\n");
	{
		RR_AUTOFREE char *target = rr_xasprintf("%s/outside", tmp);
		RR_AUTOFREE char *ln = rr_xasprintf("%s/venv/site/linkdir", tmp);
		assert_int_equal(symlink(target, ln), 0);
	}
	assert_int_equal(rr_store_check(s, 0, &r, &e), RR_OK);
	assert_int_equal(r.nchanged, 2);
	assert_true(listed(r.changed, r.nchanged, "triton/__init__.py (of triton 1.0+rocm) differs"));
	assert_true(listed(r.changed, r.nchanged, "triton/_C/libtriton.so (of triton 1.0+rocm) is missing"));
	assert_int_equal(r.nintruders, 1); /* pytorch_triton was there before: not an intruder */
	assert_true(listed(r.intruders, r.nintruders, "triton_cu 3.1"));
	assert_true(listed(r.intruders, r.nintruders, "ships module 'triton' of protected triton"));
	assert_int_equal(r.nrestored + r.nremoved, 0); /* no repair asked for: nothing done */
	assert_true(same("venv/site/triton/__init__.py", "cuda triton\n", 12));
	rr_store_result_release(&r);

	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR, &r, &e), RR_OK);
	assert_int_equal(r.nrestored, 2);
	assert_int_equal(r.nlost, 0);
	assert_int_equal(r.nremoved, 1);
	assert_true(listed(r.removed, r.nremoved, "triton_cu 3.1: triton_cu-3.1.dist-info and 1 other file"));
	rr_store_result_release(&r);
	assert_true(same("venv/site/triton/__init__.py", "rocm triton\n", 12));
	assert_true(same("venv/site/triton/_C/libtriton.so", big, nbig));
	assert_false(exists("venv/site/triton/backends")); /* emptied dirs go too */
	assert_false(exists("venv/site/triton_cu-3.1.dist-info"));
	assert_true(exists("venv/site/pytorch_triton-9.dist-info"));
	assert_true(exists("venv/site/six.py"));
	assert_true(exists("bin/evil"));
	assert_true(exists("outside/victim"));
	assert_int_equal(rr_store_check(s, RR_STORE_FULL, &r, &e), RR_OK);
	assert_int_equal(r.nchanged + r.nintruders, 0);
	rr_store_result_release(&r);

	/* in place, through the inode: the small file's object is a copy and comes back; the
	 * big one's object is the same inode (restored by link above): lost, and said so */
	{
		RR_AUTOFREE char *lib = rr_xasprintf("%s/venv/site/triton/_C/libtriton.so", tmp);
		RR_AUTOFREE char *init = rr_xasprintf("%s/venv/site/triton/__init__.py", tmp);
		FILE *f = fopen(lib, "r+b");
		assert_non_null(f);
		fputs("in place", f);
		fclose(f);
		f = fopen(init, "r+b");
		assert_non_null(f);
		fputs("in place", f);
		fclose(f);
	}
	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR, &r, &e), RR_OK);
	assert_int_equal(r.nchanged, 2);
	assert_int_equal(r.nrestored, 1);
	assert_int_equal(r.nlost, 1);
	assert_true(listed(r.lost, r.nlost, "libtriton.so (of triton 1.0+rocm): the snapshot's copy "
					    "no longer matches"));
	assert_true(same("venv/site/triton/__init__.py", "rocm triton\n", 12));
	rr_store_result_release(&r);
	s = rr_store_free(s);

	/* a second snapshot prunes nothing it still needs and keeps what it had */
	s = take_and_load(store);
	s = rr_store_free(s);
	assert_int_equal(rr_store_load(tmp, &s, &e), RR_E_NOTFOUND); /* no manifest there */
	rr_error_release(&e);
}

/* damage present when the first snapshot is taken is not kept as the good copy */
static void test_damaged_before(void **state)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	struct rr_store_stats st;
	struct rr_store *s = NULL;
	struct rr_store_result r;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	puts_("venv/site/triton/language/core.py", "edited before\n");
	assert_int_equal(take(store, &st, &e), RR_OK);
	assert_int_equal(st.unverified, 1);
	s = load_validated(store);
	/* the quick check sees an untouched inode; the full one finds it and cannot help */
	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR, &r, &e), RR_OK);
	assert_int_equal(r.nchanged, 0);
	rr_store_result_release(&r);
	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR | RR_STORE_FULL, &r, &e), RR_OK);
	assert_int_equal(r.nchanged, 1);
	assert_int_equal(r.nlost, 1);
	assert_true(listed(r.lost, r.nlost, "core.py (of triton 1.0+rocm): the snapshot holds no copy"));
	assert_true(same("venv/site/triton/language/core.py", "edited before\n", 14));
	rr_store_result_release(&r);
	s = rr_store_free(s);
}

/* after a second snapshot, a full repair puts rel's good bytes back: nothing lost */
static void second_snapshot_repairs(const char *rel, const char *good, size_t len)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	struct rr_store *s = take_and_load(store);
	struct rr_store_result r;
	rr_error e = RR_ERROR_INIT;

	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR | RR_STORE_FULL, &r, &e), RR_OK);
	assert_int_equal(r.nchanged, 1);
	assert_int_equal(r.nlost, 0);
	assert_int_equal(r.nrestored, 1);
	rr_store_result_release(&r);
	assert_true(same(rel, good, len));
	s = rr_store_free(s);
}

/*
 * issue 19 item 1: a protected library over the copy threshold replaced by a file of another
 * size (a plain `pip install` writing over it), then another snapshot: the store keeps its
 * good copy (the object named by the RECORD hash is never replaced) and repair puts it back
 */
static void test_big_file_replaced_between_snapshots(void **state)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	(void)state;

	rr_store_free(take_and_load(store));
	put("venv/site/triton/_C/libtriton.so", "damaged, another size", 21);
	second_snapshot_repairs("venv/site/triton/_C/libtriton.so", big, nbig);
}

/*
 * a small protected file removed between two snapshots (`rm`, a half-done uninstall): the next
 * snapshot lists it as missing, and its bytes stay in the pack (the only copy), so a full
 * repair still puts it back
 */
static void test_small_file_removed_between_snapshots(void **state)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	RR_AUTOFREE char *gone = rr_xasprintf("%s/venv/site/triton/__init__.py", tmp);
	(void)state;

	rr_store_free(take_and_load(store));
	assert_int_equal(unlink(gone), 0);
	second_snapshot_repairs("venv/site/triton/__init__.py", "rocm triton\n", 12);
}

/* a big file that already differs from its RECORD hash is never kept under that hash */
static void test_big_file_damaged_before(void **state)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	struct rr_store_stats st;
	struct rr_store *s = NULL;
	struct rr_store_result r;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	big[0] ^= 1;
	put("venv/site/triton/_C/libtriton.so", big, nbig); /* same size, other bytes */
	big[0] ^= 1;
	assert_int_equal(take(store, &st, &e), RR_OK);
	assert_int_equal(st.unverified, 1);
	assert_int_equal(st.linked + st.copied, 0);
	s = load_validated(store);
	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR | RR_STORE_FULL, &r, &e), RR_OK);
	assert_int_equal(r.nlost, 1);
	assert_true(listed(r.lost, r.nlost, "libtriton.so (of triton 1.0+rocm): the snapshot holds no "
					    "copy"));
	rr_store_result_release(&r);
	/* the good bytes come back later: the next snapshot keeps them */
	put("venv/site/triton/_C/libtriton.so", big, nbig);
	s = rr_store_free(s);
	s = take_and_load(store);
	put("venv/site/triton/_C/libtriton.so", "x", 1);
	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR, &r, &e), RR_OK);
	assert_int_equal(r.nrestored, 1);
	rr_store_result_release(&r);
	assert_true(same("venv/site/triton/_C/libtriton.so", big, nbig));
	s = rr_store_free(s);
}

/*
 * the protected build replaced outside rocm-resolve (a plain `pip install triton` between two
 * installs): a new snapshot would describe the new build and prune the old one's objects and
 * pack entries, the only copy of it. take refuses (RR_E_ENV, naming it) and changes nothing;
 * the old snapshot still restores it
 */
static void test_take_keeps_the_only_copy(void **state)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	RR_AUTOFREE char *mpath = rr_xasprintf("%s/store/manifest", tmp);
	RR_AUTOFREE char *old_di = rr_xasprintf("%s/venv/site/triton-1.0+rocm.dist-info", tmp);
	RR_AUTOFREE char *cmd = rr_xasprintf("rm -rf '%s'", old_di);
	RR_AUTO_STRBUF struct rr_strbuf before = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf after = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf rec = RR_STRBUF_INIT;
	struct rr_store *s = take_and_load(store);
	struct rr_store_stats st;
	struct rr_store_result r;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	s = rr_store_free(s);
	assert_int_equal(rr_strbuf_read_file(&before, mpath, 1u << 30, NULL), RR_OK);
	/* PyPI's triton 1.0 over the ROCm build: the old dist-info gone, other bytes */
	assert_int_equal(system(cmd), 0);
	put("venv/site/triton/_C/libtriton.so", "cuda", 4);
	puts_("venv/site/triton/__init__.py", "cuda triton\n");
	record_line(&rec, "triton/__init__.py", "cuda triton\n", 12);
	record_line(&rec, "triton/_C/libtriton.so", "cuda", 4);
	puts_("venv/site/triton-1.0.dist-info/RECORD", rec.buf);
	{
		RR_AUTOFREE char *root = rr_xasprintf("%s/venv", tmp);
		RR_AUTOFREE char *site = rr_xasprintf("%s/venv/site", tmp);
		RR_AUTOFREE char *di = rr_xasprintf("%s/venv/site/triton-1.0.dist-info", tmp);
		const char *sites[] = {site};
		struct rr_store_dist d = {"triton", "1.0", di, site};
		struct rr_store_spec sp = {root, sites, 1, &d, 1};
		assert_int_equal(rr_store_take(store, &sp, &st, &e), RR_E_ENV);
	}
	if (!strstr(e.msg, "triton 1.0+rocm") || !strstr(e.msg, "rocm-resolve restore"))
		fail_msg("%s", e.msg);
	rr_error_release(&e);
	assert_int_equal(rr_strbuf_read_file(&after, mpath, 1u << 30, NULL), RR_OK);
	assert_true(before.len == after.len && !memcmp(before.buf, after.buf, before.len));
	/* and the old snapshot still has every byte of the ROCm build */
	s = load_validated(store);
	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR, &r, &e), RR_OK);
	assert_int_equal(r.nlost, 0);
	assert_int_equal(r.nremoved, 1);
	rr_store_result_release(&r);
	assert_true(same("venv/site/triton/_C/libtriton.so", big, nbig));
	assert_true(same("venv/site/triton/__init__.py", "rocm triton\n", 12));
	assert_false(exists("venv/site/triton-1.0.dist-info"));
	s = rr_store_free(s);
	/* once the stack is back, a new snapshot is taken as before */
	s = take_and_load(store);
	s = rr_store_free(s);
}

/*
 * issue 19 item 2: a tampered manifest is refused before anything is written or removed:
 * a file line outside the venv, one with "..", one below a symlinked directory, a site
 * that is not the venv's, the snapshot of another root
 */
static void test_tampered_manifest(void **state)
{
	RR_AUTOFREE char *store = rr_xasprintf("%s/store", tmp);
	RR_AUTOFREE char *root = rr_xasprintf("%s/venv", tmp);
	RR_AUTOFREE char *site = rr_xasprintf("%s/venv/site", tmp);
	RR_AUTOFREE char *mpath = rr_xasprintf("%s/store/manifest", tmp);
	RR_AUTO_STRBUF struct rr_strbuf orig = RR_STRBUF_INIT;
	const char *sites[] = {site};
	struct rr_store *s = take_and_load(store);
	struct rr_store_result r;
	rr_error e = RR_ERROR_INIT;
	const char *H = NULL;
	(void)state;

	s = rr_store_free(s);
	assert_int_equal(rr_strbuf_read_file(&orig, mpath, 1u << 30, NULL), RR_OK);
	H = strstr(orig.buf, "\nfile\t") + 6; /* a real hash from the manifest */
	puts_("outside/victim/keep", "must stay\n");
	{
		RR_AUTOFREE char *target = rr_xasprintf("%s/outside", tmp);
		RR_AUTOFREE char *ln = rr_xasprintf("%s/venv/site/evil", tmp);
		assert_int_equal(symlink(target, ln), 0);
	}
	struct {
		char *line;
		const char *named;
	} bad[] = {
		{rr_xasprintf("file\t%.43s\t10\t644\t1\t2\t3\t4\t%s/outside/victim\n", H, tmp),
		 "outside/victim"},
		{rr_xasprintf("file\t%.43s\t10\t644\t1\t2\t3\t4\t%s/venv/site/../../outside/w\n", H,
			      tmp),
		 "../../outside/w"},
		{rr_xasprintf("file\t%.43s\t10\t644\t1\t2\t3\t4\t%s/venv/site/evil/w\n", H, tmp),
		 "site/evil/w"},
		{rr_xasprintf("site\t%s/outside\n", tmp), "outside"},
	};
	for (size_t i = 0; i < RR_ARRAY_LEN(bad); i++) {
		RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
		rr_strbuf_add(&text, orig.buf, orig.len);
		rr_strbuf_adds(&text, bad[i].line);
		assert_int_equal(rr_file_write_atomic(mpath, text.buf, text.len, 0600, NULL), RR_OK);
		assert_int_equal(rr_store_load(store, &s, &e), RR_OK);
		if (rr_store_validate(s, root, sites, 1, &e) != RR_E_DATA)
			fail_msg("case %zu validated", i);
		if (!strstr(e.msg, bad[i].named) || !strstr(e.msg, "nothing was changed"))
			fail_msg("case %zu: %s", i, e.msg);
		assert_string_equal(e.path, mpath);
		rr_error_release(&e);
		/* and check will not repair from it */
		assert_int_equal(rr_store_check(s, RR_STORE_REPAIR, &r, &e), RR_E_USAGE);
		rr_error_release(&e);
		s = rr_store_free(s);
		free(bad[i].line);
	}
	assert_true(same("outside/victim/keep", "must stay\n", 10));
	assert_false(exists("outside/w"));
	/* another venv's snapshot */
	assert_int_equal(rr_file_write_atomic(mpath, orig.buf, orig.len, 0600, NULL), RR_OK);
	assert_int_equal(rr_store_load(store, &s, &e), RR_OK);
	assert_int_equal(rr_store_validate(s, "/elsewhere", sites, 1, &e), RR_E_DATA);
	assert_int_equal(e.line, 2);
	rr_error_release(&e);
	s = rr_store_free(s);

	/* a module line naming another distribution's module (numpy, installed since): the
	 * stored RECORD decides what is protected, so restore never removes numpy */
	puts_("venv/site/numpy/__init__.py", "numpy\n");
	puts_("venv/site/numpy-2.0.dist-info/RECORD",
	      "numpy/__init__.py,,\nnumpy-2.0.dist-info/RECORD,,\n");
	{
		RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
		rr_strbuf_add(&text, orig.buf, orig.len);
		rr_strbuf_adds(&text, "module\tnumpy\n");
		assert_int_equal(rr_file_write_atomic(mpath, text.buf, text.len, 0600, NULL), RR_OK);
	}
	s = load_validated(store);
	assert_int_equal(rr_store_check(s, RR_STORE_REPAIR, &r, &e), RR_OK);
	assert_int_equal(r.nintruders, 0);
	assert_int_equal(r.nremoved, 0);
	rr_store_result_release(&r);
	assert_true(exists("venv/site/numpy/__init__.py"));
	s = rr_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test_setup_teardown(test_check_repair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_before, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_file_replaced_between_snapshots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_big_file_damaged_before, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_file_removed_between_snapshots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_take_keeps_the_only_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tampered_manifest, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
