/*
 * libFuzzer: a pyproject.toml as a uv workspace root (workspace.h): the bytes are
 * written to ROOT/pyproject.toml of a private directory that also holds a member,
 * ROOT/packages/kern, and read with every member and the [tool.uv] settings applied.
 * Never crash, never leak; an error has a message; every item loaded has a path.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/workspace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char file[96];

static void put(const char *path, const void *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	fwrite(text, 1, len, f);
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_workspace *ws = NULL;
	struct rr_reqset set = RR_REQSET_INIT;
	struct rr_input_sel sel = {
	    .all_extras = true, .all_groups = true, .all_members = size & 1, .uv_settings = true};
	rr_error err = RR_ERROR_INIT;
	rr_err rc;

	if (!dir[0]) {
		static const char kern[] = "[project]\nname = \"kern\"\nversion = \"1\"\n"
					   "dependencies = [\"app[x]\", \"einops\"]\n";
		char sub[128];
		snprintf(dir, sizeof(dir), "/tmp/rr-fuzz-workspace-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(file, sizeof(file), "%s/pyproject.toml", dir);
		snprintf(sub, sizeof(sub), "%s/packages", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof(sub), "%s/packages/kern", dir);
		mkdir(sub, 0700);
		snprintf(sub, sizeof(sub), "%s/packages/kern/pyproject.toml", dir);
		put(sub, kern, sizeof(kern) - 1);
	}
	put(file, data, size);
	rc = rr_workspace_find(file, &ws, &err);
	if (!rc) {
		rc = rr_workspace_load(&set, ws, &sel, &err);
		for (size_t i = 0; !rc && i < set.nitems; i++)
			if (!set.items[i].path || !set.items[i].text)
				abort();
		(void)rr_workspace_nothing_to_read(ws);
		rr_workspace_free(ws);
	}
	if (rc) {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		if (!err.msg)
			abort();
		rr_error_format(&err, &sb);
		rr_strbuf_release(&sb);
	}
	rr_error_release(&err);
	rr_reqset_release(&set);
	return 0;
}
