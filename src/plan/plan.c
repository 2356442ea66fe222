/*
 * plan.c - the plan built from the decisions (decide.c) and the resolution: the
 * options, the stack's pins, the filtered constraints, what the input as written
 * would change, the holds, what a lock keeps as installed; and the plan's lifetime.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/venv.h"

#include "plan-private.h"

#define RR_ACTION_STR_(sym, str) str,
static const char *const action_names[] = {RR_ACTION_LIST(RR_ACTION_STR_)};
#undef RR_ACTION_STR_
#define RR_REASON_STR_(sym, str) str,
static const char *const reason_names[] = {RR_REASON_LIST(RR_REASON_STR_)};
#undef RR_REASON_STR_

const char *rr_action_to_string(rr_action a)
{
	return (unsigned)a < RR_ARRAY_LEN(action_names) ? action_names[a] : "unknown";
}

const char *rr_reason_to_string(rr_reason r)
{
	return (unsigned)r < RR_ARRAY_LEN(reason_names) ? reason_names[r] : "unknown";
}

static const char *match_cuda_index(const struct rr_policy *pol, const char *url);

/* a ROCm build among the protected (a ROCm torch, a +rocm label, a ROCm URL) */
static bool stack_is_rocm(const struct rr_plan_input *in)
{
	if (in->stack->rocm_torch || in->venv->torch_hip)
		return true;
	for (size_t i = 0; i < in->stack->n; i++)
		if (in->stack->items[i].why && strstr(in->stack->items[i].why, "ROCm"))
			return true;
	return false;
}

static const char *match_cuda_index(const struct rr_policy *pol, const char *url)
{
	return rr_policy_match_cuda_index(pol, url);
}

static bool option_takes_url(const char *name)
{
	return strcmp(name, "--index-url") == 0 || strcmp(name, "-i") == 0 ||
	       strcmp(name, "--extra-index-url") == 0 || strcmp(name, "--find-links") == 0 ||
	       strcmp(name, "-f") == 0;
}

static bool option_is_index(const char *name)
{
	return strcmp(name, "--index-url") == 0 || strcmp(name, "-i") == 0 ||
	       strcmp(name, "--extra-index-url") == 0;
}

static bool option_is_include(const char *name)
{
	return strcmp(name, "-r") == 0 || strcmp(name, "--requirement") == 0 ||
	       strcmp(name, "-c") == 0 || strcmp(name, "--constraint") == 0;
}

static bool option_is_find_links(const char *name)
{
	return strcmp(name, "--find-links") == 0 || strcmp(name, "-f") == 0;
}

/*
 * an option as the plan writes it: a URL without a literal secret (${VAR} kept); a local
 * --find-links directory as an absolute path, found as pip finds it (next to the file
 * that names it when it is there, else from the working directory), so the plan reads
 * the same from stdin, from another directory, or saved elsewhere
 */
static char *option_line(const struct rr_optline *o)
{
	RR_AUTOFREE char *abs = NULL;
	RR_AUTOFREE char *value = NULL;

	if (option_is_find_links(o->name) && !strstr(o->value, "://") && o->value[0] != '/') {
		const char *slash = o->path ? strrchr(o->path, '/') : NULL;
		RR_AUTOFREE char *rel = slash ? rr_xasprintf("%.*s/%s", (int)(slash - o->path),
							     o->path, o->value_expanded)
					      : NULL;
		abs = realpath(rel ? rel : o->value_expanded, NULL);
		if (!abs && rel)
			abs = realpath(o->value_expanded, NULL);
		if (abs && !strchr(o->value, '$'))
			return rr_xasprintf("%s %s", o->name, abs);
	}
	if (!option_takes_url(o->name))
		return rr_xasprintf("%s %s", o->name, o->value);
	value = rr_strip_credentials(o->value, NULL);
	return rr_xasprintf("%s %s", o->name, value);
}

/* where option line o stands among the items (their decisions): before the first item of
 * its file below it, else after its file's last item, else after everything */
static size_t option_at(const struct rr_reqset *rs, const struct rr_optline *o)
{
	size_t after = rs->nitems;

	for (size_t k = 0; k < rs->nitems; k++) {
		if (strcmp(rs->items[k].path, o->path) != 0)
			continue;
		if (rs->items[k].line > o->line)
			return k;
		after = k + 1;
	}
	return after;
}

static void decide_options(struct builder *b)
{
	const struct rr_reqset *rs = b->in->reqs;

	for (size_t i = 0; i < rs->nopts; i++) {
		const struct rr_optline *o = &rs->opts[i];
		const char *rule = NULL;
		char *line;

		if (option_is_include(o->name))
			continue; /* includes are flattened into the decisions */
		line = o->value ? option_line(o) : rr_xstrdup(o->name);
		if (o->value && option_takes_url(o->name))
			rule = match_cuda_index(b->in->policy, o->value_expanded);
		if (!rule && option_is_index(o->name)) {
			/* the plan names every index it was resolved against itself */
			free(line);
			continue;
		}
		if (rule) {
			RR_AUTOFREE char *raw = rr_xasprintf("%s %s", o->name, o->value);
			RR_AUTOFREE char *shown = rr_redact_credentials(raw);
			size_t n = b->plan->nstripped_options;
			RR_PUSH(b->plan->stripped_options, b->plan->nstripped_options, b->cap_stripped) =
				rr_xasprintf("%s:%u: %s: %s", o->path, o->line, shown, rule);
			b->plan->stripped_option_at =
				rr_xrealloc(b->plan->stripped_option_at,
					    b->cap_stripped * sizeof(*b->plan->stripped_option_at));
			b->plan->stripped_option_at[n] = option_at(rs, o);
			free(line);
			continue;
		}
		/* duplicates (the same option in two included files) are written once */
		for (size_t j = 0; j < b->plan->noption_lines; j++)
			if (strcmp(b->plan->option_lines[j], line) == 0) {
				line = rr_free(line);
				break;
			}
		if (line)
			RR_PUSH(b->plan->option_lines, b->plan->noption_lines, b->cap_opts) = line;
	}
}

static void add_pins(struct builder *b)
{
	const struct rr_stack *st = b->in->stack;

	for (size_t i = 0; i < st->n; i++) {
		const struct rr_protected *p = &st->items[i];
		struct rr_plan_pin *pin = &RR_PUSH(b->plan->pins, b->plan->npins, b->cap_pins);

		pin->name = rr_xstrdup(p->name);
		pin->version = rr_xstrdup(p->version);
		pin->why = rr_xstrdup(p->why);
		pin->short_why = rr_plan_short_why(p->why);
		pin->in_requirements = false;
		pin->clash_group = p->clash_group ? rr_xstrdup(p->clash_group) : NULL;
		pin->bridge = p->dist && p->dist->bridged && p->dist->site ? rr_xstrdup(p->dist->site)
									   : NULL;
		if (p->dist && p->dist->inherited) {
			/* the base interpreter's (include-system-site-packages): pip sees it, uv not */
			RR_PUSH(b->plan->inherited, b->plan->ninherited, b->cap_inherited) =
				rr_xstrdup(p->key);
			if (!b->plan->base_site && p->dist->site)
				b->plan->base_site = rr_xstrdup(p->dist->site);
		} else if (p->dist && p->dist->bridged) {
			b->plan->bridged = rr_xrealloc(b->plan->bridged,
						       (b->plan->nbridged + 1) * sizeof(char *));
			b->plan->bridged[b->plan->nbridged++] = rr_xstrdup(p->key);
			if (!b->plan->bridge_site && p->dist->site)
				b->plan->bridge_site = rr_xstrdup(p->dist->site);
		}
		for (size_t j = 0; j < b->plan->ndecisions; j++) {
			const struct rr_decision *d = &b->plan->decisions[j];
			if (d->action == RR_ACT_PIN && d->name && rr_name_eq(d->name, p->name) &&
			    !d->conditional)
				pin->in_requirements = true;
		}
	}
}

/*
 * constraint files: when none of their entries had to go, the plan refers to
 * the file itself; otherwise the kept entries are written to a content-addressed
 * file in scratch_dir (atomically) and the plan refers to that copy
 */
static rr_err write_atomically(const char *dir, const char *hint, const char *name,
			       const char *data, size_t len, char **ret_path, rr_error *err)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/%s", dir, name);

	if (rr_mkdir_p(dir, 0700))
		return rr_fail(err, RR_E_ENV,
			       "cannot create '%s' (for a filtered copy of a "
			       "constraints file): %s%s%s",
			       dir, strerror(errno), hint ? "; " : "", hint ? hint : "");
	/* a random temporary name, O_EXCL|O_NOFOLLOW: a shared cache can hold planted symlinks */
	if (rr_file_write_atomic(path, data, len, 0600, err)) {
		if (err)
			err->code = RR_E_ENV;
		return RR_E_ENV;
	}
	*ret_path = RR_STEAL(path);
	return RR_OK;
}

static rr_err add_constraints(struct builder *b, rr_error *err)
{
	const struct rr_plan *p = b->plan;
	RR_AUTO_STRBUF struct rr_strbuf kept = RR_STRBUF_INIT;
	bool any = false;
	bool filtered = false;
	char hex[65];
	RR_AUTOFREE char *name = NULL;
	RR_AUTOFREE char *path = NULL;
	rr_err rc;

	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (!d->constraint)
			continue;
		any = true;
		if (d->action == RR_ACT_STRIP) {
			filtered = true;
			continue;
		}
		rr_strbuf_addf(&kept, "%s\n", b->in->reqs->items[i].text);
	}
	if (!any)
		return RR_OK;
	if (!filtered) {
		/* every constraint survived: point at the original files, each once, in the
		 * order their first entries came */
		for (size_t i = 0; i < p->ndecisions; i++) {
			const char *file = b->in->reqs->items[i].path;
			bool seen = false;
			char *abs;
			if (!p->decisions[i].constraint || !file)
				continue;
			for (size_t k = 0; k < i && !seen; k++)
				seen = p->decisions[k].constraint && b->in->reqs->items[k].path &&
				       strcmp(b->in->reqs->items[k].path, file) == 0;
			if (seen)
				continue;
			abs = realpath(file, NULL);
			RR_PUSH(b->plan->constraint_lines, b->plan->nconstraint_lines,
				b->cap_constraints) = rr_xasprintf("-c %s", abs ? abs : file);
			free(abs);
		}
		return RR_OK;
	}
	if (!kept.len)
		return RR_OK;
	if (!b->in->scratch_dir) {
		rr_plan_warn(b,
			     rr_xstrdup("constraint files needed filtering and no cache directory "
					"is available; their remaining entries are left out of "
					"the plan"));
		return RR_OK;
	}
	rr_sha256_hex(kept.buf, kept.len, hex);
	hex[16] = '\0';
	name = rr_xasprintf("constraints-%s.txt", hex);
	rc = write_atomically(b->in->scratch_dir, b->in->scratch_hint, name, kept.buf, kept.len,
			      &path, err);
	if (rc)
		return rc;
	RR_PUSH(b->plan->constraint_lines, b->plan->nconstraint_lines, b->cap_constraints) =
		rr_xasprintf("-c %s", path);
	return RR_OK;
}

/* what the plan does instead of the change ch: the decision on its line, else a hold
 * on its way, else the stack's own pins */
static char *instead_of(const struct rr_plan *p, const struct rr_stack_change *ch,
			const struct rr_decision *d, bool is_protected)
{
	if (d && d->action == RR_ACT_STRIP)
		return rr_xstrdup("the plan strips it");
	if (d && d->action == RR_ACT_PIN && d->output)
		return rr_xasprintf("the plan has %s", d->output);
	for (size_t i = 0; i < p->nholds; i++) {
		bool on_way = rr_name_eq(p->holds[i].name, ch->name);
		for (size_t k = 0; k < ch->nchain && !on_way; k++)
			on_way = rr_name_eq(p->holds[i].name, ch->chain[k]);
		if (on_way)
			return rr_xasprintf("the plan holds %s at %s", p->holds[i].name,
					    p->holds[i].version);
	}
	for (size_t i = 0; i < p->nexcludes; i++)
		if (rr_name_eq(p->excludes[i], ch->name))
			return rr_xasprintf("the plan needs %s excluded (uv --excludes)", ch->name);
	if (is_protected)
		return rr_xasprintf("the plan pins the protected %s", ch->name);
	return rr_xasprintf("the plan's resolution leaves %s out", ch->name);
}

static void add_change(struct builder *b, const struct rr_stack_change *ch)
{
	struct rr_plan *p = b->plan;
	const struct rr_decision *d = ch->item < p->ndecisions ? &p->decisions[ch->item] : NULL;
	struct rr_plan_change *x = &p->changes[p->nchanges++];

	x->decision = d ? ch->item : SIZE_MAX;
	x->source = rr_xstrdup(d ? d->source : "-");
	x->requirement = rr_xstrdup(d ? d->requirement : "-");
	x->name = rr_xstrdup(ch->name);
	x->version = rr_xstrdup(ch->version);
	x->why = rr_xstrdup(ch->why);
	x->uv_only = ch->uv_only;
	x->instead = instead_of(p, ch, d, rr_stack_lookup(b->in->stack, ch->name) != NULL);
}

/* what the resolution adds besides the decisions: held-back packages, exclusions, warnings */
static void add_resolution(struct builder *b)
{
	const struct rr_resolution *res = b->in->res;
	struct rr_plan *p = b->plan;

	if (!res)
		return;
	p->holds = rr_xcalloc(res->npins + 1, sizeof(*p->holds));
	for (size_t i = 0; i < res->npins; i++) {
		struct rr_plan_hold *h = &p->holds[p->nholds++];
		h->name = rr_xstrdup(res->pins[i].name);
		h->version = rr_xstrdup(res->pins[i].version);
		h->why = rr_xstrdup(res->pins[i].why);
		h->origin = res->pins[i].origin ? rr_xstrdup(res->pins[i].origin) : NULL;
		h->newest = res->pins[i].newest ? rr_xstrdup(res->pins[i].newest) : NULL;
	}
	p->as_written = res->as_written;
	p->as_written_unknown = res->as_written_unknown ? rr_xstrdup(res->as_written_unknown) : NULL;
	if (res->as_written_unknown)
		rr_plan_warn(
		    b, rr_xasprintf("the input as written was not resolved (%s): check judges "
				    "it by the plan's own changes",
				    res->as_written_unknown));
	for (size_t i = 0; i < res->nwarnings; i++)
		rr_plan_warn(b, rr_xstrdup(res->warnings[i]));
	if (res->failed)
		rr_plan_warn(b, rr_xstrdup(res->failed));
	/* what comes from --find-links and no input line names: pinned next to the option */
	for (size_t i = 0; i < res->nlocked; i++) {
		const struct rr_locked *l = &res->locked[i];
		struct rr_plan_link *k;
		bool named = false;
		if (!l->find_links || l->fixed)
			continue;
		for (size_t j = 0; j < p->ndecisions && !named; j++)
			named = p->decisions[j].reason == RR_WHY_FIND_LINKS && p->decisions[j].name &&
				rr_name_eq(p->decisions[j].name, l->name);
		for (size_t j = 0; j < p->nholds && !named; j++)
			named = rr_name_eq(p->holds[j].name, l->name);
		if (named)
			continue;
		k = &RR_PUSH(p->links, p->nlinks, b->cap_links);
		k->name = rr_xstrdup(l->name);
		k->version = rr_xstrdup(l->version);
		k->location = rr_xstrdup(l->find_links);
	}
	p->files = rr_xcalloc(res->nlocked + 1, sizeof(*p->files));
	for (size_t i = 0; i < res->nlocked; i++)
		rr_locked_copy(&p->files[p->nfiles++], &res->locked[i]);
	p->nunknown = res->nunknown;
	p->excludes = rr_xcalloc(res->nexcludes + 1, sizeof(char *));
	for (size_t i = 0; i < res->nexcludes; i++)
		p->excludes[p->nexcludes++] = rr_xstrdup(res->excludes[i]);
	p->changes = rr_xcalloc(res->nchanges + 1, sizeof(*p->changes));
	for (size_t i = 0; i < res->nchanges; i++)
		add_change(b, &res->changes[i]);
}

static const struct rr_locked *closure_entry(const struct rr_resolution *res, const char *key)
{
	for (size_t i = 0; res && i < res->nlocked; i++)
		if (rr_name_eq(res->locked[i].name, key))
			return &res->locked[i];
	return NULL;
}

static struct rr_plan_kept *kept_push(struct rr_plan_kept **v, size_t *n, size_t *cap,
				      const char *name, const char *version, char *why)
{
	struct rr_plan_kept *k = &RR_PUSH(*v, *n, *cap);

	memset(k, 0, sizeof(*k));
	k->name = rr_xstrdup(name);
	k->version = rr_xstrdup(version);
	k->why = why;
	return k;
}

static int kept_cmp(const void *a, const void *b)
{
	return rr_str_casecmp(((const struct rr_plan_kept *)a)->name,
			      ((const struct rr_plan_kept *)b)->name);
}

/* the archive d was installed from, when direct_url.json records it with a hash */
static void kept_direct_url(struct rr_plan_kept *k, const struct rr_dist *d)
{
	const char *base;

	if (!d->direct_url || !d->direct_url_sha256 ||
	    !(rr_str_startswith(d->direct_url, "https://") ||
	      rr_str_startswith(d->direct_url, "http://") ||
	      rr_str_startswith(d->direct_url, "file://")) ||
	    rr_text_unsafe(d->direct_url, strlen(d->direct_url), true, NULL) != SIZE_MAX)
		return;
	k->url = rr_strip_credentials(d->direct_url, NULL);
	k->sha256 = rr_xstrdup(d->direct_url_sha256);
	base = strrchr(k->url, '/');
	k->filename = base && base[1] ? rr_xstrdup(base + 1) : NULL;
}

size_t rr_plan_kept_list(const struct rr_venv *v, const struct rr_stack *st,
			 const struct rr_resolution *res, struct rr_plan_kept **ret)
{
	struct rr_strv queue = RR_STRV_INIT, why = RR_STRV_INIT, seen = RR_STRV_INIT;
	struct rr_plan_kept *kept = NULL;
	size_t n = 0, cap = 0;
	struct rr_marker_env env;
	char pybuf[16];

	rr_venv_marker_env(v, &env, pybuf);
	for (size_t i = 0; i < st->n; i++)
		if (st->items[i].dist && !st->items[i].dist->bridged &&
		    !st->items[i].dist->inherited) {
			rr_strv_push(&queue, st->items[i].key);
			rr_strv_push(&why, "protected ROCm build");
		}
	for (size_t q = 0; q < queue.n; q++) {
		const struct rr_dist *d = rr_venv_lookup(v, queue.v[q]);
		const struct rr_locked *l;
		bool dup = false;

		for (size_t k = 0; k < seen.n && !dup; k++)
			dup = strcmp(seen.v[k], queue.v[q]) == 0;
		if (dup || !d || d->problem || d->bridged || d->inherited)
			continue;
		rr_strv_push(&seen, queue.v[q]);
		l = closure_entry(res, d->key);
		if (l && l->url)
			continue; /* the lock installs a file of it: its line is there */
		kept_direct_url(
		    kept_push(&kept, &n, &cap, d->name, d->version_text, rr_xstrdup(why.v[q])), d);
		for (size_t r = 0; r < d->meta.nrequires_dist; r++) {
			struct rr_requirement req = RR_REQUIREMENT_INIT;
			const char *none[] = {""};
			bool yes = false;
			if (!rr_requirement_parse(d->meta.requires_dist[r], &req, NULL) &&
			    req.key && !rr_requirement_applies(&req, &env, none, 1, &yes, NULL) &&
			    yes) {
				rr_strv_push(&queue, req.key);
				rr_strv_take(
				    &why, rr_xasprintf(
					      "needed by %s %s%s", d->name, d->version_text,
					      rr_stack_lookup(st, d->key) ? " (protected)" : ""));
			}
			rr_requirement_release(&req);
		}
	}
	/* what the resolution took as installed and nothing above listed */
	for (size_t i = 0; res && i < res->nlocked; i++) {
		const struct rr_locked *l = &res->locked[i];
		bool dup = false;
		if (l->url || l->fixed)
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = rr_name_eq(kept[k].name, l->name);
		if (!dup)
			kept_push(&kept, &n, &cap, l->name, l->version,
				  rr_xstrdup("installed; the resolution keeps it"));
	}
	rr_qsort(kept, n, sizeof(*kept), kept_cmp);
	rr_strv_release(&queue);
	rr_strv_release(&why);
	rr_strv_release(&seen);
	*ret = kept;
	return n;
}

void rr_plan_kept_release(struct rr_plan_kept *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(k[i].name);
		free(k[i].version);
		free(k[i].why);
		free(k[i].url);
		free(k[i].sha256);
		free(k[i].filename);
		free(k[i].index_url);
	}
	free(k);
}

/* what a lock keeps as installed, each named by the file it came from where that is known */
static void add_kept(struct builder *b)
{
	const struct rr_resolution *res = b->in->res;
	struct rr_plan *p = b->plan;

	if (!res)
		return;
	p->nkept = rr_plan_kept_list(b->in->venv, b->in->stack, res, &p->kept);
	for (size_t i = 0; i < p->nkept; i++) {
		struct rr_plan_kept *k = &p->kept[i];
		for (size_t j = 0; !k->url && j < res->ninstalled_files; j++) {
			const struct rr_locked *f = &res->installed_files[j];
			if (!rr_name_eq(f->name, k->name) || strcmp(f->version, k->version))
				continue;
			k->url = rr_xstrdup(f->url);
			k->sha256 = rr_xstrdup(f->sha256);
			k->filename = f->filename ? rr_xstrdup(f->filename) : NULL;
			k->index_url = f->index_url ? rr_xstrdup(f->index_url) : NULL;
		}
	}
}

rr_err rr_plan_build(const struct rr_plan_input *in, struct rr_plan **ret, rr_error *err)
{
	struct builder b = {0};
	const struct rr_reqset *rs = in->reqs;
	const struct rr_venv *v = in->venv;
	rr_err rc;

	b.in = in;
	b.plan = rr_xcalloc(1, sizeof(*b.plan));
	b.plan->venv = rr_xstrdup(v->root);
	b.plan->python = rr_xstrdup(v->python_version ? v->python_version : "unknown");
	b.plan->rocm = v->rocm_version ? rr_xstrdup(v->rocm_version) : NULL;
	b.plan->rocm_stack = stack_is_rocm(in);
	if (v->torch_version)
		b.plan->torch = v->torch_hip
				    ? rr_xasprintf("%s (hip %s)", v->torch_version, v->torch_hip)
				: v->torch_cuda
				    ? rr_xasprintf("%s (cuda %s)", v->torch_version, v->torch_cuda)
				    : rr_xstrdup(v->torch_version);
	b.plan->torch_version = v->torch_version ? rr_xstrdup(v->torch_version) : NULL;
	b.plan->torch_hip = v->torch_hip ? rr_xstrdup(v->torch_hip) : NULL;
	b.plan->torch_cuda = v->torch_cuda ? rr_xstrdup(v->torch_cuda) : NULL;
	b.plan->inputs = rr_xcalloc(rs->nfiles + 1, sizeof(char *));
	for (size_t i = 0; i < rs->nfiles; i++)
		b.plan->inputs[b.plan->ninputs++] = rr_xstrdup(rs->files[i]);
	rr_venv_marker_env(v, &b.env, b.pybuf);

	for (size_t i = 0; i < rs->nwarnings; i++)
		rr_plan_warn(&b, rr_xstrdup(rs->warnings[i]));
	decide_options(&b);
	for (size_t i = 0; i < rs->nitems; i++)
		rr_plan_decide_item(&b, &rs->items[i], i);
	add_pins(&b);
	add_resolution(&b);
	add_kept(&b);
	b.plan->resolved = in->res != NULL;
	b.plan->unresolved = in->unresolved ? rr_xstrdup(in->unresolved) : NULL;
	b.plan->no_index = rs->no_index;
	b.plan->installer = in->installer ? in->installer : "uv";
	if (!rs->no_index) {
		b.plan->indexes = rr_xcalloc(in->nindexes + 1, sizeof(*b.plan->indexes));
		for (size_t i = 0; i < in->nindexes; i++) {
			struct rr_plan_index *x = &b.plan->indexes[b.plan->nindexes++];
			*x = in->indexes[i];
			x->url = rr_xstrdup(in->indexes[i].url);
			x->origin = rr_xstrdup(in->indexes[i].origin);
		}
	}
	rc = add_constraints(&b, err);
	if (rc) {
		rr_plan_free(b.plan);
		return rc;
	}
	for (size_t i = 0; i < b.plan->ndecisions; i++)
		b.plan->counts[b.plan->decisions[i].action]++;
	if ((rc = rr_plan_check_lines(b.plan, err))) {
		rr_plan_free(b.plan);
		return rc;
	}
	*ret = b.plan;
	return RR_OK;
}

bool rr_plan_breaks_stack(const struct rr_plan *p)
{
	if (p->nstripped_options || p->nexcludes || p->nchanges)
		return true;
	/* without the input as written, a package the plan holds back stands in for it */
	if (p->resolved && !p->as_written && p->nholds)
		return true;
	for (size_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].breaks_stack)
			return true;
	return false;
}

struct rr_plan *rr_plan_free(struct rr_plan *p)
{
	if (!p)
		return NULL;
	free(p->venv);
	free(p->python);
	free(p->rocm);
	free(p->torch);
	free(p->torch_version);
	free(p->torch_hip);
	free(p->torch_cuda);
	rr_strv_free_array(p->inputs, p->ninputs);
	rr_strv_free_array(p->option_lines, p->noption_lines);
	rr_strv_free_array(p->stripped_options, p->nstripped_options);
	free(p->stripped_option_at);
	for (size_t i = 0; i < p->ndecisions; i++) {
		struct rr_decision *d = &p->decisions[i];
		free(d->source);
		free(d->requirement);
		free(d->name);
		free(d->output);
		free(d->version);
		free(d->cause.head);
		rr_strv_free_array(d->cause.lines, d->cause.nlines);
	}
	free(p->decisions);
	for (size_t i = 0; i < p->npins; i++) {
		free(p->pins[i].name);
		free(p->pins[i].version);
		free(p->pins[i].why);
		free(p->pins[i].short_why);
		free(p->pins[i].clash_group);
		free(p->pins[i].bridge);
	}
	free(p->pins);
	for (size_t i = 0; i < p->nholds; i++) {
		free(p->holds[i].name);
		free(p->holds[i].version);
		free(p->holds[i].why);
		free(p->holds[i].origin);
		free(p->holds[i].newest);
	}
	free(p->holds);
	for (size_t i = 0; i < p->nchanges; i++) {
		struct rr_plan_change *x = &p->changes[i];
		free(x->source);
		free(x->requirement);
		free(x->name);
		free(x->version);
		free(x->why);
		free(x->instead);
	}
	free(p->changes);
	for (size_t i = 0; i < p->nfiles; i++)
		rr_locked_release(&p->files[i]);
	free(p->files);
	rr_plan_kept_release(p->kept, p->nkept);
	free(p->as_written_unknown);
	for (size_t i = 0; i < p->nindexes; i++) {
		free(p->indexes[i].url);
		free(p->indexes[i].origin);
	}
	free(p->indexes);
	free(p->unresolved);
	rr_strv_free_array(p->bridged, p->nbridged);
	rr_strv_free_array(p->inherited, p->ninherited);
	for (size_t i = 0; i < p->nlinks; i++) {
		free(p->links[i].name);
		free(p->links[i].version);
		free(p->links[i].location);
	}
	free(p->links);
	free(p->base_site);
	free(p->bridge_site);
	rr_strv_free_array(p->constraint_lines, p->nconstraint_lines);
	rr_strv_free_array(p->warnings, p->nwarnings);
	rr_strv_free_array(p->excludes, p->nexcludes);
	free(p);
	return NULL;
}
