/*
 * libFuzzer: no input makes the plan hold a line that nothing produced. The first byte
 * picks the input's kind (requirements file, pyproject.toml, uv.lock, pylock.toml), the
 * rest is the file; a plan is built from it (offline, against a small ROCm stack given
 * as a stack file) and written as text. The text is then read as pip reads a
 * requirements file (str.splitlines(), a line that ends with a backslash joined with the
 * next, comments dropped): every line left must be one thing the plan holds - an option
 * line, an index, a constraint line, a protected pin, a decision's output, a hold, a
 * --find-links pin - whole, followed by nothing or a comment. A line break smuggled into
 * any of them (issue 33) leaves a line that no input line, lock entry or decision made,
 * and the target aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/lockfile.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/venv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rr_venv *venv;
static struct rr_policy *policy;
static struct rr_stack *stack;

/* a small ROCm stack: torch and triton protected, numpy what torch requires */
static void setup(void)
{
	static const char stack_json[] =
	    "{\"schema\":3,\"venv\":\"/opt/venv\",\"python\":\"3.12.3\","
	    "\"site_packages\":\"/opt/venv/lib/python3.12/site-packages\","
	    "\"torch\":{\"version\":\"2.9.1+rocm7.2.0\",\"hip\":\"7.2.0\",\"cuda\":null},"
	    "\"rocm_version\":\"7.2.0\",\"distributions\":["
	    "{\"name\":\"torch\",\"version\":\"2.9.1+rocm7.2.0\",\"top_level\":[\"torch\"],"
	    "\"requires_dist\":[\"filelock\",\"numpy<3\"]},"
	    "{\"name\":\"triton\",\"version\":\"3.5.1+rocm7.2.0\",\"top_level\":[\"triton\"]},"
	    "{\"name\":\"numpy\",\"version\":\"2.1.0\",\"top_level\":[\"numpy\"]}]}";
	rr_error e = RR_ERROR_INIT;

	if (rr_stack_file_parse(stack_json, sizeof(stack_json) - 1, "stack.json", &venv, &e) ||
	    rr_policy_load_default(&policy, &e) ||
	    rr_stack_compute(venv, policy, NULL, 0, &stack, &e))
		abort();
}

/* the length of the line break at s (pip's str.splitlines), 0 when none */
static size_t break_at(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (p[0] == '\r' && p[1] == '\n')
		return 2;
	if (p[0] == '\n' || p[0] == '\r' || p[0] == 0x0b || p[0] == 0x0c ||
	    (p[0] >= 0x1c && p[0] <= 0x1e))
		return 1;
	if (p[0] == 0xc2 && p[1] == 0x85)
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
		return 3;
	return 0;
}

/* is line one of what the plan holds, whole, with nothing or a comment after it? */
static bool produced(const struct rr_strv *made, const char *line)
{
	for (size_t i = 0; i < made->n; i++) {
		size_t n = strlen(made->v[i]);
		if (strncmp(line, made->v[i], n) == 0 &&
		    (line[n] == '\0' || strncmp(line + n, "  #", 3) == 0))
			return true;
	}
	return false;
}

static void check_lines(const struct rr_plan *p, const char *text)
{
	struct rr_strv made = RR_STRV_INIT;
	struct rr_strbuf joined = RR_STRBUF_INIT;
	const char *s = text;

	for (size_t i = 0; i < p->noption_lines; i++)
		rr_strv_push(&made, p->option_lines[i]);
	for (size_t i = 0; i < p->nindexes; i++) {
		rr_strv_take(&made, rr_xasprintf("--index-url %s", p->indexes[i].url));
		rr_strv_take(&made, rr_xasprintf("--extra-index-url %s", p->indexes[i].url));
	}
	for (size_t i = 0; i < p->nconstraint_lines; i++)
		rr_strv_push(&made, p->constraint_lines[i]);
	for (size_t i = 0; i < p->npins; i++)
		rr_strv_take(&made, rr_xasprintf("%s==%s", p->pins[i].name, p->pins[i].version));
	for (size_t i = 0; i < p->ndecisions; i++)
		if (p->decisions[i].output)
			rr_strv_push(&made, p->decisions[i].output);
	for (size_t i = 0; i < p->nholds; i++)
		rr_strv_take(&made, rr_xasprintf("%s==%s", p->holds[i].name, p->holds[i].version));
	for (size_t i = 0; i < p->nlinks; i++)
		rr_strv_take(&made, rr_xasprintf("%s==%s", p->links[i].name, p->links[i].version));
	while (*s) {
		size_t n = 0, brk;
		while (s[n] && !break_at(s + n))
			n++;
		brk = s[n] ? break_at(s + n) : 0;
		{
			const char *l = s;
			size_t len = n;
			while (len && (*l == ' ' || *l == '\t')) {
				l++;
				len--;
			}
			if (len && *l == '#') {
				/* a comment ends a joined line and is never joined itself */
			} else if (len && l[len - 1] == '\\') {
				rr_strbuf_add(&joined, l, len - 1);
				s += n + brk;
				continue;
			} else {
				rr_strbuf_add(&joined, l, len);
			}
		}
		if (joined.len && !produced(&made, joined.buf))
			abort();
		rr_strbuf_reset(&joined);
		s += n + brk;
	}
	if (joined.len && !produced(&made, joined.buf))
		abort();
	rr_strbuf_release(&joined);
	rr_strv_release(&made);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
	    "/nonexistent-rr-fuzz/requirements.txt", "/nonexistent-rr-fuzz/pyproject.toml",
	    "/nonexistent-rr-fuzz/uv.lock", "/nonexistent-rr-fuzz/pylock.toml"};
	struct rr_reqset set = RR_REQSET_INIT;
	struct rr_lock lk = RR_LOCK_INIT;
	rr_error err = RR_ERROR_INIT;
	struct rr_input_sel sel = {.all_extras = true};
	const char *text = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;
	unsigned kind;
	rr_err rc;

	if (!size)
		return 0;
	if (!venv)
		setup();
	kind = data[0] & 3;
	if (kind == 0) {
		rc = rr_reqfile_parse(&set, names[0], text, len, false, &err);
	} else if (kind == 1) {
		rc = rr_pyproject_parse(&set, names[1], text, len, &sel, &err);
	} else {
		struct rr_marker_env env;
		char pybuf[16];
		lk.dir = rr_xstrdup("/nonexistent-rr-fuzz");
		rc = rr_lock_parse(&lk, names[kind], text, len,
				   kind == 2 ? RR_LOCK_UV : RR_LOCK_PYLOCK, &err);
		rr_venv_marker_env(venv, &env, pybuf);
		if (!rc) {
			rr_reqset_add_file(&set, names[kind]);
			rc = rr_lock_select(&lk, &env, &sel, &set, &err);
		}
	}
	if (!rc) {
		struct rr_plan_input in = {.reqs = &set,
					   .venv = venv,
					   .policy = policy,
					   .stack = stack,
					   .unresolved = "fuzz",
					   .installer = "pip"};
		struct rr_plan *p = NULL;
		if (rr_plan_build(&in, &p, &err) == RR_OK) {
			struct rr_strbuf out = RR_STRBUF_INIT;
			rr_plan_format_text(p, &out);
			check_lines(p, out.buf);
			rr_strbuf_release(&out);
			rr_plan_free(p);
		} else if (!err.msg) {
			abort();
		}
	}
	rr_error_release(&err);
	rr_reqset_release(&set);
	rr_lock_release(&lk);
	return 0;
}
