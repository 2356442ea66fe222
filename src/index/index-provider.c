/*
 * index-provider.c - the resolver's view of a package index and the venv.
 *
 * Candidates of a project are its index releases that have a file the venv's
 * interpreter can install (the best-ranked compatible wheel, else an sdist),
 * plus the installed version. Dependencies come from the installed METADATA,
 * else the index's core metadata (PEP 658, the wheel, or a static sdist).
 * A crawl runs ahead of the resolver, asynchronously: a project's page is
 * asked for the moment a line names it, the metadata of the release the
 * resolver will most likely pick the moment its page is in, and the pages of
 * what that release requires the moment its metadata is in. Nothing waits for
 * anything else: the client runs every request as soon as it is known, and
 * the crawl moves on in the client's hooks while the resolver waits for
 * whatever it asks next. A walk down a project's releases (backtracking)
 * fetches the metadata of the releases the resolver will try next ahead. The crawl
 * is crawl.c; the state both share is provider-private.h.
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
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/index-provider.h"
#include "index/provider-private.h"

struct pkg *rr_ip_find_pkg(struct rr_index_provider *ip, const char *key)
{
	void **slot = rr_strmap_find(&ip->pkg_of, key, false);

	return slot ? *slot : NULL;
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
rr_err rr_ip_load_pkg(struct rr_index_provider *ip, const char *key, struct pkg **ret,
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
	/* while the page came, the crawl may have made the project already */
	if ((*ret = rr_ip_find_pkg(ip, key)))
		return RR_OK;
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
	RR_PUSH(ip->pkgs, ip->npkgs, ip->cap_pkgs) = rr_xmalloc(sizeof(pk));
	*ip->pkgs[ip->npkgs - 1] = pk;
	*ret = ip->pkgs[ip->npkgs - 1];
	*rr_strmap_find(&ip->pkg_of, pk.key, true) = *ret;
	return RR_OK;
}

static rr_err p_candidates(void *ctx, const char *key, const struct rr_candidate **ret, size_t *n,
			   rr_error *err)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = rr_ip_find_pkg(ip, key);
	struct want *w = rr_crawl_find_want(ip, key, true);
	rr_err rc;

	if (!w->seq) {
		w->seq = ++ip->seq;
		/* walks that waited to know whether the resolver meets this one first */
		for (size_t i = 0; i < ip->nwants; i++) {
			struct want *o = ip->wants[i];
			if (o->walk_wait && !o->walk_from && o->expanded)
				rr_crawl_walk_start(ip, o, o->expanded);
		}
	}
	if (!pk) {
		rc = rr_ip_load_pkg(ip, key, &pk, err);
		if (rc)
			return rc;
	}
	*ret = pk->cands;
	*n = pk->n;
	return RR_OK;
}

rr_err rr_ip_load_meta(struct rr_index_provider *ip, const char *key, struct cand_data *d,
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
	/* while it came, the crawl may have read it already */
	if (d->meta_loaded) {
		if (rc && err)
			rr_error_release(err);
		return RR_OK;
	}
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
 * the resolver is about to ask for cs[0]'s dependencies, and would try cs[1..]
 * next. Once it walks down a project's releases (a miss below the release it
 * asked about before), the metadata of those next ones is asked for too, all at
 * once and while it works on cs[0]: a walk costs a round trip now and then, not
 * one per release. Each step down tops the window up again, and each miss on the
 * way doubles it, up to 16: a walk that outruns its window is a long one
 * (DeepSpeed's dev file walks down 60 releases of sphinx, one round trip per
 * window). Past the first 8, only wheels: their METADATA comes in a tail, an
 * sdist's PKG-INFO in a 60 KiB head or the whole file (webui-forge walks down
 * opencv-python's; with 32 and sdists its bytes passed uv's). WALK_WINDOW_FIRST and
 * WALK_WINDOW_MAX are in provider-private.h (the crawl's walks use the same window).
 */
static void p_upcoming(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = rr_ip_find_pkg(ip, key);
	const struct cand_data *d = n ? cs[0]->data : NULL;
	bool miss, down;

	if (!pk || !d)
		return;
	miss = d->file && !d->dist && !d->meta_loaded &&
	       !rr_index_metadata_known(ip->client, d->file);
	down = pk->last_asked && rr_version_cmp(&pk->last_asked->version, &cs[0]->version) > 0;
	pk->last_asked = cs[0];
	if (down && miss)
		pk->window = !pk->walking                       ? WALK_WINDOW_FIRST
			     : pk->window * 2 > WALK_WINDOW_MAX ? WALK_WINDOW_MAX
								: pk->window * 2;
	pk->walking = down && (miss || pk->walking);
	if (miss)
		rr_index_want_metadata(ip->client, d->file, PRIO_WAITED);
	for (size_t i = 1; pk->walking && i < n && i <= pk->window; i++) {
		const struct cand_data *o = cs[i]->data;
		if (o && o->file && !o->dist && !o->meta_loaded && !cs[i]->yanked &&
		    (i <= WALK_WINDOW_FIRST || o->file->is_wheel))
			rr_index_want_metadata(ip->client, o->file, PRIO_META);
	}
}

static rr_err p_dependencies(void *ctx, const char *key, const struct rr_candidate *c,
			     const struct rr_dependency **ret, size_t *n, rr_error *err)
{
	struct rr_index_provider *ip = ctx;
	struct cand_data *d = (struct cand_data *)c->data;
	rr_err rc;

	rc = rr_ip_load_meta(ip, key, d, c->version_text, err);

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

struct rr_index_provider *rr_index_provider_new(struct rr_index_client *client,
						const struct rr_venv *venv,
						const char *(*held)(void *ctx, const char *key),
						void *held_ctx)
{
	struct rr_index_provider *ip = rr_xcalloc(1, sizeof(*ip));

	ip->client = client;
	ip->venv = venv;
	ip->held = held;
	ip->held_ctx = held_ctx;
	rr_venv_marker_env(venv, &ip->env, ip->pybuf);
	{
		struct rr_index_hooks h = {ip, rr_crawl_hook_project, rr_crawl_hook_metadata};
		rr_index_client_hooks(client, &h);
	}
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
	ret->prefetch = rr_crawl_prefetch;
	ret->prefetch_deps = rr_crawl_prefetch_deps;
	ret->will_need = rr_crawl_will_need;
	ret->upcoming = p_upcoming;
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
	rr_index_client_hooks(ip->client, NULL);
	rr_predict_learn(ip);
	rr_predict_release(&ip->predict);
	for (size_t i = 0; i < ip->npkgs; i++) {
		struct pkg *pk = ip->pkgs[i];
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
		free(pk);
	}
	free(ip->pkgs);
	rr_strmap_release(&ip->pkg_of, NULL);
	for (size_t i = 0; i < ip->cap_memo; i++)
		free(ip->memo[i].tags);
	free(ip->memo);
	for (size_t i = 0; i < ip->nwants; i++) {
		struct want *w = ip->wants[i];
		for (size_t k = 0; k < w->nspecs; k++) {
			rr_specset_release(&w->specs[k]);
			free(w->spec_texts[k]);
		}
		for (size_t k = 0; k < w->nextras; k++)
			free(w->extras[k]);
		free(w->specs);
		free(w->spec_texts);
		free(w->extras);
		free(w->walk_next);
		free(w->follow);
		free(w->key);
		free(w);
	}
	free(ip->wants);
	rr_strmap_release(&ip->want_of, NULL);
	rr_version_release(&ip->pyver);
	for (size_t i = 0; i < ip->nwarnings; i++)
		free(ip->warnings[i]);
	free(ip->warnings);
	free(ip);
	return NULL;
}
