/*
 * local-private.h - local projects read as requirements (local.c), for the flow.
 *
 *   struct rr_local l;  char *warning;
 *   rr_local_read(&l, item, venv, stack, policy, &warning);   l.found: read
 *   ... struct rr_local_provider lp = {.base = index_provider, .locals = ls, .n = n};
 *   rr_local_provider_get(&lp, &prov);    the index's world, each local project its own
 *   rr_local_release(&l);
 */
#ifndef RR_FLOW_LOCAL_PRIVATE_H
#define RR_FLOW_LOCAL_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/provider.h"
#include "rocm-resolve/requirement.h"

struct rr_item;
struct rr_venv;
struct rr_stack;
struct rr_policy;

struct rr_local {
	bool found; /* a local project whose name (and metadata) was read */
	char *name, *key;
	char *version;	       /* NULL when dynamic */
	char *source;	       /* the file read: <dir>/pyproject.toml, the wheel, the sdist */
	char *unknown;	       /* its dependencies are only known after a build: why */
	char *conflicts;       /* "file:line: 'torch==2.6.0' asks for another torch than ..." */
	char *requires_python; /* or NULL */
	char **requires;       /* its requirements (the line's extras applied or carried) */
	char **origins;	       /* where each was read: "<dir>/pyproject.toml:7" */
	size_t nrequires, cap_requires;
	struct rr_dependency *deps; /* requires[] parsed once, what the provider hands out */
	struct rr_requirement root; /* what the resolver is asked for: name[extras] */
	struct rr_candidate cand;   /* its only candidate */
};

/*
 * item's local project, when the line names one (a path, a file:// URL, -e): l->found
 * when its metadata was read; *ret_warning (allocated) when the line names something
 * local that cannot be read, or names another project than its metadata
 */
void rr_local_read(struct rr_local *l, const struct rr_item *it, const struct rr_venv *v,
		   const struct rr_stack *st, const struct rr_policy *pol, char **ret_warning);
void rr_local_release(struct rr_local *l);

struct rr_local_provider {
	struct rr_provider base; /* everything else comes from here */
	const struct rr_local *locals;
	size_t n;
};
void rr_local_provider_get(struct rr_local_provider *lp, struct rr_provider *ret);

#endif
