/*
 * predict.c - the pages a resolution will likely need, asked for before anything names
 * them. Without it a project's page waits for the METADATA of a release that requires
 * it, and that METADATA for its own project's page: a chain of round trips (a page is
 * 60-200 ms on the mirrors measured, a range 2-25 ms). Dependency edges known in advance
 * cut the chain: those of widely used projects on PyPI, shipped with the program
 * (data/edges.txt, built by tools/build-edges.py from what runs learned), and those this
 * machine's earlier runs learned (a note in the cache, written as the provider is freed).
 * When the crawl asks for a project's page, the pages of what the project likely
 * requires, and of what those require, are asked for too (rr_index_guess_project), below
 * everything else and within a byte budget. A guess changes no answer: the crawl and the
 * resolver ask for what they need as before, and a page guessed is only in sooner; a
 * wrong guess costs its bytes (rr_index_stats counts both).
 *
 * An edge file is text, one project a line, "name kib [@need,cd,head] dep dep ...": the
 * project's normalised name, its page's size in KiB (0: unknown), where its wheels keep
 * METADATA (rr_index_tail_hint: the first wheel of it a run reads then needs one range,
 * fewer ranges) and the normalised names its newest release requires on Linux
 * x86_64 CPython, no extra asked; '#' starts a comment line. The shipped file is sorted by name (looked up by binary search, nothing parsed
 * at start); the learned note is read into a map.
 */
#include <stdlib.h>
#include <string.h>

#include "index/edges-data.h"
#include "index/index-private.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/index-provider.h"
#include "index/provider-private.h"

#define NOTE_NAME    "learned-edges-v1"
#define NOTE_HEAD    "# rocm-resolve: dependency edges learned on this machine (issue 32)\n"
#define UNKNOWN_PAGE (64u << 10) /* what a page of unknown size counts against the budget */
#define LEARNED_MAX  4096        /* projects the note keeps */

const char *rr_predict_find(const char *t, size_t n, const char *name, size_t *restlen)
{
	size_t lo = 0, hi = n, klen = strlen(name);

	/* the comments first */
	while (lo < n && t[lo] == '#') {
		const char *nl = memchr(t + lo, '\n', n - lo);
		lo = nl ? (size_t)(nl - t) + 1 : n;
	}
	while (lo < hi) {
		size_t ls = lo + (hi - lo) / 2, le, ne;
		const char *nl;
		int c;
		while (ls > lo && t[ls - 1] != '\n')
			ls--;
		nl = memchr(t + ls, '\n', n - ls);
		le = nl ? (size_t)(nl - t) : n;
		for (ne = ls; ne < le && t[ne] != ' '; ne++)
			;
		c = memcmp(t + ls, name, ne - ls < klen ? ne - ls : klen);
		if (c == 0)
			c = ne - ls < klen ? -1 : ne - ls > klen;
		if (c == 0) {
			*restlen = le - ne;
			return t + ne;
		}
		if (c < 0)
			lo = le + 1;
		else
			hi = ls;
	}
	return NULL;
}

void rr_predict_parse(struct predict *pr, const char *t, size_t n)
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t le = nl ? (size_t)(nl - t) : n, ne = i;
		while (ne < le && t[ne] != ' ')
			ne++;
		if (t[i] != '#' && ne > i && ne < le) {
			RR_AUTOFREE char *name = rr_xstrndup(t + i, ne - i);
			void **slot = rr_strmap_find(&pr->learned, name, true);
			if (!*slot)
				*slot = rr_xstrndup(t + ne, le - ne);
		}
		i = le + 1;
	}
}

static void predict_load(struct rr_index_provider *ip)
{
	struct predict *pr = &ip->predict;
	RR_AUTO_STRBUF struct rr_strbuf note = RR_STRBUF_INIT;

	if (pr->ready || pr->budget < 0)
		return;
	pr->ready = true;
	if (!pr->budget)
		pr->budget = RR_PREDICT_BUDGET;
	if (!pr->shipped && rr_index_client_pypi(ip->client)) {
		pr->shipped = (const char *)rr_edges_txt;
		pr->shipped_len = rr_edges_txt_len;
	}
	if (rr_index_note_load(ip->client, NOTE_NAME, &note, NULL) == RR_OK && note.len) {
		rr_predict_parse(pr, note.buf, note.len);
		pr->note = rr_strbuf_detach(&note, &pr->note_len);
	}
}

/* what is known of name's edges: the rest of its line ("kib dep ..."), learned first */
static const char *edges_of(struct predict *pr, const char *name, size_t *len)
{
	void **slot = rr_strmap_find(&pr->learned, name, false);

	if (slot && *slot) {
		*len = strlen(*slot);
		return *slot;
	}
	return pr->shipped ? rr_predict_find(pr->shipped, pr->shipped_len, name, len) : NULL;
}

/* the next space-separated word of s[*i..n), NULL at the end */
static const char *word(const char *s, size_t n, size_t *i, size_t *wlen)
{
	size_t a = *i, b;

	while (a < n && s[a] == ' ')
		a++;
	for (b = a; b < n && s[b] != ' '; b++)
		;
	*i = b;
	*wlen = b - a;
	return b > a ? s + a : NULL;
}

/* the page size an edge line gives, in bytes (UNKNOWN_PAGE when it gives none) */
static unsigned long long page_size(const char *rest, size_t n)
{
	size_t i = 0, wl;
	const char *w = word(rest, n, &i, &wl);
	unsigned long long kib = 0;

	for (size_t k = 0; w && k < wl && w[k] >= '0' && w[k] <= '9' && kib < (1ull << 40); k++)
		kib = kib * 10 + (unsigned)(w[k] - '0');
	return kib ? kib << 10 : UNKNOWN_PAGE;
}

static bool plain_follows(const struct rr_index_provider *ip, const struct rr_dependency *dep);

/* the names key likely requires, pushed onto *out: a project the plan holds by what its
 * installed build requires (its METADATA is on disk: what the input as written keeps,
 * where the crawl asks for those pages as torch's comes in), any other by its edges */
static void deps_of(struct rr_index_provider *ip, const char *key, char ***out, size_t *n,
		    size_t *cap)
{
	size_t len, i = 0, wl;
	const char *rest, *w;

	if (ip->held && ip->held(ip->held_ctx, key)) {
		const struct rr_dist *dist = rr_venv_lookup(ip->venv, key);
		struct rr_dependency *d;
		size_t nd;
		if (!dist || dist->problem)
			return;
		nd = dist->meta.nrequires_dist;
		d = rr_dependencies_parse((const char *const *)dist->meta.requires_dist, nd);
		for (size_t k = 0; k < nd; k++)
			if (plain_follows(ip, &d[k]))
				RR_PUSH(*out, *n, *cap) = rr_xstrdup(d[k].req.key);
		rr_dependencies_free(d, nd);
		return;
	}
	if (!(rest = edges_of(&ip->predict, key, &len)))
		return;
	(void)word(rest, len, &i, &wl); /* the page size */
	while ((w = word(rest, len, &i, &wl)))
		if (*w != '@')
			RR_PUSH(*out, *n, *cap) = rr_xstrndup(w, wl);
}

/* where key's wheels keep METADATA ("@need,cd,head" on its line: rr_index_tail_hint),
 * told to the client before its first wheel is read: the first range then brings it, or
 * where it lies (numpy 2.5.5: a 32 KiB tail, a 156 KiB one, the member; now 83 KiB and
 * the member) */
static void seed_hint(struct rr_index_provider *ip, const char *key)
{
	size_t len, i = 0, wl;
	const char *rest = edges_of(&ip->predict, key, &len), *w;

	if (!rest)
		return;
	(void)word(rest, len, &i, &wl);
	while ((w = word(rest, len, &i, &wl))) {
		unsigned long long v[3] = {0, 0, 0};
		size_t k = 1;
		if (*w != '@')
			continue;
		for (int f = 0; f < 3; f++, k++)
			for (; k < wl && w[k] >= '0' && w[k] <= '9' && v[f] < (1ull << 40); k++)
				v[f] = v[f] * 10 + (unsigned)(w[k] - '0');
		rr_index_tail_hint_seed(ip->client, key, v);
		return;
	}
}

void rr_predict_from(struct rr_index_provider *ip, const char *key)
{
	struct predict *pr = &ip->predict;
	char **queue = NULL, **deps = NULL;
	size_t nq = 0, cap = 0, nd = 0, dcap = 0;

	if (pr->budget < 0)
		return;
	predict_load(ip);
	{
		void **slot = rr_strmap_find(&pr->seen, key, true);
		if (*slot)
			return; /* guessed already, with what it requires */
		*slot = (void *)1;
	}
	RR_PUSH(queue, nq, cap) = rr_xstrdup(key);
	for (size_t q = 0; q < nq; q++) {
		nd = 0;
		if (!ip->held || !ip->held(ip->held_ctx, queue[q]))
			seed_hint(ip, queue[q]);
		deps_of(ip, queue[q], &deps, &nd, &dcap);
		for (size_t k = 0; k < nd; k++) {
			void **slot = rr_strmap_find(&pr->seen, deps[k], true);
			const char *drest;
			size_t dlen;
			unsigned long long size;
			if (*slot) {
				free(deps[k]);
				continue;
			}
			*slot = (void *)1;
			drest = edges_of(pr, deps[k], &dlen);
			size = drest ? page_size(drest, dlen) : UNKNOWN_PAGE;
			if ((long long)size > pr->budget) {
				free(deps[k]);
				continue;
			}
			pr->budget -= (long long)size;
			rr_index_guess_project(ip->client, deps[k]);
			RR_PUSH(queue, nq, cap) = deps[k];
		}
	}
	for (size_t q = 0; q < nq; q++)
		free(queue[q]);
	free(queue);
	free(deps);
}

bool rr_predict_active(struct rr_index_provider *ip)
{
	predict_load(ip);
	return ip->predict.budget >= 0 && (ip->predict.shipped || ip->predict.learned.n);
}

void rr_index_provider_edges(struct rr_index_provider *ip, const char *edges, long long budget)
{
	ip->predict.shipped = edges;
	ip->predict.shipped_len = edges ? strlen(edges) : 0;
	ip->predict.budget = budget;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a line of release d of w's project: does it hold here with no extra asked? */
static bool plain_follows(const struct rr_index_provider *ip, const struct rr_dependency *dep)
{
	static const char *const none[] = {""};
	bool holds = true;

	if (dep->rc || dep->req.url || !dep->req.key)
		return false;
	if (!dep->req.marker)
		return true;
	return rr_requirement_applies(&dep->req, &ip->env, none, 1, &holds, NULL) == RR_OK && holds;
}

/*
 * what this run learned, for the next: the lines of each project's likely release the
 * crawl followed (the newest a line allows, as a guess will want it), and its page's
 * size; then what the note held of the projects this run did not meet. The note is
 * written only when it changes (a warm run writes nothing)
 */
void rr_predict_learn(struct rr_index_provider *ip)
{
	struct predict *pr = &ip->predict;
	char **lines = NULL;
	size_t n = 0, cap = 0;
	struct rr_strmap mine = {0};
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;

	if (pr->budget < 0 || !pr->ready)
		return;
	for (size_t i = 0; i < ip->nwants && n < LEARNED_MAX; i++) {
		const struct want *w = ip->wants[i];
		const struct cand_data *d = w->expanded;
		struct rr_strbuf line = RR_STRBUF_INIT;
		unsigned long long bytes = rr_index_project_bytes(ip->client, w->key), hint[3];
		size_t len;
		const char *rest;
		if (!d || (ip->held && ip->held(ip->held_ctx, w->key)))
			continue;
		if (!bytes && (rest = edges_of(pr, w->key, &len)) &&
		    page_size(rest, len) != UNKNOWN_PAGE)
			bytes = page_size(rest, len);
		rr_strbuf_addf(&line, "%s %llu", w->key, (bytes + 1023) >> 10);
		/* what its wheels taught, or the hint it was given (seed_hint) */
		if (rr_index_tail_hint(ip->client, w->key, hint))
			rr_strbuf_addf(&line, " @%llu,%llu,%llu", hint[0], hint[1], hint[2]);
		for (size_t k = 0; k < d->ndeps; k++) {
			bool dup = false;
			if (!plain_follows(ip, &d->deps[k]))
				continue;
			for (size_t j = 0; j < k && !dup; j++)
				dup = d->deps[j].req.key && plain_follows(ip, &d->deps[j]) &&
				      strcmp(d->deps[j].req.key, d->deps[k].req.key) == 0;
			if (!dup)
				rr_strbuf_addf(&line, " %s", d->deps[k].req.key);
		}
		*rr_strmap_find(&mine, w->key, true) = (void *)1;
		RR_PUSH(lines, n, cap) = rr_strbuf_detach(&line, NULL);
	}
	for (size_t i = 0; i < pr->learned.cap && n < LEARNED_MAX; i++) {
		const struct rr_strmap_slot *s = &pr->learned.slots[i];
		if (s->key && s->val && !rr_strmap_find(&mine, s->key, false))
			RR_PUSH(lines, n, cap) = rr_xasprintf("%s%s", s->key, (char *)s->val);
	}
	rr_qsort(lines, n, sizeof(*lines), cmp_str);
	rr_strbuf_adds(&out, NOTE_HEAD);
	for (size_t i = 0; i < n; i++) {
		rr_strbuf_addf(&out, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	rr_strmap_release(&mine, NULL);
	if (n && (out.len != pr->note_len || memcmp(out.buf, pr->note, out.len) != 0))
		rr_index_note_store(ip->client, NOTE_NAME, out.buf, out.len);
}

void rr_predict_release(struct predict *pr)
{
	rr_strmap_release(&pr->learned, free);
	rr_strmap_release(&pr->seen, NULL);
	free(pr->note);
}
