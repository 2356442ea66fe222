/*
 * loader.h - the loader model (loader.c) as check.c uses it: one process per check, each
 * file dlopen()ed into it and taken out again, with what went wrong as issues.
 */
#ifndef RR_ELF_LOADER_H
#define RR_ELF_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/loadcheck.h"

/* one thing that stops a load or breaks the environment's rules */
struct rr_elf_issue {
	enum rr_loadcheck_kind kind;
	char *library, *via, *version, *why; /* as in struct rr_loadcheck_problem */
	char **symbols;
	size_t nsymbols, nmissing;
};

struct rr_elf_issues {
	struct rr_elf_issue *items;
	size_t n, cap;
	size_t *owners; /* the distributions whose files the load reached (rr_elf_loader_own) */
	size_t nowners, cap_owners;
};

void rr_elf_issues_release(struct rr_elf_issues *out);

enum rr_elf_root {
	RR_ELF_ROOT_SHARED,     /* a shared object of this machine (or one it refuses): check it */
	RR_ELF_ROOT_NOT_ELF,    /* no ELF header at all (a placeholder, a script) */
	RR_ELF_ROOT_FOREIGN,    /* another class or machine */
	RR_ELF_ROOT_EXECUTABLE, /* a program, not loadable with dlopen */
	RR_ELF_ROOT_MISSING,    /* not a regular file */
};

struct rr_elf_loader;

/* the loader's cache, search directories and LD_LIBRARY_PATH from the options */
struct rr_elf_loader *rr_elf_loader_new(const struct rr_loadcheck_opts *o);
/* whose file this is (before rr_elf_loader_base, for the links report) */
void rr_elf_loader_own(struct rr_elf_loader *l, const char *path, long owner);
/* the process every check starts from: the interpreter, then the preloads in order */
void rr_elf_loader_base(struct rr_elf_loader *l, const struct rr_loadcheck_opts *o);
enum rr_elf_root rr_elf_loader_classify(struct rr_elf_loader *l, const char *path);
/* dlopen(path, RTLD_NOW) in the base process: its issues and owners added to out */
void rr_elf_loader_check(struct rr_elf_loader *l, const char *path,
			 const struct rr_loadcheck_opts *o, struct rr_elf_issues *out);
/* an object in memory stands at path from now on (as if installed there) */
void rr_elf_loader_image(struct rr_elf_loader *l, const struct rr_loadcheck_image *img);
bool rr_elf_loader_python_api_assumed(const struct rr_elf_loader *l);
struct rr_elf_loader *rr_elf_loader_free(struct rr_elf_loader *l);

#endif
