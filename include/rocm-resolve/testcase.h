/*
 * testcase.h - the scenario file (.t; man/rocm-resolve-scenario.5), in one place: written
 * from a real run (--write-testcase DIR) and read and run (rr-testcase, a thin main over
 * rr_testcase_run). Built on the flow: a pipeline question runs the same steps as `plan`.
 *
 * writing, after rr_flow_plan (the flow opened with opts.record), plan its plan:
 *   struct rr_strv notes = RR_STRV_INIT;
 *   rc = rr_testcase_write(f, &opts, plan, "rr-report", &notes, err);
 *     DIR/stack.json   the environment (a stack file)
 *     DIR/<inputs>     the requirements files read, by their base names, literal
 *                      credentials redacted
 *     DIR/case.t       the world the run saw, the options, the outcome as result lines
 *     DIR/.rocm-resolve-testcase   the names written (so a later run may replace them)
 *   DIR must be new, empty, or one this function wrote before (holding only what it
 *   wrote); it is never reached through a symlink and no file is written over that it
 *   did not write: RR_E_USAGE naming what is in the way. notes gets what the caller
 *   should tell the user (an input that could not be copied).
 *
 * running:
 *   struct rr_testcase_report r;
 *   rr_testcase_run("tests/scenarios/protected/vllm.t", 0, &r);
 *   r.status: pass, fail (r.text says why: the differing lines, or file:line: error),
 *   skip; with RR_TESTCASE_PRINT r.text holds the actual results as result blocks
 *   rr_testcase_report_release(&r);
 */
#ifndef RR_TESTCASE_H
#define RR_TESTCASE_H

#include "rocm-resolve/error.h"

struct rr_flow;
struct rr_flow_opts;
struct rr_plan;
struct rr_strv;

/* the file in DIR that lists what --write-testcase wrote there */
#define RR_TESTCASE_MANIFEST ".rocm-resolve-testcase"

rr_err rr_testcase_write(const struct rr_flow *f, const struct rr_flow_opts *o,
			 const struct rr_plan *plan, const char *dir, struct rr_strv *notes,
			 rr_error *err) RR_WUR;

enum rr_testcase_status { RR_TESTCASE_PASS, RR_TESTCASE_FAIL, RR_TESTCASE_SKIP };

enum {
	RR_TESTCASE_PRINT = 1 << 0, /* the actual results, as pasteable result blocks (-r) */
};

struct rr_testcase_report {
	enum rr_testcase_status status;
	char *text; /* never NULL after a run */
};

void rr_testcase_run(const char *path, unsigned flags, struct rr_testcase_report *ret);
void rr_testcase_report_release(struct rr_testcase_report *r);

#endif
