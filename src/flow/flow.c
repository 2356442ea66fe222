/*
 * flow.c - the pipeline: policy, inputs, environment, indexes, resolution,
 * plan. See include/rocm-resolve/flow.h for the order and the index rule.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/flow.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/lockfile.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/provider.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/index-provider.h"
#include "flow/flow-private.h"
#include "flow/local-private.h"
#include "flow/uvfilter-private.h"

#ifndef RR_DEFAULT_INDEX_URL
#define RR_DEFAULT_INDEX_URL "https://pypi.org/simple"
#endif

static const char *env_of(const struct rr_flow_opts *o, const char *name)
{
	const char *v = o->getenv_fn ? o->getenv_fn(name) : getenv(name);

	return v && *v ? v : NULL;
}

static void flow_warn(struct rr_flow *f, char *owned)
{
	RR_PUSH(f->warnings, f->nwarnings, f->cap_warnings) = owned;
}

/* an XDG base directory for us: explicit, else $VAR/rocm-resolve (absolute only, as the
 * spec says a relative one is invalid), else ~/<fallback>/rocm-resolve */
static char *xdg_dir(const char *explicit_dir, const char *var, const char *fallback,
		     const char *(*getenv_fn)(const char *))
{
	const char *xdg = getenv_fn ? getenv_fn(var) : getenv(var);
	const char *home = getenv_fn ? getenv_fn("HOME") : getenv("HOME");

	if (explicit_dir && *explicit_dir)
		return rr_xstrdup(explicit_dir);
	if (xdg && xdg[0] == '/')
		return rr_xasprintf("%s/rocm-resolve", xdg);
	if (home && home[0] == '/') {
		/* HOME=/ (docker run --user): "/.local/share", not "//.local/share" */
		size_t n = strlen(home);
		while (n > 1 && home[n - 1] == '/')
			n--;
		return rr_xasprintf("%.*s/%s/rocm-resolve", n > 1 ? (int)n : 0, home, fallback);
	}
	return NULL;
}

/* what to set when the data directory cannot be made: where it came from says */
static char *data_dir_hint(const char *explicit_dir, const char *(*getenv_fn)(const char *))
{
	const char *xdg = getenv_fn ? getenv_fn("XDG_DATA_HOME") : getenv("XDG_DATA_HOME");
	const char *home = getenv_fn ? getenv_fn("HOME") : getenv("HOME");

	if (explicit_dir && *explicit_dir)
		return NULL;
	if (xdg && xdg[0] == '/')
		return rr_xasprintf("XDG_DATA_HOME is '%s': set it to a directory you may write",
				    xdg);
	return rr_xasprintf("it is under HOME ('%s'): set XDG_DATA_HOME to a directory you may "
			    "write (docker run --user leaves HOME=/)",
			    home ? home : "");
}

char *rr_flow_cache_dir(const char *explicit_dir, const char *(*getenv_fn)(const char *))
{
	return xdg_dir(explicit_dir, "XDG_CACHE_HOME", ".cache", getenv_fn);
}

static char *data_dir(const char *explicit_dir, const char *(*getenv_fn)(const char *))
{
	return xdg_dir(explicit_dir, "XDG_DATA_HOME", ".local/share", getenv_fn);
}

char *rr_flow_state_dir(const char *explicit_dir, const char *(*getenv_fn)(const char *))
{
	return xdg_dir(explicit_dir, "XDG_STATE_HOME", ".local/state", getenv_fn);
}

/* the venv (--venv, $VIRTUAL_ENV, $CONDA_PREFIX, /opt/venv, /opt/conda) or --stack FILE */
static rr_err load_env(const struct rr_flow_opts *o, struct rr_venv **ret, rr_error *err)
{
	struct rr_venv_opts vo = {0};
	enum rr_venv_origin origin;
	RR_AUTOFREE char *path = NULL;
	RR_AUTOFREE char *abs = NULL;
	rr_err rc;

	if (o->stack_file) {
		if (o->venv)
			return rr_fail(err, RR_E_USAGE, "--venv and --stack name two environments; "
							"give one");
		if (o->needs_live_env)
			return rr_fail(err, RR_E_USAGE, "%s needs the live environment, not a stack "
							"file (--stack is for plan, check and inspect)",
				       o->command ? o->command : "this command");
		return rr_stack_file_load(o->stack_file, ret, err);
	}
	vo.sysroot = o->sysroot;
	rc = rr_venv_locate(o->venv, env_of(o, "VIRTUAL_ENV"), env_of(o, "CONDA_PREFIX"), vo.sysroot,
			    &path, &origin, err);
	if (rc == RR_E_ENV && env_of(o, "PRE_COMMIT")) {
		/* pre-commit replaced VIRTUAL_ENV with the hook's own virtualenv, which the
		 * console script drops: the user can only name the venv in the hook's args */
		rr_error_release(err);
		return rr_fail(err, RR_E_ENV,
			       "no Python environment to check: pre-commit runs the hook in a "
			       "virtualenv of its own, and neither %s/opt/venv nor %s/opt/conda "
			       "exists; name the environment in .pre-commit-config.yaml: `args: "
			       "[--venv, /path/to/venv]` (or `args: [--stack, stack.json]`, a file "
			       "written by `rocm-resolve inspect --format json` in the container)",
			       o->sysroot ? o->sysroot : "", o->sysroot ? o->sysroot : "");
	}
	if (rc)
		return rc;
	/* an absolute root: paths in reports and RECORD checks do not depend on the cwd */
	abs = realpath(path, NULL);
	rc = rr_venv_load(abs ? abs : path, &vo, ret, err);
	return rc ? RR_E_ENV : RR_OK;
}

/* the words of a line pip's parser splits as given: quoted only when it must be */
static void add_word(struct rr_strbuf *line, const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "._-+/=:@,~%") == strlen(w)) {
		rr_strbuf_adds(line, w);
		return;
	}
	rr_strbuf_addch(line, '\'');
	for (const char *p = w; *p; p++)
		if (*p == '\'')
			rr_strbuf_adds(line, "'\"'\"'");
		else
			rr_strbuf_addch(line, *p);
	rr_strbuf_addch(line, '\'');
}

/*
 * lines of the command line (-c FILE, -e PATH) read as the same lines of a requirements
 * file would be (relative to the working directory): the plan refers to a constraints
 * file, or to its filtered copy, as it does for a file's own -c, and names an editable
 * project as a file's -e line does
 */
static rr_err load_command_line(struct rr_reqset *set, const char *text, size_t len, rr_error *err)
{
	static const char origin[] = "(command line)";
	rr_err rc = rr_reqfile_parse(set, origin, text, len, false, err);

	/* the text is no input file: the plan's inputs list the constraints file */
	for (size_t i = 0; i < set->nfiles; i++)
		if (strcmp(set->files[i], origin) == 0) {
			free(set->files[i]);
			memmove(&set->files[i], &set->files[i + 1],
				(set->nfiles - i - 1) * sizeof(*set->files));
			set->nfiles--;
			break;
		}
	return rc;
}

static rr_err load_constraints(struct rr_reqset *set, const char *path, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf line = RR_STRBUF_INIT;

	if (access(path, R_OK) != 0)
		return rr_fail(err, RR_E_IO, "-c '%s': cannot read it: %s", path, strerror(errno));
	rr_strbuf_adds(&line, "-c ");
	add_word(&line, path);
	rr_strbuf_addch(&line, '\n');
	return load_command_line(set, line.buf, line.len, err);
}

/* -e PATH, as uv's and pip's: a local project, installed editable */
static rr_err load_editables(struct rr_reqset *set, const struct rr_flow_opts *o, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf lines = RR_STRBUF_INIT;
	struct stat st;

	if (!o->neditables)
		return RR_OK;
	for (size_t i = 0; i < o->neditables; i++) {
		const char *path = o->editables[i];
		/* a URL (git+https://...) is the parser's to judge; a path must be a project */
		if (!strstr(path, "://") && stat(path, &st) != 0)
			return rr_fail(err, RR_E_USAGE, "-e '%s': no such project directory: %s",
				       path, strerror(errno));
		rr_strbuf_adds(&lines, "-e ");
		add_word(&lines, path);
		rr_strbuf_addch(&lines, '\n');
	}
	return load_command_line(set, lines.buf, lines.len, err);
}

static void *bind_main(void *arg)
{
	(void)arg;
	rr_index_bind();
	return NULL;
}

rr_err rr_flow_open(const struct rr_flow_opts *o, struct rr_flow **ret, rr_error *err)
{
	struct rr_flow *f = rr_xcalloc(1, sizeof(*f));
	struct rr_input_sel sel = {0};
	pthread_t binder;
	/* libcurl is bound beside the reading of the inputs and the environment, and the
	 * thread is joined before this returns: nothing of it is left running when a
	 * caller forks (an installer, the GPU check) */
	bool binding = o->want_inputs && !o->no_index && !o->provider &&
		       pthread_create(&binder, NULL, bind_main, NULL) == 0;
	rr_err rc;

	rc = rr_policy_load_default(&f->policy, err);
	for (size_t i = 0; !rc && i < o->npolicies; i++)
		rc = rr_policy_load_file(f->policy, o->policies[i], err);
	if (rc)
		goto fail;
	if (o->want_inputs) {
		if (!o->ninputs && !o->neditables) {
			rc = rr_fail(err, RR_E_USAGE,
				     "at least one INPUT is needed (a requirements file, "
				     "pyproject.toml, directory, uv.lock, pylock.toml or -, or "
				     "-e PATH)");
			goto fail;
		}
		sel.extras = o->extras;
		sel.nextras = o->nextras;
		sel.all_extras = o->all_extras;
		sel.groups = o->groups;
		sel.ngroups = o->ngroups;
		sel.all_groups = o->all_groups;
		sel.all_members = o->all_members;
		sel.uv_settings = o->uv_settings;
		/* a partly loaded set is released on failure too */
		f->have_reqs = true;
		for (size_t i = 0; !rc && i < o->ninputs; i++) {
			const char *in = o->inputs[i];
			if (rr_lock_format_of(in) != RR_LOCK_NONE) {
				/* read and checked now; what it installs is chosen for the env below */
				struct rr_lock *lk = &RR_PUSH(f->locks, f->nlocks, f->cap_locks);
				*lk = (struct rr_lock)RR_LOCK_INIT;
				rr_reqset_add_file(&f->reqs, in);
				rc = rr_lock_load(lk, in, err);
			} else {
				rc = rr_input_load(&f->reqs, in, &sel, err);
			}
		}
		if (!rc)
			rc = load_editables(&f->reqs, o, err);
		for (size_t i = 0; !rc && i < o->nconstraints; i++)
			rc = load_constraints(&f->reqs, o->constraints[i], err);
		if (rc)
			goto fail;
	}
	if (o->ca_file && access(o->ca_file, R_OK) != 0) {
		rc = rr_fail(err, RR_E_USAGE, "--cert '%s': cannot read it: %s", o->ca_file,
			     strerror(errno));
		goto fail;
	}
	rc = load_env(o, &f->venv, err);
	if (rc)
		goto fail;
	rc = rr_stack_compute(f->venv, f->policy, o->protect, o->nprotect, &f->stack, err);
	/* plan, check and install guard a stack: one that protects nothing is no answer */
	if (!rc && o->want_inputs)
		rc = rr_stack_require(f->stack, f->venv, err);
	if (rc)
		goto fail;
	if (f->nlocks) {
		/* a lock installs what its markers choose for this environment */
		struct rr_marker_env env;
		char pybuf[16];
		rr_venv_marker_env(f->venv, &env, pybuf);
		for (size_t i = 0; !rc && i < f->nlocks; i++)
			rc = rr_lock_select(&f->locks[i], &env, &sel, &f->reqs, err);
		if (rc)
			goto fail;
	}
	for (size_t i = 0; i < f->venv->nwarnings; i++)
		flow_warn(f, rr_xstrdup(f->venv->warnings[i]));
	for (size_t i = 0; i < f->stack->nwarnings; i++)
		flow_warn(f, rr_xstrdup(f->stack->warnings[i]));
	f->cache_dir = o->no_cache ? NULL : rr_flow_cache_dir(o->cache_dir, o->getenv_fn);
	f->data_dir = data_dir(o->data_dir, o->getenv_fn);
	if (binding)
		pthread_join(binder, NULL);
	*ret = f;
	return RR_OK;
fail:
	if (binding)
		pthread_join(binder, NULL);
	rr_flow_free(f);
	return rc;
}

rr_err rr_flow_reload_env(struct rr_flow *f, const struct rr_flow_opts *o, rr_error *err)
{
	struct rr_venv *v = NULL;
	struct rr_stack *st = NULL;
	rr_err rc = load_env(o, &v, err);

	if (!rc)
		rc = rr_stack_compute(v, f->policy, o->protect, o->nprotect, &st, err);
	if (rc) {
		rr_venv_free(v);
		return rc;
	}
	rr_stack_free(f->stack);
	rr_venv_free(f->venv);
	f->venv = v;
	f->stack = st;
	return RR_OK;
}

/* ---- step 4: the indexes ------------------------------------------------- */

/* where an index came from, which decides whether the plan writes it */
enum index_source {
	FROM_OPTION, /* rocm-resolve's command line: written */
	FROM_INPUT,  /* an input file's option line: written as written (${VAR} kept) */
	FROM_CONFIG, /* the installer's configuration: it reads it there itself */
	FROM_DEFAULT /* PyPI, which nobody chose: never written */
};

struct index_list {
	struct rr_flow *f;
	const struct rr_flow_opts *o;
	struct rr_plan_index *v;
	const char **urls; /* as used (owned, freed with the flow) */
	const char **written; /* as given (owned, freed with the flow) */
	size_t n, cap, ucap;
};

static void add_index(struct index_list *l, const char *url, const char *written,
		      const char *origin, bool primary, enum index_source src)
{
	const char *rule;
	struct rr_plan_index *x;
	bool removed;
	RR_AUTOFREE char *expanded = NULL;

	if (!url || !*url)
		return;
	/* an option or variable written with ${VAR} (quoted from the shell): asked with the
	 * value, written into the plan as given, as a requirements file's own line is */
	if (!written && strstr(url, "${")) {
		written = url;
		url = expanded = rr_reqfile_expand(url, l->o->getenv_fn);
	}
	if ((rule = rr_policy_match_cuda_index(l->f->policy, url))) {
		if (src == FROM_INPUT)
			return; /* the plan lists it among the stripped options */
		RR_AUTOFREE char *shown = rr_redact_credentials(written ? written : url);
		flow_warn(l->f, rr_xasprintf("%s: '%s' is a CUDA wheel index (%s): not asked, not "
					     "in the plan%s",
					     origin, shown, rule,
					     src == FROM_CONFIG ? "; the installer still reads it "
								  "there: take it out"
								: ""));
		return;
	}
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->urls[i], url) == 0)
			return;
	x = &RR_PUSH(l->v, l->n, l->cap);
	x->url = rr_strip_credentials(written ? written : url, &removed);
	x->credentials_removed = removed && src != FROM_CONFIG;
	x->origin = rr_xstrdup(origin);
	x->primary = primary;
	x->written = src == FROM_OPTION || src == FROM_INPUT;
	l->urls = rr_xrealloc(l->urls, l->cap * sizeof(*l->urls));
	l->urls[l->n - 1] = rr_xstrdup(url);
	l->written = rr_xrealloc(l->written, l->cap * sizeof(*l->written));
	l->written[l->n - 1] = rr_xstrdup(written ? written : url);
}

static bool is_opt(const struct rr_optline *op, const char *a, const char *b)
{
	return strcmp(op->name, a) == 0 || (b && strcmp(op->name, b) == 0);
}

/* the inputs' --extra-index-url lines (default false) or their last -i (default true) */
static void add_input_indexes(struct index_list *l, bool want_default)
{
	const struct rr_optline *last = NULL;

	for (size_t i = 0; i < l->f->reqs.nopts; i++) {
		const struct rr_optline *op = &l->f->reqs.opts[i];
		if (!op->value)
			continue;
		if (!want_default && is_opt(op, "--extra-index-url", NULL)) {
			RR_AUTOFREE char *origin = rr_xasprintf("%s:%u", op->path, op->line);
			/* asked with ${VAR} expanded; written into the plan as written */
			add_index(l, op->value_expanded, op->value, origin, false, FROM_INPUT);
		} else if (want_default && is_opt(op, "--index-url", "-i")) {
			last = op; /* the last one wins, as in pip */
		}
	}
	if (last) {
		RR_AUTOFREE char *origin = rr_xasprintf("%s:%u", last->path, last->line);
		add_index(l, last->value_expanded, last->value, origin, true, FROM_INPUT);
	}
}

/* the inputs' default index (the last --index-url wins, as in pip), or NULL */
static const char *input_default(const struct rr_flow *f)
{
	const char *last = NULL;

	for (size_t i = 0; i < f->reqs.nopts; i++)
		if (f->reqs.opts[i].value && is_opt(&f->reqs.opts[i], "--index-url", "-i"))
			last = f->reqs.opts[i].value_expanded;
	return last;
}

/* the same index, a trailing slash aside */
static bool same_url(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);

	na -= na && a[na - 1] == '/';
	nb -= nb && b[nb - 1] == '/';
	return na == nb && strncmp(a, b, na) == 0;
}

/* uv when it is on PATH, else pip: what `install` runs */
static enum rr_installer installer_of(const struct rr_flow_opts *o)
{
	RR_AUTOFREE char *uv = NULL;

	if (o->installer)
		return strcmp(o->installer, "pip") == 0 ? RR_INSTALLER_PIP : RR_INSTALLER_UV;
	uv = rr_file_which(env_of(o, "PATH"), "uv");
	return uv ? RR_INSTALLER_UV : RR_INSTALLER_PIP;
}

/*
 * the other installer's configuration names another default index: the plan,
 * piped to that one, would be installed from elsewhere than it was resolved
 * against
 */
static void warn_other_installer(struct rr_flow *f, const struct rr_config_env *ce,
				 const char *used)
{
	enum rr_installer other = f->config.installer == RR_INSTALLER_UV ? RR_INSTALLER_PIP
									 : RR_INSTALLER_UV;
	struct rr_installer_config oc;
	RR_AUTO_ERROR rr_error ignored = RR_ERROR_INIT;

	if (rr_config_load(other, ce, &oc, &ignored))
		return;
	if (oc.default_index.value && strcmp(oc.default_index.value, used) != 0) {
		RR_AUTOFREE char *shown = rr_redact_credentials(oc.default_index.value);
		flow_warn(f, rr_xasprintf("%s sets %s's default index to %s, which %s does not read: "
					  "this plan is for %s (--installer %s plans for %s)",
					  oc.default_index.origin, rr_installer_name(other), shown,
					  rr_installer_name(f->config.installer),
					  rr_installer_name(f->config.installer),
					  rr_installer_name(other), rr_installer_name(other)));
	}
	rr_config_release(&oc);
}

rr_err rr_flow_indexes(struct rr_flow *f, const struct rr_flow_opts *o, rr_error *err)
{
	struct index_list l = {.f = f, .o = o};
	/* a uv project's configuration is read from its root, as uv reads it */
	struct rr_config_env ce = {o->sysroot, o->cwd ? o->cwd : f->reqs.uv_root,
				   f->venv ? f->venv->root : NULL, o->getenv_fn};
	const struct rr_installer_config *c = &f->config;
	const char *plan_default_url = o->index_url ? o->index_url : input_default(f);
	bool plan_default = plan_default_url != NULL;
	bool use_config;
	const char *used_default;
	rr_err rc;

	rr_config_release(&f->config);
	if (o->config)
		rr_config_copy(&f->config, o->config);
	else if ((rc = rr_config_load(installer_of(o), &ce, &f->config, err)))
		return rc;
	/* pip lets the plan's --index-url replace every configured index */
	use_config = !(c->installer == RR_INSTALLER_PIP && plan_default);
	/* the indexes asked before the default, in the installer's order */
	for (size_t i = 0; use_config && i < c->nindexes; i++)
		add_index(&l, c->indexes[i].value, NULL, c->indexes[i].origin, false, FROM_CONFIG);
	for (size_t i = 0; i < o->nextra_index_urls; i++)
		add_index(&l, o->extra_index_urls[i], NULL, "--index", false, FROM_OPTION);
	add_input_indexes(&l, false);
	/* the default: uv prefers its configuration's to the plan's, pip the plan's */
	if (c->default_index.value && use_config &&
	    (c->installer == RR_INSTALLER_UV || !plan_default)) {
		/* the same index both ways (a uv.lock's registry, the project's own index) is no
		 * news */
		if (plan_default && !same_url(plan_default_url, c->default_index.value)) {
			RR_AUTOFREE char *shown = rr_redact_credentials(c->default_index.value);
			/* project makes no plan: the one who reads the index is `uv lock` */
			bool project = o->command && strcmp(o->command, "project") == 0;
			flow_warn(f, project
					 ? rr_xasprintf("%s sets the default index to %s, and "
							"`uv lock` takes it, not the --index-url "
							"given here: resolved against it",
							c->default_index.origin, shown)
					 : rr_xasprintf("%s sets the default index to %s, which uv "
							"prefers to the plan's --index-url: "
							"resolved against it (give uv "
							"--default-index, or --installer pip)",
							c->default_index.origin, shown));
		}
		add_index(&l, c->default_index.value, NULL, c->default_index.origin, true,
			  FROM_CONFIG);
	} else if (o->index_url) {
		add_index(&l, o->index_url, NULL, "--default-index", true, FROM_OPTION);
	} else if (plan_default) {
		add_input_indexes(&l, true);
	} else {
		add_index(&l, RR_DEFAULT_INDEX_URL, NULL, "default", true, FROM_DEFAULT);
	}
	f->indexes = l.v;
	f->nindexes = l.n;
	f->index_urls = l.urls;
	f->index_written = l.written;
	used_default = NULL;
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].primary)
			used_default = l.urls[i];
	/* told which installer, the user knows; guessed from PATH, say what the other reads */
	if (used_default && !o->installer && !o->config)
		warn_other_installer(f, &ce, used_default);
	return RR_OK;
}

/* ---- step 5: resolution -------------------------------------------------- */

/* the crawl never fetches fixed, forbidden or clashing names: the resolver never asks for them */
static const char *held_cb(void *opaque, const char *key)
{
	const struct rr_flow *f = opaque;
	const struct rr_protected *p = rr_stack_lookup(f->stack, key);

	return p ? p->version : NULL;
}

static bool index_file_of(const struct rr_candidate *c, struct rr_locked_file *ret)
{
	const struct rr_index_file *file = rr_index_provider_file(c);

	if (!file)
		return false;
	ret->url = file->url;
	ret->sha256 = file->sha256;
	ret->filename = file->filename;
	ret->index_url = file->index_url;
	ret->size = file->size;
	ret->is_wheel = file->is_wheel;
	return true;
}

static const char *find_links_of(const struct rr_candidate *c)
{
	const struct rr_index_file *file = rr_index_provider_file(c);

	return file && file->from_find_links ? file->index_url : NULL;
}

/*
 * for a lock: the index's file of each installed version the lock keeps that no
 * direct_url.json names (numpy under a protected torchvision), so that a pylock.toml
 * can name it and `uv pip sync` keeps the installed one; none found, none said
 */
static void find_installed_files(struct rr_flow *f, const struct rr_provider *prov)
{
	struct rr_plan_kept *kept = NULL;
	size_t n = rr_plan_kept_list(f->venv, f->stack, &f->res, &kept);

	for (size_t i = 0; i < n; i++) {
		const struct rr_dist *d = rr_venv_lookup(f->venv, kept[i].name);
		const struct rr_candidate *cs;
		size_t nc = 0;
		rr_error e = RR_ERROR_INIT;

		if (kept[i].url || !d ||
		    prov->candidates(prov->ctx, d->key, &cs, &nc, &e) != RR_OK) {
			rr_error_release(&e);
			continue;
		}
		for (size_t c = 0; c < nc; c++) {
			struct rr_locked_file file = {0};
			struct rr_locked *l;
			if (strcmp(cs[c].version_text, kept[i].version) ||
			    !index_file_of(&cs[c], &file) || !file.url || !file.sha256)
				continue;
			l = &RR_PUSH(f->res.installed_files, f->res.ninstalled_files,
				     f->res.cap_installed_files);
			memset(l, 0, sizeof(*l));
			l->name = rr_xstrdup(kept[i].name);
			l->version = rr_xstrdup(kept[i].version);
			l->url = rr_strip_credentials(file.url, NULL);
			l->sha256 = rr_xstrdup(file.sha256);
			l->filename = file.filename ? rr_xstrdup(file.filename) : NULL;
			l->index_url = file.index_url ? rr_strip_credentials(file.index_url, NULL)
						      : NULL;
			l->size = file.size;
			l->is_wheel = file.is_wheel;
			break;
		}
	}
	rr_plan_kept_release(kept, n);
}

static rr_err resolve(struct rr_flow *f, const struct rr_flow_opts *o, const bool *resolvable,
		      rr_error *err)
{
	struct rr_index_opts io = {0};
	struct rr_target target;
	struct rr_index_client *client = NULL;
	struct rr_index_provider *ip = NULL;
	struct rr_provider prov = {0};
	struct rr_provider_record *rec = NULL;
	struct rr_uv_filter *uvf = NULL;
	struct rr_transitive_input in = {0};
	RR_AUTOFREE const char **find_links = NULL;
	RR_AUTOFREE bool *relax = NULL;
	size_t nfl = 0;
	rr_err rc = RR_OK;

	if (o->provider) {
		prov = *o->provider;
	} else {
		io.index_urls = f->index_urls;
		io.nindex_urls = f->nindexes;
		io.cache_dir = f->cache_dir;
		io.no_cache = o->no_cache || !f->cache_dir;
		io.offline = o->offline || f->config.offline.value;
		io.refresh = o->refresh;
		io.timeout_ms = o->timeout_ms;
		/* --timeout bounds the whole network part too, not each request alone */
		io.deadline_ms = o->timeout_ms ? rr_index_now_ms() + o->timeout_ms : 0;
		/* the installer's configured find-links, then the inputs' */
		find_links = rr_xcalloc(f->config.nfind_links + f->reqs.nfind_links + 1,
					sizeof(*find_links));
		for (size_t i = 0; i < f->config.nfind_links; i++)
			find_links[nfl++] = f->config.find_links[i].value;
		for (size_t i = 0; i < f->reqs.nfind_links; i++)
			find_links[nfl++] = f->reqs.find_links[i];
		io.find_links = find_links;
		io.ca_file = o->ca_file ? o->ca_file : f->config.cert.value;
		io.observe = o->observe;
		io.sysroot = o->sysroot;
		io.observe_ctx = o->observe_ctx;
		io.nfind_links = nfl;
		io.user_agent = o->user_agent ? o->user_agent : "rocm-resolve/" RR_VERSION;
		io.max_parallel = 48; /* as many in flight as uv keeps (its default is 50) */
		rr_venv_target(f->venv, &target);
		io.target = &target; /* what no wheel of the venv's is, never kept in memory */
		rc = rr_index_client_new(&io, &client, err);
		if (rc)
			return rc;
		ip = rr_index_provider_new(client, f->venv, held_cb, f);
		rr_index_provider_get(ip, &prov);
		in.file_of = index_file_of;
		in.find_links_of = find_links_of;
		{
			/* the crawl starts at once, guided by what the user asked for */
			const struct rr_requirement **roots =
				rr_xcalloc(f->reqs.nitems + 1, sizeof(*roots));
			size_t n = 0;
			for (size_t i = 0; i < f->reqs.nitems; i++) {
				const struct rr_item *it = &f->reqs.items[i];
				if (resolvable[i] && !it->constraint && !it->editable && !it->req.url &&
				    it->kind != RR_ITEM_URL)
					roots[n++] = &it->req;
			}
			/* the stack's own pages: the input as written is resolved without the
			 * stack fixed (check), and asks for them; they come with the first batch */
			{
				const char **sk = rr_xcalloc(f->stack->n + 1, sizeof(*sk));
				for (size_t i = 0; i < f->stack->n; i++)
					sk[i] = f->stack->items[i].key;
				rr_index_provider_pages(ip, sk, f->stack->n);
				free(sk);
			}
			rr_index_provider_prefetch_roots(ip, roots, n);
			free(roots);
			in.prefetched = true;
		}
	}
	if (o->record) {
		rec = rr_provider_record_new(&prov);
		rr_provider_record_get(rec, &prov);
	}
	/* a uv project's exclude- and override-dependencies, on every package's lines */
	if ((uvf = rr_uv_filter_new(&prov, &f->reqs)))
		rr_uv_filter_get(uvf, &prov);
	/* each local project read from its metadata is a world of its own */
	struct rr_local_provider lp = {.base = prov, .locals = f->locals, .n = f->reqs.nitems};
	const struct rr_requirement **local_roots = rr_xcalloc(f->reqs.nitems + 1,
								sizeof(*local_roots));
	for (size_t i = 0; f->locals && i < f->reqs.nitems; i++)
		if (f->locals[i].found)
			local_roots[i] = &f->locals[i].root;
	if (f->locals)
		rr_local_provider_get(&lp, &prov);
	in.local_roots = local_roots;
	in.reqs = &f->reqs;
	in.resolvable = resolvable;
	/* a lock's exact versions the stack cannot have are planned as the bare name */
	for (size_t i = 0; f->nlocks && i < f->reqs.nitems; i++)
		if (f->reqs.items[i].exact_version) {
			relax = relax ? relax : rr_xcalloc(f->reqs.nitems + 1, sizeof(*relax));
			relax[i] = true;
		}
	in.relax = relax;
	in.alternatives = f->alts;
	in.venv = f->venv;
	in.policy = f->policy;
	in.stack = f->stack;
	in.provider = &prov;
	in.pre = o->pre || f->reqs.pre;
	in.allow_excludes = o->allow_excludes;
	in.deadline_ms = o->timeout_ms ? rr_index_now_ms() + o->timeout_ms : 0;
	rc = rr_transitive_resolve(&in, &f->res, err);
	/* a torch-bound ROCm build: what its extensions link is checked before it is kept; a
	 * release built for another torch is excluded and the next older one resolved; from
	 * the third round on, one that does not fit ends its project's search (resolved
	 * once more without it) */
	for (int round = 0; !rc && client && round < 8; round++) {
		if (!rr_flow_check_symbols(f, client, &prov, round >= 2))
			break;
		rr_resolution_release(&f->res);
		memset(&f->res, 0, sizeof(f->res));
		rc = rr_transitive_resolve(&in, &f->res, err);
	}
	if (!rc && client)
		rr_flow_symbol_notes(f);
	if (!rc) {
		char *const *pw;
		size_t npw = ip ? rr_index_provider_warnings(ip, &pw) : 0;
		f->resolved = true;
		for (size_t i = 0; i < npw; i++)
			flow_warn(f, rr_xstrdup(pw[i]));
		if (o->lock && ip)
			find_installed_files(f, &prov);
	} else if (client && (rc == RR_E_PARSE || rc == RR_E_DATA || rc == RR_E_LIMIT ||
			      rc == RR_E_IO || rc == RR_E_UNSUPPORTED || rc == RR_E_USAGE)) {
		/* the inputs were parsed before this step: bad data met while resolving
		 * (malformed JSON, a hash mismatch, an oversized answer) came from the
		 * index, an environment problem, not the user's input */
		rc = RR_E_ENV;
		if (err)
			err->code = rc;
	}
	if (client) {
		struct rr_index_stats st;
		rr_index_client_stats(client, &st);
		f->requests = st.requests;
		f->bytes = st.bytes;
		f->cache_hits = st.cache_hits;
		f->range_requests = st.range_requests;
		f->whole_files = st.whole_files;
		f->guesses = st.guesses;
		f->guesses_used = st.guesses_used;
		f->guess_bytes_unused = st.guess_bytes_unused;
	}
	if (rec) {
		struct rr_strbuf w = RR_STRBUF_INIT;
		rr_provider_record_format(rec, &w);
		f->world = rr_strbuf_detach(&w, NULL);
		rr_provider_record_free(rec);
	}
	free(local_roots);
	rr_uv_filter_free(uvf);
	rr_index_provider_free(ip);
	rr_index_client_free(client);
	return rc;
}

/*
 * a requirement on a project that no index has, or whose page lists nothing,
 * is a typo or a broken mirror: an index problem, never a silent strip
 */
static rr_err check_found(struct rr_flow *f, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf names = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf where = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf whys = RR_STRBUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < f->res.nitems; i++) {
		const struct rr_item_result *r = &f->res.items[i];
		const struct rr_item *it = &f->reqs.items[r->item];
		if (!r->not_found)
			continue;
		rr_strbuf_addf(&names, "%s%s:%u: '%s'", n++ ? ", " : "", it->path ? it->path : "-",
			       it->line, it->req.name);
		if (r->not_found_why)
			rr_strbuf_addf(&whys, "; %s", r->not_found_why);
	}
	if (!n)
		return RR_OK;
	for (size_t i = 0; i < f->nindexes; i++)
		rr_strbuf_addf(&where, "%s%s", i ? ", " : "", f->indexes[i].url);
	return rr_fail(err, RR_E_NOTFOUND,
		       "no index has %s %s (asked: %s); check the name, or the index (a broken "
		       "mirror answers with an empty page)%s",
		       n == 1 ? "the project" : "the projects", names.buf, where.buf,
		       whys.len ? whys.buf : "");
}

/*
 * the input as written cannot be installed, with the stack or without it (a
 * version no index has, two lines that exclude each other): the user's error,
 * never a silent strip; the whole derivation follows the first line
 */
static rr_err check_conflict(struct rr_flow *f, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf names = RR_STRBUF_INIT;
	size_t n = f->res.nconflict_items;

	if (!f->res.conflict)
		return RR_OK;
	for (size_t i = 0; i < n; i++) {
		const struct rr_item *it = &f->reqs.items[f->res.conflict_items[i]];
		RR_AUTOFREE char *shown = rr_redact_credentials(it->text ? it->text : it->req.name);
		rr_strbuf_addf(&names, "%s%s:%u: '%s'", i ? (i + 1 == n ? " and " : ", ") : "",
			       it->path ? it->path : "-", it->line, shown);
	}
	return rr_fail(err, RR_E_CONFLICT, "%s %s, with the ROCm stack or without it; %s:\n%s",
		       n ? names.buf : "the requirements",
		       n == 1 ? "cannot be installed" : "exclude each other",
		       !f->res.conflict_uv_ok
			       ? (n == 1 ? "uv and pip refuse it too" : "uv and pip refuse them too")
			       : (n == 1 ? "pip refuses it, uv would take it: uv ignores Requires-Python "
					   "upper bounds"
					 : "pip refuses them, uv would take them: uv ignores "
					   "Requires-Python upper bounds"),
		       f->res.conflict);
}

/* the ROCm release of the protected torch ("7.2" of HIP 7.2.26015 or of +rocm7.2.0) */
static bool rocm_release(const struct rr_venv *v, int *major, int *minor)
{
	const char *s = v->torch_hip;
	const char *label = v->torch_version ? strstr(v->torch_version, "+rocm") : NULL;

	if (!s && label)
		s = label + 5;
	if (!s || sscanf(s, "%d.%d", major, minor) != 2 || *major <= 0 || *minor < 0 || *minor > 99)
		return false;
	return true;
}

/* text with every {key} replaced by value */
static char *expand(const char *text, const char *key, const char *value)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	size_t n = strlen(key);

	for (const char *p = text; *p;) {
		if (strncmp(p, key, n) == 0) {
			rr_strbuf_adds(&sb, value);
			p += n;
		} else {
			rr_strbuf_addch(&sb, *p++);
		}
	}
	return rr_strbuf_detach(&sb, NULL);
}

/*
 * the ROCm builds of each line that has them (policy rocm_counterpart), for this runtime:
 * every ' | ' choice in order, {name} the line's name, {major} the runtime's ROCm major,
 * {minor} each minor from the runtime's down to 0; each keeps the line's extras,
 * specifiers and marker. A choice of several distributions (' + ') is left out: one
 * line becomes one line. A line that is not CUDA-only is its own last choice
 */
static void find_counterparts(struct rr_flow *f)
{
	int major, minor;

	if (f->alts)
		return;
	f->alts = rr_xcalloc(f->reqs.nitems + 1, sizeof(*f->alts));
	f->alt_rules = rr_xcalloc(f->reqs.nitems + 1, sizeof(*f->alt_rules));
	if (!rocm_release(f->venv, &major, &minor))
		return;
	for (size_t i = 0; i < f->reqs.nitems; i++) {
		const struct rr_item *it = &f->reqs.items[i];
		const struct rr_policy_rule *rule;
		struct rr_requirement *reqs = NULL;
		size_t n = 0, cap = 0;
		char mj[16], mn[16];
		RR_AUTOFREE char *written = NULL;
		RR_AUTOFREE char *choices = NULL;
		char *save = NULL;

		if (it->constraint || it->editable || it->kind == RR_ITEM_URL || it->req.url ||
		    !it->req.key || !(rule = rr_policy_match_counterpart(f->policy, it->req.key)) ||
		    !rule->rocm)
			continue;
		written = rr_requirement_to_string(&it->req);
		snprintf(mj, sizeof(mj), "%d", major);
		choices = expand(rule->rocm, "{major}", mj);
		for (char *c = strtok_r(choices, "|", &save); c; c = strtok_r(NULL, "|", &save)) {
			RR_AUTOFREE char *name = NULL;
			while (*c == ' ')
				c++;
			for (char *e = c + strlen(c); e > c && e[-1] == ' ';)
				*--e = '\0';
			if (!*c || strchr(c, '+'))
				continue;
			name = expand(c, "{name}", it->req.name);
			for (int m = strstr(name, "{minor}") ? minor : 0; m >= 0; m--) {
				RR_AUTOFREE char *one = NULL;
				RR_AUTOFREE char *text = NULL;
				snprintf(mn, sizeof(mn), "%d", m);
				one = expand(name, "{minor}", mn);
				text = rr_xasprintf("%s%s", one, written + strlen(it->req.name));
				struct rr_requirement *r = &RR_PUSH(reqs, n, cap);
				*r = (struct rr_requirement)RR_REQUIREMENT_INIT;
				if (rr_requirement_parse(text, r, NULL)) {
					rr_requirement_release(r);
					n--;
				}
			}
		}
		/* a line that is not CUDA-only (an sdist whose build needs torch) is itself
		 * the last choice */
		if (n && !rr_policy_match_cuda_only(f->policy, it->req.key)) {
			struct rr_requirement *r = &RR_PUSH(reqs, n, cap);
			*r = (struct rr_requirement)RR_REQUIREMENT_INIT;
			if (rr_requirement_parse(written, r, NULL)) {
				rr_requirement_release(r);
				n--;
			}
		}
		f->alts[i].reqs = reqs;
		f->alts[i].n = n;
		f->alt_rules[i] = n ? rule : NULL;
	}
}

/* the local projects the lines name (paths, file:// URLs, -e), read once */
static void read_locals(struct rr_flow *f)
{
	if (f->locals)
		return;
	f->locals = rr_xcalloc(f->reqs.nitems + 1, sizeof(*f->locals));
	f->plan_locals = rr_xcalloc(f->reqs.nitems + 1, sizeof(*f->plan_locals));
	for (size_t i = 0; i < f->reqs.nitems; i++) {
		struct rr_local *l = &f->locals[i];
		char *warning = NULL;
		rr_local_read(l, &f->reqs.items[i], f->venv, f->stack, f->policy, &warning);
		if (warning)
			flow_warn(f, warning);
		if (!l->found)
			continue;
		f->plan_locals[i] = (struct rr_plan_local){.name = l->name, .key = l->key,
							   .source = l->source,
							   .unknown = l->unknown,
							   .conflicts = l->conflicts};
	}
}

static rr_err plan_once(struct rr_flow *f, const struct rr_flow_opts *o, rr_error *err)
{
	struct rr_plan_input in = {0};
	RR_AUTOFREE char *scratch = f->data_dir ? rr_xasprintf("%s/constraints", f->data_dir) : NULL;
	RR_AUTOFREE char *hint = data_dir_hint(o->data_dir, o->getenv_fn);
	RR_AUTOFREE bool *resolvable = rr_xcalloc(f->reqs.nitems + 1, sizeof(bool));
	RR_AUTOFREE char *no_index_why = NULL;
	rr_err rc;

	rc = rr_flow_indexes(f, o, err);
	if (rc)
		return rc;
	read_locals(f);
	find_counterparts(f);
	in.local = f->plan_locals;
	in.alternatives = f->alts;
	in.alternative_rules = f->alt_rules;
	in.reqs = &f->reqs;
	in.venv = f->venv;
	in.policy = f->policy;
	in.stack = f->stack;
	in.scratch_dir = scratch;
	in.scratch_hint = hint;
	in.indexes = f->indexes;
	in.nindexes = f->nindexes;
	in.installer = rr_installer_name(f->config.installer);
	if (o->no_index)
		in.unresolved = "--no-index";
	else if (f->reqs.no_index)
		in.unresolved = "the requirements say --no-index";
	else if (f->config.no_index.value)
		in.unresolved = no_index_why =
			rr_xasprintf("%s's configuration says no-index: %s",
				     rr_installer_name(f->config.installer), f->config.no_index.origin);
	else {
		rr_plan_classify(&in, resolvable);
		rc = resolve(f, o, resolvable, err);
		/* the hooks' one network rule: an index that cannot be reached and one that
		 * keeps failing (HTTP 5xx after the retries) are the same - the cache, else the
		 * lines alone, said; never a failed check for want of a network, unless
		 * require_index (CI) makes "not checked" an error */
		if ((rc == RR_E_NETWORK || rc == RR_E_HTTP) && o->offline_fallback) {
			struct rr_flow_opts off = *o;
			bool offline = o->offline || f->config.offline.value;
			RR_AUTOFREE char *why =
			    offline ? rr_xstrdup("offline: --offline or $UV_OFFLINE")
				    : rr_xasprintf("the index could not be used: %s",
						   err && err->msg ? err->msg : "no network");
			rr_resolution_release(&f->res);
			rr_error_release(err);
			off.offline = true;
			rc = offline ? RR_E_NETWORK : resolve(f, &off, resolvable, err);
			if (!rc) {
				flow_warn(f, rr_xasprintf("%s: answered from the cache", why));
			} else if (rc == RR_E_NETWORK && o->require_index) {
				rr_error_release(err);
				return rr_fail(err, RR_E_NETWORK,
					       "%s, and the cache does not hold everything: the "
					       "dependencies cannot be checked, and "
					       "ROCM_RESOLVE_REQUIRE_INDEX demands that they are",
					       why);
			} else if (rc == RR_E_NETWORK) {
				flow_warn(
				    f, rr_xasprintf("%s, and the cache does not hold everything: "
						    "dependencies were NOT checked, only the lines "
						    "themselves",
						    why));
				rr_resolution_release(&f->res);
				rr_error_release(err);
				in.unresolved = offline ? "offline, not all in the cache"
							: "no index usable, not all in the cache";
				return rr_plan_build(&in, &f->plan, err);
			}
		}
		if (rc)
			return rc;
		rc = check_found(f, err);
		if (!rc)
			rc = check_conflict(f, err);
		if (rc)
			return rc;
		in.res = &f->res;
	}
	return rr_plan_build(&in, &f->plan, err);
}

static void free_indexes(struct rr_flow *f)
{
	for (size_t i = 0; i < f->nindexes; i++) {
		free(f->indexes[i].url);
		free(f->indexes[i].origin);
		free((char *)f->index_urls[i]);
		free((char *)f->index_written[i]);
	}
	free(f->indexes);
	free(f->index_urls);
	free(f->index_written);
	f->indexes = NULL;
	f->index_urls = NULL;
	f->index_written = NULL;
	f->nindexes = 0;
}

rr_err rr_flow_plan(struct rr_flow *f, const struct rr_flow_opts *o, rr_error *err)
{
	return plan_once(f, o, err);
}

struct rr_flow *rr_flow_free(struct rr_flow *f)
{
	if (!f)
		return NULL;
	rr_plan_free(f->plan);
	for (size_t i = 0; f->locals && i < f->reqs.nitems; i++)
		rr_local_release(&f->locals[i]);
	free(f->locals);
	free(f->plan_locals);
	for (size_t i = 0; f->alts && i < f->reqs.nitems; i++) {
		for (size_t k = 0; k < f->alts[i].n; k++)
			rr_requirement_release((struct rr_requirement *)&f->alts[i].reqs[k]);
		free((void *)f->alts[i].reqs);
	}
	free(f->alts);
	free(f->alt_rules);
	for (size_t i = 0; f->symbol_notes && i < f->reqs.nitems; i++)
		free(f->symbol_notes[i]);
	free(f->symbol_notes);
	rr_resolution_release(&f->res);
	free_indexes(f);
	rr_config_release(&f->config);
	for (size_t i = 0; i < f->nwarnings; i++)
		free(f->warnings[i]);
	free(f->warnings);
	free(f->cache_dir);
	free(f->data_dir);
	free(f->world);
	f->stack = rr_stack_free(f->stack);
	f->venv = rr_venv_free(f->venv);
	if (f->have_reqs)
		rr_reqset_release(&f->reqs);
	for (size_t i = 0; i < f->nlocks; i++)
		rr_lock_release(&f->locks[i]);
	free(f->locks);
	f->policy = rr_policy_free(f->policy);
	free(f);
	return NULL;
}

const struct rr_policy *rr_flow_policy(const struct rr_flow *f)
{
	return f->policy;
}

const struct rr_reqset *rr_flow_reqs(const struct rr_flow *f)
{
	return &f->reqs;
}

const struct rr_venv *rr_flow_venv(const struct rr_flow *f)
{
	return f->venv;
}

const struct rr_stack *rr_flow_stack(const struct rr_flow *f)
{
	return f->stack;
}

const struct rr_plan *rr_flow_get_plan(const struct rr_flow *f)
{
	return f->plan;
}

struct rr_plan *rr_flow_take_plan(struct rr_flow *f)
{
	return RR_STEAL(f->plan);
}

char *const *rr_flow_warnings(const struct rr_flow *f, size_t *n)
{
	*n = f->nwarnings;
	return f->warnings;
}

void rr_flow_stats(const struct rr_flow *f, struct rr_flow_stats *st)
{
	*st = (struct rr_flow_stats){.resolved = f->resolved,
				     .packages = f->res.nlocked,
				     .steps = f->res.steps,
				     .requests = f->requests,
				     .bytes = f->bytes,
				     .cache_hits = f->cache_hits,
				     .range_requests = f->range_requests,
				     .whole_files = f->whole_files,
				     .guesses = f->guesses,
				     .guesses_used = f->guesses_used,
				     .guess_bytes_unused = f->guess_bytes_unused};
}

const char *rr_flow_world(const struct rr_flow *f)
{
	return f->world;
}

const char *rr_flow_data_dir(const struct rr_flow *f)
{
	return f->data_dir;
}

enum rr_installer rr_flow_installer(const struct rr_flow *f)
{
	return f->config.installer;
}

const struct rr_plan_index *rr_flow_index_list(const struct rr_flow *f, size_t *n)
{
	*n = f->nindexes;
	return f->indexes;
}

const char *rr_flow_index_written(const struct rr_flow *f, size_t i)
{
	return i < f->nindexes ? f->index_written[i] : NULL;
}
