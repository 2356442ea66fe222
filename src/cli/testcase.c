/*
 * testcase.c - --write-testcase DIR: a real run written as a scenario the
 * runner replays with no network and no venv (libsolv's testcase_write is the
 * model), so a user's bug report becomes a test without C:
 *   DIR/stack.json   the environment (inspect --format json)
 *   DIR/<inputs>     the requirements files read, by their base names
 *   DIR/case.t       the world the run saw (every project and release the
 *                    resolver asked about, with the requirements it read), the
 *                    options, and the outcome as expected result lines
 * Replay: rr-testcase DIR/case.t (man/rocm-resolve-scenario.5).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/strbuf.h"

/* the tool's one way to write a file (O_EXCL|O_NOFOLLOW temp name, fsync, rename) */
static bool write_file(const char *dir, const char *name, const char *data, size_t len)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/%s", dir, name);
	rr_error err = RR_ERROR_INIT;
	bool ok = rr_file_write_atomic(path, data, len, 0644, &err) == RR_OK;

	rr_error_release(&err);
	return ok;
}

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

/* text as a scenario's inline block: each line behind "#>" */
static void add_block(struct rr_strbuf *tc, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		rr_strbuf_addf(tc, "#>%.*s\n", (int)n, p);
		p += n + (p[n] ? 1 : 0);
	}
}

static bool is_top_level(const struct rr_cli *cli, const char *path)
{
	for (size_t i = 0; i < cli->ninputs; i++)
		if (strcmp(cli->inputs[i], path) == 0)
			return true;
	return false;
}

static void add_option_words(const struct rr_cli *cli, const struct rr_session *s,
			     struct rr_strbuf *opt)
{
	const struct rr_flow *f = s->flow;

	for (size_t i = 0; i < f->nindexes; i++) {
		const struct rr_plan_index *x = &f->indexes[i];
		if (strchr(x->origin, ':') && strncmp(x->origin, "--", 2) != 0)
			continue; /* from a requirements file: the copied file carries it */
		if (strcmp(x->origin, "default") == 0)
			continue;
		rr_strbuf_addf(opt, " %s %s", x->primary ? "--index-url" : "--extra-index-url",
			       f->index_urls[i]);
	}
	for (size_t i = 0; i < cli->nextras; i++)
		rr_strbuf_addf(opt, " --extra %s", cli->extras[i]);
	for (size_t i = 0; i < cli->ngroups; i++)
		rr_strbuf_addf(opt, " --group %s", cli->groups[i]);
	for (size_t i = 0; i < cli->nprotect; i++)
		rr_strbuf_addf(opt, " --protect %s", cli->protect[i]);
	if (cli->pre)
		rr_strbuf_adds(opt, " --pre");
	if (cli->no_index)
		rr_strbuf_adds(opt, " --no-index");
	if (s->opts.allow_excludes)
		rr_strbuf_adds(opt, " --uv-excludes");
}

int rr_cli_write_testcase(const struct rr_cli *cli, const struct rr_session *s,
			  const struct rr_plan *plan)
{
	const char *dir = cli->write_testcase;
	const struct rr_reqset *rs = s->reqs;
	RR_AUTO_STRBUF struct rr_strbuf snap = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf tc = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf outcome = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf opt = RR_STRBUF_INIT;
	RR_AUTOFREE char *shown = NULL;
	char **names = rr_xcalloc(rs->nfiles + 1, sizeof(char *));
	int status = RR_EXIT_ENV;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "rocm-resolve: error: cannot create '%s': %s\n", dir, strerror(errno));
		goto out;
	}
	rr_stack_file_format(s->venv, s->stack, &snap);
	if (!write_file(dir, "stack.json", snap.buf, snap.len))
		goto fail;
	rr_strbuf_addf(&tc, "# written by rocm-resolve %s --write-testcase; replay with "
			    "`rr-testcase %s/case.t`\n# (see rocm-resolve-scenario(5))\n",
		       RR_VERSION, dir);
	rr_strbuf_adds(&tc, "stack stack.json\n");
	rr_strbuf_adds(&tc, "index recorded 0 tags <inline>\n");
	if (s->flow->world)
		add_block(&tc, s->flow->world);
	rr_plan_format_outcome(plan, &outcome);
	shown = rr_xstrdup(outcome.buf);
	for (size_t i = 0; i < rs->nfiles; i++) {
		RR_AUTO_STRBUF struct rr_strbuf body = RR_STRBUF_INIT;
		rr_error err = RR_ERROR_INIT;
		const char *slash = strrchr(rs->files[i], '/');
		const char *base = slash ? slash + 1 : rs->files[i];
		char *to;
		char *next;
		/* the base name keeps -r / -c lines working; a clash gets a number in front */
		names[i] = rr_xstrdup(base);
		for (size_t k = 0; k < i; k++)
			if (names[k] && strcmp(names[k], base) == 0) {
				free(names[i]);
				names[i] = rr_xasprintf("%zu-%s", i + 1, base);
				break;
			}
		if (strcmp(rs->files[i], "-") == 0 ||
		    rr_strbuf_read_file(&body, rs->files[i], 64 << 20, &err)) {
			rr_cli_warn(cli, "--write-testcase: cannot copy '%s'%s%s", rs->files[i],
				    err.msg ? ": " : " (standard input)", err.msg ? err.msg : "");
			rr_error_release(&err);
			continue;
		}
		if (!write_file(dir, names[i], body.buf, body.len))
			goto fail;
		rr_strbuf_addf(&tc, "%s %s %s\n", is_top_level(cli, rs->files[i]) ? "input" : "file",
			       names[i], names[i]);
		to = rr_xasprintf("@DIR@/%s", names[i]);
		next = replace_all(shown, rs->files[i], to);
		free(shown);
		shown = next;
		free(to);
	}
	if (s->flow->data_dir) {
		char *next = replace_all(shown, s->flow->data_dir, "@DIR@/data");
		free(shown);
		shown = next;
	}
	add_option_words(cli, s, &opt);
	if (opt.len)
		rr_strbuf_addf(&tc, "option%s\n", opt.buf);
	rr_strbuf_adds(&tc, "result plan,decisions,check,excludes <inline>\n");
	add_block(&tc, shown);
	if (!write_file(dir, "case.t", tc.buf, tc.len))
		goto fail;
	rr_cli_info(cli, "wrote the testcase to %s/case.t", dir);
	status = -1;
	goto out;
fail:
	fprintf(stderr, "rocm-resolve: error: cannot write the testcase into '%s': %s\n", dir,
		strerror(errno));
out:
	for (size_t i = 0; i < rs->nfiles; i++)
		free(names[i]);
	free(names);
	return status;
}
