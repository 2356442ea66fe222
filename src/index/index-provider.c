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
 * fetches the metadata of the releases the resolver will try next ahead.
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
	bool ruled_out; /* walk_blocks found a line that rules it out for certain */
};

struct pkg {
	char *key;
	struct rr_candidate *cands;
	struct cand_data **data;
	size_t n;
	const struct rr_candidate *last_asked; /* the resolver's last upcoming() of it */
	bool walking;  /* it walks down this project's releases: fetch ahead */
	size_t window; /* how many releases ahead the walk fetches now */
};

/* what the crawl knows is wanted of a project: the specifiers of the lines that
 * named it (roots and likely releases' dependencies) and the extras asked for,
 * and how far the crawl got with it */
struct want {
	char *key;
	struct rr_specset *specs;
	char **spec_texts; /* the same, as text: each distinct one kept once */
	size_t nspecs, cap_specs, cap_texts;
	char **extras;
	size_t nextras, cap_extras;
	bool asked;                  /* its page was asked for by the crawl */
	struct cand_data *meta_for;  /* the likely release whose metadata the crawl asked for */
	const struct cand_data *expanded; /* whose requirements were followed, */
	size_t expanded_extras;           /* with this many of the extras */
	size_t nroot; /* specs[0..nroot) are the roots' (the lines of the input) */
	size_t seq;   /* when the resolver first met it: 1 for the first, 0 not yet */
	/* a walk down from the likely release, which a resolution will not take
	 * (see walk_blocks): the releases below it, newest first, and the one the walk
	 * found that fits, NULL until then */
	const struct cand_data *walk_from;
	const struct rr_candidate **walk_next;
	size_t walk_n;
	const struct rr_candidate *walk_pick;
	const struct rr_index_file *walk_at; /* the file whose METADATA it waits for */
	bool walk_done;                      /* it found its release, or was left to the resolver */
	bool walk_busy;      /* crawl_walk runs: a hook it causes does not start it again */
	bool walk_wait;      /* walk_blocks waits for the resolver to meet a project */
	bool installed_seen; /* the lines of the installed release were followed */
	/* lines of releases walks found (walk_follow) that met its page before it was
	 * in: borrowed from their cand_data, each taken up once the page lands */
	const struct rr_specset **follow;
	size_t nfollow, cap_follow;
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
	struct want **wants; /* in the order the crawl met them */
	size_t nwants, cap_wants;
	struct rr_strmap want_of; /* key -> struct want */
	struct rr_version pyver; /* the venv's python, for Requires-Python; empty: unknown */
	bool have_pyver;
	const struct rr_venv *venv;
	struct rr_target target;
	struct rr_marker_env env;
	char pybuf[16];
	/* the installed version of a project the plan holds (its protected build), NULL for
	 * any other project */
	const char *(*held)(void *ctx, const char *key);
	void *held_ctx;
	struct pkg **pkgs;
	size_t npkgs, cap_pkgs;
	struct rr_strmap pkg_of; /* key -> struct pkg */
	size_t seq;              /* projects the resolver has met (want.seq) */
	char **warnings;
	size_t nwarnings, cap_warnings;
};

static struct pkg *find_pkg(struct rr_index_provider *ip, const char *key)
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
	/* while the page came, the crawl may have made the project already */
	if ((*ret = find_pkg(ip, key)))
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

static struct want *find_want(struct rr_index_provider *ip, const char *key, bool create);
static void walk_start(struct rr_index_provider *ip, struct want *w, const struct cand_data *d);

static rr_err p_candidates(void *ctx, const char *key, const struct rr_candidate **ret, size_t *n,
			   rr_error *err)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = find_pkg(ip, key);
	struct want *w = find_want(ip, key, true);
	rr_err rc;

	if (!w->seq) {
		w->seq = ++ip->seq;
		/* walks that waited to know whether the resolver meets this one first */
		for (size_t i = 0; i < ip->nwants; i++) {
			struct want *o = ip->wants[i];
			if (o->walk_wait && !o->walk_from && o->expanded)
				walk_start(ip, o, o->expanded);
		}
	}
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

/* the order requests start in when more are waiting than may run (higher first) */
enum { PRIO_PAGE = 1, PRIO_META = 2, PRIO_WAITED = 3 };

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
 * opencv-python's; with 32 and sdists its bytes passed uv's).
 */
#define WALK_WINDOW_FIRST 8
#define WALK_WINDOW_MAX   16
static void p_upcoming(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = find_pkg(ip, key);
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
	void **slot = rr_strmap_find(&ip->want_of, key, create);
	struct want *w;

	if (!slot || *slot)
		return slot ? *slot : NULL;
	w = rr_xcalloc(1, sizeof(*w));
	w->key = rr_xstrdup(key);
	RR_PUSH(ip->wants, ip->nwants, ip->cap_wants) = w;
	*slot = w;
	return w;
}

enum { WANT_SPEC = 1, WANT_EXTRA = 2 };

/* record that r (a line naming r->key) is wanted: WANT_SPEC when it brought a
 * specifier not seen before, WANT_EXTRA a new extra */
static int want_add(struct rr_index_provider *ip, const struct rr_requirement *r)
{
	struct want *w = find_want(ip, r->key, true);
	int grew = 0;

	if (r->spec.n) {
		RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
		rr_specset_format(&r->spec, &text);
		if (!in_list((const char *const *)w->spec_texts, w->nspecs, text.buf)) {
			struct rr_specset *ss = &RR_PUSH(w->specs, w->nspecs, w->cap_specs);
			memset(ss, 0, sizeof(*ss));
			rr_specset_copy(ss, &r->spec);
			w->nspecs--;
			RR_PUSH(w->spec_texts, w->nspecs, w->cap_texts) = rr_strbuf_detach(&text, NULL);
			grew |= WANT_SPEC;
		}
	}
	for (size_t i = 0; i < r->nextras; i++) {
		RR_AUTOFREE char *e = rr_name_normalize(r->extras[i]);
		if (in_list((const char *const *)w->extras, w->nextras, e))
			continue;
		RR_PUSH(w->extras, w->nextras, w->cap_extras) = RR_STEAL(e);
		grew |= WANT_EXTRA;
	}
	return grew;
}

/* does c's Requires-Python admit the venv's interpreter (lower: read as uv reads it,
 * upper bounds ignored)? */
static bool python_admits(const struct rr_index_provider *ip, const struct rr_candidate *c,
			  bool lower)
{
	return !ip->have_pyver ||
	       rr_requires_python(c->requires_python, &ip->pyver, lower) == RR_PYTHON_ADMITS;
}

static bool python_ok(const struct rr_index_provider *ip, const struct rr_candidate *c)
{
	return python_admits(ip, c, false);
}

/* do the first n specifiers seen for w's project (none when w is NULL) allow v? */
static bool first_allow(const struct want *w, size_t n, const struct rr_version *v)
{
	for (size_t k = 0; w && k < n && k < w->nspecs; k++)
		if (!rr_specset_contains(&w->specs[k], v, RR_PRE_POLICY_ALLOW))
			return false;
	return true;
}

/* does every specifier seen for w's project (none when w is NULL) allow v? */
static bool seen_allow(const struct want *w, const struct rr_version *v)
{
	return first_allow(w, SIZE_MAX, v);
}

/*
 * the release the resolver will most likely pick: the newest final one (a
 * pre-release only when nothing final fits; the resolver does not prefer an
 * installed, unprotected version, so neither does the crawl), among those
 * every specifier seen for it allows and whose Requires-Python admits the
 * venv's interpreter. Where none does, the resolver fails on it and the input
 * as written is resolved again as uv reads Requires-Python (upper bounds
 * ignored: coqui TTS's trainer says <3.12): the newest final one that reading
 * admits, whose requirements that resolution then meets. NULL when none
 */
static const struct rr_candidate *likely_among(struct rr_index_provider *ip, const struct pkg *pk,
					       const struct want *w, size_t nseen)
{
	const struct rr_candidate *best = NULL, *best_pre = NULL, *best_lower = NULL;

	/* newest first (the page's order, ascending): each Requires-Python is parsed only
	 * where it could win */
	for (size_t i = pk->n; i-- > 0;) {
		const struct rr_candidate *c = &pk->cands[i];
		if (c->yanked || !first_allow(w, nseen, &c->version))
			continue;
		if (!rr_version_is_prerelease(&c->version) &&
		    (!best_lower || rr_version_cmp(&c->version, &best_lower->version) > 0) &&
		    python_admits(ip, c, true))
			best_lower = c;
		if (rr_version_is_prerelease(&c->version)) {
			if ((!best_pre || rr_version_cmp(&c->version, &best_pre->version) > 0) &&
			    python_ok(ip, c))
				best_pre = c;
			continue;
		}
		if ((!best || rr_version_cmp(&c->version, &best->version) > 0) && python_ok(ip, c))
			best = c;
	}
	return best ? best : best_pre ? best_pre : best_lower;
}

/* the same, where the specifiers seen exclude each other: with the input's own only,
 * as the others may come from releases a walk leaves behind (rr-fwpkg 3.0's
 * rr-fwcap>=2 against the input's rr-fwcap<2) */
static const struct rr_candidate *likely_candidate(struct rr_index_provider *ip,
						   const struct pkg *pk)
{
	const struct want *w = find_want(ip, pk->key, false);
	const struct rr_candidate *c = likely_among(ip, pk, w, SIZE_MAX);

	return c || !w || w->nspecs == w->nroot ? c : likely_among(ip, pk, w, w->nroot);
}

static void crawl_pick(struct rr_index_provider *ip, struct want *w);
static void hook_project(void *ctx, const char *key);

/* the crawl asks for key's page (once) */
static void crawl_add(struct rr_index_provider *ip, const char *key)
{
	struct want *w = find_want(ip, key, true);

	if (w->asked)
		return;
	w->asked = true;
	if (find_pkg(ip, key) || rr_index_project_known(ip->client, key))
		hook_project(ip, key); /* in already: no hook will come */
	else
		rr_index_want_project(ip->client, key, PRIO_PAGE);
}

/* does the crawl follow dep, a line of a release of w's project: its marker holds in
 * the venv, for no extra or for an extra someone asked of the project */
static bool follows(const struct rr_index_provider *ip, const struct want *w,
		    const struct rr_dependency *dep)
{
	const struct rr_requirement *r = &dep->req;
	const char **extras;
	bool holds = true;

	if (dep->rc || r->url)
		return false;
	if (!r->marker)
		return true;
	extras = rr_xcalloc(1 + w->nextras, sizeof(*extras));
	extras[0] = "";
	for (size_t i = 0; i < w->nextras; i++)
		extras[1 + i] = w->extras[i];
	if (rr_requirement_applies(r, &ip->env, extras, 1 + w->nextras, &holds, NULL))
		holds = false;
	free(extras);
	return holds;
}

/*
 * follow what the likely release d of w's project requires here (the lines
 * follows() takes). A name met for the first time is crawled; one crawled already
 * whose specifiers grew may now have another likely release, and one that was
 * asked a new extra has more to follow.
 */
static void crawl_expand(struct rr_index_provider *ip, struct want *w, const struct cand_data *d)
{
	if (w->expanded == d && w->expanded_extras == w->nextras)
		return;
	w->expanded = d;
	w->expanded_extras = w->nextras;
	for (size_t i = 0; i < d->ndeps; i++) {
		const struct rr_requirement *r = &d->deps[i].req;
		struct want *o;
		int grew;

		if (!follows(ip, w, &d->deps[i]))
			continue;
		grew = want_add(ip, r);
		o = find_want(ip, r->key, false);
		if (!o->asked) {
			crawl_add(ip, r->key);
		} else if (find_pkg(ip, r->key)) {
			if (grew & WANT_SPEC)
				crawl_pick(ip, o);
			if ((grew & WANT_EXTRA) && o->expanded)
				crawl_expand(ip, o, o->expanded);
		}
	}
	walk_start(ip, w, d);
}

/*
 * does the installed build of a project the plan holds satisfy every specifier seen
 * for it? Then the input as written keeps it too (an installer prefers what is
 * installed), and no release of the index is wanted
 */
static bool held_stays(struct rr_index_provider *ip, const struct want *w)
{
	const char *vtext = ip->held ? ip->held(ip->held_ctx, w->key) : NULL;
	struct rr_version v = RR_VERSION_INIT;
	bool stays = true;

	if (!vtext)
		return false;
	if (rr_version_parse(vtext, &v, NULL) == RR_OK)
		stays = seen_allow(w, &v);
	rr_version_release(&v);
	return stays;
}

/* newest first */
static int cmp_cand_desc(const void *a, const void *b)
{
	const struct rr_candidate *x = *(const struct rr_candidate *const *)a;
	const struct rr_candidate *y = *(const struct rr_candidate *const *)b;

	return rr_version_cmp(&y->version, &x->version);
}

/*
 * the releases of pk a walk or a line can take, as far as the crawl can tell (final,
 * not yanked, allowed by the first nseen specifiers seen for w and by spec when
 * given, below `below` when given, admitting the venv's Python), newest first, up to
 * max. One pass and a sort; each Requires-Python is parsed only on the way to max
 */
static size_t newest_fits(const struct rr_index_provider *ip, const struct want *w, size_t nseen,
			  const struct pkg *pk, const struct rr_specset *spec,
			  const struct rr_version *below, const struct rr_candidate **out,
			  size_t max)
{
	const struct rr_candidate **fit = rr_xmalloc((pk->n ? pk->n : 1) * sizeof(*fit));
	size_t nfit = 0, n = 0;

	for (size_t i = 0; i < pk->n; i++) {
		const struct rr_candidate *c = &pk->cands[i];
		if (!c->yanked && !rr_version_is_prerelease(&c->version) &&
		    (!below || rr_version_cmp(&c->version, below) < 0) &&
		    (!spec || rr_specset_contains(spec, &c->version, RR_PRE_POLICY_ALLOW)) &&
		    first_allow(w, nseen, &c->version))
			fit[nfit++] = c;
	}
	rr_qsort(fit, nfit, sizeof(*fit), cmp_cand_desc);
	for (size_t i = 0; i < nfit && n < max; i++)
		if (python_ok(ip, fit[i]))
			out[n++] = fit[i];
	free(fit);
	return n;
}

/* the releases of pk below d (newest_fits): those a walk down from d tries */
static size_t releases_below(const struct rr_index_provider *ip, const struct want *w,
			     const struct pkg *pk, const struct cand_data *d,
			     const struct rr_candidate **out, size_t max)
{
	for (size_t i = 0; i < pk->n; i++)
		if (pk->cands[i].data == d)
			return newest_fits(ip, w, SIZE_MAX, pk, NULL, &pk->cands[i].version, out,
					   max);
	return 0;
}

/*
 * the likely release d of w's project proved to have unknown dependencies (an sdist
 * whose PKG-INFO cannot be trusted: a build would tell). The resolver then tries the
 * releases below it before it settles for one such (src/resolve/pubgrub.c,
 * PG_UNKNOWN_WALK: up to 8), one METADATA round trip each: ask for those now, while the
 * rest of the crawl runs (FastChat's wavedrom, sdists only, was walked last, 0.2 s)
 */
#define CRAWL_UNKNOWN_AHEAD 8
static void crawl_unknown_next(struct rr_index_provider *ip, struct want *w,
			       const struct cand_data *d)
{
	struct pkg *pk = find_pkg(ip, w->key);
	const struct rr_candidate *next[CRAWL_UNKNOWN_AHEAD];
	size_t n;

	if (!pk || !d->unknown)
		return;
	n = releases_below(ip, w, pk, d, next, CRAWL_UNKNOWN_AHEAD);
	for (size_t i = 0; i < n; i++) {
		const struct cand_data *o = next[i]->data;
		if (o && o->file && !o->dist && !o->meta_loaded)
			rr_index_want_metadata(ip->client, o->file, PRIO_META);
	}
}

/* the installed version of key, when the venv has one that is usable */
static const struct rr_dist *installed(const struct rr_index_provider *ip, const char *key)
{
	const struct rr_dist *dist = rr_venv_lookup(ip->venv, key);

	return dist && !dist->problem && dist->version_ok ? dist : NULL;
}

/*
 * does the input as written keep the installed version v of o's project? Not where
 * the likely release of a project the resolver met before o's excludes it: decided
 * first, that one moves o's project on (nanochat's pydantic needs typing-extensions
 * 4.16, above the image's 4.15.0, and is met first)
 */
static bool installed_kept(const struct rr_index_provider *ip, const struct want *o,
			   const struct rr_version *v)
{
	for (size_t i = 0; i < ip->nwants; i++) {
		const struct want *z = ip->wants[i];
		const struct cand_data *e = z->expanded;
		if (!e || !z->seq || z->seq >= o->seq)
			continue;
		for (size_t k = 0; k < e->ndeps; k++)
			if (strcmp(e->deps[k].req.key, o->key) == 0 &&
			    !rr_specset_contains(&e->deps[k].req.spec, v, RR_PRE_POLICY_ALLOW) &&
			    follows(ip, z, &e->deps[k]))
				return false;
	}
	return true;
}

/*
 * Where a resolution will not take the likely release d of w's project, it walks
 * down the releases below, one METADATA round trip per window, and the crawl can
 * walk ahead of it. A line of d rules d out when it excludes
 *   - the installed build of a project the plan holds: the plan's resolution fixes
 *     it (xformers' newest release pins another torch);
 *   - every release the input's own lines allow of the project it names (sphinx
 *     9.1 needs docutils>=0.21, DeepSpeed's dev file says docutils<0.18);
 * in both cases for certain: that resolution needs the METADATA of each release it
 * passes. Or, likely, where the resolver met the project it names before w's (it
 * decides projects in the order it met them, roots as written, then dependencies as
 * found, and the input as written meets them in about the order the plan's
 * resolution did; one met later is fitted to w's release):
 *   - the release a walk of that project found (sphinx-rtd-theme 3.1 needs a sphinx
 *     the walk down sphinx left behind);
 *   - its installed version, where nothing met before moves it on (installed_kept):
 *     the input as written is resolved after the plan's, and prefers what the venv
 *     has (anyio 4.16.0 needs typing-extensions>=4.16, the image has 4.15.0;
 *     whisperX and Zonos spent 0.15 s on that walk at the end).
 * *certain tells which. Lines on projects the crawl has not met yet say nothing; one
 * the resolver has not met yet sets w->walk_wait (p_candidates looks again).
 */
static bool walk_blocks(struct rr_index_provider *ip, struct want *w, const struct cand_data *d,
			bool *certain)
{
	bool blocks = false;

	/* for certain is for good: a walk looks at each release again as others come */
	*certain = d->ruled_out;
	w->walk_wait = false;
	if (d->ruled_out)
		return true;
	for (size_t i = 0; i < d->ndeps && !*certain; i++) {
		const struct rr_requirement *r = &d->deps[i].req;
		const struct want *o = r->spec.n ? find_want(ip, r->key, false) : NULL;
		const struct rr_dist *dist = o ? installed(ip, r->key) : NULL;
		const struct pkg *pk = o && o->nroot ? find_pkg(ip, r->key) : NULL;
		bool held = o && ip->held && ip->held(ip->held_ctx, r->key);
		bool any = false;

		if (!o || !follows(ip, w, &d->deps[i]))
			continue;
		if (held && dist &&
		    !rr_specset_contains(&r->spec, &dist->version, RR_PRE_POLICY_ALLOW)) {
			blocks = *certain = true;
			break;
		}
		for (size_t k = 0; pk && k < pk->n && !any; k++) {
			const struct rr_version *v = &pk->cands[k].version;
			any = rr_specset_contains(&r->spec, v, RR_PRE_POLICY_ALLOW);
			for (size_t j = 0; j < o->nroot && any; j++)
				any = rr_specset_contains(&o->specs[j], v, RR_PRE_POLICY_ALLOW);
		}
		if (pk && !any) {
			blocks = *certain = true;
			break;
		}
		/* the resolver meets projects one at a time: one it has not met yet comes
		 * after w's where it met w's already */
		if (held || (w->seq && (!o->seq || o->seq > w->seq)))
			continue;
		if (!o->seq && (o->walk_pick || dist)) {
			w->walk_wait = true;
			continue;
		}
		if (o->walk_pick)
			blocks |= !rr_specset_contains(&r->spec, &o->walk_pick->version,
						       RR_PRE_POLICY_ALLOW);
		else if (dist)
			blocks |= !rr_specset_contains(&r->spec, &dist->version,
						       RR_PRE_POLICY_ALLOW) &&
				  installed_kept(ip, o, &dist->version);
	}
	if (*certain)
		((struct cand_data *)d)->ruled_out = true;
	return blocks;
}

/*
 * a release a walk found needs a release of o's project that spec allows: the newest,
 * with every specifier seen for o; where those exclude each other, with the input's
 * own only, as the others may come from releases the walk left behind (TTS: pydantic
 * 2.14.4 pins pydantic-core 2.50.5, the walk's pick 2.13.5 pins 2.46.5)
 */
static void follow_need(struct rr_index_provider *ip, const struct want *o, const struct pkg *pk,
			const struct rr_specset *spec)
{
	const struct rr_candidate *c;
	const struct cand_data *od = newest_fits(ip, o, SIZE_MAX, pk, spec, NULL, &c, 1) ||
					     newest_fits(ip, o, o->nroot, pk, spec, NULL, &c, 1)
					 ? c->data
					 : NULL;

	if (od && od->file && !od->dist && !od->meta_loaded)
		rr_index_want_metadata(ip->client, od->file, PRIO_META);
}

/*
 * e is the release a walk down w's project found: what it needs that the crawl did
 * not ask for. A line the installed version satisfies needs nothing (that version's
 * METADATA is on disk); another needs the release follow_need names, at once or
 * when the project's page lands
 */
static void walk_follow(struct rr_index_provider *ip, struct want *w, const struct cand_data *e)
{
	for (size_t i = 0; i < e->ndeps; i++) {
		const struct rr_requirement *r = &e->deps[i].req;
		const struct rr_dist *dist = installed(ip, r->key);
		struct want *o = find_want(ip, r->key, false);
		struct pkg *pk = find_pkg(ip, r->key);

		if (!follows(ip, w, &e->deps[i]) ||
		    (dist && rr_specset_contains(&r->spec, &dist->version, RR_PRE_POLICY_ALLOW)))
			continue;
		if (!o || !o->asked) {
			/* met here first: what this line allows is all the crawl knows of it */
			if (!o)
				want_add(ip, r);
			crawl_add(ip, r->key);
			continue;
		}
		if (pk)
			follow_need(ip, o, pk, &r->spec);
		else
			RR_PUSH(o->follow, o->nfollow, o->cap_follow) = &r->spec;
	}
}

/* does a line of d name key? */
static bool release_names(const struct cand_data *d, const char *key)
{
	for (size_t k = 0; k < d->ndeps; k++)
		if (d->deps[k].req.key && strcmp(d->deps[k].req.key, key) == 0)
			return true;
	return false;
}

/* walks not started when their likely release's lines came in, looked at again now
 * that more is known: every other project's (whose release names key, when given) */
static void walks_again(struct rr_index_provider *ip, const struct want *except, const char *key)
{
	for (size_t i = 0; i < ip->nwants; i++) {
		struct want *o = ip->wants[i];
		if (o != except && !o->walk_from && o->expanded &&
		    (!key || release_names(o->expanded, key)))
			walk_start(ip, o, o->expanded);
	}
}

/*
 * the crawl's walk down w's project (walk_start): the releases below, in windows
 * of 8, 16, 32 wheels, until one that walk_blocks does not rule out; then
 * what that one needs (walk_follow), and the walks its pick may start elsewhere. An
 * sdist, unknown dependencies or a failure leave the rest to the resolver.
 */
#define WALK_LIKELY_MAX  24
#define WALK_CERTAIN_MAX 64
static void crawl_walk(struct rr_index_provider *ip, struct want *w)
{
	const struct rr_candidate *const *next = w->walk_next;
	size_t n = w->walk_n;

	if (!w->walk_from || w->walk_done || w->walk_busy)
		return;
	w->walk_busy = true;
	w->walk_done = true;
	for (size_t i = 0; i < n; i++) {
		struct cand_data *o = (struct cand_data *)next[i]->data;
		rr_error err = RR_ERROR_INIT;
		bool certain;

		if (!o->file || (!o->dist && !o->file->is_wheel))
			break;
		if (!o->meta_loaded && !o->dist && !rr_index_metadata_known(ip->client, o->file)) {
			/* windows of 8, 16, 32, ... as the resolver's own walk grows them: a
			 * walk that fits soon after its first window costs no more */
			size_t upto = WALK_WINDOW_FIRST;
			while (upto <= i)
				upto = 2 * upto + WALK_WINDOW_FIRST;
			for (size_t k = i; k < upto && k < n; k++) {
				const struct cand_data *q = next[k]->data;
				if (q->file && q->file->is_wheel && !q->dist && !q->meta_loaded)
					rr_index_want_metadata(ip->client, q->file, PRIO_META);
			}
			/* a cached one is in at once: look again */
			if (!rr_index_metadata_known(ip->client, o->file)) {
				w->walk_done = false;
				w->walk_at = o->file;
				break;
			}
		}
		if (load_meta(ip, o->key, o, o->vtext, &err) != RR_OK || o->unknown) {
			rr_error_release(&err);
			break;
		}
		if (!walk_blocks(ip, w, o, &certain)) {
			w->walk_pick = next[i];
			walk_follow(ip, w, o);
			/* a walk that waited for this pick starts now */
			walks_again(ip, w, NULL);
			break;
		}
	}
	w->walk_busy = false;
}

/* d is the likely release of w's project, its lines known: does a resolution walk
 * down from it? (crawl_walk) */
static void walk_start(struct rr_index_provider *ip, struct want *w, const struct cand_data *d)
{
	struct pkg *pk = find_pkg(ip, w->key);
	bool certain;
	size_t max;

	if (!pk || w->walk_from || (ip->held && ip->held(ip->held_ctx, w->key)) ||
	    !walk_blocks(ip, w, d, &certain))
		return;
	max = certain ? WALK_CERTAIN_MAX : WALK_LIKELY_MAX;
	w->walk_from = d;
	w->walk_next = rr_xmalloc(max * sizeof(*w->walk_next));
	w->walk_n = releases_below(ip, w, pk, d, w->walk_next, max);
	crawl_walk(ip, w);
}

/*
 * w's project has an installed version: the input as written likely keeps it (even
 * where a line the plan's crawl followed excludes it: that resolution may take the
 * installed one first), and then needs the pages of what it requires
 * (python-dateutil 2.9.0.post0 requires six, which no newer release does). Its
 * METADATA is on disk: the pages are asked for now, not when that resolution meets them
 */
static void crawl_installed(struct rr_index_provider *ip, struct want *w, struct pkg *pk)
{
	rr_error err = RR_ERROR_INIT;

	if (w->installed_seen || !installed(ip, w->key))
		return;
	w->installed_seen = true;
	for (size_t i = 0; i < pk->n; i++) {
		struct cand_data *d = (struct cand_data *)pk->cands[i].data;
		if (!pk->cands[i].installed)
			continue;
		if (load_meta(ip, d->key, d, d->vtext, &err) != RR_OK) {
			rr_error_release(&err);
			return;
		}
		for (size_t k = 0; k < d->ndeps; k++) {
			const struct want *o = find_want(ip, d->deps[k].req.key, false);
			if (follows(ip, w, &d->deps[k]) && (!o || !o->asked))
				crawl_add(ip, d->deps[k].req.key);
		}
	}
}

/* d, w's likely release, has its metadata in: follow its lines, and where its
 * dependencies are unknown, ask for the releases below (a failure surfaces again,
 * with its message, when the resolver asks) */
static void crawl_follow(struct rr_index_provider *ip, struct want *w, struct cand_data *d)
{
	rr_error err = RR_ERROR_INIT;

	if (load_meta(ip, d->key, d, d->vtext, &err) == RR_OK) {
		crawl_expand(ip, w, d);
		crawl_unknown_next(ip, w, d);
	}
	rr_error_release(&err);
}

/* w's page is in: ask for the metadata of the release the resolver will likely
 * pick (again when the specifiers seen changed that pick), or follow it at once
 * when its requirements are known already. A project the plan holds is followed
 * only once a line excludes its installed build: the input as written is resolved
 * too, and there an installer replaces it with a release of the index (a torch
 * whose dozen CUDA projects are then fetched here, not one by one at the end) */
static void crawl_pick(struct rr_index_provider *ip, struct want *w)
{
	struct pkg *pk = find_pkg(ip, w->key);
	const struct rr_candidate *c = pk && !held_stays(ip, w) ? likely_candidate(ip, pk) : NULL;
	struct cand_data *d = c ? (struct cand_data *)c->data : NULL;

	if (pk) {
		crawl_installed(ip, w, pk);
		for (size_t i = 0; i < w->nfollow; i++)
			follow_need(ip, w, pk, w->follow[i]);
		w->nfollow = 0;
	}
	if (!d || d == w->meta_for)
		return;
	w->meta_for = d;
	if (d->meta_loaded || d->dist || !d->file ||
	    rr_index_metadata_known(ip->client, d->file)) {
		crawl_follow(ip, w, d);
		return;
	}
	rr_index_want_metadata(ip->client, d->file, PRIO_META);
}

/* the client's hook: a page the crawl asked for is in (or known missing or failed:
 * the failure surfaces again, with its message, when the resolver asks) */
static void hook_project(void *ctx, const char *key)
{
	struct rr_index_provider *ip = ctx;
	struct want *w = find_want(ip, key, false);
	struct pkg *pk = NULL;
	rr_error err = RR_ERROR_INIT;

	if (!w || !w->asked)
		return;
	if (!find_pkg(ip, key) && load_pkg(ip, key, &pk, &err)) {
		rr_error_release(&err);
		return;
	}
	crawl_pick(ip, w);
	/* a project the input's own lines name: its releases decide, for certain, walks
	 * from likely releases whose lines on it came in before its page did
	 * (walk_blocks said nothing of them then) */
	if (w->nroot)
		walks_again(ip, w, key);
}

/* the client's hook: metadata is in; the crawl follows the release it was for */
static void hook_metadata(void *ctx, const struct rr_index_file *f)
{
	struct rr_index_provider *ip = ctx;

	for (size_t i = 0; i < ip->nwants; i++) {
		struct want *w = ip->wants[i];
		struct cand_data *d = w->meta_for;
		if (!d || !d->file || (d->file != f && strcmp(d->file->url, f->url) != 0))
			continue;
		crawl_follow(ip, w, d);
	}
	/* a walk moves on when the release it waits for is in */
	for (size_t i = 0; i < ip->nwants; i++) {
		struct want *w = ip->wants[i];
		if (w->walk_from && !w->walk_done && w->walk_at &&
		    (w->walk_at == f || strcmp(w->walk_at->url, f->url) == 0))
			crawl_walk(ip, w);
	}
}

/* the resolver will ask for these soon (the lines of a release it took) */
static void p_prefetch(void *ctx, const char *const *keys, size_t n)
{
	struct rr_index_provider *ip = ctx;

	for (size_t i = 0; i < n; i++)
		crawl_add(ip, keys[i]);
}

/* pages wanted beside the crawl (the protected stack's, for the resolution of the input
 * as written): asked for at once, after the crawl's when requests must wait */
void rr_index_provider_pages(struct rr_index_provider *ip, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rr_index_want_project(ip->client, keys[i], PRIO_PAGE - 1);
}

void rr_index_provider_prefetch_roots(struct rr_index_provider *ip,
				      const struct rr_requirement *const *reqs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rr_requirement *r = reqs[i];
		bool holds = true;
		if (!r || !r->key || r->url)
			continue;
		if (r->marker && (rr_marker_eval(r->marker, &ip->env, &holds, NULL) || !holds))
			continue;
		want_add(ip, r);
	}
	for (size_t i = 0; i < ip->nwants; i++)
		ip->wants[i]->nroot = ip->wants[i]->nspecs;
	for (size_t i = 0; i < n; i++) {
		const struct rr_requirement *r = reqs[i];
		struct want *w = r && r->key ? find_want(ip, r->key, false) : NULL;
		if (w)
			crawl_add(ip, w->key);
	}
}

/*
 * the resolver met a project and names the release it would most likely pick
 * (the newest); the specifiers the crawl has seen for the project narrow that
 * down: asking for the newest transformers while every line says <=5.8.0 cost
 * a metadata fetch nobody used
 */
static void p_prefetch_deps(void *ctx, const char *key, const struct rr_candidate *const *cs,
			    size_t n)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = find_pkg(ip, key);
	const struct rr_candidate *likely = pk ? likely_candidate(ip, pk) : NULL;
	const struct cand_data *d = likely ? likely->data : NULL;

	(void)cs;
	(void)n;
	if (d && d->file && !d->dist && !d->meta_loaded)
		rr_index_want_metadata(ip->client, d->file, PRIO_META);
}

static void p_will_need(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	struct rr_index_provider *ip = ctx;

	(void)key;
	for (size_t i = 0; i < n; i++) {
		const struct cand_data *d = cs[i]->data;
		if (d && d->file && !d->dist && !d->meta_loaded)
			rr_index_want_metadata(ip->client, d->file, PRIO_META);
	}
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
		struct rr_index_hooks h = {ip, hook_project, hook_metadata};
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
	ret->prefetch = p_prefetch;
	ret->prefetch_deps = p_prefetch_deps;
	ret->will_need = p_will_need;
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
