#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/strbuf.h"

#define RR_ERR_STR_(sym, str) str,
static const char *const err_names[] = {RR_ERR_LIST(RR_ERR_STR_)};
#undef RR_ERR_STR_

const char *rr_err_to_string(rr_err code)
{
	if ((unsigned)code >= RR_ARRAY_LEN(err_names))
		return "unknown";
	return err_names[code];
}

rr_err rr_vfail(rr_error *err, rr_err code, const char *fmt, va_list ap)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	if (!err)
		return code;
	rr_error_release(err);
	rr_strbuf_vaddf(&sb, fmt, ap);
	err->code = code;
	err->msg = rr_strbuf_detach(&sb, NULL);
	return code;
}

rr_err rr_fail(rr_error *err, rr_err code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rr_vfail(err, code, fmt, ap);
	va_end(ap);
	return code;
}

rr_err rr_fail_at(rr_error *err, rr_err code, const char *path, unsigned line, unsigned col,
		  const char *text, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	rr_vfail(err, code, fmt, ap);
	va_end(ap);
	err->path = path ? rr_xstrdup(path) : NULL;
	err->line = line;
	err->col = col;
	err->text = text ? rr_xstrdup(text) : NULL;
	return code;
}

void rr_error_set_origin(rr_error *err, const char *path, unsigned line, unsigned col0,
			 const char *text)
{
	if (!err)
		return;
	if (path) {
		free(err->path);
		err->path = rr_xstrdup(path);
	}
	if (line)
		err->line = line;
	if (col0)
		err->col = err->col ? col0 + err->col - 1 : col0;
	if (text) {
		free(err->text);
		err->text = rr_xstrdup(text);
	}
}

void rr_error_prefix(rr_error *err, const char *fmt, ...)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (err->msg)
		rr_strbuf_adds(&sb, err->msg);
	free(err->msg);
	err->msg = rr_strbuf_detach(&sb, NULL);
}

void rr_error_format(const rr_error *err, struct rr_strbuf *out)
{
	if (err->path) {
		rr_strbuf_adds(out, err->path);
		if (err->line) {
			rr_strbuf_addf(out, ":%u", err->line);
			if (err->col)
				rr_strbuf_addf(out, ":%u", err->col);
		}
		rr_strbuf_adds(out, ": ");
	} else if (err->col) {
		rr_strbuf_addf(out, "column %u: ", err->col);
	}
	rr_strbuf_adds(out, err->msg ? err->msg : rr_err_to_string(err->code));
}

void rr_error_release(rr_error *err)
{
	if (!err)
		return;
	free(err->msg);
	free(err->path);
	free(err->text);
	*err = (rr_error)RR_ERROR_INIT;
}

rr_err rr_error_move(rr_error *dst, rr_error *src)
{
	rr_err code = src->code;

	if (dst) {
		rr_error_release(dst);
		*dst = *src;
	} else {
		rr_error_release(src);
	}
	*src = (rr_error)RR_ERROR_INIT;
	return code;
}

rr_err rr_text_check(const char *s, size_t n, bool token, const char *field, rr_error *err)
{
	uint32_t cp = 0;
	const char *kind;

	if (rr_text_unsafe(s, n, token, &cp) == SIZE_MAX)
		return RR_OK;
	if (cp == '\n' || cp == '\r' || cp == 0x0b || cp == 0x0c || (cp >= 0x1c && cp <= 0x1e) ||
	    cp == 0x85 || cp == 0x2028 || cp == 0x2029)
		kind = "a line break";
	else if (cp == ' ')
		kind = "a space";
	else if (cp == 0)
		kind = "NUL";
	else
		kind = "a control character";
	return rr_fail(err, RR_E_PARSE,
		       "%s holds U+%04X (%s): refused, a value that goes into a plan line cannot "
		       "hold it",
		       field, (unsigned)cp, kind);
}
