/*
 * index-provider.c - the resolver's view of a package index and the venv.
 *
 * Candidates of a project are its index releases that have a file the venv's
 * interpreter can install (the best-ranked compatible wheel, else an sdist),
 * plus the installed version. Dependencies come from the installed METADATA,
 * else the index's core metadata (PEP 658, the wheel, or a static sdist).
 * Page and metadata fetches are batched through the prefetch hints, so the
 * index client can run them in parallel.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/index.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/index-provider.h"

struct cand_data {
	const char *key;		  /* the project (borrowed from struct pkg) */
	const char *vtext;		  /* the candidate's version text (borrowed) */
	const struct rr_index_file *file; /* NULL for an installed-only candidate */
	const struct rr_dist *dist;	  /* installed dist when this is the installed version */
	struct rr_metadata meta;
	bool meta_loaded;
	bool unknown; /* the dependencies need a build: see rr_candidate.deps_unknown */
	struct rr_dependency *deps; /* Requires-Dist of meta or dist, each line parsed once */
	size_t ndeps;
};

struct pkg {
	char *key;
	struct rr_candidate *cands;
	struct cand_data **data;
	size_t n;
	const struct rr_candidate *last_miss; /* the last release whose metadata had to be fetched */
};

/* what the crawl knows is wanted of a project: the specifiers of the lines that
 * named it (roots and likely releases' dependencies) and the extras asked for */
struct want {
	char *key;
	struct rr_specset *specs;
	size_t nspecs, cap_specs;
	char **extras;
	size_t nextras, cap_extras;
};

struct tag_memo {
	char *tags; /* "py-abi-plat" of a wheel filename */
	size_t len;
	uint64_t hash;
	int score; /* rr_wheel_score, -1 incompatible or malformed */
};

struct rr_index_provider {
	struct rr_index_client *client;
	struct tag_memo *memo; /* open addressing, a power of two */
	size_t nmemo, cap_memo;
	struct want *wants;
	size_t nwants, cap_wants;
	struct rr_version pyver; /* the venv's python, for Requires-Python; empty: unknown */
	bool have_pyver;
	const struct rr_venv *venv;
	struct rr_target target;
	struct rr_marker_env env;
	char pybuf[16];
	bool (*skip)(void *ctx, const char *key); /* never fetched: fixed or forbidden */
	void *skip_ctx;
	char **pages; /* fetched with the crawl's first ring, not crawled (rr_index_provider_pages) */
	size_t npages;
	struct pkg *pkgs;
	size_t npkgs, cap_pkgs;
	char **warnings;
	size_t nwarnings, cap_warnings;
};

static struct pkg *find_pkg(struct rr_index_provider *ip, const char *key)
{
	for (size_t i = 0; i < ip->npkgs; i++)
		if (strcmp(ip->pkgs[i].key, key) == 0)
			return &ip->pkgs[i];
	return NULL;
}


/* the file of one release the venv would install: best compatible wheel, else an sdist */
static bool file_better(const struct rr_index_file *f, int score, const struct rr_index_file *best,
			int best_score)
{
	if (!best)
		return true;
	if (f->yanked != best->yanked)
		return !f->yanked;
	return score > best_score;
}

/*
 * a wheel's rank depends only on its three tag parts, and a page repeats the
 * same few tag strings release after release (numpy: ~20 over ~3000 files):
 * each distinct one is parsed and ranked once per run
 */
static int tag_score(struct rr_index_provider *ip, const char *tags, size_t n,
		     const char *filename)
{
	uint64_t h = 1469598103934665603ULL;
	size_t mask, slot;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)tags[i]) * 1099511628211ULL;
	if (ip->nmemo * 2 >= ip->cap_memo) {
		size_t ncap = ip->cap_memo ? ip->cap_memo * 2 : 64;
		struct tag_memo *nm = rr_xcalloc(ncap, sizeof(*nm));
		for (size_t i = 0; i < ip->cap_memo; i++) {
			if (!ip->memo[i].tags)
				continue;
			for (slot = ip->memo[i].hash & (ncap - 1); nm[slot].tags;
			     slot = (slot + 1) & (ncap - 1))
				;
			nm[slot] = ip->memo[i];
		}
		free(ip->memo);
		ip->memo = nm;
		ip->cap_memo = ncap;
	}
	mask = ip->cap_memo - 1;
	for (slot = h & mask; ip->memo[slot].tags; slot = (slot + 1) & mask)
		if (ip->memo[slot].hash == h && ip->memo[slot].len == n &&
		    memcmp(ip->memo[slot].tags, tags, n) == 0)
			return ip->memo[slot].score;
	{
		struct rr_wheel_name w;
		int sc = -1;
		if (!rr_wheel_name_parse(filename, &w, NULL)) {
			sc = rr_wheel_score(&w, &ip->target);
			rr_wheel_name_release(&w);
		}
		ip->memo[slot] = (struct tag_memo){rr_xstrndup(tags, n), n, h, sc};
		ip->nmemo++;
		return sc;
	}
}

static int file_score(struct rr_index_provider *ip, const struct rr_index_file *f)
{
	const char *base, *dash[6];
	size_t len, nd = 0;
	int s;

	if (!f->is_wheel)
		return 0; /* an sdist can be built anywhere, ranked below any wheel */
	base = strrchr(f->filename, '/');
	base = base ? base + 1 : f->filename;
	len = strlen(base);
	/* the shape rr_wheel_name_parse insists on: name-version[-build]-py-abi-plat.whl,
	 * no part empty; anything else goes to it to be refused */
	if (len < 5 || strcmp(base + len - 4, ".whl") != 0)
		return -1;
	len -= 4;
	for (size_t i = 0; i < len && nd < 6; i++)
		if (base[i] == '-')
			dash[nd++] = base + i;
	if (nd != 4 && nd != 5) {
		s = -1;
	} else {
		bool empty = dash[0] == base || base[len - 1] == '-';
		for (size_t k = 1; k < nd; k++)
			empty |= dash[k] == dash[k - 1] + 1;
		s = empty ? -1
			  : tag_score(ip, dash[nd - 3] + 1, (size_t)(base + len - dash[nd - 3] - 1),
				      f->filename);
	}
	return s < 0 ? -1 : s + 1;
}

static void add_cand(struct pkg *pk, size_t *cap, size_t *dcap, const char *vtext,
		     struct rr_version *v, const struct rr_index_file *file,
		     const struct rr_dist *dist)
{
	struct rr_candidate *c = &RR_PUSH(pk->cands, pk->n, *cap);
	struct cand_data *d = rr_xcalloc(1, sizeof(*d));
	size_t n = pk->n - 1;

	memset(c, 0, sizeof(*c));
	c->version_text = rr_xstrdup(vtext);
	c->version = *v;
	c->yanked = file && file->yanked;
	c->installed = dist != NULL;
	c->sdist = file && !file->is_wheel;
	c->requires_python = file && file->requires_python ? rr_xstrdup(file->requires_python) : NULL;
	d->key = pk->key;
	d->vtext = c->version_text;
	d->file = file;
	d->dist = dist;
	c->data = d;
	RR_PUSH(pk->data, n, *dcap) = d;
}

/* one index file and its version (parsed once per distinct version text) */
struct fver {
	const struct rr_version *v;
	size_t i; /* position in the page: ties keep page order */
};

static int cmp_fver(const void *a, const void *b)
{
	const struct fver *x = a, *y = b;
	int c = x->v == y->v ? 0 : rr_version_cmp(x->v, y->v);

	if (c)
		return c;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Linear in the page (plus a sort): every file's version is parsed once, the
 * files are grouped by version, and each group yields one candidate (its best
 * file). A page of 48k releases used to be parsed release x file times.
 */
static rr_err load_pkg(struct rr_index_provider *ip, const char *key, struct pkg **ret,
		       rr_error *err)
{
	const struct rr_index_project *proj = NULL;
	const struct rr_dist *dist = rr_venv_lookup(ip->venv, key);
	struct pkg pk = {0};
	struct fver *fv = NULL;
	struct rr_version *vers = NULL;
	size_t nfv = 0, nvers = 0;
	size_t cap = 0;
	size_t dcap = 0;
	bool dist_matched = false;
	rr_err rc;

	if (dist && dist->problem)
		dist = NULL;
	rc = rr_index_get_project(ip->client, key, &proj, err);
	if (rc && rc != RR_E_NOTFOUND)
		return rc;
	if (rc == RR_E_NOTFOUND && !dist)
		return RR_E_NOTFOUND;
	/* a page that lists no file at all (a broken mirror) is no project either: the
	 * caller says so instead of "no version fits" */
	if (!rc && proj && !proj->nfiles && !proj->nforeign && !dist)
		return proj->nignored
			       ? rr_fail(err, RR_E_NOTFOUND,
					 "the index page of '%s' lists no files of it (%zu ignored: "
					 "named for another project, or not at an http(s) URL)",
					 key, proj->nignored)
			       : rr_fail(err, RR_E_NOTFOUND, "the index page of '%s' lists no files",
					 key);
	pk.key = rr_xstrdup(key);
	if (proj && proj->nfiles) {
		/* a page lists a release's files side by side: the same version text as
		 * the file before is the same parsed version */
		const char *prev = NULL;
		fv = rr_xcalloc(proj->nfiles, sizeof(*fv));
		vers = rr_xcalloc(proj->nfiles, sizeof(*vers));
		for (size_t i = 0; i < proj->nfiles; i++) {
			const struct rr_index_file *f = &proj->files[i];
			if (!f->version)
				continue;
			if (!prev || strcmp(prev, f->version) != 0) {
				prev = NULL;
				vers[nvers] = (struct rr_version)RR_VERSION_INIT;
				if (rr_version_parse(f->version, &vers[nvers], NULL)) {
					rr_version_release(&vers[nvers]);
					continue;
				}
				prev = f->version;
				nvers++;
			}
			fv[nfv].v = &vers[nvers - 1];
			fv[nfv++].i = i;
		}
		rr_qsort(fv, nfv, sizeof(*fv), cmp_fver);
	}
	for (size_t g = 0; g < nfv;) {
		size_t end = g + 1;
		const struct rr_index_file *best = NULL;
		int best_score = -1;

		while (end < nfv && (fv[g].v == fv[end].v || rr_version_cmp(fv[g].v, fv[end].v) == 0))
			end++;
		for (size_t j = g; j < end; j++) {
			const struct rr_index_file *f = &proj->files[fv[j].i];
			int s = file_score(ip, f);
			if (s >= 0 && file_better(f, s, best, best_score)) {
				best = f;
				best_score = s;
			}
		}
		if (best) {
			const struct rr_dist *here =
				dist && dist->version_ok && rr_version_cmp(&dist->version, fv[g].v) == 0
					? dist
					: NULL;
			struct rr_version v = RR_VERSION_INIT;
			dist_matched |= here != NULL;
			rr_version_copy(&v, fv[g].v);
			add_cand(&pk, &cap, &dcap, best->version, &v, best, here);
		}
		g = end;
	}
	for (size_t i = 0; i < nvers; i++)
		rr_version_release(&vers[i]);
	free(vers);
	free(fv);
	if (dist && !dist_matched && dist->version_ok) {
		struct rr_version v = RR_VERSION_INIT;
		rr_version_copy(&v, &dist->version);
		add_cand(&pk, &cap, &dcap, dist->version_text, &v, NULL, dist);
	}
	RR_PUSH(ip->pkgs, ip->npkgs, ip->cap_pkgs) = pk;
	*ret = &ip->pkgs[ip->npkgs - 1];
	return RR_OK;
}

static rr_err p_candidates(void *ctx, const char *key, const struct rr_candidate **ret, size_t *n,
			   rr_error *err)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = find_pkg(ip, key);
	rr_err rc;

	if (!pk) {
		rc = load_pkg(ip, key, &pk, err);
		if (rc)
			return rc;
	}
	*ret = pk->cands;
	*n = pk->n;
	return RR_OK;
}

static rr_err load_meta(struct rr_index_provider *ip, const char *key, struct cand_data *d,
			const char *vtext, rr_error *err)
{
	const char *text;
	size_t len;
	rr_err rc;

	if (d->meta_loaded)
		return RR_OK;
	/* marked loaded only on success: a failure seen while crawling is met again,
	 * with its message, when the resolver asks */
	if (d->dist) {
		d->meta_loaded = true;
		d->ndeps = d->dist->meta.nrequires_dist;
		d->deps = rr_dependencies_parse((const char *const *)d->dist->meta.requires_dist,
						d->ndeps);
		return RR_OK;
	}
	rc = rr_index_get_metadata(ip->client, d->file, &text, &len, err);
	if (rc == RR_E_UNSUPPORTED) {
		/* unknown, not "none": the candidate says so (deps_unknown) and the
		 * resolver takes it only when nothing with known dependencies fits */
		(void)key;
		(void)vtext;
		d->unknown = true;
		if (err)
			rr_error_release(err);
		d->meta_loaded = true;
		return RR_OK;
	}
	if (rc)
		return rc;
	rc = rr_metadata_parse(text, len, d->file->url, &d->meta, err);
	if (rc) {
		rr_metadata_release(&d->meta);
		return rc;
	}
	d->meta_loaded = true;
	d->ndeps = d->meta.nrequires_dist;
	d->deps = rr_dependencies_parse((const char *const *)d->meta.requires_dist, d->ndeps);
	return RR_OK;
}

/*
 * the resolver asks for one release's dependencies it was not told about
 * beforehand: it is walking down the releases (backtracking), and the next ones
 * it tries are the next older ones. Fetch this one's metadata together with
 * those of the next few older releases in one parallel batch, so a walk down
 * costs a round trip per batch, not per release.
 */
#define WALK_AHEAD 8
static void fetch_walk(struct rr_index_provider *ip, const char *key, const struct rr_candidate *c)
{
	const struct cand_data *d = c->data;
	const struct rr_index_file *files[WALK_AHEAD + 1];
	const struct rr_candidate *next[WALK_AHEAD];
	struct pkg *pk;
	size_t nf = 0;
	size_t nn = 0;
	rr_error err = RR_ERROR_INIT;

	/* only on a real miss: a release a batch brought already costs nothing */
	if (!d || !d->file || d->dist || d->meta_loaded ||
	    rr_index_metadata_known(ip->client, d->file) || !(pk = find_pkg(ip, key)))
		return;
	/* and only once the resolver is walking down: a second miss below the last one
	 * (a single question, such as the newest release's, fetches just that one) */
	{
		bool walking = pk->last_miss &&
			       rr_version_cmp(&pk->last_miss->version, &c->version) > 0;
		pk->last_miss = c;
		if (!walking)
			return;
	}
	files[nf++] = d->file;
	/* the WALK_AHEAD newest releases below c whose metadata is not there yet */
	for (size_t i = 0; i < pk->n; i++) {
		const struct rr_candidate *o = &pk->cands[i];
		const struct cand_data *od = pk->data[i];
		size_t k;
		if (o->yanked || !od || !od->file || od->dist || od->meta_loaded ||
		    rr_version_cmp(&o->version, &c->version) >= 0 ||
		    rr_index_metadata_known(ip->client, od->file))
			continue;
		for (k = nn; k > 0 && rr_version_cmp(&next[k - 1]->version, &o->version) < 0; k--)
			if (k < WALK_AHEAD)
				next[k] = next[k - 1];
		if (k < WALK_AHEAD) {
			next[k] = o;
			if (nn < WALK_AHEAD)
				nn++;
		}
	}
	for (size_t i = 0; i < nn; i++)
		files[nf++] = ((const struct cand_data *)next[i]->data)->file;
	if (rr_index_fetch_metadata(ip->client, files, nf, &err))
		rr_error_release(&err);
}

static rr_err p_dependencies(void *ctx, const char *key, const struct rr_candidate *c,
			     const struct rr_dependency **ret, size_t *n, rr_error *err)
{
	struct rr_index_provider *ip = ctx;
	struct cand_data *d = (struct cand_data *)c->data;
	rr_err rc;

	fetch_walk(ip, key, c);
	rc = load_meta(ip, key, d, c->version_text, err);

	if (rc)
		return rc;
	if (d->unknown) {
		/* the provider owns its candidates: revealing this is its job */
		((struct rr_candidate *)c)->deps_unknown = true;
		*ret = NULL;
		*n = 0;
		return RR_OK;
	}
	*ret = d->deps;
	*n = d->ndeps;
	return RR_OK;
}

static bool in_list(const char *const *v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], key) == 0)
			return true;
	return false;
}

static struct want *find_want(struct rr_index_provider *ip, const char *key, bool create)
{
	struct want *w;

	for (size_t i = 0; i < ip->nwants; i++)
		if (strcmp(ip->wants[i].key, key) == 0)
			return &ip->wants[i];
	if (!create)
		return NULL;
	w = &RR_PUSH(ip->wants, ip->nwants, ip->cap_wants);
	memset(w, 0, sizeof(*w));
	w->key = rr_xstrdup(key);
	return w;
}

/* record that r (a line naming r->key) is wanted; true when it asked for a new extra */
static bool want_add(struct rr_index_provider *ip, const struct rr_requirement *r)
{
	struct want *w = find_want(ip, r->key, true);
	bool grew = false;

	if (r->spec.n) {
		struct rr_specset *ss = &RR_PUSH(w->specs, w->nspecs, w->cap_specs);
		memset(ss, 0, sizeof(*ss));
		rr_specset_copy(ss, &r->spec);
	}
	for (size_t i = 0; i < r->nextras; i++) {
		RR_AUTOFREE char *e = rr_name_normalize(r->extras[i]);
		if (in_list((const char *const *)w->extras, w->nextras, e))
			continue;
		RR_PUSH(w->extras, w->nextras, w->cap_extras) = RR_STEAL(e);
		grew = true;
	}
	return grew;
}

static bool python_ok(const struct rr_index_provider *ip, const struct rr_candidate *c)
{
	struct rr_specset ss = RR_SPECSET_INIT;
	bool ok = true;

	if (!ip->have_pyver || !c->requires_python)
		return true;
	if (rr_specset_parse(c->requires_python, &ss, NULL) == RR_OK)
		ok = rr_specset_contains(&ss, &ip->pyver, RR_PRE_POLICY_ALLOW);
	rr_specset_release(&ss);
	return ok;
}

/*
 * the release the resolver will most likely pick: the newest final one (a
 * pre-release only when nothing final fits; the resolver does not prefer an
 * installed, unprotected version, so neither does the crawl), among those
 * every specifier seen for it allows and whose Requires-Python admits the
 * venv's interpreter; NULL when none does (the resolver will say why)
 */
static const struct rr_candidate *likely_candidate(struct rr_index_provider *ip,
						   const struct pkg *pk)
{
	const struct want *w = find_want(ip, pk->key, false);
	const struct rr_candidate *best = NULL, *best_pre = NULL;

	for (size_t i = 0; i < pk->n; i++) {
		const struct rr_candidate *c = &pk->cands[i];
		bool fits = true;
		for (size_t k = 0; w && k < w->nspecs && fits; k++)
			fits = rr_specset_contains(&w->specs[k], &c->version, RR_PRE_POLICY_ALLOW);
		if (!fits || c->yanked)
			continue;
		if (rr_version_is_prerelease(&c->version)) {
			if ((!best_pre || rr_version_cmp(&c->version, &best_pre->version) > 0) &&
			    python_ok(ip, c))
				best_pre = c;
			continue;
		}
		if ((!best || rr_version_cmp(&c->version, &best->version) > 0) && python_ok(ip, c))
			best = c;
	}
	return best ? best : best_pre;
}

/*
 * the names a likely release needs here: lines whose marker holds in the venv,
 * for no extra or for an extra someone asked of this project; they form the
 * next ring of the speculative crawl (again when a new extra is asked of a
 * project already crawled)
 */
static void add_frontier(struct rr_index_provider *ip, const struct cand_data *d, char ***next,
			 size_t *nnext, size_t *cap)
{
	const struct want *w = find_want(ip, d->key, false);
	const char *none = "";
	size_t ne = 1 + (w ? w->nextras : 0);
	const char **extras = rr_xcalloc(ne, sizeof(*extras));

	extras[0] = none;
	for (size_t i = 1; i < ne; i++)
		extras[i] = w->extras[i - 1];
	for (size_t i = 0; i < d->ndeps; i++) {
		const struct rr_requirement *r = &d->deps[i].req;
		bool holds = true;
		bool grew;

		if (d->deps[i].rc)
			continue;
		if (r->marker && (rr_requirement_applies(r, &ip->env, extras, ne, &holds, NULL) ||
				  !holds))
			continue;
		if (r->url || (ip->skip && ip->skip(ip->skip_ctx, r->key)))
			continue;
		grew = want_add(ip, r);
		if ((!find_pkg(ip, r->key) || grew) &&
		    !in_list((const char *const *)*next, *nnext, r->key))
			RR_PUSH(*next, *nnext, *cap) = rr_xstrdup(r->key);
	}
	free(extras);
}

/*
 * a breadth-first crawl over the likely releases, a ring at a time: the ring's
 * pages in one parallel batch, then the metadata of each project's likely
 * release in another, then the names those need form the next ring. The
 * resolver asks one question at a time; without this every question would
 * wait for its own round trip.
 */
static void p_prefetch(void *ctx, const char *const *keys, size_t n)
{
	struct rr_index_provider *ip = ctx;
	char **ring = NULL;
	size_t nring = 0;
	size_t cap = 0;
	rr_error err = RR_ERROR_INIT;

	for (size_t i = 0; i < n; i++)
		if (!find_pkg(ip, keys[i]) && !(ip->skip && ip->skip(ip->skip_ctx, keys[i])) &&
		    !in_list((const char *const *)ring, nring, keys[i]))
			RR_PUSH(ring, nring, cap) = rr_xstrdup(keys[i]);
	if (ip->npages) {
		/* the pages asked for beside the crawl ride along with its first batch */
		const char **batch = rr_xcalloc(nring + ip->npages + 1, sizeof(*batch));
		for (size_t i = 0; i < nring; i++)
			batch[i] = ring[i];
		for (size_t i = 0; i < ip->npages; i++)
			batch[nring + i] = ip->pages[i];
		if (rr_index_fetch_projects(ip->client, batch, nring + ip->npages, &err))
			rr_error_release(&err);
		free(batch);
		for (size_t i = 0; i < ip->npages; i++)
			free(ip->pages[i]);
		ip->pages = rr_free(ip->pages);
		ip->npages = 0;
	}
	for (int depth = 0; nring && depth < 32; depth++) {
		const struct rr_index_file **files = rr_xcalloc(nring + 1, sizeof(*files));
		struct cand_data **likely = rr_xcalloc(nring + 1, sizeof(*likely));
		char **next = NULL;
		size_t nnext = 0;
		size_t cap_next = 0;
		size_t nf = 0;
		size_t nl = 0;

		/* failures surface again, with their message, when the key is asked for */
		if (rr_index_fetch_projects(ip->client, (const char *const *)ring, nring, &err))
			rr_error_release(&err);
		for (size_t i = 0; i < nring; i++) {
			struct pkg *pk = find_pkg(ip, ring[i]);
			const struct rr_candidate *c;
			struct cand_data *d;

			if (!pk && load_pkg(ip, ring[i], &pk, &err)) {
				rr_error_release(&err);
				continue;
			}
			c = likely_candidate(ip, pk);
			d = c ? (struct cand_data *)c->data : NULL;
			if (!d)
				continue;
			likely[nl++] = d;
			if (d->file && !d->dist && !d->meta_loaded)
				files[nf++] = d->file;
		}
		if (nf && rr_index_fetch_metadata(ip->client, files, nf, &err))
			rr_error_release(&err);
		for (size_t i = 0; i < nl; i++) {
			if (load_meta(ip, likely[i]->key, likely[i], likely[i]->vtext, &err)) {
				rr_error_release(&err);
				continue;
			}
			add_frontier(ip, likely[i], &next, &nnext, &cap_next);
		}
		for (size_t i = 0; i < nring; i++)
			free(ring[i]);
		free(ring);
		free(files);
		free(likely);
		ring = next;
		nring = nnext;
		cap = cap_next;
	}
	for (size_t i = 0; i < nring; i++)
		free(ring[i]);
	free(ring);
}

void rr_index_provider_pages(struct rr_index_provider *ip, const char *const *keys, size_t n)
{
	ip->pages = rr_xrealloc(ip->pages, (ip->npages + n + 1) * sizeof(*ip->pages));
	for (size_t i = 0; i < n; i++)
		ip->pages[ip->npages++] = rr_xstrdup(keys[i]);
}

void rr_index_provider_prefetch_roots(struct rr_index_provider *ip,
				      const struct rr_requirement *const *reqs, size_t n)
{
	const char **keys = rr_xcalloc(n + 1, sizeof(*keys));
	size_t nk = 0;

	for (size_t i = 0; i < n; i++) {
		const struct rr_requirement *r = reqs[i];
		bool holds = true;
		if (!r || !r->key || r->url)
			continue;
		if (r->marker && (rr_marker_eval(r->marker, &ip->env, &holds, NULL) || !holds))
			continue;
		want_add(ip, r);
		keys[nk++] = r->key;
	}
	p_prefetch(ip, keys, nk);
	free(keys);
}

/*
 * the resolver met a project and names the release it would most likely pick
 * (the newest); the specifiers the crawl has seen for the project narrow that
 * down: asking for the newest transformers while every line says <=5.8.0 cost
 * a metadata fetch nobody used, one round trip at a time
 */
static void p_prefetch_deps(void *ctx, const char *key, const struct rr_candidate *const *cs,
			    size_t n)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = find_pkg(ip, key);
	const struct rr_candidate *likely = pk ? likely_candidate(ip, pk) : NULL;
	const struct cand_data *d = likely ? likely->data : NULL;
	rr_error err = RR_ERROR_INIT;

	(void)cs;
	(void)n;
	if (d && d->file && !d->dist && !d->meta_loaded &&
	    rr_index_fetch_metadata(ip->client, &d->file, 1, &err))
		rr_error_release(&err);
}

struct rr_index_provider *rr_index_provider_new(struct rr_index_client *client,
						const struct rr_venv *venv,
						bool (*skip)(void *ctx, const char *key),
						void *skip_ctx)
{
	struct rr_index_provider *ip = rr_xcalloc(1, sizeof(*ip));

	ip->client = client;
	ip->venv = venv;
	ip->skip = skip;
	ip->skip_ctx = skip_ctx;
	rr_venv_marker_env(venv, &ip->env, ip->pybuf);
	rr_venv_target(venv, &ip->target);
	ip->pyver = (struct rr_version)RR_VERSION_INIT;
	ip->have_pyver = venv->python_version &&
			 rr_version_parse(venv->python_version, &ip->pyver, NULL) == RR_OK;
	return ip;
}

void rr_index_provider_get(struct rr_index_provider *ip, struct rr_provider *ret)
{
	ret->ctx = ip;
	ret->candidates = p_candidates;
	ret->dependencies = p_dependencies;
	ret->prefetch = p_prefetch;
	ret->prefetch_deps = p_prefetch_deps;
}

const struct rr_index_file *rr_index_provider_file(const struct rr_candidate *c)
{
	const struct cand_data *d = c ? c->data : NULL;

	return d ? d->file : NULL;
}

size_t rr_index_provider_warnings(const struct rr_index_provider *ip, char *const **ret)
{
	*ret = ip->warnings;
	return ip->nwarnings;
}

struct rr_index_provider *rr_index_provider_free(struct rr_index_provider *ip)
{
	if (!ip)
		return NULL;
	for (size_t i = 0; i < ip->npkgs; i++) {
		struct pkg *pk = &ip->pkgs[i];
		for (size_t k = 0; k < pk->n; k++) {
			free(pk->cands[k].version_text);
			free(pk->cands[k].requires_python);
			rr_version_release(&pk->cands[k].version);
			rr_metadata_release(&pk->data[k]->meta);
			rr_dependencies_free(pk->data[k]->deps, pk->data[k]->ndeps);
			free(pk->data[k]);
		}
		free(pk->cands);
		free(pk->data);
		free(pk->key);
	}
	free(ip->pkgs);
	for (size_t i = 0; i < ip->cap_memo; i++)
		free(ip->memo[i].tags);
	free(ip->memo);
	for (size_t i = 0; i < ip->nwants; i++) {
		struct want *w = &ip->wants[i];
		for (size_t k = 0; k < w->nspecs; k++)
			rr_specset_release(&w->specs[k]);
		for (size_t k = 0; k < w->nextras; k++)
			free(w->extras[k]);
		free(w->specs);
		free(w->extras);
		free(w->key);
	}
	free(ip->wants);
	for (size_t i = 0; i < ip->npages; i++)
		free(ip->pages[i]);
	free(ip->pages);
	rr_version_release(&ip->pyver);
	for (size_t i = 0; i < ip->nwarnings; i++)
		free(ip->warnings[i]);
	free(ip->warnings);
	free(ip);
	return NULL;
}
