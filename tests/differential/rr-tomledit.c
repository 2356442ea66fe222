/*
 * rr-tomledit FILE: FILE with [tool.uv] exclude-dependencies and
 * constraint-dependencies set (fixed values, written as `project --write` writes
 * them) on stdout; exit 0, or 2 with the error on stderr. tomledit_diff.py judges
 * the result with Python's tomllib.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tomledit.h"

int main(int argc, char **argv)
{
	static const char *const tbl[] = {"tool", "uv"};
	static const char *const keys[] = {"exclude-dependencies", "constraint-dependencies"};
	static const char *const ex[] = {"torch", "pytorch-triton-rocm"};
	static const char *const co[] = {"demo-kernels==0.4.0", "numpy<2"};
	static const char *const *vals[] = {ex, co};
	static const size_t nvals[] = {2, 2};
	static const char *const arrays[] = {
		"[\n    \"torch\",  # rocm-resolve: protected, the environment has 2.9.1+rocm7.2\n"
		"    \"pytorch-triton-rocm\",  # rocm-resolve: would overwrite triton/\n]",
		"[\n    \"demo-kernels==0.4.0\",  # rocm-resolve: demo-kernels 0.5.0 requires "
		"torch==2.8.0\n    \"numpy<2\",  # rocm-resolve: \"quoted\" # and hashes\n]"};
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error err = RR_ERROR_INIT;
	char *cur = NULL;
	size_t n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: rr-tomledit FILE\n");
		return 2;
	}
	if (rr_strbuf_read_file(&sb, argv[1], 16u << 20, &err) ||
	    rr_toml_check(argv[1], sb.buf, sb.len, &err))
		goto fail;
	cur = rr_xstrndup(sb.buf, sb.len);
	n = sb.len;
	for (size_t k = 0; k < 2; k++) {
		char *next;
		size_t nn;
		if (rr_tomledit_set(argv[1], cur, n, tbl, 2, keys[k], arrays[k], &next, &nn, &err))
			goto fail;
		free(cur);
		cur = next;
		n = nn;
	}
	if (rr_toml_check_edit(argv[1], sb.buf, sb.len, cur, n, tbl, 2, keys, vals, nvals, 2, &err))
		goto fail;
	fwrite(cur, 1, n, stdout);
	free(cur);
	rr_strbuf_release(&sb);
	return 0;
fail:
	{
		struct rr_strbuf m = RR_STRBUF_INIT;
		rr_error_format(&err, &m);
		fprintf(stderr, "%s (%s)\n", m.buf, rr_err_to_string(err.code));
		rr_strbuf_release(&m);
	}
	free(cur);
	rr_strbuf_release(&sb);
	rr_error_release(&err);
	return 2;
}
