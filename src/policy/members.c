/*
 * members.c - the names a clash group's pattern spells out, for lists that must
 * name them (uv's exclude-dependencies takes names, not patterns).
 *
 * Patterns in data/policy.json for clash groups are finite alternations:
 * ^(triton|pytorch-triton|...)$, ^onnxruntime(-gpu|-rocm|...)?$,
 * ^opencv(-contrib)?-python(-headless)?$. This expands exactly that language -
 * literal name characters (a backslash quotes one), groups of alternatives,
 * `?` after a group - and gives up on anything else (a class, a repetition),
 * because then the pattern names no finite list.
 */
#include <string.h>

#include "rocm-resolve/policy.h"
#include "rocm-resolve/strv.h"

#define MAX_NAMES 256

/* expand s[*i..] up to ')' or '|' or the end into out (a set of suffixes appended to
 * every prefix in in); false when the pattern leaves the language */
static bool expand_seq(const char *s, size_t *i, const struct rr_strv *in, struct rr_strv *out);

static bool literal_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '_';
}

static void append_all(struct rr_strv *v, const char *suffix, size_t n)
{
	for (size_t k = 0; k < v->n; k++) {
		size_t l = strlen(v->v[k]);
		v->v[k] = rr_xrealloc(v->v[k], l + n + 1);
		memcpy(v->v[k] + l, suffix, n);
		v->v[k][l + n] = '\0';
	}
}

static bool expand_group(const char *s, size_t *i, const struct rr_strv *in, struct rr_strv *out)
{
	struct rr_strv alts = RR_STRV_INIT;
	bool ok = true;

	(*i)++; /* '(' */
	for (;;) {
		struct rr_strv one = RR_STRV_INIT;
		if (!expand_seq(s, i, in, &one)) {
			rr_strv_release(&one);
			ok = false;
			break;
		}
		for (size_t k = 0; k < one.n; k++)
			rr_strv_push(&alts, one.v[k]);
		rr_strv_release(&one);
		if (s[*i] == '|') {
			(*i)++;
			continue;
		}
		if (s[*i] != ')') {
			ok = false;
			break;
		}
		(*i)++;
		break;
	}
	if (ok && s[*i] == '?') {
		(*i)++;
		for (size_t k = 0; k < in->n; k++)
			rr_strv_push(&alts, in->v[k]);
	}
	if (ok && alts.n <= MAX_NAMES)
		for (size_t k = 0; k < alts.n; k++)
			rr_strv_push(out, alts.v[k]);
	rr_strv_release(&alts);
	return ok && out->n <= MAX_NAMES;
}

static bool expand_seq(const char *s, size_t *i, const struct rr_strv *in, struct rr_strv *out)
{
	struct rr_strv cur = RR_STRV_INIT;

	for (size_t k = 0; k < in->n; k++)
		rr_strv_push(&cur, in->v[k]);
	while (s[*i] && s[*i] != '|' && s[*i] != ')' && !(s[*i] == '$' && !s[*i + 1])) {
		char c = s[*i];
		if (c == '(') {
			struct rr_strv next = RR_STRV_INIT;
			if (!expand_group(s, i, &cur, &next)) {
				rr_strv_release(&next);
				rr_strv_release(&cur);
				return false;
			}
			rr_strv_release(&cur);
			cur = next;
			continue;
		}
		if (c == '\\' && s[*i + 1] && !literal_char(s[*i + 1]))
			c = s[++*i];
		else if (!literal_char(c))
			break;
		append_all(&cur, &c, 1);
		(*i)++;
	}
	if (s[*i] && s[*i] != '|' && s[*i] != ')' && !(s[*i] == '$' && !s[*i + 1])) {
		rr_strv_release(&cur);
		return false;
	}
	*out = cur;
	return true;
}

bool rr_policy_clash_members(const struct rr_policy *pol, const char *group, struct rr_strv *out)
{
	for (size_t r = 0; r < rr_policy_count(pol, RR_POL_CLASH_GROUP); r++) {
		const struct rr_policy_rule *rule = rr_policy_rule_at(pol, RR_POL_CLASH_GROUP, r);
		struct rr_strv start = RR_STRV_INIT;
		struct rr_strv names = RR_STRV_INIT;
		size_t i = 0;
		bool ok;

		if (strcmp(rule->id, group) != 0)
			continue;
		if (rule->pattern[0] != '^')
			return false; /* unanchored: every name containing it */
		i = 1;
		rr_strv_push(&start, "");
		ok = expand_seq(rule->pattern, &i, &start, &names) &&
		     strcmp(rule->pattern + i, "$") == 0;
		rr_strv_release(&start);
		/* each name must be one the rule itself matches (normalised, lower case) */
		for (size_t k = 0; ok && k < names.n; k++) {
			const char *g = rr_policy_clash_group(pol, names.v[k]);
			ok = g && strcmp(g, group) == 0;
		}
		if (ok)
			for (size_t k = 0; k < names.n; k++)
				rr_strv_push_unique(out, names.v[k]);
		rr_strv_release(&names);
		return ok;
	}
	return false;
}
