/*
 * metadata.h - core metadata (METADATA / PKG-INFO) header parser.
 *
 * struct rr_metadata m = RR_METADATA_INIT;
 * rc = rr_metadata_parse(text, len, "torch-2.9.1.dist-info/METADATA", &m, err);
 * ... m.name, m.version, m.requires_dist[i] ... rr_metadata_release(&m);
 *
 * The format is RFC 822 headers as written by the email package: "Key: value"
 * lines, continuation lines starting with a space or tab, the header block ends
 * at the first empty line (the rest is the description body, never read).
 * Header names are case-insensitive; for single-use fields the first occurrence
 * wins (as importlib.metadata's email.message.get does). CRLF line endings and
 * a UTF-8 BOM are accepted. Name and Version are required; the name must be a
 * valid PEP 508 name. Requires-Dist values are stored as written (unfolded and
 * trimmed), not parsed: callers parse them with rr_requirement_parse().
 *
 * Errors are RR_E_PARSE with origin:line:col and the offending line. On failure
 * *ret is left untouched. All strings in the struct are owned by it.
 */
#ifndef RR_METADATA_H
#define RR_METADATA_H

#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_metadata {
	char *name;
	char *version;
	char *requires_python; /* NULL when absent */
	char **requires_dist;
	size_t nrequires_dist;
	char **provides_extra;
	size_t nprovides_extra;
	char **dynamic; /* Dynamic: fields (PEP 643), as written */
	size_t ndynamic;
	char *metadata_version; /* NULL when absent */
	char *summary;		/* NULL when absent */
};

#define RR_METADATA_INIT {NULL, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL, NULL}

/* origin names the input in errors (may be NULL) */
rr_err rr_metadata_parse(const char *text, size_t len, const char *origin, struct rr_metadata *ret,
			 rr_error *err) RR_WUR;
/*
 * add the requirements of a legacy egg-info requires.txt ("[extra]" and
 * "[extra:marker]" / "[:marker]" sections) to m->requires_dist as PEP 508
 * strings with the section turned into a marker, as importlib.metadata does
 */
void rr_metadata_add_requires_txt(struct rr_metadata *m, const char *text, size_t len);
void rr_metadata_release(struct rr_metadata *m);

/* one field of a RECORD line (CSV: quotes, doubled quotes), advancing *p past it and
 * its comma; caller frees */
char *rr_record_field(const char **p);
/* a RECORD path joined to its site and lexically normalized ("//", "/./", "x/../"
 * collapse), so paths from different RECORDs compare equal; caller frees */
char *rr_path_normalize(const char *site, const char *rel);

#endif
