/*
 * loadenv.c - the load check's options for a live venv (rocm-resolve/loadenv.h).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rocm-resolve/loadenv.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/venv.h"

enum rr_loadcheck_lib rr_loadenv_classify(void *pol, const char *soname, const char **why)
{
	const char *r;

	if ((r = rr_policy_match_cuda_library(pol, soname))) {
		*why = r;
		return RR_LOADCHECK_LIB_CUDA;
	}
	if ((r = rr_policy_match_hip_runtime(pol, soname))) {
		*why = r;
		return RR_LOADCHECK_LIB_HIP;
	}
	return RR_LOADCHECK_LIB_OTHER;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* torch/_C.cpython-312-x86_64-linux-gnu.so: the extension `import torch` loads (first by name) */
static char *torch_extension(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *best = NULL;

	if (!d)
		return NULL;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "_C.", 3) && rr_str_endswith(de->d_name, ".so") &&
		    (!best || strcmp(de->d_name, best) < 0)) {
			free(best);
			best = rr_xstrdup(de->d_name);
		}
	closedir(d);
	if (best) {
		char *path = rr_xasprintf("%s/%s", dir, best);
		free(best);
		return is_file(path) ? path : rr_free(path);
	}
	return NULL;
}

void rr_loadenv_init(struct rr_loadenv *e, const struct rr_venv *v, const struct rr_policy *pol,
		     const char *ld_library_path)
{
	const struct rr_dist *torch = rr_venv_lookup(v, "torch");
	char *python = rr_xasprintf("%s/bin/python", v->root);
	const char *tv, *label;

	memset(e, 0, sizeof(*e));
	e->dists = rr_xcalloc(v->ndists + 1, sizeof(*e->dists));
	for (size_t i = 0; i < v->ndists; i++) {
		const struct rr_dist *d = &v->dists[i];
		e->dists[i].name = d->name;
		e->dists[i].version = d->version_text;
		/* egg-info has no RECORD: nothing to read */
		e->dists[i].dist_info_dir = d->egg_info || d->problem ? NULL : d->path;
		e->dists[i].site = d->site;
	}
	e->opts.dists = e->dists;
	e->opts.ndists = v->ndists;
	e->interpreter = is_file(python) ? python : rr_free(python);
	e->opts.interpreter = e->interpreter;
	if (torch && torch->site) {
		RR_AUTOFREE char *dir = rr_xasprintf("%s/torch", torch->site);
		e->global_deps = rr_xasprintf("%s/lib/libtorch_global_deps.so", dir);
		if (is_file(e->global_deps))
			e->preload[e->opts.npreload++] = (struct rr_loadcheck_preload){
			    e->global_deps, true};
		if ((e->torch_c = torch_extension(dir)))
			e->preload[e->opts.npreload++] = (struct rr_loadcheck_preload){e->torch_c,
										       false};
		e->opts.preload = e->preload;
	}
	tv = torch ? torch->version_text : NULL;
	if (v->torch_hip && atoi(v->torch_hip) > 0) {
		e->opts.rocm_major = atoi(v->torch_hip);
		e->runtime = rr_xasprintf("ROCm %d (torch's HIP %s)", e->opts.rocm_major,
					  v->torch_hip);
	} else if (!v->torch_cuda && tv && strchr(tv, '+') && (label = strstr(tv, "rocm")) &&
		   strchr(tv, '+') < label && atoi(label + 4) > 0) {
		/* torch/version.py computes hip (not data to read): the ROCm label of its version */
		e->opts.rocm_major = atoi(label + 4);
		e->runtime = rr_xasprintf("ROCm %d (torch %s)", e->opts.rocm_major, tv);
	}
	e->opts.runtime = e->runtime;
	e->opts.ld_library_path = ld_library_path;
	e->opts.classify = rr_loadenv_classify;
	e->opts.classify_ctx = (void *)pol;
}

void rr_loadenv_release(struct rr_loadenv *e)
{
	free(e->dists);
	free(e->interpreter);
	free(e->global_deps);
	free(e->torch_c);
	free(e->runtime);
	memset(e, 0, sizeof(*e));
}
