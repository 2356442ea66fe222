/*
 * install.h - the install transaction: plan, snapshot the protected stack into the install
 * store, run the installer with the plan, put back whatever it damaged, verify. And restore:
 * the same repair later, from the last snapshot.
 *
 *   struct rr_install_opts o = {.flow = flow_opts, .installer = NULL, .observe = fn, ...};
 *   struct rr_install_result r;
 *   rc = rr_install_run(&o, &r, err);       fails when nothing could be done or checked
 *   ... r.installer_status, r.damaged, r.verify, r.signal ...
 *   rr_install_result_release(&r);
 *   rc = rr_install_restore(&o, &r, err);   RR_E_NOTFOUND: no snapshot of this venv
 *
 * The steps of rr_install_run, each reported to the observer as it happens:
 *   1. the pipeline (rr_flow_open, rr_flow_plan) for o->flow, once (OPENED, PLANNED);
 *   2. the installer: uv when on PATH (or asked for), else the venv's python -m pip;
 *      uv gets the plan's exclusions as --excludes, pip has no such option (a WARNING);
 *   3. every file of every protected distribution into the store (STORED);
 *   4. the installer with -r <plan> and o->passthrough (RUNNING); SIGTERM, SIGINT and
 *      SIGHUP sent to this process meanwhile are forwarded to it (a terminal's ^C reaches
 *      it already and is not sent twice), and r->signal says one came;
 *   5. whatever its status, the venv compared with the snapshot and repaired (CHECKED);
 *   6. the venv read again and verified; when integrity fails though step 5 found nothing
 *      (damage older than this install), every file is hashed against the snapshot and
 *      repaired (CHECKED), and verify runs again. r->verify holds the last report.
 * Before step 1's resolution, the venv's site directory and bin/ must be writable (RR_E_ENV
 * saying what to do otherwise); with neither uv nor the venv's pip, RR_E_ENV with a hint.
 * `--dry-run` among the installer's arguments makes a dry run: the installer runs, and
 * nothing is snapshotted, checked or verified (r->dry_run). One install or restore per venv
 * at a time (rr_store_lock). The store lives in the state directory, not the cache; one
 * left in the cache by an earlier version is moved (a WARNING says so).
 * The plan and exclusion files are private temporary files under $TMPDIR (else /tmp);
 * the plan is kept when the installer fails (r->kept_plan).
 *
 * The library never prints: what the CLI prints comes from the events and the result.
 */
#ifndef RR_INSTALL_H
#define RR_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/flow.h"

struct rr_plan;
struct rr_store_result;
struct rr_store_stats;
struct rr_verify_report;

enum rr_install_event_kind {
	RR_INSTALL_EV_OPENED,  /* flow: policy, inputs and venv read (its warnings so far) */
	RR_INSTALL_EV_PLANNED, /* flow: resolved and planned (flow->plan NULL when that failed) */
	RR_INSTALL_EV_WARNING, /* text: something the user must know before the installer runs */
	RR_INSTALL_EV_STORED,  /* store_dir, stats: the snapshot taken */
	RR_INSTALL_EV_RUNNING, /* argv: the installer's command line (may hold credentials) */
	RR_INSTALL_EV_CHECKED, /* check: the venv compared with the snapshot (and repaired) */
};

struct rr_install_check {
	const char *who;	 /* "the installer", "the failed installer", ... */
	bool full;		 /* every file hashed, not only those whose inode changed */
	size_t ndists;		 /* protected distributions in the snapshot */
	const struct rr_store_result *found; /* what differed, and what the repair did */
	const struct rr_store_result *again; /* after the repair; NULL when nothing differed */
};

struct rr_install_event {
	enum rr_install_event_kind kind;
	const struct rr_flow *flow;
	const char *text;
	const char *store_dir;
	const struct rr_store_stats *stats;
	const char *const *argv;
	const struct rr_install_check *check;
};

struct rr_install_opts {
	struct rr_flow_opts flow; /* want_inputs and needs_live_env are set by the calls */
	const char *installer;	  /* "uv" | "pip" | NULL: uv when on PATH, else pip */
	const char *const *passthrough; /* the installer's own arguments (after `--`) */
	size_t npassthrough;
	const char *store_dir; /* the store's root; NULL: the state directory (rr_flow_state_dir) */
	bool quiet;	       /* the installer gets -q */
	/* verify after installing */
	const char *backend; /* "auto" | "hip" | "cuda" (NULL: auto) */
	long verify_timeout_ms;
	void (*observe)(void *ctx, const struct rr_install_event *ev);
	void *observe_ctx;
};

struct rr_install_result {
	int installer_status;	/* its exit status (128 + signal), -1 when it did not run */
	int signal;		/* non-zero: this signal arrived; the transaction stopped early */
	bool repaired;		/* the installer's changes to the protected stack were undone */
	bool damaged;		/* the stack still differs from the snapshot after the repair */
	char *kept_plan;	/* the installer failed: the plan it was given, kept */
	struct rr_verify_report *verify; /* the last verify report; NULL when none ran */
	bool dry_run; /* `--dry-run` for the installer: no snapshot, no check, no verify */
};

/* the transaction above; fails (nothing installed) for the pipeline's errors, RR_E_ENV when
 * no installer or store can be used */
rr_err rr_install_run(const struct rr_install_opts *o, struct rr_install_result *r,
		      rr_error *err) RR_WUR;
/* check the venv against its last snapshot and repair it (every file hashed) */
rr_err rr_install_restore(const struct rr_install_opts *o, struct rr_install_result *r,
			  rr_error *err) RR_WUR;
void rr_install_result_release(struct rr_install_result *r);

/* the store for one venv: <state dir>/snapshots/<venv id> (caller frees); NULL when none */
char *rr_install_store_dir(const struct rr_install_opts *o, const char *venv_root);

/* verify the flow's venv and protected stack (the `verify` command, and step 6 above) */
rr_err rr_install_verify(const struct rr_install_opts *o, const struct rr_flow *f,
			 struct rr_verify_report **ret, rr_error *err) RR_WUR;

#endif
