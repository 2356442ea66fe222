/*
 * stack-file.h - the stack file: an environment and its protected stack written to
 * JSON where the ROCm environment is (`rocm-resolve inspect --format json`, the
 * stack.json of --write-testcase) and read back anywhere (`--stack FILE`). Reader and
 * writer live together in src/policy/stack-file.c; data/inspect.schema.json describes
 * the format (schema RR_STACK_FILE_SCHEMA).
 *
 * RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
 * rr_stack_file_format(venv, stack, &out);        one distribution a line
 * rc = rr_stack_file_load("stack.json", &v, err);
 * ... rr_stack_compute(v, policy, ...) ... v = rr_venv_free(v);
 *
 * The reader gives the struct rr_venv the live load gave in the container - every
 * distribution with version, Requires-Dist, Requires-Python, Provides-Extra, top-level
 * modules, installer, direct URL (credentials redacted, as a live load redacts them),
 * site, bridge and whether it is inherited from the base interpreter; python version, the full marker environment and wheel platform;
 * torch/version.py facts; ROCm version; the pip constraints; warnings - so
 * rr_stack_compute and the plan give the container's answers on any host. The
 * "protected" list it also holds is a report: the reader recomputes it with its own
 * policy. v->stack_file names the file. Errors: RR_E_IO (unreadable), RR_E_PARSE (not
 * JSON, or a field of the wrong type, named by its JSON path), RR_E_UNSUPPORTED (a
 * schema this version does not read, older or newer), RR_E_LIMIT (over
 * RR_STACK_FILE_MAX).
 */
#ifndef RR_STACK_FILE_H
#define RR_STACK_FILE_H

#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_venv;
struct rr_stack;
struct rr_strbuf;

#define RR_STACK_FILE_SCHEMA 3
#define RR_STACK_FILE_MAX (256u << 20)

/* append the stack file of v, whose protected stack is s, to out */
void rr_stack_file_format(const struct rr_venv *v, const struct rr_stack *s,
			  struct rr_strbuf *out);
rr_err rr_stack_file_load(const char *path, struct rr_venv **ret, rr_error *err) RR_WUR;
/* the same from memory; origin names it in errors and in v->stack_file */
rr_err rr_stack_file_parse(const char *text, size_t len, const char *origin,
			   struct rr_venv **ret, rr_error *err) RR_WUR;

#endif
