/*
 * check.c - the load check per distribution (rocm-resolve/loadcheck.h): the files its RECORD
 * lists that are named like shared libraries, each dlopen()ed on paper (loader.c), and the
 * issues of all its files folded into problems, each with one line of text.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf-private.h"
#include "elf/loader.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/loadcheck.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/util.h"

#define MAX_RECORD (64u << 20)

const char *rr_loadcheck_kind_name(enum rr_loadcheck_kind k)
{
	switch (k) {
	case RR_LOADCHECK_NOT_FOUND:
		return "not-found";
	case RR_LOADCHECK_BAD_FILE:
		return "bad-file";
	case RR_LOADCHECK_VERSION:
		return "version";
	case RR_LOADCHECK_SYMBOLS:
		return "symbols";
	case RR_LOADCHECK_CUDA:
		return "cuda";
	case RR_LOADCHECK_ROCM_MAJOR:
		return "rocm-major";
	}
	return "?";
}

bool rr_loadcheck_kind_stops_load(enum rr_loadcheck_kind k)
{
	return k == RR_LOADCHECK_NOT_FOUND || k == RR_LOADCHECK_BAD_FILE ||
	       k == RR_LOADCHECK_VERSION || k == RR_LOADCHECK_SYMBOLS;
}

size_t rr_loadcheck_failed(const struct rr_loadcheck_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ndists; i++)
		n += !r->dists[i].ok;
	return n;
}

bool rr_loadcheck_library_name(const unsigned char *name, size_t n)
{
	const unsigned char *slash = n ? memrchr(name, '/', n) : NULL;
	size_t base = slash ? (size_t)(slash - name) + 1 : 0;

	for (size_t i = base + 1; i + 3 <= n; i++) {
		size_t t = i + 3;
		if (memcmp(name + i, ".so", 3) != 0)
			continue;
		if (t == n)
			return true;
		if (name[t] != '.' || t + 1 == n)
			continue;
		while (t < n && (name[t] == '.' || (name[t] >= '0' && name[t] <= '9')))
			t++;
		if (t == n)
			return true;
	}
	return false;
}

struct files {
	char **abs, **rel;
	size_t n, cap;
};

static void read_record(const struct rr_loadcheck_dist_in *d, struct files *out)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTOFREE char *rec = NULL;

	if (!d->dist_info_dir || !d->site)
		return;
	rec = rr_xasprintf("%s/RECORD", d->dist_info_dir);
	if (rr_file_read(AT_FDCWD, rec, MAX_RECORD, 0, "RECORD", &sb, NULL))
		return;
	for (const char *p = sb.buf; *p;) {
		RR_AUTOFREE char *path = rr_record_field(&p);
		while (*p && *p != '\n')
			p++;
		if (*p == '\n')
			p++;
		if (!path[0] ||
		    !rr_loadcheck_library_name((const unsigned char *)path, strlen(path)))
			continue;
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 16;
			out->abs = rr_xrealloc(out->abs, out->cap * sizeof(*out->abs));
			out->rel = rr_xrealloc(out->rel, out->cap * sizeof(*out->rel));
		}
		out->abs[out->n] = rr_path_normalize(d->site, path);
		out->rel[out->n++] = RR_STEAL(path);
	}
}

static void files_release(struct files *f)
{
	rr_strv_free_array(f->abs, f->n);
	rr_strv_free_array(f->rel, f->n);
}

/* ---- problems ---- */

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_issue(const struct rr_loadcheck_problem *p, const struct rr_elf_issue *is)
{
	return p->kind == is->kind && same(p->library, is->library) && same(p->via, is->via) &&
	       same(p->version, is->version) &&
	       same(p->nsymbols ? p->symbols[0] : NULL, is->nsymbols ? is->symbols[0] : NULL);
}

/* a path under one of the sites, relative to it (as RECORD names files) */
static char *shown_path(const struct rr_loadcheck_opts *o, const char *path)
{
	for (size_t i = 0; path && i < o->ndists; i++) {
		const char *site = o->dists[i].site;
		size_t n = site ? strlen(site) : 0;
		if (n && !strncmp(path, site, n) && path[n] == '/')
			return rr_xstrdup(path + n + 1);
	}
	return path ? rr_xstrdup(path) : NULL;
}

static void add_issue(const struct rr_loadcheck_opts *o, struct rr_loadcheck_dist *d,
		      const char *file, struct rr_elf_issue *is, size_t *cap)
{
	struct rr_loadcheck_problem *p;
	RR_AUTOFREE char *via = shown_path(o, is->via);
	char *keep = is->via;

	is->via = via;
	for (size_t i = 0; i < d->nproblems; i++)
		if (same_issue(&d->problems[i], is)) {
			is->via = keep;
			if (strcmp(d->problems[i].file, file))
				d->problems[i].nfiles++;
			return;
		}
	is->via = keep;
	p = &RR_PUSH(d->problems, d->nproblems, *cap);
	memset(p, 0, sizeof(*p));
	p->kind = is->kind;
	p->file = rr_xstrdup(file);
	p->nfiles = 1;
	p->library = RR_STEAL(is->library);
	p->via = RR_STEAL(via);
	p->version = RR_STEAL(is->version);
	p->why = RR_STEAL(is->why);
	p->symbols = RR_STEAL(is->symbols);
	p->nsymbols = is->nsymbols;
	p->nmissing = is->nmissing;
	is->nsymbols = 0;
}

static void add_links(struct rr_loadcheck_dist *d, const struct rr_elf_issues *is, size_t *cap)
{
	for (size_t i = 0; i < is->nowners; i++) {
		bool have = is->owners[i] == d->index;
		for (size_t k = 0; k < d->nlinks && !have; k++)
			have = d->links[k] == is->owners[i];
		if (!have)
			RR_PUSH(d->links, d->nlinks, *cap) = is->owners[i];
	}
}

static void problem_text(const struct rr_loadcheck_opts *o, const struct rr_loadcheck_dist *d,
			 struct rr_loadcheck_problem *p)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_strbuf_addf(&sb, "%s: ", p->file);
	switch (p->kind) {
	case RR_LOADCHECK_NOT_FOUND:
		rr_strbuf_addf(&sb, "%s not found", p->library);
		if (p->why)
			rr_strbuf_addf(&sb, " (%s)", p->why);
		break;
	case RR_LOADCHECK_BAD_FILE:
		if (p->via || strcmp(p->library, p->file))
			rr_strbuf_addf(&sb, "%s: ", p->library);
		rr_strbuf_addf(&sb, "%s", p->why ? p->why : "cannot be loaded");
		break;
	case RR_LOADCHECK_VERSION:
		rr_strbuf_addf(&sb, "version %s of %s not found (%s defines no such version)",
			       p->version, p->library, p->why ? p->why : p->library);
		break;
	case RR_LOADCHECK_SYMBOLS:
		rr_strbuf_addf(&sb, "%zu undefined symbol%s: ", p->nmissing,
			       p->nmissing == 1 ? "" : "s");
		for (size_t i = 0; i < p->nsymbols; i++)
			rr_strbuf_addf(&sb, "%s%s", i ? ", " : "", p->symbols[i]);
		if (p->nmissing > p->nsymbols)
			rr_strbuf_adds(&sb, ", ...");
		/* whose libraries failed to define them: the ones it loads */
		for (size_t i = 0, n = 0; i < d->nlinks; i++) {
			const struct rr_loadcheck_dist_in *in = &o->dists[d->links[i]];
			rr_strbuf_addf(&sb, "%s%s %s",
				       n++ ? ", " : " (not in the libraries it loads from ",
				       in->name, in->version ? in->version : "");
			if (i + 1 == d->nlinks)
				rr_strbuf_addch(&sb, ')');
		}
		break;
	case RR_LOADCHECK_CUDA:
		rr_strbuf_addf(&sb, "links the CUDA library %s", p->library);
		if (p->why)
			rr_strbuf_addf(&sb, " (%s)", p->why);
		rr_strbuf_adds(&sb, ": CUDA code does not run on a ROCm GPU");
		break;
	case RR_LOADCHECK_ROCM_MAJOR: {
		const char *so = strstr(p->library, ".so.");
		rr_strbuf_addf(
		    &sb, "links %s, the HIP runtime of ROCm %d; this environment's is %s",
		    p->library, so ? atoi(so + 4) : 0, o->runtime ? o->runtime : "another");
		break;
	}
	}
	if (p->via)
		rr_strbuf_addf(&sb, " (through %s)", p->via);
	if (p->nfiles > 1)
		rr_strbuf_addf(&sb, "; %zu other file%s the same", p->nfiles - 1,
			       p->nfiles == 2 ? " shows" : "s show");
	p->text = rr_strbuf_detach(&sb, NULL);
}

/* the environment's problems first (the cause: a CUDA or ROCm 6 build), then the loader's */
static int rank(enum rr_loadcheck_kind k)
{
	return rr_loadcheck_kind_stops_load(k) ? 2 + (int)k : k == RR_LOADCHECK_CUDA ? 0 : 1;
}

static int cmp_problem(const void *a, const void *b)
{
	const struct rr_loadcheck_problem *x = a, *y = b;

	if (x->kind != y->kind)
		return rank(x->kind) < rank(y->kind) ? -1 : 1;
	return strcmp(x->file, y->file);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* check each file of one distribution (or one loose file) */
static void check_dist(struct rr_elf_loader *l, const struct rr_loadcheck_opts *o,
		       struct rr_loadcheck_report *r, struct rr_loadcheck_dist *d, char *const *abs,
		       char *const *rel, size_t n)
{
	size_t pcap = 0, lcap = 0;

	for (size_t i = 0; i < n; i++) {
		struct rr_elf_issues is = {0};
		switch (rr_elf_loader_classify(l, abs[i])) {
		case RR_ELF_ROOT_SHARED:
			break;
		case RR_ELF_ROOT_NOT_ELF:
		case RR_ELF_ROOT_FOREIGN:
			r->nskipped++;
			continue;
		case RR_ELF_ROOT_EXECUTABLE: /* a program: run, never dlopen()ed */
		case RR_ELF_ROOT_MISSING:    /* integrity's finding, not the loader's */
			continue;
		}
		d->nfiles++;
		rr_elf_loader_check(l, abs[i], o, &is);
		for (size_t k = 0; k < is.n; k++)
			add_issue(o, d, rel[i], &is.items[k], &pcap);
		add_links(d, &is, &lcap);
		rr_elf_issues_release(&is);
	}
	d->loads = d->ok = true;
	for (size_t i = 0; i < d->nproblems; i++) {
		d->ok = false;
		d->loads &= !rr_loadcheck_kind_stops_load(d->problems[i].kind);
	}
	if (d->nlinks)
		rr_qsort(d->links, d->nlinks, sizeof(*d->links), cmp_size);
	if (d->nproblems)
		rr_qsort(d->problems, d->nproblems, sizeof(*d->problems), cmp_problem);
	for (size_t i = 0; i < d->nproblems; i++)
		problem_text(o, d, &d->problems[i]);
	r->nfiles += d->nfiles;
}

/* a loose file or an image: reported under its path when it is a shared object checked */
static void check_loose(struct rr_elf_loader *l, const struct rr_loadcheck_opts *o,
			struct rr_loadcheck_report *r, size_t index, const char *path, size_t *cap)
{
	struct rr_loadcheck_dist d = {.index = index};
	char *one = (char *)path;

	r->nchecked++;
	check_dist(l, o, r, &d, &one, &one, 1);
	if (!d.nfiles) { /* not ELF, or a program: as a distribution's file, not reported */
		free(d.links);
		return;
	}
	d.name = rr_xstrdup(path);
	RR_PUSH(r->dists, r->ndists, *cap) = d;
}

rr_err rr_loadcheck_run(const struct rr_loadcheck_opts *o, struct rr_loadcheck_report **ret,
			rr_error *err)
{
	struct rr_loadcheck_report *r;
	struct rr_elf_loader *l;
	struct files *lists;
	size_t cap = 0;

	if ((o->ndists && !o->dists) || (o->nfiles && !o->files) || (o->nimages && !o->images) ||
	    (o->npreload && !o->preload) || (o->nsystem_dirs && !o->system_dirs))
		return rr_fail(err, RR_E_USAGE, "load check: a list is NULL but its count is not");
	if (rr_elf_lib_load(err))
		return RR_E_ENV;
	l = rr_elf_loader_new(o);
	lists = rr_xcalloc(o->ndists + 1, sizeof(*lists));
	/* every distribution's libraries, so that a load can say whose files it reached */
	for (size_t i = 0; i < o->ndists; i++) {
		read_record(&o->dists[i], &lists[i]);
		for (size_t k = 0; k < lists[i].n; k++)
			rr_elf_loader_own(l, lists[i].abs[k], (long)i);
	}
	rr_elf_loader_base(l, o);
	r = rr_xcalloc(1, sizeof(*r));
	for (size_t i = 0; i < o->ndists; i++) {
		struct rr_loadcheck_dist d = {.index = i};
		if (o->dists[i].skip)
			continue;
		r->nchecked++;
		check_dist(l, o, r, &d, lists[i].abs, lists[i].rel, lists[i].n);
		if (!d.nfiles) {
			free(d.links);
			continue;
		}
		d.name = rr_xstrdup(o->dists[i].name ? o->dists[i].name : "?");
		d.version = o->dists[i].version ? rr_xstrdup(o->dists[i].version) : NULL;
		RR_PUSH(r->dists, r->ndists, cap) = d;
	}
	for (size_t i = 0; i < o->nfiles; i++)
		check_loose(l, o, r, o->ndists + i, o->files[i], &cap);
	for (size_t i = 0; i < o->nimages; i++) {
		rr_elf_loader_image(l, &o->images[i]);
		check_loose(l, o, r, o->ndists + o->nfiles + i, o->images[i].path, &cap);
	}
	r->python_api_assumed = rr_elf_loader_python_api_assumed(l);
	for (size_t i = 0; i < o->ndists; i++)
		files_release(&lists[i]);
	free(lists);
	rr_elf_loader_free(l);
	*ret = r;
	return RR_OK;
}

struct rr_loadcheck_report *rr_loadcheck_report_free(struct rr_loadcheck_report *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->ndists; i++) {
		struct rr_loadcheck_dist *d = &r->dists[i];
		for (size_t k = 0; k < d->nproblems; k++) {
			struct rr_loadcheck_problem *p = &d->problems[k];
			free(p->file);
			free(p->library);
			free(p->via);
			free(p->version);
			free(p->why);
			free(p->text);
			rr_strv_free_array(p->symbols, p->nsymbols);
		}
		free(d->problems);
		free(d->links);
		free(d->name);
		free(d->version);
	}
	free(r->dists);
	free(r);
	return NULL;
}
