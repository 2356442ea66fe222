/*
 * provider-private.h - the index provider's state, shared by its rooms:
 * index-provider.c (the resolver's view: candidates, their files, dependencies),
 * crawl.c (what runs ahead of the resolver) and predict.c (the pages guessed ahead of
 * the crawl). Not part of the public API.
 */
#ifndef RR_INDEX_PROVIDER_PRIVATE_H
#define RR_INDEX_PROVIDER_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/index-provider.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/provider.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/version.h"

struct cand_data {
	const char *key;                  /* the project (borrowed from struct pkg) */
	const char *vtext;                /* the candidate's version text (borrowed) */
	const struct rr_index_file *file; /* NULL for an installed-only candidate */
	const struct rr_dist *dist;       /* installed dist when this is the installed version */
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
	bool asked;                 /* its page was asked for by the crawl */
	struct cand_data *meta_for; /* the likely release whose metadata the crawl asked for */
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

/* predict.c: the pages guessed ahead of the crawl, and the edges they come from */
struct predict {
	bool ready;          /* the tables below are loaded (at the first guess) */
	const char *shipped; /* sorted edge lines (data/edges.txt, or a test's), borrowed */
	size_t shipped_len;
	struct rr_strmap learned; /* name -> the rest of its line in the cache's note */
	char *note;               /* the note as read */
	size_t note_len;
	struct rr_strmap seen; /* names guessed, or whose guesses were made */
	long long budget;      /* bytes of pages still to guess; negative: no guesses */
};

struct rr_index_provider {
	struct rr_index_client *client;
	struct tag_memo *memo; /* open addressing, a power of two */
	size_t nmemo, cap_memo;
	struct want **wants; /* in the order the crawl met them */
	size_t nwants, cap_wants;
	struct rr_strmap want_of; /* key -> struct want */
	struct rr_version pyver;  /* the venv's python, for Requires-Python; empty: unknown */
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
	struct predict predict;
};

/* the order requests start in when more are waiting than may run (higher first) */
enum { PRIO_PAGE = 1, PRIO_META = 2, PRIO_WAITED = 3 };

/* a walk down a project's releases asks for the metadata of this many next releases
 * at first, doubling on each miss up to the max (see p_upcoming in index-provider.c) */
#define WALK_WINDOW_FIRST 8
#define WALK_WINDOW_MAX   16

/* index-provider.c: a project's page read into its candidates (*ret), once */
struct pkg *rr_ip_find_pkg(struct rr_index_provider *ip, const char *key);
rr_err rr_ip_load_pkg(struct rr_index_provider *ip, const char *key, struct pkg **ret,
		      rr_error *err);
/* the metadata of candidate d of key (version vtext), once */
rr_err rr_ip_load_meta(struct rr_index_provider *ip, const char *key, struct cand_data *d,
		       const char *vtext, rr_error *err);

/* crawl.c: what the resolver (and the crawl) wants of a project, made when create */
struct want *rr_crawl_find_want(struct rr_index_provider *ip, const char *key, bool create);
/* a walk down w's releases, from candidate d the resolver rejected */
void rr_crawl_walk_start(struct rr_index_provider *ip, struct want *w, const struct cand_data *d);
/* the client's hooks: a page is in, a METADATA is in */
void rr_crawl_hook_project(void *ctx, const char *key);
void rr_crawl_hook_metadata(void *ctx, const struct rr_index_file *f);
/* struct rr_provider's prefetch, prefetch_deps and will_need */
void rr_crawl_prefetch(void *ctx, const char *const *keys, size_t n);
void rr_crawl_prefetch_deps(void *ctx, const char *key, const struct rr_candidate *const *cs,
			    size_t n);
void rr_crawl_will_need(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n);

/* predict.c: the pages guessed for key's project, which the crawl asks for now: those
 * of what it likely requires, and so on, within the budget (once per project); what
 * this run learned kept for the next (as the provider is freed); the tables freed */
#define RR_PREDICT_BUDGET (32ll << 20)
void rr_predict_from(struct rr_index_provider *ip, const char *key);
void rr_predict_learn(struct rr_index_provider *ip);
/* are there edges to guess from (shipped for the client's index, or learned)? */
bool rr_predict_active(struct rr_index_provider *ip);
void rr_predict_release(struct predict *pr);
/* the rest of name's line ("kib dep ...") in edge text t[0..n) sorted by name, NULL when
 * absent; edge lines into pr->learned (name -> the rest of its line, the first kept).
 * Exported for the fuzz target */
const char *rr_predict_find(const char *t, size_t n, const char *name, size_t *restlen);
void rr_predict_parse(struct predict *pr, const char *t, size_t n);

#endif
