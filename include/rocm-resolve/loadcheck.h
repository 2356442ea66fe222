/*
 * loadcheck.h - will every native extension in the venv load? The dynamic loader's work,
 * done on paper: no GPU, no import, nothing executed or dlopen()ed.
 *
 *   struct rr_loadcheck_opts o = {.dists = d, .ndists = n, .interpreter = "/usr/bin/python3.12",
 *                                 .preload = torch_import, .npreload = 2, .rocm_major = 7, ...};
 *   struct rr_loadcheck_report *r;
 *   rc = rr_loadcheck_run(&o, &r, err);     fails only on misuse (RR_E_USAGE)
 *   for each r->dists[i]: ok, loads, problems (each with one line of text)
 *   r = rr_loadcheck_report_free(r);
 *
 * Every file a distribution's RECORD lists that is named like a shared library (*.so,
 * *.so.N) and is an ELF shared object of this machine is opened as dlopen(path, RTLD_NOW)
 * would open it in a process that already runs:
 *   - the interpreter (its dependencies are the global scope: the Python C API, libc);
 *     without one, undefined symbols named Py* and _Py* are taken as the interpreter's
 *     (report->python_api_assumed);
 *   - the preload objects, in order (`import torch`: libtorch_global_deps.so with
 *     RTLD_GLOBAL, then torch/_C*.so), whose libraries a later DT_NEEDED name reaches by
 *     name or SONAME, as in the loader.
 * A DT_NEEDED name is found as ld.so finds it: a name already loaded (its requested names
 * and SONAME); a path (with '/') as given; else the DT_RPATH of the object and of the
 * objects that loaded it up to the interpreter (when the object has no DT_RUNPATH), then
 * LD_LIBRARY_PATH as given, the object's own DT_RUNPATH, the loader's cache
 * (/etc/ld.so.cache) and the system directories, those two not with DF_1_NODEFLIB; $ORIGIN
 * is the directory of the path the object was opened by; a file of another class or
 * machine is passed over, a file that is not ELF ends the search with an error. Then the
 * version needs (verneed) of every newly loaded object against the definitions (verdef) of
 * the library named, and every undefined, non-weak dynamic symbol against the definitions
 * in the global scope and the file's own dependency closure, with ld.so's version rules.
 * What is not modelled: glibc-hwcaps subdirectories, $LIB and $PLATFORM (such entries are
 * passed over), LD_PRELOAD, audit modules, the symbols of relocations that the dynamic
 * symbol table does not list as undefined, and anything the code does when it runs.
 *
 * On top of linkage, in a ROCm environment (rocm_major > 0): a DT_NEEDED name the
 * classifier calls a CUDA library is a problem (the code cannot run on the ROCm GPU even
 * where the library is found), and so is the HIP runtime of another major
 * (libamdhip64.so.6 where the runtime is ROCm 7). The report owns all of its strings.
 */
#ifndef RR_LOADCHECK_H
#define RR_LOADCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

/* what a library name is, for the environment's rules */
enum rr_loadcheck_lib {
	RR_LOADCHECK_LIB_OTHER,
	RR_LOADCHECK_LIB_CUDA, /* a CUDA runtime, driver or math library (libcudart, libcublas) */
	RR_LOADCHECK_LIB_HIP,  /* the HIP runtime: the number after .so. is its ROCm major */
};

enum rr_loadcheck_kind {
	RR_LOADCHECK_NOT_FOUND,  /* a needed library is not found */
	RR_LOADCHECK_BAD_FILE,   /* a file the loader refuses (not ELF, truncated, ...) */
	RR_LOADCHECK_VERSION,    /* a needed symbol version that the library does not define */
	RR_LOADCHECK_SYMBOLS,    /* undefined symbols that no library in scope defines */
	RR_LOADCHECK_CUDA,       /* links a CUDA library in a ROCm environment */
	RR_LOADCHECK_ROCM_MAJOR, /* links the HIP runtime of another ROCm major */
};

struct rr_loadcheck_problem {
	enum rr_loadcheck_kind kind;
	char *file;     /* the first file of the distribution that shows it (RECORD path) */
	size_t nfiles;  /* how many of its files show it */
	char *library;  /* the library name (needed name; BAD_FILE: its path; VERSION: whose) */
	char *via;      /* the object that needs it, when not the file itself (path), or NULL */
	char *version;  /* VERSION: the version needed */
	char **symbols; /* SYMBOLS: the first few, demangled where C++ */
	size_t nsymbols;
	size_t nmissing; /* SYMBOLS: how many in all */
	char *why;       /* BAD_FILE: the loader's words; CUDA: the classifier's */
	char *text;      /* the problem in one line, for people */
};

struct rr_loadcheck_dist {
	char *name, *version; /* a loose file (opts->files): its path, and NULL */
	size_t index;  /* into opts->dists (+ ndists + i: opts->files[i], + nfiles: images) */
	size_t nfiles; /* ELF shared objects checked */
	bool loads;    /* no problem that stops a load (NOT_FOUND ... SYMBOLS) */
	bool ok;       /* no problem at all */
	struct rr_loadcheck_problem *problems;
	size_t nproblems;
	size_t *links; /* indexes into opts->dists whose libraries its files load, sorted */
	size_t nlinks;
};

struct rr_loadcheck_report {
	/* the checked distributions that install ELF shared objects, the loose files and the
	 * images that are ELF shared objects */
	struct rr_loadcheck_dist *dists; /* then opts->images, by their paths */
	size_t ndists;
	size_t nchecked; /* distributions checked (with or without native code) */
	size_t nfiles;   /* ELF shared objects checked */
	size_t nskipped; /* files named like libraries that are not (text, another machine's) */
	bool python_api_assumed;
};

struct rr_loadcheck_dist_in {
	const char *name, *version;
	const char *dist_info_dir; /* its RECORD is read (egg-info has none: nothing to check) */
	const char *site;          /* RECORD paths are relative to it */
	bool skip;                 /* not reported on: its files only tell who links whom */
};

struct rr_loadcheck_image {
	const void *data;
	size_t len;
	const char *path; /* where it would be installed ($ORIGIN is its directory) */
};

struct rr_loadcheck_preload {
	const char *path;
	bool global; /* RTLD_GLOBAL: its dependency closure joins the global scope */
};

struct rr_loadcheck_opts {
	const struct rr_loadcheck_dist_in *dists;
	size_t ndists;
	const char *const *files; /* loose files to check as well (tests, unpacked wheels) */
	size_t nfiles;
	/* objects in memory (a wheel's member), each checked as if installed at its path,
	 * after everything else; the bytes must live until rr_loadcheck_run returns */
	const struct rr_loadcheck_image *images;
	size_t nimages;
	const char *interpreter; /* the executable that loads them (the venv's python), or NULL */
	const struct rr_loadcheck_preload *preload;
	size_t npreload;
	const char *ld_library_path;    /* as the interpreter would get it, or NULL */
	const char *ld_so_cache;        /* NULL: /etc/ld.so.cache; "": none */
	const char *const *system_dirs; /* NULL: this machine's (Debian multiarch or lib64) */
	size_t nsystem_dirs;
	int rocm_major;      /* > 0: a ROCm environment with this HIP runtime major */
	const char *runtime; /* the runtime in words, for messages ("ROCm 7 (torch's HIP 7.2)") */
	/* what a DT_NEEDED name is (NULL: every name is OTHER); *why: words for CUDA */
	enum rr_loadcheck_lib (*classify)(void *ctx, const char *soname, const char **why);
	void *classify_ctx;
	size_t max_symbols; /* undefined symbols named per problem (0: 3) */
	/* the undefined symbols are checked even where a library or version is missing, which
	 * stops ld.so first (the plan's check of a counterpart: torch's symbols decide, while
	 * the HIP runtime may be absent here); what the missing library would define is then
	 * reported missing too */
	bool symbols_past_missing;
};

/* fails for bad options (RR_E_USAGE) and, naming the package, when libelf.so.1 cannot be
 * loaded (RR_E_ENV: it is dlopen()ed on first use); what does not load is in the report */
rr_err rr_loadcheck_run(const struct rr_loadcheck_opts *o, struct rr_loadcheck_report **ret,
			rr_error *err) RR_WUR;
struct rr_loadcheck_report *rr_loadcheck_report_free(struct rr_loadcheck_report *r);
/* "not-found", "bad-file", "version", "symbols", "cuda", "rocm-major" */
const char *rr_loadcheck_kind_name(enum rr_loadcheck_kind k);
/* NOT_FOUND, BAD_FILE, VERSION, SYMBOLS: dlopen would fail */
bool rr_loadcheck_kind_stops_load(enum rr_loadcheck_kind k);
/* the report's distributions that fail, and its ELF files: the summary line's counts */
size_t rr_loadcheck_failed(const struct rr_loadcheck_report *r);
/* is the last path segment of name (n bytes) named like a shared library, as the check
 * selects RECORD's files: foo.so, foo.cpython-312-x86_64-linux-gnu.so, libfoo.so.1.2 */
bool rr_loadcheck_library_name(const unsigned char *name, size_t n);

#endif
