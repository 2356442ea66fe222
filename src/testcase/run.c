/*
 * run.c - read a scenario (.t, man/rocm-resolve-scenario.5) and run its questions:
 * resolver questions on an in-memory world, pipeline questions (stack, input,
 * option) through the whole flow; the actual result lines are compared with the
 * expected ones (include/rocm-resolve/testcase.h). write.c writes the same format
 * from a real run.
 */
#include <errno.h>
#include <ftw.h>
#include <unistd.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/flow.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/provider.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/resolve.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/testcase.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/venv.h"

static void strv_push(struct rr_strv *s, char *owned)
{
	rr_strv_take(s, owned);
}

/* empty, keeping the array */
static void strv_clear(struct rr_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

static void strv_release(struct rr_strv *s)
{
	rr_strv_release(s);
}

struct question {
	struct rr_strv reqs;	 /* requirement lines, blank/comment lines kept as "" */
	struct rr_strv constraints;
	struct rr_strv expect;	 /* expected result lines */
	struct rr_strv classes;	 /* result classes compared */
	bool have_result;
	bool allow_pre;
	bool each;
	struct rr_strv inputs;  /* pipeline: files written for this question */
	struct rr_strv options; /* pipeline: command-line words */
	unsigned line; /* where the question starts, for messages */
};

struct scenario {
	const char *path;
	char *dir;
	struct rr_provider_mem *mem;
	struct rr_marker_env env;
	char pyshort[16];
	struct rr_strv envstore;
	struct rr_strv fixed;     /* "key\0version\0reason" packed as three entries each */
	struct rr_strv forbid;    /* key, reason */
	struct rr_strv clash;     /* key, group */
	size_t world_fixed;    /* counts at the first require: restored by next */
	size_t world_forbid;
	size_t world_clash;
	bool seen_require;
	char *stack;    /* pipeline mode: the stack file the flow runs on */
	char *tmpdir;	/* pipeline mode: inputs and the cache live here */
	struct question q;
	int nq;
	int failed;
	bool print;
};

static void q_reset(struct question *q)
{
	strv_clear(&q->reqs);
	strv_clear(&q->constraints);
	strv_clear(&q->expect);
	strv_clear(&q->classes);
	strv_clear(&q->inputs);
	strv_clear(&q->options);
	q->have_result = false;
	q->allow_pre = false;
	q->each = false;
}

/* ---- running one question --------------------------------------------- */

static bool class_on(const struct question *q, const char *line)
{
	size_t w = strcspn(line, " ");
	const char *cls;

	if (!strncmp(line, "install", w) || !strncmp(line, "keep", w) || !strncmp(line, "drop", w))
		cls = "solution";
	else if (!strncmp(line, "plan", w))
		cls = "plan";
	else if (!strncmp(line, "decision", w))
		cls = "decisions";
	else if (!strncmp(line, "check", w))
		cls = "check";
	else if (!strncmp(line, "exclude", w))
		cls = "excludes";
	else if (!strncmp(line, "error", w))
		return true;
	else
		cls = "problem";
	if (!q->have_result)
		return true;
	for (size_t i = 0; i < q->classes.n; i++)
		if (!strcmp(q->classes.v[i], cls))
			return true;
	return false;
}

static void add_lines(struct rr_strv *out, const char *prefix, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		if (n)
			strv_push(out, rr_xasprintf("%s %.*s", prefix, (int)n, p));
		else
			strv_push(out, rr_xasprintf("%s", prefix));
		p += n;
		if (*p)
			p++;
	}
}

static void solution_lines(const struct rr_solution *sol, const struct rr_requirement *reqs,
			   const char *const *origins, struct rr_strv *out)
{
	if (rr_solution_ok(sol)) {
		for (size_t i = 0; i < rr_solution_count(sol); i++) {
			const struct rr_solved *it = rr_solution_at(sol, i);
			if (it->fixed)
				strv_push(out, rr_xasprintf("keep %s %s @fixed", it->key, it->version));
			else if (it->installed)
				strv_push(out, rr_xasprintf("keep %s %s @installed", it->key,
							    it->version));
			else
				strv_push(out, rr_xasprintf("install %s %s", it->key, it->version));
		}
		return;
	}
	add_lines(out, "problem", rr_solution_explain(sol));
	{
		const size_t *cul;
		size_t n = rr_solution_culprits(sol, &cul);
		for (size_t i = 0; i < n; i++) {
			RR_AUTOFREE char *txt = rr_requirement_to_string(&reqs[cul[i]]);
			strv_push(out, rr_xasprintf("problem culprit %s %s", origins[cul[i]], txt));
		}
	}
}

/* ---- the whole pipeline (stack, input, option) ------------------------- */

static const char *no_env(const char *name)
{
	(void)name;
	return NULL; /* scenarios are hermetic: no index or cache from the environment */
}

/*
 * a plan comment cuts a long requirement (" [...]") to keep its line near 120 columns,
 * and where depends on the input's path, which a replay does not share with the run it
 * replays (@DIR@ stands for directories of other lengths): a cut line matches a line
 * that has the same text before the cut and after it
 */
static bool cut_match(const char *cut, const char *other)
{
	static const char marker[] = " [...]";
	const char *mark = strstr(cut, marker);
	const char *omark = strstr(other, marker);
	const char *tail;
	size_t head, ntail, nother;

	if (!mark)
		return false;
	head = (size_t)(mark - cut);
	tail = mark + sizeof(marker) - 1;
	ntail = strlen(tail);
	if (omark) {
		size_t ohead = (size_t)(omark - other);
		return strncmp(cut, other, head < ohead ? head : ohead) == 0 &&
		       strcmp(tail, omark + sizeof(marker) - 1) == 0;
	}
	nother = strlen(other);
	return nother >= head + ntail && strncmp(cut, other, head) == 0 &&
	       strcmp(other + nother - ntail, tail) == 0;
}

static bool same_line(const char *want, const char *got)
{
	return !strcmp(want, got) || cut_match(want, got) || cut_match(got, want);
}

/* text with the scenario's temporary directory shown as @DIR@ */
static char *stable(const struct scenario *sc, const char *text)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	size_t n = strlen(sc->tmpdir);
	const char *p = text;
	const char *hit;

	while ((hit = strstr(p, sc->tmpdir))) {
		rr_strbuf_add(&sb, p, (size_t)(hit - p));
		rr_strbuf_adds(&sb, "@DIR@");
		p = hit + n;
	}
	rr_strbuf_adds(&sb, p);
	return rr_strbuf_detach(&sb, NULL);
}

static void push_lines(const struct scenario *sc, struct rr_strv *out, const char *prefix,
		       const char *text)
{
	RR_AUTOFREE char *t = stable(sc, text);
	const char *p = t;

	while (*p) {
		size_t n = strcspn(p, "\n");
		strv_push(out, rr_xasprintf("%s %.*s", prefix, (int)n, p));
		p += n;
		if (*p)
			p++;
	}
}

/*
 * the option words, read through the run's option table (the words --write-testcase
 * writes): a file option's bare NAME is a file of the question (its path kept in
 * paths); what the run found comes as --index-url, --extra-index-url, --installer,
 * and the installer's configured indexes as --config-index / --config-default-index
 */
static rr_err pipeline_options(const struct scenario *sc, const struct question *q,
			       struct rr_flow_opts *o, struct rr_installer_config *cfg,
			       struct rr_strv *paths, rr_error *err)
{
	for (size_t i = 0; i < q->options.n; i++) {
		const char *w = q->options.v[i];
		const char *arg = i + 1 < q->options.n ? q->options.v[i + 1] : NULL;
		const struct rr_run_option *d = rr_run_option_find(w);

		if (!strcmp(w, "--installer") && arg) {
			cfg->installer = strcmp(arg, "pip") ? RR_INSTALLER_UV : RR_INSTALLER_PIP;
			i++;
		} else if ((!strcmp(w, "--config-index") || !strcmp(w, "--config-default-index")) &&
			   arg && i + 2 < q->options.n) {
			/* an index from the installer's configuration: ORIGIN URL */
			struct rr_config_value v = {rr_xstrdup(q->options.v[i + 2]), rr_xstrdup(arg)};
			if (w[9] == 'd') {
				free(cfg->default_index.value);
				free(cfg->default_index.origin);
				cfg->default_index = v;
			} else {
				cfg->indexes = rr_xrealloc(cfg->indexes,
							   (cfg->nindexes + 1) * sizeof(*cfg->indexes));
				cfg->indexes[cfg->nindexes++] = v;
			}
			i += 2;
		} else if (d && d->resolves && d->kind == RR_RUNOPT_FLAG &&
			   d->replay == RR_REPLAY_AS_GIVEN) {
			rr_run_option_set(o, d, NULL);
		} else if (d && d->resolves && arg &&
			   (d->replay == RR_REPLAY_AS_GIVEN || d->replay == RR_REPLAY_FILE ||
			    d->field == offsetof(struct rr_flow_opts, index_url) ||
			    d->field == offsetof(struct rr_flow_opts, extra_index_urls))) {
			if (d->replay == RR_REPLAY_FILE) {
				/* a file of the question, never one outside it */
				if (strchr(arg, '/'))
					return rr_fail(err, RR_E_PARSE,
						       "option: %s '%s': a file of the scenario "
						       "(a bare NAME) expected",
						       w, arg);
				rr_strv_take(paths, rr_xasprintf("%s/%s", sc->tmpdir, arg));
				arg = paths->v[paths->n - 1];
			}
			rr_run_option_set(o, d, arg);
			i++;
		} else
			return rr_fail(err, RR_E_PARSE, "option: unknown or incomplete '%s'", w);
	}
	return RR_OK;
}

static void run_pipeline(struct scenario *sc, struct rr_strv *actual)
{
	struct question *q = &sc->q;
	struct rr_flow_opts o = {0};
	struct rr_flow *f = NULL;
	struct rr_provider prov;
	rr_error err = RR_ERROR_INIT;
	RR_AUTOFREE char *cache = rr_xasprintf("%s/cache", sc->tmpdir);
	RR_AUTOFREE char *data = rr_xasprintf("%s/data", sc->tmpdir);
	struct rr_strv cpaths = RR_STRV_INIT;
	struct rr_installer_config cfg = {.installer = RR_INSTALLER_UV};
	rr_err rc;

	o.inputs = (const char *const *)q->inputs.v;
	o.ninputs = q->inputs.n;
	o.want_inputs = true;
	o.stack_file = sc->stack;
	o.cache_dir = cache;
	o.data_dir = data;
	o.getenv_fn = no_env;
	rr_provider_mem_get(sc->mem, &prov);
	o.provider = &prov;
	/* hermetic: the installer's configuration is what the options say, never read */
	o.config = &cfg;
	rc = pipeline_options(sc, q, &o, &cfg, &cpaths, &err);
	if (!rc)
		rc = rr_flow_open(&o, &f, &err);
	/* the environment's distributions are candidates too, as the index provider offers them */
	for (size_t i = 0; !rc && i < rr_flow_venv(f)->ndists; i++) {
		const struct rr_dist *d = &rr_flow_venv(f)->dists[i];
		size_t h;
		if (!d->version_ok || rr_provider_mem_add(sc->mem, d->name, d->version_text, &h, NULL))
			continue;
		if (!rr_provider_mem_nrequires(sc->mem, h))
			for (size_t k = 0; k < d->meta.nrequires_dist; k++)
				rr_provider_mem_add_requires(sc->mem, h, d->meta.requires_dist[k]);
		rc = rr_provider_mem_add_installed(sc->mem, d->name, d->version_text, &err);
	}
	if (!rc)
		rc = rr_flow_plan(f, &o, &err);
	if (rc) {
		RR_AUTO_STRBUF struct rr_strbuf e = RR_STRBUF_INIT;
		rr_error_format(&err, &e);
		push_lines(sc, actual, "error", e.buf);
	} else {
		RR_AUTO_STRBUF struct rr_strbuf outcome = RR_STRBUF_INIT;
		RR_AUTOFREE char *t = NULL;
		rr_plan_format_outcome(rr_flow_get_plan(f), &outcome);
		t = stable(sc, outcome.buf);
		for (const char *p = t; *p;) {
			size_t n = strcspn(p, "\n");
			strv_push(actual, rr_xstrndup(p, n));
			p += n;
			if (*p)
				p++;
		}
	}
	rr_run_options_release(&o);
	rr_strv_release(&cpaths);
	rr_config_release(&cfg);
	rr_flow_free(f);
	rr_error_release(&err);
}

static int run_question(struct scenario *sc, struct rr_strbuf *report)
{
	struct question *q = &sc->q;
	struct rr_requirement *reqs = rr_xcalloc(q->reqs.n + 1, sizeof(*reqs));
	struct rr_requirement *cons = rr_xcalloc(q->constraints.n + 1, sizeof(*cons));
	struct rr_root_requirement *rreqs = rr_xcalloc(q->reqs.n + 1, sizeof(*rreqs));
	struct rr_root_requirement *rcons = rr_xcalloc(q->constraints.n + 1, sizeof(*rcons));
	char **origins = rr_xcalloc(q->reqs.n + 1, sizeof(*origins));
	char **corigins = rr_xcalloc(q->constraints.n + 1, sizeof(*corigins));
	struct rr_fixed *fixed = rr_xcalloc(sc->fixed.n / 3 + 1, sizeof(*fixed));
	struct rr_forbidden *forbid = rr_xcalloc(sc->forbid.n / 2 + 1, sizeof(*forbid));
	struct rr_clash_member *clash = rr_xcalloc(sc->clash.n / 2 + 1, sizeof(*clash));
	struct rr_resolve_request rq;
	struct rr_provider prov;
	struct rr_strv actual = RR_STRV_INIT;
	struct rr_strv expect = RR_STRV_INIT;
	size_t nreq = 0;
	size_t ncon = 0;
	size_t nfixed = 0;
	int rcode = 0;
	rr_error err = RR_ERROR_INIT;
	rr_err rc = RR_OK;

	memset(&rq, 0, sizeof(rq));
	if (sc->stack) {
		run_pipeline(sc, &actual);
		goto compare;
	}
	for (size_t i = 0; i < q->reqs.n && !rc; i++) {
		const char *line = q->reqs.v[i];
		if (!*line || *line == '#')
			continue;
		rc = rr_requirement_parse(line, &reqs[nreq], &err);
		if (rc) {
			rr_strbuf_addf(report, "  require line %zu: %s\n", i + 1, err.msg);
			break;
		}
		origins[nreq] = rr_xasprintf("req:%zu", i + 1);
		rreqs[nreq].req = &reqs[nreq];
		rreqs[nreq].origin = origins[nreq];
		nreq++;
	}
	for (size_t i = 0; i < q->constraints.n && !rc; i++) {
		const char *line = q->constraints.v[i];
		if (!*line || *line == '#')
			continue;
		rc = rr_requirement_parse(line, &cons[ncon], &err);
		if (rc) {
			rr_strbuf_addf(report, "  constrain line %zu: %s\n", i + 1, err.msg);
			break;
		}
		corigins[ncon] = rr_xasprintf("constraint:%zu", i + 1);
		rcons[ncon].req = &cons[ncon];
		rcons[ncon].origin = corigins[ncon];
		ncon++;
	}
	if (!rc) {
		/* a later "fixed" for the same key (inside a question) wins */
		for (size_t i = sc->fixed.n / 3; i-- > 0;) {
			bool dup = false;
			for (size_t k = 0; k < nfixed && !dup; k++)
				dup = !strcmp(fixed[k].key, sc->fixed.v[3 * i]);
			if (dup)
				continue;
			fixed[nfixed].key = sc->fixed.v[3 * i];
			fixed[nfixed].version = sc->fixed.v[3 * i + 1];
			fixed[nfixed].reason = sc->fixed.v[3 * i + 2];
			nfixed++;
		}
		for (size_t i = 0; i < sc->forbid.n / 2; i++) {
			forbid[i].key = sc->forbid.v[2 * i];
			forbid[i].reason = sc->forbid.v[2 * i + 1];
		}
		for (size_t i = 0; i < sc->clash.n / 2; i++) {
			clash[i].key = sc->clash.v[2 * i];
			clash[i].group = sc->clash.v[2 * i + 1];
		}
		rq.reqs = rreqs;
		rq.nreqs = nreq;
		rq.constraints = rcons;
		rq.nconstraints = ncon;
		rq.fixed = fixed;
		rq.nfixed = nfixed;
		rq.forbidden = forbid;
		rq.nforbidden = sc->forbid.n / 2;
		rq.clashes = clash;
		rq.nclashes = sc->clash.n / 2;
		rq.env = &sc->env;
		rq.flags = q->allow_pre ? RR_RESOLVE_PRERELEASE : 0;
		rr_provider_mem_get(sc->mem, &prov);
		if (q->each) {
			struct rr_each_result er;
			rc = rr_resolve_each(&prov, &rq, &er, &err);
			if (!rc) {
				for (size_t i = 0; i < er.nstripped; i++) {
					size_t k = er.stripped[i].index;
					RR_AUTOFREE char *txt = rr_requirement_to_string(&reqs[k]);
					strv_push(&actual, rr_xasprintf("drop %s %s", origins[k], txt));
					add_lines(&actual, "problem", er.stripped[i].explanation);
				}
				solution_lines(er.solution, reqs, (const char *const *)origins, &actual);
				rr_each_result_release(&er);
			}
		} else {
			struct rr_solution *sol;
			rc = rr_resolve(&prov, &rq, &sol, &err);
			if (!rc) {
				solution_lines(sol, reqs, (const char *const *)origins, &actual);
				rr_solution_free(sol);
			}
		}
		if (rc) {
			RR_AUTO_STRBUF struct rr_strbuf e = RR_STRBUF_INIT;
			rr_error_format(&err, &e);
			strv_push(&actual, rr_xasprintf("error %s", e.buf));
			rc = RR_OK;
		}
	}
compare:
	if (rc) {
		rcode = 1;
	} else if (sc->print) {
		rr_strbuf_adds(report, "result ");
		for (size_t i = 0; i < q->classes.n; i++)
			rr_strbuf_addf(report, "%s%s", i ? "," : "", q->classes.v[i]);
		if (!q->classes.n)
			rr_strbuf_adds(report, "solution,problem");
		rr_strbuf_adds(report, " <inline>\n");
		for (size_t i = 0; i < actual.n; i++)
			if (class_on(q, actual.v[i]))
				rr_strbuf_addf(report, "#>%s\n", actual.v[i]);
	} else if (q->have_result) {
		size_t a = 0;
		size_t e = 0;
		for (size_t i = 0; i < actual.n; i++)
			if (class_on(q, actual.v[i]))
				strv_push(&expect, rr_xstrdup(actual.v[i]));
		/* expect now holds the filtered actual lines */
		bool same = expect.n == q->expect.n;
		for (size_t i = 0; same && i < expect.n; i++)
			same = same_line(q->expect.v[i], expect.v[i]);
		if (!same) {
			rcode = 1;
			rr_strbuf_addf(report, "  question at line %u differs (- expected, + actual):\n",
				       q->line);
			while (a < expect.n || e < q->expect.n) {
				if (a < expect.n && e < q->expect.n &&
				    same_line(q->expect.v[e], expect.v[a])) {
					rr_strbuf_addf(report, "    %s\n", expect.v[a]);
					a++;
					e++;
				} else if (e < q->expect.n) {
					rr_strbuf_addf(report, "  - %s\n", q->expect.v[e++]);
				} else {
					rr_strbuf_addf(report, "  + %s\n", expect.v[a++]);
				}
			}
		}
	} else {
		rcode = 1;
		rr_strbuf_addf(report, "  question at line %u has no result\n", q->line);
	}
	for (size_t i = 0; i < q->reqs.n; i++) {
		rr_requirement_release(&reqs[i]);
		free(origins[i]);
	}
	for (size_t i = 0; i < q->constraints.n; i++) {
		rr_requirement_release(&cons[i]);
		free(corigins[i]);
	}
	rr_error_release(&err);
	strv_release(&actual);
	strv_release(&expect);
	free(reqs);
	free(cons);
	free(rreqs);
	free(rcons);
	free(origins);
	free(corigins);
	free(fixed);
	free(forbid);
	free(clash);
	return rcode;
}

/* ---- parsing ------------------------------------------------------------ */

struct lines {
	char **v;
	size_t n;
	size_t cap;
	char *buf;
};

static rr_err read_lines(const char *path, struct lines *ret, rr_error *err)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	char *p;
	rr_err rc = rr_strbuf_read_file(&sb, path, 16 << 20, err);

	if (rc)
		return rc;
	memset(ret, 0, sizeof(*ret));
	ret->buf = rr_strbuf_detach(&sb, NULL);
	p = ret->buf;
	while (*p) {
		char *nl = strchr(p, '\n');
		RR_PUSH(ret->v, ret->n, ret->cap) = p;
		if (!nl)
			break;
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		p = nl + 1;
	}
	return RR_OK;
}

static void lines_release(struct lines *l)
{
	free(l->v);
	free(l->buf);
}

/* the data of a command: following "#>" lines, or the lines of a file */
static rr_err block(struct scenario *sc, const struct lines *l, size_t *i, const char *src,
		    struct rr_strv *out, rr_error *err)
{
	if (!strcmp(src, "<inline>")) {
		while (*i + 1 < l->n && !strncmp(l->v[*i + 1], "#>", 2)) {
			(*i)++;
			strv_push(out, rr_xstrdup(l->v[*i] + 2));
		}
		return RR_OK;
	}
	{
		RR_AUTOFREE char *path = src[0] == '/' ? rr_xstrdup(src)
						       : rr_xasprintf("%s/%s", sc->dir, src);
		struct lines f;
		rr_err rc = read_lines(path, &f, err);
		if (rc)
			return rc;
		for (size_t k = 0; k < f.n; k++)
			strv_push(out, rr_xstrdup(f.v[k]));
		lines_release(&f);
	}
	return RR_OK;
}

static char *next_word(char **p)
{
	char *s = *p + strspn(*p, " \t");
	char *e;

	if (!*s)
		return NULL;
	e = s + strcspn(s, " \t");
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

static rr_err load_index(struct scenario *sc, const struct rr_strv *data, rr_error *err)
{
	size_t h = 0;
	bool have = false;

	for (size_t i = 0; i < data->n; i++) {
		const char *line = data->v[i];
		const char *val = line + 5 + strspn(line + 5, " \t");
		rr_err rc;
		if (!*line || line[0] == '#')
			continue;
		if (strlen(line) < 5 || line[0] != '=' || line[4] != ':')
			return rr_fail(err, RR_E_PARSE, "index record %zu: expected '=Tag: value'",
				       i + 1);
		if (!strncmp(line, "=Pkg:", 5)) {
			RR_AUTOFREE char *copy = rr_xstrdup(val);
			char *p = copy;
			char *name = next_word(&p);
			char *ver = next_word(&p);
			if (!name || !ver)
				return rr_fail(err, RR_E_PARSE,
					       "index record %zu: '=Pkg:' needs a name and a version",
					       i + 1);
			rc = rr_provider_mem_add(sc->mem, name, ver, &h, err);
			if (rc)
				return rc;
			have = true;
			continue;
		}
		if (!have)
			return rr_fail(err, RR_E_PARSE, "index record %zu: '%.5s' before '=Pkg:'",
				       i + 1, line);
		if (!strncmp(line, "=Req:", 5))
			rr_provider_mem_add_requires(sc->mem, h, val);
		else if (!strncmp(line, "=Pyr:", 5))
			rr_provider_mem_set_requires_python(sc->mem, h, val);
		else if (!strncmp(line, "=Ynk:", 5))
			rr_provider_mem_set_yanked(sc->mem, h, true);
		else if (!strncmp(line, "=Unk:", 5))
			rr_provider_mem_set_deps_unknown(sc->mem, h);
		else if (!strncmp(line, "=Src:", 5))
			rr_provider_mem_set_sdist(sc->mem, h);
		else if (!strncmp(line, "=Ins:", 5)) {
			RR_AUTOFREE char *copy = NULL;
			/* the installed release: the record above, flagged */
			const char *last = NULL;
			for (size_t k = i; k-- > 0;)
				if (!strncmp(data->v[k], "=Pkg:", 5)) {
					last = data->v[k] + 5;
					break;
				}
			copy = rr_xstrdup(last ? last : "");
			char *q = copy;
			char *name = next_word(&q);
			char *ver = next_word(&q);
			if (name && ver) {
				rc = rr_provider_mem_add_installed(sc->mem, name, ver, err);
				if (rc)
					return rc;
			}
		}
		else if (strncmp(line, "=Whl:", 5) && strncmp(line, "=Url:", 5))
			return rr_fail(err, RR_E_PARSE, "index record %zu: unknown tag '%.5s'",
				       i + 1, line);
	}
	return RR_OK;
}

static rr_err load_installed(struct scenario *sc, const struct rr_strv *data, rr_error *err)
{
	for (size_t i = 0; i < data->n; i++) {
		const char *line = data->v[i];
		const char *eq = strstr(line, "==");
		RR_AUTOFREE char *name = NULL;
		rr_err rc;
		if (!*line || line[0] == '#')
			continue;
		if (!eq)
			return rr_fail(err, RR_E_PARSE, "installed line %zu: expected 'name==version'",
				       i + 1);
		name = rr_xstrndup(line, (size_t)(eq - line));
		rc = rr_provider_mem_add_installed(sc->mem, name, eq + 2, err);
		if (rc)
			return rc;
	}
	return RR_OK;
}

static rr_err set_env(struct scenario *sc, char *args, rr_error *err)
{
	char *w;

	while ((w = next_word(&args))) {
		char *eq = strchr(w, '=');
		char *val;
		if (!eq)
			return rr_fail(err, RR_E_PARSE, "env: expected key=value, got '%s'", w);
		*eq = '\0';
		val = rr_xstrdup(eq + 1);
		strv_push(&sc->envstore, val);
		if (!strcmp(w, "python")) {
			rr_marker_env_set_python(&sc->env, val, sc->pyshort);
			continue;
		}
		for (int v = 0; v < RR_MVAR__MAX; v++) {
			if (!strcmp(w, rr_marker_var_to_string((enum rr_marker_var)v))) {
				sc->env.vars[v] = val;
				break;
			}
		}
		/* other keys (platform=, gpu=, rocm=) describe wheels and hardware */
	}
	return RR_OK;
}

static void word_pairs(struct rr_strv *out, char *args, size_t stride)
{
	/* key [rest...]: first word normalised, remainder verbatim */
	char *key = next_word(&args);
	char *rest = args + strspn(args, " \t");
	if (!key)
		return;
	strv_push(out, rr_name_normalize(key));
	if (stride == 3) {
		char *ver = next_word(&args);
		strv_push(out, rr_xstrdup(ver ? ver : ""));
		rest = args + strspn(args, " \t");
	}
	strv_push(out, rr_xstrdup(rest));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void rr_testcase_run(const char *path, unsigned flags, struct rr_testcase_report *ret)
{
	bool print = flags & RR_TESTCASE_PRINT;
	bool skip = false;
	bool *skipped = &skip;
	struct scenario sc;
	struct lines l;
	rr_error err = RR_ERROR_INIT;
	RR_AUTO_STRBUF struct rr_strbuf report = RR_STRBUF_INIT;
	int failed = 0;
	rr_err rc;
	const char *slash = strrchr(path, '/');

	memset(&sc, 0, sizeof(sc));
	*skipped = false;
	sc.path = path;
	sc.dir = slash ? rr_xstrndup(path, (size_t)(slash - path)) : rr_xstrdup(".");
	sc.mem = rr_provider_mem_new();
	sc.print = print;
	rr_marker_env_init(&sc.env);
	memset(ret, 0, sizeof(*ret));
	rc = read_lines(path, &l, &err);
	if (rc) {
		ret->status = RR_TESTCASE_FAIL;
		ret->text = rr_xasprintf("  %s\n", err.msg);
		rr_error_release(&err);
		rr_provider_mem_free(sc.mem);
		free(sc.dir);
		return;
	}
	sc.q.line = 1;
	for (size_t i = 0; i <= l.n && !rc; i++) {
		RR_AUTOFREE char *copy = i < l.n ? rr_xstrdup(l.v[i]) : rr_xstrdup("next");
		char *p = copy;
		char *cmd = next_word(&p);
		unsigned lineno = (unsigned)i + 1;
		if (!cmd || cmd[0] == '#')
			continue;
		if (!strcmp(cmd, "next")) {
			if (sc.q.reqs.n || sc.q.inputs.n || sc.q.have_result) {
				failed |= run_question(&sc, &report);
				sc.nq++;
			}
			q_reset(&sc.q);
			sc.q.line = lineno + 1;
			/* fixed / forbid / clash given inside a question end with it */
			if (sc.seen_require) {
				while (sc.fixed.n > sc.world_fixed)
					free(sc.fixed.v[--sc.fixed.n]);
				while (sc.forbid.n > sc.world_forbid)
					free(sc.forbid.v[--sc.forbid.n]);
				while (sc.clash.n > sc.world_clash)
					free(sc.clash.v[--sc.clash.n]);
			}
			continue;
		}
		if (!strcmp(cmd, "feature")) {
			*skipped = true; /* no optional features are known yet */
			break;
		}
		if (!strcmp(cmd, "env")) {
			rc = set_env(&sc, p, &err);
		} else if (!strcmp(cmd, "installed") || !strcmp(cmd, "index")) {
			struct rr_strv data = RR_STRV_INIT;
			char *w1 = next_word(&p);
			char *src;
			if (!strcmp(cmd, "index")) {
				next_word(&p); /* priority: indexes are merged, earlier wins */
				w1 = next_word(&p);
				if (!w1 || strcmp(w1, "tags")) {
					rc = rr_fail(&err, RR_E_UNSUPPORTED,
						     "index: only the 'tags' format is supported");
					break;
				}
			} else if (!w1 || strcmp(w1, "freeze")) {
				rc = rr_fail(&err, RR_E_UNSUPPORTED,
					     "installed: only the 'freeze' form is supported");
				break;
			}
			src = next_word(&p);
			if (!src) {
				rc = rr_fail(&err, RR_E_PARSE, "%s: expected <inline> or a path", cmd);
				break;
			}
			rc = block(&sc, &l, &i, src, &data, &err);
			if (!rc)
				rc = !strcmp(cmd, "index") ? load_index(&sc, &data, &err)
							   : load_installed(&sc, &data, &err);
			strv_release(&data);
		} else if (!strcmp(cmd, "require") || !strcmp(cmd, "constrain")) {
			char *src = next_word(&p);
			bool req = !strcmp(cmd, "require");
			if (req && !sc.seen_require) {
				sc.seen_require = true;
				sc.world_fixed = sc.fixed.n;
				sc.world_forbid = sc.forbid.n;
				sc.world_clash = sc.clash.n;
			}
			if (!src) {
				rc = rr_fail(&err, RR_E_PARSE, "%s: expected <inline> or a path", cmd);
				break;
			}
			rc = block(&sc, &l, &i, src, req ? &sc.q.reqs : &sc.q.constraints, &err);
		} else if (!strcmp(cmd, "stack")) {
			char *src = next_word(&p);
			if (!src) {
				rc = rr_fail(&err, RR_E_PARSE,
					     "stack: expected the path of a stack file");
				break;
			}
			free(sc.stack);
			sc.stack = src[0] == '/' ? rr_xstrdup(src) : rr_xasprintf("%s/%s", sc.dir, src);
			if (!sc.tmpdir) {
				char tmpl[] = "/tmp/rr-testcase-XXXXXX";
				if (!mkdtemp(tmpl)) {
					rc = rr_fail(&err, RR_E_ENV, "cannot make a temporary directory");
					break;
				}
				sc.tmpdir = rr_xstrdup(tmpl);
			}
		} else if (!strcmp(cmd, "input") || !strcmp(cmd, "file")) {
			/* input: a file given to the pipeline; file: one it reaches by -r / -c */
			bool given = !strcmp(cmd, "input");
			char *name = next_word(&p);
			char *src = next_word(&p);
			struct rr_strv data = RR_STRV_INIT;
			RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
			if (!name || !src || !sc.tmpdir || strchr(name, '/')) {
				rc = rr_fail(&err, RR_E_PARSE, "input: expected 'input NAME <inline>|PATH' "
							       "after 'stack'");
				break;
			}
			rc = block(&sc, &l, &i, src, &data, &err);
			for (size_t k = 0; !rc && k < data.n; k++)
				rr_strbuf_addf(&text, "%s\n", data.v[k]);
			strv_release(&data);
			if (!rc) {
				char *ipath = rr_xasprintf("%s/%s", sc.tmpdir, name);
				FILE *fh = fopen(ipath, "w");
				if (!fh || fputs(text.buf, fh) == EOF || fclose(fh)) {
					rc = rr_fail(&err, RR_E_IO, "cannot write '%s'", ipath);
					free(ipath);
					break;
				}
				if (given)
					strv_push(&sc.q.inputs, ipath);
				else
					free(ipath);
			}
		} else if (!strcmp(cmd, "option")) {
			char *w;
			while ((w = next_word(&p)))
				strv_push(&sc.q.options, rr_xstrdup(w));
		} else if (!strcmp(cmd, "fixed")) {
			word_pairs(&sc.fixed, p, 3);
		} else if (!strcmp(cmd, "forbid")) {
			word_pairs(&sc.forbid, p, 2);
		} else if (!strcmp(cmd, "clash")) {
			char *group = next_word(&p);
			char *w;
			if (!group) {
				rc = rr_fail(&err, RR_E_PARSE, "clash: expected a group and members");
				break;
			}
			while ((w = next_word(&p))) {
				strv_push(&sc.clash, rr_name_normalize(w));
				strv_push(&sc.clash, rr_xstrdup(group));
			}
		} else if (!strcmp(cmd, "flags")) {
			char *w;
			while ((w = next_word(&p))) {
				if (!strcmp(w, "allow-prerelease"))
					sc.q.allow_pre = true;
				else if (!strcmp(w, "each"))
					sc.q.each = true;
				else {
					rc = rr_fail(&err, RR_E_PARSE, "flags: unknown flag '%s'", w);
					break;
				}
			}
		} else if (!strcmp(cmd, "result")) {
			char *classes = next_word(&p);
			char *src = next_word(&p);
			char *c;
			if (!classes || !src) {
				rc = rr_fail(&err, RR_E_PARSE, "result: expected <classes> <inline>");
				break;
			}
			while ((c = strsep(&classes, ",")))
				strv_push(&sc.q.classes, rr_xstrdup(c));
			sc.q.have_result = true;
			rc = block(&sc, &l, &i, src, &sc.q.expect, &err);
		} else {
			rc = rr_fail(&err, RR_E_PARSE, "unknown command '%s'", cmd);
		}
		if (rc && !err.line)
			err.line = lineno;
	}
	if (rc) {
		ret->status = RR_TESTCASE_FAIL;
		ret->text = rr_xasprintf("  %s:%u: %s\n", path, err.line, err.msg);
	} else {
		ret->status = *skipped ? RR_TESTCASE_SKIP
			      : failed ? RR_TESTCASE_FAIL
				       : RR_TESTCASE_PASS;
		ret->text = rr_strbuf_detach(&report, NULL);
	}
	rr_error_release(&err);
	lines_release(&l);
	q_reset(&sc.q);
	strv_release(&sc.q.reqs);
	strv_release(&sc.q.constraints);
	strv_release(&sc.q.expect);
	strv_release(&sc.q.classes);
	strv_release(&sc.envstore);
	strv_release(&sc.fixed);
	strv_release(&sc.forbid);
	strv_release(&sc.clash);
	rr_provider_mem_free(sc.mem);
	strv_release(&sc.q.inputs);
	strv_release(&sc.q.options);
	if (sc.tmpdir)
		nftw(sc.tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(sc.tmpdir);
	free(sc.stack);
	free(sc.dir);
}

void rr_testcase_report_release(struct rr_testcase_report *r)
{
	r->text = rr_free(r->text);
}

