/*
 * pubgrub-private.h - the PubGrub core of the resolver, free of PEP 440.
 *
 * The core knows packages as small integers, each with a FINITE, ordered list
 * of candidates (index 0 = oldest). A version set of package p is a bitset of
 * ncand + 1 bits: bit i = "candidate i is chosen", bit ncand = "p is not in
 * the solution" (PG_NONE). A positive PubGrub term "p in S" is a set without
 * the none bit, a negative term "not (p in S)" is its complement, none bit
 * included. With that single representation relation, intersection, union
 * and complement are exact word operations and no interval algebra is needed.
 *
 * Lifecycle: s = pg_new(&ops); add packages (pg_pkg_add) and root
 * incompatibilities (pg_add_dependency with pkg = PG_ROOT); pg_solve(); read
 * pg_decision() per package or pg_explain() / pg_culprits(); pg_free(s).
 * During pg_solve the ops->dependencies callback is asked once per candidate
 * the solver is about to choose; it creates packages and adds that
 * candidate's dependency incompatibilities. Strings handed to the core are
 * copied; vtext arrays are borrowed and must outlive the solver.
 */
#ifndef RR_PUBGRUB_PRIVATE_H
#define RR_PUBGRUB_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/strbuf.h"

#define PG_ROOT 0u

/* what an external incompatibility stands for; drives the explanation text */
enum pg_kind {
	PG_K_ROOT,	  /* the root must be selected (never shown) */
	PG_K_DEP,	  /* pkg X depends on a; for pkg = root: origin o requires a */
	PG_K_NOMATCH,	  /* as DEP, but nothing matches: "... depends on a but b" */
	PG_K_CONSTRAINT,  /* pkg X is excluded by constraint a (origin o) */
	PG_K_UNAVAILABLE, /* pkg X cannot be used: b ("requires Python >=3.13") */
	PG_K_DERIVED,	  /* learned from two causes */
};

struct pg_solver;

struct pg_ops {
	void *ctx;
	/* add the dependencies of candidate cand of pkg (not called for root) */
	rr_err (*dependencies)(void *ctx, struct pg_solver *s, uint32_t pkg, uint32_t cand,
			       rr_error *err);
	/* optional; true stops the solve with RR_E_LIMIT */
	bool (*should_cancel)(void *ctx);
	/* optional; true when candidate cand's dependencies turned out unknown (asked
	 * only after dependencies() ran for it): such a candidate is decided only when
	 * every other allowed one is known to be unknown too, or after 8 such ones */
	bool (*deps_unknown)(void *ctx, uint32_t pkg, uint32_t cand);
};

struct pg_solver *pg_new(const struct pg_ops *ops);
/*
 * the candidates of pkg the solver would try after cand, in the order it would
 * try them (the preferred one, then newest first), that the current partial
 * solution allows and whose dependencies it has not asked for yet: at most max,
 * into out; how many. Meant for ops->dependencies (a hint of what comes next
 * should cand fail).
 */
size_t pg_next_allowed(const struct pg_solver *s, uint32_t pkg, uint32_t cand, uint32_t *out,
		       size_t max);
struct pg_solver *pg_free(struct pg_solver *s);

/*
 * register a package; vtext[i] is the display text of candidate i (borrowed);
 * preferred is the candidate to take when allowed (installed), -1 for newest
 */
uint32_t pg_pkg_add(struct pg_solver *s, const char *name, uint32_t ncand,
		    const char *const *vtext, int32_t preferred);
const char *pg_pkg_name(const struct pg_solver *s, uint32_t pkg);
uint32_t pg_pkg_ncand(const struct pg_solver *s, uint32_t pkg);

/* a zeroed version set of pkg, owned by the solver */
uint64_t *pg_set_new(struct pg_solver *s, uint32_t pkg);
static inline void pg_set_add(uint64_t *set, uint32_t i)
{
	set[i / 64] |= UINT64_C(1) << (i % 64);
}
static inline bool pg_set_has(const uint64_t *set, uint32_t i)
{
	return set[i / 64] >> (i % 64) & 1;
}

/*
 * "candidate cand of pkg needs dep in depset" (depset: versions only); a is
 * the requirement text, origin its place ("req.txt:3", for root
 * requirements). An empty depset makes {pkg cand} unusable on its own
 * (PG_K_NOMATCH; nomatch says why, "torch is fixed at 2.9.1"). tag is
 * returned by pg_culprits when the incompatibility takes part in the final
 * failure (root requirements use their index).
 */
void pg_add_dependency(struct pg_solver *s, uint32_t pkg, uint32_t cand, uint32_t dep,
		       const uint64_t *depset, int32_t tag, const char *origin, const char *a,
		       const char *nomatch);
/*
 * "pkg may not take any version in set": PG_K_CONSTRAINT (a = constraint
 * text) or PG_K_UNAVAILABLE (b = why, "requires Python >=3.13")
 */
void pg_add_forbidden(struct pg_solver *s, uint32_t pkg, const uint64_t *set, enum pg_kind kind,
		      int32_t tag, const char *origin, const char *a, const char *b);

/* *ok = false when no solution exists; errors only from callbacks, caps */
rr_err pg_solve(struct pg_solver *s, size_t max_steps, bool *ok, rr_error *err) RR_WUR;
size_t pg_steps(const struct pg_solver *s);

/* chosen candidate after a successful solve, -1 if pkg is not in the solution */
int32_t pg_decision(const struct pg_solver *s, uint32_t pkg);
/*
 * why pkg is in the solution: the dependency that first required it; sets
 * *parent (PG_ROOT for root requirements), *origin and *a (requirement text)
 * of that incompatibility, and its tag (may be NULL); false if pkg is not in the solution
 */
bool pg_reason(const struct pg_solver *s, uint32_t pkg, uint32_t *parent, const char **origin,
	       const char **a, int32_t *tag);

/* after a failed solve: the derivation, one sentence per line */
void pg_explain(const struct pg_solver *s, struct rr_strbuf *out);
/* tags (>= 0) of the external incompatibilities behind the failure, sorted, unique */
size_t pg_culprits(const struct pg_solver *s, int32_t **ret);

#endif
