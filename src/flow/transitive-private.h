/*
 * transitive-private.h - the state the resolution step shares with its analyses
 * (src/flow): transitive.c resolves and fills struct rr_resolution; holds.c says why a
 * resolved package is below its newest release (held back for the stack, with the
 * chain); as-written.c resolves the input as uv and pip would and lists what that does
 * to the stack; torch-build.c takes out the lines whose closure an installer would
 * build against PyPI's torch.
 */
#ifndef RR_FLOW_TRANSITIVE_PRIVATE_H
#define RR_FLOW_TRANSITIVE_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/marker.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/resolve.h"

struct rr_strbuf;
struct rr_strmap;
struct rr_protected;

struct incoming {
	const struct rr_specset **v;
	size_t n, cap;
};

struct rel_memo;

struct held {
	const char *key;
	int state;                         /* 0 unknown, 1 visiting, 2 done */
	char *cause;                       /* NULL: not held for the stack */
	const struct rr_candidate *newest; /* the release it is kept from */
	/* newest_allowed_as's answers, pip's reading [0] and uv's [1], once known_as has
	 * bit 1 << uv set: asked up to four times per package */
	const struct rr_candidate *newest_as[2];
	unsigned known_as;
};

struct ctx {
	const struct rr_transitive_input *in;
	const struct rr_provider *prov;
	struct rr_resolution *res;
	struct rr_marker_env env;
	char pybuf[16];
	const struct rr_solution *sol;
	const struct rr_root_requirement *roots;
	size_t nroots;
	const struct rr_root_requirement *cons;
	size_t ncons;
	struct held *held; /* one per solved package, by solution index */
	/* what the solution asks of each solved package, built once: the specifier sets
	 * of every applicable dependency line of every solved release, by solution index */
	struct incoming *in_specs; /* pointing into the provider's parsed lines */
	/* the input as written, resolved as pip (and uv) would: where a release outside
	 * the solution is looked up; NULL when not resolved (yet) */
	const struct rr_solution *aw;
	/* why a release outside the solution breaks the stack, memoised */
	struct rel_memo *memo;
	size_t nmemo, cap_memo;
	/* what each Requires-Python text says of the venv's Python, by text: bit 0 set,
	 * bit 1 admitted, bit 2 its lower bounds admit it (pointed to: a const ctx
	 * fills it in) */
	struct rr_strmap *pymemo;
};

struct rel_memo {
	const char *key; /* borrowed from the provider */
	const struct rr_candidate *cand;
	int state; /* 1 visiting, 2 done */
	char *cause;
};

/* transitive.c: the helpers every analysis uses */
void rr_transitive_warn(struct rr_resolution *res, char *msg);
/* the result for reqset item, made when there is none yet */
struct rr_item_result *rr_transitive_item(struct rr_resolution *res, size_t item);
void rr_transitive_exclude(struct rr_resolution *res, const char *key, const char *needed_by,
			   const struct rr_protected *over);
/* the member of a protected clash group key would overwrite, or NULL */
const struct rr_protected *rr_transitive_clash(const struct ctx *c, const char *key);
/* does dependency line r hold for a release asked for with these extras? */
bool rr_transitive_applies_x(const struct ctx *c, const struct rr_requirement *r,
			     const char *const *ex, size_t nex);
/* the same for solved package s (its extras), or a root (s NULL) */
bool rr_transitive_applies(const struct ctx *c, const struct rr_requirement *r,
			   const struct rr_solved *s);
bool rr_transitive_python_admits(const struct ctx *c, const struct rr_candidate *cand,
				 bool lower_only);
char *rr_transitive_req_text(const struct rr_requirement *r);
void rr_transitive_add_link(struct rr_strbuf *sb, const char *key, const char *version,
			    const char *req);

/* holds.c: the packages the stack holds back (res->pins, item pins), and with
 * allow_excludes the clash-group names the solution needs (res->excludes) */
void rr_holds_add(struct ctx *c, const size_t *root_item);
void rr_holds_clash_needs(struct ctx *c);

/* as-written.c: the input as written, resolved as pip (and uv) would; res->changes,
 * res->conflict; *ret_pip the pip reading's solution (caller frees) */
void rr_as_written(struct ctx *c, const struct rr_resolve_request *base, const size_t *root_item,
		   struct rr_solution **ret_pip);

/* torch-build.c: the root lines whose closure holds a build that needs torch, marked in
 * gone and given their build_why; how many */
size_t rr_torch_builds_drop(struct ctx *c, const struct rr_root_requirement *roots, size_t nroots,
			    const size_t *items, bool *gone);

#endif
