/*
 * store.h - the install store: the exact bytes of the protected distributions, kept so that
 * an install that damaged them can be undone. The ROCm wheels in the images cannot be
 * downloaded again: the store is their only other copy. Each `install` takes a snapshot into
 * it (rr_store_take); `restore` and the install transaction check the venv against the last
 * one (rr_store_check).
 *
 *   struct rr_store_spec sp = {.venv_root = root, .sites = sites, .nsites = ns,
 *                              .dists = dists, .ndists = nd};
 *   RR_AUTOFREE char *dir = rr_store_dir(cache_root, root);
 *   rc = rr_store_take(dir, &sp, &stats, err);        before the installer runs
 *   ... the installer runs ...
 *   struct rr_store *s;
 *   rc = rr_store_load(dir, &s, err);                 RR_E_NOTFOUND: none was taken
 *   struct rr_store_result r = {0};
 *   rc = rr_store_check(s, true, &r, err);            true: repair what differs
 *   rr_store_result_release(&r);
 *   s = rr_store_free(s);
 *
 * What is kept, in <root>/snapshots/<venv id>/ (the id is a hash of the venv root; root is
 * the state directory, $XDG_STATE_HOME/rocm-resolve or ~/.local/state/rocm-resolve):
 *   objects/<sha256, RECORD's urlsafe base64>  one per distinct content of a file over
 *       RR_STORE_COPY_MAX (the libraries: nearly all of the bytes): a hard link to the
 *       installed file (free on the same filesystem), or a copy where link() fails (EXDEV,
 *       EPERM, EMLINK, ...). Content-addressed and written once: a new object is made under
 *       a temporary name, hashed, and given its name only when the bytes match the RECORD
 *       hash (a file already damaged is never kept as the good copy); an object already
 *       there is never replaced, and never pruned while a file of the snapshot has its hash,
 *       whatever that file's size is now (a library a plain `pip install` replaced).
 *   pack-<random>  the smaller files (the .py files and headers: nearly all of the files,
 *       which editors and tools rewrite in place) as copies, one after the other in one
 *       file: a file each would cost an inode each. Only bytes that match their RECORD hash
 *       go in, taken from the previous pack when it has them, else from the venv.
 *   manifest  (text; `rr_store_parse`) the venv root, its site directories, every
 *       .dist-info present, and per protected distribution its top-level modules and every
 *       file: each RECORD entry and each file of the .dist-info, with the RECORD hash (computed
 *       for entries RECORD lists without one; .pyc files are left out: Python rebuilds them),
 *       size, mode, and the inode, mtime and ctime the file had when the snapshot was taken.
 *
 * check compares every file with the snapshot: an unchanged inode with the same size, mtime
 * and ctime is the same file (no hashing; RR_STORE_FULL hashes it anyway, which also finds
 * damage older than the snapshot); anything else is hashed against the RECORD hash.
 * A distribution that was not present at snapshot time and ships a protected top-level module
 * or has a protected distribution's name is an intruder (PyPI triton over pytorch-triton-rocm's
 * triton/, a CUDA torch over the ROCm one). repair removes each intruder's files (those its
 * RECORD lists and no protected RECORD does) and its .dist-info, then puts back every file that
 * changed or vanished, atomically (a link or copy under a temporary name, then rename).
 *
 * The hard-link trade-off: a linked object shares its inode with the installed file, so an
 * installer that rewrote a large protected file in place (O_TRUNC instead of a new file
 * renamed over it) changes the snapshot's copy too. pip and uv unlink the files of a
 * distribution they upgrade or remove, and write new files, which leaves the objects intact;
 * uv in copy mode overwrites the files of *another* distribution in place. So every object is
 * hashed (after it is linked or copied next to its place, before the rename) before it is put
 * back, and one that no longer matches is reported in `lost`, never restored.
 *
 * Nothing read from the store is trusted: rr_store_validate checks every path of the manifest
 * against the live venv before a repair (rr_store_check refuses without it); a directory
 * standing where a file is put back goes only when it is empty; no symbolic link is followed
 * on the way to a file put back. A lock file serialises snapshots and repairs of one venv, and
 * rr_store_lock keeps a second install or restore of the same venv out altogether.
 */
#ifndef RR_STORE_H
#define RR_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_store_dist {
	const char *name, *version;
	const char *dist_info_dir; /* absolute */
	const char *site;	   /* absolute: the site directory RECORD paths are relative to */
};

struct rr_store_spec {
	const char *venv_root; /* absolute */
	const char *const *sites;
	size_t nsites;
	const struct rr_store_dist *dists;
	size_t ndists;
};

struct rr_store_stats {
	size_t dists, files;
	size_t linked;	 /* new objects made by link() */
	size_t copied;	 /* new objects copied (link() failed) */
	size_t packed;	 /* small files read from the venv into the pack */
	size_t reused;	 /* objects and pack entries taken over from the previous snapshot */
	size_t unverified; /* small files not kept: their bytes did not match their hash */
	unsigned long long bytes_packed;
	size_t hashed;	 /* files hashed because RECORD gives no hash */
	size_t skipped;	 /* RECORD entries left out (a newline in the path, outside the venv) */
	unsigned long long bytes_copied;
};

struct rr_store;

struct rr_store_result {
	size_t files;	   /* files compared */
	size_t hashed;	   /* of which hashed (their inode or times changed) */
	char **changed;	   /* "triton/__init__.py (of triton 3.5.1+rocm...) differs" */
	size_t nchanged;
	char **intruders;  /* "triton 3.5.1 (site/triton-3.5.1.dist-info) ships module 'triton'" */
	size_t nintruders;
	char **restored;   /* paths put back (relative to their site) */
	size_t nrestored;
	char **removed;	   /* "triton 3.5.1: triton-3.5.1.dist-info and 4 other files" */
	size_t nremoved;
	char **lost;	   /* "path: why" for files that could not be put back */
	size_t nlost;
};

/* <root>/snapshots/<first 16 hex digits of sha256(venv_root)> */
char *rr_store_dir(const char *root, const char *venv_root);
/*
 * one install (or restore) at a time per venv: an exclusive lock on <dir>/install.lock, held
 * until *fd is closed; RR_E_ENV at once (never a wait) when another process holds it. With
 * create false and no store yet, RR_OK with *fd -1
 */
rr_err rr_store_lock(const char *dir, bool create, int *fd, rr_error *err) RR_WUR;
/*
 * replaces the manifest in dir (created with its parents); stats may be NULL. The previous
 * snapshot's bytes of a file still listed but missing now stay in the store. RR_E_ENV, with
 * nothing changed, when the new snapshot would drop the store's only copy of a file of the
 * previous (validated) snapshot: a protected build replaced or removed outside rocm-resolve,
 * whose bytes are no longer in the venv as the snapshot has them; the message names the
 * distributions and says to run `rocm-resolve restore` first
 */
rr_err rr_store_take(const char *dir, const struct rr_store_spec *spec,
			struct rr_store_stats *stats, rr_error *err) RR_WUR;
/* RR_E_NOTFOUND when dir holds no manifest; RR_E_DATA for a malformed one */
rr_err rr_store_load(const char *dir, struct rr_store **ret, rr_error *err) RR_WUR;
/* a manifest's text (what load reads); name is used in error messages */
rr_err rr_store_parse(const char *text, size_t len, const char *name, struct rr_store **ret,
			 rr_error *err) RR_WUR;
/*
 * before anything is repaired from it, the manifest is checked against the live venv (root
 * and site directories as the venv is read now): the snapshot's root is the venv's, every
 * site one of its sites, every distribution directly in a site, every file path clean (no
 * "..", no ".", absolute) inside its site or the venv root, with no symbolic link (or other
 * non-directory) on the way below that. RR_E_DATA naming the manifest line of the first bad
 * entry otherwise. rr_store_check refuses to repair from a store not validated
 */
rr_err rr_store_validate(struct rr_store *s, const char *venv_root, const char *const *sites,
			 size_t nsites, rr_error *err) RR_WUR;
const char *rr_store_venv_root(const struct rr_store *s);
size_t rr_store_nfiles(const struct rr_store *s);
size_t rr_store_ndists(const struct rr_store *s);
/* files up to this size are kept as copies, larger ones as hard links (see above) */
#define RR_STORE_COPY_MAX (1u << 20)

enum {
	RR_STORE_REPAIR = 1, /* remove intruders, put changed files back */
	RR_STORE_FULL = 2,	/* hash every file, even one whose inode and times are unchanged */
};

/*
 * compare the venv with the snapshot (flags: RR_STORE_*). What differs is in *r
 * (r->changed/intruders as found before any repair); fails only when the store cannot be
 * used (RR_E_IO) or locked
 */
rr_err rr_store_check(const struct rr_store *s, unsigned flags, struct rr_store_result *r,
			 rr_error *err) RR_WUR;
void rr_store_result_release(struct rr_store_result *r);
struct rr_store *rr_store_free(struct rr_store *s);

#endif
