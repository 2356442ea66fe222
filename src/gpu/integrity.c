/*
 * integrity: every file a protected distribution's RECORD lists must still hash to what the
 * RECORD says, and no other installed distribution may ship one of its top-level modules.
 * A file that differs is attributed to whichever other RECORD also lists it: that is the
 * distribution whose install overwrote it (the usual story: a CUDA `triton` on top of
 * `pytorch-triton-rocm`).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/modules.h"
#include "rocm-resolve/parallel.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/strbuf.h"

#define MAX_LISTED 20 /* per kind of problem; the rest is counted */

struct rec_entry {
	char *path; /* normalized, absolute (site + RECORD path) */
	char *hash; /* "sha256=..." or "" */
};

struct dist {
	char *name, *version, *dir, *site;
	struct rec_entry *ents; /* sorted by path */
	size_t nents;
	char **mods; /* top-level modules it ships (packages with __init__, single modules) */
	size_t nmods;
	bool has_record;
};



static int cmp_ent(const void *a, const void *b)
{
	return strcmp(((const struct rec_entry *)a)->path, ((const struct rec_entry *)b)->path);
}

static bool has_mod(const struct dist *d, const char *m)
{
	for (size_t i = 0; i < d->nmods; i++)
		if (!strcmp(d->mods[i], m))
			return true;
	return false;
}

static void dist_load(struct dist *d)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTOFREE char *rec = rr_xasprintf("%s/RECORD", d->dir);
	size_t cap = 0;
	const char **paths = NULL;
	size_t npaths = 0, pcap = 0;

	/* a regular file only: a FIFO or a device there must not stall verify */
	if (rr_file_read(AT_FDCWD, rec, (size_t)1 << 30, 0, "RECORD", &sb, NULL))
		return;
	d->has_record = true;
	for (const char *p = sb.buf; *p;) {
		RR_AUTOFREE char *path = rr_record_field(&p);
		RR_AUTOFREE char *hash = *p && *p != '\n' && *p != '\r' ? rr_record_field(&p) : rr_xstrdup("");

		while (*p && *p != '\n')
			p++; /* the size field and anything after it */
		if (*p == '\n')
			p++;
		if (!path[0])
			continue;
		struct rec_entry *e = &RR_PUSH(d->ents, d->nents, cap);
		e->path = rr_path_normalize(d->site, path);
		e->hash = RR_STEAL(hash);
		RR_PUSH(paths, npaths, pcap) = RR_STEAL(path);
	}
	/* the modules it provides: the one rule plan and install use (rocm-resolve/modules.h) */
	rr_modules_installed(d->site, paths, npaths, &d->mods, &d->nmods);
	for (size_t i = 0; i < npaths; i++)
		free((char *)paths[i]);
	free(paths);
	if (d->nents)
		rr_qsort(d->ents, d->nents, sizeof(*d->ents), cmp_ent);
}

static void dist_release(struct dist *d)
{
	for (size_t i = 0; i < d->nents; i++) {
		free(d->ents[i].path);
		free(d->ents[i].hash);
	}
	for (size_t i = 0; i < d->nmods; i++)
		free(d->mods[i]);
	free(d->ents);
	free(d->mods);
	free(d->name);
	free(d->version);
	free(d->dir);
	free(d->site);
}

static bool dist_lists(const struct dist *d, const char *path)
{
	struct rec_entry key = {.path = (char *)path};

	return d->nents && bsearch(&key, d->ents, d->nents, sizeof(*d->ents), cmp_ent);
}

/* "triton-3.5.1+rocm7.dist-info" -> name "triton", version "3.5.1+rocm7" */
static void dist_init(struct dist *d, const char *site, const char *entry)
{
	size_t stem = strlen(entry) - strlen(".dist-info");
	const char *dash = memchr(entry, '-', stem);

	memset(d, 0, sizeof(*d));
	d->site = rr_xstrdup(site);
	d->dir = rr_path_normalize(site, entry);
	d->name = rr_xstrndup(entry, dash ? (size_t)(dash - entry) : stem);
	d->version = dash ? rr_xstrndup(dash + 1, stem - (size_t)(dash - entry) - 1) : rr_xstrdup("");
}

static void scan_site(const char *site, struct dist **all, size_t *n, size_t *cap)
{
	DIR *dir = opendir(site);
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, ncap = 0;

	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (rr_str_endswith(de->d_name, ".dist-info") && de->d_name[0] != '.')
			RR_PUSH(names, nn, ncap) = rr_xstrdup(de->d_name);
	closedir(dir);
	/* sorted: reports must not depend on readdir order */
	for (size_t i = 1; i < nn; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < nn; i++) {
		struct dist *d = &RR_PUSH(*all, *n, *cap);
		dist_init(d, site, names[i]);
		dist_load(d);
		free(names[i]);
	}
	free(names);
}

/* is w one of the space-separated words of list? */
static bool word_in(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

enum { H_OK, H_MISSING, H_DIFFERS, H_SKIP, H_NOTREG };

/* hash a file: H_OK with b64 set, H_MISSING when it cannot be read, H_NOTREG when not a file */
static int hash_file(const char *path, char b64[44])
{
	int fd;

	/* a RECORD entry may name /dev/zero or a FIFO: never open those blocking, never read them */
	switch (rr_file_open_read(AT_FDCWD, path, 0, "", &fd, NULL, NULL)) {
	case RR_OK:
		break;
	case RR_E_NOTFOUND:
		return H_MISSING;
	default: {
		struct stat st;
		return stat(path, &st) == 0 && !S_ISREG(st.st_mode) ? H_NOTREG : H_MISSING;
	}
	}
	if (!rr_sha256_fd_b64url(fd, b64)) {
		close(fd);
		return H_MISSING;
	}
	close(fd);
	return H_OK;
}

/*
 * hash the entries in parallel: a ROCm torch is gigabytes of libraries, and one core hashing
 * them all would make verify slow; the report is still built in RECORD order afterwards
 */

struct hash_pool {
	const struct dist *d;
	unsigned char *result; /* H_* per entry */
};

static void hash_one(void *ctx, size_t i)
{
	struct hash_pool *pool = ctx;
	const struct rec_entry *ent = &pool->d->ents[i];
	char b64[44];

	if (!rr_str_startswith(ent->hash, "sha256="))
		pool->result[i] = H_SKIP;
	else if ((pool->result[i] = (unsigned char)hash_file(ent->path, b64)) == H_OK)
		pool->result[i] = strcmp(ent->hash + 7, b64) ? H_DIFFERS : H_OK;
}

static unsigned char *hash_all(const struct dist *d)
{
	struct hash_pool pool = {.d = d, .result = rr_xcalloc(d->nents + 1, 1)};

	rr_parallel_for(d->nents, 1, hash_one, &pool);
	return pool.result;
}

/* the protected dist as given: its dist-info may be absolute or relative to a site dir */
static bool locate(const struct rr_verify_opts *o, const struct rr_verify_dist *p,
		   struct dist *all, size_t nall, size_t *idx)
{
	for (size_t i = 0; i < nall; i++) {
		RR_AUTOFREE char *given = p->dist_info_dir[0] == '/'
						  ? rr_path_normalize("/", p->dist_info_dir)
						  : rr_path_normalize(all[i].site, p->dist_info_dir);
		if (!strcmp(given, all[i].dir)) {
			*idx = i;
			return true;
		}
	}
	(void)o;
	return false;
}

void rr_gpu_integrity(const struct rr_verify_opts *o, struct rr_verify_stage *st)
{
	struct dist *all = NULL;
	size_t nall = 0, cap = 0, checked = 0, ndiff = 0, nclash = 0, nbad = 0, unhashed = 0,
	       pyc = 0;
	RR_AUTO_STRBUF struct rr_strbuf fix = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf remove = RR_STRBUF_INIT;

	if (!o->nprotected) {
		rr_gpu_stage_set(st, RR_VERDICT_SKIP, "no protected distributions to check");
		return;
	}
	for (size_t i = 0; i < o->nsite_dirs; i++)
		scan_site(o->site_dirs[i], &all, &nall, &cap);
	/* a protected dist-info outside the site dirs is still checked against its own RECORD */
	for (size_t i = 0; i < o->nprotected; i++) {
		const struct rr_verify_dist *p = &o->protected_dists[i];
		size_t idx;
		if (p->dist_info_dir && p->dist_info_dir[0] == '/' && !locate(o, p, all, nall, &idx)) {
			RR_AUTOFREE char *norm = rr_path_normalize("/", p->dist_info_dir);
			char *slash = strrchr(norm, '/');
			*slash = '\0';
			struct dist *d = &RR_PUSH(all, nall, cap);
			dist_init(d, norm[0] ? norm : "/", slash + 1);
			dist_load(d);
		}
	}

	for (size_t i = 0; i < o->nprotected; i++) {
		struct rr_verify_dist pd = o->protected_dists[i];
		const struct rr_verify_dist *p = &pd;
		struct dist *d;
		size_t idx, mine = 0;

		if (!pd.version)
			pd.version = "";
		if (!pd.name)
			pd.name = "?";
		if (!p->dist_info_dir) {
			/* an egg-info or a system package: there is no RECORD to hold it to */
			rr_gpu_stage_detail(st, "%s %s: no .dist-info, not checked", p->name,
					    p->version ? p->version : "");
			continue;
		}
		if (!locate(o, p, all, nall, &idx) || !all[idx].has_record) {
			rr_gpu_stage_detail(st, "%s %s: no RECORD in %s", p->name, p->version,
					    p->dist_info_dir);
			nbad++;
			continue;
		}
		d = &all[idx];
		RR_AUTOFREE unsigned char *res = hash_all(d);
		for (size_t e = 0; e < d->nents; e++) {
			const struct rec_entry *ent = &d->ents[e];
			const char *why = NULL;

			if (!ent->hash[0]) {
				/* RECORD itself, .pyc files: listed without a hash */
				unhashed++;
				pyc += rr_str_endswith(ent->path, ".pyc");
				continue;
			}
			if (res[e] == H_SKIP) {
				rr_gpu_stage_detail(st, "%s: hash '%s' not checked (only sha256)",
						    ent->path, ent->hash);
				continue;
			}
			checked++;
			if (res[e] == H_MISSING)
				why = "is missing or unreadable";
			else if (res[e] == H_NOTREG)
				why = "is not a regular file (a FIFO, device or directory), not read";
			else if (res[e] == H_DIFFERS)
				why = "differs from its RECORD hash";
			if (!why)
				continue;
			mine++;
			if (++ndiff > MAX_LISTED)
				continue;
			RR_AUTO_STRBUF struct rr_strbuf who = RR_STRBUF_INIT;
			for (size_t k = 0; k < nall; k++)
				if (k != idx && dist_lists(&all[k], ent->path))
					rr_strbuf_addf(&who, "%s%s %s", who.len ? ", " : "",
						       all[k].name, all[k].version);
			const char *rel = rr_str_startswith(ent->path, d->site) &&
							  ent->path[strlen(d->site)] == '/'
						  ? ent->path + strlen(d->site) + 1
						  : ent->path;
			if (who.len)
				rr_gpu_stage_detail(st, "%s (of %s %s) %s; also listed by %s, whose "
						    "install overwrote it", rel, p->name, p->version,
						    why, who.buf);
			else
				rr_gpu_stage_detail(st, "%s (of %s %s) %s; no other RECORD lists it "
						    "(edited by hand or by a tool)", rel, p->name,
						    p->version, why);
		}
		/* clashes: another dist-info shipping one of our top-level modules */
		for (size_t k = 0; k < nall; k++) {
			if (k == idx)
				continue;
			for (size_t m = 0; m < d->nmods; m++) {
				if (!has_mod(&all[k], d->mods[m]))
					continue;
				nclash++;
				rr_gpu_stage_detail(st, "module '%s' of %s %s is also shipped by %s %s "
						    "(%s)", d->mods[m], p->name, p->version,
						    all[k].name, all[k].version, all[k].dir);
				if (!word_in(remove.buf, all[k].name))
					rr_strbuf_addf(&remove, "%s%s", remove.len ? " " : "",
						       all[k].name);
				mine++;
			}
		}
		if (mine && p->version[0])
			rr_strbuf_addf(&fix, "%s'%s==%s'", fix.len ? " " : "", p->name, p->version);
		else if (mine)
			rr_strbuf_addf(&fix, "%s'%s'", fix.len ? " " : "", p->name);
	}
	if (ndiff > MAX_LISTED)
		rr_gpu_stage_detail(st, "... and %zu more files that differ", ndiff - MAX_LISTED);

	if (ndiff || nclash || nbad) {
		RR_AUTO_STRBUF struct rr_strbuf sum = RR_STRBUF_INIT;
		rr_strbuf_addf(&sum, "%zu of %zu files differ from their RECORD", ndiff, checked);
		if (nclash)
			rr_strbuf_addf(&sum, "; %zu module clash%s", nclash, nclash == 1 ? "" : "es");
		if (nbad)
			rr_strbuf_addf(&sum, "; %zu protected distribution%s without a RECORD", nbad,
				       nbad == 1 ? "" : "s");
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s", sum.buf);
		/* the ROCm wheels cannot be downloaded again: the snapshot is the way back */
		if (fix.len && remove.len)
			rr_gpu_stage_advice(st, "remove the intruder (`pip uninstall -y %s`) and put "
					    "the protected files back: `rocm-resolve restore` does both "
					    "from the snapshot `rocm-resolve install` takes (without one, "
					    "reinstall %s from the wheel files they came from)",
					    remove.buf, fix.buf);
		else if (fix.len)
			rr_gpu_stage_advice(st, "put the protected files back with `rocm-resolve "
					    "restore`, from the snapshot `rocm-resolve install` takes "
					    "(without one, reinstall %s from the wheel files they came "
					    "from)", fix.buf);
		else
			rr_gpu_stage_advice(st, "put the protected files back with `rocm-resolve "
					    "restore` (from the snapshot `rocm-resolve install` takes)");
	} else if (!checked) {
		rr_gpu_stage_set(st, RR_VERDICT_SKIP, "no protected distribution has a RECORD to "
				 "check against");
	} else {
		/* install's snapshot keeps those too: its count is the sum, said so here */
		RR_AUTO_STRBUF struct rr_strbuf more = RR_STRBUF_INIT;
		if (unhashed)
			rr_strbuf_addf(&more,
				       "; not checked: %zu more file%s listed without a hash "
				       "(%zu of them compiled .pyc, the others such as RECORD "
				       "itself)",
				       unhashed, unhashed == 1 ? "" : "s", pyc);
		rr_gpu_stage_set(st, RR_VERDICT_PASS,
				 "%zu files of %zu protected distribution%s match "
				 "their RECORD; no module clashes%s",
				 checked, o->nprotected, o->nprotected == 1 ? "" : "s", more.buf);
	}
	for (size_t i = 0; i < nall; i++)
		dist_release(&all[i]);
	free(all);
}
