/*
 * test-workspace.c - uv workspaces as `uv lock` sees them (workspace.h), and what
 * rr_input_load makes of a pyproject.toml with nothing to read and of a directory
 * holding both a pyproject.toml and a requirements.txt. Each test builds its tree
 * in a fresh temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/workspace.h"

static char *tree(void)
{
	char *d = rr_xstrdup("/tmp/rr-test-workspace-XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

static void put(const char *root, const char *rel, const char *text)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/%s", root, rel);
	char *slash = path + strlen(root);
	FILE *f;

	while ((slash = strchr(slash + 1, '/'))) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *d)
{
	RR_AUTOFREE char *cmd = rr_xasprintf("rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
}

/* the items' requirement texts, "a;b;c" (constraints as "c:x") */
static char *texts(const struct rr_reqset *s)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	for (size_t i = 0; i < s->nitems; i++)
		rr_strbuf_addf(&sb, "%s%s%s", i ? ";" : "", s->items[i].constraint ? "c:" : "",
			       s->items[i].text);
	return rr_strbuf_detach(&sb, NULL);
}

static bool has_note(const struct rr_reqset *s, const char *part)
{
	for (size_t i = 0; i < s->nnotes; i++)
		if (strstr(s->notes[i], part))
			return true;
	return false;
}

static const char ROOT[] = "[project]\nname = \"app\"\nversion = \"0\"\n"
			   "dependencies = [\"kern[gpu]\", \"helper\", \"einops\"]\n"
			   "[tool.uv.sources]\nkern = { workspace = true }\n"
			   "helper = { path = \"../helper\" }\n"
			   "gitdep = { git = \"https://example.invalid/g.git\", tag = \"v1\" }\n"
			   "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n"
			   "exclude = [\"packages/skip\"]\n"
			   "[tool.uv]\nexclude-dependencies = [\"nvidia-cudnn-cu12\"]\n"
			   "constraint-dependencies = [\"rr-speech==1.0\"]\n"
			   "override-dependencies = [\"einops<1\"]\n";
static const char KERN[] = "[project]\nname = \"kern\"\nversion = \"0\"\n"
			   "dependencies = [\"rr-fastkern\", \"audio\", \"nvidia-cudnn-cu12\"]\n"
			   "[project.optional-dependencies]\ngpu = [\"gitdep\"]\n"
			   "[tool.uv.sources]\naudio = { workspace = true }\n";
static const char AUDIO[] = "[project]\nname = \"audio\"\nversion = \"0\"\n"
			    "dependencies = [\"rr-speech\"]\n";

static char *workspace_tree(void)
{
	char *d = tree();

	put(d, "ws/pyproject.toml", ROOT);
	put(d, "ws/packages/kern/pyproject.toml", KERN);
	put(d, "ws/packages/audio/pyproject.toml", AUDIO);
	put(d, "ws/packages/skip/pyproject.toml",
	    "[project]\nname = \"skip\"\nversion = \"0\"\ndependencies = [\"torch==2.4.0\"]\n");
	put(d, "helper/pyproject.toml", "[project]\nname = \"helper\"\nversion = \"0\"\n");
	{
		RR_AUTOFREE char *empty = rr_xasprintf("%s/ws/packages/empty", d);
		mkdir(empty, 0700);
	}
	return d;
}

static void test_find_from_member(void **state)
{
	RR_AUTOFREE char *d = workspace_tree();
	RR_AUTOFREE char *kern = rr_xasprintf("%s/ws/packages/kern/pyproject.toml", d);
	RR_AUTOFREE char *root = rr_xasprintf("%s/ws", d);
	struct rr_workspace *ws = NULL;
	rr_error err = RR_ERROR_INIT;
	bool saw_audio = false, saw_skip = false;
	(void)state;

	assert_int_equal(rr_workspace_find(kern, &ws, &err), RR_OK);
	assert_string_equal(ws->root, root);
	assert_true(ws->workspace && ws->uv_project && !ws->virtual_root);
	/* the root, kern and audio; not the excluded one, not the empty directory */
	assert_int_equal(ws->nmembers, 3);
	assert_string_equal(ws->members[0].key, "app");
	assert_string_equal(ws->members[ws->self].key, "kern");
	assert_string_equal(ws->members[ws->self].pyproject, kern);
	for (size_t i = 0; i < ws->nmembers; i++) {
		saw_audio |= strcmp(ws->members[i].key, "audio") == 0;
		saw_skip |= strcmp(ws->members[i].key, "skip") == 0;
	}
	assert_true(saw_audio && !saw_skip);
	rr_workspace_free(ws);
	rm_tree(d);
}

static void test_load_member_and_sources(void **state)
{
	RR_AUTOFREE char *d = workspace_tree();
	RR_AUTOFREE char *rootpp = rr_xasprintf("%s/ws/pyproject.toml", d);
	RR_AUTOFREE char *helper = NULL;
	RR_AUTOFREE char *got = NULL;
	struct rr_workspace *ws = NULL;
	struct rr_reqset set = RR_REQSET_INIT;
	struct rr_input_sel sel = {0};
	rr_error err = RR_ERROR_INIT;
	char *real;
	(void)state;

	assert_int_equal(rr_workspace_find(rootpp, &ws, &err), RR_OK);
	assert_int_equal(ws->self, 0);
	assert_int_equal(rr_workspace_load(&set, ws, &sel, &err), RR_OK);
	real = realpath(d, NULL);
	helper = rr_xasprintf("helper@ file://%s/helper;einops;rr-fastkern;nvidia-cudnn-cu12;"
			      "gitdep@ git+https://example.invalid/g.git@v1;rr-speech",
			      real);
	free(real);
	got = texts(&set);
	/* kern[gpu] is kern's lines and its gpu extra's, audio's through kern; no member is
	 * a requirement of its own; helper is a file:// URL, gitdep its git URL */
	assert_string_equal(got, helper);
	assert_true(has_note(&set, "'kern[gpu]' is the workspace member"));
	assert_string_equal(set.uv_root, ws->root);
	assert_int_equal(set.nuv_excludes, 0);
	rr_reqset_release(&set);
	rr_workspace_free(ws);
	rm_tree(d);
}

static void test_union_and_settings(void **state)
{
	RR_AUTOFREE char *d = workspace_tree();
	RR_AUTOFREE char *audio = rr_xasprintf("%s/ws/packages/audio/pyproject.toml", d);
	RR_AUTOFREE char *got = NULL;
	struct rr_workspace *ws = NULL;
	struct rr_reqset set = RR_REQSET_INIT;
	struct rr_input_sel sel = {.all_members = true, .uv_settings = true};
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_workspace_find(audio, &ws, &err), RR_OK);
	assert_int_equal(rr_workspace_load(&set, ws, &sel, &err), RR_OK);
	got = texts(&set);
	/* every member once; the excluded name dropped, the override in place of einops'
	 * line (its text as written), the root's constraint added */
	assert_non_null(strstr(got, "rr-fastkern"));
	assert_non_null(strstr(got, "rr-speech;"));
	assert_true(rr_str_endswith(got, ";c:rr-speech==1.0"));
	assert_null(strstr(got, "nvidia-cudnn-cu12"));
	assert_null(strstr(got, "torch==2.4.0"));
	assert_true(has_note(&set, "excluded by [tool.uv] exclude-dependencies"));
	assert_true(has_note(&set, "replaced by [tool.uv] override-dependencies 'einops<1'"));
	assert_true(has_note(&set, "as uv applies its [tool.uv] settings: 1 exclude-dependencies, "
				   "1 constraint-dependencies, 1 override-dependencies"));
	for (size_t i = 0; i < set.nitems; i++)
		if (strcmp(set.items[i].text, "einops") == 0)
			assert_int_equal(set.items[i].req.spec.n, 1);
	assert_int_equal(set.nuv_excludes, 1);
	assert_string_equal(set.uv_excludes[0], "nvidia-cudnn-cu12");
	assert_int_equal(set.nuv_overrides, 1);
	rr_reqset_release(&set);
	rr_workspace_free(ws);
	rm_tree(d);
}

static void test_virtual_root_and_refusal(void **state)
{
	RR_AUTOFREE char *d = tree();
	RR_AUTOFREE char *root = rr_xasprintf("%s/pyproject.toml", d);
	RR_AUTOFREE char *got = NULL;
	struct rr_workspace *ws = NULL;
	struct rr_reqset set = RR_REQSET_INIT;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	put(d, "pyproject.toml", "[tool.uv.workspace]\nmembers = [\"libs/*\"]\n");
	put(d, "libs/a/pyproject.toml", AUDIO);
	assert_int_equal(rr_workspace_find(root, &ws, &err), RR_OK);
	assert_true(ws->virtual_root && ws->workspace);
	assert_null(ws->members[0].key);
	assert_false(rr_workspace_nothing_to_read(ws));
	/* a virtual root reads every member */
	assert_int_equal(rr_workspace_load(&set, ws, NULL, &err), RR_OK);
	got = texts(&set);
	assert_string_equal(got, "rr-speech");
	rr_reqset_release(&set);
	rr_workspace_free(ws);
	/* a matched directory with files and no pyproject.toml: uv refuses it */
	put(d, "libs/notes/README", "x\n");
	assert_int_equal(rr_workspace_find(root, &ws, &err), RR_E_USAGE);
	assert_non_null(strstr(err.msg, "libs/notes has no pyproject.toml"));
	rr_error_release(&err);
	rm_tree(d);
}

static void test_input_load(void **state)
{
	RR_AUTOFREE char *d = tree();
	RR_AUTOFREE char *tool = rr_xasprintf("%s/tool/pyproject.toml", d);
	RR_AUTOFREE char *both = rr_xasprintf("%s/both", d);
	RR_AUTOFREE char *got = NULL;
	struct rr_reqset set = RR_REQSET_INIT;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	/* tool configuration alone: nothing to read, no error, a note */
	put(d, "tool/pyproject.toml",
	    "[build-system]\nrequires = [\"setuptools\"]\n"
	    "[tool.black]\nline-length = 100\n");
	assert_int_equal(rr_input_load(&set, tool, NULL, &err), RR_OK);
	assert_int_equal(set.nitems, 0);
	assert_true(has_note(&set, "no [project] table and no [dependency-groups]: no dependencies "
				   "to read"));
	rr_reqset_release(&set);
	/* a directory with both files: both are read, and the note says so */
	put(d, "both/pyproject.toml",
	    "[project]\nname = \"b\"\nversion = \"0\"\n"
	    "dependencies = [\"einops\"]\n");
	put(d, "both/requirements.txt", "torch==2.4.1\n");
	assert_int_equal(rr_input_load(&set, both, NULL, &err), RR_OK);
	got = texts(&set);
	assert_string_equal(got, "einops;torch==2.4.1");
	assert_true(has_note(&set, "both pyproject.toml and requirements.txt are read"));
	rr_reqset_release(&set);
	rm_tree(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_find_from_member),
	    cmocka_unit_test(test_load_member_and_sources),
	    cmocka_unit_test(test_union_and_settings),
	    cmocka_unit_test(test_virtual_root_and_refusal),
	    cmocka_unit_test(test_input_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
