/*
 * find-links.c - --find-links, as pip and uv take it: a local directory (a path
 * or file:// URL: the dists in it, not recursive) or the URL of an HTML page
 * (every link on it), read once; each project's files from there join those of
 * its index (client-private.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "index/client-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/util.h"

static bool is_http(const char *u)
{
	return strncasecmp(u, "http://", 7) == 0 || strncasecmp(u, "https://", 8) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a directory's dists as the HTML page a flat index would serve for it */
static rr_err dir_page(const char *dir, struct rr_strbuf *html, char **ret_base, rr_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	RR_AUTOFREE char *abs = NULL;

	if (!d)
		return rr_fail(err, RR_E_IO, "--find-links '%s': %s", dir, strerror(errno));
	abs = realpath(dir, NULL);
	while ((de = readdir(d))) {
		struct stat st;
		RR_AUTOFREE char *path = NULL;
		if (de->d_name[0] == '.')
			continue;
		path = rr_xasprintf("%s/%s", abs ? abs : dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			RR_PUSH(names, n, cap) = rr_xstrdup(de->d_name);
	}
	closedir(d);
	rr_qsort(names, n, sizeof(*names), cmp_str);
	rr_strbuf_adds(html, "<html><body>\n");
	for (size_t i = 0; i < n; i++) {
		rr_strbuf_adds(html, "<a href=\"");
		for (const unsigned char *q = (const unsigned char *)names[i]; *q; q++) {
			if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			    (*q >= '0' && *q <= '9') || strchr("-._~+!", *q))
				rr_strbuf_addch(html, (char)*q);
			else
				rr_strbuf_addf(html, "%%%02X", *q);
		}
		rr_strbuf_adds(html, "\">x</a>\n");
		free(names[i]);
	}
	rr_strbuf_adds(html, "</body></html>\n");
	free(names);
	*ret_base = rr_xasprintf("file://%s/", abs ? abs : dir);
	return RR_OK;
}

static void copy_file(struct rr_index_file *dst, const struct rr_index_file *src)
{
#define DUP(x) dst->x = src->x ? rr_xstrdup(src->x) : NULL
	*dst = *src;
	DUP(filename);
	DUP(url);
	DUP(sha256);
	DUP(requires_python);
	DUP(yanked_reason);
	DUP(metadata_sha256);
	DUP(version);
#undef DUP
}

rr_err rr_index_fl_load(struct rr_index_client *c, rr_error *err)
{
	size_t cap = c->fl_files.nfiles;
	rr_err rc = RR_OK;

	if (c->fl_loaded || !c->nfl)
		return RR_OK;
	c->fl_loaded = true;
	for (size_t i = 0; i < c->nfl && rc == RR_OK; i++) {
		struct rr_index_project pr = {0};
		const char *loc = c->fl[i];
		if (is_http(loc)) {
			struct rr_index_get g = {
				.url = NULL, .klass = "flat", .accept = "text/html",
				.max_body = c->max_page, .cacheable = true,
			};
			char *plain = NULL;
			RR_AUTOFREE char *realm = NULL;
			rr_url_split_userinfo(loc, &plain, (char **)&g.userpwd);
			if (!(realm = rr_url_realm(plain))) {
				rc = rr_fail(err, RR_E_USAGE, "--find-links: not a URL: '%s'",
					     c->fl_redacted[i]);
				free(plain);
				free((char *)g.userpwd);
				break;
			}
			g.url = plain;
			rr_index_get_batch(c, &g, 1);
			if (g.rc != RR_OK) {
				rc = rr_index_get_take_error(&g, err);
			} else if (g.status != 200) {
				rc = rr_fail(err, RR_E_HTTP, "--find-links %s: HTTP %ld",
					     c->fl_redacted[i], g.status);
			} else {
				rc = rr_index_parse_html(g.body.buf, g.body.len, g.final_url,
							 c->fl_redacted[i], &pr, err);
				/* a remote page's links are never local files */
				if (rc == RR_OK)
					rr_index_project_keep(&pr, NULL, false);
			}
			free((char *)g.userpwd);
			rr_index_get_release(&g);
		} else {
			RR_AUTO_STRBUF struct rr_strbuf html = RR_STRBUF_INIT;
			RR_AUTOFREE char *page = NULL;
			const char *dir = strncasecmp(loc, "file://", 7) == 0 ? loc + 7 : loc;
			rc = dir_page(dir, &html, &page, err);
			if (rc == RR_OK)
				rc = rr_index_parse_html(html.buf, html.len, page, c->fl_redacted[i],
							 &pr, err);
		}
		for (size_t k = 0; rc == RR_OK && k < pr.nfiles; k++) {
			struct rr_index_file *f = &RR_PUSH(c->fl_files.files, c->fl_files.nfiles, cap);
			copy_file(f, &pr.files[k]);
			f->from_find_links = true;
		}
		rr_index_project_release(&pr);
	}
	return rc;
}

void rr_index_fl_merge(struct rr_index_client *c, const char *key, struct rr_index_project *p,
		       const char **index_url)
{
	size_t cap = p->nfiles;

	for (size_t i = 0; i < c->fl_files.nfiles; i++) {
		const struct rr_index_file *f = &c->fl_files.files[i];
		RR_AUTOFREE char *proj = rr_index_file_project(f);
		bool dup = false;
		if (!proj || strcmp(proj, key) != 0)
			continue;
		for (size_t k = 0; k < p->nfiles && !dup; k++)
			dup = strcmp(p->files[k].filename, f->filename) == 0;
		if (dup)
			continue; /* the index's own copy (with its hash) stands */
		if (p->arena) {
			/* a packed project (a digest) takes no loose strings: own them again */
			for (size_t k = 0; k < p->nfiles; k++) {
				struct rr_index_file o = p->files[k];
				copy_file(&p->files[k], &o);
			}
			p->arena = rr_free(p->arena);
		}
		copy_file(&RR_PUSH(p->files, p->nfiles, cap), f);
		if (!*index_url)
			*index_url = f->index_url;
	}
}
