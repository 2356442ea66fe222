/*
 * store.c - the install store: keep the protected distributions' bytes before an install,
 * put them back after. See include/rocm-resolve/store.h for the store's layout and the
 * hard-link trade-off, manifest.c for the manifest's format.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/name.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/modules.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/store.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/parallel.h"
#include "rocm-resolve/util.h"

#include "manifest.h"

/* ---------------------------------------------------------------- small helpers */

/* open a regular file for reading without following a link or blocking on a FIFO */
static int open_regular(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static bool read_small(const char *path, size_t max, struct rr_strbuf *sb)
{
	struct stat st;
	char buf[65536];
	ssize_t r;
	int fd = open_regular(path, &st);

	if (fd < 0)
		return false;
	rr_strbuf_reset(sb);
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || sb->len + (size_t)r > max) {
			close(fd);
			return false;
		}
		rr_strbuf_add(sb, buf, (size_t)r);
	}
	close(fd);
	return true;
}

/* sha256 of a regular file as RECORD writes it; false when it cannot be read */
static bool hash_path(const char *path, char out[44])
{
	struct stat st;
	int fd = open_regular(path, &st);
	bool ok;

	if (fd < 0)
		return false;
	ok = rr_sha256_fd_b64url(fd, out);
	close(fd);
	return ok;
}


/* a random suffix for temporary names: unpredictable, so nobody can plant a link there */
static void random_name(char out[17])
{
	unsigned char b[8] = {0};
	static const char hex[] = "0123456789abcdef";

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		uint64_t x = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)out;
		memcpy(b, &x, sizeof(b));
	}
	for (size_t i = 0; i < 8; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[16] = '\0';
}

/* copy src to a new file dst (O_EXCL|O_NOFOLLOW); removes dst on failure */
static bool copy_file(const char *src, const char *dst, mode_t mode, unsigned long long *bytes)
{
	char buf[65536];
	struct stat st;
	ssize_t r;
	int in = open_regular(src, &st);
	int out;
	bool ok = true;

	if (in < 0)
		return false;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
	if (out < 0) {
		close(in);
		return false;
	}
	while (ok && (r = read(in, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ok = false;
			break;
		}
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ok = false;
				break;
			}
			off += w;
		}
		if (bytes && ok)
			*bytes += (unsigned long long)r;
	}
	if (ok) {
		/* keep the mode (umask aside) and the mtime: .pyc files check their source's mtime */
		struct timespec ts[2] = {st.st_atim, st.st_mtim};
		ok = fchmod(out, mode & 07777) == 0 && futimens(out, ts) == 0;
	}
	if (close(out) && ok)
		ok = false;
	close(in);
	if (!ok)
		unlink(dst);
	return ok;
}

/* remove a directory tree without following links; best effort */
static void remove_tree(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd < 0) {
		unlinkat(parent, name, 0);
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(fd, de->d_name, 0) && (errno == EISDIR || errno == EPERM))
			remove_tree(fd, de->d_name);
	}
	closedir(d);
	unlinkat(parent, name, AT_REMOVEDIR);
}

/* rmdir each now-empty parent of path up to (not including) stop */
static void prune_parents(const char *path, const char *stop)
{
	RR_AUTOFREE char *p = rr_xstrdup(path);
	char *slash;

	while ((slash = strrchr(p, '/')) && slash != p) {
		*slash = '\0';
		if (!rr_manifest_under(p, stop) && strcmp(p, stop))
			break;
		if (!strcmp(p, stop))
			break;
		/* __pycache__ left behind by the intruder's imports is not worth keeping a dir for */
		RR_AUTOFREE char *pyc = rr_xasprintf("%s/__pycache__", p);
		struct stat st;
		if (!lstat(pyc, &st) && S_ISDIR(st.st_mode)) {
			DIR *d = opendir(p);
			size_t n = 0;
			struct dirent *de;
			while (d && (de = readdir(d)))
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
					n++;
			if (d)
				closedir(d);
			if (n == 1)
				remove_tree(AT_FDCWD, pyc);
		}
		if (rmdir(p))
			break;
	}
}

/* ---------------------------------------------------------------- RECORD */


struct rec {
	char *path; /* as written, relative to the site */
	char *hash; /* urlsafe b64 of a sha256= entry, or "" */
};

static void recs_free(struct rec *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].hash);
	}
	free(v);
}

/* the entries of a RECORD's text */
static void parse_record(const char *text, struct rec **ret, size_t *nret)
{
	struct rec *v = NULL;
	size_t n = 0, cap = 0;

	for (const char *p = text; p && *p;) {
		char *f = rr_record_field(&p);
		char *h = *p && *p != '\n' && *p != '\r' ? rr_record_field(&p) : rr_xstrdup("");

		while (*p && *p != '\n')
			p++;
		if (*p == '\n')
			p++;
		if (!f[0]) {
			free(f);
			free(h);
			continue;
		}
		struct rec *r = &RR_PUSH(v, n, cap);
		r->path = f;
		if (rr_str_startswith(h, "sha256=") && rr_manifest_valid_hash(h + 7)) {
			r->hash = rr_xstrdup(h + 7);
			free(h);
		} else {
			r->hash = h;
			r->hash[0] = '\0';
		}
	}
	*ret = v;
	*nret = n;
}

/* the entries of <dir>/RECORD; false when there is none */
static bool read_record(const char *dir, struct rec **ret, size_t *nret)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTOFREE char *path = rr_xasprintf("%s/RECORD", dir);

	if (!read_small(path, MAX_RECORD, &sb))
		return false;
	parse_record(sb.buf ? sb.buf : "", ret, nret);
	return true;
}

/* the import names a distribution provides, by the one rule (rocm-resolve/modules.h) */
static void rec_modules(const char *site, const struct rec *recs, size_t nrecs, char ***mods,
			size_t *nmods)
{
	const char **paths = rr_xcalloc(nrecs + 1, sizeof(*paths));

	for (size_t i = 0; i < nrecs; i++)
		paths[i] = recs[i].path;
	rr_modules_installed(site, paths, nrecs, mods, nmods);
	free(paths);
}

/* "triton-3.5.1+rocm7.dist-info" -> name "triton", version "3.5.1+rocm7" */
static void split_dist_info(const char *base, char **name, char **version)
{
	size_t stem = strlen(base);
	const char *dash;

	if (rr_str_endswith(base, ".dist-info"))
		stem -= strlen(".dist-info");
	dash = memchr(base, '-', stem);
	*name = rr_xstrndup(base, dash ? (size_t)(dash - base) : stem);
	*version = dash ? rr_xstrndup(dash + 1, stem - (size_t)(dash - base) - 1) : rr_xstrdup("");
}

/* ---------------------------------------------------------------- taking one */

enum fstate { F_SAME, F_DIFFERS, F_MISSING, F_NOTREG };

static enum fstate file_state(const struct sfile *f, bool full, bool *hashed)
{
	struct stat st;
	char h[44];

	if (lstat(f->path, &st))
		/* missing already when the snapshot was taken: not this installer's doing */
		return !full && f->ctime_ns == -1 ? F_SAME : F_MISSING;
	if (!S_ISREG(st.st_mode))
		return F_NOTREG;
	if (!full && (uint64_t)st.st_dev == f->dev && (uint64_t)st.st_ino == f->ino &&
	    (uint64_t)st.st_size == f->size &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec == f->mtime_ns &&
	    (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec == f->ctime_ns)
		return F_SAME; /* the same inode, untouched: ctime cannot be set from user space */
	*hashed = true;
	if (!hash_path(f->path, h))
		return F_MISSING;
	return strcmp(h, f->hash) ? F_DIFFERS : F_SAME;
}


static int lock_store(const char *dir, rr_error *err)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		rr_fail(err, RR_E_IO, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX))
		if (errno != EINTR) {
			rr_fail(err, RR_E_IO, "cannot lock '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	return fd;
}

rr_err rr_store_lock(const char *dir, bool create, int *ret_fd, rr_error *err)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/install.lock", dir);
	int fd;

	*ret_fd = -1;
	if (create && rr_mkdir_p(dir, 0700))
		return rr_fail(err, RR_E_IO, "cannot create '%s': %s", dir, strerror(errno));
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ENOENT && !create)
		return RR_OK; /* no store yet: nothing to keep others from */
	if (fd < 0)
		return rr_fail(err, RR_E_IO, "cannot open '%s': %s", path, strerror(errno));
	while (flock(fd, LOCK_EX | LOCK_NB))
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			if (e == EWOULDBLOCK)
				return rr_fail(err, RR_E_ENV, "another `rocm-resolve install` or "
							      "`restore` is working on this venv (it "
							      "holds '%s'); wait for it to finish, then "
							      "run this again",
					       path);
			return rr_fail(err, RR_E_IO, "cannot lock '%s': %s", path, strerror(e));
		}
	*ret_fd = fd;
	return RR_OK;
}

static void add_file(struct rr_store *s, size_t *fcap, size_t dist, char *path, const char *hash)
{
	struct sfile *f = &RR_PUSH(s->files, s->nfiles, *fcap);

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->dist = dist;
	snprintf(f->hash, sizeof(f->hash), "%s", hash);
}

static bool path_allowed(const struct rr_store *s, const char *site, const char *path)
{
	return !strchr(path, '\n') && (rr_manifest_under(path, s->root) || rr_manifest_under(path, site));
}

/*
 * may repair remove path? Lexically inside the venv or the site, and so is the directory
 * it really lives in: a symlinked directory must not lead an unlink out of the venv
 */
static bool safe_to_remove(const struct rr_store *s, const char *site, const char *path)
{
	RR_AUTOFREE char *parent = rr_xstrdup(path);
	char real[PATH_MAX], rroot[PATH_MAX], rsite[PATH_MAX];
	char *slash = strrchr(parent, '/');

	if (!path_allowed(s, site, path) || !slash || slash == parent)
		return false;
	*slash = '\0';
	if (!realpath(parent, real))
		return false;
	return (realpath(s->root, rroot) && (rr_manifest_under(real, rroot) || !strcmp(real, rroot))) ||
	       (realpath(site, rsite) && (rr_manifest_under(real, rsite) || !strcmp(real, rsite)));
}

/* every file of a dist-info directory, recursively (licenses/ ...) */
static void walk_dist_info(const char *dir, char ***out, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = rr_xasprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st)) {
			free(p);
		} else if (S_ISDIR(st.st_mode)) {
			walk_dist_info(p, out, n, cap);
			free(p);
		} else if (S_ISREG(st.st_mode)) {
			RR_PUSH(*out, *n, *cap) = p;
		} else {
			free(p);
		}
	}
	closedir(d);
}

static void list_present(struct rr_store *s)
{
	size_t cap = 0;

	for (size_t i = 0; i < s->nsites; i++) {
		DIR *d = opendir(s->sites[i]);
		struct dirent *de;
		if (!d)
			continue;
		while ((de = readdir(d)))
			if (rr_str_endswith(de->d_name, ".dist-info") && de->d_name[0] != '.')
				RR_PUSH(s->present, s->npresent, cap) =
					rr_path_normalize(s->sites[i], de->d_name);
		closedir(d);
	}
	rr_qsort(s->present, s->npresent, sizeof(*s->present), rr_manifest_cmp_str);
}

/* the manifest for spec, with hashes (RECORD's, or computed) but no stat fields yet */
static struct rr_store *collect(const struct rr_store_spec *spec,
				   struct rr_store_stats *st)
{
	struct rr_store *s = rr_xcalloc(1, sizeof(*s));
	size_t scap = 0, dcap = 0, fcap = 0;

	s->root = rr_path_normalize("/", spec->venv_root);
	for (size_t i = 0; i < spec->nsites; i++)
		RR_PUSH(s->sites, s->nsites, scap) = rr_path_normalize("/", spec->sites[i]);
	list_present(s);
	for (size_t i = 0; i < spec->ndists; i++) {
		const struct rr_store_dist *sd = &spec->dists[i];
		struct rec *recs = NULL;
		size_t nrecs = 0, nextra = 0, xcap = 0;
		char **extra = NULL;

		if (!sd->dist_info_dir || !sd->site || !rr_str_endswith(sd->dist_info_dir, ".dist-info"))
			continue; /* an egg-info or a system package: no RECORD to keep it by */
		struct sdist *d = &RR_PUSH(s->dists, s->ndists, dcap);
		memset(d, 0, sizeof(*d));
		d->name = rr_xstrdup(sd->name);
		d->key = rr_name_normalize(sd->name);
		d->version = rr_xstrdup(sd->version ? sd->version : "");
		d->site = rr_path_normalize("/", sd->site);
		d->dir = rr_path_normalize(d->site, sd->dist_info_dir);
		/* names and versions go on tab-separated lines */
		for (char *p = d->name; *p; p++)
			if (*p == '\t' || *p == '\n')
				*p = '_';
		for (char *p = d->version; *p; p++)
			if (*p == '\t' || *p == '\n')
				*p = '_';
		if (strchr(d->site, '\n') || strchr(d->site, '\t') || strchr(d->dir, '\n')) {
			st->skipped++;
			continue;
		}
		st->dists++;
		read_record(d->dir, &recs, &nrecs);
		rec_modules(d->site, recs, nrecs, &d->mods, &d->nmods);
		for (size_t k = 0; k < nrecs; k++) {
			char *path;
			char h[44];
			if (rr_str_endswith(recs[k].path, ".pyc"))
				continue;
			path = rr_path_normalize(d->site, recs[k].path);
			if (!path_allowed(s, d->site, path)) {
				st->skipped++;
				free(path);
				continue;
			}
			if (recs[k].hash[0]) {
				add_file(s, &fcap, s->ndists - 1, path, recs[k].hash);
			} else if (hash_path(path, h)) {
				st->hashed++;
				add_file(s, &fcap, s->ndists - 1, path, h);
			} else {
				free(path); /* listed without a hash and not there: nothing to keep */
			}
		}
		recs_free(recs, nrecs);
		/* the dist-info's own files (RECORD itself, anything RECORD omits) */
		walk_dist_info(d->dir, &extra, &nextra, &xcap);
		for (size_t k = 0; k < nextra; k++) {
			char h[44];
			bool listed = false;
			for (size_t f = 0; f < s->nfiles && !listed; f++)
				listed = s->files[f].dist == s->ndists - 1 &&
					 !strcmp(s->files[f].path, extra[k]);
			if (!listed && !strchr(extra[k], '\n') && hash_path(extra[k], h)) {
				st->hashed++;
				add_file(s, &fcap, s->ndists - 1, RR_STEAL(extra[k]), h);
			}
			free(extra[k]);
		}
		free(extra);
		rr_qsort(d->mods, d->nmods, sizeof(*d->mods), rr_manifest_cmp_str);
	}
	return s;
}

static bool write_manifest(const char *dir, const struct rr_store *s, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	RR_AUTOFREE char *path = rr_xasprintf("%s/manifest", dir);

	rr_manifest_format(s, &text);
	return rr_file_write_atomic(path, text.buf, text.len, 0644, err) == RR_OK;
}

/* the hashes a snapshot names, sorted for rr_manifest_in_sorted; free() the array only */
static char **sorted_hashes(const struct rr_store *s, size_t *n)
{
	char **v = rr_xcalloc(s->nfiles + 1, sizeof(*v));

	for (size_t i = 0; i < s->nfiles; i++)
		v[i] = (char *)s->files[i].hash;
	rr_qsort(v, s->nfiles, sizeof(*v), rr_manifest_cmp_str);
	*n = s->nfiles;
	return v;
}

/* objects no big file of s refers to (an older snapshot's); packs other than s->pack */
static void prune_store(const char *dir, const char *objdir, const struct rr_store *s)
{
	DIR *d = opendir(objdir);
	struct dirent *de;
	size_t nkeep;
	/* by hash, whatever the live file's size now: a damaged library may have shrunk */
	char **keep = sorted_hashes(s, &nkeep);

	while (d && (de = readdir(d))) {
		const char *n = de->d_name;
		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		if (!rr_manifest_in_sorted(keep, nkeep, n))
			unlinkat(dirfd(d), n, 0);
	}
	if (d)
		closedir(d);
	free(keep);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (rr_str_startswith(de->d_name, "pack-") && (!s->pack || strcmp(de->d_name, s->pack)))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
}

/* read exactly len bytes at off (pread) or the whole of a small regular file (off == -1) */
static bool read_exact(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = off >= 0 ? pread(fd, (char *)buf + got, len - got, off + (off_t)got)
				     : read(fd, (char *)buf + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

static bool bytes_match(const void *buf, size_t len, const char *hash)
{
	unsigned char d[32];
	char b64[44];
	struct rr_sha256 h;

	rr_sha256_init(&h);
	rr_sha256_update(&h, buf, len);
	rr_sha256_final(&h, d);
	rr_sha256_digest_to_b64url(d, b64);
	return !strcmp(b64, hash);
}

static int cmp_file_hash(const void *a, const void *b)
{
	const struct sfile *x = *(const struct sfile *const *)a, *y = *(const struct sfile *const *)b;

	return strcmp(x->hash, y->hash);
}

/*
 * the small files into one new pack: a file each would cost an inode each (~0.3 ms on ext4,
 * 15k of them in torch), one sequential file costs nearly nothing. Only bytes that match
 * their hash go in: from the previous pack when it holds them, else from the venv's file,
 * so damage present when the snapshot is taken is never kept as the good copy
 */
static bool write_pack(const char *dir, const struct rr_store *old, struct rr_store *s,
		       struct rr_store_stats *st, rr_error *err)
{
	const struct sfile **small = rr_xcalloc(s->nfiles + 1, sizeof(*small));
	size_t nsmall = 0, kcap = 0;
	char rnd[17];
	RR_AUTOFREE char *tmp = NULL;
	RR_AUTOFREE char *final = NULL;
	RR_AUTOFREE char *oldpath = old && old->pack ? rr_xasprintf("%s/%s", dir, old->pack) : NULL;
	RR_AUTOFREE char *buf = rr_xmalloc(RR_STORE_COPY_MAX + 1);
	int oldfd = oldpath ? open(oldpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	int fd;
	uint64_t off = 0;
	bool ok = true;

	/* a file missing now keeps the bytes the old pack has of it: they may be the only copy */
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].ctime_ns != -1 ? s->files[i].size <= RR_STORE_COPY_MAX
					       : old && rr_manifest_find_packed(old, s->files[i].hash))
			small[nsmall++] = &s->files[i];
	rr_qsort(small, nsmall, sizeof(*small), cmp_file_hash);
	random_name(rnd);
	s->pack = rr_xasprintf("pack-%s", rnd);
	final = rr_xasprintf("%s/%s", dir, s->pack);
	tmp = rr_xasprintf("%s/.%s.tmp", dir, s->pack);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(small);
		if (oldfd >= 0)
			close(oldfd);
		rr_fail(err, RR_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
		return false;
	}
	for (size_t i = 0; ok && i < nsmall; i++) {
		const struct sfile *f = small[i];
		const struct packed *pk = old ? rr_manifest_find_packed(old, f->hash) : NULL;
		size_t len = 0;
		bool have = false, from_old = false;

		if (i && !strcmp(small[i - 1]->hash, f->hash))
			continue; /* the same content twice: once in the pack */
		if (pk && oldfd >= 0 && read_exact(oldfd, buf, (size_t)pk->size, (off_t)pk->off) &&
		    bytes_match(buf, (size_t)pk->size, f->hash)) {
			len = (size_t)pk->size;
			have = from_old = true;
			st->reused++;
		}
		/* the files with this content, until one matches its hash */
		for (size_t k = i; !have && k < nsmall && !strcmp(small[k]->hash, f->hash); k++) {
			struct stat fst;
			int in = open_regular(small[k]->path, &fst);
			if (in < 0)
				continue;
			len = (size_t)fst.st_size;
			have = len <= RR_STORE_COPY_MAX && read_exact(in, buf, len, -1) &&
			       bytes_match(buf, len, f->hash);
			close(in);
		}
		if (!have) {
			st->unverified++;
			continue;
		}
		if (!from_old)
			st->packed++;
		ok = rr_file_write_all(fd, buf, len) == RR_OK;
		struct packed *np = &RR_PUSH(s->packed, s->npacked, kcap);
		snprintf(np->hash, sizeof(np->hash), "%s", f->hash);
		np->off = off;
		np->size = len;
		off += len;
		st->bytes_packed += len;
	}
	free(small);
	if (oldfd >= 0)
		close(oldfd);
	ok = ok && fsync(fd) == 0;
	if (close(fd))
		ok = false;
	if (!ok || rename(tmp, final)) {
		rr_fail(err, RR_E_IO, "cannot write '%s': %s", final, strerror(errno));
		unlink(tmp);
		return false;
	}
	rr_qsort(s->packed, s->npacked, sizeof(*s->packed), rr_manifest_cmp_packed);
	return true;
}

/*
 * a new object for path, named by its RECORD hash: a hard link (free on the same filesystem)
 * or a copy under a temporary name, hashed there, and given the hash's name only when the
 * bytes match it (a file that already differs is never kept as the good copy: unverified).
 * false only when the store cannot be written
 */
static bool keep_object(const char *path, const char *objdir, const char *obj, const char *hash,
			mode_t mode, struct rr_store_stats *st, rr_error *err)
{
	char rnd[17], h[44];
	RR_AUTOFREE char *tmp = NULL;
	bool linked;

	random_name(rnd);
	tmp = rr_xasprintf("%s/.new.%s.tmp", objdir, rnd);
	linked = link(path, tmp) == 0;
	/* another filesystem (EXDEV), no links allowed (EPERM), too many (EMLINK) */
	if (!linked && !copy_file(path, tmp, mode, &st->bytes_copied)) {
		rr_fail(err, RR_E_IO, "cannot keep a copy of '%s' in '%s': %s", path, objdir,
			strerror(errno));
		unlink(tmp);
		return false;
	}
	if (!hash_path(tmp, h) || strcmp(h, hash)) {
		st->unverified++;
		unlink(tmp);
		return true;
	}
	/* link(), not rename(): an object another run made meanwhile is never replaced */
	if (link(tmp, obj) && errno != EEXIST) {
		rr_fail(err, RR_E_IO, "cannot write '%s': %s", obj, strerror(errno));
		unlink(tmp);
		return false;
	}
	unlink(tmp);
	if (linked)
		st->linked++;
	else
		st->copied++;
	return true;
}

/*
 * would the snapshot s, replacing old, discard the only copy of something? A file of old whose
 * content (hash) s does not keep, which the store has bytes of, and which is no longer in the
 * venv as it was (a protected build replaced or removed outside rocm-resolve): then the store
 * is the only place its bytes are. Names the distributions in *why
 */
static bool discards_only_copy(const char *dir, const struct rr_store *old,
			       const struct rr_store *s, struct rr_strbuf *why)
{
	size_t nkeep, *lost = rr_xcalloc(old->ndists + 1, sizeof(*lost)), nfiles = 0;
	char **keep = sorted_hashes(s, &nkeep);
	const char *example = NULL;

	for (size_t i = 0; i < old->nfiles; i++) {
		const struct sfile *f = &old->files[i];
		RR_AUTOFREE char *obj = NULL;
		struct stat st;
		bool hashed = false;
		if (f->ctime_ns == -1 || rr_manifest_in_sorted(keep, nkeep, f->hash))
			continue;
		obj = rr_xasprintf("%s/objects/%s", dir, f->hash);
		if (!rr_manifest_find_packed(old, f->hash) && lstat(obj, &st))
			continue; /* the store has no bytes of it: nothing to lose */
		if (file_state(f, false, &hashed) == F_SAME)
			continue; /* still in the venv as it was */
		lost[f->dist]++;
		nfiles++;
		example = example ? example : rr_manifest_rel(f->path, old->dists[f->dist].site);
	}
	for (size_t i = 0; i < old->ndists; i++)
		if (lost[i])
			rr_strbuf_addf(why, "%s%zu file%s of %s %s", why->len ? ", " : "", lost[i],
				       lost[i] == 1 ? "" : "s", old->dists[i].name,
				       old->dists[i].version);
	if (nfiles)
		rr_strbuf_addf(why, " ('%s'%s) %s", example, nfiles > 1 ? " among them" : "",
			       nfiles > 1 ? "are" : "is");
	free(keep);
	free(lost);
	return nfiles > 0;
}

rr_err rr_store_take(const char *dir, const struct rr_store_spec *spec,
			struct rr_store_stats *stats, rr_error *err)
{
	struct rr_store_stats st = {0};
	RR_AUTOFREE char *objdir = rr_xasprintf("%s/objects", dir);
	struct rr_store *s, *old = NULL;
	rr_error ignored = RR_ERROR_INIT;
	int lock;
	bool ok = true;

	if (!spec->venv_root || spec->venv_root[0] != '/')
		return rr_fail(err, RR_E_USAGE, "snapshot: the venv root must be absolute");
	if (rr_mkdir_p(objdir, 0700))
		return rr_fail(err, RR_E_IO, "cannot create '%s': %s", objdir, strerror(errno));
	lock = lock_store(dir, err);
	if (lock < 0)
		return err->code;
	/* the previous snapshot's pack, to take verified small files from */
	if (rr_store_load(dir, &old, &ignored))
		rr_error_release(&ignored);
	s = collect(spec, &st);
	rr_qsort(s->files, s->nfiles, sizeof(*s->files), rr_manifest_cmp_file);
	/* the previous snapshot, when it is this venv's, may hold the only copy of a build */
	if (old && rr_store_validate(old, spec->venv_root, spec->sites, spec->nsites, &ignored)) {
		rr_error_release(&ignored);
	} else if (old) {
		RR_AUTO_STRBUF struct rr_strbuf why = RR_STRBUF_INIT;
		if (discards_only_copy(dir, old, s, &why)) {
			rr_fail(err, RR_E_ENV, "the protected stack changed since the last snapshot, "
					       "outside rocm-resolve: %s no longer in the venv as "
					       "the snapshot has them, and the install store holds "
					       "their only copy; a new snapshot would discard it, so "
					       "nothing was installed. Put the stack back with "
					       "`rocm-resolve restore` first (or, to give up that "
					       "copy for good, move '%s' away)",
				why.buf, dir);
			ok = false;
		}
	}
	for (size_t i = 0; ok && i < s->nfiles; i++) {
		struct sfile *f = &s->files[i];
		RR_AUTOFREE char *obj = rr_xasprintf("%s/%s", objdir, f->hash);
		struct stat fs, os;

		if (lstat(f->path, &fs) || !S_ISREG(fs.st_mode)) {
			/* listed but not there (already damaged): check names it, nothing to keep */
			f->ino = 0;
			f->dev = 0;
			f->ctime_ns = -1;
			continue;
		}
		if ((uint64_t)fs.st_size <= RR_STORE_COPY_MAX) {
			/* small: into the pack below */
		} else if (lstat(obj, &os) == 0) {
			/* an object's name is its content: once there it is never replaced (the
			 * live file may be the damaged one; the object may be the only good copy) */
			st.reused++;
		} else {
			ok = keep_object(f->path, objdir, obj, f->hash, fs.st_mode, &st, err);
		}
		/* the stat after link(): linking changes the inode's ctime */
		if (lstat(f->path, &fs) == 0) {
			f->size = (uint64_t)fs.st_size;
			f->mode = fs.st_mode & 07777;
			f->dev = (uint64_t)fs.st_dev;
			f->ino = (uint64_t)fs.st_ino;
			f->mtime_ns = (int64_t)fs.st_mtim.tv_sec * 1000000000 + fs.st_mtim.tv_nsec;
			f->ctime_ns = (int64_t)fs.st_ctim.tv_sec * 1000000000 + fs.st_ctim.tv_nsec;
		}
	}
	st.files = s->nfiles;
	if (ok)
		ok = write_pack(dir, old, s, &st, err);
	if (ok)
		ok = write_manifest(dir, s, err);
	if (ok)
		prune_store(dir, objdir, s);
	rr_store_free(old);
	rr_store_free(s);
	close(lock);
	if (!ok)
		return err->code;
	if (stats)
		*stats = st;
	return RR_OK;
}

/* a small file's bytes as the store holds them (an object or the pack), hash checked */
static bool stored_bytes(const struct rr_store *s, const struct sfile *f, struct rr_strbuf *out)
{
	RR_AUTOFREE char *obj = rr_xasprintf("%s/objects/%s", s->dir, f->hash);
	const struct packed *pk = rr_manifest_find_packed(s, f->hash);
	RR_AUTOFREE char *pack = s->pack ? rr_xasprintf("%s/%s", s->dir, s->pack) : NULL;
	int fd;
	bool ok;

	if (read_small(obj, MAX_RECORD, out) && bytes_match(out->buf, out->len, f->hash))
		return true;
	if (!pk || !pack || (fd = open(pack, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return false;
	rr_strbuf_reset(out);
	rr_strbuf_grow(out, (size_t)pk->size + 1);
	ok = read_exact(fd, out->buf, (size_t)pk->size, (off_t)pk->off) &&
	     bytes_match(out->buf, (size_t)pk->size, f->hash);
	close(fd);
	if (ok) {
		out->len = (size_t)pk->size;
		out->buf[out->len] = '\0';
	}
	return ok;
}

void rr_store_trust_modules(struct rr_store *s)
{
	for (size_t i = 0; i < s->ndists; i++) {
		struct sdist *d = &s->dists[i];
		RR_AUTOFREE char *path = rr_xasprintf("%s/RECORD", d->dir);
		const struct sfile *f = rr_manifest_find_file(s, path);
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		struct rec *recs = NULL;
		size_t nrecs = 0;
		bool have = f && s->dir &&
			    (stored_bytes(s, f, &sb) ||
			     (read_small(path, MAX_RECORD, &sb) && bytes_match(sb.buf, sb.len, f->hash)));

		for (size_t k = 0; k < d->nmods; k++)
			free(d->mods[k]);
		free(d->mods);
		d->mods = NULL;
		d->nmods = 0;
		if (!have)
			continue; /* no trusted RECORD: it protects its name, not modules */
		parse_record(sb.buf ? sb.buf : "", &recs, &nrecs);
		rec_modules(d->site, recs, nrecs, &d->mods, &d->nmods);
		recs_free(recs, nrecs);
	}
}

/* ---------------------------------------------------------------- checking and repairing */

void rr_store_result_release(struct rr_store_result *r)
{
	char **lists[] = {r->changed, r->intruders, r->restored, r->removed, r->lost};
	size_t ns[] = {r->nchanged, r->nintruders, r->nrestored, r->nremoved, r->nlost};

	for (size_t l = 0; l < RR_ARRAY_LEN(lists); l++) {
		for (size_t i = 0; i < ns[l]; i++)
			free(lists[l][i]);
		free(lists[l]);
	}
	memset(r, 0, sizeof(*r));
}

static void push_msg(char ***v, size_t *n, char *msg)
{
	*v = rr_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = msg;
}

/*
 * the state of every file, hashed in parallel: after pip --force-reinstall over torch every
 * inode is new and gigabytes of libraries must be hashed; one core would make that slow
 */
struct state_pool {
	const struct rr_store *s;
	bool full;
	unsigned char *state, *hashed;
};

static void state_one(void *ctx, size_t i)
{
	struct state_pool *p = ctx;
	bool hashed = false;

	p->state[i] = (unsigned char)file_state(&p->s->files[i], p->full, &hashed);
	p->hashed[i] = hashed;
}

static void all_states(const struct rr_store *s, bool full, unsigned char *state,
		       unsigned char *hashed)
{
	struct state_pool pool = {.s = s, .full = full, .state = state, .hashed = hashed};

	/* a few files: not worth a thread */
	rr_parallel_for(s->nfiles, 64, state_one, &pool);
}

struct intruder {
	char *dir, *site, *name, *version, *why;
};

static void find_intruders(const struct rr_store *s, struct intruder **ret, size_t *nret)
{
	struct intruder *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < s->nsites; i++) {
		DIR *d = opendir(s->sites[i]);
		struct dirent *de;
		char **names = NULL;
		size_t nn = 0, ncap = 0;

		while (d && (de = readdir(d)))
			if (rr_str_endswith(de->d_name, ".dist-info") && de->d_name[0] != '.')
				RR_PUSH(names, nn, ncap) = rr_xstrdup(de->d_name);
		if (d)
			closedir(d);
		rr_qsort(names, nn, sizeof(*names), rr_manifest_cmp_str);
		for (size_t k = 0; k < nn; k++) {
			RR_AUTOFREE char *dir = rr_path_normalize(s->sites[i], names[k]);
			RR_AUTOFREE char *name = NULL, *version = NULL, *key = NULL;
			RR_AUTO_STRBUF struct rr_strbuf why = RR_STRBUF_INIT;
			struct rec *recs = NULL;
			size_t nrecs = 0;

			free(names[k]);
			if (rr_manifest_in_sorted(s->present, s->npresent, dir))
				continue;
			split_dist_info(strrchr(dir, '/') + 1, &name, &version);
			key = rr_name_normalize(name);
			for (size_t p = 0; p < s->ndists && !why.len; p++)
				if (!strcmp(s->dists[p].key, key))
					rr_strbuf_addf(&why, "replaces protected %s %s", s->dists[p].name,
						       s->dists[p].version);
			read_record(dir, &recs, &nrecs);
			char **mods = NULL;
			size_t nmods = 0;
			rec_modules(s->sites[i], recs, nrecs, &mods, &nmods);
			for (size_t m = 0; m < nmods; m++) {
				for (size_t p = 0; p < s->ndists && !why.len; p++)
					if (rr_manifest_in_sorted(s->dists[p].mods, s->dists[p].nmods,
								  mods[m]))
						rr_strbuf_addf(&why, "ships module '%s' of protected %s %s",
							       mods[m], s->dists[p].name,
							       s->dists[p].version);
				free(mods[m]);
			}
			free(mods);
			recs_free(recs, nrecs);
			if (!why.len)
				continue;
			struct intruder *it = &RR_PUSH(v, n, cap);
			it->dir = RR_STEAL(dir);
			it->site = rr_xstrdup(s->sites[i]);
			it->name = RR_STEAL(name);
			it->version = RR_STEAL(version);
			it->why = rr_strbuf_detach(&why, NULL);
		}
		free(names);
	}
	*ret = v;
	*nret = n;
}

static void intruders_free(struct intruder *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].dir);
		free(v[i].site);
		free(v[i].name);
		free(v[i].version);
		free(v[i].why);
	}
	free(v);
}

static void remove_intruder(const struct rr_store *s, const struct intruder *it,
			    struct rr_store_result *r)
{
	struct rec *recs = NULL;
	size_t nrecs = 0, nfiles = 0;
	const char *base = strrchr(it->dir, '/') + 1;

	read_record(it->dir, &recs, &nrecs);
	for (size_t k = 0; k < nrecs; k++) {
		RR_AUTOFREE char *path = rr_path_normalize(it->site, recs[k].path);
		if (rr_manifest_under(path, it->dir) || rr_manifest_find_file(s, path) || !safe_to_remove(s, it->site, path))
			continue; /* its own dist-info goes below; protected files are put back */
		if (unlink(path) == 0) {
			nfiles += !rr_str_endswith(path, ".pyc");
			prune_parents(path, it->site);
		}
	}
	recs_free(recs, nrecs);
	remove_tree(AT_FDCWD, it->dir);
	push_msg(&r->removed, &r->nremoved,
		 rr_xasprintf("%s %s: %s and %zu other file%s", it->name, it->version, base, nfiles,
			      nfiles == 1 ? "" : "s"));
}

/*
 * a build installed over a protected one at the same dist-info path (pip --force-reinstall
 * of a wheel with the same name and version): the files its RECORD lists that the protected
 * RECORD does not are its own, and go
 */
static void remove_replacement(const struct rr_store *s, size_t dist,
			       struct rr_store_result *r)
{
	const struct sdist *d = &s->dists[dist];
	RR_AUTOFREE char *record = rr_xasprintf("%s/RECORD", d->dir);
	const struct sfile *rf = rr_manifest_find_file(s, record);
	struct rec *recs = NULL;
	size_t nrecs = 0, nfiles = 0;
	bool hashed = false;

	if (!rf || file_state(rf, false, &hashed) == F_SAME || !read_record(d->dir, &recs, &nrecs))
		return;
	for (size_t k = 0; k < nrecs; k++) {
		RR_AUTOFREE char *path = rr_path_normalize(d->site, recs[k].path);
		if (rr_manifest_find_file(s, path) || !safe_to_remove(s, d->site, path))
			continue;
		if (unlink(path) == 0) {
			nfiles += !rr_str_endswith(path, ".pyc"); /* bytecode is not worth naming */
			prune_parents(path, d->site);
		}
	}
	recs_free(recs, nrecs);
	if (nfiles)
		push_msg(&r->removed, &r->nremoved,
			 rr_xasprintf("%zu file%s of the build installed over %s %s", nfiles,
				      nfiles == 1 ? "" : "s", d->name, d->version));
}

/* a small file back from the pack into tmp; NULL on success, else why not */
static char *unpack_to(const struct rr_store *s, const struct sfile *f, const char *tmp)
{
	const struct packed *pk = rr_manifest_find_packed(s, f->hash);
	RR_AUTOFREE char *pack = s->pack ? rr_xasprintf("%s/%s", s->dir, s->pack) : NULL;
	RR_AUTOFREE char *buf = NULL;
	int in, out;
	bool ok;

	if (!pk || !pack)
		return rr_xstrdup("the snapshot holds no copy of it (it already differed from its "
				  "RECORD hash when the snapshot was taken)");
	in = open(pack, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	buf = rr_xmalloc((size_t)pk->size + 1);
	ok = in >= 0 && read_exact(in, buf, (size_t)pk->size, (off_t)pk->off) &&
	     bytes_match(buf, (size_t)pk->size, f->hash);
	if (in >= 0)
		close(in);
	if (!ok)
		return rr_xstrdup("the snapshot's copy is unreadable or no longer matches its RECORD "
				  "hash");
	out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return rr_xasprintf("cannot write '%s': %s", tmp, strerror(errno));
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT},
				 {.tv_sec = f->mtime_ns / 1000000000, .tv_nsec = f->mtime_ns % 1000000000}};
	ok = rr_file_write_all(out, buf, (size_t)pk->size) == RR_OK &&
	     fchmod(out, f->mode ? f->mode : 0644) == 0;
	if (ok && f->mtime_ns > 0)
		futimens(out, ts); /* .pyc files check their source's mtime */
	if (close(out))
		ok = false;
	if (!ok) {
		unlink(tmp);
		return rr_xasprintf("cannot write '%s': %s", tmp, strerror(errno));
	}
	return NULL;
}

/*
 * the directories from base (exclusive) down to path's parent, made where missing; NULL when
 * they are real directories, else why not: a symbolic link on the way could lead a write out
 * of the venv, so none is followed
 */
static char *make_parents(const char *base, const char *path)
{
	RR_AUTOFREE char *p = rr_xstrdup(path);
	size_t start = strlen(base);
	char *last = strrchr(p, '/');

	if (!rr_manifest_under(path, base) || !last)
		return rr_xasprintf("it lies outside '%s'", base);
	for (char *c = p + start + 1; c <= last; c++) {
		struct stat st;
		if (*c != '/')
			continue;
		*c = '\0';
		if (lstat(p, &st) && errno == ENOENT && mkdir(p, 0755) && errno != EEXIST)
			return rr_xasprintf("cannot create '%s': %s", p, strerror(errno));
		if (lstat(p, &st) || !S_ISDIR(st.st_mode))
			return rr_xasprintf("'%s' is not a directory (a symbolic link is never "
					    "followed)", p);
		*c = '/';
	}
	return NULL;
}

/* the directory path lives under for repair's purposes: its site, else the venv root */
static const char *base_of(const struct rr_store *s, const struct sdist *d, const char *path)
{
	return rr_manifest_under(path, d->site) ? d->site : s->root;
}

/*
 * put one file back from its object or the pack, its bytes hashed before they take the
 * file's place; NULL on success, else why not
 */
static char *restore_file(const struct rr_store *s, const struct sfile *f)
{
	RR_AUTOFREE char *obj = rr_xasprintf("%s/objects/%s", s->dir, f->hash);
	RR_AUTOFREE char *parent = rr_xstrdup(f->path);
	RR_AUTOFREE char *tmp = NULL;
	char h[44], rnd[17];
	struct stat st;
	bool have_obj = lstat(obj, &st) == 0 && S_ISREG(st.st_mode);
	char *why;

	if (!have_obj && !rr_manifest_find_packed(s, f->hash))
		return rr_xstrdup("the snapshot holds no copy of it (it already differed from its "
				  "RECORD hash when the snapshot was taken)");
	why = make_parents(base_of(s, &s->dists[f->dist], f->path), f->path);
	if (why)
		return why;
	*strrchr(parent, '/') = '\0';
	random_name(rnd);
	tmp = rr_xasprintf("%s/.rr-restore.%s.tmp", parent, rnd);
	if (have_obj) {
		if (link(obj, tmp) && !copy_file(obj, tmp, f->mode ? f->mode : 0644, NULL))
			return rr_xasprintf("cannot write '%s': %s", tmp, strerror(errno));
		if (!hash_path(tmp, h) || strcmp(h, f->hash)) {
			unlink(tmp);
			return rr_xstrdup("the snapshot's copy no longer matches its RECORD hash "
					  "(rewritten in place through the shared inode, or damaged "
					  "in the store)");
		}
	} else if ((why = unpack_to(s, f, tmp))) {
		return why;
	}
	/* something made a directory of it: an empty one goes, anything else is not ours */
	if (lstat(f->path, &st) == 0 && S_ISDIR(st.st_mode) && rmdir(f->path)) {
		unlink(tmp);
		return rr_xasprintf("a directory that is not empty stands in its place: %s",
				    strerror(errno));
	}
	if (rename(tmp, f->path)) {
		why = rr_xasprintf("cannot replace it: %s", strerror(errno));
		unlink(tmp);
		return why;
	}
	return NULL;
}

rr_err rr_store_check(const struct rr_store *s, unsigned flags, struct rr_store_result *r,
			 rr_error *err)
{
	bool repair = flags & RR_STORE_REPAIR, full = flags & RR_STORE_FULL;
	struct intruder *its = NULL;
	size_t nits = 0;
	unsigned char *bad = rr_xcalloc(s->nfiles + 1, 1);
	RR_AUTOFREE unsigned char *state = rr_xcalloc(s->nfiles + 1, 1);
	RR_AUTOFREE unsigned char *hashed = rr_xcalloc(s->nfiles + 1, 1);
	int lock = -1;

	memset(r, 0, sizeof(*r));
	if (repair && !s->dir) {
		free(bad);
		return rr_fail(err, RR_E_USAGE, "snapshot: repair needs a loaded store");
	}
	if (repair && !s->validated) {
		free(bad);
		return rr_fail(err, RR_E_USAGE, "snapshot: repair needs a validated store");
	}
	if (s->dir && (lock = lock_store(s->dir, err)) < 0) {
		free(bad);
		return err->code;
	}
	all_states(s, full, state, hashed);
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct sfile *f = &s->files[i];
		const struct sdist *d = &s->dists[f->dist];
		enum fstate fs = (enum fstate)state[i];
		static const char *const whys[] = {"", "differs from its RECORD hash",
						   "is missing or unreadable", "is not a regular file"};

		r->files++;
		r->hashed += hashed[i];
		if (fs == F_SAME)
			continue;
		bad[i] = 1;
		push_msg(&r->changed, &r->nchanged,
			 rr_xasprintf("%s (of %s %s) %s", rr_manifest_rel(f->path, d->site), d->name, d->version,
				      whys[fs]));
	}
	find_intruders(s, &its, &nits);
	for (size_t i = 0; i < nits; i++)
		push_msg(&r->intruders, &r->nintruders,
			 rr_xasprintf("%s %s (%s) %s", its[i].name, its[i].version,
				      rr_manifest_rel(its[i].dir, its[i].site), its[i].why));
	if (repair) {
		for (size_t i = 0; i < nits; i++)
			remove_intruder(s, &its[i], r);
		for (size_t i = 0; i < s->ndists; i++)
			remove_replacement(s, i, r);
		/* an intruder's removal never touches protected paths, but check again anyway */
		for (size_t i = 0; i < s->nfiles; i++) {
			const struct sfile *f = &s->files[i];
			const struct sdist *d = &s->dists[f->dist];
			bool rehashed = false;
			if (!bad[i] && file_state(f, false, &rehashed) == F_SAME)
				continue;
			RR_AUTOFREE char *why = restore_file(s, f);
			if (why)
				push_msg(&r->lost, &r->nlost,
					 rr_xasprintf("%s (of %s %s): %s", rr_manifest_rel(f->path, d->site),
						      d->name, d->version, why));
			else
				push_msg(&r->restored, &r->nrestored,
					 rr_xstrdup(rr_manifest_rel(f->path, d->site)));
		}
	}
	intruders_free(its, nits);
	free(bad);
	if (lock >= 0)
		close(lock);
	return RR_OK;
}
