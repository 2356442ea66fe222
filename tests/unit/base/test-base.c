#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/json.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/util.h"

static void test_sha256_vectors(void **state)
{
	char hex[65];
	unsigned char d[32];
	char b64[44];
	struct rr_sha256 h;
	char chunk[125];
	(void)state;

	rr_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	rr_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	rr_sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* one million 'a' fed in odd-sized chunks exercises the partial-block path */
	rr_sha256_init(&h);
	memset(chunk, 'a', sizeof(chunk));
	for (int i = 0; i < 1000000 / 125; i++)
		rr_sha256_update(&h, chunk, 125);
	rr_sha256_final(&h, d);
	rr_sha256_digest_to_hex(d, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* RECORD form of sha256("") */
	rr_sha256_init(&h);
	rr_sha256_final(&h, d);
	rr_sha256_digest_to_b64url(d, b64);
	assert_string_equal(b64, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

static void test_strbuf(void **state)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	char *p;
	size_t n;
	(void)state;

	assert_string_equal(sb.buf, "");
	rr_strbuf_addf(&sb, "%s-%d", "x", 42);
	rr_strbuf_addch(&sb, ' ');
	rr_strbuf_add_json_str(&sb, "a\"b\\\n\x01");
	assert_string_equal(sb.buf, "x-42 \"a\\\"b\\\\\\n\\u0001\"");
	rr_strbuf_adds(&sb, "  \n");
	rr_strbuf_rtrim(&sb);
	assert_int_equal(sb.len, strlen(sb.buf));
	p = rr_strbuf_detach(&sb, &n);
	assert_int_equal(n, strlen(p));
	assert_string_equal(sb.buf, "");
	rr_free(p);
}

static void test_error_origin(void **state)
{
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	(void)state;

	assert_int_equal(rr_fail(&err, RR_E_PARSE, "expected %s", "']'"), RR_E_PARSE);
	err.col = 5; /* column inside the fragment */
	rr_error_set_origin(&err, "req.txt", 3, 10, "foo[bar");
	rr_error_format(&err, &sb);
	assert_string_equal(sb.buf, "req.txt:3:14: expected ']'");
	assert_string_equal(err.text, "foo[bar");
	rr_error_prefix(&err, "while reading '%s': ", "x");
	assert_string_equal(err.msg, "while reading 'x': expected ']'");
	assert_string_equal(rr_err_to_string(RR_E_LIMIT), "limit");
	assert_int_equal(rr_fail(NULL, RR_E_IO, "ignored"), RR_E_IO);
}

static void test_parse_u64(void **state)
{
	uint64_t v;
	(void)state;

	assert_true(rr_parse_u64("18446744073709551615", 20, &v));
	assert_true(v == UINT64_MAX);
	assert_false(rr_parse_u64("18446744073709551616", 20, &v));
	assert_false(rr_parse_u64("", 0, &v));
	assert_false(rr_parse_u64("1a", 2, &v));
	assert_int_equal(rr_str_casecmp("TorCH", "torch"), 0);
}

static void test_redact(void **state)
{
	RR_AUTOFREE char *a = rr_redact_credentials("--extra-index-url https://user:s3cr3t@pkgs.example/simple x");
	RR_AUTOFREE char *b = rr_redact_credentials("https://token@h/x@y and http://h/p git+ssh://git@github.com/a");
	RR_AUTOFREE char *c = rr_redact_credentials("no urls here: a@b");
	(void)state;
	assert_string_equal(a, "--extra-index-url https://***@pkgs.example/simple x");
	assert_string_equal(b, "https://***@h/x@y and http://h/p git+ssh://***@github.com/a");
	assert_string_equal(c, "no urls here: a@b");
}

/*
 * the one userinfo rule (rr_url_userinfo) under every use: the last '@' of the authority;
 * a plan keeps a secret given as ${VAR} (alone or after a literal user name) and drops a
 * literal one; pip's form keeps the user; the split decodes for the transfer
 */
static void test_url_userinfo(void **state)
{
	const char *q, *at;
	char *u = NULL, *up = NULL;
	bool removed;
	(void)state;

	assert_non_null(rr_url_userinfo("x https://a@b@h/p@q", &q, &at));
	assert_string_equal(at, "@h/p@q");
	assert_non_null(rr_url_userinfo("https://h/p@q", &q, &at));
	assert_null(at);
	assert_null(rr_url_userinfo("no url", &q, &at));
#define STRIPPED(in, out, rem)                                                                     \
	do {                                                                                       \
		RR_AUTOFREE char *s_ = rr_strip_credentials(in, &removed);                         \
		assert_string_equal(s_, out);                                                      \
		assert_int_equal(removed, rem);                                                    \
	} while (0)
	STRIPPED("http://__token__:${TOKEN}@h/private/simple", "http://__token__:${TOKEN}@h/private/simple",
		 false);
	STRIPPED("https://${USER}:${PASS}@h/s", "https://${USER}:${PASS}@h/s", false);
	STRIPPED("https://${TOKEN}@h/s", "https://${TOKEN}@h/s", false);
	STRIPPED("https://alice:s3cret@h/s", "https://h/s", true);
	STRIPPED("https://${USER}:s3cret@h/s", "https://h/s", true);
	STRIPPED("https://alice:${X}s3cret@h/s", "https://h/s", true);
	STRIPPED("https://__token__:@h/s", "https://h/s", true);
	STRIPPED("https://a${X}:${Y}@h/s", "https://h/s", true);
#undef STRIPPED
	{
		RR_AUTOFREE char *p = rr_redact_password("https://alice:s3cret@h/x.whl and https://tok@g/y");
		assert_string_equal(p, "https://alice:****@h/x.whl and https://****@g/y");
	}
	rr_url_split_userinfo("https://us%65r:p%40ss:w@h.example/simple/", &u, &up);
	assert_string_equal(u, "https://h.example/simple/");
	assert_string_equal(up, "user:p@ss:w");
	free(u);
	free(up);
	rr_url_split_userinfo("https://h.example/simple/", &u, &up);
	assert_string_equal(u, "https://h.example/simple/");
	assert_null(up);
	free(u);
}

/* rr_file_read: never waits on a FIFO, refuses devices, bounds streams; alarm() guards hangs */
static void test_file_read(void **state)
{
	char dir[] = "/tmp/rr-file-XXXXXX";
	char path[256], fifo[256], link[256];
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error e = RR_ERROR_INIT;
	FILE *f;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.txt", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("hello\n", f);
	fclose(f);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink(path, link), 0);

	alarm(20);
	assert_int_equal(rr_file_read(AT_FDCWD, path, 100, 0, "a.txt", &sb, &e), RR_OK);
	assert_string_equal(sb.buf, "hello\n");
	assert_int_equal(rr_file_read(AT_FDCWD, path, 3, 0, "a.txt", &sb, &e), RR_E_LIMIT);
	assert_int_equal(sb.len, 0);
	rr_error_release(&e);
	assert_int_equal(rr_file_read(AT_FDCWD, fifo, 100, 0, "'fifo'", &sb, &e), RR_E_IO);
	assert_string_equal(e.msg, "cannot read 'fifo': it is a FIFO, not a regular file");
	rr_error_release(&e);
	assert_int_equal(rr_file_read(AT_FDCWD, "/dev/zero", 100, 0, "zero", &sb, &e), RR_E_IO);
	assert_non_null(strstr(e.msg, "a character device"));
	rr_error_release(&e);
	assert_int_equal(rr_file_read(AT_FDCWD, dir, 100, 0, "dir", &sb, &e), RR_E_IO);
	assert_non_null(strstr(e.msg, "a directory"));
	rr_error_release(&e);
	/* a stream the caller accepts is read, but only up to max */
	assert_int_equal(rr_file_read(AT_FDCWD, "/dev/zero", 100, RR_FILE_STREAM_OK, "zero", &sb,
				      &e),
			 RR_E_LIMIT);
	rr_error_release(&e);
	/* a FIFO without a writer: the accepted stream is empty, not a wait */
	assert_int_equal(rr_file_read(AT_FDCWD, fifo, 100, RR_FILE_STREAM_OK, "fifo", &sb, &e),
			 RR_OK);
	assert_int_equal(sb.len, 0);
	assert_int_equal(rr_file_read(AT_FDCWD, link, 100, 0, "link", &sb, &e), RR_OK);
	assert_int_equal(rr_file_read(AT_FDCWD, link, 100, RR_FILE_NOFOLLOW, "link", &sb, &e),
			 RR_E_IO);
	rr_error_release(&e);
	assert_int_equal(rr_file_read(AT_FDCWD, "/nonexistent/x", 100, 0, "x", &sb, &e),
			 RR_E_NOTFOUND);
	rr_error_release(&e);
	/* the strbuf reader (requirements files) keeps its old contract over the same helper */
	rr_strbuf_release(&sb);
	assert_int_equal(rr_strbuf_read_file(&sb, "/nonexistent/x", 100, &e), RR_E_IO);
	rr_error_release(&e);
	assert_int_equal(rr_strbuf_read_file(&sb, fifo, 100, &e), RR_OK);
	assert_int_equal(rr_strbuf_read_file(&sb, path, 100, &e), RR_OK);
	assert_string_equal(sb.buf, "hello\n");
	alarm(0);
	rr_strbuf_release(&sb);
	unlink(path);
	unlink(fifo);
	unlink(link);
	rmdir(dir);
}

/* rr_file_write_atomic: never follows what sits at a temporary name, replaces the target */
static void test_file_write_atomic(void **state)
{
	char dir[] = "/tmp/rr-file-XXXXXX";
	char path[256], victim[256], cmd[512];
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error e = RR_ERROR_INIT;
	struct stat st;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(rr_file_write_atomic(victim, "keep\n", 5, 0600, &e), RR_OK);
	/* the target itself a symlink: replaced by a file, its target untouched */
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(rr_file_write_atomic(path, "new\n", 4, 0640, &e), RR_OK);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(rr_file_read(AT_FDCWD, path, 100, 0, "out", &sb, &e), RR_OK);
	assert_string_equal(sb.buf, "new\n");
	assert_int_equal(rr_file_read(AT_FDCWD, victim, 100, 0, "victim", &sb, &e), RR_OK);
	assert_string_equal(sb.buf, "keep\n");
	/* only the two files remain: no temporary left behind */
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) -eq 2", dir);
	assert_int_equal(system(cmd), 0);
	/* a directory that does not exist: an error naming the target */
	assert_int_equal(rr_file_write_atomic("/nonexistent/dir/x", "a", 1, 0600, &e), RR_E_IO);
	assert_non_null(strstr(e.msg, "'/nonexistent/dir/x'"));
	rr_error_release(&e);
	rr_strbuf_release(&sb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* rr_file_replace_unchanged (issue 33): replaces only the text the edit was made from */
static void test_file_replace_unchanged(void **state)
{
	char dir[] = "/tmp/rr-file-XXXXXX";
	char path[256], cmd[512];
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pyproject.toml", dir);
	assert_int_equal(rr_file_write_atomic(path, "a = 1\n", 6, 0644, &e), RR_OK);
	assert_int_equal(rr_file_replace_unchanged(path, "a = 1\n", 6, "a = 2\n", 6, 0644, &e),
			 RR_OK);
	assert_int_equal(rr_file_read(AT_FDCWD, path, 100, 0, "p", &sb, &e), RR_OK);
	assert_string_equal(sb.buf, "a = 2\n");
	/* saved by someone else since it was read ("a = 1"): left as it is, RR_E_ENV */
	assert_int_equal(rr_file_replace_unchanged(path, "a = 1\n", 6, "a = 3\n", 6, 0644, &e),
			 RR_E_ENV);
	assert_non_null(strstr(e.msg, "changed since it was read"));
	rr_error_release(&e);
	assert_int_equal(rr_file_read(AT_FDCWD, path, 100, 0, "p", &sb, &e), RR_OK);
	assert_string_equal(sb.buf, "a = 2\n");
	/* a longer file that starts the same is no match either */
	assert_int_equal(rr_file_write_atomic(path, "a = 2\nb = 1\n", 12, 0644, &e), RR_OK);
	assert_int_equal(rr_file_replace_unchanged(path, "a = 2\n", 6, "x\n", 2, 0644, &e),
			 RR_E_ENV);
	rr_error_release(&e);
	/* no temporary left behind */
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) -eq 1", dir);
	assert_int_equal(system(cmd), 0);
	rr_strbuf_release(&sb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* JSON strings are valid UTF-8 whatever the input bytes (before: a raw 0xff went through) */
static void test_json_str_utf8(void **state)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	(void)state;

	rr_strbuf_add_json_str(&sb, "a\xff" "b");
	assert_string_equal(sb.buf, "\"a\\ufffdb\"");
	rr_strbuf_reset(&sb);
	/* overlong, surrogate, past U+10FFFF, truncated at the end; DEL and ESC escaped */
	rr_strbuf_add_json_str(&sb, "\xc0\x80|\xed\xa0\x80|\xf4\x90\x80\x80|\x1b[31m\x7f|\xe2\x82");
	assert_string_equal(sb.buf, "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd|"
				    "\\u001b[31m\\u007f|\\ufffd\\ufffd\"");
	rr_strbuf_reset(&sb);
	/* well-formed multibyte text passes unchanged */
	rr_strbuf_add_json_str(&sb, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \"q\" \\");
	assert_string_equal(sb.buf, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\\"q\\\" \\\\\"");
	rr_strbuf_reset(&sb);
	/* for the terminal: ESC, BEL, CR, DEL, C1 CSI and stray bytes escaped; tab and UTF-8 kept */
	rr_strbuf_add_printable(&sb, "a\x1b]0;t\x07\r\x7f\xc2\x9b\xff\tcaf\xc3\xa9");
	assert_string_equal(sb.buf, "a\\x1b]0;t\\x07\\x0d\\x7f\\xc2\\x9b\\xff\tcaf\xc3\xa9");
	rr_strbuf_reset(&sb);
	rr_strbuf_add_utf8(&sb, "x\xff\xc3\xa9");
	assert_string_equal(sb.buf, "x\xef\xbf\xbd\xc3\xa9");
	rr_strbuf_release(&sb);
}

/* rr_strv_dedupe keeps the first of each in order and frees the rest (extras: 100k of them) */
static void test_strv_dedupe(void **state)
{
	const char *in[] = {"b", "a", "b", "c", "a", "a", "d"};
	char **v = rr_xcalloc(RR_ARRAY_LEN(in), sizeof(*v));
	size_t n;
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(in); i++)
		v[i] = rr_xstrdup(in[i]);
	n = rr_strv_dedupe(v, RR_ARRAY_LEN(in), NULL, NULL);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], "b");
	assert_string_equal(v[1], "a");
	assert_string_equal(v[2], "c");
	assert_string_equal(v[3], "d");
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	/* many distinct and repeated ones: every kept string once, in first-seen order */
	v = rr_xrealloc(v, 3000 * sizeof(*v));
	for (size_t i = 0; i < 3000; i++)
		v[i] = rr_xasprintf("e%zu", i % 1000);
	n = rr_strv_dedupe(v, 3000, NULL, NULL);
	assert_int_equal(n, 1000);
	for (size_t i = 0; i < n; i++) {
		char want[32];
		snprintf(want, sizeof(want), "e%zu", i);
		assert_string_equal(v[i], want);
		free(v[i]);
	}
	free(v);
}

static void test_strv(void **state)
{
	struct rr_strv v = RR_STRV_INIT;
	char **arr;
	size_t n;

	(void)state;
	assert_true(rr_strv_push_unique(&v, "b"));
	rr_strv_take(&v, rr_xstrdup("a"));
	assert_false(rr_strv_push_unique(&v, "b"));
	rr_strv_pushn(&v, "cde", 1);
	rr_strv_push(&v, "a");
	assert_int_equal(v.n, 4);
	assert_null(v.v[v.n]); /* NULL-terminated for execv */
	assert_int_equal(rr_strv_find(&v, "c"), 2);
	assert_int_equal(rr_strv_find(&v, "z"), -1);
	rr_strv_sort_unique(&v);
	assert_int_equal(v.n, 3);
	assert_string_equal(v.v[0], "a");
	assert_string_equal(v.v[1], "b");
	assert_string_equal(v.v[2], "c");
	assert_null(v.v[3]);
	arr = rr_strv_detach(&v, &n);
	assert_int_equal(n, 3);
	assert_null(v.v);
	assert_int_equal(v.n, 0);
	rr_strv_free_array(arr, n);
	rr_strv_release(&v); /* empty: a no-op */
}

static void test_error_move(void **state)
{
	rr_error src = RR_ERROR_INIT, dst = RR_ERROR_INIT;

	(void)state;
	rr_fail(&dst, RR_E_IO, "old");
	rr_fail_at(&src, RR_E_PARSE, "f.txt", 3, 4, "text", "new");
	assert_int_equal(rr_error_move(&dst, &src), RR_E_PARSE);
	assert_int_equal(dst.code, RR_E_PARSE);
	assert_string_equal(dst.msg, "new");
	assert_string_equal(dst.path, "f.txt");
	assert_int_equal(dst.line, 3);
	assert_int_equal(src.code, RR_OK);
	assert_null(src.msg);
	/* no destination: the source is released */
	rr_fail(&src, RR_E_DATA, "dropped");
	assert_int_equal(rr_error_move(NULL, &src), RR_E_DATA);
	assert_null(src.msg);
	rr_error_release(&dst);
}

/*
 * the JSON writer: a stray byte is U+FFFD and not a vanished field, NULL is null, and
 * RR_JSON_LINES puts members and objects of arrays one a line, the data unchanged
 */
static void test_json_writer(void **state)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	char a0[] = "a\xff", a1[] = "\x1b[31m", *v[] = {a0, a1};
	json_t *o = json_object(), *a = json_array(), *e;
	(void)state;

	json_object_set_new(o, "s", rr_json_str("caf\xc3\xa9\xc0"));
	json_object_set_new(o, "n", rr_json_str(NULL));
	json_object_set_new(o, "v", rr_json_strs(v, 2));
	json_object_set(o, "a", a);
	rr_json_dump(json_incref(o), RR_JSON_LINE, &sb);
	assert_string_equal(sb.buf, "{\"s\":\"caf\xc3\xa9\xef\xbf\xbd\",\"n\":null,"
				    "\"v\":[\"a\xef\xbf\xbd\",\"\\u001B[31m\"],\"a\":[]}\n");
	rr_strbuf_reset(&sb);
	json_array_append_new(a, e = json_object());
	json_object_set_new(e, "x", json_integer(1));
	json_array_append_new(a, json_object());
	json_decref(a);
	rr_json_dump(o, RR_JSON_LINES, &sb);
	assert_string_equal(sb.buf, "{\"s\":\"caf\xc3\xa9\xef\xbf\xbd\",\n\"n\":null,\n"
				    "\"v\":[\"a\xef\xbf\xbd\",\"\\u001B[31m\"],\n"
				    "\"a\":[\n{\"x\":1},\n{}]}\n");
}

/* the one rule for text from structured inputs (issue 33): what ends a line for pip */
static void test_text_unsafe(void **state)
{
	static const struct {
		const char *s;
		bool token;
		size_t at;
		uint32_t cp;
	} cases[] = {
	    {"https://x/a.whl", false, SIZE_MAX, 0},
	    {"a b", false, SIZE_MAX, 0},
	    {"a b", true, 1, ' '},
	    {"ab\ncd", false, 2, '\n'},
	    {"ab\rcd", false, 2, '\r'},
	    {"ab\vcd", false, 2, 0x0b},
	    {"ab\fcd", false, 2, 0x0c},
	    {"ab\x1d", false, 2, 0x1d},
	    {"ab\tcd", false, 2, '\t'},
	    {"ab\x7f", false, 2, 0x7f},
	    {"ab\xc2\x85", false, 2, 0x85},
	    {"ab\xc2\x9b", false, 2, 0x9b},
	    {"ab\xc2\xa0", false, SIZE_MAX, 0}, /* NBSP: text */
	    {"ab\xe2\x80\xa8", false, 2, 0x2028},
	    {"ab\xe2\x80\xa9", false, 2, 0x2029},
	    {"ab\xe2\x80\xa7", false, SIZE_MAX, 0},
	    {"\xc3\xa9t\xc3\xa9", true, SIZE_MAX, 0},
	};
	rr_error e = RR_ERROR_INIT;
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(cases); i++) {
		uint32_t cp = 0;
		size_t at = rr_text_unsafe(cases[i].s, strlen(cases[i].s), cases[i].token, &cp);
		assert_int_equal(at, cases[i].at);
		if (at != SIZE_MAX)
			assert_int_equal(cp, cases[i].cp);
	}
	/* NUL inside the length counts: a string is not cut short */
	assert_int_equal(rr_text_unsafe("2.32\0"
					"5",
					6, false, NULL),
			 4);
	assert_int_equal(rr_text_check("2.32\0"
				       "5",
				       6, false, "'version'", &e),
			 RR_E_PARSE);
	assert_string_equal(e.msg, "'version' holds U+0000 (NUL): refused, a value that goes into "
				   "a plan line cannot hold it");
	rr_error_release(&e);
	assert_int_equal(rr_text_check("a\xe2\x80\xa8"
				       "b",
				       5, false, "'url'", &e),
			 RR_E_PARSE);
	assert_non_null(strstr(e.msg, "U+2028 (a line break)"));
	rr_error_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256_vectors),
	    cmocka_unit_test(test_strbuf),
	    cmocka_unit_test(test_error_origin),
	    cmocka_unit_test(test_text_unsafe),
	    cmocka_unit_test(test_parse_u64),
	    cmocka_unit_test(test_redact),
	    cmocka_unit_test(test_url_userinfo),
	    cmocka_unit_test(test_strv_dedupe),
	    cmocka_unit_test(test_strv),
	    cmocka_unit_test(test_error_move),
	    cmocka_unit_test(test_json_str_utf8),
	    cmocka_unit_test(test_json_writer),
	    cmocka_unit_test(test_file_read),
	    cmocka_unit_test(test_file_write_atomic),
	    cmocka_unit_test(test_file_replace_unchanged),
	};
	return cmocka_run_group_tests_name("base", tests, NULL, NULL);
}
