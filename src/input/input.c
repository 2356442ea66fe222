/*
 * input.c - the requirement set and input dispatch: a directory, a
 * pyproject.toml or a requirements file all land in one struct rr_reqset.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"

struct rr_item *rr_reqset_add_item(struct rr_reqset *set)
{
	struct rr_item *it = &RR_PUSH(set->items, set->nitems, set->cap_items);

	memset(it, 0, sizeof(*it));
	it->req = (struct rr_requirement)RR_REQUIREMENT_INIT;
	return it;
}

void rr_reqset_add_warning(struct rr_reqset *set, const char *fmt, ...)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	set->warnings = rr_xrealloc(set->warnings, (set->nwarnings + 1) * sizeof(char *));
	set->warnings[set->nwarnings++] = rr_strbuf_detach(&sb, NULL);
}

void rr_reqset_add_file(struct rr_reqset *set, const char *path)
{
	set->files = rr_xrealloc(set->files, (set->nfiles + 1) * sizeof(char *));
	set->files[set->nfiles++] = rr_xstrdup(path);
}

void rr_reqset_release(struct rr_reqset *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->nitems; i++) {
		struct rr_item *it = &set->items[i];
		free(it->path);
		if (it->text_expanded != it->text)
			free(it->text_expanded);
		free(it->text);
		if (it->url_written != it->req.url)
			free(it->url_written);
		rr_requirement_release(&it->req);
		rr_strv_free_array(it->hashes, it->nhashes);
		rr_strv_free_array(it->options, it->noptions);
	}
	free(set->items);
	for (size_t i = 0; i < set->nopts; i++) {
		free(set->opts[i].path);
		free(set->opts[i].name);
		if (set->opts[i].value_expanded != set->opts[i].value)
			free(set->opts[i].value_expanded);
		free(set->opts[i].value);
	}
	free(set->opts);
	free(set->index_url);
	rr_strv_free_array(set->extra_index_urls, set->nextra_index_urls);
	rr_strv_free_array(set->find_links, set->nfind_links);
	rr_strv_free_array(set->trusted_hosts, set->ntrusted_hosts);
	rr_strv_free_array(set->files, set->nfiles);
	rr_strv_free_array(set->warnings, set->nwarnings);
	memset(set, 0, sizeof(*set));
}

/* does this pyproject.toml have a [project] table? (a cheap textual look, the parse decides) */
static bool has_project_table(const char *path)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error e = RR_ERROR_INIT;
	bool yes = false;

	if (rr_strbuf_read_file(&sb, path, RR_REQFILE_MAX_SIZE, &e) != RR_OK) {
		rr_error_release(&e);
		return false;
	}
	for (const char *p = sb.buf; (p = strstr(p, "[project")) != NULL; p++) {
		const char *q = p + 8;
		/* at a line start, possibly indented */
		const char *b = p;
		while (b > sb.buf && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b != sb.buf && b[-1] != '\n')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == ']' || *q == '.') {
			yes = true;
			break;
		}
	}
	return yes;
}

rr_err rr_input_load(struct rr_reqset *set, const char *path, const struct rr_input_sel *sel,
		     rr_error *err)
{
	struct stat st;

	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		RR_AUTOFREE char *pp = rr_xasprintf("%s/pyproject.toml", path);
		RR_AUTOFREE char *rq = rr_xasprintf("%s/requirements.txt", path);
		bool has_pp = stat(pp, &st) == 0 && S_ISREG(st.st_mode);
		bool has_rq = stat(rq, &st) == 0 && S_ISREG(st.st_mode);

		if (has_pp && (has_project_table(pp) || !has_rq))
			return rr_pyproject_load(set, pp, sel, err);
		if (has_rq)
			return rr_reqfile_load(set, rq, err);
		/* a wrong input path is a usage error (exit 2), like a missing file */
		return rr_fail(err, RR_E_USAGE,
			       "'%s' has neither a pyproject.toml nor a requirements.txt", path);
	}
	if (rr_str_endswith(path, ".toml"))
		return rr_pyproject_load(set, path, sel, err);
	return rr_reqfile_load(set, path, err);
}
