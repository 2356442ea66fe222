#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/strbuf.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_error_origin),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_redact),
	};
	return cmocka_run_group_tests_name("base", tests, NULL, NULL);
}
