/*
 * crawl.c - the crawl that runs ahead of the resolver over the index provider
 * (index-provider.c): a project's page the moment a line names it, the likely
 * release's metadata the moment its page is in, the pages of what that release
 * requires, and walks down a project's releases before the resolver gets there.
 * It moves on in the client's hooks; nothing waits for anything else. Its state lives
 * in the provider (provider-private.h).
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

static bool in_list(const char *const *v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], key) == 0)
			return true;
	return false;
}

struct want *rr_crawl_find_want(struct rr_index_provider *ip, const char *key, bool create)
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
	struct want *w = rr_crawl_find_want(ip, r->key, true);
	int grew = 0;

	if (r->spec.n) {
		RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
		rr_specset_format(&r->spec, &text);
		if (!in_list((const char *const *)w->spec_texts, w->nspecs, text.buf)) {
			struct rr_specset *ss = &RR_PUSH(w->specs, w->nspecs, w->cap_specs);
			memset(ss, 0, sizeof(*ss));
			rr_specset_copy(ss, &r->spec);
			w->nspecs--;
			RR_PUSH(w->spec_texts, w->nspecs, w->cap_texts) = rr_strbuf_detach(&text,
											   NULL);
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
	const struct want *w = rr_crawl_find_want(ip, pk->key, false);
	const struct rr_candidate *c = likely_among(ip, pk, w, SIZE_MAX);

	return c || !w || w->nspecs == w->nroot ? c : likely_among(ip, pk, w, w->nroot);
}

static void crawl_pick(struct rr_index_provider *ip, struct want *w);
void rr_crawl_hook_project(void *ctx, const char *key);

/* the crawl asks for key's page (once) */
static void crawl_add(struct rr_index_provider *ip, const char *key)
{
	struct want *w = rr_crawl_find_want(ip, key, true);

	if (w->asked)
		return;
	w->asked = true;
	if (rr_ip_find_pkg(ip, key) || rr_index_project_known(ip->client, key)) {
		rr_crawl_hook_project(ip, key); /* in already: no hook will come */
	} else {
		rr_index_want_project(ip->client, key, PRIO_PAGE);
		/* and the pages of what it likely requires, before its METADATA says so (a
		 * held project's: what its installed build requires) */
		rr_predict_from(ip, key);
	}
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
		o = rr_crawl_find_want(ip, r->key, false);
		if (!o->asked) {
			crawl_add(ip, r->key);
		} else if (rr_ip_find_pkg(ip, r->key)) {
			if (grew & WANT_SPEC)
				crawl_pick(ip, o);
			if ((grew & WANT_EXTRA) && o->expanded)
				crawl_expand(ip, o, o->expanded);
		}
	}
	rr_crawl_walk_start(ip, w, d);
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
	struct pkg *pk = rr_ip_find_pkg(ip, w->key);
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
		const struct want *o = r->spec.n ? rr_crawl_find_want(ip, r->key, false) : NULL;
		const struct rr_dist *dist = o ? installed(ip, r->key) : NULL;
		const struct pkg *pk = o && o->nroot ? rr_ip_find_pkg(ip, r->key) : NULL;
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
		struct want *o = rr_crawl_find_want(ip, r->key, false);
		struct pkg *pk = rr_ip_find_pkg(ip, r->key);

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
			rr_crawl_walk_start(ip, o, o->expanded);
	}
}

/*
 * the crawl's walk down w's project (rr_crawl_walk_start): the releases below, in windows
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
		if (rr_ip_load_meta(ip, o->key, o, o->vtext, &err) != RR_OK || o->unknown) {
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
void rr_crawl_walk_start(struct rr_index_provider *ip, struct want *w, const struct cand_data *d)
{
	struct pkg *pk = rr_ip_find_pkg(ip, w->key);
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
		if (rr_ip_load_meta(ip, d->key, d, d->vtext, &err) != RR_OK) {
			rr_error_release(&err);
			return;
		}
		for (size_t k = 0; k < d->ndeps; k++) {
			const struct want *o = rr_crawl_find_want(ip, d->deps[k].req.key, false);
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

	if (rr_ip_load_meta(ip, d->key, d, d->vtext, &err) == RR_OK) {
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
	struct pkg *pk = rr_ip_find_pkg(ip, w->key);
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
	if (d->meta_loaded || d->dist || !d->file || rr_index_metadata_known(ip->client, d->file)) {
		crawl_follow(ip, w, d);
		return;
	}
	rr_index_want_metadata(ip->client, d->file, PRIO_META);
}

/* the client's hook: a page the crawl asked for is in (or known missing or failed:
 * the failure surfaces again, with its message, when the resolver asks) */
void rr_crawl_hook_project(void *ctx, const char *key)
{
	struct rr_index_provider *ip = ctx;
	struct want *w = rr_crawl_find_want(ip, key, false);
	struct pkg *pk = NULL;
	rr_error err = RR_ERROR_INIT;

	if (!w || !w->asked)
		return;
	if (!rr_ip_find_pkg(ip, key) && rr_ip_load_pkg(ip, key, &pk, &err)) {
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
void rr_crawl_hook_metadata(void *ctx, const struct rr_index_file *f)
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
void rr_crawl_prefetch(void *ctx, const char *const *keys, size_t n)
{
	struct rr_index_provider *ip = ctx;

	for (size_t i = 0; i < n; i++)
		crawl_add(ip, keys[i]);
}

/* pages wanted beside the crawl (the protected stack's, for the resolution of the input
 * as written, which asks for one where a line names it): asked for at once, after the
 * crawl's when requests must wait. Where edges can tell whether a line will name it,
 * only then: the prediction guesses one the roots likely reach, the crawl asks for one a
 * line names (a small file that names no torch fetched ~1 MB of the stack's pages for
 * nothing, more bytes than uv's whole run) */
void rr_index_provider_pages(struct rr_index_provider *ip, const char *const *keys, size_t n)
{
	if (rr_predict_active(ip))
		return;
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
		struct want *w = r && r->key ? rr_crawl_find_want(ip, r->key, false) : NULL;
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
void rr_crawl_prefetch_deps(void *ctx, const char *key, const struct rr_candidate *const *cs,
			    size_t n)
{
	struct rr_index_provider *ip = ctx;
	struct pkg *pk = rr_ip_find_pkg(ip, key);
	const struct rr_candidate *likely = pk ? likely_candidate(ip, pk) : NULL;
	const struct cand_data *d = likely ? likely->data : NULL;

	(void)cs;
	(void)n;
	if (d && d->file && !d->dist && !d->meta_loaded)
		rr_index_want_metadata(ip->client, d->file, PRIO_META);
}

void rr_crawl_will_need(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	struct rr_index_provider *ip = ctx;

	(void)key;
	for (size_t i = 0; i < n; i++) {
		const struct cand_data *d = cs[i]->data;
		if (d && d->file && !d->dist && !d->meta_loaded)
			rr_index_want_metadata(ip->client, d->file, PRIO_META);
	}
}
