/*
 * file.c - whole-file reads that never block on a file's type, atomic writes through a
 * temporary that no planted symlink can redirect (see file.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rocm-resolve/file.h"

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

rr_err rr_file_open_read(int dirfd, const char *path, unsigned flags, const char *shown,
			 int *ret_fd, struct stat *ret_st, rr_error *err)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	struct stat st;
	int fd, fl;
	bool ok;

	if (flags & RR_FILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	do
		fd = openat(dirfd, path, oflags);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			return rr_fail(err, RR_E_NOTFOUND, "cannot open %s: %s", shown, strerror(e));
		if (e == ELOOP && (flags & RR_FILE_NOFOLLOW))
			return rr_fail(err, RR_E_IO, "cannot open %s: it is a symbolic link", shown);
		return rr_fail(err, RR_E_IO, "cannot open %s: %s", shown, strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return rr_fail(err, RR_E_IO, "cannot read %s: %s", shown, strerror(e));
	}
	ok = S_ISREG(st.st_mode) ||
	     ((flags & RR_FILE_STREAM_OK) && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)));
	if (!ok) {
		close(fd);
		return rr_fail(err, RR_E_IO, "cannot read %s: it is %s, not a regular file", shown,
			       kind_of(st.st_mode));
	}
	/* the open must not wait for a FIFO's writer; the reads of an accepted stream may */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	*ret_fd = fd;
	if (ret_st)
		*ret_st = st;
	return RR_OK;
}

static rr_err read_fd(int fd, size_t max, size_t hint, const char *shown, struct rr_strbuf *sb,
		      rr_error *err)
{
	rr_strbuf_reset(sb);
	rr_strbuf_grow(sb, hint < max ? hint + 1 : max + 1);
	for (;;) {
		ssize_t n;
		if (sb->alloc - sb->len < 2)
			rr_strbuf_grow(sb, sb->len < 65536 ? 4096 : sb->len / 2);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			rr_strbuf_setlen(sb, 0);
			return rr_fail(err, RR_E_IO, "cannot read %s: %s", shown, strerror(e));
		}
		if (n == 0)
			return RR_OK;
		if (sb->len + (size_t)n > max) {
			rr_strbuf_setlen(sb, 0);
			return rr_fail(err, RR_E_LIMIT, "%s is larger than the limit of %zu bytes",
				       shown, max);
		}
		rr_strbuf_setlen(sb, sb->len + (size_t)n);
	}
}

rr_err rr_file_read(int dirfd, const char *path, size_t max, unsigned flags, const char *shown,
		    struct rr_strbuf *sb, rr_error *err)
{
	struct stat st;
	int fd;
	rr_err rc;

	rr_strbuf_reset(sb);
	rc = rr_file_open_read(dirfd, path, flags, shown, &fd, &st, err);
	if (rc)
		return rc;
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
		close(fd);
		return rr_fail(err, RR_E_LIMIT, "%s is larger than the limit of %zu bytes", shown,
			       max);
	}
	rc = read_fd(fd, max, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, shown, sb, err);
	close(fd);
	/* an allocated, terminated string even for an empty file */
	rr_strbuf_grow(sb, 0);
	return rc;
}

/* 16 hex digits nobody can predict (getrandom; a clock/pid/counter mix if that fails) */
static void random_tag(char out[17])
{
	static atomic_uint counter;
	uint64_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
		    ((uint64_t)atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15u);
	}
	for (int i = 0; i < 16; i++)
		out[i] = "0123456789abcdef"[(r >> (i * 4)) & 15];
	out[16] = '\0';
}

int rr_mkdir_p(const char *path, mode_t mode)
{
	RR_AUTOFREE char *p = rr_xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, mode) && errno != EEXIST ? -1 : 0;
}

rr_err rr_file_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return RR_E_IO;
		}
		p += n;
		len -= (size_t)n;
	}
	return RR_OK;
}

/* does path (relative to dirfd) hold exactly expected? */
static bool holds(int dirfd, const char *path, const void *expected, size_t nexpected)
{
	RR_AUTO_STRBUF struct rr_strbuf now = RR_STRBUF_INIT;
	rr_error e = RR_ERROR_INIT;
	bool same = rr_file_read(dirfd, path, nexpected + 1, 0, path, &now, &e) == RR_OK &&
		    now.len == nexpected && memcmp(now.buf, expected, nexpected) == 0;

	rr_error_release(&e);
	return same;
}

/* the temporary file written, renamed over path; with expected, only while path holds it */
static rr_err write_atomic(int dirfd, const char *path, const void *data, size_t len, mode_t mode,
			   const char *shown, const void *expected, size_t nexpected, rr_error *err)
{
	const char *slash = strrchr(path, '/');
	RR_AUTOFREE char *tmp = NULL;
	int fd = -1;
	int e;

	if (!shown)
		shown = path;
	for (int tries = 0; tries < 64 && fd < 0; tries++) {
		char tag[17];
		random_tag(tag);
		tmp = rr_free(tmp);
		/* ".<name>.<random>.tmp" next to the target, so the rename stays in one filesystem */
		if (slash)
			tmp = rr_xasprintf("%.*s/.%s.%s.tmp", (int)(slash - path), path, slash + 1,
					   tag);
		else
			tmp = rr_xasprintf(".%s.%s.tmp", path, tag);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			    mode);
		if (fd < 0 && errno != EEXIST && errno != EINTR)
			break;
	}
	if (fd < 0)
		return rr_fail(err, RR_E_IO, "cannot create a temporary file for '%s': %s", shown,
			       strerror(errno));
	if (rr_file_write_all(fd, data, len) || fsync(fd)) {
		e = errno;
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return rr_fail(err, RR_E_IO, "cannot write '%s': %s", shown, strerror(e));
	}
	if (close(fd)) {
		e = errno;
		unlinkat(dirfd, tmp, 0);
		return rr_fail(err, RR_E_IO, "cannot write '%s': %s", shown, strerror(e));
	}
	/* read again right before the rename: a save made while we worked is not lost */
	if (expected && !holds(dirfd, path, expected, nexpected)) {
		unlinkat(dirfd, tmp, 0);
		return rr_fail(err, RR_E_ENV,
			       "'%s' changed since it was read (saved by an editor or another tool "
			       "meanwhile): not written, the file is left as it is now; run the "
			       "command again",
			       shown);
	}
	if (renameat(dirfd, tmp, dirfd, path)) {
		e = errno;
		unlinkat(dirfd, tmp, 0);
		return rr_fail(err, RR_E_IO, "cannot replace '%s': %s", shown, strerror(e));
	}
	return RR_OK;
}

rr_err rr_file_write_atomic_at(int dirfd, const char *path, const void *data, size_t len,
			       mode_t mode, const char *shown, rr_error *err)
{
	return write_atomic(dirfd, path, data, len, mode, shown, NULL, 0, err);
}

rr_err rr_file_replace_unchanged(const char *path, const void *expected, size_t nexpected,
				 const void *data, size_t len, mode_t mode, rr_error *err)
{
	return write_atomic(AT_FDCWD, path, data, len, mode, path, expected, nexpected, err);
}

rr_err rr_file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			    rr_error *err)
{
	return rr_file_write_atomic_at(AT_FDCWD, path, data, len, mode, path, err);
}

bool rr_file_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *rr_file_which(const char *path, const char *prog)
{
	char *copy = rr_xstrdup(path ? path : "/usr/bin:/bin");
	char *save = NULL, *found = NULL;

	for (char *dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *cand = rr_xasprintf("%s/%s", dir, prog);
		if (access(cand, X_OK) == 0)
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}
