/*
 * transitive.c (CLI) - which indexes to ask, then the library's transitive
 * resolution, folded into the plan.
 *
 * Index order, first wins per project (uv's rule against dependency
 * confusion): --index-url, else the requirements' -i, else UV_DEFAULT_INDEX /
 * UV_INDEX_URL, else PIP_INDEX_URL, else PyPI; then every extra index from the
 * requirements, --extra-index-url, UV_INDEX / UV_EXTRA_INDEX_URL and
 * PIP_EXTRA_INDEX_URL (space-separated lists), in that order. Indexes the
 * policy marks as CUDA wheel indexes are never asked.
 */
#include <stdlib.h>
#include <string.h>

#include "transitive.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"

#ifndef RR_DEFAULT_INDEX_URL
#define RR_DEFAULT_INDEX_URL "https://pypi.org/simple"
#endif

struct urls {
	const char **v;
	size_t n, cap;
	char **owned;
	size_t nowned, cap_owned;
};

static void add_url(struct urls *u, const struct rr_policy *pol, const char *url)
{
	if (!url || !*url)
		return;
	if (rr_policy_match_cuda_index(pol, url))
		return;
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->v[i], url) == 0)
			return;
	RR_PUSH(u->v, u->n, u->cap) = url;
}

static void add_env_list(struct urls *u, const struct rr_policy *pol, const char *var)
{
	const char *val = getenv(var);
	char *copy;
	char *save = NULL;

	if (!val || !*val)
		return;
	copy = rr_xstrdup(val);
	RR_PUSH(u->owned, u->nowned, u->cap_owned) = copy;
	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
		add_url(u, pol, t);
}

static const char *first_env(const char *const *vars)
{
	for (; *vars; vars++) {
		const char *v = getenv(*vars);
		if (v && *v)
			return v;
	}
	return NULL;
}

int rr_cli_resolve(struct rr_cli *cli, struct rr_session *s, struct rr_plan *plan,
		   struct rr_resolution *res)
{
	static const char *const primary_env[] = {"UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL",
						  NULL};
	struct urls u = {0};
	struct rr_index_opts o = {0};
	struct rr_index_client *client = NULL;
	struct rr_transitive_input in = {0};
	rr_error err = RR_ERROR_INIT;
	rr_err rc;
	bool from_index = false;
	const char *primary;

	if (s->reqs.no_index) {
		rr_cli_info(cli, "the requirements say --no-index: not resolving transitively");
		return -1;
	}
	primary = cli->nindex_urls ? cli->index_urls[0] : s->reqs.index_url;
	if (!primary)
		primary = first_env(primary_env);
	if (!primary)
		primary = RR_DEFAULT_INDEX_URL;
	add_url(&u, s->policy, primary);
	for (size_t i = 0; i < s->reqs.nextra_index_urls; i++)
		add_url(&u, s->policy, s->reqs.extra_index_urls[i]);
	for (size_t i = 0; i < cli->nextra_index_urls; i++)
		add_url(&u, s->policy, cli->extra_index_urls[i]);
	add_env_list(&u, s->policy, "UV_INDEX");
	add_env_list(&u, s->policy, "UV_EXTRA_INDEX_URL");
	add_env_list(&u, s->policy, "PIP_EXTRA_INDEX_URL");
	if (s->reqs.nfind_links)
		rr_cli_warn(cli, "--find-links locations are passed to the installer but not "
				 "searched by the resolver");

	o.index_urls = u.v;
	o.nindex_urls = u.n;
	o.cache_dir = cli->cache_dir;
	o.no_cache = cli->no_cache;
	o.offline = cli->offline;
	o.refresh = cli->refresh;
	o.timeout_ms = cli->timeout_s ? cli->timeout_s * 1000L : 0;
	o.user_agent = "rocm-resolve/" RR_VERSION;
	o.max_parallel = 48; /* as many in flight as uv keeps (its default is 50) */
	rc = rr_index_client_new(&o, &client, &err);
	if (!rc) {
		in.reqs = &s->reqs;
		in.plan = plan;
		in.venv = s->venv;
		in.policy = s->policy;
		in.stack = s->stack;
		in.client = client;
		in.pre = cli->pre || s->reqs.pre;
		rc = rr_transitive_resolve(&in, res, &err);
		from_index = true;
	}
	if (!rc)
		rr_cli_info(cli, "resolved %zu packages in %zu decisions with %zu HTTP requests",
			    res->nlocked, res->steps, rr_index_client_requests(client));
	rr_index_client_free(client);
	free(u.v);
	for (size_t i = 0; i < u.nowned; i++)
		free(u.owned[i]);
	free(u.owned);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		/* the inputs were parsed before this step: bad data met while resolving
		 * (malformed JSON, a hash mismatch, an oversized answer) came from the
		 * index, an environment problem (exit 3), not the user's input (exit 2) */
		if (from_index && rr_cli_exit_for(rc) == RR_EXIT_USAGE)
			return RR_EXIT_ENV;
		return rr_cli_exit_for(rc);
	}
	rr_plan_apply_resolution(plan, res);
	return -1;
}
