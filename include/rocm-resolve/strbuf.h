/*
 * strbuf.h - growable NUL-terminated byte buffer.
 *
 * Lifecycle: struct rr_strbuf sb = RR_STRBUF_INIT; rr_strbuf_add*(&sb, ...);
 * rr_strbuf_release(&sb). sb.buf is always a valid C string (never NULL after
 * init). rr_strbuf_detach() hands the buffer to the caller (free with free()).
 * RR_AUTO_STRBUF releases the buffer when the variable leaves scope.
 */
#ifndef RR_STRBUF_H
#define RR_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/util.h"

struct rr_strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char rr_strbuf_empty_[];
#define RR_STRBUF_INIT {rr_strbuf_empty_, 0, 0}

void rr_strbuf_init(struct rr_strbuf *sb);
void rr_strbuf_release(struct rr_strbuf *sb);
void rr_strbuf_reset(struct rr_strbuf *sb);
char *rr_strbuf_detach(struct rr_strbuf *sb, size_t *ret_len);
void rr_strbuf_grow(struct rr_strbuf *sb, size_t extra);
void rr_strbuf_add(struct rr_strbuf *sb, const void *data, size_t len);
void rr_strbuf_adds(struct rr_strbuf *sb, const char *s);
void rr_strbuf_addch(struct rr_strbuf *sb, char c);
void rr_strbuf_addf(struct rr_strbuf *sb, const char *fmt, ...) RR_PRINTF(2, 3);
void rr_strbuf_vaddf(struct rr_strbuf *sb, const char *fmt, va_list ap);
/* append s with every byte that is not part of well-formed UTF-8 replaced by U+FFFD */
void rr_strbuf_add_utf8(struct rr_strbuf *sb, const char *s);
/*
 * append s for a terminal: control characters (but tab), DEL, C1 controls and bytes that are
 * not well-formed UTF-8 as "\x1b"-style escapes, so that text from an input file can never
 * move the cursor, recolour or retitle the terminal it is shown on
 */
void rr_strbuf_add_printable(struct rr_strbuf *sb, const char *s);
/* append s as a JSON string literal (with quotes); bytes that are not well-formed UTF-8
 * come out as \ufffd, control characters as \u escapes, so the result is always valid JSON */
void rr_strbuf_add_json_str(struct rr_strbuf *sb, const char *s);
void rr_strbuf_setlen(struct rr_strbuf *sb, size_t len);
/* strip trailing ASCII whitespace */
void rr_strbuf_rtrim(struct rr_strbuf *sb);
/*
 * read a whole file; fails with RR_E_IO (naming the path and errno text) or
 * RR_E_LIMIT when the file exceeds max bytes. path "-" reads stdin. Opens through
 * rr_file_read (file.h) with RR_FILE_STREAM_OK: a pipe named by the user is read, bounded.
 */
rr_err rr_strbuf_read_file(struct rr_strbuf *sb, const char *path, size_t max, rr_error *err) RR_WUR;

static inline void rr_strbuf_releasep(struct rr_strbuf *sb)
{
	rr_strbuf_release(sb);
}
#define RR_AUTO_STRBUF __attribute__((cleanup(rr_strbuf_releasep)))

#endif
