/*
 * tags.h - wheel filenames (PEP 427) and compatibility tags (PEP 425, PEP 600).
 *
 * struct rr_wheel_name w; rr_wheel_name_parse("torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl", &w, err);
 * struct rr_target t; rr_target_init(&t, "3.12", "x86_64", 2, 35);
 * int score = rr_wheel_score(&w, &t);   (-1: not installable on t; higher is more specific)
 * rr_wheel_name_release(&w);
 */
#ifndef RR_TAGS_H
#define RR_TAGS_H

#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_wheel_name {
	char *name;    /* owned, as in the filename (escaped: '_' for '-') */
	char *version; /* owned */
	char *build;   /* owned, NULL when none */
	char **py, **abi, **plat; /* owned tag sets (compressed sets expanded) */
	size_t npy, nabi, nplat;
};

struct rr_target {
	unsigned py_major, py_minor; /* CPython version of the venv */
	char machine[32];	     /* "x86_64", "aarch64" */
	unsigned glibc_major, glibc_minor;
};

rr_err rr_wheel_name_parse(const char *filename, struct rr_wheel_name *ret, rr_error *err) RR_WUR;
void rr_wheel_name_release(struct rr_wheel_name *w);
/* python_version "3.12" or "3.12.3"; glibc 0.0 = manylinux wheels not accepted */
void rr_target_init(struct rr_target *t, const char *python_version, const char *machine,
		    unsigned glibc_major, unsigned glibc_minor);
/* the machine this runs on (uname, gnu_get_libc_version) for the given python */
void rr_target_host(struct rr_target *t, const char *python_version);
/* -1 when the wheel cannot be installed on t, else a rank (higher = more specific) */
int rr_wheel_score(const struct rr_wheel_name *w, const struct rr_target *t);

#endif
