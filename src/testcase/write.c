/*
 * write.c - --write-testcase DIR: a real run written as a scenario that rr_testcase_run
 * replays with no network and no venv (libsolv's testcase_write is the model), so a
 * user's bug report becomes a test without C. What goes where: testcase.h.
 *
 * A bug report is made to be shared, so nothing in it is a secret: the userinfo of every
 * URL in a copied input and in the option line is redacted unless it is ${VAR} references
 * (stack.json carries direct URLs with their passwords redacted already). And it is
 * written where nothing of the user's can be lost: DIR is new, empty, or holds only what
 * an earlier run wrote there (its manifest says which names); it is opened once, without
 * following a symlink, and every file is written relative to that descriptor through a
 * temporary name and renameat(), never over a file this function did not write.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/flow.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/testcase.h"

#define CASE_NAME "case.t"
#define STACK_NAME "stack.json"

struct out_dir {
	const char *path;
	int fd;
	struct rr_strv ours; /* what the manifest of an earlier run lists */
	struct rr_strv wrote;
};

/* text with every occurrence of from replaced by to */
static char *replace_all(const char *text, const char *from, const char *to)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	size_t n = strlen(from);
	const char *p = text;
	const char *hit;

	if (!n)
		return rr_xstrdup(text);
	while ((hit = strstr(p, from))) {
		rr_strbuf_add(&sb, p, (size_t)(hit - p));
		rr_strbuf_adds(&sb, to);
		p = hit + n;
	}
	rr_strbuf_adds(&sb, p);
	return rr_strbuf_detach(&sb, NULL);
}

static void replace_in(char **text, const char *from, const char *to)
{
	char *next = replace_all(*text, from, to);

	free(*text);
	*text = next;
}

/* text as a scenario's inline block: each line behind "#>" */
static void add_block(struct rr_strbuf *tc, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		rr_strbuf_addf(tc, "#>%.*s\n", (int)n, p);
		p += n + (p[n] ? 1 : 0);
	}
}

/* text with literal credentials redacted; *redacted set when that changed something */
static char *redacted(const char *text, bool *any)
{
	char *r = rr_redact_credentials(text);

	if (strcmp(r, text) != 0)
		*any = true;
	return r;
}

static bool listed(const struct rr_strv *v, const char *name)
{
	return rr_strv_find(v, name) >= 0;
}

static rr_err in_the_way(const struct out_dir *d, const char *name, const char *what,
			 rr_error *err)
{
	return rr_fail(err, RR_E_USAGE,
		       "--write-testcase '%s': it holds '%s'%s, which --write-testcase did not "
		       "write; give a new or empty directory",
		       d->path, name, what);
}

/*
 * DIR made or opened (never through a symlink) and checked: empty, or holding only the
 * manifest and the names it lists, each a regular file
 */
static rr_err open_dir(struct out_dir *d, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf man = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
	struct stat st;
	DIR *dir;
	struct dirent *de;
	rr_err rc = RR_OK;

	if (mkdir(d->path, 0755) && errno != EEXIST)
		return rr_fail(err, RR_E_USAGE, "--write-testcase: cannot create '%s': %s", d->path,
			       strerror(errno));
	if (lstat(d->path, &st))
		return rr_fail(err, RR_E_USAGE, "--write-testcase '%s': %s", d->path, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return rr_fail(err, RR_E_USAGE,
			       "--write-testcase '%s' is a symbolic link: give a new or empty "
			       "directory (it is never written through a link)",
			       d->path);
	if (!S_ISDIR(st.st_mode))
		return rr_fail(err, RR_E_USAGE, "--write-testcase '%s' is not a directory", d->path);
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0)
		return rr_fail(err, RR_E_USAGE, "--write-testcase: cannot open '%s': %s", d->path,
			       strerror(errno));
	rc = rr_file_read(d->fd, RR_TESTCASE_MANIFEST, 1 << 20, RR_FILE_NOFOLLOW,
			  RR_TESTCASE_MANIFEST, &man, &e);
	if (rc == RR_OK) {
		for (const char *p = man.buf; *p;) {
			size_t n = strcspn(p, "\n");
			if (n && p[0] != '#' && !memchr(p, '/', n) && strncmp(p, ".", n) &&
			    strncmp(p, "..", n))
				rr_strv_pushn(&d->ours, p, n);
			p += n + (p[n] ? 1 : 0);
		}
	} else if (rc != RR_E_NOTFOUND) {
		return rr_fail(err, RR_E_USAGE, "--write-testcase '%s': %s", d->path, e.msg);
	}
	rc = RR_OK;
	dir = fdopendir(dup(d->fd));
	if (!dir)
		return rr_fail(err, RR_E_USAGE, "--write-testcase: cannot list '%s': %s", d->path,
			       strerror(errno));
	while (!rc && (de = readdir(dir))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (!strcmp(n, RR_TESTCASE_MANIFEST) && !man.len && !d->ours.n)
			rc = in_the_way(d, n, " (not a manifest)", err);
		else if (strcmp(n, RR_TESTCASE_MANIFEST) && !listed(&d->ours, n))
			rc = in_the_way(d, n, "", err);
		else if (fstatat(d->fd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
			rc = in_the_way(d, n, S_ISLNK(st.st_mode) ? " (a symbolic link)"
								  : " (not a regular file)",
					err);
	}
	closedir(dir);
	return rc;
}

/*
 * name written in DIR: only where nothing is, or where the earlier run's regular file
 * is (checked again here: the directory is the user's, it may have changed since)
 */
static rr_err put(struct out_dir *d, const char *name, const char *data, size_t len,
		  rr_error *err)
{
	RR_AUTOFREE char *shown = rr_xasprintf("%s/%s", d->path, name);
	struct stat st;

	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (!S_ISREG(st.st_mode) ||
	     (!listed(&d->ours, name) && !listed(&d->wrote, name) &&
	      strcmp(name, RR_TESTCASE_MANIFEST) != 0)))
		return in_the_way(d, name, S_ISREG(st.st_mode) ? "" : " (not a regular file)", err);
	if (rr_file_write_atomic_at(d->fd, name, data, len, 0644, shown, err))
		return err ? err->code : RR_E_IO;
	if (strcmp(name, RR_TESTCASE_MANIFEST) != 0)
		rr_strv_push_unique(&d->wrote, name);
	return RR_OK;
}

static rr_err put_manifest(struct out_dir *d, const struct rr_strv *a, const struct rr_strv *b,
			   rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf m = RR_STRBUF_INIT;

	rr_strbuf_adds(&m, "# written by rocm-resolve --write-testcase: the files below are its "
			   "own, and the next\n# --write-testcase into this directory may replace "
			   "or remove them\n");
	for (size_t i = 0; a && i < a->n; i++)
		rr_strbuf_addf(&m, "%s\n", a->v[i]);
	for (size_t i = 0; b && i < b->n; i++)
		if (!a || !listed(a, b->v[i]))
			rr_strbuf_addf(&m, "%s\n", b->v[i]);
	return put(d, RR_TESTCASE_MANIFEST, m.buf, m.len, err);
}

static bool is_top_level(const struct rr_flow_opts *o, const char *path)
{
	for (size_t i = 0; i < o->ninputs; i++)
		if (strcmp(o->inputs[i], path) == 0)
			return true;
	return false;
}

static const char *constraint_given(const struct rr_flow_opts *o, const char *path)
{
	for (size_t i = 0; i < o->nconstraints; i++)
		if (strcmp(o->constraints[i], path) == 0)
			return o->constraints[i];
	return NULL;
}

/* the base name a copied input gets: its own, unless taken, reserved or no name at all */
static char *copy_name(const char *file, size_t idx, const struct rr_strv *taken)
{
	const char *slash = strrchr(file, '/');
	const char *base = slash ? slash + 1 : file;

	if (!*base || !strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, CASE_NAME) ||
	    !strcmp(base, STACK_NAME) || !strcmp(base, RR_TESTCASE_MANIFEST) || base[0] == '.' ||
	    listed(taken, base))
		return rr_xasprintf("%zu-%s", idx + 1, *base && base[0] != '.' ? base : "input.txt");
	return rr_xstrdup(base);
}

/* the files copied beside case.t: from[i] (as the run named it) is to[i] there */
struct copies {
	struct rr_strv from, to;
};

static const char *copy_of(const struct copies *c, const char *path)
{
	for (size_t i = 0; i < c->from.n; i++)
		if (strcmp(c->from.v[i], path) == 0)
			return c->to.v[i];
	return NULL;
}

/*
 * the option words of case.t: what the run found (its indexes, with where each came
 * from; the installer), then every option of the run's table that changes the answer,
 * as given, or (a file) by the name of its copy
 */
static void add_option_words(const struct rr_flow *f, const struct rr_flow_opts *o,
			     const struct copies *copies, struct rr_strbuf *opt, bool *any)
{
	size_t nindexes, ntable;
	const struct rr_plan_index *indexes = rr_flow_index_list(f, &nindexes);
	const struct rr_run_option *table = rr_run_options(&ntable);

	for (size_t i = 0; i < nindexes; i++) {
		const struct rr_plan_index *x = &indexes[i];
		RR_AUTOFREE char *shown = NULL;
		if (x->written && strchr(x->origin, ':') && strncmp(x->origin, "--", 2) != 0)
			continue; /* from a requirements file: the copied file carries it */
		if (strcmp(x->origin, "default") == 0)
			continue;
		/* as given, ${VAR} kept, a literal secret redacted: the plan strips it alike */
		shown = redacted(rr_flow_index_written(f, i), any);
		if (!x->written) /* the installer's configuration: the replay reads none */
			rr_strbuf_addf(opt, " %s %s %s",
				       x->primary ? "--config-default-index" : "--config-index",
				       x->origin, shown);
		else
			rr_strbuf_addf(opt, " %s %s", x->primary ? "--index-url" : "--extra-index-url",
				       shown);
	}
	for (size_t t = 0; t < ntable; t++) {
		const struct rr_run_option *d = &table[t];
		size_t n;
		if (!d->resolves || !rr_run_option_given(o, d, &n))
			continue;
		for (size_t i = 0; i < n; i++) {
			const char *v = rr_run_option_value(o, d, i);
			if (d->replay == RR_REPLAY_FILE && !(v = copy_of(copies, v)))
				continue; /* not copied: the notes say so */
			if (d->replay == RR_REPLAY_AS_GIVEN || d->replay == RR_REPLAY_FILE)
				rr_strbuf_addf(opt, " %s%s%s", d->word, v ? " " : "", v ? v : "");
		}
	}
	rr_strbuf_addf(opt, " --installer %s", rr_installer_name(rr_flow_installer(f)));
}

/* the name each --policy file gets beside case.t (after the inputs' names) */
static void policy_names(const struct rr_flow *f, const struct rr_flow_opts *o,
			 struct rr_strv *taken, struct rr_strv *ret)
{
	size_t nfiles = rr_flow_reqs(f)->nfiles;

	for (size_t i = 0; i < o->npolicies; i++) {
		char *name = copy_name(o->policies[i], nfiles + i, taken);
		rr_strv_push(taken, name);
		rr_strv_take(ret, name);
	}
}

static rr_err write_case(struct out_dir *d, const struct rr_flow *f, const struct rr_flow_opts *o,
			 const struct rr_plan *plan, struct rr_strv *notes, rr_error *err)
{
	const struct rr_reqset *rs = rr_flow_reqs(f);
	RR_AUTO_STRBUF struct rr_strbuf stack = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf tc = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf body = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf outcome = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf opt = RR_STRBUF_INIT;
	struct rr_strv names = RR_STRV_INIT;
	struct rr_strv pnames = RR_STRV_INIT;
	struct copies copies = {RR_STRV_INIT, RR_STRV_INIT};
	RR_AUTOFREE char *shown = NULL;
	bool any = false;
	rr_err rc;

	rr_stack_file_format(rr_flow_venv(f), rr_flow_stack(f), &stack);
	rc = put(d, STACK_NAME, stack.buf, stack.len, err);
	rr_plan_format_outcome(plan, &outcome);
	shown = rr_xstrdup(outcome.buf);
	for (size_t i = 0; !rc && i < rs->nfiles; i++) {
		RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
		RR_AUTOFREE char *name = copy_name(rs->files[i], i, &names);
		RR_AUTOFREE char *text = NULL;
		RR_AUTOFREE char *to = NULL;

		rr_strv_push(&names, name);
		if (strcmp(rs->files[i], "-") == 0 ||
		    rr_file_read(AT_FDCWD, rs->files[i], RR_REQFILE_MAX_SIZE, 0, rs->files[i], &body,
				 &e)) {
			rr_strv_take(notes, rr_xasprintf("--write-testcase: cannot copy '%s'%s%s",
							 rs->files[i], e.msg ? ": " : " (standard input)",
							 e.msg ? e.msg : ""));
			continue;
		}
		text = redacted(body.buf, &any);
		rc = put(d, name, text, strlen(text), err);
		if (rc)
			break;
		/* a -c FILE of the command line is written as a file, and named by the option */
		if (constraint_given(o, rs->files[i])) {
			rr_strv_push(&copies.from, rs->files[i]);
			rr_strv_push(&copies.to, name);
		}
		rr_strbuf_addf(&tc, "%s %s %s\n", is_top_level(o, rs->files[i]) ? "input" : "file",
			       name, name);
		to = rr_xasprintf("@DIR@/%s", name);
		replace_in(&shown, rs->files[i], to);
	}
	/* each --policy file, as a file the option names */
	policy_names(f, o, &names, &pnames);
	for (size_t i = 0; !rc && i < o->npolicies; i++) {
		RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
		rr_strbuf_reset(&body);
		if (rr_file_read(AT_FDCWD, o->policies[i], RR_REQFILE_MAX_SIZE, 0, o->policies[i],
				 &body, &e)) {
			rr_strv_take(notes, rr_xasprintf("--write-testcase: cannot copy '%s': %s",
							 o->policies[i], e.msg));
			continue;
		}
		RR_AUTOFREE char *text = redacted(body.buf, &any);
		rc = put(d, pnames.v[i], text, strlen(text), err);
		rr_strv_push(&copies.from, o->policies[i]);
		rr_strv_push(&copies.to, pnames.v[i]);
		rr_strbuf_addf(&tc, "file %s %s\n", pnames.v[i], pnames.v[i]);
	}
	if (!rc) {
		RR_AUTO_STRBUF struct rr_strbuf head = RR_STRBUF_INIT;
		if (rr_flow_data_dir(f))
			replace_in(&shown, rr_flow_data_dir(f), "@DIR@/data");
		add_option_words(f, o, &copies, &opt, &any);
		rr_strbuf_addf(&head, "# written by rocm-resolve %s --write-testcase; replay with "
				      "`rr-testcase %s/%s`\n# (see rocm-resolve-scenario(5))\n",
			       RR_VERSION, d->path, CASE_NAME);
		if (any)
			rr_strbuf_adds(&head, "# credentials in URLs were redacted (***): the replay "
					      "asks no index and needs none; to run the inputs\n"
					      "# against the index again, give them to rocm-resolve "
					      "and the installers through ~/.netrc,\n# a keyring, "
					      "or ${VAR} references in the URLs (pip's and uv's own "
					      "way)\n");
		rr_strbuf_addf(&head, "stack %s\nindex recorded 0 tags <inline>\n", STACK_NAME);
		if (rr_flow_world(f)) {
			RR_AUTOFREE char *world = redacted(rr_flow_world(f), &any);
			add_block(&head, world);
		}
		rr_strbuf_add(&head, tc.buf, tc.len);
		if (opt.len)
			rr_strbuf_addf(&head, "option%s\n", opt.buf);
		rr_strbuf_adds(&head, "result plan,decisions,check,excludes <inline>\n");
		add_block(&head, shown);
		rc = put(d, CASE_NAME, head.buf, head.len, err);
	}
	rr_strv_release(&names);
	rr_strv_release(&pnames);
	rr_strv_release(&copies.from);
	rr_strv_release(&copies.to);
	return rc;
}

rr_err rr_testcase_write(const struct rr_flow *f, const struct rr_flow_opts *o,
			 const struct rr_plan *plan, const char *dir, struct rr_strv *notes,
			 rr_error *err)
{
	struct out_dir d = {.path = dir, .fd = -1};
	rr_err rc;

	rc = open_dir(&d, err);
	/* the manifest first, naming what is there and what will be: a run cut short
	 * leaves nothing the next one would take for someone else's */
	if (!rc) {
		struct rr_strv planned = RR_STRV_INIT;
		rr_strv_push(&planned, STACK_NAME);
		rr_strv_push(&planned, CASE_NAME);
		const struct rr_reqset *rs = rr_flow_reqs(f);
		struct rr_strv taken = RR_STRV_INIT;
		for (size_t i = 0; i < rs->nfiles; i++) {
			char *name = copy_name(rs->files[i], i, &taken);
			rr_strv_push(&taken, name);
			rr_strv_take(&planned, name);
		}
		policy_names(f, o, &taken, &planned);
		rr_strv_release(&taken);
		rc = put_manifest(&d, &d.ours, &planned, err);
		rr_strv_release(&planned);
	}
	if (!rc)
		rc = write_case(&d, f, o, plan, notes, err);
	if (!rc) {
		/* what an earlier run wrote and this one did not is stale: it goes */
		for (size_t i = 0; i < d.ours.n; i++)
			if (!listed(&d.wrote, d.ours.v[i]))
				unlinkat(d.fd, d.ours.v[i], 0);
		rc = put_manifest(&d, &d.wrote, NULL, err);
	}
	if (d.fd >= 0)
		close(d.fd);
	rr_strv_release(&d.ours);
	rr_strv_release(&d.wrote);
	return rc;
}
