/*
 * local-dist.c - the core metadata of a distribution file on disk (a requirement line
 * that names ./dist/x-1.0-py3-none-any.whl, an sdist, or a file:// URL of one), read as
 * the index reads a downloaded one: the wheel's METADATA by its central directory, the
 * sdist's PKG-INFO (or, where that cannot be trusted, the static [project] of its
 * pyproject.toml: dist.c), and whether what it read may be trusted (PEP 643).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "index/index-private.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/util.h"

rr_err rr_index_local_metadata(const char *path, struct rr_strbuf *out, const char **ret_unknown,
			       rr_error *err)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	bool wheel = rr_str_endswith(base, ".whl");
	int fd = -1;
	rr_err rc;

	*ret_unknown = NULL;
	if (!wheel && !rr_str_endswith(base, ".tar.gz") && !rr_str_endswith(base, ".zip"))
		return rr_fail(err, RR_E_UNSUPPORTED, "'%s' is neither a wheel nor an sdist", path);
	rc = rr_file_open_read(AT_FDCWD, path, 0, path, &fd, NULL, err);
	if (rc)
		return rc;
	rc = wheel ? rr_dist_wheel_metadata_fd(fd, base, out, err)
		   : rr_dist_sdist_pkginfo_fd(fd, base, 0, out, err);
	close(fd);
	if (!rc && !wheel && !rr_dist_pkginfo_static(out->buf, out->len, ret_unknown) &&
	    !*ret_unknown)
		*ret_unknown = "its PKG-INFO leaves the dependencies to the build";
	return rc;
}
