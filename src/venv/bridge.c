/*
 * bridge.c - inspect and write a project venv's .pth bridge to the protected
 * environment (see include/rocm-resolve/bridge.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/bridge.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/venv.h"

/* "3.12" of "3.12.3" */
static bool same_minor(const char *a, const char *b)
{
	const char *da, *db;
	size_t la, lb;

	if (!a || !b)
		return true;
	da = strchr(a, '.');
	db = strchr(b, '.');
	la = da ? (size_t)(da - a) + 1 + strcspn(da + 1, ".") : strlen(a);
	lb = db ? (size_t)(db - b) + 1 + strcspn(db + 1, ".") : strlen(b);
	return la == lb && strncmp(a, b, la) == 0;
}

/* every .pth file of the site: does a line name target? which lines name nothing? */
static void read_pths(struct rr_bridge *b)
{
	DIR *dir = opendir(b->site);
	struct rr_strv names = RR_STRV_INIT;
	struct rr_strv stale = RR_STRV_INIT;
	struct dirent *de;

	if (!dir)
		return;
	while ((de = readdir(dir)))
		if (rr_str_endswith(de->d_name, ".pth"))
			rr_strv_push(&names, de->d_name);
	closedir(dir);
	rr_strv_sort_unique(&names);
	for (size_t i = 0; i < names.n; i++) {
		RR_AUTOFREE char *file = rr_xasprintf("%s/%s", b->site, names.v[i]);
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		rr_error e = RR_ERROR_INIT;

		if (rr_strbuf_read_file(&sb, file, 1u << 20, &e)) {
			rr_error_release(&e);
			continue;
		}
		for (char *line = strtok(sb.buf, "\r\n"); line; line = strtok(NULL, "\r\n")) {
			RR_AUTOFREE char *path = NULL;
			RR_AUTOFREE char *real = NULL;
			while (*line == ' ' || *line == '\t')
				line++;
			if (!*line || *line == '#' || rr_str_startswith(line, "import ") ||
			    rr_str_startswith(line, "import\t"))
				continue;
			path = line[0] == '/' ? rr_xstrdup(line) : rr_xasprintf("%s/%s", b->site, line);
			real = realpath(path, NULL);
			if (real && b->target && strcmp(real, b->target) == 0 && !b->linked) {
				b->linked = true;
				b->pth = rr_xstrdup(file);
			} else if (!rr_file_is_dir(path)) {
				rr_strv_take(&stale, rr_xasprintf("%s: %s", file, line));
			}
		}
	}
	rr_strv_release(&names);
	b->stale = rr_strv_detach(&stale, &b->nstale);
}

rr_err rr_bridge_inspect(const char *project_venv, const struct rr_venv *protected_env,
			 struct rr_bridge *ret, rr_error *err)
{
	struct rr_venv_opts vo = {0};
	struct rr_venv *pv = NULL;
	struct rr_bridge b = {0};
	rr_err rc;

	rc = rr_venv_load(project_venv, &vo, &pv, err);
	if (rc)
		return rc;
	if (!pv->site_packages) {
		rc = rr_fail(err, RR_E_ENV, "'%s' has no site-packages to put a bridge in",
			     project_venv);
		rr_venv_free(pv);
		return rc;
	}
	b.venv = rr_xstrdup(pv->root);
	b.python = pv->python_version ? rr_xstrdup(pv->python_version) : NULL;
	b.protected_python =
		protected_env->python_version ? rr_xstrdup(protected_env->python_version) : NULL;
	b.same_python = same_minor(b.python, b.protected_python);
	b.site = rr_xstrdup(pv->site_packages);
	if (protected_env->site_packages)
		b.target = realpath(protected_env->site_packages, NULL);
	rr_venv_free(pv);
	read_pths(&b);
	*ret = b;
	return RR_OK;
}

rr_err rr_bridge_write(struct rr_bridge *b, rr_error *err)
{
	RR_AUTOFREE char *file = NULL;
	RR_AUTOFREE char *text = NULL;
	rr_err rc;

	if (!b->target)
		return rr_fail(err, RR_E_ENV, "the protected environment has no site-packages to "
					      "bridge to");
	if (!b->same_python)
		return rr_fail(err, RR_E_ENV,
			       "not bridging %s (Python %s) to the protected environment (Python %s): "
			       "the ROCm builds are compiled for the protected interpreter; "
			       "recreate the project venv with it (uv venv --python <protected "
			       "venv>/bin/python)",
			       b->venv, b->python ? b->python : "?",
			       b->protected_python ? b->protected_python : "?");
	file = rr_xasprintf("%s/%s", b->site, RR_BRIDGE_PTH);
	text = rr_xasprintf("%s\n", b->target);
	rc = rr_file_write_atomic(file, text, strlen(text), 0644, err);
	if (rc)
		return rc;
	free(b->pth);
	b->pth = RR_STEAL(file);
	b->linked = true;
	return RR_OK;
}

void rr_bridge_release(struct rr_bridge *b)
{
	free(b->venv);
	free(b->python);
	free(b->protected_python);
	free(b->site);
	free(b->target);
	free(b->pth);
	rr_strv_free_array(b->stale, b->nstale);
	memset(b, 0, sizeof(*b));
}
