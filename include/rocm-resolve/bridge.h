/*
 * bridge.h - a project venv's bridge to the protected environment: the .pth file in
 * its site-packages that names the protected site-packages, so that the project's
 * interpreter imports the ROCm builds it must never install itself (the
 * devcontainer recipe: `uv venv --python /opt/venv/bin/python` plus a .pth file).
 *
 *   struct rr_bridge b;
 *   rc = rr_bridge_inspect(".venv", protected_venv, &b, err);
 *   if (!b.same_python) ... say so;  if (!b.linked) rc = rr_bridge_write(&b, protected_venv, err);
 *   rr_bridge_release(&b);
 *
 * Inspecting reads the project venv's pyvenv.cfg and site-packages (RR_E_ENV when it
 * is no venv). It is linked when a .pth line there names the protected site-packages
 * (as Python's site module reads .pth files: comments and import lines skipped,
 * relative paths against the site). Lines naming a directory that does not exist
 * (a bridge to an interpreter the image no longer has) are listed as stale.
 * Writing puts RR_BRIDGE_PTH (only that file, atomically) in the project site; it
 * refuses a venv of another Python version (RR_E_ENV): the ROCm builds are compiled
 * for the protected interpreter.
 */
#ifndef RR_BRIDGE_H
#define RR_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_venv;

#define RR_BRIDGE_PTH "rocm-resolve-bridge.pth"

struct rr_bridge {
	char *venv;	   /* the project venv's root */
	char *python;	   /* its Python version, NULL when unknown */
	char *protected_python;
	bool same_python;  /* major.minor equal (unknown counts as equal) */
	char *site;	   /* its site-packages */
	char *target;	   /* the protected site-packages it should name */
	bool linked;	   /* a .pth file names the target */
	char *pth;	   /* that file (or the one written) */
	char **stale;	   /* "file: line" of .pth lines naming a missing directory */
	size_t nstale;
};

rr_err rr_bridge_inspect(const char *project_venv, const struct rr_venv *protected_env,
			 struct rr_bridge *ret, rr_error *err) RR_WUR;
rr_err rr_bridge_write(struct rr_bridge *b, rr_error *err) RR_WUR;
void rr_bridge_release(struct rr_bridge *b);

#endif
