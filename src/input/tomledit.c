/*
 * tomledit.c - a byte-exact TOML scanner for one job: find a key, read the strings
 * of its array with their comments, replace its value or add it, and leave every
 * other byte alone (toml++ parses, but cannot write a document back as it was).
 *
 * The scanner walks statements - table headers, array-of-tables headers and
 * key/value pairs - and knows enough of TOML 1.0 to find where each value ends:
 * basic and literal strings (single- and multi-line), arrays and inline tables
 * (nested, with comments and line breaks inside arrays), and bare scalars up to the
 * end of the line. It trusts the document to be valid TOML (checked before) and
 * fails with RR_E_INTERNAL where it cannot follow it rather than guess.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/tomledit.h"

struct stmt {
	bool header;	     /* [a.b] or [[a.b]] */
	bool array_header;   /* [[a.b]] */
	struct rr_strv path; /* header: the table; kv: the full key (table + dotted key) */
	size_t nrel;	     /* kv: how many trailing parts of path the key itself spells */
	size_t line_start;   /* offset of the statement's line */
	size_t val_start, val_end; /* kv: the value's bytes */
	size_t end;		   /* just past the statement's line break (or the text's end) */
	char val_first;		   /* kv: the value's first byte */
};

struct doc {
	const char *path;
	const char *s;
	size_t n;
	struct stmt *st;
	size_t nst, cap;
	const char *nl; /* "\n" or "\r\n" */
};

static void line_col(const struct doc *d, size_t at, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < at && i < d->n; i++) {
		if (d->s[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static rr_err scan_fail(const struct doc *d, size_t at, const char *what, rr_error *err)
{
	unsigned line, col;

	line_col(d, at, &line, &col);
	return rr_fail_at(err, RR_E_INTERNAL, d->path, line, col, NULL,
			  "cannot follow the TOML here to edit it (%s)", what);
}

static size_t skip_blank(const struct doc *d, size_t i)
{
	while (i < d->n && (d->s[i] == ' ' || d->s[i] == '\t'))
		i++;
	return i;
}

/* past a comment's text, to its line break (not past it) */
static size_t skip_comment(const struct doc *d, size_t i)
{
	while (i < d->n && d->s[i] != '\n')
		i++;
	return i;
}

/* past the line break at i (LF or CRLF); i when there is none */
static size_t skip_newline(const struct doc *d, size_t i)
{
	if (i < d->n && d->s[i] == '\r' && i + 1 < d->n && d->s[i + 1] == '\n')
		return i + 2;
	if (i < d->n && d->s[i] == '\n')
		return i + 1;
	return i;
}

static bool bare_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

static void add_utf8(struct rr_strbuf *sb, uint32_t cp)
{
	if (cp < 0x80) {
		rr_strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		rr_strbuf_addch(sb, (char)(0xc0 | (cp >> 6)));
		rr_strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		rr_strbuf_addch(sb, (char)(0xe0 | (cp >> 12)));
		rr_strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		rr_strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	} else {
		rr_strbuf_addch(sb, (char)(0xf0 | (cp >> 18)));
		rr_strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3f)));
		rr_strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		rr_strbuf_addch(sb, (char)(0x80 | (cp & 0x3f)));
	}
}

/*
 * a string at i (basic or literal, single- or multi-line): its end (past the closing
 * quotes), 0 when it does not close; its decoded text into out when out is given
 */
static size_t scan_string(const struct doc *d, size_t i, struct rr_strbuf *out)
{
	char q = d->s[i];
	bool multi = i + 2 < d->n && d->s[i + 1] == q && d->s[i + 2] == q;
	size_t j = i + (multi ? 3 : 1);

	if (multi && j < d->n && d->s[j] == '\n')
		j++; /* a line break right after the opening quotes is not part of the string */
	else if (multi && j + 1 < d->n && d->s[j] == '\r' && d->s[j + 1] == '\n')
		j += 2;
	while (j < d->n) {
		char c = d->s[j];
		if (c == q && (!multi || (j + 2 < d->n && d->s[j + 1] == q && d->s[j + 2] == q))) {
			size_t end = j + (multi ? 3 : 1);
			/* """a"""" : up to two quotes before the closing three belong to the text */
			while (multi && end < d->n && d->s[end] == q && end - j < 5) {
				if (out)
					rr_strbuf_addch(out, q);
				end++;
			}
			return end;
		}
		if (!multi && (c == '\n' || c == '\r'))
			return 0;
		if (c == '\\' && q == '"') {
			char e = j + 1 < d->n ? d->s[j + 1] : '\0';
			uint32_t cp = 0;
			size_t k;
			j += 2;
			switch (e) {
			case 'b': cp = '\b'; break;
			case 't': cp = '\t'; break;
			case 'n': cp = '\n'; break;
			case 'f': cp = '\f'; break;
			case 'r': cp = '\r'; break;
			case '"': cp = '"'; break;
			case '\\': cp = '\\'; break;
			case 'u':
			case 'U':
				for (k = 0; k < (e == 'u' ? 4u : 8u) && j < d->n; k++, j++) {
					char h = d->s[j];
					cp = cp * 16 + (uint32_t)rr_hex_digit(h);
				}
				break;
			default:
				/* multi-line: a backslash at a line's end trims the break and the blanks */
				if (multi) {
					j--;
					while (j < d->n && (d->s[j] == ' ' || d->s[j] == '\t' ||
							    d->s[j] == '\n' || d->s[j] == '\r'))
						j++;
					continue;
				}
				return 0;
			}
			if (out)
				add_utf8(out, cp);
			continue;
		}
		if (out)
			rr_strbuf_addch(out, c);
		j++;
	}
	return 0;
}

/* a key (bare or quoted, dotted) at i: its parts into path; the position after it */
static size_t scan_key(const struct doc *d, size_t i, struct rr_strv *path)
{
	for (;;) {
		i = skip_blank(d, i);
		if (i >= d->n)
			return 0;
		if (d->s[i] == '"' || d->s[i] == '\'') {
			struct rr_strbuf part = RR_STRBUF_INIT;
			size_t e = scan_string(d, i, &part);
			if (!e) {
				rr_strbuf_release(&part);
				return 0;
			}
			rr_strv_take(path, rr_strbuf_detach(&part, NULL));
			i = e;
		} else {
			size_t b = i;
			while (i < d->n && bare_char(d->s[i]))
				i++;
			if (i == b)
				return 0;
			rr_strv_pushn(path, d->s + b, i - b);
		}
		i = skip_blank(d, i);
		if (i < d->n && d->s[i] == '.') {
			i++;
			continue;
		}
		return i;
	}
}

/* the end of a value starting at i */
static size_t scan_value(const struct doc *d, size_t i)
{
	char c = i < d->n ? d->s[i] : '\0';

	if (c == '"' || c == '\'')
		return scan_string(d, i, NULL);
	if (c == '[' || c == '{') {
		/* nested brackets; strings and (in arrays) comments skipped */
		int depth = 0;
		while (i < d->n) {
			c = d->s[i];
			if (c == '"' || c == '\'') {
				size_t e = scan_string(d, i, NULL);
				if (!e)
					return 0;
				i = e;
				continue;
			}
			if (c == '#') {
				i = skip_comment(d, i);
				continue;
			}
			if (c == '[' || c == '{')
				depth++;
			else if (c == ']' || c == '}')
				depth--;
			i++;
			if (depth == 0)
				return i;
		}
		return 0;
	}
	/* a number, boolean or date-time: to the comment or the line's end, blanks trimmed */
	while (i < d->n && d->s[i] != '\n' && d->s[i] != '#' && d->s[i] != ',' && d->s[i] != ']' &&
	       d->s[i] != '}')
		i++;
	while (i > 0 && (d->s[i - 1] == ' ' || d->s[i - 1] == '\t' || d->s[i - 1] == '\r'))
		i--;
	return i;
}

static void doc_release(struct doc *d)
{
	for (size_t i = 0; i < d->nst; i++)
		rr_strv_release(&d->st[i].path);
	free(d->st);
}

static rr_err scan(struct doc *d, rr_error *err)
{
	struct rr_strv table = RR_STRV_INIT;
	size_t i = 0;
	rr_err rc = RR_OK;

	/* the document's line ending: that of its first line */
	{
		const char *lf = memchr(d->s, '\n', d->n);
		d->nl = lf && lf > d->s && lf[-1] == '\r' ? "\r\n" : "\n";
	}
	if (d->n >= 3 && memcmp(d->s, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < d->n) {
		size_t ls = i;
		struct stmt *st;

		i = skip_blank(d, i);
		if (i >= d->n)
			break;
		if (d->s[i] == '#') {
			i = skip_newline(d, skip_comment(d, i));
			continue;
		}
		if (d->s[i] == '\n' || d->s[i] == '\r') {
			size_t e = skip_newline(d, i);
			if (e == i) {
				rc = scan_fail(d, i, "a lone carriage return", err);
				break;
			}
			i = e;
			continue;
		}
		st = &RR_PUSH(d->st, d->nst, d->cap);
		memset(st, 0, sizeof(*st));
		st->line_start = ls;
		if (d->s[i] == '[') {
			st->header = true;
			st->array_header = i + 1 < d->n && d->s[i + 1] == '[';
			i = scan_key(d, i + (st->array_header ? 2 : 1), &st->path);
			if (!i || d->s[i] != ']' || (st->array_header && (i + 1 >= d->n || d->s[i + 1] != ']'))) {
				rc = scan_fail(d, ls, "a table header", err);
				break;
			}
			i += st->array_header ? 2 : 1;
			rr_strv_release(&table);
			for (size_t k = 0; k < st->path.n; k++)
				rr_strv_push(&table, st->path.v[k]);
		} else {
			for (size_t k = 0; k < table.n; k++)
				rr_strv_push(&st->path, table.v[k]);
			i = scan_key(d, i, &st->path);
			if (!i || d->s[i] != '=') {
				rc = scan_fail(d, ls, "a key", err);
				break;
			}
			st->nrel = st->path.n - table.n;
			i = skip_blank(d, i + 1);
			st->val_start = i;
			st->val_first = i < d->n ? d->s[i] : '\0';
			i = scan_value(d, i);
			if (!i) {
				rc = scan_fail(d, st->val_start, "a value", err);
				break;
			}
			st->val_end = i;
		}
		i = skip_blank(d, i);
		if (i < d->n && d->s[i] == '#')
			i = skip_comment(d, i);
		if (i < d->n && d->s[i] != '\n' && d->s[i] != '\r') {
			rc = scan_fail(d, i, "text after a statement", err);
			break;
		}
		i = skip_newline(d, i);
		st->end = i;
	}
	rr_strv_release(&table);
	return rc;
}

static bool path_is(const struct rr_strv *p, const char *const *want, size_t n)
{
	if (p->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(p->v[i], want[i]) != 0)
			return false;
	return true;
}

/* does p start with want[0..n) (and go on when strict)? */
static bool path_under(const struct rr_strv *p, const char *const *want, size_t n, bool strict)
{
	if (p->n < n || (strict && p->n == n))
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(p->v[i], want[i]) != 0)
			return false;
	return true;
}

/* scan text and find table.key in it (*ret NULL when absent); full receives the path */
static rr_err open_doc(struct doc *d, const char *path, const char *text, size_t len,
		       const char *const *table, size_t ntable, const char *key,
		       const char *full[16], const struct stmt **ret, rr_error *err)
{
	rr_err rc;

	memset(d, 0, sizeof(*d));
	if (ntable + 1 > 16)
		return rr_fail(err, RR_E_INTERNAL, "key path too long");
	d->path = path;
	d->s = text;
	d->n = len;
	rc = scan(d, err);
	if (rc) {
		doc_release(d);
		return rc;
	}
	memcpy(full, table, ntable * sizeof(*table));
	full[ntable] = key;
	*ret = NULL;
	for (size_t i = 0; i < d->nst; i++)
		if (!d->st[i].header && path_is(&d->st[i].path, full, ntable + 1))
			*ret = &d->st[i];
	return RR_OK;
}


/* the kv statement with this full key, or NULL */
static const struct stmt *find_kv(const struct doc *d, const char *const *full, size_t n)
{
	for (size_t i = 0; i < d->nst; i++)
		if (!d->st[i].header && path_is(&d->st[i].path, full, n))
			return &d->st[i];
	return NULL;
}

/* an inline table, a scalar or an array of tables ([[tool]]) where the table (or one above
 * it) should be: not editable */
static rr_err check_not_inline(const struct doc *d, const char *const *table, size_t ntable,
			       rr_error *err)
{
	for (size_t i = 0; i < d->nst; i++) {
		const struct stmt *st = &d->st[i];
		RR_AUTO_STRBUF struct rr_strbuf name = RR_STRBUF_INIT;
		unsigned line, col;
		if (!st->array_header || st->path.n > ntable ||
		    !path_is(&st->path, table, st->path.n))
			continue;
		for (size_t j = 0; j < st->path.n; j++)
			rr_strbuf_addf(&name, "%s%s", j ? "." : "", table[j]);
		line_col(d, st->line_start, &line, &col);
		return rr_fail_at(err, RR_E_UNSUPPORTED, d->path, line, col, NULL,
				  "[[%s]] is an array of tables; rocm-resolve edits only a "
				  "[%s] table",
				  name.buf, name.buf);
	}
	for (size_t k = 1; k <= ntable; k++) {
		const struct stmt *st = find_kv(d, table, k);
		if (st) {
			unsigned line, col;
			RR_AUTO_STRBUF struct rr_strbuf name = RR_STRBUF_INIT;
			for (size_t i = 0; i < k; i++)
				rr_strbuf_addf(&name, "%s%s", i ? "." : "", table[i]);
			line_col(d, st->val_start, &line, &col);
			return rr_fail_at(err, RR_E_UNSUPPORTED, d->path, line, col, NULL,
					  "'%s' is an inline table or a value here; rocm-resolve edits "
					  "only a [%s] table or dotted keys (write it as a table)",
					  name.buf, name.buf);
		}
	}
	return RR_OK;
}

rr_err rr_tomledit_get_array(const char *path, const char *text, size_t len,
			     const char *const *table, size_t ntable, const char *key,
			     struct rr_toml_array *ret, rr_error *err)
{
	struct doc d;
	const char *full[16];
	const struct stmt *st;
	rr_err rc;

	memset(ret, 0, sizeof(*ret));
	rc = open_doc(&d, path, text, len, table, ntable, key, full, &st, err);
	if (rc)
		return rc;
	if (!st) {
		doc_release(&d);
		return RR_OK;
	}
	ret->found = true;
	line_col(&d, st->val_start, &ret->line, &ret->col);
	if (st->val_first != '[') {
		doc_release(&d);
		return rr_fail_at(err, RR_E_PARSE, path, ret->line, ret->col, NULL,
				  "'%s' must be an array of strings", key);
	}
	/* the strings, each with the comment that follows it on its line */
	for (size_t i = st->val_start + 1; i < st->val_end - 1;) {
		char c = text[i];
		if (c == '"' || c == '\'') {
			struct rr_strbuf sb = RR_STRBUF_INIT;
			struct rr_toml_entry *e;
			size_t end = scan_string(&d, i, &sb), j;
			if (!end) {
				rr_strbuf_release(&sb);
				rc = scan_fail(&d, i, "a string", err);
				break;
			}
			/* an entry becomes a requirement or a name of the resolution: one line of
			 * text, no NUL that would cut it short (the rule of rr_text_check) */
			{
				RR_AUTOFREE char *field = rr_xasprintf("an entry of '%s'", key);
				unsigned ln, co;
				line_col(&d, i, &ln, &co);
				if ((rc = rr_text_check(sb.buf, sb.len, false, field, err))) {
					rr_error_set_origin(err, path, ln, co + 1, NULL);
					rr_strbuf_release(&sb);
					break;
				}
			}
			ret->v = rr_xrealloc(ret->v, (ret->n + 1) * sizeof(*ret->v));
			e = &ret->v[ret->n++];
			memset(e, 0, sizeof(*e));
			e->value = rr_strbuf_detach(&sb, NULL);
			line_col(&d, i, &e->line, &e->col);
			/* the comment on the same line, after the comma */
			j = skip_blank(&d, end);
			if (j < d.n && text[j] == ',')
				j = skip_blank(&d, j + 1);
			if (j < d.n && text[j] == '#') {
				size_t ce = skip_comment(&d, j);
				size_t cb = j + 1;
				while (cb < ce && (text[cb] == ' ' || text[cb] == '\t'))
					cb++;
				while (ce > cb && (text[ce - 1] == ' ' || text[ce - 1] == '\t' ||
						   text[ce - 1] == '\r'))
					ce--;
				e->comment = rr_xstrndup(text + cb, ce - cb);
			}
			i = end;
			continue;
		}
		if (c == '#') {
			i = skip_comment(&d, i);
			continue;
		}
		if (c == '[' || c == '{' || (c != ',' && c != ' ' && c != '\t' && c != '\n' && c != '\r')) {
			rc = rr_fail_at(err, RR_E_PARSE, path, ret->line, ret->col, NULL,
					"'%s' must be an array of strings", key);
			break;
		}
		i++;
	}
	doc_release(&d);
	if (rc)
		rr_toml_array_release(ret);
	return rc;
}

/* value with its "\n" turned into the document's line ending */
static void add_with_nl(struct rr_strbuf *out, const char *value, const char *nl)
{
	for (const char *p = value; *p; p++) {
		if (*p == '\n')
			rr_strbuf_adds(out, nl);
		else
			rr_strbuf_addch(out, *p);
	}
}

/* a key part as TOML spells it: bare when it can be, else quoted */
static void add_key_part(struct rr_strbuf *out, const char *part)
{
	bool bare = *part != '\0';

	for (const char *p = part; *p && bare; p++)
		bare = bare_char(*p);
	if (bare) {
		rr_strbuf_adds(out, part);
	} else {
		RR_AUTOFREE char *q = rr_toml_quote(part);
		rr_strbuf_adds(out, q);
	}
}

rr_err rr_tomledit_set(const char *path, const char *text, size_t len, const char *const *table,
		       size_t ntable, const char *key, const char *value, char **ret,
		       size_t *retlen, rr_error *err)
{
	struct doc d;
	const char *full[16];
	const struct stmt *st, *after = NULL;
	const struct stmt *subtable = NULL;
	bool have_header = false;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf line = RR_STRBUF_INIT;
	size_t at;
	rr_err rc;

	rc = open_doc(&d, path, text, len, table, ntable, key, full, &st, err);
	if (rc)
		return rc;
	/* the key found or not: a [[tool]] above it is not a table this edits */
	if ((rc = check_not_inline(&d, table, ntable, err)))
		goto fail;
	if (st) {
		/* replace the value's bytes, nothing else */
		rr_strbuf_add(&out, text, st->val_start);
		add_with_nl(&out, value, d.nl);
		rr_strbuf_add(&out, text + st->val_end, len - st->val_end);
		goto done;
	}
	/* the key already a table (a dotted key below it, or its own header, [tool.uv.key]):
	 * no array fits */
	for (size_t i = 0; i < d.nst; i++) {
		unsigned ln, col;
		if (!path_under(&d.st[i].path, full, ntable + 1, false))
			continue;
		line_col(&d, d.st[i].line_start, &ln, &col);
		rc = rr_fail_at(err, RR_E_UNSUPPORTED, d.path, ln, col, NULL,
				"'%s' is a table here (keys below it); rocm-resolve sets it only "
				"as an array of strings",
				key);
		goto fail;
	}
	/*
	 * where the table's keys are: after its header, or written as dotted keys
	 * under a table above it ([tool] uv.x = 1; tool.uv.x = 1 at the top)
	 */
	for (size_t i = 0; i < d.nst; i++) {
		const struct stmt *s = &d.st[i];
		if (s->header && !s->array_header && path_is(&s->path, table, ntable)) {
			have_header = true;
			after = s;
			/* the last key of this section */
			for (size_t k = i + 1; k < d.nst && !d.st[k].header; k++)
				after = &d.st[k];
			break;
		}
		if (s->header && !subtable && path_under(&s->path, table, ntable, true))
			subtable = s;
	}
	if (!have_header)
		for (size_t i = 0; i < d.nst; i++) {
			const struct stmt *s = &d.st[i];
			if (!s->header && s->nrel > 1 && path_under(&s->path, table, ntable, true) &&
			    s->path.n - s->nrel < ntable)
				after = s; /* the last dotted key that spells the table */
		}
	if (after) {
		/* a new line after it, indented as it is, in the same dotted form */
		size_t depth = after->header ? ntable : after->path.n - after->nrel;
		size_t ind = after->line_start;
		while (ind < len && (text[ind] == ' ' || text[ind] == '\t'))
			ind++;
		if (!after->header)
			rr_strbuf_add(&line, text + after->line_start, ind - after->line_start);
		for (size_t k = depth; k < ntable; k++) {
			add_key_part(&line, table[k]);
			rr_strbuf_addch(&line, '.');
		}
		add_key_part(&line, key);
		rr_strbuf_adds(&line, " = ");
		add_with_nl(&line, value, d.nl);
		at = after->end;
		rr_strbuf_add(&out, text, at);
		if (at > 0 && text[at - 1] != '\n') {
			/* the last line, without a line break: the document still ends without one */
			rr_strbuf_adds(&out, d.nl);
		} else {
			rr_strbuf_adds(&line, d.nl);
		}
		rr_strbuf_add(&out, line.buf, line.len);
		rr_strbuf_add(&out, text + at, len - at);
		goto done;
	}
	/* a new table: before its first sub-table, else at the end */
	rr_strbuf_addch(&line, '[');
	for (size_t k = 0; k < ntable; k++) {
		if (k)
			rr_strbuf_addch(&line, '.');
		add_key_part(&line, table[k]);
	}
	rr_strbuf_addf(&line, "]%s", d.nl);
	add_key_part(&line, key);
	rr_strbuf_adds(&line, " = ");
	add_with_nl(&line, value, d.nl);
	if (subtable) {
		rr_strbuf_adds(&line, d.nl);
		at = subtable->line_start;
		rr_strbuf_add(&out, text, at);
		rr_strbuf_add(&out, line.buf, line.len);
		rr_strbuf_adds(&out, d.nl);
		rr_strbuf_add(&out, text + at, len - at);
	} else {
		bool open_end = len && text[len - 1] != '\n';
		rr_strbuf_add(&out, text, len);
		if (open_end)
			rr_strbuf_adds(&out, d.nl);
		else
			rr_strbuf_adds(&line, d.nl); /* ends as the document did */
		/* a blank line before it, unless the document is empty or ends with one */
		if (len && !(len >= 2 && text[len - 1] == '\n' &&
			     (text[len - 2] == '\n' || (len >= 3 && text[len - 2] == '\r' &&
							 text[len - 3] == '\n'))))
			rr_strbuf_adds(&out, d.nl);
		rr_strbuf_add(&out, line.buf, line.len);
	}
done:
	doc_release(&d);
	*retlen = out.len;
	*ret = rr_strbuf_detach(&out, NULL);
	return RR_OK;
fail:
	doc_release(&d);
	return rc;
}

/* one string of an array and the line it sits on */
struct arr_item {
	size_t start;      /* the string's first byte (its quote) */
	size_t line_start; /* its line's */
	size_t cut_end;    /* ours: where removing it ends (past the line break when alone) */
	bool alone;        /* only blanks before it on its line */
	bool ours;         /* the comment right after it (and its comma) starts with the mark */
	bool comma_later;  /* its comma comes after that comment, on a later line */
};

/* does the comment at c (its '#') start with mark, blanks aside? */
static bool comment_is(const char *text, size_t c, size_t end, const char *mark)
{
	size_t m = strlen(mark);

	c++;
	while (c < end && (text[c] == ' ' || text[c] == '\t'))
		c++;
	return end - c >= m && memcmp(text + c, mark, m) == 0;
}

/* the strings of the array value at [vs, ve) ('[' ... ']'), in order */
static rr_err array_items(const struct doc *d, const char *key, size_t vs, size_t ve,
			  const char *mark, struct arr_item **ret, size_t *nret, rr_error *err)
{
	const char *t = d->s;
	size_t cap = 0;

	for (size_t i = vs + 1; i < ve - 1;) {
		char c = t[i];
		if (c == '"' || c == '\'') {
			struct arr_item *it = &RR_PUSH(*ret, *nret, cap);
			size_t end = scan_string(d, i, NULL), j, ls;
			if (!end)
				return scan_fail(d, i, "a string", err);
			memset(it, 0, sizeof(*it));
			it->start = i;
			for (ls = i; ls > 0 && t[ls - 1] != '\n'; ls--)
				;
			it->line_start = ls;
			it->alone = skip_blank(d, ls) == i;
			j = skip_blank(d, end);
			if (j < ve - 1 && t[j] == ',')
				j = skip_blank(d, j + 1);
			if (j < ve - 1 && t[j] == '#') {
				size_t ce = skip_comment(d, j);
				it->ours = mark && comment_is(t, j, ce, mark);
				/* alone on its line: the whole line goes; else from the string on */
				it->cut_end = it->alone ? skip_newline(d, ce) : ce;
				if (!it->alone && ce > 0 && t[ce - 1] == '\r')
					it->cut_end = ce - 1;
				/* no comma before the comment: is the next thing its comma? */
				for (size_t k = ce; t[skip_blank(d, end)] != ',' && k < ve - 1;) {
					if (t[k] == '#') {
						k = skip_comment(d, k);
					} else if (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' ||
						   t[k] == '\r') {
						k++;
					} else {
						it->comma_later = t[k] == ',';
						break;
					}
				}
			}
			i = end;
			continue;
		}
		if (c == '#') {
			i = skip_comment(d, i);
			continue;
		}
		if (c != ',' && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			unsigned line, col;
			line_col(d, vs, &line, &col);
			return rr_fail_at(err, RR_E_PARSE, d->path, line, col, NULL,
					  "'%s' must be an array of strings", key);
		}
		i++;
	}
	return RR_OK;
}

rr_err rr_tomledit_set_ours(const char *path, const char *text, size_t len,
			    const char *const *table, size_t ntable, const char *key,
			    const char *mark, const char *const *lines, size_t nlines, char **ret,
			    size_t *retlen, rr_error *err)
{
	struct doc d;
	const char *full[16];
	const struct stmt *st;
	struct arr_item *items = NULL;
	size_t nitems = 0, ins, pos = 0;
	const struct arr_item *first_ours = NULL;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf block = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf indent = RR_STRBUF_INIT;
	bool inline_start = false, inserted = false;
	rr_err rc;

	rc = open_doc(&d, path, text, len, table, ntable, key, full, &st, err);
	if (rc)
		return rc;
	/* the layouts rr_tomledit_set refuses ([[tool]], an inline table) are refused here too */
	if ((rc = check_not_inline(&d, table, ntable, err))) {
		doc_release(&d);
		return rc;
	}
	if (!st) {
		/* no such key: a new array of the lines, added as rr_tomledit_set adds a key */
		doc_release(&d);
		if (!nlines) {
			*ret = rr_xstrndup(text, len);
			*retlen = len;
			return RR_OK;
		}
		rr_strbuf_adds(&block, "[\n");
		for (size_t i = 0; i < nlines; i++)
			rr_strbuf_addf(&block, "    %s\n", lines[i]);
		rr_strbuf_adds(&block, "]");
		return rr_tomledit_set(path, text, len, table, ntable, key, block.buf, ret, retlen,
				       err);
	}
	if (st->val_first != '[') {
		unsigned line, col;
		line_col(&d, st->val_start, &line, &col);
		doc_release(&d);
		return rr_fail_at(err, RR_E_PARSE, path, line, col, NULL,
				  "'%s' must be an array of strings", key);
	}
	if ((rc = array_items(&d, key, st->val_start, st->val_end, mark, &items, &nitems, err)))
		goto out;
	/* cutting such an entry would leave its comma behind, a second one: not edited */
	for (size_t i = 0; i < nitems; i++) {
		unsigned line, col;
		if (!items[i].ours || !items[i].comma_later)
			continue;
		line_col(&d, items[i].start, &line, &col);
		rc = rr_fail_at(err, RR_E_UNSUPPORTED, path, line, col, NULL,
				"this '%s' entry of rocm-resolve's has its comma on a later line, "
				"after its comment; rocm-resolve replaces only entries written "
				"'\"value\",  # %s ...' (move the comma, or remove the entry)",
				key, mark);
		goto out;
	}
	/* the indentation of the user's entries, else four spaces */
	for (size_t i = 0; i < nitems && !indent.len; i++)
		if (items[i].alone && items[i].start > items[i].line_start)
			rr_strbuf_add(&indent, text + items[i].line_start,
				      items[i].start - items[i].line_start);
	if (!indent.len)
		rr_strbuf_adds(&indent, "    ");
	/* where ours go: where the first of ours was, else at the array's start */
	for (size_t i = 0; i < nitems && !first_ours; i++)
		if (items[i].ours)
			first_ours = &items[i];
	if (first_ours && first_ours->alone) {
		ins = first_ours->line_start;
	} else {
		size_t k = skip_blank(&d, st->val_start + 1);
		if (k < d.n && text[k] == '#')
			k = skip_comment(&d, k);
		if (k < d.n && (text[k] == '\n' || text[k] == '\r') && skip_newline(&d, k) > k) {
			ins = skip_newline(&d, k);
		} else {
			/* the user's first entry on the '[' line: ours on lines before it */
			ins = st->val_start + 1;
			inline_start = true;
		}
	}
	if (nlines) {
		if (inline_start)
			rr_strbuf_adds(&block, d.nl);
		for (size_t i = 0; i < nlines; i++) {
			rr_strbuf_add(&block, indent.buf, indent.len);
			add_with_nl(&block, lines[i], d.nl);
			rr_strbuf_adds(&block, d.nl);
		}
		if (inline_start && text[skip_blank(&d, ins)] != ']')
			rr_strbuf_add(&block, indent.buf, indent.len);
	}
	/* the text with ours cut out and the block put in */
	for (size_t i = 0; i < nitems; i++) {
		if (!items[i].ours)
			continue;
		if (!inserted && ins <= items[i].start) {
			rr_strbuf_add(&out, text + pos, ins - pos);
			rr_strbuf_add(&out, block.buf, block.len);
			pos = ins;
			inserted = true;
		}
		{
			size_t from = items[i].alone ? items[i].line_start : items[i].start;
			if (from > pos)
				rr_strbuf_add(&out, text + pos, from - pos);
			pos = items[i].cut_end > pos ? items[i].cut_end : pos;
		}
	}
	if (!inserted) {
		rr_strbuf_add(&out, text + pos, ins > pos ? ins - pos : 0);
		rr_strbuf_add(&out, block.buf, block.len);
		pos = ins > pos ? ins : pos;
	}
	rr_strbuf_add(&out, text + pos, len - pos);
	*retlen = out.len;
	*ret = rr_strbuf_detach(&out, NULL);
out:
	free(items);
	doc_release(&d);
	return rc;
}

void rr_toml_array_release(struct rr_toml_array *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].value);
		free(a->v[i].comment);
	}
	free(a->v);
	memset(a, 0, sizeof(*a));
}

char *rr_toml_quote(const char *s)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_strbuf_addch(&sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			rr_strbuf_addf(&sb, "\\%c", *p);
		else if (*p == '\n')
			rr_strbuf_adds(&sb, "\\n");
		else if (*p == '\t')
			rr_strbuf_adds(&sb, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			rr_strbuf_addf(&sb, "\\u%04x", *p);
		else
			rr_strbuf_addch(&sb, (char)*p);
	}
	rr_strbuf_addch(&sb, '"');
	return rr_strbuf_detach(&sb, NULL);
}
