/*
 * local.c - local projects as requirements: `-e PATH`, `PATH`, `file://` lines and
 * `name @ file://...` whose metadata can be read without a build - a directory's
 * pyproject.toml [project] (dependencies not listed in `dynamic`), a built wheel's
 * METADATA, an sdist's PKG-INFO (Metadata-Version 2.2+, Requires-Dist not Dynamic) or,
 * where that cannot be trusted, its pyproject.toml's static [project] - are
 * resolved like any requirement: the flow lays a provider over the index one that offers
 * each such project as its only candidate, with the requirements read. Dynamic metadata
 * is said as unknown (the candidate's dependencies are unknown). Paths are taken from the
 * working directory, as pip takes them, and as both installers take the plan's lines
 * when it is piped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flow/local-private.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/provider.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"

static bool has_scheme(const char *s)
{
	const char *p = s;

	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '+' || *p == '.' || *p == '-')
		p++;
	return p > s && p[0] == ':' && p[1] == '/' && p[2] == '/';
}

/* the local path a line names, or NULL: a path, or a file:// URL (fragment cut) */
static char *local_path(const struct rr_item *it)
{
	const char *u = it->req.url;
	size_t n;

	if (!u || !*u)
		return NULL;
	if (strncmp(u, "file://", 7) == 0) {
		u += 7;
		if (strncmp(u, "localhost/", 10) == 0)
			u += 9;
		if (*u != '/')
			return NULL;
	} else if (has_scheme(u)) {
		return NULL;
	}
	n = strcspn(u, "#");
	return rr_xstrndup(u, n);
}

static void add_req(struct rr_local *l, const char *req, char *origin_owned)
{
	RR_PUSH(l->requires, l->nrequires, l->cap_requires) = rr_xstrdup(req);
	l->origins = rr_xrealloc(l->origins, l->cap_requires * sizeof(*l->origins));
	l->origins[l->nrequires - 1] = origin_owned;
}

/* a directory: its pyproject.toml [project], the line's extras expanded by its reader */
static rr_err read_dir(struct rr_local *l, const char *dir, const struct rr_item *it,
		       rr_error *err)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/pyproject.toml", dir);
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	struct rr_pyproject_info info = {0};
	struct rr_reqset deps = RR_REQSET_INIT;
	struct rr_input_sel sel = {.extras = (const char *const *)it->req.extras,
				   .nextras = it->req.nextras};
	rr_err rc;

	rc = rr_file_read(AT_FDCWD, path, RR_REQFILE_MAX_SIZE, 0, path, &text, err);
	if (rc == RR_E_NOTFOUND) {
		rr_error_release(err);
		return rr_fail(err, RR_E_UNSUPPORTED,
			       "'%s' holds no pyproject.toml: its metadata is only known to its "
			       "build (setup.py)",
			       dir);
	}
	if (rc)
		return rc;
	rc = rr_pyproject_info_parse(path, text.buf, text.len, &info, err);
	if (rc)
		return rc;
	l->source = RR_STEAL(path);
	l->name = RR_STEAL(info.name);
	l->version = RR_STEAL(info.version);
	l->requires_python = RR_STEAL(info.requires_python);
	if (info.deps_dynamic || (it->req.nextras && info.extras_dynamic)) {
		l->unknown = rr_xasprintf("%s lists its %s in [project] dynamic: they are only "
					  "known after a build",
					  l->source,
					  info.deps_dynamic ? "dependencies" : "optional-dependencies");
	} else {
		rc = rr_pyproject_parse(&deps, l->source, text.buf, text.len, &sel, err);
		for (size_t i = 0; !rc && i < deps.nitems; i++)
			add_req(l, deps.items[i].text_expanded,
				rr_xasprintf("%s:%u", deps.items[i].path, deps.items[i].line));
		rr_reqset_release(&deps);
	}
	rr_pyproject_info_release(&info);
	return rc;
}

/* a wheel or sdist file: its METADATA / PKG-INFO */
static rr_err read_file(struct rr_local *l, const char *path, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
	struct rr_metadata m = RR_METADATA_INIT;
	const char *unknown = NULL;
	rr_err rc;

	rc = rr_index_local_metadata(path, &md, &unknown, err);
	if (!rc)
		rc = rr_metadata_parse(md.buf, md.len, path, &m, err);
	if (rc)
		return rc;
	l->source = rr_xstrdup(path);
	l->name = RR_STEAL(m.name);
	l->version = RR_STEAL(m.version);
	l->requires_python = RR_STEAL(m.requires_python);
	if (unknown) {
		l->unknown = rr_xasprintf("%s: %s", path, unknown);
	} else {
		for (size_t i = 0; i < m.nrequires_dist; i++)
			add_req(l, m.requires_dist[i],
				rr_xasprintf("%s (Requires-Dist)", path));
	}
	rr_metadata_release(&m);
	return RR_OK;
}

/* its own lines against the stack: another version of a protected build, a CUDA-only one */
static void find_conflicts(struct rr_local *l, const struct rr_venv *v, const struct rr_stack *st,
			   const struct rr_policy *pol)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	struct rr_marker_env env;
	char pybuf[16];

	rr_venv_marker_env(v, &env, pybuf);
	for (size_t i = 0; i < l->nrequires; i++) {
		const struct rr_requirement *r = &l->deps[i].req;
		const struct rr_protected *p;
		const char *rule;
		bool yes = true;

		if (l->deps[i].rc || !r->key ||
		    (r->marker && (rr_marker_uses_extra(r->marker) ||
				   rr_marker_eval(r->marker, &env, &yes, NULL) || !yes)))
			continue;
		if ((p = rr_stack_lookup(st, r->key)) && p->dist && p->dist->version_ok &&
		    (r->url || !rr_specset_contains(&r->spec, &p->dist->version, RR_PRE_POLICY_ALLOW)))
			rr_strbuf_addf(&sb, "%s%s: '%s' asks for another %s than the protected %s",
				       sb.len ? "; " : "", l->origins[i], l->requires[i], p->name,
				       p->version);
		else if ((rule = rr_policy_match_cuda_only(pol, r->key)))
			rr_strbuf_addf(&sb, "%s%s: '%s' is a CUDA-only package", sb.len ? "; " : "",
				       l->origins[i], l->requires[i]);
	}
	if (sb.len)
		l->conflicts = rr_strbuf_detach(&sb, NULL);
}

void rr_local_read(struct rr_local *l, const struct rr_item *it, const struct rr_venv *v,
		   const struct rr_stack *st, const struct rr_policy *pol, char **ret_warning)
{
	RR_AUTOFREE char *path = NULL;
	RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
	struct stat sb;
	rr_err rc;

	*ret_warning = NULL;
	memset(l, 0, sizeof(*l));
	if (!(it->kind == RR_ITEM_URL || it->req.url || it->editable) || it->constraint ||
	    !(path = local_path(it)))
		return;
	/* a path that is not there (yet): the plan says it cannot tell what it installs */
	if (stat(path, &sb) != 0) {
		if (errno != ENOENT)
			*ret_warning = rr_xasprintf("%s:%u: '%s': %s; its dependencies are not "
						    "checked",
						    it->path ? it->path : "-", it->line, it->text,
						    strerror(errno));
		return;
	}
	rc = S_ISDIR(sb.st_mode) ? read_dir(l, path, it, &e) : read_file(l, path, &e);
	if (rc) {
		*ret_warning = rr_xasprintf("%s:%u: '%s': %s; its dependencies are not checked",
					    it->path ? it->path : "-", it->line, it->text, e.msg);
		rr_local_release(l);
		return;
	}
	/* a line that names the project itself ("name @ file://...") keeps that name */
	if (it->req.key && !rr_name_eq(it->req.key, l->name))
		*ret_warning = rr_xasprintf("%s:%u: '%s' names %s, but its metadata says %s",
					    it->path ? it->path : "-", it->line, it->text,
					    it->req.name, l->name);
	l->found = true;
	l->key = rr_name_normalize(l->name);
	l->root.name = rr_xstrdup(l->name);
	l->root.key = rr_xstrdup(l->key);
	/* a wheel's extras apply to its Requires-Dist; a pyproject's were expanded */
	if (!S_ISDIR(sb.st_mode) && it->req.nextras) {
		l->root.extras = rr_xcalloc(it->req.nextras, sizeof(char *));
		for (size_t i = 0; i < it->req.nextras; i++)
			l->root.extras[l->root.nextras++] = rr_xstrdup(it->req.extras[i]);
	}
	/* a dynamic (or invalid) version stands as 0: the project is its only candidate */
	l->cand.version_text = rr_xstrdup(l->version ? l->version : "0");
	if (rr_version_parse(l->cand.version_text, &l->cand.version, NULL) != RR_OK) {
		free(l->cand.version_text);
		l->cand.version_text = rr_xstrdup("0");
		if (rr_version_parse("0", &l->cand.version, NULL) != RR_OK)
			abort();
	}
	l->cand.requires_python = l->requires_python;
	l->cand.deps_unknown = l->unknown != NULL;
	l->deps = rr_dependencies_parse((const char *const *)l->requires, l->nrequires);
	find_conflicts(l, v, st, pol);
}

void rr_local_release(struct rr_local *l)
{
	free(l->name);
	free(l->key);
	free(l->version);
	free(l->source);
	free(l->unknown);
	free(l->conflicts);
	free(l->requires_python);
	for (size_t i = 0; i < l->nrequires; i++) {
		free(l->requires[i]);
		free(l->origins[i]);
	}
	rr_dependencies_free(l->deps, l->nrequires);
	free(l->requires);
	free(l->origins);
	rr_requirement_release(&l->root);
	free(l->cand.version_text);
	rr_version_release(&l->cand.version);
	memset(l, 0, sizeof(*l));
}

/* ---- the provider laid over the index's ---------------------------------- */

static const struct rr_local *find(const struct rr_local_provider *lp, const char *key)
{
	for (size_t i = 0; i < lp->n; i++)
		if (lp->locals[i].found && strcmp(lp->locals[i].key, key) == 0)
			return &lp->locals[i];
	return NULL;
}

static rr_err lp_candidates(void *ctx, const char *key, const struct rr_candidate **ret,
			    size_t *n, rr_error *err)
{
	const struct rr_local_provider *lp = ctx;
	const struct rr_local *l = find(lp, key);

	if (!l)
		return lp->base.candidates(lp->base.ctx, key, ret, n, err);
	*ret = &l->cand;
	*n = 1;
	return RR_OK;
}

static rr_err lp_dependencies(void *ctx, const char *key, const struct rr_candidate *c,
			      const struct rr_dependency **ret, size_t *n, rr_error *err)
{
	const struct rr_local_provider *lp = ctx;
	const struct rr_local *l = find(lp, key);

	if (!l || c != &l->cand)
		return lp->base.dependencies(lp->base.ctx, key, c, ret, n, err);
	*ret = l->deps;
	*n = l->unknown ? 0 : l->nrequires;
	return RR_OK;
}

static void lp_prefetch(void *ctx, const char *const *keys, size_t n)
{
	const struct rr_local_provider *lp = ctx;

	if (lp->base.prefetch)
		lp->base.prefetch(lp->base.ctx, keys, n);
}

static void lp_prefetch_deps(void *ctx, const char *key, const struct rr_candidate *const *cs,
			     size_t n)
{
	const struct rr_local_provider *lp = ctx;

	if (lp->base.prefetch_deps && !find(lp, key))
		lp->base.prefetch_deps(lp->base.ctx, key, cs, n);
}

static void lp_upcoming(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	const struct rr_local_provider *lp = ctx;

	if (lp->base.upcoming && !find(lp, key))
		lp->base.upcoming(lp->base.ctx, key, cs, n);
}

static void lp_will_need(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	const struct rr_local_provider *lp = ctx;

	if (lp->base.will_need && !find(lp, key))
		lp->base.will_need(lp->base.ctx, key, cs, n);
}

void rr_local_provider_get(struct rr_local_provider *lp, struct rr_provider *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->ctx = lp;
	ret->candidates = lp_candidates;
	ret->dependencies = lp_dependencies;
	ret->prefetch = lp->base.prefetch ? lp_prefetch : NULL;
	ret->prefetch_deps = lp->base.prefetch_deps ? lp_prefetch_deps : NULL;
	ret->upcoming = lp->base.upcoming ? lp_upcoming : NULL;
	ret->will_need = lp->base.will_need ? lp_will_need : NULL;
}
