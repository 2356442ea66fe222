/*
 * load: the load stage of verify, the load check (rocm-resolve/loadcheck.h) as a verdict,
 * details and advice, and its findings per distribution as JSON. No GPU involved.
 */
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#include "gpu/gpu.h"
#include "rocm-resolve/json.h"
#include "rocm-resolve/loadcheck.h"
#include "rocm-resolve/strbuf.h"

#define MAX_SHOWN 10 /* problems per distribution in the details; JSON has them all */

static json_t *problem_json(const struct rr_loadcheck_problem *p)
{
	json_t *o = json_object(), *syms = json_array();

	for (size_t i = 0; i < p->nsymbols; i++)
		json_array_append_new(syms, rr_json_str(p->symbols[i]));
	json_object_set_new(o, "kind", json_string(rr_loadcheck_kind_name(p->kind)));
	json_object_set_new(o, "file", rr_json_str(p->file));
	json_object_set_new(o, "files", json_integer((json_int_t)p->nfiles));
	json_object_set_new(o, "library", rr_json_str(p->library));
	json_object_set_new(o, "via", rr_json_str(p->via));
	json_object_set_new(o, "version", rr_json_str(p->version));
	json_object_set_new(o, "symbols", syms);
	json_object_set_new(o, "missing", json_integer((json_int_t)p->nmissing));
	json_object_set_new(o, "why", rr_json_str(p->why));
	json_object_set_new(o, "text", rr_json_str(p->text));
	return o;
}

static json_t *dists_json(const struct rr_loadcheck_opts *lo, const struct rr_loadcheck_report *r)
{
	json_t *all = json_array();

	for (size_t i = 0; i < r->ndists; i++) {
		const struct rr_loadcheck_dist *d = &r->dists[i];
		json_t *o = json_object(), *probs = json_array(), *links = json_array();
		for (size_t k = 0; k < d->nproblems; k++)
			json_array_append_new(probs, problem_json(&d->problems[k]));
		for (size_t k = 0; k < d->nlinks; k++)
			json_array_append_new(links, rr_json_str(lo->dists[d->links[k]].name));
		json_object_set_new(o, "name", rr_json_str(d->name));
		json_object_set_new(o, "version", rr_json_str(d->version));
		json_object_set_new(o, "files", json_integer((json_int_t)d->nfiles));
		json_object_set_new(o, "loads", json_boolean(d->loads));
		json_object_set_new(o, "ok", json_boolean(d->ok));
		json_object_set_new(o, "problems", probs);
		json_object_set_new(o, "links", links);
		json_array_append_new(all, o);
	}
	return all;
}

static void advise(struct rr_verify_stage *st, const struct rr_loadcheck_report *r)
{
	bool kind[RR_LOADCHECK_ROCM_MAJOR + 1] = {false};
	const char *sep = "";
	struct rr_strbuf sb = RR_STRBUF_INIT;

	for (size_t i = 0; i < r->ndists; i++)
		for (size_t k = 0; k < r->dists[i].nproblems; k++)
			kind[r->dists[i].problems[k].kind] = true;
	if (kind[RR_LOADCHECK_CUDA])
		rr_strbuf_addf(&sb,
			       "%sa CUDA build cannot run on ROCm: install its ROCm build "
			       "(cupy-rocm-7-0 for cupy-cuda12x) or remove it",
			       sep),
		    sep = "; ";
	if (kind[RR_LOADCHECK_ROCM_MAJOR])
		rr_strbuf_addf(&sb, "%sinstall the build made for this runtime's ROCm major", sep),
		    sep = "; ";
	if (kind[RR_LOADCHECK_SYMBOLS] || kind[RR_LOADCHECK_VERSION])
		rr_strbuf_addf(&sb,
			       "%sa build made against other versions of the libraries it "
			       "loads (a torch extension for another torch): reinstall it built "
			       "for the installed ones (pip install --no-build-isolation for a "
			       "source build)",
			       sep),
		    sep = "; ";
	if (kind[RR_LOADCHECK_NOT_FOUND] || kind[RR_LOADCHECK_BAD_FILE])
		rr_strbuf_addf(&sb,
			       "%sinstall the libraries not found (or name their directory "
			       "in LD_LIBRARY_PATH), and reinstall what the loader refuses",
			       sep);
	rr_gpu_stage_advice(st, "%s", sb.buf);
	rr_strbuf_release(&sb);
}

static bool cuda_named(const struct rr_loadcheck_dist *d, const char *lib)
{
	for (size_t k = 0; k < d->nproblems; k++)
		if (d->problems[k].kind == RR_LOADCHECK_CUDA &&
		    !strcmp(d->problems[k].library, lib))
			return true;
	return false;
}

/*
 * one distribution's problems, one a line; a CUDA build's libraries in one line first (the
 * cause), and "not found" left out for those (--format json has every problem)
 */
static void dist_details(struct rr_verify_stage *st, const struct rr_loadcheck_dist *d)
{
	RR_AUTO_STRBUF struct rr_strbuf libs = RR_STRBUF_INIT;
	const char *ver = d->version ? d->version : "", *sp = d->version ? " " : "";
	size_t ncuda = 0, nmissing = 0, shown = 0, left = 0;

	for (size_t k = 0; k < d->nproblems; k++) {
		const struct rr_loadcheck_problem *p = &d->problems[k];
		bool dup = false;
		if (p->kind != RR_LOADCHECK_CUDA)
			continue;
		for (size_t j = 0; j < k && !dup; j++)
			dup = d->problems[j].kind == RR_LOADCHECK_CUDA &&
			      !strcmp(d->problems[j].library, p->library);
		if (dup)
			continue;
		rr_strbuf_addf(&libs, "%s%s", ncuda++ ? ", " : "", p->library);
		for (size_t j = 0; j < d->nproblems; j++)
			if (d->problems[j].kind == RR_LOADCHECK_NOT_FOUND &&
			    !strcmp(d->problems[j].library, p->library)) {
				nmissing++;
				break;
			}
	}
	if (ncuda)
		rr_gpu_stage_detail(st,
				    "%s%s%s: links the CUDA librar%s %s%s: CUDA code does not run "
				    "on a ROCm GPU",
				    d->name, sp, ver, ncuda == 1 ? "y" : "ies", libs.buf,
				    !nmissing           ? ""
				    : nmissing == ncuda ? " (not found here)"
							: " (some not found here)");
	for (size_t k = 0; k < d->nproblems; k++) {
		const struct rr_loadcheck_problem *p = &d->problems[k];
		if (p->kind == RR_LOADCHECK_CUDA ||
		    (p->kind == RR_LOADCHECK_NOT_FOUND && cuda_named(d, p->library)))
			continue;
		if (shown++ < MAX_SHOWN)
			rr_gpu_stage_detail(st, "%s%s%s: %s", d->name, sp, ver, p->text);
		else
			left++;
	}
	if (left)
		rr_gpu_stage_detail(st, "%s: %zu more problem%s (--format json lists them)",
				    d->name, left, left == 1 ? "" : "s");
}

void rr_gpu_load(const struct rr_verify_opts *o, struct rr_verify_stage *st, json_t **dists)
{
	struct rr_loadcheck_report *r = NULL;
	rr_error err = RR_ERROR_INIT;
	size_t nload = 0, nfit = 0;
	const char *scope = o->load_scope;

	if (rr_loadcheck_run(o->load, &r, &err)) {
		/* no libelf here: nothing was checked, which is no verdict on the venv */
		rr_gpu_stage_set(st,
				 err.code == RR_E_ENV ? RR_VERDICT_UNAVAILABLE : RR_VERDICT_FAIL,
				 "the load check could not run: %s", err.msg);
		rr_error_release(&err);
		return;
	}
	for (size_t i = 0; i < r->ndists; i++) {
		nload += !r->dists[i].loads;
		for (size_t k = 0; k < r->dists[i].nproblems; k++)
			if (!rr_loadcheck_kind_stops_load(r->dists[i].problems[k].kind)) {
				nfit++; /* CUDA or another ROCm major, loading or not */
				break;
			}
	}
	if (!r->ndists) {
		rr_gpu_stage_set(st, RR_VERDICT_PASS,
				 "none of the %zu distributions%s%s installs ELF shared objects",
				 r->nchecked, scope ? ", " : "", scope ? scope : "");
	} else if (!nload && !nfit) {
		rr_gpu_stage_set(
		    st, RR_VERDICT_PASS,
		    "%zu ELF shared object%s of %zu distribution%s%s%s load against the "
		    "installed libraries",
		    r->nfiles, r->nfiles == 1 ? "" : "s", r->ndists, r->ndists == 1 ? "" : "s",
		    scope ? ", " : "", scope ? scope : "");
	} else {
		RR_AUTO_STRBUF struct rr_strbuf what = RR_STRBUF_INIT;
		if (nload)
			rr_strbuf_addf(&what, "%zu will not load", nload);
		if (nfit)
			rr_strbuf_addf(&what,
				       "%s%zu link%s CUDA or another ROCm major's HIP runtime",
				       nload ? " and " : "", nfit, nfit == 1 ? "s" : "");
		rr_gpu_stage_set(st, RR_VERDICT_FAIL,
				 "of %zu distribution%s with native code%s%s%s, %s (%zu ELF shared "
				 "object%s checked)",
				 r->ndists, r->ndists == 1 ? "" : "s", scope ? " (" : "",
				 scope ? scope : "", scope ? ")" : "", what.buf, r->nfiles,
				 r->nfiles == 1 ? "" : "s");
	}
	for (size_t i = 0; i < r->ndists; i++)
		dist_details(st, &r->dists[i]);
	if (r->nskipped)
		rr_gpu_stage_detail(st,
				    "%zu file%s named like shared libraries %s not ELF object%s of "
				    "this machine (not checked)",
				    r->nskipped, r->nskipped == 1 ? "" : "s",
				    r->nskipped == 1 ? "is" : "are", r->nskipped == 1 ? "" : "s");
	if (r->python_api_assumed)
		rr_gpu_stage_detail(st, "no interpreter to read (bin/python): undefined symbols "
					"named Py* and _Py* were taken as its own");
	if (nload || nfit)
		advise(st, r);
	*dists = dists_json(o->load, r);
	rr_loadcheck_report_free(r);
}
