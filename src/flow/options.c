/*
 * options.c - the one table of a run's options: what each word of the command line
 * sets in struct rr_flow_opts, whether it changes the answer, and how a testcase
 * carries it. The CLI's parser stores through it, the testcase writer writes from it
 * and the reader reads back through it (include/rocm-resolve/flow.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/flow.h"
#include "rocm-resolve/util.h"

/* the table, laid out by hand: one option a line */
/* clang-format off */
#define FLAG(w, a, f, res, rep)                                                                    \
	{w, a, RR_RUNOPT_FLAG, offsetof(struct rr_flow_opts, f), 0, res, rep}
#define VALUE(w, a, f, res, rep)                                                                   \
	{w, a, RR_RUNOPT_VALUE, offsetof(struct rr_flow_opts, f), 0, res, rep}
#define LIST(w, a, f, res, rep)                                                                    \
	{w, a, RR_RUNOPT_LIST, offsetof(struct rr_flow_opts, f), offsetof(struct rr_flow_opts, n##f),   \
	 res, rep}

static const struct rr_run_option table[] = {
	LIST("--constraint", "-c", constraints, true, RR_REPLAY_FILE),
	LIST("--editable", "-e", editables, true, RR_REPLAY_AS_GIVEN),
	LIST("--extra", NULL, extras, true, RR_REPLAY_AS_GIVEN),
	FLAG("--all-extras", NULL, all_extras, true, RR_REPLAY_AS_GIVEN),
	LIST("--group", NULL, groups, true, RR_REPLAY_AS_GIVEN),
	FLAG("--all-groups", NULL, all_groups, true, RR_REPLAY_AS_GIVEN),
	LIST("--policy", NULL, policies, true, RR_REPLAY_FILE),
	LIST("--protect", NULL, protect, true, RR_REPLAY_AS_GIVEN),
	FLAG("--pre", NULL, pre, true, RR_REPLAY_AS_GIVEN),
	FLAG("--no-index", NULL, no_index, true, RR_REPLAY_AS_GIVEN),
	/* what the run found: the environment as stack.json, the indexes with where each
	 * came from, the installer whose configuration was read */
	VALUE("--venv", NULL, venv, true, RR_REPLAY_FOUND),
	VALUE("--stack", NULL, stack_file, true, RR_REPLAY_FOUND),
	VALUE("--installer", NULL, installer, true, RR_REPLAY_FOUND),
	VALUE("--default-index", "--index-url", index_url, true, RR_REPLAY_FOUND),
	LIST("--extra-index-url", "--index", extra_index_urls, true, RR_REPLAY_FOUND),
	/* not a word of the CLI's (its --uv-excludes FILE, or install with uv, sets it) */
	FLAG("--uv-excludes", NULL, allow_excludes, true, RR_REPLAY_AS_GIVEN),
	/* how the answers are fetched, not what they are: a replay asks no index */
	VALUE("--cache-dir", NULL, cache_dir, false, RR_REPLAY_NONE),
	FLAG("--no-cache", NULL, no_cache, false, RR_REPLAY_NONE),
	FLAG("--offline", NULL, offline, false, RR_REPLAY_NONE),
	FLAG("--refresh", NULL, refresh, false, RR_REPLAY_NONE),
	VALUE("--cert", NULL, ca_file, false, RR_REPLAY_NONE),
	{"--timeout", NULL, RR_RUNOPT_SECONDS, offsetof(struct rr_flow_opts, timeout_ms), 0,
	 false, RR_REPLAY_NONE},
};
/* clang-format on */

const struct rr_run_option *rr_run_options(size_t *n)
{
	*n = RR_ARRAY_LEN(table);
	return table;
}

const struct rr_run_option *rr_run_option_find(const char *word)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(table); i++)
		if (strcmp(table[i].word, word) == 0 ||
		    (table[i].alias && strcmp(table[i].alias, word) == 0))
			return &table[i];
	return NULL;
}

void rr_run_option_set(struct rr_flow_opts *o, const struct rr_run_option *d, const char *value)
{
	char *base = (char *)o;

	switch (d->kind) {
	case RR_RUNOPT_FLAG:
		*(bool *)(base + d->field) = true;
		break;
	case RR_RUNOPT_VALUE:
		*(const char **)(base + d->field) = value;
		break;
	case RR_RUNOPT_SECONDS:
		*(long *)(base + d->field) = strtol(value, NULL, 10) * 1000L;
		break;
	case RR_RUNOPT_LIST: {
		const char ***list = (const char ***)(base + d->field);
		size_t *n = (size_t *)(base + d->count);
		*list = rr_xrealloc((void *)*list, (*n + 1) * sizeof(**list));
		(*list)[(*n)++] = value;
		break;
	}
	}
}

bool rr_run_option_given(const struct rr_flow_opts *o, const struct rr_run_option *d, size_t *n)
{
	const char *base = (const char *)o;

	switch (d->kind) {
	case RR_RUNOPT_FLAG:
		*n = *(const bool *)(base + d->field);
		break;
	case RR_RUNOPT_VALUE:
		*n = *(const char *const *)(base + d->field) != NULL;
		break;
	case RR_RUNOPT_SECONDS:
		*n = *(const long *)(base + d->field) != 0;
		break;
	case RR_RUNOPT_LIST:
		*n = *(const size_t *)(base + d->count);
		break;
	}
	return *n > 0;
}

const char *rr_run_option_value(const struct rr_flow_opts *o, const struct rr_run_option *d,
				size_t i)
{
	const char *base = (const char *)o;

	if (d->kind == RR_RUNOPT_VALUE)
		return *(const char *const *)(base + d->field);
	if (d->kind == RR_RUNOPT_LIST)
		return (*(const char *const *const *)(base + d->field))[i];
	return NULL;
}

void rr_run_options_release(struct rr_flow_opts *o)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(table); i++)
		if (table[i].kind == RR_RUNOPT_LIST) {
			const char ***list = (const char ***)((char *)o + table[i].field);
			free((void *)*list);
			*list = NULL;
			*(size_t *)((char *)o + table[i].count) = 0;
		}
}
