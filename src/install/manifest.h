/*
 * manifest.h - the install store's manifest in memory (private to src/install): what
 * manifest.c reads and writes, and store.c takes and checks.
 */
#ifndef RR_INSTALL_MANIFEST_H
#define RR_INSTALL_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocm-resolve/store.h"
#include "rocm-resolve/strbuf.h"

#define MANIFEST_MAGIC "rocm-resolve-snapshot 1"
#define MAX_RECORD (64u << 20)
#define MAX_MANIFEST (256u << 20)

struct sfile {
	char *path;   /* absolute, normalized */
	char hash[44]; /* urlsafe base64 sha256 */
	uint64_t size, dev, ino;
	int64_t mtime_ns, ctime_ns;
	unsigned mode;
	size_t dist;  /* index into dists */
	unsigned line; /* in the manifest (messages) */
};

struct sdist {
	char *name, *key, *version, *site, *dir;
	unsigned line;
	char **mods;
	size_t nmods;
};

/* a small file's bytes in the pack */
struct packed {
	char hash[44];
	uint64_t off, size;
};

struct rr_store {
	char *dir; /* the store, or NULL when parsed from text */
	char *pack; /* file name of the pack in dir, or NULL */
	struct packed *packed; /* sorted by hash */
	size_t npacked;
	char *root;
	char **sites;
	size_t nsites;
	char **present; /* sorted */
	size_t npresent;
	struct sdist *dists;
	size_t ndists;
	struct sfile *files; /* sorted by path */
	size_t nfiles;
	char *origin;	/* the manifest's name in messages */
	bool validated; /* rr_store_validate found every path inside the live venv */
};

int rr_manifest_cmp_str(const void *a, const void *b);
int rr_manifest_cmp_file(const void *a, const void *b);
int rr_manifest_cmp_packed(const void *a, const void *b);
const struct packed *rr_manifest_find_packed(const struct rr_store *s, const char *hash);
bool rr_manifest_in_sorted(char *const *v, size_t n, const char *s);
const struct sfile *rr_manifest_find_file(const struct rr_store *s, const char *path);
/* path lies strictly below dir (lexically) */
bool rr_manifest_under(const char *path, const char *dir);
/* path relative to site when it lies below it, else path */
const char *rr_manifest_rel(const char *path, const char *site);
bool rr_manifest_valid_hash(const char *h);
/*
 * each protected distribution's modules computed again from its RECORD as the store keeps it
 * (hash checked; else the venv's when it still matches), replacing the manifest's module
 * lines, which a tampered store could fill with another distribution's modules (store.c)
 */
void rr_store_trust_modules(struct rr_store *s);
/* the manifest's text (rr_store_parse reads it back) */
void rr_manifest_format(const struct rr_store *s, struct rr_strbuf *out);

#endif
