/*
 * loader.c - glibc's ld.so on paper (rocm-resolve/loadcheck.h says what is modelled): a
 * process (the interpreter and the preloads, "the base"), into which each checked file is
 * dlopen()ed and taken out again. Files are known by identity (device, inode), read once,
 * and remember who owns them; the link map holds the objects loaded, in load order, each
 * with the path it was opened by and the names it was asked for.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "elf/elf-private.h"
#include "elf/loader.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/util.h"

#ifndef DF_1_NODEFLIB
#define DF_1_NODEFLIB 0x00000800
#endif
#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif

struct file {
	dev_t dev;
	ino_t ino;
	bool read;              /* header (and object) read */
	enum rr_elf_fit fit;    /* the header's verdict */
	char *why;              /* why the loader refuses it (not RR_ELF_OK) */
	struct rr_elf_obj *obj; /* RR_ELF_OK and readable */
	long owner;             /* the distribution that installs it, -1 */
	long lm;                /* its entry in the link map, -1 */
	size_t epoch;           /* in the current lookup scope when == loader's epoch */
};

struct lm {
	struct file *f;
	char *path;   /* as opened */
	char *origin; /* its directory: $ORIGIN */
	struct rr_strv names;
	long loader; /* the object whose DT_NEEDED brought it in, -1 */
	long *deps;  /* resolved DT_NEEDED, in order (-1: not found) */
	size_t ndeps;
	bool global; /* in the global scope */
};

struct rr_elf_loader {
	struct rr_strmap by_path; /* path -> struct file * (or &absent) */
	struct rr_strmap by_id;   /* "dev:ino" -> struct file * */
	struct lm *lms;
	size_t nlms, cap_lms, nbase;
	struct rr_strmap base_names;  /* name -> base lm index + 1 */
	long main;                    /* the interpreter's entry, -1 */
	struct rr_elf_ldcache *cache; /* read on the first search that reaches it */
	char *cache_path;             /* NULL: none */
	struct rr_strv ldpath, sysdirs;
	size_t epoch;
	struct file **scope; /* the lookup scope being checked */
	size_t nscope, cap_scope;
	bool python_api_assumed;
	struct rr_elf_issues *base_issues; /* per preload: what its load showed */
	struct file **base_roots;
	size_t nbase_roots;
};

static struct file absent;

/* ---- files ---- */

static struct file *file_at(struct rr_elf_loader *l, const char *path)
{
	void **slot = rr_strmap_find(&l->by_path, path, true), **islot;
	struct stat st;
	char id[64];
	struct file *f;

	if (*slot)
		return *slot == &absent ? NULL : *slot;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		*slot = &absent;
		return NULL;
	}
	snprintf(id, sizeof(id), "%llx:%llx", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	islot = rr_strmap_find(&l->by_id, id, true); /* another map: slot stays valid */
	if (!*islot) {
		f = rr_xcalloc(1, sizeof(*f));
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->owner = -1;
		f->lm = -1;
		*islot = f;
	}
	*slot = *islot;
	return *slot;
}

/* the header and, when the loader would take it, the object */
static void file_read(struct file *f, const char *path)
{
	unsigned char buf[64];
	const char *why = NULL;
	ssize_t n;
	int fd;

	if (f->read)
		return;
	f->read = true;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		f->fit = RR_ELF_BAD;
		f->why = rr_xasprintf("cannot open: %s", strerror(errno));
		return;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	f->fit = rr_elf_check_header(buf, n > 0 ? (size_t)n : 0, &why);
	if (f->fit != RR_ELF_OK) {
		f->why = rr_xstrdup(why);
	} else {
		char *owhy = NULL;
		f->obj = rr_elf_obj_read_fd(fd, &owhy);
		if (!f->obj) {
			f->fit = RR_ELF_BAD;
			f->why = owhy;
		}
	}
	close(fd);
}

static void file_free(void *p)
{
	struct file *f = p;

	free(f->why);
	rr_elf_obj_free(f->obj);
	free(f);
}

/* ---- the link map ---- */

static bool lm_has_name(const struct lm *m, const char *name)
{
	if (m->f->obj && m->f->obj->soname && !strcmp(m->f->obj->soname, name))
		return true;
	return rr_strv_find(&m->names, name) >= 0;
}

static long loaded_by_name(struct rr_elf_loader *l, const char *name)
{
	void **slot = rr_strmap_find(&l->base_names, name, false);

	if (slot)
		return (long)(size_t)*slot - 1;
	for (size_t i = l->nbase; i < l->nlms; i++)
		if (lm_has_name(&l->lms[i], name))
			return (long)i;
	return -1;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char cwd[PATH_MAX];

	if (!slash) {
		/* a relative name without a directory: the working directory */
		return rr_xstrdup(getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	}
	if (slash == path)
		return rr_xstrdup("/");
	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		return rr_xasprintf("%s/%.*s", cwd, (int)(slash - path), path);
	return rr_xstrndup(path, (size_t)(slash - path));
}

static long lm_add(struct rr_elf_loader *l, struct file *f, const char *path, const char *name,
		   long loader)
{
	struct lm *m = &RR_PUSH(l->lms, l->nlms, l->cap_lms);

	memset(m, 0, sizeof(*m));
	m->f = f;
	m->path = rr_xstrdup(path);
	m->origin = dir_of(path);
	m->loader = loader;
	if (name)
		rr_strv_push(&m->names, name);
	f->lm = (long)(l->nlms - 1);
	return f->lm;
}

static void lm_release(struct lm *m)
{
	free(m->path);
	free(m->origin);
	free(m->deps);
	rr_strv_release(&m->names);
	if (m->f->lm >= 0)
		m->f->lm = -1;
}

/* ---- issues ---- */

static struct rr_elf_issue *issue_add(struct rr_elf_issues *out, enum rr_loadcheck_kind kind,
				      const char *library, const char *via)
{
	struct rr_elf_issue *is;

	if (!out)
		return NULL;
	is = &RR_PUSH(out->items, out->n, out->cap);
	memset(is, 0, sizeof(*is));
	is->kind = kind;
	is->library = library ? rr_xstrdup(library) : NULL;
	is->via = via ? rr_xstrdup(via) : NULL;
	return is;
}

void rr_elf_issues_release(struct rr_elf_issues *out)
{
	for (size_t i = 0; i < out->n; i++) {
		struct rr_elf_issue *is = &out->items[i];
		free(is->library);
		free(is->via);
		free(is->version);
		free(is->why);
		rr_strv_free_array(is->symbols, is->nsymbols);
	}
	free(out->items);
	free(out->owners);
	memset(out, 0, sizeof(*out));
}

/* ---- the search ---- */

/* "$NAME" or "${NAME}" at p: its length, else 0 */
static size_t is_dst(const char *p, const char *name)
{
	size_t n = strlen(name);

	if (p[0] != '$')
		return 0;
	if (p[1] == '{')
		return !strncmp(p + 2, name, n) && p[2 + n] == '}' ? n + 3 : 0;
	if (strncmp(p + 1, name, n))
		return 0;
	p += 1 + n;
	return (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		       *p == '_'
		   ? 0
		   : n + 1;
}

/* one search path element with $ORIGIN replaced; NULL for $LIB, $PLATFORM (not modelled) */
static char *expand(const char *elem, size_t len, const char *origin)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTOFREE char *e = rr_xstrndup(elem, len);

	if (!len)
		return rr_xstrdup("."); /* an empty element is the working directory */
	for (const char *p = e; *p;) {
		size_t n;
		if ((n = is_dst(p, "ORIGIN"))) {
			RR_AUTOFREE char *o = rr_xstrdup(origin);
			struct stat st;
			p += n;
			/* an image's directory that is not there yet (a wheel's member checked
			 * before it is installed): its ".." is the directory above it, as it
			 * will be once installed */
			while (p[0] == '/' && p[1] == '.' && p[2] == '.' &&
			       (!p[3] || p[3] == '/') && strrchr(o, '/') && strrchr(o, '/') != o &&
			       (stat(o, &st) != 0 || !S_ISDIR(st.st_mode))) {
				*strrchr(o, '/') = '\0';
				p += 3;
			}
			rr_strbuf_adds(&sb, o);
		} else if (is_dst(p, "LIB") || is_dst(p, "PLATFORM")) {
			return NULL;
		} else {
			rr_strbuf_addch(&sb, *p++);
		}
	}
	return rr_strbuf_detach(&sb, NULL);
}

enum found { NONE, FOUND, FATAL };

struct search {
	const char *name;
	struct file *f;  /* FOUND */
	char *path;      /* FOUND: as opened; FATAL: the file */
	const char *why; /* FATAL */
	char *other;     /* a file of another class or machine passed over */
};

static enum found try_path(struct rr_elf_loader *l, struct search *s, const char *path)
{
	struct file *f = file_at(l, path);

	if (!f)
		return NONE;
	file_read(f, path);
	if (f->fit == RR_ELF_OTHER) {
		if (!s->other)
			s->other = rr_xasprintf("%s (%s)", path, f->why);
		return NONE;
	}
	free(s->path);
	s->path = rr_xstrdup(path);
	if (f->fit == RR_ELF_BAD) {
		s->why = f->why;
		return FATAL;
	}
	s->f = f;
	return FOUND;
}

static enum found try_dir(struct rr_elf_loader *l, struct search *s, const char *dir)
{
	RR_AUTOFREE char *path = NULL;
	size_t dl = strlen(dir);

	path = rr_xasprintf("%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", s->name);
	return try_path(l, s, path);
}

static enum found try_list(struct rr_elf_loader *l, struct search *s, const char *list,
			   const char *origin)
{
	for (const char *p = list; p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		RR_AUTOFREE char *dir = expand(p, len, origin);
		enum found r = dir ? try_dir(l, s, dir) : NONE;
		if (r != NONE)
			return r;
		p = colon ? colon + 1 : NULL;
	}
	return NONE;
}

/* DF_1_NODEFLIB: a cache entry anywhere under a system directory is not taken (ld.so) */
static bool under_system_dir(struct rr_elf_loader *l, const char *path)
{
	for (size_t i = 0; i < l->sysdirs.n; i++) {
		size_t n = strlen(l->sysdirs.v[i]);
		while (n && l->sysdirs.v[i][n - 1] == '/')
			n--;
		if (!strncmp(path, l->sysdirs.v[i], n) && path[n] == '/')
			return true;
	}
	return false;
}

static enum found search(struct rr_elf_loader *l, long needer, struct search *s)
{
	const struct lm *x = &l->lms[needer];
	const struct rr_elf_obj *xo = x->f->obj;
	bool nodeflib = xo && (xo->flags_1 & DF_1_NODEFLIB);
	enum found r = NONE;

	if (!xo || !xo->runpath) {
		bool did_main = false;
		for (long i = needer; i >= 0 && r == NONE; i = l->lms[i].loader) {
			const struct rr_elf_obj *o = l->lms[i].f->obj;
			if (o && o->rpath)
				r = try_list(l, s, o->rpath, l->lms[i].origin);
			did_main |= i == l->main;
		}
		if (r == NONE && !did_main && l->main >= 0 && l->lms[l->main].f->obj &&
		    l->lms[l->main].f->obj->rpath)
			r = try_list(l, s, l->lms[l->main].f->obj->rpath, l->lms[l->main].origin);
	}
	for (size_t i = 0; r == NONE && i < l->ldpath.n; i++)
		r = try_dir(l, s, l->ldpath.v[i]);
	if (r == NONE && xo && xo->runpath)
		r = try_list(l, s, xo->runpath, x->origin);
	if (r == NONE) {
		const char *cached;
		if (l->cache_path) {
			l->cache = rr_elf_ldcache_load(l->cache_path);
			l->cache_path = rr_free(l->cache_path);
		}
		cached = rr_elf_ldcache_lookup(l->cache, s->name);
		if (cached && !(nodeflib && under_system_dir(l, cached)))
			r = try_path(l, s, cached);
	}
	for (size_t i = 0; r == NONE && !nodeflib && i < l->sysdirs.n; i++)
		r = try_dir(l, s, l->sysdirs.v[i]);
	return r;
}

/* ---- loading ---- */

/* the DT_NEEDED name of needer: its entry in the link map (loaded now if need be), or -1 */
static long resolve(struct rr_elf_loader *l, long needer, long root, const char *name,
		    struct rr_elf_issues *out)
{
	struct search s = {.name = name};
	const char *via = needer != root ? l->lms[needer].path : NULL;
	enum found r;
	long at;

	if (!strchr(name, '/') && (at = loaded_by_name(l, name)) >= 0)
		return at;
	if (strchr(name, '/')) {
		RR_AUTOFREE char *path = expand(name, strlen(name), l->lms[needer].origin);
		r = path ? try_path(l, &s, path) : NONE;
	} else {
		r = search(l, needer, &s);
	}
	if (r == FATAL) {
		struct rr_elf_issue *is = issue_add(out, RR_LOADCHECK_BAD_FILE, s.path, via);
		if (is)
			is->why = rr_xstrdup(s.why);
	} else if (r == NONE) {
		struct rr_elf_issue *is = issue_add(out, RR_LOADCHECK_NOT_FOUND, name, via);
		if (is && s.other)
			is->why = rr_xasprintf("only %s", s.other);
	}
	at = -1;
	if (r == FOUND) {
		if (s.f->lm >= 0) {
			/* the same file under another name: one object, one more name */
			at = s.f->lm;
			if (rr_strv_find(&l->lms[at].names, name) < 0)
				rr_strv_push(&l->lms[at].names, name);
		} else {
			at = lm_add(l, s.f, s.path, name, needer);
		}
	}
	free(s.path);
	free(s.other);
	return at;
}

/* breadth first from `from`, as _dl_map_object_deps: every new object's DT_NEEDED */
static void load_deps(struct rr_elf_loader *l, size_t from, long root, struct rr_elf_issues *out)
{
	for (size_t i = from; i < l->nlms; i++) {
		const struct rr_elf_obj *o = l->lms[i].f->obj;
		size_t n = o ? o->nneeded : 0;
		long *deps = n ? rr_xmalloc(n * sizeof(*deps)) : NULL;
		for (size_t k = 0; k < n; k++)
			deps[k] = resolve(l, (long)i, root, o->needed[k], out);
		l->lms[i].deps = deps;
		l->lms[i].ndeps = n;
	}
}

/* the dependency closure of root, breadth first (its local scope) */
static void closure(struct rr_elf_loader *l, long root, long **ret, size_t *nret)
{
	bool *seen = rr_xcalloc(l->nlms, sizeof(*seen));
	long *q = rr_xmalloc(l->nlms * sizeof(*q));
	size_t n = 0;
	q[n++] = root;
	seen[root] = true;
	for (size_t i = 0; i < n; i++) {
		const struct lm *m = &l->lms[q[i]];
		for (size_t k = 0; k < m->ndeps; k++)
			if (m->deps[k] >= 0 && !seen[m->deps[k]]) {
				seen[m->deps[k]] = true;
				q[n++] = m->deps[k];
			}
	}
	free(seen);
	*ret = q;
	*nret = n;
}

/* ---- versions and symbols ---- */

static void check_versions(struct rr_elf_loader *l, long x, long root, struct rr_elf_issues *out)
{
	const struct rr_elf_obj *o = l->lms[x].f->obj;

	for (size_t i = 0; o && i < o->nverneeds; i++) {
		const struct rr_elf_verneed *vn = &o->verneeds[i];
		long at = loaded_by_name(l, vn->file);
		const struct rr_elf_obj *d;
		bool found = false;

		if (at < 0 || !(d = l->lms[at].f->obj) || !d->nverdefs || vn->weak)
			continue; /* not loaded (reported), or no versions: a warning for ld.so */
		for (size_t k = 0; k < d->nverdefs && !found; k++)
			found = d->verdefs[k] && !strcmp(d->verdefs[k], vn->name);
		if (!found) {
			struct rr_elf_issue *is = issue_add(out, RR_LOADCHECK_VERSION, vn->file,
							    x == root ? NULL : l->lms[x].path);
			if (is) {
				is->version = rr_xstrdup(vn->name);
				is->why = rr_xstrdup(l->lms[at].path);
			}
		}
	}
}

/* ld.so's check_match, for the version part: does this definition answer u? */
static bool version_ok(const struct rr_elf_obj *d, const struct rr_elf_def *def,
		       const struct rr_elf_undef *u, size_t *nversioned)
{
	const char *dn;

	if (!d->has_versym)
		return true;
	if (u->version) {
		dn = def->ver < d->nverdefs ? d->verdefs[def->ver] : NULL;
		if (dn && !strcmp(dn, u->version))
			return true;
		return !u->hidden && !dn && !def->hidden;
	}
	if (def->ver >= 3) {
		/* a non-default version: taken only when it is the object's one candidate */
		if (!def->hidden)
			(*nversioned)++;
		return false;
	}
	return true;
}

static bool defines(const struct rr_elf_obj *d, const struct rr_elf_undef *u)
{
	size_t cursor = SIZE_MAX, nversioned = 0;
	long at;

	while ((at = rr_elf_obj_find(d, u->name, &cursor)) >= 0)
		if (version_ok(d, &d->defs[at], u, &nversioned))
			return true;
	return nversioned == 1;
}

static bool python_api(const char *name)
{
	return (name[0] == 'P' && name[1] == 'y' &&
		((name[2] >= 'A' && name[2] <= 'Z') || name[2] == '_')) ||
	       !strncmp(name, "_Py", 3);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_symbols(struct rr_elf_loader *l, long x, long root, size_t max,
			  struct rr_elf_issues *out)
{
	struct rr_elf_obj *o = l->lms[x].f->obj;
	struct rr_strv missing = {0};

	for (size_t i = 0; o && i < o->nundefs; i++) {
		struct rr_elf_undef *u = &o->undefs[i];
		const struct file *hit = u->cached;
		if (u->weak)
			continue;
		if (hit && hit->epoch == l->epoch)
			continue;
		hit = NULL;
		for (size_t k = 0; k < l->nscope && !hit; k++)
			if (l->scope[k]->obj && defines(l->scope[k]->obj, u))
				hit = l->scope[k];
		if (hit) {
			u->cached = hit;
			continue;
		}
		if (l->main < 0 && python_api(u->name)) {
			l->python_api_assumed = true;
			continue;
		}
		rr_strv_push(&missing, u->name);
	}
	if (missing.n) {
		struct rr_elf_issue *is = issue_add(out, RR_LOADCHECK_SYMBOLS, NULL,
						    x == root ? NULL : l->lms[x].path);
		if (is) {
			/* the same few whatever the table's order */
			qsort(missing.v, missing.n, sizeof(*missing.v), cmp_str);
			is->nmissing = missing.n;
			is->nsymbols = missing.n < max ? missing.n : max;
			is->symbols = rr_xcalloc(is->nsymbols, sizeof(*is->symbols));
			for (size_t k = 0; k < is->nsymbols; k++) {
				char *dm = rr_elf_demangle(missing.v[k]);
				is->symbols[k] = dm ? dm : rr_xstrdup(missing.v[k]);
			}
		}
	}
	rr_strv_release(&missing);
}

/* the lookup scope of objects loaded by root: the global scope, then root's closure */
static void set_scope(struct rr_elf_loader *l, const long *cl, size_t ncl)
{
	l->epoch++;
	l->nscope = 0;
	for (size_t i = 0; i < l->nlms; i++)
		if (l->lms[i].global && l->lms[i].f->epoch != l->epoch) {
			l->lms[i].f->epoch = l->epoch;
			RR_PUSH(l->scope, l->nscope, l->cap_scope) = l->lms[i].f;
		}
	for (size_t i = 0; i < ncl; i++)
		if (l->lms[cl[i]].f->epoch != l->epoch) {
			l->lms[cl[i]].f->epoch = l->epoch;
			RR_PUSH(l->scope, l->nscope, l->cap_scope) = l->lms[cl[i]].f;
		}
}

static void classify(struct rr_elf_loader *l, long x, long root,
		     const struct rr_loadcheck_opts *env, struct rr_elf_issues *out)
{
	const struct rr_elf_obj *o = l->lms[x].f->obj;
	const char *via = x == root ? NULL : l->lms[x].path;

	if (!env->classify || env->rocm_major <= 0)
		return;
	for (size_t i = 0; o && i < o->nneeded; i++) {
		const char *why = NULL, *so;
		enum rr_loadcheck_lib k = env->classify(env->classify_ctx, o->needed[i], &why);
		if (k == RR_LOADCHECK_LIB_CUDA) {
			struct rr_elf_issue *is = issue_add(out, RR_LOADCHECK_CUDA, o->needed[i],
							    via);
			if (is && why)
				is->why = rr_xstrdup(why);
		} else if (k == RR_LOADCHECK_LIB_HIP && (so = strstr(o->needed[i], ".so.")) &&
			   atoi(so + 4) != env->rocm_major) {
			issue_add(out, RR_LOADCHECK_ROCM_MAJOR, o->needed[i], via);
		}
	}
}

/* ---- the process ---- */

static void owners_of(struct rr_elf_loader *l, const long *cl, size_t ncl,
		      struct rr_elf_issues *out)
{
	for (size_t i = 0; out && i < ncl; i++) {
		long owner = l->lms[cl[i]].f->owner;
		bool have = owner < 0;
		for (size_t k = 0; k < out->nowners && !have; k++)
			have = out->owners[k] == (size_t)owner;
		if (!have)
			RR_PUSH(out->owners, out->nowners, out->cap_owners) = (size_t)owner;
	}
}

/*
 * dlopen(path): load what is new, check it, and (unless keep) take it out again.
 * Returns false when the path is not a loadable shared object to check (*skip says why).
 */
static bool open_root(struct rr_elf_loader *l, const char *path, bool global, bool keep,
		      const struct rr_loadcheck_opts *env, struct rr_elf_issues *out)
{
	struct file *f = file_at(l, path);
	size_t first = l->nlms, before = out ? out->n : 0;
	long root, *cl = NULL;
	size_t ncl = 0;
	bool stopped = false;

	if (!f)
		return false;
	file_read(f, path);
	if (f->fit == RR_ELF_BAD) {
		struct rr_elf_issue *is = issue_add(out, RR_LOADCHECK_BAD_FILE, path, NULL);
		if (is)
			is->why = rr_xstrdup(f->why);
		return true;
	}
	if (f->fit == RR_ELF_OTHER)
		return false;
	if (f->lm >= 0) {
		/* loaded already (by the interpreter or a preload): nothing new happens */
		cl = NULL;
		closure(l, f->lm, &cl, &ncl);
		owners_of(l, cl, ncl, out);
		free(cl);
		return true;
	}
	root = lm_add(l, f, path, path, -1);
	load_deps(l, first, root, out);
	closure(l, root, &cl, &ncl);
	set_scope(l, cl, ncl);
	for (size_t i = first; i < l->nlms; i++)
		check_versions(l, (long)i, root, out);
	/* a library or version missing: the symbols it would have defined are no news (ld.so
	 * stops at the first error too) */
	for (size_t i = before; out && i < out->n && !stopped && !env->symbols_past_missing; i++)
		stopped = out->items[i].kind != RR_LOADCHECK_CUDA &&
			  out->items[i].kind != RR_LOADCHECK_ROCM_MAJOR;
	for (size_t i = first; i < l->nlms; i++) {
		if (!stopped)
			check_symbols(l, (long)i, root, env->max_symbols ? env->max_symbols : 3,
				      out);
		classify(l, (long)i, root, env, out);
	}
	owners_of(l, cl, ncl, out);
	if (keep && global)
		for (size_t i = 0; i < ncl; i++)
			l->lms[cl[i]].global = true;
	free(cl);
	if (keep)
		return true;
	for (size_t i = l->nlms; i > first; i--)
		lm_release(&l->lms[i - 1]);
	l->nlms = first;
	return true;
}

static void load_main(struct rr_elf_loader *l, const char *interpreter)
{
	char real[PATH_MAX];
	struct file *f;

	/* ld.so takes the executable's origin from /proc/self/exe: symlinks resolved */
	if (!realpath(interpreter, real) || !(f = file_at(l, real)))
		return;
	file_read(f, real);
	if (f->fit != RR_ELF_OK)
		return;
	l->main = lm_add(l, f, real, NULL, -1);
	l->lms[l->main].global = true;
	load_deps(l, (size_t)l->main, l->main, NULL);
	for (size_t i = (size_t)l->main; i < l->nlms; i++)
		l->lms[i].global = true;
}

static void default_system_dirs(struct rr_strv *out)
{
	struct utsname u;
	struct stat st;
	char *multi;

	/* glibc's compiled-in search path: Debian's multiarch triplet, else lib64 */
	if (uname(&u) == 0) {
		const char *m = u.machine;
		if (!strcmp(m, "i686") || !strcmp(m, "i586") || !strcmp(m, "i486"))
			m = "i386";
		multi = rr_xasprintf("/lib/%s-linux-gnu", m);
		if (stat(multi, &st) == 0 && S_ISDIR(st.st_mode)) {
			rr_strv_push(out, multi);
			rr_strv_take(out, rr_xasprintf("/usr/lib/%s-linux-gnu", m));
			rr_strv_push(out, "/lib");
			rr_strv_push(out, "/usr/lib");
			free(multi);
			return;
		}
		free(multi);
	}
	if (sizeof(void *) == 8) {
		rr_strv_push(out, "/lib64");
		rr_strv_push(out, "/usr/lib64");
	} else {
		rr_strv_push(out, "/lib");
		rr_strv_push(out, "/usr/lib");
	}
}

struct rr_elf_loader *rr_elf_loader_new(const struct rr_loadcheck_opts *env)
{
	struct rr_elf_loader *l = rr_xcalloc(1, sizeof(*l));

	l->main = -1;
	if (!env->ld_so_cache || *env->ld_so_cache)
		l->cache_path = rr_xstrdup(env->ld_so_cache ? env->ld_so_cache
							    : "/etc/ld.so.cache");
	if (env->system_dirs)
		for (size_t i = 0; i < env->nsystem_dirs; i++)
			rr_strv_push(&l->sysdirs, env->system_dirs[i]);
	else
		default_system_dirs(&l->sysdirs);
	/* LD_LIBRARY_PATH: ':' or ';' between entries, an empty one the working directory */
	for (const char *p = env->ld_library_path; p && *p;) {
		size_t len = strcspn(p, ":;");
		rr_strv_take(&l->ldpath, len ? rr_xstrndup(p, len) : rr_xstrdup("."));
		p += len;
		if (*p)
			p++;
	}
	return l;
}

void rr_elf_loader_base(struct rr_elf_loader *l, const struct rr_loadcheck_opts *env)
{
	if (env->interpreter)
		load_main(l, env->interpreter);
	l->base_issues = rr_xcalloc(env->npreload + 1, sizeof(*l->base_issues));
	l->base_roots = rr_xcalloc(env->npreload + 1, sizeof(*l->base_roots));
	for (size_t i = 0; i < env->npreload; i++) {
		struct rr_elf_issues *is = &l->base_issues[l->nbase_roots];
		struct file *f = file_at(l, env->preload[i].path);
		bool fresh = f && f->lm < 0;

		if (open_root(l, env->preload[i].path, env->preload[i].global, true, env, is) &&
		    fresh)
			l->base_roots[l->nbase_roots++] = f;
		else
			rr_elf_issues_release(is);
	}
	/* from here on, the base's names are looked up by map; a check's own by scan */
	l->nbase = l->nlms;
	for (size_t i = 0; i < l->nlms; i++) {
		const struct lm *m = &l->lms[i];
		for (size_t k = 0; k <= m->names.n; k++) {
			const char *name = k < m->names.n ? m->names.v[k]
					   : m->f->obj    ? m->f->obj->soname
							  : NULL;
			void **slot = name ? rr_strmap_find(&l->base_names, name, true) : NULL;
			if (slot && !*slot)
				*slot = (void *)(i + 1);
		}
	}
}

static void issue_copy(struct rr_elf_issues *out, const struct rr_elf_issue *from)
{
	struct rr_elf_issue *is = issue_add(out, from->kind, from->library, from->via);

	is->version = from->version ? rr_xstrdup(from->version) : NULL;
	is->why = from->why ? rr_xstrdup(from->why) : NULL;
	is->nmissing = from->nmissing;
	is->nsymbols = from->nsymbols;
	is->symbols = rr_xcalloc(is->nsymbols + 1, sizeof(*is->symbols));
	for (size_t s = 0; s < is->nsymbols; s++)
		is->symbols[s] = rr_xstrdup(from->symbols[s]);
}

void rr_elf_loader_check(struct rr_elf_loader *l, const char *path,
			 const struct rr_loadcheck_opts *env, struct rr_elf_issues *out)
{
	struct file *f = file_at(l, path);

	/* a preload: what its load showed is its own */
	for (size_t i = 0; f && i < l->nbase_roots; i++)
		if (l->base_roots[i] == f) {
			const struct rr_elf_issues *b = &l->base_issues[i];
			for (size_t k = 0; k < b->n; k++)
				issue_copy(out, &b->items[k]);
			for (size_t k = 0; k < b->nowners; k++)
				RR_PUSH(out->owners, out->nowners, out->cap_owners) = b->owners[k];
			return;
		}
	open_root(l, path, false, false, env, out);
}

/* the kind of file: an ELF shared object of this machine to check, or why not */
enum rr_elf_root rr_elf_loader_classify(struct rr_elf_loader *l, const char *path)
{
	struct file *f = file_at(l, path);

	if (!f)
		return RR_ELF_ROOT_MISSING;
	file_read(f, path);
	if (f->fit == RR_ELF_OTHER)
		return RR_ELF_ROOT_FOREIGN;
	if (f->fit == RR_ELF_BAD)
		return f->why && (!strcmp(f->why, "invalid ELF header") ||
				  !strcmp(f->why, "file too short"))
			   ? RR_ELF_ROOT_NOT_ELF
			   : RR_ELF_ROOT_SHARED;
	if (f->obj->type == ET_EXEC || (f->obj->flags_1 & DF_1_PIE))
		return RR_ELF_ROOT_EXECUTABLE;
	return RR_ELF_ROOT_SHARED;
}

void rr_elf_loader_own(struct rr_elf_loader *l, const char *path, long owner)
{
	struct file *f = file_at(l, path);

	if (f && f->owner < 0)
		f->owner = owner;
}

void rr_elf_loader_image(struct rr_elf_loader *l, const struct rr_loadcheck_image *img)
{
	struct file *f = rr_xcalloc(1, sizeof(*f));
	char id[64];
	const char *why = NULL;

	f->read = true;
	f->owner = f->lm = -1;
	f->fit = rr_elf_check_header(img->data, img->len, &why);
	if (f->fit != RR_ELF_OK) {
		f->why = rr_xstrdup(why);
	} else if (!(f->obj = rr_elf_obj_read_mem(img->data, img->len, &f->why))) {
		f->fit = RR_ELF_BAD;
	}
	/* its own identity: never the file that may be installed there now */
	snprintf(id, sizeof(id), "image:%p", (void *)f);
	*rr_strmap_find(&l->by_id, id, true) = f;
	*rr_strmap_find(&l->by_path, img->path, true) = f;
}

bool rr_elf_loader_python_api_assumed(const struct rr_elf_loader *l)
{
	return l->python_api_assumed;
}

struct rr_elf_loader *rr_elf_loader_free(struct rr_elf_loader *l)
{
	if (!l)
		return NULL;
	for (size_t i = 0; i < l->nlms; i++)
		lm_release(&l->lms[i]);
	free(l->lms);
	for (size_t i = 0; i < l->nbase_roots; i++)
		rr_elf_issues_release(&l->base_issues[i]);
	free(l->base_issues);
	free(l->base_roots);
	rr_strmap_release(&l->by_path, NULL);
	rr_strmap_release(&l->by_id, file_free);
	rr_strmap_release(&l->base_names, NULL);
	rr_elf_ldcache_free(l->cache);
	free(l->cache_path);
	rr_strv_release(&l->ldpath);
	rr_strv_release(&l->sysdirs);
	free(l->scope);
	free(l);
	return NULL;
}
