/*
 * manifest.c - the install store's manifest: its reader and its writer, side by side.
 *
 * One record a line, fields separated by tabs, the path always last so that it may hold
 * tabs; a path holding a newline is never recorded:
 *   rocm-resolve-snapshot 1
 *   root	<venv root>
 *   site	<site directory>
 *   present	<dist-info directory>          every dist-info of every site at snapshot time
 *   pack	<pack file name in the store>
 *   packed	<hash>	<offset>	<size>          a small file's bytes in the pack
 *   dist	<name>	<version>	<site>	<dist-info directory>
 *   module	<top-level module>              of the dist above (informational: a validated
 *                                           store computes them again from the stored RECORD)
 *   file	<hash>	<size>	<mode>	<dev>	<ino>	<mtime ns>	<ctime ns>	<path>
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#include "manifest.h"

int rr_manifest_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rr_manifest_cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct sfile *)a)->path, ((const struct sfile *)b)->path);
}

int rr_manifest_cmp_packed(const void *a, const void *b)
{
	return strcmp(((const struct packed *)a)->hash, ((const struct packed *)b)->hash);
}

const struct packed *rr_manifest_find_packed(const struct rr_store *s, const char *hash)
{
	struct packed key;

	snprintf(key.hash, sizeof(key.hash), "%s", hash);
	return s->npacked ? bsearch(&key, s->packed, s->npacked, sizeof(*s->packed), rr_manifest_cmp_packed)
			  : NULL;
}

bool rr_manifest_in_sorted(char *const *v, size_t n, const char *s)
{
	return n && bsearch(&s, v, n, sizeof(*v), rr_manifest_cmp_str);
}

const struct sfile *rr_manifest_find_file(const struct rr_store *s, const char *path)
{
	struct sfile key = {.path = (char *)path};

	return s->nfiles ? bsearch(&key, s->files, s->nfiles, sizeof(*s->files), rr_manifest_cmp_file) : NULL;
}


bool rr_manifest_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && path[n] == '/';
}

const char *rr_manifest_rel(const char *path, const char *site)
{
	return rr_manifest_under(path, site) ? path + strlen(site) + (site[strlen(site) - 1] != '/') : path;
}

bool rr_manifest_valid_hash(const char *h)
{
	size_t n = strlen(h);

	return n == 43 &&
	       strspn(h, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == n;
}

/* ---------------------------------------------------------------- the snapshot value */

struct rr_store *rr_store_free(struct rr_store *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->nsites; i++)
		free(s->sites[i]);
	for (size_t i = 0; i < s->npresent; i++)
		free(s->present[i]);
	for (size_t i = 0; i < s->ndists; i++) {
		struct sdist *d = &s->dists[i];
		free(d->name);
		free(d->key);
		free(d->version);
		free(d->site);
		free(d->dir);
		for (size_t k = 0; k < d->nmods; k++)
			free(d->mods[k]);
		free(d->mods);
	}
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i].path);
	free(s->sites);
	free(s->present);
	free(s->dists);
	free(s->files);
	free(s->root);
	free(s->origin);
	free(s->dir);
	free(s->pack);
	free(s->packed);
	free(s);
	return NULL;
}

const char *rr_store_venv_root(const struct rr_store *s)
{
	return s->root;
}

size_t rr_store_nfiles(const struct rr_store *s)
{
	return s->nfiles;
}

size_t rr_store_ndists(const struct rr_store *s)
{
	return s->ndists;
}

char *rr_store_dir(const char *root, const char *venv_root)
{
	char hex[65];

	rr_sha256_hex(venv_root, strlen(venv_root), hex);
	hex[16] = '\0';
	return rr_xasprintf("%s/snapshots/%s", root, hex);
}

void rr_manifest_format(const struct rr_store *s, struct rr_strbuf *out)
{
	rr_strbuf_adds(out, MANIFEST_MAGIC "\n");
	rr_strbuf_addf(out, "root\t%s\n", s->root);
	for (size_t i = 0; i < s->nsites; i++)
		rr_strbuf_addf(out, "site\t%s\n", s->sites[i]);
	for (size_t i = 0; i < s->npresent; i++)
		rr_strbuf_addf(out, "present\t%s\n", s->present[i]);
	if (s->pack)
		rr_strbuf_addf(out, "pack\t%s\n", s->pack);
	for (size_t i = 0; i < s->npacked; i++)
		rr_strbuf_addf(out, "packed\t%s\t%" PRIu64 "\t%" PRIu64 "\n", s->packed[i].hash,
			       s->packed[i].off, s->packed[i].size);
	for (size_t i = 0; i < s->ndists; i++) {
		const struct sdist *d = &s->dists[i];
		rr_strbuf_addf(out, "dist\t%s\t%s\t%s\t%s\n", d->name, d->version, d->site, d->dir);
		for (size_t k = 0; k < d->nmods; k++)
			rr_strbuf_addf(out, "module\t%s\n", d->mods[k]);
		for (size_t k = 0; k < s->nfiles; k++) {
			const struct sfile *f = &s->files[k];
			if (f->dist != i)
				continue;
			rr_strbuf_addf(out, "file\t%s\t%" PRIu64 "\t%o\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64
				       "\t%" PRId64 "\t%s\n",
				       f->hash, f->size, f->mode, f->dev, f->ino, f->mtime_ns, f->ctime_ns,
				       f->path);
		}
	}
}

/* the next tab-separated field of line (NUL-terminated in place); NULL when none is left */
static char *next_field(char **line, bool last)
{
	char *s = *line, *tab;

	if (!s)
		return NULL;
	if (last) {
		*line = NULL;
		return s;
	}
	tab = strchr(s, '\t');
	if (tab) {
		*tab = '\0';
		*line = tab + 1;
	} else {
		*line = NULL;
	}
	return s;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	return rr_parse_u64(s, strlen(s), v);
}

static bool parse_i64(const char *s, int64_t *v)
{
	uint64_t u;
	bool neg = *s == '-';

	if (!parse_u64(s + neg, &u) || u > (uint64_t)INT64_MAX)
		return false;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

rr_err rr_store_parse(const char *text, size_t len, const char *name, struct rr_store **ret,
			 rr_error *err)
{
	struct rr_store *s = rr_xcalloc(1, sizeof(*s));
	RR_AUTOFREE char *buf = rr_xstrndup(text, len);

	s->origin = rr_xstrdup(name);
	size_t scap = 0, pcap = 0, dcap = 0, fcap = 0, mcap = 0, kcap = 0;
	unsigned lineno = 0;
	char *save = NULL;
	rr_err rc = RR_OK;

	if (memchr(text, '\0', len) || strncmp(buf, MANIFEST_MAGIC "\n", strlen(MANIFEST_MAGIC) + 1)) {
		rr_store_free(s);
		return rr_fail_at(err, RR_E_DATA, name, 1, 1, NULL, "not a rocm-resolve snapshot "
				  "manifest (expected '%s')", MANIFEST_MAGIC);
	}
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *rest = line;
		char *kind = next_field(&rest, false);
		lineno++;
		if (lineno == 1)
			continue;
		if (!strcmp(kind, "root") && rest && !s->root) {
			s->root = rr_xstrdup(rest);
		} else if (!strcmp(kind, "site") && rest) {
			RR_PUSH(s->sites, s->nsites, scap) = rr_xstrdup(rest);
		} else if (!strcmp(kind, "present") && rest) {
			RR_PUSH(s->present, s->npresent, pcap) = rr_xstrdup(rest);
		} else if (!strcmp(kind, "pack") && rest && !s->pack && rest[0] && rest[0] != '.' &&
			   !strchr(rest, '/')) {
			s->pack = rr_xstrdup(rest);
		} else if (!strcmp(kind, "packed")) {
			char *h = next_field(&rest, false), *o = next_field(&rest, false);
			char *z = next_field(&rest, true);
			struct packed pk = {0};
			if (!h || !o || !z || !rr_manifest_valid_hash(h) || !parse_u64(o, &pk.off) ||
			    !parse_u64(z, &pk.size) || pk.size > RR_STORE_COPY_MAX) {
				rc = rr_fail_at(err, RR_E_DATA, name, lineno, 1, NULL,
						"malformed packed line");
				break;
			}
			memcpy(pk.hash, h, 44);
			RR_PUSH(s->packed, s->npacked, kcap) = pk;
		} else if (!strcmp(kind, "dist")) {
			char *n = next_field(&rest, false), *v = next_field(&rest, false);
			char *site = next_field(&rest, false), *dir = next_field(&rest, true);
			if (!n || !v || !site || !dir || site[0] != '/' || dir[0] != '/' || !n[0]) {
				rc = rr_fail_at(err, RR_E_DATA, name, lineno, 1, NULL, "malformed dist line");
				break;
			}
			struct sdist *d = &RR_PUSH(s->dists, s->ndists, dcap);
			memset(d, 0, sizeof(*d));
			d->name = rr_xstrdup(n);
			d->key = rr_name_normalize(n);
			d->version = rr_xstrdup(v);
			d->site = rr_xstrdup(site);
			d->dir = rr_xstrdup(dir);
			d->line = lineno;
			mcap = 0;
		} else if (!strcmp(kind, "module") && rest && s->ndists) {
			struct sdist *d = &s->dists[s->ndists - 1];
			RR_PUSH(d->mods, d->nmods, mcap) = rr_xstrdup(rest);
		} else if (!strcmp(kind, "file") && s->ndists) {
			char *f[8];
			struct sfile sf = {0};
			uint64_t mode = 0;
			bool ok = true;
			for (size_t i = 0; i < 8; i++)
				ok = ok && (f[i] = next_field(&rest, i == 7)) != NULL;
			ok = ok && rr_manifest_valid_hash(f[0]) && parse_u64(f[1], &sf.size) && f[2][0] &&
			     strspn(f[2], "01234567") == strlen(f[2]) && strlen(f[2]) <= 7 &&
			     parse_u64(f[3], &sf.dev) && parse_u64(f[4], &sf.ino) &&
			     parse_i64(f[5], &sf.mtime_ns) && parse_i64(f[6], &sf.ctime_ns) &&
			     f[7][0] == '/';
			if (ok)
				mode = strtoull(f[2], NULL, 8);
			if (!ok) {
				rc = rr_fail_at(err, RR_E_DATA, name, lineno, 1, NULL, "malformed file line");
				break;
			}
			memcpy(sf.hash, f[0], 44);
			sf.mode = (unsigned)mode;
			sf.dist = s->ndists - 1;
			sf.path = rr_xstrdup(f[7]);
			sf.line = lineno;
			RR_PUSH(s->files, s->nfiles, fcap) = sf;
		} else {
			rc = rr_fail_at(err, RR_E_DATA, name, lineno, 1, NULL, "unexpected '%s' line",
					kind);
			break;
		}
	}
	if (!rc && (!s->root || s->root[0] != '/'))
		rc = rr_fail_at(err, RR_E_DATA, name, 1, 1, NULL, "no venv root in the manifest");
	if (rc) {
		rr_store_free(s);
		return rc;
	}
	if (!rc && s->npacked && !s->pack)
		rc = rr_fail_at(err, RR_E_DATA, name, 1, 1, NULL, "packed files but no pack");
	if (rc) {
		rr_store_free(s);
		return rc;
	}
	rr_qsort(s->present, s->npresent, sizeof(*s->present), rr_manifest_cmp_str);
	rr_qsort(s->packed, s->npacked, sizeof(*s->packed), rr_manifest_cmp_packed);
	rr_qsort(s->files, s->nfiles, sizeof(*s->files), rr_manifest_cmp_file);
	/* a path listed twice (two dists, or a hand-edited manifest): keep the first */
	size_t w = 0;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (w && !strcmp(s->files[w - 1].path, s->files[i].path)) {
			free(s->files[i].path);
			continue;
		}
		s->files[w++] = s->files[i];
	}
	s->nfiles = w;
	*ret = s;
	return RR_OK;
}

rr_err rr_store_load(const char *dir, struct rr_store **ret, rr_error *err)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/manifest", dir);
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	struct rr_store *s;
	struct stat st;
	rr_err rc;

	if (lstat(path, &st) && errno == ENOENT)
		return rr_fail(err, RR_E_NOTFOUND, "no snapshot in '%s'", dir);
	rc = rr_file_read(AT_FDCWD, path, MAX_MANIFEST, RR_FILE_NOFOLLOW, path, &sb, err);
	if (rc)
		return rc == RR_E_NOTFOUND ? RR_E_IO : rc;
	rc = rr_store_parse(sb.buf ? sb.buf : "", sb.len, path, &s, err);
	if (rc)
		return rc;
	s->dir = rr_xstrdup(dir);
	*ret = s;
	return RR_OK;
}

/* ---------------------------------------------------------------- trusting nothing it says */

/* an absolute path with no ".", ".." or empty component, no trailing slash */
static bool clean_path(const char *p)
{
	RR_AUTOFREE char *n = NULL;

	if (p[0] != '/')
		return false;
	n = rr_path_normalize("/", p);
	return !strcmp(n, p);
}

static bool in_list(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* the first component below base on the way to path that is a symbolic link, or NULL */
static char *symlinked_parent(const char *base, const char *path)
{
	RR_AUTOFREE char *p = rr_xstrdup(path);
	char *last = strrchr(p, '/');

	for (char *c = p + strlen(base) + 1; c <= last; c++) {
		struct stat st;
		if (*c != '/')
			continue;
		*c = '\0';
		if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
			return RR_STEAL(p);
		*c = '/';
	}
	return NULL;
}

static rr_err bad_entry(const struct rr_store *s, unsigned line, rr_error *err, const char *what,
			const char *value)
{
	return rr_fail_at(err, RR_E_DATA, s->origin, line, 1, NULL,
			  "the install store is not to be trusted: %s '%s'; nothing was changed "
			  "(move the store away and take a new snapshot with `rocm-resolve install`)",
			  what, value);
}

rr_err rr_store_validate(struct rr_store *s, const char *venv_root, const char *const *sites,
			 size_t nsites, rr_error *err)
{
	RR_AUTOFREE char *root = rr_path_normalize("/", venv_root);
	char **live = rr_xcalloc(nsites + 1, sizeof(*live));
	rr_err rc = RR_OK;

	for (size_t i = 0; i < nsites; i++)
		live[i] = rr_path_normalize("/", sites[i]);
	if (strcmp(s->root, root))
		rc = bad_entry(s, 2, err, "it is the snapshot of another venv, not", root);
	for (size_t i = 0; !rc && i < s->nsites; i++)
		if (!clean_path(s->sites[i]) || !in_list(live, nsites, s->sites[i]))
			rc = bad_entry(s, 0, err, "a site directory that is not one of the venv's",
				       s->sites[i]);
	for (size_t i = 0; !rc && i < s->npresent; i++) {
		const char *slash = strrchr(s->present[i], '/');
		RR_AUTOFREE char *parent = slash ? rr_xstrndup(s->present[i],
							       (size_t)(slash - s->present[i]))
						 : NULL;
		if (!clean_path(s->present[i]) || !parent || !in_list(s->sites, s->nsites, parent))
			rc = bad_entry(s, 0, err, "a distribution outside the venv's site directories",
				       s->present[i]);
	}
	for (size_t i = 0; !rc && i < s->ndists; i++) {
		const struct sdist *d = &s->dists[i];
		const char *slash = strrchr(d->dir, '/');
		if (!in_list(s->sites, s->nsites, d->site) || !clean_path(d->dir) ||
		    !rr_manifest_under(d->dir, d->site) || slash != d->dir + strlen(d->site) ||
		    !rr_str_endswith(d->dir, ".dist-info"))
			rc = bad_entry(s, d->line, err, "a protected distribution outside its site",
				       d->dir);
	}
	for (size_t i = 0; !rc && i < s->nfiles; i++) {
		const struct sfile *f = &s->files[i];
		const struct sdist *d = &s->dists[f->dist];
		const char *base = rr_manifest_under(f->path, d->site) ? d->site
				   : rr_manifest_under(f->path, s->root) ? s->root
									   : NULL;
		RR_AUTOFREE char *link = NULL;
		if (!clean_path(f->path) || !base)
			rc = bad_entry(s, f->line, err, "a file outside the venv's directories",
				       f->path);
		else if ((link = symlinked_parent(base, f->path)))
			rc = bad_entry(s, f->line, err, "a file under a symbolic link or non-directory",
				       f->path);
	}
	for (size_t i = 0; i < nsites; i++)
		free(live[i]);
	free(live);
	if (!rc) {
		rr_store_trust_modules(s);
		s->validated = true;
	}
	return rc;
}
