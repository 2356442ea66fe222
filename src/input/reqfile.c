/*
 * reqfile.c - pip requirements-file syntax, following pip 23.0's
 * pip/_internal/req/req_file.py step by step:
 *
 *   decode (BOM) -> splitlines() -> join_lines -> ignore_comments ->
 *   expand_env_variables -> break_args_options -> shlex.split -> optparse
 *
 * Every byte of a logical line carries the file offset it came from, so an
 * error anywhere (option, requirement, marker) is reported at the exact
 * physical line and column even across continuations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"

#define NOPOS ((size_t)-1)

/* the files being read, innermost last, for cycle detection and messages */
struct chain {
	const struct chain *up;
	const char *path; /* as given */
	const char *key;  /* realpath when it exists, else path */
};

/* one logical line: bytes plus, for each byte, its offset in the file text */
struct lline {
	struct rr_strbuf s;
	size_t *map;
	size_t cap;
	unsigned lineno; /* first physical line */
};

struct rf {
	struct rr_reqset *set;
	const char *path;
	const char *text; /* decoded, NUL-free UTF-8 */
	size_t len;
	bool constraint;
	int depth;
	const struct chain *chain;
	size_t *lstart; /* offset of each physical line; line i+1 starts at lstart[i] */
	size_t *lend;	/* end of its content (before the line break) */
	size_t nlines;
	/* the ${VAR} references the current logical line expanded, with their values */
	struct subst {
		char *ref; /* "${NAME}" */
		char *val; /* its non-empty value */
	} *subs;
	size_t nsubs, cap_subs;
};

static void subs_clear(struct rf *rf)
{
	for (size_t i = 0; i < rf->nsubs; i++) {
		free(rf->subs[i].ref);
		free(rf->subs[i].val);
	}
	rf->nsubs = 0;
}

/*
 * the written form of text taken from the current (expanded) line: every occurrence of an
 * expanded value put back as its ${VAR} reference, longest value first, so that no secret
 * from the environment is ever shown; NULL stays NULL
 */
static char *unexpand(const struct rf *rf, const char *text)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	if (!text)
		return NULL;
	if (!rf->nsubs)
		return rr_xstrdup(text);
	for (const char *p = text; *p;) {
		const struct subst *best = NULL;
		size_t blen = 0;
		for (size_t i = 0; i < rf->nsubs; i++) {
			size_t n = strlen(rf->subs[i].val);
			if (n > blen && strncmp(p, rf->subs[i].val, n) == 0) {
				best = &rf->subs[i];
				blen = n;
			}
		}
		if (best) {
			rr_strbuf_adds(&sb, best->ref);
			p += blen;
		} else {
			rr_strbuf_addch(&sb, *p++);
		}
	}
	return rr_strbuf_detach(&sb, NULL);
}

/* ---------------------------------------------------------------------------
 * character classes of Python's str: isspace() and splitlines()
 */

/* length of the Unicode whitespace character (str.isspace) at s[0..n), else 0 */
static size_t ws_at(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (n == 0)
		return 0;
	if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r') || (u[0] >= 0x1c && u[0] <= 0x1f))
		return 1;
	if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
		return 2;
	if (n >= 3 && u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
		return 3;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
	    ((u[2] >= 0x80 && u[2] <= 0x8a) || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
		return 3;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
		return 3;
	if (n >= 3 && u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
		return 3;
	return 0;
}

/* length of the whitespace character ending at s[end), else 0 */
static size_t ws_before(const char *s, size_t end)
{
	for (size_t k = 1; k <= 3 && k <= end; k++)
		if (ws_at(s + end - k, k) == k)
			return k;
	return 0;
}

/* length of the line break (str.splitlines) at s[0..n), else 0 */
static size_t linebreak_at(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (u[0] == '\r')
		return n >= 2 && u[1] == '\n' ? 2 : 1;
	if (u[0] == '\n' || u[0] == '\v' || u[0] == '\f' || (u[0] >= 0x1c && u[0] <= 0x1e))
		return 1;
	if (n >= 2 && u[0] == 0xc2 && u[1] == 0x85)
		return 2;
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

/* length of a valid UTF-8 sequence at s, 0 if invalid */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (s[0] == 0xe0 && s[1] < 0xa0)
			return 0;
		if (s[0] == 0xed && s[1] >= 0xa0) /* surrogates */
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * positions
 */

static unsigned line_of(const struct rf *rf, size_t off)
{
	size_t lo = 0, hi = rf->nlines;

	/* last line whose start <= off */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (rf->lstart[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return (unsigned)lo + 1;
}

static char *line_text(const struct rf *rf, unsigned line)
{
	if (line == 0 || line > rf->nlines)
		return NULL;
	return rr_xstrndup(rf->text + rf->lstart[line - 1],
			   rf->lend[line - 1] - rf->lstart[line - 1]);
}

/* fail at file offset off (NOPOS: at the start of logical line ll) */
static rr_err RR_PRINTF(6, 7) fail_off(const struct rf *rf, rr_err code, const struct lline *ll,
				       size_t off, rr_error *err, const char *fmt, ...)
{
	unsigned line, col;
	va_list ap;
	RR_AUTOFREE char *text = NULL;

	if (off == NOPOS) {
		line = ll ? ll->lineno : 0;
		col = line ? 1 : 0;
	} else {
		line = line_of(rf, off);
		col = (unsigned)(off - rf->lstart[line - 1]) + 1;
	}
	va_start(ap, fmt);
	rr_vfail(err, code, fmt, ap);
	va_end(ap);
	text = line_text(rf, line);
	rr_error_set_origin(err, rf->path, line, 0, text);
	if (err)
		err->col = col;
	return code;
}

/* file offset of byte i of a logical line, falling back to the nearest mapped one */
static size_t map_at(const struct lline *ll, size_t i)
{
	if (ll->s.len == 0)
		return NOPOS;
	if (i >= ll->s.len)
		i = ll->s.len - 1;
	for (size_t k = i + 1; k-- > 0;)
		if (ll->map[k] != NOPOS)
			return ll->map[k] + (i - k);
	for (size_t k = i; k < ll->s.len; k++)
		if (ll->map[k] != NOPOS)
			return ll->map[k];
	return NOPOS;
}

static void ll_add(struct lline *ll, const char *s, size_t n, size_t off)
{
	rr_xgrow((void **)&ll->map, &ll->cap, sizeof(*ll->map), ll->s.len + n);
	for (size_t i = 0; i < n; i++)
		ll->map[ll->s.len + i] = off == NOPOS ? NOPOS : off + i;
	rr_strbuf_add(&ll->s, s, n);
}

static void ll_reset(struct lline *ll)
{
	rr_strbuf_reset(&ll->s);
}

/* keep bytes [a, b) */
static void ll_slice(struct lline *ll, size_t a, size_t b)
{
	if (a == b) { /* also covers an empty first line, before map exists */
		rr_strbuf_setlen(&ll->s, 0);
		return;
	}
	memmove(ll->map, ll->map + a, (b - a) * sizeof(*ll->map));
	memmove(ll->s.buf, ll->s.buf + a, b - a);
	rr_strbuf_setlen(&ll->s, b - a);
}

/* ---------------------------------------------------------------------------
 * preprocess: join_lines, ignore_comments, expand_env_variables
 */

/* COMMENT_RE.match(): '#' at the start, or whitespace then '#' */
static bool is_comment_line(const char *s, size_t n)
{
	size_t i = 0, w;

	while ((w = ws_at(s + i, n - i)) > 0)
		i += w;
	return i < n && s[i] == '#';
}

/* COMMENT_RE.sub("", line): cut at the leftmost "(^|\s+)#" */
static void strip_comment(struct lline *ll)
{
	const char *s = ll->s.buf;
	size_t n = ll->s.len, i = 0, w;

	if (n && s[0] == '#') {
		rr_strbuf_setlen(&ll->s, 0);
		return;
	}
	while (i < n) {
		w = ws_at(s + i, n - i);
		if (w == 0) {
			i++;
			continue;
		}
		size_t j = i;
		while ((w = ws_at(s + j, n - j)) > 0)
			j += w;
		if (j < n && s[j] == '#') {
			rr_strbuf_setlen(&ll->s, i);
			return;
		}
		i = j;
	}
}

/* str.strip() */
static void strip_ws(struct lline *ll)
{
	size_t a = 0, b = ll->s.len, w;

	while (a < b && (w = ws_at(ll->s.buf + a, b - a)) > 0)
		a += w;
	while (b > a && (w = ws_before(ll->s.buf, b)) > 0)
		b -= w;
	ll_slice(ll, a, b);
}

/* ${NAME} with NAME in [A-Z0-9_]+ at s[i]; returns the length of the whole reference */
static size_t env_ref_at(const char *s, size_t n, size_t i)
{
	size_t j;

	if (i + 3 > n || s[i] != '$' || s[i + 1] != '{')
		return 0;
	for (j = i + 2; j < n && ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= '0' && s[j] <= '9') ||
				  s[j] == '_');
	     j++)
		;
	if (j == i + 2 || j >= n || s[j] != '}')
		return 0;
	return j + 1 - i;
}

char *rr_reqfile_expand(const char *s, const char *(*getenv_fn)(const char *))
{
	struct rr_strbuf out = RR_STRBUF_INIT;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t r = env_ref_at(s, n, i);
		RR_AUTOFREE char *name = r ? rr_xstrndup(s + i + 2, r - 3) : NULL;
		const char *val = name ? (getenv_fn ? getenv_fn(name) : getenv(name)) : NULL;
		if (val && *val) {
			rr_strbuf_adds(&out, val);
			i += r;
		} else {
			rr_strbuf_add(&out, s + i, r ? r : 1);
			i += r ? r : 1;
		}
	}
	return rr_strbuf_detach(&out, NULL);
}

/*
 * expand_env_variables: findall() on the line, then for each reference found
 * (in order, repeats included) with a non-empty value, replace every
 * occurrence in the current line
 */
static void expand_env(struct rf *rf, struct lline *ll)
{
	RR_AUTOFREE char *orig = NULL;
	size_t n = ll->s.len;

	if (!memchr(ll->s.buf, '$', n))
		return;
	orig = rr_xstrndup(ll->s.buf, n);
	for (size_t i = 0; i < n;) {
		size_t r = env_ref_at(orig, n, i);
		if (!r) {
			i++;
			continue;
		}
		RR_AUTOFREE char *ref = rr_xstrndup(orig + i, r);
		RR_AUTOFREE char *name = rr_xstrndup(orig + i + 2, r - 3);
		const char *val = getenv(name);
		i += r;
		if (!val || !*val)
			continue;
		struct subst *sub = &RR_PUSH(rf->subs, rf->nsubs, rf->cap_subs);
		sub->ref = rr_xstrdup(ref);
		sub->val = rr_xstrdup(val);
		/* replace all occurrences of ref in ll */
		struct lline nl = {RR_STRBUF_INIT, NULL, 0, ll->lineno};
		size_t vlen = strlen(val);
		for (size_t k = 0; k < ll->s.len;) {
			if (k + r <= ll->s.len && memcmp(ll->s.buf + k, ref, r) == 0) {
				size_t at = ll->map[k];
				ll_add(&nl, val, vlen, NOPOS);
				/* the value's bytes point at the '$' of the reference */
				for (size_t q = nl.s.len - vlen; q < nl.s.len; q++)
					nl.map[q] = at;
				k += r;
			} else {
				ll_add(&nl, ll->s.buf + k, 1, ll->map[k]);
				k++;
			}
		}
		rr_strbuf_release(&ll->s);
		free(ll->map);
		*ll = nl;
	}
}

/* ---------------------------------------------------------------------------
 * shlex.split (posix, whitespace_split, no comments)
 */

struct tok {
	char *s;
	size_t at; /* offset in the logical line where the token starts */
};

struct toks {
	struct tok *v;
	size_t n, cap;
};

static void toks_release(struct toks *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].s);
	free(t->v);
}

static bool shlex_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* returns false with *bad = offset and *msg on error */
static bool shlex_split(const char *s, size_t n, size_t base, struct toks *out, size_t *bad,
			const char **msg)
{
	size_t i = 0;

	while (i < n) {
		RR_AUTO_STRBUF struct rr_strbuf t = RR_STRBUF_INIT;
		size_t start;

		while (i < n && shlex_ws(s[i]))
			i++;
		if (i >= n)
			break;
		start = i;
		while (i < n && !shlex_ws(s[i])) {
			char c = s[i];
			if (c == '\\') {
				if (i + 1 >= n) {
					*bad = base + i;
					*msg = "no escaped character";
					return false;
				}
				rr_strbuf_addch(&t, s[i + 1]);
				i += 2;
			} else if (c == '\'') {
				size_t q = i++;
				while (i < n && s[i] != '\'')
					rr_strbuf_addch(&t, s[i++]);
				if (i >= n) {
					*bad = base + q;
					*msg = "no closing quotation";
					return false;
				}
				i++;
			} else if (c == '"') {
				size_t q = i++;
				while (i < n && s[i] != '"') {
					if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\')) {
						rr_strbuf_addch(&t, s[i + 1]);
						i += 2;
					} else if (s[i] == '\\' && i + 1 >= n) {
						*bad = base + i;
						*msg = "no escaped character";
						return false;
					} else {
						rr_strbuf_addch(&t, s[i++]);
					}
				}
				if (i >= n) {
					*bad = base + q;
					*msg = "no closing quotation";
					return false;
				}
				i++;
			} else {
				rr_strbuf_addch(&t, c);
				i++;
			}
		}
		struct tok *tk = &RR_PUSH(out->v, out->n, out->cap);
		tk->s = rr_strbuf_detach(&t, NULL);
		tk->at = base + start;
	}
	return true;
}

/* ---------------------------------------------------------------------------
 * optparse over pip's SUPPORTED_OPTIONS + SUPPORTED_OPTIONS_REQ
 */

enum opt_id {
	O_INDEX_URL,
	O_EXTRA_INDEX_URL,
	O_NO_INDEX,
	O_CONSTRAINT,
	O_REQUIREMENT,
	O_EDITABLE,
	O_FIND_LINKS,
	O_NO_BINARY,
	O_ONLY_BINARY,
	O_PREFER_BINARY,
	O_REQUIRE_HASHES,
	O_PRE,
	O_TRUSTED_HOST,
	O_USE_FEATURE,
	O_INSTALL_OPTION,
	O_GLOBAL_OPTION,
	O_HASH,
	O_CONFIG_SETTINGS,
};

static const struct optdef {
	const char *name; /* spelling */
	enum opt_id id;
	const char *canon; /* reported name */
	bool value;
	bool pip23; /* in pip 23.0 (takes part in prefix matching) */
} optdefs[] = {
	{"--index-url", O_INDEX_URL, "--index-url", true, true},
	{"--pypi-url", O_INDEX_URL, "--index-url", true, true},
	{"--extra-index-url", O_EXTRA_INDEX_URL, "--extra-index-url", true, true},
	{"--no-index", O_NO_INDEX, "--no-index", false, true},
	{"--constraint", O_CONSTRAINT, "--constraint", true, true},
	{"--requirement", O_REQUIREMENT, "--requirement", true, true},
	{"--editable", O_EDITABLE, "--editable", true, true},
	{"--find-links", O_FIND_LINKS, "--find-links", true, true},
	{"--no-binary", O_NO_BINARY, "--no-binary", true, true},
	{"--only-binary", O_ONLY_BINARY, "--only-binary", true, true},
	{"--prefer-binary", O_PREFER_BINARY, "--prefer-binary", false, true},
	{"--require-hashes", O_REQUIRE_HASHES, "--require-hashes", false, true},
	{"--pre", O_PRE, "--pre", false, true},
	{"--trusted-host", O_TRUSTED_HOST, "--trusted-host", true, true},
	{"--use-feature", O_USE_FEATURE, "--use-feature", true, true},
	{"--install-option", O_INSTALL_OPTION, "--install-option", true, true},
	{"--global-option", O_GLOBAL_OPTION, "--global-option", true, true},
	{"--hash", O_HASH, "--hash", true, true},
	/* pip >= 23.1 and uv; exact spelling only so pip 23.0's prefixes keep their meaning */
	{"--config-settings", O_CONFIG_SETTINGS, "--config-settings", true, false},
};

static const struct {
	char c;
	enum opt_id id;
} shortdefs[] = {
	{'i', O_INDEX_URL}, {'c', O_CONSTRAINT}, {'r', O_REQUIREMENT},
	{'e', O_EDITABLE},  {'f', O_FIND_LINKS},
};

static const struct optdef *optdef_by_id(enum opt_id id)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(optdefs); i++)
		if (optdefs[i].id == id)
			return &optdefs[i];
	return NULL;
}

struct optval {
	const struct optdef *def;
	char *value; /* NULL for flags */
	size_t at;   /* offset in the logical line of the option token */
	size_t vat;  /* ... and of its value */
};

struct optvals {
	struct optval *v;
	size_t n, cap;
};

static void optvals_release(struct optvals *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->v[i].value);
	free(o->v);
}

/* optparse's _match_abbrev: exact, else a unique prefix */
static const struct optdef *match_long(const char *s, size_t n, char **ambig)
{
	const struct optdef *hit = NULL;
	size_t nhit = 0;
	RR_AUTO_STRBUF struct rr_strbuf names = RR_STRBUF_INIT;

	for (size_t i = 0; i < RR_ARRAY_LEN(optdefs); i++)
		if (strlen(optdefs[i].name) == n && memcmp(optdefs[i].name, s, n) == 0)
			return &optdefs[i];
	/* optdefs is not sorted; optparse lists candidates sorted */
	const char *cands[RR_ARRAY_LEN(optdefs)];
	for (size_t i = 0; i < RR_ARRAY_LEN(optdefs); i++)
		if (optdefs[i].pip23 && strncmp(optdefs[i].name, s, n) == 0) {
			hit = &optdefs[i];
			cands[nhit++] = optdefs[i].name;
		}
	if (nhit <= 1)
		return hit;
	for (size_t i = 1; i < nhit; i++)
		for (size_t j = i; j > 0 && strcmp(cands[j - 1], cands[j]) > 0; j--) {
			const char *t = cands[j];
			cands[j] = cands[j - 1];
			cands[j - 1] = t;
		}
	for (size_t i = 0; i < nhit; i++)
		rr_strbuf_addf(&names, "%s%s", i ? ", " : "", cands[i]);
	*ambig = rr_strbuf_detach(&names, NULL);
	return NULL;
}

static bool hash_algo_ok(const char *v, size_t n)
{
	return (n == 6 && (memcmp(v, "sha256", 6) == 0 || memcmp(v, "sha384", 6) == 0 ||
			   memcmp(v, "sha512", 6) == 0));
}

/* the optparse loop; errors name the offending token */
static rr_err parse_options(const struct rf *rf, const struct lline *ll, struct toks *tk,
			    struct optvals *out, rr_error *err)
{
	size_t i = 0;

	while (i < tk->n) {
		const char *a = tk->v[i].s;
		size_t at = tk->v[i].at;
		size_t off = map_at(ll, at);

		if (strcmp(a, "--") == 0)
			break; /* the rest is positional, which pip ignores */
		if (a[0] == '-' && a[1] == '-') {
			const char *eq = strchr(a, '=');
			size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
			RR_AUTOFREE char *ambig = NULL;
			const struct optdef *d = match_long(a, nlen, &ambig);
			if (ambig)
				return fail_off(rf, RR_E_PARSE, ll, off, err,
						"ambiguous option '%.*s' (%s?)", (int)nlen, a, ambig);
			if (!d)
				return fail_off(rf, RR_E_PARSE, ll, off, err, "no such option '%.*s'",
						(int)nlen, a);
			struct optval ov = {d, NULL, at, at};
			if (d->value) {
				if (eq) {
					ov.value = rr_xstrdup(eq + 1);
					ov.vat = at + nlen + 1;
				} else if (i + 1 < tk->n) {
					ov.vat = tk->v[i + 1].at;
					ov.value = rr_xstrdup(tk->v[++i].s);
				} else {
					return fail_off(rf, RR_E_PARSE, ll, off, err,
							"option %s requires 1 argument", d->name);
				}
			} else if (eq) {
				return fail_off(rf, RR_E_PARSE, ll, off, err,
						"option %s does not take a value", d->name);
			}
			RR_PUSH(out->v, out->n, out->cap) = ov;
			i++;
		} else if (a[0] == '-' && a[1]) {
			/* short options: all of pip's take a value, attached or next */
			const struct optdef *d = NULL;
			for (size_t k = 0; k < RR_ARRAY_LEN(shortdefs); k++)
				if (shortdefs[k].c == a[1])
					d = optdef_by_id(shortdefs[k].id);
			if (!d)
				return fail_off(rf, RR_E_PARSE, ll, off, err, "no such option '-%c'",
						a[1]);
			struct optval ov = {d, NULL, at, at + 2};
			if (a[2]) {
				ov.value = rr_xstrdup(a + 2);
			} else if (i + 1 < tk->n) {
				ov.vat = tk->v[i + 1].at;
				ov.value = rr_xstrdup(tk->v[++i].s);
			} else {
				return fail_off(rf, RR_E_PARSE, ll, off, err,
						"option -%c requires 1 argument", a[1]);
			}
			RR_PUSH(out->v, out->n, out->cap) = ov;
			i++;
		} else {
			i++; /* positional: optparse collects it, pip never looks */
			continue;
		}
		/* the callbacks validate while parsing, whatever the line turns out to be */
		struct optval *ov = &out->v[out->n - 1];
		if (ov->def->id == O_HASH) {
			const char *colon = strchr(ov->value, ':');
			if (!colon)
				return fail_off(rf, RR_E_PARSE, ll, off, err,
						"arguments to --hash must be a hash name followed by a value, like --hash=sha256:abcde...");
			if (!hash_algo_ok(ov->value, (size_t)(colon - ov->value)))
				return fail_off(rf, RR_E_PARSE, ll, off, err,
						"allowed hash algorithms for --hash are sha256, sha384, sha512 (not '%.*s')",
						(int)(colon - ov->value), ov->value);
		} else if ((ov->def->id == O_NO_BINARY || ov->def->id == O_ONLY_BINARY) &&
			   ov->value[0] == '-') {
			return fail_off(rf, RR_E_PARSE, ll, off, err,
					"option %s requires 1 argument (got '%s')", ov->def->name,
					ov->value);
		}
	}
	return RR_OK;
}

/* ---------------------------------------------------------------------------
 * requirement lines
 */

static bool url_scheme_known(const char *s, size_t *slen)
{
	static const char *const schemes[] = {
		"http", "https", "file", "ftp", "git", "git+http", "git+https", "git+ssh",
		"git+git", "git+file", "hg+file", "hg+http", "hg+https", "hg+ssh", "hg+static-http",
		"svn", "svn+svn", "svn+http", "svn+https", "svn+ssh", "svn+file", "bzr+http",
		"bzr+https", "bzr+ssh", "bzr+sftp", "bzr+ftp", "bzr+lp", "bzr+file",
	};
	const char *colon = strchr(s, ':');

	if (!colon)
		return false;
	for (size_t i = 0; i < RR_ARRAY_LEN(schemes); i++)
		if (strlen(schemes[i]) == (size_t)(colon - s) &&
		    strncasecmp(schemes[i], s, (size_t)(colon - s)) == 0) {
			if (slen)
				*slen = (size_t)(colon - s);
			return true;
		}
	return false;
}

/* pip's _looks_like_path */
static bool looks_like_path(const char *s)
{
	return strchr(s, '/') || s[0] == '.';
}

static const char *const archive_exts[] = {
	".whl", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tlz", ".tar.lz", ".tar.lzma",
	".zip", ".tar.gz", ".tgz", ".tar",
};

static const char *archive_ext(const char *s, size_t n)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(archive_exts); i++) {
		size_t e = strlen(archive_exts[i]);
		if (n >= e && strncasecmp(s + n - e, archive_exts[i], e) == 0)
			return archive_exts[i];
	}
	return NULL;
}

/* name from "#egg=NAME" or the wheel / sdist file name, NULL if none */
static char *derive_name(const char *url)
{
	const char *egg = strstr(url, "#egg=");
	const char *amp = egg ? NULL : strstr(url, "&egg=");
	size_t n;

	if (amp && strchr(url, '#') && strchr(url, '#') < amp)
		egg = amp;
	if (egg) {
		egg += 5;
		n = strcspn(egg, "&[");
		return n && rr_name_is_valid(egg, n) ? rr_xstrndup(egg, n) : NULL;
	}
	/* last path segment, before any query or fragment */
	size_t end = strcspn(url, "?#");
	size_t start = end;
	while (start > 0 && url[start - 1] != '/' && url[start - 1] != '\\')
		start--;
	const char *f = url + start;
	n = end - start;
	const char *ext = archive_ext(f, n);
	if (!ext)
		return NULL;
	if (strcmp(ext, ".whl") == 0) {
		size_t k = strcspn(f, "-");
		return k < n && rr_name_is_valid(f, k) ? rr_xstrndup(f, k) : NULL;
	}
	/* sdist: name-version.ext, the version starts after the last '-' followed by a digit */
	size_t stem = n - strlen(ext);
	for (size_t k = stem; k-- > 0;)
		if (f[k] == '-' && k + 1 < stem && f[k + 1] >= '0' && f[k + 1] <= '9')
			return rr_name_is_valid(f, k) ? rr_xstrndup(f, k) : NULL;
	return NULL;
}

/* "path[extra1,extra2]" -> extras into req, returns the path length */
static size_t strip_extras(const char *s, size_t n, struct rr_requirement *req)
{
	size_t cap = req->nextras;

	if (n < 3 || s[n - 1] != ']')
		return n;
	size_t open = n - 1;
	while (open > 0 && s[open] != '[')
		open--;
	if (open == 0 || s[open] != '[' || memchr(s + open + 1, ']', n - open - 2))
		return n;
	for (size_t a = open + 1; a < n - 1;) {
		size_t b = a;
		while (b < n - 1 && s[b] != ',')
			b++;
		size_t x = a, y = b;
		while (x < y && (s[x] == ' ' || s[x] == '\t'))
			x++;
		while (y > x && (s[y - 1] == ' ' || s[y - 1] == '\t'))
			y--;
		if (y > x)
			RR_PUSH(req->extras, req->nextras, cap) = rr_xstrndup(s + x, y - x);
		a = b + 1;
	}
	/* duplicates (PEP 503-equal) dropped by a hash set: 100k extras were a pairwise scan */
	req->nextras = rr_strv_dedupe(req->extras, req->nextras, rr_name_eq, rr_name_hash);
	return open;
}

/* bare URL or local path (or -e target); pip's parse_req_from_line / parse_editable */
static rr_err parse_url_item(const struct rf *rf, const struct lline *ll, size_t at,
			     struct rr_item *it, rr_error *err)
{
	const char *t = it->text;
	size_t n = strlen(t);
	bool is_url = url_scheme_known(t, NULL);

	if (!it->editable) {
		const char *sep = is_url ? strstr(t, "; ") : strchr(t, ';');
		if (sep) {
			size_t m = (size_t)(sep - t) + (is_url ? 2 : 1);
			while (t[m] == ' ' || t[m] == '\t')
				m++;
			if (t[m]) {
				rr_err rc = rr_marker_parse(t + m, SIZE_MAX, &it->req.marker, err);
				if (rc) {
					unsigned c = err ? err->col : 1;
					size_t off = map_at(ll, at + m + (c ? c - 1 : 0));
					RR_AUTOFREE char *msg = err && err->msg ? rr_xstrdup(err->msg) : NULL;
					return fail_off(rf, rc, ll, off, err, "%s",
							msg ? msg : "invalid marker");
				}
			}
			n = (size_t)(sep - t);
			while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
				n--;
		}
	}
	size_t plen = is_url ? n : strip_extras(t, n, &it->req);
	if (is_url) {
		/* VCS and archive URLs may carry extras only in #egg=name[extra] */
		plen = n;
	}
	it->req.url = rr_xstrndup(t, plen);
	{
		/* a wheel's file name must be name-version(-build)?-python-abi-platform.whl */
		size_t end = strcspn(it->req.url, "?#"), start = end, dashes = 0;
		while (start > 0 && it->req.url[start - 1] != '/')
			start--;
		if (end - start > 4 && strncasecmp(it->req.url + end - 4, ".whl", 4) == 0) {
			for (size_t k = start; k < end; k++)
				dashes += it->req.url[k] == '-';
			if (dashes != 4 && dashes != 5)
				return fail_off(rf, RR_E_PARSE, ll, map_at(ll, at), err,
						"'%.*s' is not a valid wheel filename", (int)(end - start),
						it->req.url + start);
		}
	}
	it->req.name = derive_name(it->req.url);
	if (it->req.name)
		it->req.key = rr_name_normalize(it->req.name);
	return RR_OK;
}

/* which kind is this requirement text (pip's parse_req_from_line decision, without the disk) */
static bool is_url_like(const char *t)
{
	if (url_scheme_known(t, NULL))
		return true;
	/* before any ';' marker */
	size_t n = strcspn(t, ";");
	RR_AUTOFREE char *p = rr_xstrndup(t, n);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		p[--n] = '\0';
	/* "name @ url": the part before '@' is no path, so PEP 508 */
	const char *at = strchr(p, '@');
	if (at) {
		RR_AUTOFREE char *head = rr_xstrndup(p, (size_t)(at - p));
		if (!looks_like_path(head))
			return false;
	}
	if (looks_like_path(p))
		return true;
	size_t m = n;
	if (m && p[m - 1] == ']' && strchr(p, '['))
		m = (size_t)(strrchr(p, '[') - p);
	return archive_ext(p, m) != NULL;
}

static rr_err add_requirement_(struct rf *rf, const struct lline *ll, size_t at, size_t len,
			       const char *editable, struct optvals *ov, rr_error *err)
{
	struct rr_item *it = rr_reqset_add_item(rf->set);
	size_t off = map_at(ll, at);
	rr_err rc;

	it->path = rr_xstrdup(rf->path);
	it->line = ll->lineno;
	it->col = off == NOPOS ? 1 : (unsigned)(off - rf->lstart[line_of(rf, off) - 1]) + 1;
	it->constraint = rf->constraint;
	it->editable = editable != NULL;
	if (editable) {
		/* pip takes no per-requirement options on an editable line */
		it->text = rr_xstrdup(editable);
		it->kind = RR_ITEM_URL;
		return parse_url_item(rf, ll, at, it, err);
	}
	while (len > 0 && (ll->s.buf[at + len - 1] == ' ' || ll->s.buf[at + len - 1] == '\t'))
		len--;
	it->text = rr_xstrndup(ll->s.buf + at, len);
	for (size_t i = 0; ov && i < ov->n; i++) {
		const struct optval *o = &ov->v[i];
		switch (o->def->id) {
		case O_HASH:
			it->hashes = rr_xrealloc(it->hashes, (it->nhashes + 1) * sizeof(char *));
			it->hashes[it->nhashes++] = rr_xstrdup(o->value);
			break;
		case O_INSTALL_OPTION:
		case O_GLOBAL_OPTION:
		case O_CONFIG_SETTINGS:
			it->options = rr_xrealloc(it->options, (it->noptions + 1) * sizeof(char *));
			it->options[it->noptions++] = rr_xasprintf("%s=%s", o->def->canon, o->value);
			if (rf->nsubs) {
				char **opt = &it->options[it->noptions - 1];
				char *shown = unexpand(rf, *opt);
				free(*opt);
				*opt = shown;
			}
			break;
		default:
			rr_reqset_add_warning(rf->set,
					      "%s:%u: option %s on a requirement line is ignored",
					      rf->path, ll->lineno, o->def->canon);
			break;
		}
	}
	if (is_url_like(it->text)) {
		it->kind = RR_ITEM_URL;
		return parse_url_item(rf, ll, at, it, err);
	}
	it->kind = RR_ITEM_REQ;
	rc = rr_requirement_parse(it->text, &it->req, err);
	if (rc) {
		unsigned c = err && err->col ? err->col : 1;
		size_t eoff = map_at(ll, at + c - 1);
		RR_AUTOFREE char *msg = err && err->msg ? rr_xstrdup(err->msg) : NULL;
		return fail_off(rf, rc, ll, eoff, err, "%s", msg ? msg : "invalid requirement");
	}
	return RR_OK;
}

/*
 * one requirement; parsed from the expanded line, then text and url_written put back as
 * written (${VAR} kept) for everything that prints them
 */
static rr_err add_requirement(struct rf *rf, const struct lline *ll, size_t at, size_t len,
			      const char *editable, struct optvals *ov, rr_error *err)
{
	size_t idx = rf->set->nitems;
	rr_err rc = add_requirement_(rf, ll, at, len, editable, ov, err);
	struct rr_item *it = &rf->set->items[idx];

	it->text_expanded = it->text;
	it->url_written = it->req.url;
	if (rf->nsubs) {
		it->text = unexpand(rf, it->text_expanded);
		if (!strcmp(it->text, it->text_expanded)) {
			free(it->text);
			it->text = it->text_expanded;
		}
		if (it->req.url && strcmp(it->url_written = unexpand(rf, it->req.url), it->req.url) == 0) {
			free(it->url_written);
			it->url_written = it->req.url;
		}
	}
	return rc;
}

/* ---------------------------------------------------------------------------
 * option lines and includes
 */

static rr_err load_file(struct rr_reqset *set, const char *path, bool constraint, int depth,
			const struct chain *up, rr_error *err);

static char *join_path(const char *base, const char *rel)
{
	const char *slash = strrchr(base, '/');

	if (rel[0] == '/' || !slash || strcmp(base, "-") == 0)
		return rr_xstrdup(rel);
	return rr_xasprintf("%.*s/%s", (int)(slash - base), base, rel);
}

static rr_err include(struct rf *rf, const struct lline *ll, const struct optval *o,
		      bool constraint, rr_error *err)
{
	size_t off = map_at(ll, o->at);
	RR_AUTOFREE char *target = NULL;
	RR_AUTOFREE char *key = NULL;
	rr_err rc;

	/* pip's SCHEME_RE: these are fetched, never joined to the including path */
	if (strncasecmp(o->value, "http:", 5) == 0 || strncasecmp(o->value, "https:", 6) == 0 ||
	    strncasecmp(o->value, "file:", 5) == 0)
		return fail_off(rf, RR_E_UNSUPPORTED, ll, off, err,
				"remote includes are not supported: '%s'", o->value);
	if (rf->depth + 1 >= RR_REQFILE_MAX_DEPTH)
		return fail_off(rf, RR_E_LIMIT, ll, off, err,
				"includes nested deeper than %d files", RR_REQFILE_MAX_DEPTH);
	target = join_path(rf->path, o->value);
	key = realpath(target, NULL);
	if (!key)
		key = rr_xstrdup(target);
	for (const struct chain *c = rf->chain; c; c = c->up) {
		if (strcmp(c->key, key) != 0)
			continue;
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		const struct chain *v[RR_REQFILE_MAX_DEPTH + 1];
		size_t nv = 0;
		for (const struct chain *d = rf->chain; d && nv < RR_ARRAY_LEN(v); d = d->up)
			v[nv++] = d;
		while (nv-- > 0)
			rr_strbuf_addf(&sb, "%s -> ", v[nv]->path);
		rr_strbuf_adds(&sb, target);
		return fail_off(rf, RR_E_PARSE, ll, off, err, "include cycle: %s", sb.buf);
	}
	rc = load_file(rf->set, target, constraint, rf->depth + 1, rf->chain, err);
	if (rc && err && !err->line) {
		/* could not open it: point at the line that asked */
		RR_AUTOFREE char *msg = err->msg ? rr_xstrdup(err->msg) : NULL;
		return fail_off(rf, rc, ll, off, err, "%s", msg ? msg : "cannot read include");
	}
	return rc;
}

static void push_str(char ***v, size_t *n, const char *s)
{
	*v = rr_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = rr_xstrdup(s);
}

static void add_opt(struct rf *rf, const struct lline *ll, const struct optval *o)
{
	struct rr_optline *ol = &RR_PUSH(rf->set->opts, rf->set->nopts, rf->set->cap_opts);

	ol->path = rr_xstrdup(rf->path);
	ol->line = ll->lineno;
	ol->name = rr_xstrdup(o->def->canon);
	ol->value_expanded = o->value ? rr_xstrdup(o->value) : NULL;
	ol->value = rf->nsubs ? unexpand(rf, o->value) : ol->value_expanded;
}

static rr_err option_line(struct rf *rf, const struct lline *ll, struct optvals *ov,
			  rr_error *err)
{
	struct rr_reqset *set = rf->set;
	bool find_links_seen = false;

	/* pip: an include line includes the first -r (else the first -c) and nothing else */
	for (size_t i = 0; i < ov->n; i++)
		if (ov->v[i].def->id == O_REQUIREMENT)
			return include(rf, ll, &ov->v[i], false, err);
	for (size_t i = 0; i < ov->n; i++)
		if (ov->v[i].def->id == O_CONSTRAINT)
			return include(rf, ll, &ov->v[i], true, err);
	for (size_t i = 0; i < ov->n; i++) {
		const struct optval *o = &ov->v[i];
		switch (o->def->id) {
		case O_INDEX_URL:
			free(set->index_url);
			set->index_url = rr_xstrdup(o->value);
			break;
		case O_EXTRA_INDEX_URL:
			push_str(&set->extra_index_urls, &set->nextra_index_urls, o->value);
			break;
		case O_FIND_LINKS: {
			/* pip uses only the first one of a line, relative to the file if it exists */
			if (find_links_seen) {
				rr_reqset_add_warning(set,
						      "%s:%u: only the first --find-links of a line is used",
						      rf->path, ll->lineno);
				break;
			}
			find_links_seen = true;
			RR_AUTOFREE char *rel = NULL;
			struct stat st;
			if (!url_scheme_known(o->value, NULL) && o->value[0] != '/') {
				rel = join_path(rf->path, o->value);
				if (stat(rel, &st) != 0)
					rel = rr_free(rel);
			}
			push_str(&set->find_links, &set->nfind_links, rel ? rel : o->value);
			break;
		}
		case O_TRUSTED_HOST:
			push_str(&set->trusted_hosts, &set->ntrusted_hosts, o->value);
			break;
		case O_NO_INDEX:
			set->no_index = true;
			break;
		case O_PRE:
			set->pre = true;
			break;
		case O_PREFER_BINARY:
			set->prefer_binary = true;
			break;
		case O_REQUIRE_HASHES:
			set->require_hashes = true;
			break;
		case O_HASH:
		case O_INSTALL_OPTION:
		case O_GLOBAL_OPTION:
		case O_CONFIG_SETTINGS:
			rr_reqset_add_warning(set, "%s:%u: option %s without a requirement is ignored",
					      rf->path, ll->lineno, o->def->canon);
			continue;
		default:
			break;
		}
		add_opt(rf, ll, o);
	}
	return RR_OK;
}

/* ---------------------------------------------------------------------------
 * one logical line
 */

static rr_err process_line(struct rf *rf, struct lline *ll, rr_error *err)
{
	struct toks tk = {0};
	struct optvals ov = {0};
	const char *s = ll->s.buf;
	size_t n = ll->s.len, args_end = n, opt_start = n;
	size_t bad = 0;
	const char *msg = NULL;
	rr_err rc = RR_OK;

	/* break_args_options: split on single spaces, args end before the first "-" token */
	for (size_t i = 0; i < n;) {
		if (s[i] == '-') {
			args_end = i ? i - 1 : 0;
			opt_start = i;
			break;
		}
		const char *sp = memchr(s + i, ' ', n - i);
		if (!sp)
			break;
		i = (size_t)(sp - s) + 1;
	}
	if (!shlex_split(s + opt_start, n - opt_start, opt_start, &tk, &bad, &msg)) {
		rc = fail_off(rf, RR_E_PARSE, ll, map_at(ll, bad), err, "cannot split options: %s",
			      msg);
		goto out;
	}
	rc = parse_options(rf, ll, &tk, &ov, err);
	if (rc)
		goto out;
	if (args_end > 0) {
		rc = add_requirement(rf, ll, 0, args_end, NULL, &ov, err);
	} else {
		const struct optval *ed = NULL;
		for (size_t i = 0; i < ov.n && !ed; i++)
			if (ov.v[i].def->id == O_EDITABLE)
				ed = &ov.v[i];
		if (ed)
			rc = add_requirement(rf, ll, ed->vat, 0, ed->value, &ov, err);
		else
			rc = option_line(rf, ll, &ov, err);
	}
out:
	toks_release(&tk);
	optvals_release(&ov);
	return rc;
}

/* ---------------------------------------------------------------------------
 * the file
 */

static rr_err check_text(struct rf *rf, rr_error *err)
{
	const unsigned char *u = (const unsigned char *)rf->text;

	for (size_t i = 0; i < rf->len;) {
		if (u[i] == 0)
			return fail_off(rf, RR_E_PARSE, NULL, i, err, "NUL byte in requirements file");
		size_t k = utf8_len(u + i, rf->len - i);
		if (!k)
			return fail_off(rf, RR_E_PARSE, NULL, i, err,
					"requirements file is not valid UTF-8");
		i += k;
	}
	return RR_OK;
}

static void add_pline(struct rf *rf, size_t *cap, size_t start, size_t end)
{
	size_t old = *cap;

	rr_xgrow((void **)&rf->lstart, cap, sizeof(size_t), rf->nlines + 1);
	/* lend follows lstart's capacity: resized only when that grows, not once a line */
	if (*cap != old || !rf->lend)
		rf->lend = rr_xrealloc(rf->lend, *cap * sizeof(size_t));
	rf->lstart[rf->nlines] = start;
	rf->lend[rf->nlines++] = end;
}

static void split_lines(struct rf *rf)
{
	size_t cap = 0, i = 0, start = 0;

	while (i < rf->len) {
		size_t b = linebreak_at(rf->text + i, rf->len - i);
		if (!b) {
			i++;
			continue;
		}
		add_pline(rf, &cap, start, i);
		i += b;
		start = i;
	}
	/* like splitlines(), a final line break opens no new line; positions still need one */
	if (start < rf->len || rf->nlines == 0)
		add_pline(rf, &cap, start, rf->len);
}

static rr_err handle_logical(struct rf *rf, struct lline *ll, rr_error *err)
{
	rr_err rc;

	strip_comment(ll);
	strip_ws(ll);
	if (ll->s.len == 0)
		return RR_OK;
	subs_clear(rf);
	expand_env(rf, ll);
	rc = process_line(rf, ll, err);
	if (rc && err && err->msg && rf->nsubs) {
		/* a message quoting the expanded line must not show the secret either */
		char *shown = unexpand(rf, err->msg);
		free(err->msg);
		err->msg = shown;
	}
	subs_clear(rf);
	return rc;
}

static rr_err parse_text(struct rf *rf, rr_error *err)
{
	struct lline ll = {RR_STRBUF_INIT, NULL, 0, 0};
	bool pending = false;
	rr_err rc = RR_OK;

	/* physical lines first: even an encoding error needs its line and column */
	split_lines(rf);
	rc = check_text(rf, err);
	if (rc || rf->len == 0)
		goto out;
	for (size_t i = 0; i < rf->nlines && !rc; i++) {
		const char *l = rf->text + rf->lstart[i];
		size_t n = rf->lend[i] - rf->lstart[i];
		bool comment = is_comment_line(l, n);

		if (n > 0 && l[n - 1] == '\\' && !comment) {
			/* continuation: line.strip("\\") */
			size_t a = 0, b = n;
			while (a < b && l[a] == '\\')
				a++;
			while (b > a && l[b - 1] == '\\')
				b--;
			if (!pending) {
				ll_reset(&ll);
				ll.lineno = (unsigned)i + 1;
				pending = true;
			}
			ll_add(&ll, l + a, b - a, rf->lstart[i] + a);
			continue;
		}
		if (!pending) {
			ll_reset(&ll);
			ll.lineno = (unsigned)i + 1;
		}
		/* a comment line gets a leading space so the comment regex matches later */
		if (comment)
			ll_add(&ll, " ", 1, NOPOS);
		ll_add(&ll, l, n, rf->lstart[i]);
		pending = false;
		rc = handle_logical(rf, &ll, err);
	}
	if (pending && !rc)
		rc = handle_logical(rf, &ll, err);
out:
	rr_strbuf_release(&ll.s);
	free(ll.map);
	return rc;
}

/* strip a UTF-8 BOM; convert UTF-16 (either BOM) to UTF-8 */
static rr_err decode(struct rr_strbuf *out, const char *path, const char *text, size_t len,
		     rr_error *err)
{
	const unsigned char *u = (const unsigned char *)text;

	if (len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) {
		rr_strbuf_add(out, text + 3, len - 3);
		return RR_OK;
	}
	if (len >= 4 && ((u[0] == 0 && u[1] == 0 && u[2] == 0xfe && u[3] == 0xff) ||
			 (u[0] == 0xff && u[1] == 0xfe && u[2] == 0 && u[3] == 0)))
		return rr_fail_at(err, RR_E_UNSUPPORTED, path, 1, 1, NULL,
				  "UTF-32 requirements files are not supported");
	if (len >= 2 && ((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff))) {
		bool le = u[0] == 0xff;
		for (size_t i = 2; i + 1 < len; i += 2) {
			unsigned c = le ? (unsigned)(u[i] | u[i + 1] << 8) : (unsigned)(u[i] << 8 | u[i + 1]);
			if (c >= 0xd800 && c <= 0xdbff && i + 3 < len) {
				unsigned d = le ? (unsigned)(u[i + 2] | u[i + 3] << 8)
						: (unsigned)(u[i + 2] << 8 | u[i + 3]);
				if (d >= 0xdc00 && d <= 0xdfff) {
					c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
					i += 2;
				}
			}
			if ((c >= 0xd800 && c <= 0xdfff) || c == 0)
				return rr_fail_at(err, RR_E_PARSE, path, 0, 0, NULL,
						  "invalid UTF-16 in requirements file");
			if (c < 0x80) {
				rr_strbuf_addch(out, (char)c);
			} else if (c < 0x800) {
				rr_strbuf_addch(out, (char)(0xc0 | c >> 6));
				rr_strbuf_addch(out, (char)(0x80 | (c & 0x3f)));
			} else if (c < 0x10000) {
				rr_strbuf_addch(out, (char)(0xe0 | c >> 12));
				rr_strbuf_addch(out, (char)(0x80 | ((c >> 6) & 0x3f)));
				rr_strbuf_addch(out, (char)(0x80 | (c & 0x3f)));
			} else {
				rr_strbuf_addch(out, (char)(0xf0 | c >> 18));
				rr_strbuf_addch(out, (char)(0x80 | ((c >> 12) & 0x3f)));
				rr_strbuf_addch(out, (char)(0x80 | ((c >> 6) & 0x3f)));
				rr_strbuf_addch(out, (char)(0x80 | (c & 0x3f)));
			}
		}
		if (len % 2)
			return rr_fail_at(err, RR_E_PARSE, path, 0, 0, NULL,
					  "truncated UTF-16 in requirements file");
		return RR_OK;
	}
	rr_strbuf_add(out, text, len);
	return RR_OK;
}

static rr_err parse_with_chain(struct rr_reqset *set, const char *path, const char *text,
			       size_t len, bool constraint, int depth, const struct chain *up,
			       const char *key, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf dec = RR_STRBUF_INIT;
	struct chain me = {up, path, key ? key : path};
	struct rf rf = {0};
	rr_err rc;

	if (len > RR_REQFILE_MAX_SIZE)
		return rr_fail_at(err, RR_E_LIMIT, path, 0, 0, NULL,
				  "requirements file is larger than %u bytes", RR_REQFILE_MAX_SIZE);
	rc = decode(&dec, path, text, len, err);
	if (rc)
		return rc;
	rf.set = set;
	rf.path = path;
	rf.text = dec.buf;
	rf.len = dec.len;
	rf.constraint = constraint;
	rf.depth = depth;
	rf.chain = &me;
	rr_reqset_add_file(set, path);
	rc = parse_text(&rf, err);
	free(rf.lstart);
	free(rf.lend);
	subs_clear(&rf);
	free(rf.subs);
	return rc;
}

static rr_err load_file(struct rr_reqset *set, const char *path, bool constraint, int depth,
			const struct chain *up, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTOFREE char *key = NULL;
	struct stat st;
	rr_err rc;

	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return rr_fail(err, RR_E_IO, "cannot read '%s': is a directory", path);
	if (depth > 0) {
		/* an include named by a file (maybe someone else's) must be a regular file: a FIFO
		 * or a device there would make the run wait forever */
		RR_AUTOFREE char *shown = rr_xasprintf("'%s'", path);
		rc = rr_file_read(AT_FDCWD, path, RR_REQFILE_MAX_SIZE, 0, shown, &sb, err);
		if (rc == RR_E_NOTFOUND) {
			rc = RR_E_IO; /* as for a missing top-level file */
			if (err)
				err->code = rc;
		}
	} else {
		/* named by the user: a pipe (`-r <(cmd)`) is fine */
		rc = rr_strbuf_read_file(&sb, path, RR_REQFILE_MAX_SIZE, err);
	}
	if (rc)
		return rc;
	if (strcmp(path, "-") != 0)
		key = realpath(path, NULL);
	return parse_with_chain(set, path, sb.buf, sb.len, constraint, depth, up, key, err);
}

rr_err rr_reqfile_load(struct rr_reqset *set, const char *path, rr_error *err)
{
	return load_file(set, path, false, 0, NULL, err);
}

rr_err rr_reqfile_parse(struct rr_reqset *set, const char *path, const char *text, size_t len,
			bool constraint, rr_error *err)
{
	RR_AUTOFREE char *key = realpath(path, NULL);

	return parse_with_chain(set, path, text, len, constraint, 0, NULL, key, err);
}
