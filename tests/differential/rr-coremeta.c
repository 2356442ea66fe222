/*
 * rr-coremeta FILE VERSION: FILE (an sdist's pyproject.toml) read as core metadata,
 * as rocm-resolve reads an sdist whose PKG-INFO cannot be trusted
 * (rr_pyproject_core_metadata), on stdout; exit 0, or 3 with the reason on stderr
 * where only a build knows the dependencies, 2 on any other error.
 * coremeta_diff.py judges the result against what setuptools writes.
 */
#include <stdio.h>

#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"

int main(int argc, char **argv)
{
	struct rr_strbuf text = RR_STRBUF_INIT, md = RR_STRBUF_INIT;
	rr_error err = RR_ERROR_INIT;
	rr_err rc;

	if (argc != 3) {
		fputs("usage: rr-coremeta FILE VERSION\n", stderr);
		return 2;
	}
	rc = rr_strbuf_read_file(&text, argv[1], 1u << 20, &err);
	if (!rc)
		rc = rr_pyproject_core_metadata(argv[1], text.buf, text.len, argv[2], NULL, &md,
						&err);
	if (rc) {
		fprintf(stderr, "%s\n", err.msg ? err.msg : "error");
		rr_error_release(&err);
		rr_strbuf_release(&text);
		return rc == RR_E_UNSUPPORTED ? 3 : 2;
	}
	fwrite(md.buf, 1, md.len, stdout);
	rr_strbuf_release(&text);
	rr_strbuf_release(&md);
	return 0;
}
