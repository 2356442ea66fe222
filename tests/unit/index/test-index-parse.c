/* unit tests of the index layer's pure parts: page parsers, cache format, redaction */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "index/index-private.h"
#include "json-reference.h"
#include "keep-reference.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/index.h"

#define PAGE "https://download.pytorch.org/whl/rocm6.4/torch/"

static const char pytorch_html[] =
	"<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for torch</h1>\n"
	"    <a href=\"/whl/rocm6.4/torch-2.8.0%2Brocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl"
	"#sha256=E8D6FC582087A508F058642C4F2D8913A9F5352686F8B4B4FCB743B6B7AE0E0F\" "
	"data-dist-info-metadata=\"sha256=8ed134d369be02c9b977ccedc9d88898e624089b679f1e07b031ba4ecd9898f6\" "
	"data-core-metadata=\"sha256=1111111111111111111111111111111111111111111111111111111111111111\">"
	"torch-2.8.0+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl</a><br/>\n"
	"<!-- <a href=\"/whl/commented-1.0-py3-none-any.whl\">x</a> -->\n"
	"    <A HREF='https://download-r2.pytorch.org/whl/torch-2.9.1%2Brocm6.4-cp311-cp311-linux_x86_64.whl'"
	" data-requires-python=\"&gt;=3.10\" data-yanked=\"bad &amp; broken &#233;&#x41;&bogus;\">t</A>\n"
	"    <a href=\"../torch-2.7.1.tar.gz#md5=abc\" data-yanked>sdist</a>\n"
	"    <a href=\"torch-2.0.0.win32.exe\">ignored</a>\n"
	"    <a name=\"anchor\">no href</a>\n"
	"  </body>\n</html>\n<!--SERIAL 1-->\n";

static void test_html_pytorch_style(void **state)
{
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_index_parse_html(pytorch_html, sizeof(pytorch_html) - 1, PAGE, "IDX", &p,
					     &err),
			 RR_OK);
	assert_int_equal(p.nfiles, 3);
	/* root-relative href resolved against the page, %2B decoded in the filename only */
	assert_string_equal(p.files[0].url, "https://download.pytorch.org/whl/rocm6.4/"
					    "torch-2.8.0%2Brocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl");
	assert_string_equal(p.files[0].filename,
			    "torch-2.8.0+rocm6.4-cp312-cp312-manylinux_2_28_x86_64.whl");
	assert_string_equal(p.files[0].version, "2.8.0+rocm6.4");
	assert_true(p.files[0].is_wheel);
	assert_string_equal(p.files[0].sha256,
			    "e8d6fc582087a508f058642c4f2d8913a9f5352686f8b4b4fcb743b6b7ae0e0f");
	/* PEP 714: data-core-metadata wins over data-dist-info-metadata */
	assert_true(p.files[0].has_metadata);
	assert_string_equal(p.files[0].metadata_sha256,
			    "1111111111111111111111111111111111111111111111111111111111111111");
	assert_false(p.files[0].yanked);
	assert_null(p.files[0].requires_python);
	assert_int_equal(p.files[0].size, -1);
	assert_string_equal(p.files[0].index_url, "IDX");

	assert_string_equal(p.files[1].requires_python, ">=3.10");
	assert_true(p.files[1].yanked);
	assert_string_equal(p.files[1].yanked_reason, "bad & broken \xc3\xa9" "A&bogus;");
	assert_false(p.files[1].has_metadata);
	assert_null(p.files[1].sha256);

	assert_string_equal(p.files[2].url, "https://download.pytorch.org/whl/rocm6.4/torch-2.7.1.tar.gz");
	assert_false(p.files[2].is_wheel);
	assert_string_equal(p.files[2].version, "2.7.1");
	assert_true(p.files[2].yanked);
	assert_null(p.files[2].yanked_reason);
	assert_null(p.files[2].sha256); /* md5 only: not a hash we use */
	rr_index_project_release(&p);
}

static void test_html_repository_version(void **state)
{
	static const char v2[] = "<meta name=\"pypi:repository-version\" content=\"2.0\">"
				 "<a href=\"a-1.0.tar.gz\">a</a>";
	static const char base[] = "<base href=\"https://files.example/x/\"><a href=\"a-1.0.tar.gz\">a</a>";
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_index_parse_html(v2, sizeof(v2) - 1, "https://u:secret@i.example/a/",
					     "I", &p, &err),
			 RR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "'2.0'"));
	assert_null(strstr(err.msg, "secret"));
	rr_error_release(&err);
	assert_int_equal(rr_index_parse_html(base, sizeof(base) - 1, "https://i.example/a/", "I", &p,
					     &err),
			 RR_OK);
	assert_int_equal(p.nfiles, 1);
	assert_string_equal(p.files[0].url, "https://files.example/x/a-1.0.tar.gz");
	rr_index_project_release(&p);
}

static const char json_page[] =
	"{\"meta\":{\"api-version\":\"1.3\",\"_last-serial\":5},\"name\":\"Typing_Extensions\","
	"\"versions\":[\"4.15.0\"],\"files\":["
	"{\"filename\":\"typing_extensions-4.15.0-py3-none-any.whl\","
	"\"url\":\"../../files/typing_extensions-4.15.0-py3-none-any.whl#frag\","
	"\"hashes\":{\"sha256\":\"ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB\",\"md5\":\"x\"},"
	"\"requires-python\":\">=3.9\",\"size\":1234,\"yanked\":false,"
	"\"data-dist-info-metadata\":{\"sha256\":\"2222222222222222222222222222222222222222222222222222222222222222\"},"
	"\"core-metadata\":true,\"unknown-key\":[1,2]},"
	"{\"filename\":\"typing_extensions-4.14.0.tar.gz\",\"url\":\"https://f.example/t-4.14.0.tar.gz\","
	"\"hashes\":{},\"requires-python\":null,\"yanked\":\"broken\","
	"\"data-dist-info-metadata\":{\"sha256\":\"2222222222222222222222222222222222222222222222222222222222222222\"}},"
	"{\"filename\":\"typing_extensions-4.0.0.egg\",\"url\":\"x.egg\",\"hashes\":{}},"
	"{\"filename\":\"typing_extensions-3.0.0.zip\",\"url\":\"x.zip\",\"hashes\":{},\"yanked\":\"\"}"
	"]}";

static void test_json_pep691(void **state)
{
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_index_parse_json(json_page, sizeof(json_page) - 1,
					     "https://i.example/simple/typing-extensions/", "I", &p,
					     &err),
			 RR_OK);
	assert_string_equal(p.key, "typing-extensions");
	assert_int_equal(p.nfiles, 3);
	assert_string_equal(p.files[0].url,
			    "https://i.example/files/typing_extensions-4.15.0-py3-none-any.whl");
	assert_string_equal(p.files[0].sha256,
			    "abababababababababababababababababababababababababababababababab");
	assert_string_equal(p.files[0].requires_python, ">=3.9");
	assert_int_equal(p.files[0].size, 1234);
	/* core-metadata (true, no hash) is preferred over data-dist-info-metadata's hash */
	assert_true(p.files[0].has_metadata);
	assert_null(p.files[0].metadata_sha256);
	assert_false(p.files[0].yanked);

	assert_false(p.files[1].is_wheel);
	assert_string_equal(p.files[1].version, "4.14.0");
	assert_null(p.files[1].sha256);
	assert_null(p.files[1].requires_python);
	assert_true(p.files[1].yanked);
	assert_string_equal(p.files[1].yanked_reason, "broken");
	assert_true(p.files[1].has_metadata);
	assert_string_equal(p.files[1].metadata_sha256,
			    "2222222222222222222222222222222222222222222222222222222222222222");
	/* PEP 592: an empty string still means yanked */
	assert_true(p.files[2].yanked);
	assert_null(p.files[2].yanked_reason);
	assert_string_equal(p.files[2].version, "3.0.0");
	rr_index_project_release(&p);
}

static void test_json_errors(void **state)
{
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;
	static const char trunc[] = "{\"meta\":{\"api-version\":\"1.1\"},\"files\":[{\"filename\":";
	static const char v2[] = "{\"meta\":{\"api-version\":\"2.0\"},\"files\":[]}";
	static const char nofiles[] = "{\"meta\":{\"api-version\":\"1.0\"}}";
	static const char badfile[] = "{\"files\":[{\"filename\":3,\"url\":\"x\"}]}";
	(void)state;

	assert_int_equal(rr_index_parse_json(trunc, sizeof(trunc) - 1,
					     "https://user:pw@i.example/simple/x/", "I", &p, &err),
			 RR_E_PARSE);
	assert_non_null(strstr(err.msg, "https://***@i.example/simple/x/"));
	assert_null(strstr(err.msg, "pw"));
	assert_non_null(strstr(err.msg, "invalid JSON"));
	rr_error_release(&err);
	assert_int_equal(rr_index_parse_json(v2, sizeof(v2) - 1, "https://i/", "I", &p, &err),
			 RR_E_UNSUPPORTED);
	rr_error_release(&err);
	assert_int_equal(rr_index_parse_json(nofiles, sizeof(nofiles) - 1, "https://i/", "I", &p, &err),
			 RR_E_PARSE);
	rr_error_release(&err);
	assert_int_equal(rr_index_parse_json(badfile, sizeof(badfile) - 1, "https://i/", "I", &p, &err),
			 RR_E_PARSE);
	assert_non_null(strstr(err.msg, "files[0]"));
	rr_error_release(&err);
	assert_int_equal(p.nfiles, 0);
}

static void test_jsonapi(void **state)
{
	static const char doc[] =
		"{\"info\":{\"name\":\"RR_Api.Only\",\"version\":\"1.0.0\"},\"releases\":{\"1.0.0\":["
		"{\"filename\":\"rr_api_only-1.0.0-py3-none-any.whl\",\"url\":\"/files/rr_api_only-1.0.0-py3-none-any.whl\","
		"\"digests\":{\"sha256\":\"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd\"},"
		"\"requires_python\":\">=3.8\",\"size\":99,\"yanked\":true,\"yanked_reason\":\"oops\"}]},\"urls\":[]}";
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_index_parse_jsonapi(doc, sizeof(doc) - 1, "http://h:1/pypi/rr-api-only/json",
						"I", &p, &err),
			 RR_OK);
	assert_string_equal(p.key, "rr-api-only");
	assert_int_equal(p.nfiles, 1);
	assert_string_equal(p.files[0].url, "http://h:1/files/rr_api_only-1.0.0-py3-none-any.whl");
	assert_true(p.files[0].yanked);
	assert_string_equal(p.files[0].yanked_reason, "oops");
	assert_int_equal(p.files[0].size, 99);
	assert_false(p.files[0].has_metadata);
	rr_index_project_release(&p);
}

static void test_redact_and_names(void **state)
{
	char *s;
	char *u = NULL, *up = NULL;
	(void)state;

	s = rr_url_redact("https://user:p%40ss@host.example:8443/simple/?a=b@c");
	assert_string_equal(s, "https://***@host.example:8443/simple/?a=b@c");
	free(s);
	s = rr_url_redact("https://token@h/x");
	assert_string_equal(s, "https://***@h/x");
	free(s);
	s = rr_url_redact("http://h/a@b");
	assert_string_equal(s, "http://h/a@b");
	free(s);
	rr_url_split_userinfo("https://user:p%40ss@h.example/simple/", &u, &up);
	assert_string_equal(u, "https://h.example/simple/");
	assert_string_equal(up, "user:p@ss");
	free(u);
	free(up);
	s = rr_url_realm("HTTPS://H.Example/x");
	assert_string_equal(s, "https://h.example:443");
	free(s);
	s = rr_name_normalize("Pytorch_Triton.ROCm");
	assert_string_equal(s, "pytorch-triton-rocm");
	free(s);
	s = rr_name_normalize("a__-._b");
	assert_string_equal(s, "a-b");
	free(s);
}

static void test_cache_roundtrip(void **state)
{
	char dir[] = "/tmp/rr-cache-test-XXXXXX";
	struct rr_cache_entry e = {.status = 200, .url = (char *)"http://h/simple/x/",
				   .etag = (char *)"\"abc\"", .content_type = (char *)"text/html",
				   .stored = 1000, .max_age = 600, .body = RR_STRBUF_INIT};
	struct rr_cache_entry got = {.body = RR_STRBUF_INIT};
	rr_error err = RR_ERROR_INIT;
	RR_AUTO_STRBUF struct rr_strbuf raw = RR_STRBUF_INIT;
	char *path;
	long long ma;
	bool ns, nc;
	(void)state;

	assert_non_null(mkdtemp(dir));
	rr_strbuf_adds(&e.body, "<html>\n\nbody with\nblank lines</html>");
	assert_int_equal(rr_cache_store(dir, "simple", &e, &err), RR_OK);
	assert_int_equal(rr_cache_load(dir, "simple", "http://h/simple/x/", &got, &err), RR_OK);
	assert_string_equal(got.body.buf, e.body.buf);
	assert_string_equal(got.etag, "\"abc\"");
	assert_int_equal(got.max_age, 600);
	assert_true(rr_cache_fresh(&got, 1599));
	assert_false(rr_cache_fresh(&got, 1600));
	/* a different accept class is a different entry */
	assert_int_equal(rr_cache_load(dir, "file", "http://h/simple/x/", &got, &err), RR_E_NOTFOUND);
	rr_error_release(&err);
	/* any damage is a miss, never a wrong body */
	path = rr_cache_path(dir, "simple", "http://h/simple/x/");
	assert_int_equal(rr_strbuf_read_file(&raw, path, 1 << 20, &err), RR_OK);
	for (size_t cut = 0; cut < raw.len; cut += 7) {
		assert_int_not_equal(rr_cache_parse(raw.buf, cut, &got, &err), RR_OK);
		rr_error_release(&err);
	}
	raw.buf[raw.len - 3] ^= 1;
	assert_int_not_equal(rr_cache_parse(raw.buf, raw.len, &got, &err), RR_OK);
	rr_error_release(&err);
	unlink(path);
	free(path);
	rr_cache_entry_release(&got);

	/* entries share 16 directories: 64 of them make no more */
	for (int i = 0; i < 64; i++) {
		RR_AUTOFREE char *u = rr_xasprintf("http://h/simple/p%d/", i);
		e.url = u;
		assert_int_equal(rr_cache_store(dir, "simple", &e, &err), RR_OK);
		assert_int_equal(rr_cache_load(dir, "simple", u, &got, &err), RR_OK);
		assert_string_equal(got.url, u);
		rr_cache_entry_release(&got);
	}
	{
		RR_AUTOFREE char *cmd = rr_xasprintf(
		    "test $(find '%s' -mindepth 2 -type d | wc -l) -le 16 && "
		    "test $(find '%s' -type f | wc -l) -eq 64 && rm -rf '%s'",
		    dir, dir, dir);
		assert_int_equal(system(cmd), 0);
	}
	rr_strbuf_release(&e.body);

	rr_cache_control_parse("public, max-age=600, no-cache", &ma, &ns, &nc);
	assert_int_equal(ma, 600);
	assert_true(nc);
	assert_false(ns);
	rr_cache_control_parse("no-store", &ma, &ns, &nc);
	assert_int_equal(ma, -1);
	assert_true(ns);
}

static void test_pkginfo_static(void **state)
{
	const char *why;
	static const char s22[] = "Metadata-Version: 2.2\nName: x\nVersion: 1\nRequires-Dist: a\n\nbody\n";
	static const char dyn[] = "Metadata-Version: 2.4\nName: x\nDynamic: license\nDynamic: Requires-Dist\n\n";
	static const char old[] = "Metadata-Version: 2.1\nName: x\n\n";
	static const char dyn_body[] = "Metadata-Version: 2.2\n\nDynamic: Requires-Dist\n";
	(void)state;

	assert_true(rr_dist_pkginfo_static(s22, sizeof(s22) - 1, &why));
	assert_false(rr_dist_pkginfo_static(dyn, sizeof(dyn) - 1, &why));
	assert_non_null(strstr(why, "dynamic"));
	assert_false(rr_dist_pkginfo_static(old, sizeof(old) - 1, &why));
	assert_non_null(strstr(why, "2.2"));
	/* only the header block counts */
	assert_true(rr_dist_pkginfo_static(dyn_body, sizeof(dyn_body) - 1, &why));
}


static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_project(const struct rr_index_project *a, const struct rr_index_project *b)
{
	if (a->nfiles != b->nfiles || !same_str(a->key, b->key))
		return false;
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct rr_index_file *x = &a->files[i], *y = &b->files[i];
		if (!same_str(x->filename, y->filename) || !same_str(x->url, y->url) ||
		    !same_str(x->sha256, y->sha256) || !same_str(x->requires_python, y->requires_python) ||
		    x->yanked != y->yanked || !same_str(x->yanked_reason, y->yanked_reason) ||
		    x->has_metadata != y->has_metadata ||
		    !same_str(x->metadata_sha256, y->metadata_sha256) || x->is_wheel != y->is_wheel ||
		    !same_str(x->version, y->version) || x->size != y->size)
			return false;
	}
	return true;
}

/* the streaming scanner and Jansson agree on documents chosen to split them */
/*
 * the early filter (struct rr_index_keep): the wheels no Linux CPython, or not the
 * target, can install are left out as a page is read, by their names alone, and the
 * page comes out as it would read whole and then filtered: names that are no wheels,
 * names to decode (%2B), relative and odd links, upper-case .WHL, a wheel name with
 * too few parts, a JSON file with a bad "url" or "hashes" (still an error when left out)
 */
/* a page of links numbered from 1 as they stand */
static void keep_page(struct rr_strbuf *out)
{
	static const char *const links[] = {
	    "https://f/p/pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl#sha256=x",
	    "https://f/p/pkg-1.0-cp312-cp312-win_amd64.whl",
	    "https://f/p/pkg-1.0-cp312-cp312-macosx_11_0_arm64.whl?x=1",
	    "https://f/p/pkg-1.0-cp312-cp312-musllinux_1_1_x86_64.whl",
	    "https://f/p/pkg-1.0-pp310-pypy310_pp73-manylinux_2_17_x86_64.whl",
	    "https://f/p/pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
	    "https://f/p/pkg-1.0-cp312-cp312-manylinux_2_17_aarch64.whl",
	    "https://f/p/pkg-1.0-cp312-cp312-manylinux_2_34_x86_64.whl",
	    "https://f/p/pkg-1.0-py3-none-any.whl",
	    "https://f/p/pkg-1.0-cp38-abi3-manylinux2014_x86_64.whl",
	    "https://f/p/pkg-1.0.tar.gz",
	    "https://f/p/pkg-1.0%2Blocal-cp312-cp312-win_amd64.whl",
	    "../../p/pkg-1.1-cp312-cp312-win32.whl",
	    "/p/pkg-1.1-cp312-cp312-manylinux1_x86_64.whl",
	    "https://f/p/PKG-1.2-CP312-cp312-WIN_AMD64.WHL",
	    "https://f/p/pkg-cp312-win_amd64.whl",
	    "https://f/p/pkg--1.0-cp312-cp312-win_amd64.whl",
	    "https://f/p/pkg-1.0-cp312-cp312-win_amd64.whl/",
	    "https://u@f.example/p/pkg-1.3-cp312-cp312-win_amd64.whl",
	    "https://f/p/a/../pkg-1.4-cp312-cp312-win_amd64.whl",
	    "https://f/p/pkg-1.5-1-cp312-cp312-win_amd64.whl",
	    "https://f/p/pkg-1.0-cp312-cp312-linux_x86_64.whl",
	};

	for (size_t i = 0; i < RR_ARRAY_LEN(links); i++)
		rr_strbuf_addf(out, "<a href=\"%s\">%zu</a>\n", links[i], i + 1);
}

static const char keep_json[] = "{\"meta\":{\"api-version\":\"1.1\"},"
				"\"name\":\"pkg\",\"files\":["
				"{\"filename\":\"pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl\","
				"\"url\":\"https://f/p1.whl\",\"hashes\":{}},"
				"{\"filename\":\"pkg-1.0-cp312-cp312-win_amd64.whl\","
				"\"url\":\"https://f/p2.whl\",\"hashes\":{}},"
				"{\"filename\":\"pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl\","
				"\"url\":\"../p3.whl\",\"hashes\":{}},"
				"{\"filename\":\"pkg-1.0-py3-none-any.whl\","
				"\"url\":\"https://f/p4.whl\",\"hashes\":{}},"
				"{\"filename\":\"pkg-1.0.tar.gz\","
				"\"url\":\"https://f/p5.tar.gz\",\"hashes\":{}}]}";

static const char keep_json_bad_url[] = "{\"meta\":{\"api-version\":\"1.1\"},"
					"\"name\":\"pkg\",\"files\":["
					"{\"filename\":\"pkg-1.0-cp312-cp312-win_amd64.whl\","
					"\"url\":\"http://[bad\",\"hashes\":{}}]}";

static const char keep_json_bad_hashes[] = "{\"meta\":{\"api-version\":\"1.1\"},"
					   "\"name\":\"pkg\",\"files\":["
					   "{\"filename\":\"pkg-1.0-cp312-cp312-win_amd64.whl\","
					   "\"url\":\"https://f/x.whl\",\"hashes\":1}]}";

static void test_keep_early(void **state)
{
	struct rr_target t312, t311;
	const struct rr_target *targets[] = {NULL, &t312, &t311};
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;
	RR_AUTO_STRBUF struct rr_strbuf html = RR_STRBUF_INIT;
	const char *keep_html;
	const char *why;
	(void)state;

	keep_page(&html);
	keep_html = html.buf;
	rr_target_init(&t312, "3.12", "x86_64", 2, 28);
	rr_target_init(&t311, "3.11", "x86_64", 2, 28);
	for (size_t i = 0; i < RR_ARRAY_LEN(targets) * 3; i++) {
		const struct rr_target *t = targets[i % 3];
		/* no project check; this page's project; another one's (every file ignored) */
		const char *key = i / 3 == 0 ? NULL : i / 3 == 1 ? "pkg" : "other";
		bool files = i / 3 == 0;
		assert_true(rr_test_keep_agrees(false, keep_html, html.len, "https://f/p/x/", t,
						key, files, &why));
		assert_true(rr_test_keep_agrees(false, keep_html, html.len, "file:///srv/p/x/", t,
						key, files, &why));
		assert_true(rr_test_keep_agrees(true, keep_json, sizeof(keep_json) - 1,
						"https://f.example/simple/pkg/", t, key, files,
						&why));
		assert_true(
		    rr_test_keep_agrees(true, keep_json_bad_url, sizeof(keep_json_bad_url) - 1,
					"https://f.example/simple/pkg/", t, key, files, &why));
		assert_true(rr_test_keep_agrees(
		    true, keep_json_bad_hashes, sizeof(keep_json_bad_hashes) - 1,
		    "https://f.example/simple/pkg/", t, key, files, &why));
	}
	/* the reading itself leaves them out: for CPython 3.12 on x86_64 with glibc 2.28,
	 * links 1, 9, 10, 11, 14 and 22 stay, 16-18 are no wheels (not taken at all), and
	 * 12 (a name to decode) and 20 (a path to normalise) are read to be judged */
	{
		struct rr_index_keep k = {
		    .target = &t312, .key = "pkg", .name = RR_STRBUF_INIT, .norm = RR_STRBUF_INIT};
		assert_int_equal(rr_index_parse_html_keep(keep_html, html.len, "https://f/p/x/",
							  "I", &k, &p, &err),
				 RR_OK);
		rr_index_keep_release(&k);
		assert_int_equal(p.nfiles, 6);
		assert_int_equal(p.nforeign, 13);
		assert_string_equal(p.files[0].filename,
				    "pkg-1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
		assert_string_equal(p.files[4].url,
				    "https://f/p/pkg-1.1-cp312-cp312-manylinux1_x86_64.whl");
		rr_index_project_release(&p);
	}
	{
		struct rr_index_keep k = {
		    .target = NULL, .name = RR_STRBUF_INIT, .norm = RR_STRBUF_INIT};
		assert_int_equal(rr_index_parse_json_keep(keep_json, sizeof(keep_json) - 1,
							  "https://f.example/simple/pkg/", "I", &k,
							  &p, &err),
				 RR_OK);
		rr_index_keep_release(&k);
		assert_int_equal(p.nfiles, 4);
		assert_int_equal(p.nforeign, 1);
		rr_index_project_release(&p);
	}
}

/*
 * a plain absolute URL (taken as it is, not parsed): http(s), every byte '!'..'~' but
 * '\\' and '@', no "/./" or "/../"; each refused byte found at every position (the
 * check reads eight bytes at a time, then the rest one by one)
 */
static void test_href_plain(void **state)
{
	static const char bad[] = {' ', '\t', '\x01', '\\', '@', '\x7f', '\x80', '\xff'};
	char u[64];
	(void)state;

	assert_true(rr_index_href_plain("https://f.example/p/a-1.0-py3-none-any.whl#sha256=ab"));
	assert_true(rr_index_href_plain("http://f/a/.b/..c/x.whl"));
	assert_false(rr_index_href_plain("ftp://f/x.whl"));
	assert_false(rr_index_href_plain("/x.whl"));
	assert_false(rr_index_href_plain("https://f/a/./x.whl"));
	assert_false(rr_index_href_plain("https://f/a/../x.whl"));
	for (size_t i = 0; i < RR_ARRAY_LEN(bad); i++) {
		for (size_t at = 8; at < 30; at++) {
			snprintf(u, sizeof(u), "https://f.example/p/abcdefghijklm.whl");
			u[at] = bad[i];
			assert_false(rr_index_href_plain(u));
		}
	}
}

static void test_json_scanner_vs_jansson(void **state)
{
	static const char *const docs[] = {
		"{}",
		"[]",
		"\"x\"",
		"{\"files\":[]} x",
		"{\"files\":[]}  \n",
		"{\"files\":[],}",
		"{\"files\":[1,]}",
		"{\"files\":[01]}",
		"{\"files\":[-0, 1.5e3, 1E+2, -]}",
		"{\"files\":[1.]}",
		"{\"files\":[99999999999999999999]}",
		"{\"files\":[1e999]}",
		"{\"files\":[1e-999]}",
		"{\"files\":[truex]}",
		"{\"files\":[nul]}",
		"{\"files\":[\"\\u0000\"]}",
		"{\"files\":[\"\\ud800\"]}",
		"{\"files\":[\"\\udc00\"]}",
		"{\"files\":[\"\\ud83d\\ude00\"]}",
		"{\"files\":[\"\\x\"]}",
		"{\"files\":[\"a\tb\"]}",
		"{\"files\":[\"\xc3\x28\"]}",
		"{\"files\":[\"\xe0\x80\x80\"]}",
		"{\"files\":[\"\xed\xa0\x80\"]}",
		"{\"files\":[\"\xf4\x90\x80\x80\"]}",
		"{\"files\":[\"\xc3\xa9\"]}",
		"{\"meta\":null,\"files\":[]}",
		"{\"meta\":{\"api-version\":\"1.0\"},\"meta\":{},\"files\":[]}",
		"{\"meta\":{},\"meta\":{\"api-version\":\"1.0\"},\"files\":[]}",
		"{\"files\":{},\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\"}]}",
		"{\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\"}],\"files\":7}",
		"{\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\",\"hashes\":[]}]}",
		"{\"files\":[{\"filename\":\"a-1.0.egg\",\"url\":\"a\",\"hashes\":[]}]}",
		"{\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\",\"hashes\":{\"sha256\":\"0000000000000000000000000000000000000000000000000000000000000000\",\"sha256\":1}}]}",
		"{\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\",\"core-metadata\":false,\"dist-info-metadata\":true}]}",
		"{\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\",\"dist-info-metadata\":{\"sha256\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}}]}",
		"{\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\",\"size\":1.0,\"yanked\":\"\\u00e9\"}]}",
		"{\"files\":[{\"filename\":\"a-1.0.tar.gz\",\"url\":\"a\",\"size\":-5,\"requires-python\":\"\"}]}",
		"{\"files\":[{\"url\":\"a\"}]}",
		"{\"files\":[{\"filename\":\"\",\"url\":\"a\"}]}",
		"{\"files\":[7]}",
		"{\"meta\":{\"api-version\":\"2.1\"},\"files\":[7]}",
		"{\"meta\":{\"api-version\":\"x\"},\"files\":[]}",
		"{\"name\":\"A_B\",\"files\":[{\"filename\":\"a_b-1-py3-none-any.whl\",\"url\":\"http://h/x y\"}]}",
		"\xef\xbb\xbf{\"files\":[]}",
		"",
		"   ",
	};
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(docs); i++) {
		struct rr_index_project a = {0}, b = {0};
		rr_error ea = RR_ERROR_INIT, eb = RR_ERROR_INIT;
		rr_err ra = rr_index_parse_json(docs[i], strlen(docs[i]), "https://i.example/s/p/", "I",
						&a, &ea);
		rr_err rb = rr_test_parse_json_jansson(docs[i], strlen(docs[i]),
							"https://i.example/s/p/", "I", &b, &eb);
		if (ra != rb || !same_project(&a, &b))
			fail_msg("doc %zu '%s': scanner %d (%s) vs Jansson %d (%s)", i, docs[i], ra,
				 ea.msg ? ea.msg : "", rb, eb.msg ? eb.msg : "");
		rr_index_project_release(&a);
		rr_index_project_release(&b);
		rr_error_release(&ea);
		rr_error_release(&eb);
	}
	/* deep nesting: Jansson's limit is 2048 levels of values */
	for (int depth = 2046; depth <= 2050; depth++) {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		struct rr_index_project a = {0}, b = {0};
		rr_err ra, rb;
		rr_strbuf_adds(&sb, "{\"x\":");
		for (int i = 0; i < depth; i++)
			rr_strbuf_addch(&sb, '[');
		rr_strbuf_addch(&sb, '1');
		for (int i = 0; i < depth; i++)
			rr_strbuf_addch(&sb, ']');
		rr_strbuf_adds(&sb, ",\"files\":[]}");
		ra = rr_index_parse_json(sb.buf, sb.len, "https://i/", "I", &a, NULL);
		rb = rr_test_parse_json_jansson(sb.buf, sb.len, "https://i/", "I", &b, NULL);
		assert_int_equal(ra, rb);
		rr_strbuf_release(&sb);
	}
}

/* a page's digest loads back to the same files; damage is refused, never half-read */
static const char digest_page[] =
	"<a href=\"/p/demo-1.0-cp312-cp312-manylinux_2_28_x86_64.whl#sha256="
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" "
	"data-requires-python=\"&gt;=3.10\" data-core-metadata=\"true\">a</a>\n"
	"<a href=\"/p/demo-1.0-cp312-cp312-win_amd64.whl\">b</a>\n"
	"<a href=\"/p/demo-1.0-cp312-cp312-macosx_11_0_arm64.whl\">c</a>\n"
	"<a href=\"/p/demo-1.0-pp310-pypy310_pp73-manylinux_2_17_x86_64.whl\">d</a>\n"
	"<a href=\"/p/demo-1.0-cp312-abi3-macosx_10_9_x86_64.macosx_11_0_arm64.whl\">e</a>\n"
	"<a href=\"/p/demo-1.0-py3-none-any.whl\" data-yanked=\"oops\">f</a>\n"
	"<a href=\"/p/demo-1.0-cp39-abi3-win_amd64.manylinux2014_aarch64.whl\">g</a>\n"
	"<a href=\"/p/demo-1.0.tar.gz\">h</a>\n";

static void test_digest_roundtrip(void **state)
{
	struct rr_index_project p = {0}, q = {0};
	struct rr_strbuf d = RR_STRBUF_INIT;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_index_parse_html(digest_page, sizeof(digest_page) - 1,
					     "https://i.example/simple/demo/", "IDX", &p, &err),
			 RR_OK);
	assert_int_equal(p.nfiles, 8);
	rr_index_project_drop_foreign(&p);
	/* kept: the manylinux cp312 wheel, the py3-none-any one, the wheel with one
	 * Linux platform among others, and the sdist; left out: windows, macOS, PyPy */
	assert_int_equal(p.nfiles, 4);
	assert_int_equal(p.nforeign, 4);
	assert_string_equal(p.files[0].filename, "demo-1.0-cp312-cp312-manylinux_2_28_x86_64.whl");
	assert_string_equal(p.files[1].filename, "demo-1.0-py3-none-any.whl");
	assert_string_equal(p.files[2].filename,
			    "demo-1.0-cp39-abi3-win_amd64.manylinux2014_aarch64.whl");
	assert_string_equal(p.files[3].filename, "demo-1.0.tar.gz");
	rr_index_project_digest(&p, &d);
	assert_true(rr_index_is_digest(d.buf, d.len));
	assert_int_equal(rr_index_parse_digest(d.buf, d.len, "U", "IDX2", &q, &err), RR_OK);
	assert_int_equal(q.nfiles, 4);
	assert_int_equal(q.nforeign, 4);
	assert_non_null(q.arena);
	for (size_t i = 0; i < 4; i++) {
		const struct rr_index_file *x = &p.files[i], *y = &q.files[i];
		assert_string_equal(x->filename, y->filename);
		assert_string_equal(x->url, y->url);
		assert_string_equal(x->version, y->version);
		assert_int_equal(x->yanked, y->yanked);
		assert_int_equal(x->is_wheel, y->is_wheel);
		assert_int_equal(x->has_metadata, y->has_metadata);
		assert_int_equal(x->size, y->size);
		assert_string_equal(y->index_url, "IDX2");
	}
	assert_string_equal(q.files[0].sha256, p.files[0].sha256);
	assert_string_equal(q.files[0].requires_python, ">=3.10");
	assert_null(q.files[3].sha256);
	assert_string_equal(q.files[1].yanked_reason, "oops");
	/* packing keeps every string and frees the loose ones (ASan watches) */
	rr_index_project_pack(&p);
	assert_non_null(p.arena);
	assert_string_equal(p.files[2].version, "1.0");
	/* every truncation and a flipped length byte are refused whole */
	for (size_t cut = 0; cut < d.len; cut++) {
		struct rr_index_project r = {0};
		assert_int_not_equal(rr_index_parse_digest(d.buf, cut, "U", "I", &r, &err), RR_OK);
		assert_int_equal(r.nfiles, 0);
		rr_error_release(&err);
	}
	d.buf[20] ^= 0x40;
	assert_int_not_equal(rr_index_parse_digest(d.buf, d.len, "U", "I", &q, &err), RR_OK);
	assert_non_null(strstr(err.msg, "damaged page digest"));
	assert_int_equal(q.nfiles, 4); /* the earlier project is left as it was */
	rr_error_release(&err);
	rr_strbuf_release(&d);
	rr_index_project_release(&p);
	rr_index_project_release(&q);
}

static void test_json_speed(void **state)
{
	/* a 1 MB+ PEP 691 page parses completely (its speed is measured in bench/) */
	struct rr_strbuf sb = RR_STRBUF_INIT;
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;
	struct rr_index_project q = {0};
	size_t n = 0;
	(void)state;

	rr_strbuf_adds(&sb, "{\"meta\":{\"api-version\":\"1.1\"},\"name\":\"torch\",\"files\":[");
	while (sb.len < (1u << 20)) {
		rr_strbuf_addf(&sb,
			       "%s{\"filename\":\"torch-2.%zu.0-cp312-cp312-manylinux_2_28_x86_64.whl\","
			       "\"url\":\"https://files.example/packages/ab/cd/torch-2.%zu.0-cp312-cp312-manylinux_2_28_x86_64.whl\","
			       "\"hashes\":{\"sha256\":\"%064zx\"},\"requires-python\":\">=3.9.0\","
			       "\"size\":123456789,\"upload-time\":\"2024-01-01T00:00:00Z\",\"yanked\":false,"
			       "\"core-metadata\":{\"sha256\":\"%064zx\"}}",
			       n ? "," : "", n, n, n, n);
		n++;
	}
	rr_strbuf_adds(&sb, "]}");
	/* the streaming scanner and Jansson agree on a big page (speed: bench/) */
	assert_int_equal(rr_index_parse_json(sb.buf, sb.len, "https://i.example/simple/torch/", "I",
					     &p, &err),
			 RR_OK);
	assert_int_equal(rr_test_parse_json_jansson(sb.buf, sb.len, "https://i.example/simple/torch/",
						     "I", &q, &err),
			 RR_OK);
	assert_int_equal(p.nfiles, n);
	assert_true(same_project(&p, &q));
	rr_index_project_release(&q);
	rr_index_project_release(&p);
	rr_strbuf_release(&sb);
}

/*
 * found by fuzz-zip: a ZIP64 locator whose record offset lies near 2^64 made the
 * bounds check's sum wrap, and the pointer arithmetic overflow (UBSan); it must be
 * a clean error
 */
static void test_zip64_locator_wrap(void **state)
{
	static const unsigned char data[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x50,
		0x4b, 0x06, 0x07, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x50, 0x4b, 0x05, 0x06, 0x00,
		0x00, 0xff, 0xff, 0x4b, 0x05, 0xff, 0xff, 0xff, 0x50, 0x4b, 0x05, 0x06,
		0x06, 0x00, 0x00, 0x00, 0x00,
	};
	struct rr_zip_cd cd;
	rr_error err = RR_ERROR_INIT;

	(void)state;
	assert_int_not_equal(rr_zip_find_cd(data, sizeof(data), sizeof(data), &cd, &err), RR_OK);
	assert_non_null(err.msg);
	rr_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_html_pytorch_style),
	    cmocka_unit_test(test_html_repository_version),
	    cmocka_unit_test(test_json_pep691),
	    cmocka_unit_test(test_json_errors),
	    cmocka_unit_test(test_jsonapi),
	    cmocka_unit_test(test_redact_and_names),
	    cmocka_unit_test(test_cache_roundtrip),
	    cmocka_unit_test(test_zip64_locator_wrap),
	    cmocka_unit_test(test_pkginfo_static),
	    cmocka_unit_test(test_json_scanner_vs_jansson),
	    cmocka_unit_test(test_keep_early),
	    cmocka_unit_test(test_href_plain),
	    cmocka_unit_test(test_json_speed),
	    cmocka_unit_test(test_digest_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
