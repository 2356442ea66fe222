/*
 * file.h - the one way librr reads and writes whole files.
 *
 * Reading never blocks on a file's type: every open is O_NONBLOCK|O_CLOEXEC|O_NOCTTY, the
 * opened file is fstat()ed, and anything that is not a regular file (a FIFO, /dev/zero, a
 * socket, a directory) is refused with RR_E_IO "... is not a regular file (a FIFO)" unless
 * the caller allows streams (a requirements file named on the command line may be a pipe,
 * as in `-r <(cmd)`); a stream is still bounded by max.
 *
 *   rr_file_read(AT_FDCWD, path, 1 << 20, 0, "'x'", &sb, &err);   regular files only
 *   rr_file_read(dirfd, "METADATA", max, 0, "METADATA", &sb, &err);
 *
 * Writing goes through a temporary file with a random name in the target's own directory,
 * created with O_CREAT|O_EXCL|O_NOFOLLOW, so a symlink planted at a predictable name is never
 * followed; the data is fsync()ed and rename()d over the target; the temporary is unlinked on
 * any failure:
 *
 *   rr_file_write_atomic("/cache/plans/p.txt", buf, len, 0600, &err);
 */
#ifndef RR_FILE_H
#define RR_FILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/strbuf.h"

enum rr_file_flags {
	RR_FILE_STREAM_OK = 1 << 0, /* accept FIFOs and character devices (still bounded by max) */
	RR_FILE_NOFOLLOW = 1 << 1,  /* refuse a symlink as the last path component */
};

/*
 * open path (relative to dirfd; AT_FDCWD for the working directory) for reading, without
 * blocking, and check its type as above; on success *ret_fd is a blocking descriptor (O_NONBLOCK
 * is cleared again) and *ret_st (may be NULL) its fstat. Fails with RR_E_NOTFOUND when the path
 * does not exist (ENOENT, ENOTDIR), RR_E_IO otherwise. shown names the file in messages.
 */
rr_err rr_file_open_read(int dirfd, const char *path, unsigned flags, const char *shown,
			 int *ret_fd, struct stat *ret_st, rr_error *err) RR_WUR;

/*
 * replace sb's content with the whole file (NUL-terminated); RR_E_LIMIT when it holds more
 * than max bytes, other codes as rr_file_open_read. sb is left empty on failure.
 */
rr_err rr_file_read(int dirfd, const char *path, size_t max, unsigned flags, const char *shown,
		    struct rr_strbuf *sb, rr_error *err) RR_WUR;

/* len bytes to fd at its offset, through EINTR and short writes; RR_E_IO with errno set
 * (EIO for a write that wrote nothing) */
/* mkdir -p: path and every missing parent, each with mode; 0, or -1 with errno set */
int rr_mkdir_p(const char *path, mode_t mode);
rr_err rr_file_write_all(int fd, const void *data, size_t len) RR_WUR;

/*
 * write data to path atomically (see above); mode is the new file's mode (before umask).
 * Fails with RR_E_IO naming the path.
 */
rr_err rr_file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			    rr_error *err) RR_WUR;
/* the same with path relative to dirfd (AT_FDCWD: the working directory); shown names it */
rr_err rr_file_write_atomic_at(int dirfd, const char *path, const void *data, size_t len,
			       mode_t mode, const char *shown, rr_error *err) RR_WUR;
/*
 * an edit of a user's file: path replaced by data as above, but only while it still holds
 * exactly expected (nexpected bytes), the text the edit was made from. It is read again
 * right before the rename; when it changed meanwhile (an editor's save, `uv add` in another
 * terminal) nothing is replaced and the result is RR_E_ENV "'path' changed since it was
 * read ...", the user's version left as it is.
 */
rr_err rr_file_replace_unchanged(const char *path, const void *expected, size_t nexpected,
				 const void *data, size_t len, mode_t mode, rr_error *err) RR_WUR;

/* the first executable prog in the directories of path (a $PATH value; NULL: the default
 * /usr/bin:/bin), or NULL; caller frees */
char *rr_file_which(const char *path, const char *prog);

/* does path name a directory (symlinks followed)? */
bool rr_file_is_dir(const char *path);

#endif
