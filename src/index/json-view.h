/*
 * json-view.h - the view of a PEP 691 page that its readers fill (parse-json.c):
 * the scanner in the product and the Jansson reference reader in the tests
 * (tests/unit/index/json-reference.c), so both turn views into files by the same
 * rules. Private to parse-json.c and that reader.
 *
 *   struct rr_jpage jp;
 *   rr_jpage_init(&jp, page_url, index_url);
 *   ... fill jp.have_meta, meta_k, api_version, name, files_k; for each element of
 *   "files", in order: a struct rr_jfile view, rr_jconv_take(&jp.conv, &view),
 *   rr_jfile_clear(&view) ...
 *   rc = rr_jpage_finish(&jp, out, err);
 *   rr_jpage_release(&jp);
 */
#ifndef RR_INDEX_JSON_VIEW_H
#define RR_INDEX_JSON_VIEW_H

#include "index/index-private.h"

enum rr_jk {
	RR_JK_ABSENT,
	RR_JK_NULL,
	RR_JK_FALSE,
	RR_JK_TRUE,
	RR_JK_INT,
	RR_JK_REAL,
	RR_JK_STR,
	RR_JK_OBJ,
	RR_JK_ARR
};

struct rr_jval {
	enum rr_jk k;
	char *s; /* RR_JK_STR: owned, NUL-free */
	size_t n;
	long long i;
};

/* a metadata-ish field: bool or {"sha256": ...} */
struct rr_jmeta {
	struct rr_jval v;
	struct rr_jval sha; /* RR_JK_OBJ only: its "sha256" */
};

struct rr_jfile {
	enum rr_jk k; /* the element itself */
	struct rr_jval filename, url, rp, yanked, size;
	enum rr_jk hashes;
	struct rr_jval hash_sha256;
	struct rr_jmeta core, ddim, dim; /* core-metadata, data-dist-info-metadata,
					  * dist-info-metadata */
};

/* views turned into files as they come: the first file that breaks a rule is kept
 * as the error (reported once the page is known to be valid JSON with a valid meta) */
struct rr_jconv {
	const char *page_url, *index_url;
	struct rr_index_keep *keep; /* or NULL: every file */
	struct rr_index_project p;
	size_t cap;
	size_t seen; /* views offered so far: the next one's index */
	rr_err rc;
	rr_error err;
};

struct rr_jpage {
	bool have_meta;
	enum rr_jk meta_k;
	struct rr_jval api_version; /* meta."api-version" */
	struct rr_jval name;
	enum rr_jk files_k;
	struct rr_jconv conv;
};

void rr_jval_clear(struct rr_jval *v);
void rr_jfile_clear(struct rr_jfile *f);
void rr_jpage_init(struct rr_jpage *jp, const char *page_url, const char *index_url);
void rr_jpage_release(struct rr_jpage *jp);
/* one view, the next in the array: into the project, or the page's first error */
void rr_jconv_take(struct rr_jconv *cv, struct rr_jfile *o);
/* the page read: its meta checked, then its files (or their first error) handed out */
rr_err rr_jpage_finish(struct rr_jpage *jp, struct rr_index_project *out, rr_error *err);

#endif
