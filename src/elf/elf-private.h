/*
 * elf-private.h - the elf layer inside: one ELF object as the dynamic loader sees it
 * (object.c, the only user of libelf), the loader's cache file (ldcache.c), C++ names
 * demangled (demangle.cc), and the loader model (loader.c) that check.c runs per file.
 */
#ifndef RR_ELF_PRIVATE_H
#define RR_ELF_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocm-resolve/error.h"

/* a defined dynamic symbol: what a lookup may bind to */
struct rr_elf_def {
	const char *name;
	uint16_t ver; /* its version index (versym & 0x7fff); 0 when the object has none */
	bool hidden;  /* versym's hidden bit: only a reference to that very version binds */
};

/* an undefined dynamic symbol: what the loader must find at load time (RTLD_NOW) */
struct rr_elf_undef {
	const char *name;
	const char *version; /* the version it needs (from verneed), or NULL */
	bool weak;           /* a weak reference: may stay unresolved */
	bool hidden;         /* the reference's hidden bit */
	const void *cached;  /* loader.c: the file that defined it last time */
};

/* a version an object needs from a library (verneed) */
struct rr_elf_verneed {
	const char *file, *name;
	bool weak;
};

struct rr_elf_obj {
	/* the ELF header */
	unsigned char cls, data;
	uint16_t type, machine;
	/* the dynamic section */
	const char *soname, *rpath, *runpath; /* rpath is NULL when runpath is set, as in ld.so */
	const char **needed;
	size_t nneeded;
	uint64_t flags_1; /* DT_FLAGS_1 (DF_1_NODEFLIB, DF_1_PIE) */
	/* the dynamic symbol table */
	struct rr_elf_def *defs;
	size_t ndefs;
	uint32_t *index; /* open addressing over defs by name; capacity index_cap (a power of 2) */
	size_t index_cap;
	struct rr_elf_undef *undefs;
	size_t nundefs;
	const char **verdefs; /* version names by index (NULL where none; [1] the base) */
	size_t nverdefs;
	bool has_versym;
	struct rr_elf_verneed *verneeds;
	size_t nverneeds;
	void *elf; /* the libelf handle: the strings above point into its data */
};

/*
 * The header checks ld.so makes before it maps a file, with its messages. RR_ELF_OK: a
 * loadable object of this machine. RR_ELF_OTHER: another class or machine (the loader skips
 * it while searching, and refuses it as a path). RR_ELF_BAD: it stops the load (*why).
 */
enum rr_elf_fit { RR_ELF_OK, RR_ELF_OTHER, RR_ELF_BAD };

/* bind libelf (dlopen, once); RR_E_ENV naming the package to install when it cannot */
rr_err rr_elf_lib_load(rr_error *err);

/* the first bytes of a file (at least 64 when it has them): the loader's verdict */
enum rr_elf_fit rr_elf_check_header(const unsigned char *buf, size_t len, const char **why);
/*
 * read an object that rr_elf_check_header accepted (or one of another machine, for its
 * names): from an open file (mapped; fd may be closed afterwards) or from memory that must
 * outlive the object. NULL with *why (allocated) when libelf cannot read it.
 */
struct rr_elf_obj *rr_elf_obj_read_fd(int fd, char **why);
struct rr_elf_obj *rr_elf_obj_read_mem(const void *buf, size_t len, char **why);
struct rr_elf_obj *rr_elf_obj_free(struct rr_elf_obj *o);
/* the definitions of name in o (index into o->defs), -1 when none; *next for the following */
long rr_elf_obj_find(const struct rr_elf_obj *o, const char *name, size_t *cursor);

/* the loader's cache (/etc/ld.so.cache): soname -> path for this machine's libraries */
struct rr_elf_ldcache;
/* NULL when the file is absent or not a cache glibc reads (the loader then goes on without) */
struct rr_elf_ldcache *rr_elf_ldcache_load(const char *path);
struct rr_elf_ldcache *rr_elf_ldcache_parse(const void *buf, size_t len);
/* the path of name (the first entry for this machine, as ld.so picks), or NULL */
const char *rr_elf_ldcache_lookup(const struct rr_elf_ldcache *c, const char *name);
struct rr_elf_ldcache *rr_elf_ldcache_free(struct rr_elf_ldcache *c);
/* every name the cache gives a path for, with it (tests) */
void rr_elf_ldcache_each(const struct rr_elf_ldcache *c,
			 void (*fn)(void *ctx, const char *name, const char *path), void *ctx);

/* a C++ symbol demangled (allocated), or NULL when it is none */
char *rr_elf_demangle(const char *sym);

#endif
