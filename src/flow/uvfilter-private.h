/*
 * uvfilter-private.h - a uv project's exclude- and override-dependencies applied to
 * every package's requirements, as uv applies them while it locks (uvfilter.c), for
 * the flow: a provider laid over another.
 *
 *   struct rr_uv_filter *uf = rr_uv_filter_new(&base, &reqs);   NULL: nothing to apply
 *   rr_uv_filter_get(uf, &prov);  ... resolve on prov ...
 *   uf = rr_uv_filter_free(uf);
 */
#ifndef RR_FLOW_UVFILTER_PRIVATE_H
#define RR_FLOW_UVFILTER_PRIVATE_H

#include "rocm-resolve/provider.h"

struct rr_reqset;
struct rr_uv_filter;

/* reqs->uv_excludes and reqs->uv_overrides over base; NULL when there are none */
struct rr_uv_filter *rr_uv_filter_new(const struct rr_provider *base, const struct rr_reqset *reqs);
void rr_uv_filter_get(struct rr_uv_filter *uf, struct rr_provider *ret);
struct rr_uv_filter *rr_uv_filter_free(struct rr_uv_filter *uf);

#endif
