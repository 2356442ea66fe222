/*
 * error.h - the one error convention of librr.
 *
 * Fallible functions return rr_err (RR_OK == 0) and fill a caller-owned
 * rr_error passed last (NULL means "don't care"). A failure is one line:
 *
 *     return rr_fail(err, RR_E_PARSE, "expected ']' after extras");
 *
 * The error may carry an origin (path, line, column, offending text); the CLI
 * prints it as "path:line:col: message" followed by the text and a caret.
 * Callers release the object with rr_error_release(). On success the error is
 * left untouched. Library code never prints.
 */
#ifndef RR_ERROR_H
#define RR_ERROR_H

#include <stdarg.h>

#include "rocm-resolve/util.h"

struct rr_strbuf;

#define RR_ERR_LIST(X)                                                                             \
	X(RR_OK, "ok")                                                                             \
	X(RR_E_USAGE, "usage")                                                                     \
	X(RR_E_IO, "io")                                                                           \
	X(RR_E_PARSE, "parse")                                                                     \
	X(RR_E_NETWORK, "network")                                                                 \
	X(RR_E_HTTP, "http")                                                                       \
	X(RR_E_ARCHIVE, "archive")                                                                 \
	X(RR_E_DATA, "data")                                                                       \
	X(RR_E_LIMIT, "limit")                                                                     \
	X(RR_E_ENV, "environment")                                                                 \
	X(RR_E_NOTFOUND, "not-found")                                                              \
	X(RR_E_UNSUPPORTED, "unsupported")                                                         \
	X(RR_E_CONFLICT, "conflict")                                                               \
	X(RR_E_INTERNAL, "internal")

#define RR_ERR_ENUM_(sym, str) sym,
typedef enum rr_err { RR_ERR_LIST(RR_ERR_ENUM_) RR_ERR__MAX } rr_err;
#undef RR_ERR_ENUM_

typedef struct rr_error {
	rr_err code;
	char *msg;   /* owned, without the origin prefix */
	char *path;  /* owned, NULL when unknown */
	unsigned line; /* 1-based, 0 when unknown */
	unsigned col;  /* 1-based, 0 when unknown */
	char *text;  /* owned copy of the offending input line, NULL when none */
} rr_error;

#define RR_ERROR_INIT {RR_OK, NULL, NULL, 0, 0, NULL}

const char *rr_err_to_string(rr_err code);

/* sets err (replacing any earlier content) and returns code */
rr_err rr_fail(rr_error *err, rr_err code, const char *fmt, ...) RR_PRINTF(3, 4);
rr_err rr_vfail(rr_error *err, rr_err code, const char *fmt, va_list ap);
/* same, with an origin; text is the offending line (copied), may be NULL */
rr_err rr_fail_at(rr_error *err, rr_err code, const char *path, unsigned line, unsigned col,
		  const char *text, const char *fmt, ...) RR_PRINTF(7, 8);
/*
 * give an error raised while parsing a fragment its place in a file: the
 * fragment starts at column col0 (1-based) of line `line` of `path`; an
 * error column inside the fragment is shifted accordingly
 */
void rr_error_set_origin(rr_error *err, const char *path, unsigned line, unsigned col0,
			 const char *text);
/* prepend context to the message: "while reading 'x': " */
void rr_error_prefix(rr_error *err, const char *fmt, ...) RR_PRINTF(2, 3);
/*
 * s (n bytes) under the rule of rr_text_unsafe: RR_OK, or RR_E_PARSE "<field> holds
 * U+000A (a line break): ..." without an origin (the caller gives it the value's place)
 */
rr_err rr_text_check(const char *s, size_t n, bool token, const char *field, rr_error *err) RR_WUR;
/* "path:line:col: message" (origin parts only when known) */
void rr_error_format(const rr_error *err, struct rr_strbuf *out);
void rr_error_release(rr_error *err);
/*
 * hand src's content to dst (NULL: src is just released), leaving src empty;
 * returns src's code. For a worker's or a callee's error object that becomes
 * the caller's: `return rr_error_move(err, &g->err);`
 */
rr_err rr_error_move(rr_error *dst, rr_error *src);

static inline void rr_error_releasep(rr_error *e)
{
	rr_error_release(e);
}
#define RR_AUTO_ERROR __attribute__((cleanup(rr_error_releasep)))

#endif
