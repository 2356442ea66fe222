#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/strbuf.h"

char rr_strbuf_empty_[1];

void rr_strbuf_init(struct rr_strbuf *sb)
{
	sb->buf = rr_strbuf_empty_;
	sb->len = 0;
	sb->alloc = 0;
}

void rr_strbuf_release(struct rr_strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	rr_strbuf_init(sb);
}

void rr_strbuf_reset(struct rr_strbuf *sb)
{
	rr_strbuf_setlen(sb, 0);
}

char *rr_strbuf_detach(struct rr_strbuf *sb, size_t *ret_len)
{
	char *p;

	if (!sb->alloc)
		rr_strbuf_grow(sb, 0);
	/* a detached string lives on (a name, a requirement's text): no growth slack with it */
	if (sb->alloc > sb->len + 1 + 32)
		sb->buf = rr_xrealloc(sb->buf, sb->len + 1);
	p = sb->buf;
	if (ret_len)
		*ret_len = sb->len;
	rr_strbuf_init(sb);
	return p;
}

void rr_strbuf_grow(struct rr_strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	bool fresh = sb->alloc == 0;

	if (need < sb->len)
		abort();
	if (need <= sb->alloc)
		return;
	if (fresh)
		sb->buf = NULL;
	rr_xgrow((void **)&sb->buf, &sb->alloc, 1, need < 64 ? 64 : need);
	if (fresh)
		sb->buf[0] = '\0';
}

void rr_strbuf_add(struct rr_strbuf *sb, const void *data, size_t len)
{
	rr_strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void rr_strbuf_adds(struct rr_strbuf *sb, const char *s)
{
	rr_strbuf_add(sb, s, strlen(s));
}

void rr_strbuf_addch(struct rr_strbuf *sb, char c)
{
	rr_strbuf_add(sb, &c, 1);
}

void rr_strbuf_vaddf(struct rr_strbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	char probe[1];
	int n;

	va_copy(ap2, ap);
	/* gcc's sanitizer builds see a NULL-format path otherwise (-Wformat-truncation) */
	if (!fmt)
		abort();
	n = vsnprintf(probe, sizeof(probe), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		abort();
	rr_strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void rr_strbuf_addf(struct rr_strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rr_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

/* length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, surrogates or
 * code points past U+10FFFF), 0 when it is not one */
static size_t utf8_seq(const unsigned char *p)
{
	unsigned char c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80
			       ? 4
			       : 0;
	}
	return 0;
}

void rr_strbuf_add_utf8(struct rr_strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_seq(p);
		if (n) {
			rr_strbuf_add(sb, p, n);
			p += n;
		} else {
			rr_strbuf_adds(sb, "\xef\xbf\xbd"); /* U+FFFD */
			p++;
		}
	}
}

void rr_strbuf_add_printable(struct rr_strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = utf8_seq(p);
		bool c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0; /* U+0080..U+009F, CSI among them */
		if (n == 1 && (*p >= 0x20 || *p == '\t') && *p != 0x7f) {
			rr_strbuf_addch(sb, (char)*p++);
		} else if (n > 1 && !c1) {
			rr_strbuf_add(sb, p, n);
			p += n;
		} else {
			for (size_t i = 0; i < (n ? n : 1); i++)
				rr_strbuf_addf(sb, "\\x%02x", *p++);
		}
	}
}

void rr_strbuf_add_json_str(struct rr_strbuf *sb, const char *s)
{
	rr_strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n;
		switch (*p) {
		case '"':
			rr_strbuf_adds(sb, "\\\"");
			break;
		case '\\':
			rr_strbuf_adds(sb, "\\\\");
			break;
		case '\n':
			rr_strbuf_adds(sb, "\\n");
			break;
		case '\r':
			rr_strbuf_adds(sb, "\\r");
			break;
		case '\t':
			rr_strbuf_adds(sb, "\\t");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				rr_strbuf_addf(sb, "\\u%04x", *p);
			} else if ((n = utf8_seq(p)) > 0) {
				/* the sequence is whole: the NUL terminator never passes a check */
				rr_strbuf_add(sb, p, n);
				p += n;
				continue;
			} else {
				/* JSON is UTF-8: a stray byte (a dist-info name, a file) becomes U+FFFD */
				rr_strbuf_adds(sb, "\\ufffd");
			}
		}
		p++;
	}
	rr_strbuf_addch(sb, '"');
}

void rr_strbuf_setlen(struct rr_strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

void rr_strbuf_rtrim(struct rr_strbuf *sb)
{
	size_t n = sb->len;

	while (n && (sb->buf[n - 1] == ' ' || sb->buf[n - 1] == '\t' || sb->buf[n - 1] == '\n' ||
		     sb->buf[n - 1] == '\r'))
		n--;
	rr_strbuf_setlen(sb, n);
}

rr_err rr_strbuf_read_file(struct rr_strbuf *sb, const char *path, size_t max, rr_error *err)
{
	RR_AUTOFREE char *shown = NULL;
	RR_AUTO_STRBUF struct rr_strbuf tmp = RR_STRBUF_INIT;
	rr_err rc;
	FILE *f = stdin;
	char chunk[65536];
	size_t n;

	if (strcmp(path, "-") != 0) {
		/* a file named by the user may be a pipe (`-r <(cmd)`): streams are allowed, bounded */
		shown = rr_xasprintf("'%s'", path);
		rc = rr_file_read(AT_FDCWD, path, max, RR_FILE_STREAM_OK, shown,
				  sb->len ? &tmp : sb, err);
		if (rc == RR_E_NOTFOUND) {
			if (err)
				err->code = RR_E_IO;
			return RR_E_IO;
		}
		if (rc == RR_OK && sb->len)
			rr_strbuf_add(sb, tmp.buf, tmp.len);
		return rc;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (sb->len + n > max)
			return rr_fail(err, RR_E_LIMIT, "'%s' is larger than the limit of %zu bytes",
				       path, max);
		rr_strbuf_add(sb, chunk, n);
	}
	if (ferror(f))
		return rr_fail(err, RR_E_IO, "cannot read '%s': %s", path, strerror(errno));
	/* make sure buf is an allocated, terminated string even for empty files */
	rr_strbuf_grow(sb, 0);
	return RR_OK;
}
