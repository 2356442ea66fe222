/* libFuzzer target: a wheel's METADATA located and inflated from a zip in memory the
 * way range requests see it (its start for a dist-info-first wheel; tail, central
 * directory, member); and the same bytes read as an sdist (a head of it: PKG-INFO, or
 * a static pyproject.toml that stands in for it); the members listed; never crash, never
 * leak */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "index/index-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool any_name(const unsigned char *name, size_t n)
{
	return n > 0 && name[0] != '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t tl = size < 65536 + 22 ? size : 65536 + 22;
	struct rr_zip_cd cd;
	struct rr_zip_member m;
	rr_error err = RR_ERROR_INIT;
	size_t off = 0, need = 0;
	struct rr_strbuf out = RR_STRBUF_INIT;

	/* a dist-info-first wheel's METADATA read from its start alone */
	if (rr_zip_metadata_in_head(data, size, "a-1.dist-info/", &m)) {
		if (m.local_off >= size ||
		    rr_zip_local_data(data + m.local_off, size - (size_t)m.local_off, &m, &off,
				      &need, &err) != RR_OK)
			__builtin_trap(); /* promised: a whole member there */
		if (need || off + m.csize > size - m.local_off)
			__builtin_trap();
		if (rr_dist_zip_member(&m, data + m.local_off + off, "f.whl", "METADATA", &out,
				       &err) == RR_OK &&
		    out.len != m.usize)
			__builtin_trap();
		rr_strbuf_release(&out);
		rr_error_release(&err);
	}
	/* as an sdist (fuzz-pyproject checks what a pyproject.toml becomes) */
	(void)rr_dist_sdist_pkginfo(data, size, "x-1.0.tar.gz", &out, &err);
	rr_strbuf_release(&out);
	rr_error_release(&err);
	if (rr_zip_find_cd(data + size - tl, tl, size, &cd, &err) != RR_OK)
		goto done;
	if (cd.offset > size || cd.size > size - cd.offset)
		__builtin_trap(); /* promised: inside the file */
	/* every member listed (what a wheel's libraries are read from) */
	{
		struct rr_zip_entry *es = NULL;
		size_t ne = 0;
		if (rr_zip_list(data + cd.offset, (size_t)cd.size, any_name, &es, &ne, &err) ==
		    RR_OK)
			rr_zip_list_free(es, ne);
		rr_error_release(&err);
	}
	/* a wheel's METADATA, else a .zip sdist's PKG-INFO */
	if (rr_zip_find_metadata(data + cd.offset, (size_t)cd.size, "a-1.dist-info/", &m, &err) !=
	    RR_OK) {
		rr_error_release(&err);
		if (rr_zip_find_pkginfo(data + cd.offset, (size_t)cd.size, &m, &err) != RR_OK)
			goto done;
	}
	if (m.local_off >= size)
		goto done;
	if (rr_zip_local_data(data + m.local_off, size - (size_t)m.local_off, &m, &off, &need,
			      &err) != RR_OK || need)
		goto done;
	if (off + m.csize > size - m.local_off)
		__builtin_trap();
	if (rr_dist_zip_member(&m, data + m.local_off + off, "f.whl", "METADATA", &out, &err) ==
		    RR_OK &&
	    out.len != m.usize)
		__builtin_trap();
done:
	rr_strbuf_release(&out);
	rr_error_release(&err);
	return 0;
}
