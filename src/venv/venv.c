#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/modules.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/venv.h"

struct site_id {
	dev_t dev;
	ino_t ino;
};

struct loader {
	struct rr_venv *v;
	const char *sysroot; /* NULL or "" for "/" */
	size_t cap_dists, cap_warn, cap_bridged;
	/* the sites in scan order: [0] is the venv's own (when present) */
	char *sites[RR_VENV_MAX_SITES];
	struct site_id ids[RR_VENV_MAX_SITES];
	bool bridged[RR_VENV_MAX_SITES]; /* reached through a .pth file */
	bool inherited[RR_VENV_MAX_SITES]; /* the base interpreter's (system site packages) */
	size_t nsites;
	size_t cap_base, cap_constraints;
};

static void warn(struct loader *l, const char *fmt, ...) RR_PRINTF(2, 3);
static void warn(struct loader *l, const char *fmt, ...)
{
	va_list ap;
	struct rr_strbuf sb = RR_STRBUF_INIT;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	RR_PUSH(l->v->warnings, l->v->nwarnings, l->cap_warn) = rr_strbuf_detach(&sb, NULL);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n && a[n - 1] == '/')
		return rr_xasprintf("%s%s", a, b);
	return rr_xasprintf("%s/%s", a, b);
}

/* <sysroot><abs> with sysroot NULL/""/"/" meaning none */
static char *in_sysroot(const struct loader *l, const char *abs)
{
	if (!l->sysroot || !*l->sysroot || strcmp(l->sysroot, "/") == 0)
		return rr_xstrdup(abs);
	return join(l->sysroot, abs[0] == '/' ? abs + 1 : abs);
}

/*
 * read name (relative to dirfd) into sb; RR_E_NOTFOUND when it does not exist,
 * RR_E_LIMIT over max, RR_E_IO otherwise (a FIFO or device is refused, never waited on);
 * shown names the file in messages
 */
static rr_err read_at(int dirfd, const char *name, size_t max, struct rr_strbuf *sb,
		      const char *shown, rr_error *err)
{
	rr_err rc = rr_file_read(dirfd, name, max, 0, shown, sb, err);

	if (rc == RR_E_NOTFOUND)
		return rr_fail(err, RR_E_NOTFOUND, "%s missing", shown);
	return rc;
}

static char *trimmed_dup(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return rr_xstrndup(s, n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_top(char ***v, size_t *n, size_t *cap, const char *s, size_t len)
{
	/* consecutive RECORD lines usually share their top-level name */
	if (*n && strlen((*v)[*n - 1]) == len && memcmp((*v)[*n - 1], s, len) == 0)
		return;
	RR_PUSH(*v, *n, *cap) = rr_xstrndup(s, len);
}

static void sort_unique(char **v, size_t *n)
{
	size_t i, j = 0;

	if (!*n)
		return;
	rr_qsort(v, *n, sizeof(*v), cmp_str);
	for (i = 1; i < *n; i++) {
		if (strcmp(v[i], v[j]) == 0)
			free(v[i]);
		else
			v[++j] = v[i];
	}
	*n = j + 1;
}

/* the import names RECORD's entries provide: the one rule (rocm-resolve/modules.h) */
static void record_top_level(struct rr_dist *d, const char *s, size_t len)
{
	RR_AUTOFREE char *text = rr_xstrndup(s, len);
	const char **paths = NULL;
	size_t n = 0, cap = 0;

	for (const char *p = text; *p;) {
		char *f = rr_record_field(&p);
		while (*p && *p != '\n')
			p++; /* the hash and size fields */
		if (*p == '\n')
			p++;
		if (f[0])
			RR_PUSH(paths, n, cap) = f;
		else
			free(f);
	}
	rr_modules_installed(d->site, paths, n, &d->top_level, &d->ntop_level);
	for (size_t i = 0; i < n; i++)
		free((char *)paths[i]);
	free(paths);
}

static void lines_top_level(struct rr_dist *d, const char *s, size_t len)
{
	const char *end = s + len;
	size_t cap = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		RR_AUTOFREE char *t = trimmed_dup(s, (size_t)((nl ? nl : end) - s));
		s = nl ? nl + 1 : end;
		if (*t)
			add_top(&d->top_level, &d->ntop_level, &cap, t, strlen(t));
	}
	sort_unique(d->top_level, &d->ntop_level);
}

static void read_direct_url(struct loader *l, struct rr_dist *d, int dfd, struct rr_strbuf *buf)
{
	rr_error e = RR_ERROR_INIT;
	json_error_t je;
	json_t *root, *url, *dir_info, *editable;
	rr_err rc;

	rc = read_at(dfd, "direct_url.json", RR_VENV_MAX_SMALL, buf, "direct_url.json", &e);
	if (rc) {
		if (rc != RR_E_NOTFOUND)
			warn(l, "%s: %s", d->path, e.msg);
		rr_error_release(&e);
		return;
	}
	root = json_loadb(buf->buf, buf->len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		warn(l, "%s/direct_url.json:%d:%d: %s", d->path, je.line, je.column, je.text);
		return;
	}
	url = json_object_get(root, "url");
	if (json_is_string(url))
		d->direct_url = rr_redact_password(json_string_value(url));
	else
		warn(l, "%s/direct_url.json: no \"url\" string", d->path);
	dir_info = json_object_get(root, "dir_info");
	editable = json_object_get(dir_info, "editable");
	d->editable = json_is_true(editable);
	{
		/* the archive's hash as the installer recorded it (PEP 610): a lock may name
		 * that very file; anything but 64 hex digits is no hash */
		json_t *sha = json_object_get(
		    json_object_get(json_object_get(root, "archive_info"), "hashes"), "sha256");
		const char *h = json_is_string(sha) ? json_string_value(sha) : NULL;
		bool ok = h && strlen(h) == 64;
		for (size_t i = 0; ok && i < 64; i++)
			ok = rr_hex_digit(h[i]) >= 0;
		if (ok)
			d->direct_url_sha256 = rr_xstrdup(h);
	}
	json_decref(root);
}

/* "torch-2.9.1+rocm7.2.0.dist-info" -> name "torch", version "2.9.1+rocm7.2.0" */
static void name_from_dirname(struct rr_dist *d, const char *entry)
{
	const char *dot = strrchr(entry, '.');
	size_t stem = dot ? (size_t)(dot - entry) : strlen(entry);
	const char *dash = memchr(entry, '-', stem);

	if (dash) {
		d->name = rr_xstrndup(entry, (size_t)(dash - entry));
		d->version_text = rr_xstrndup(dash + 1, stem - (size_t)(dash - entry) - 1);
		/* egg-info file names carry "-py3.10" after the version */
		char *py = strstr(d->version_text, "-py");
		if (py)
			*py = '\0';
	} else {
		d->name = rr_xstrndup(entry, stem);
	}
}

static void set_problem(struct loader *l, struct rr_dist *d, const char *what)
{
	d->problem = rr_xstrdup(what);
	warn(l, "%s: %s", d->path, what);
}

static void load_dist(struct loader *l, int sitefd, size_t site, const char *entry, bool egg)
{
	struct rr_dist *d;
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
	const char *metaname = egg ? "PKG-INFO" : "METADATA";
	bool single_file = false;
	int dfd;
	rr_err rc;

	d = &RR_PUSH(l->v->dists, l->v->ndists, l->cap_dists);
	memset(d, 0, sizeof(*d));
	d->egg_info = egg;
	d->bridged = l->bridged[site];
	d->inherited = l->inherited[site];
	d->site = rr_xstrdup(l->sites[site]);
	d->path = join(l->sites[site], entry);

	dfd = openat(sitefd, entry, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && egg && errno == ENOTDIR) {
		/* distutils wrote egg-info as one PKG-INFO file */
		single_file = true;
	} else if (dfd < 0) {
		int errnum = errno;
		name_from_dirname(d, entry);
		set_problem(l, d, errnum == EACCES ? "directory not readable (permission denied)" :
						     strerror(errnum));
		goto out;
	}
	rc = single_file ? read_at(sitefd, entry, RR_VENV_MAX_METADATA, &buf, metaname, &e) :
			   read_at(dfd, metaname, RR_VENV_MAX_METADATA, &buf, metaname, &e);
	if (rc) {
		name_from_dirname(d, entry);
		set_problem(l, d, e.msg);
		goto close;
	}
	rc = rr_metadata_parse(buf.buf, buf.len, metaname, &d->meta, &e);
	if (rc) {
		RR_AUTO_STRBUF struct rr_strbuf msg = RR_STRBUF_INIT;
		name_from_dirname(d, entry);
		rr_strbuf_adds(&msg, "malformed ");
		rr_error_format(&e, &msg);
		set_problem(l, d, msg.buf);
		goto close;
	}
	d->name = rr_xstrdup(d->meta.name);
	d->version_text = rr_xstrdup(d->meta.version);
	if (single_file)
		goto out;

	if (egg) {
		if (read_at(dfd, "requires.txt", RR_VENV_MAX_SMALL, &buf, "requires.txt", NULL) == RR_OK)
			rr_metadata_add_requires_txt(&d->meta, buf.buf, buf.len);
	} else {
		if (read_at(dfd, "INSTALLER", RR_VENV_MAX_SMALL, &buf, "INSTALLER", NULL) == RR_OK)
			d->installer = trimmed_dup(buf.buf, buf.len);
		read_direct_url(l, d, dfd, &buf);
	}
	rr_error_release(&e);
	rc = egg ? RR_E_NOTFOUND :
		   read_at(dfd, "RECORD", RR_VENV_MAX_RECORD, &buf, "RECORD", &e);
	if (rc == RR_OK)
		record_top_level(d, buf.buf, buf.len);
	else if (rc != RR_E_NOTFOUND)
		warn(l, "%s: %s", d->path, e.msg);
	if (rc != RR_OK &&
	    read_at(dfd, "top_level.txt", RR_VENV_MAX_SMALL, &buf, "top_level.txt", NULL) == RR_OK)
		lines_top_level(d, buf.buf, buf.len);
close:
	if (!single_file)
		close(dfd);
out:
	d->key = rr_name_normalize(d->name);
	if (d->version_text && !d->problem) {
		rr_error_release(&e);
		if (rr_version_parse(d->version_text, &d->version, &e) == RR_OK)
			d->version_ok = true;
		else
			warn(l, "%s: version '%s' is not a valid PEP 440 version", d->path,
			     d->version_text);
	}
}

static bool same_site(struct loader *l, const struct stat *st)
{
	for (size_t i = 0; i < l->nsites; i++)
		if (l->ids[i].dev == st->st_dev && l->ids[i].ino == st->st_ino)
			return true;
	return false;
}

static bool add_site(struct loader *l, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode) || same_site(l, &st))
		return false;
	if (l->nsites == RR_VENV_MAX_SITES) {
		warn(l, "more than %d site directories; ignoring '%s'", RR_VENV_MAX_SITES, path);
		return false;
	}
	l->ids[l->nsites] = (struct site_id){st.st_dev, st.st_ino};
	l->sites[l->nsites++] = rr_xstrdup(path);
	return true;
}

static bool dir_has_dists(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	bool yes = false;

	if (!dir)
		return false;
	while (!yes && (de = readdir(dir)))
		yes = rr_str_endswith(de->d_name, ".dist-info") ||
		      rr_str_endswith(de->d_name, ".egg-info");
	closedir(dir);
	return yes;
}

/* a .pth line naming a directory that holds distributions: a bridged site */
static void read_pth(struct loader *l, int sitefd, size_t site, const char *entry)
{
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
	const char *s, *end;

	if (read_at(sitefd, entry, RR_VENV_MAX_SMALL, &buf, entry, &e)) {
		warn(l, "%s: %s", l->sites[site], e.msg);
		return;
	}
	for (s = buf.buf, end = buf.buf + buf.len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		RR_AUTOFREE char *t = trimmed_dup(s, (size_t)((nl ? nl : end) - s));
		RR_AUTOFREE char *path = NULL;

		s = nl ? nl + 1 : end;
		/* site.addpackage: comments skipped, "import" lines executed (we don't) */
		if (!*t || t[0] == '#' || rr_str_startswith(t, "import ") ||
		    rr_str_startswith(t, "import\t"))
			continue;
		path = t[0] == '/' ? in_sysroot(l, t) : join(l->sites[site], t);
		if (!dir_has_dists(path))
			continue;
		/* "site/../../../../rocm72/lib/..." is named as the directory it is */
		{
			char *real = realpath(path, NULL);
			if (real) {
				free(path);
				path = real;
			}
		}
		if (add_site(l, path)) {
			l->bridged[l->nsites - 1] = true;
			l->inherited[l->nsites - 1] = l->inherited[site];
			RR_PUSH(l->v->bridged_sites, l->v->nbridged_sites, l->cap_bridged) =
				rr_xstrdup(path);
		}
	}
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * a site directory that cannot be listed (mode 700, another owner) hides every
 * distribution in it: that is no empty environment but an unknown one, so an error
 */
static rr_err unreadable_site(const char *path, int errnum, rr_error *err)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return rr_fail(err, RR_E_ENV, "cannot read the site directory '%s': %s", path,
			       strerror(errnum));
	return rr_fail(err, RR_E_ENV,
		       "cannot read the site directory '%s' (owner uid %u, gid %u, mode %03o) "
		       "as uid %u: %s; what is installed there (the protected stack) cannot be "
		       "known: run as a user who may read it",
		       path, (unsigned)st.st_uid, (unsigned)st.st_gid,
		       (unsigned)(st.st_mode & 0777), (unsigned)getuid(), strerror(errnum));
}

static rr_err scan_site(struct loader *l, size_t site, rr_error *err)
{
	int sitefd;
	DIR *dir;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	sitefd = open(l->sites[site], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sitefd < 0)
		return unreadable_site(l->sites[site], errno, err);
	dir = fdopendir(dup(sitefd));
	if (!dir) {
		int e = errno;
		close(sitefd);
		return unreadable_site(l->sites[site], e, err);
	}
	while ((de = readdir(dir))) {
		if (rr_str_endswith(de->d_name, ".dist-info") ||
		    rr_str_endswith(de->d_name, ".egg-info") || rr_str_endswith(de->d_name, ".pth"))
			RR_PUSH(names, n, cap) = rr_xstrdup(de->d_name);
	}
	closedir(dir);
	/* readdir order is arbitrary; sorted names make warnings and duplicates deterministic */
	rr_qsort(names, n, sizeof(*names), cmp_entry);
	for (i = 0; i < n; i++) {
		if (rr_str_endswith(names[i], ".pth"))
			read_pth(l, sitefd, site, names[i]);
		else
			load_dist(l, sitefd, site, names[i], rr_str_endswith(names[i], ".egg-info"));
		free(names[i]);
	}
	free(names);
	close(sitefd);
	return RR_OK;
}

static bool is_python_dir(const char *name, char out[16])
{
	/* "python3.12" -> "3.12" */
	size_t n;

	if (!rr_str_startswith(name, "python3."))
		return false;
	n = strlen(name + 6);
	if (n >= 16 || strspn(name + 6, "0123456789.") != n)
		return false;
	memcpy(out, name + 6, n + 1);
	return true;
}

static bool same_minor(const char *full, const char *xy)
{
	size_t n = strlen(xy);
	return full && strncmp(full, xy, n) == 0 && (full[n] == '\0' || full[n] == '.');
}

/*
 * the site directories of an installation prefix, in the order Python's site module
 * (Debian's, which every distribution-made Python in the images is) puts them on
 * sys.path: <prefix>/lib/pythonX.Y/site-packages (a venv's base, or a Python built from
 * source), then local/lib/pythonX.Y/dist-packages (where pip installs into a system
 * Python: NGC images), lib/python3/dist-packages (Debian's packages),
 * lib/pythonX.Y/dist-packages; those that exist, each once. Returns how many were added.
 */
static size_t add_prefix_sites(struct loader *l, const char *prefix, const char *xy,
			       bool site_packages, bool inherited)
{
	RR_AUTOFREE char *a = rr_xasprintf("%s/lib/python%s/site-packages", prefix, xy);
	RR_AUTOFREE char *b = rr_xasprintf("%s/local/lib/python%s/dist-packages", prefix, xy);
	RR_AUTOFREE char *c = rr_xasprintf("%s/lib/python3/dist-packages", prefix);
	RR_AUTOFREE char *d = rr_xasprintf("%s/lib/python%s/dist-packages", prefix, xy);
	const char *const dirs[] = {site_packages ? a : NULL, b, c, d};
	size_t added = 0;

	for (size_t i = 0; i < RR_ARRAY_LEN(dirs); i++) {
		if (!dirs[i] || !add_site(l, dirs[i]))
			continue;
		l->inherited[l->nsites - 1] = inherited;
		added++;
		if (inherited)
			RR_PUSH(l->v->base_sites, l->v->nbase_sites, l->cap_base) = rr_xstrdup(dirs[i]);
		else if (!l->v->site_packages)
			l->v->site_packages = rr_xstrdup(dirs[i]);
	}
	return added;
}

/* "3.12" of "3.12.3" (buf holds 16) */
static const char *minor_of(const char *version, char buf[16])
{
	const char *dot = version ? strchr(version, '.') : NULL;
	size_t n = dot ? strspn(dot + 1, "0123456789") : 0;

	if (!dot || !n || (size_t)(dot - version) + 1 + n >= 16)
		return NULL;
	memcpy(buf, version, (size_t)(dot - version) + 1 + n);
	buf[(size_t)(dot - version) + 1 + n] = '\0';
	return buf;
}

/*
 * include-system-site-packages = true: the base interpreter's sites after the venv's
 * own, as Python puts them (pip imports torch from there; uv does not look there). The
 * base prefix is the parent of pyvenv.cfg's home (the directory of the base executable).
 */
static void add_base_sites(struct loader *l)
{
	char xy[16];
	RR_AUTOFREE char *home = NULL;
	RR_AUTOFREE char *prefix = NULL;
	char *slash;

	if (!l->v->system_site_packages || !l->v->home || l->v->home[0] != '/' ||
	    !minor_of(l->v->python_version, xy))
		return;
	home = rr_xstrdup(l->v->home);
	while ((slash = strrchr(home, '/')) && slash[1] == '\0' && slash != home)
		*slash = '\0';
	slash = strrchr(home, '/');
	prefix = slash == home ? rr_xstrdup("/") : rr_xstrndup(home, (size_t)(slash - home));
	{
		RR_AUTOFREE char *in = in_sysroot(l, prefix);
		if (!add_prefix_sites(l, in, xy, true, true))
			warn(l, "include-system-site-packages = true, but no site directory of the "
				"base interpreter was found under %s",
			     in);
	}
}

static void find_sites(struct loader *l)
{
	static const char *const libs[] = {"lib", "lib64"};
	char chosen_xy[16] = "";
	char seen_xy[16] = "";

	for (size_t i = 0; i < RR_ARRAY_LEN(libs); i++) {
		RR_AUTOFREE char *lib = join(l->v->root, libs[i]);
		DIR *dir = opendir(lib);
		struct dirent *de;
		char **cands = NULL;
		size_t n = 0, cap = 0, pick = SIZE_MAX;

		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			char xy[16];
			if (is_python_dir(de->d_name, xy))
				RR_PUSH(cands, n, cap) = rr_xstrdup(de->d_name);
		}
		closedir(dir);
		rr_qsort(cands, n, sizeof(*cands), cmp_entry);
		for (size_t j = 0; j < n; j++) {
			char xy[16];
			is_python_dir(cands[j], xy);
			if (pick == SIZE_MAX || same_minor(l->v->python_version, xy))
				pick = j;
		}
		if (n > 1)
			warn(l, "%s holds %zu python directories; using %s", lib, n, cands[pick]);
		if (pick != SIZE_MAX && !*seen_xy)
			is_python_dir(cands[pick], seen_xy);
		if (pick != SIZE_MAX) {
			RR_AUTOFREE char *py = join(lib, cands[pick]);
			RR_AUTOFREE char *sp = join(py, "site-packages");
			if (add_site(l, sp) && !l->v->site_packages) {
				l->v->site_packages = rr_xstrdup(sp);
				is_python_dir(cands[pick], chosen_xy);
			}
		}
		for (size_t j = 0; j < n; j++)
			free(cands[j]);
		free(cands);
	}
	if (!l->v->site_packages && dir_has_dists(l->v->root) && add_site(l, l->v->root))
		l->v->site_packages = rr_xstrdup(l->v->root);
	/* a system prefix (/usr, /usr/local): Debian's dist-packages directories */
	if (!l->v->site_packages && *seen_xy && add_prefix_sites(l, l->v->root, seen_xy, false, false))
		memcpy(chosen_xy, seen_xy, sizeof(chosen_xy));
	if (!l->v->site_packages)
		warn(l, "no site-packages directory found under '%s'", l->v->root);
	if (!l->v->python_version && *chosen_xy)
		l->v->python_version = rr_xstrdup(chosen_xy);
}

static void read_pyvenv_cfg(struct loader *l)
{
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
	RR_AUTOFREE char *version = NULL;
	RR_AUTOFREE char *version_info = NULL;
	const char *s, *end;
	int rootfd;
	rr_err rc;

	rootfd = open(l->v->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return;
	rc = read_at(rootfd, "pyvenv.cfg", RR_VENV_MAX_SMALL, &buf, "pyvenv.cfg", &e);
	close(rootfd);
	if (rc) {
		if (rc != RR_E_NOTFOUND)
			warn(l, "%s: %s", l->v->root, e.msg);
		return;
	}
	for (s = buf.buf, end = buf.buf + buf.len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		const char *eq = memchr(s, '=', (size_t)(eol - s));
		RR_AUTOFREE char *key = NULL;
		RR_AUTOFREE char *val = NULL;

		if (eq) {
			key = trimmed_dup(s, (size_t)(eq - s));
			val = trimmed_dup(eq + 1, (size_t)(eol - eq - 1));
			/* site.py lower-cases keys */
			for (char *k = key; *k; k++)
				if (*k >= 'A' && *k <= 'Z')
					*k = (char)(*k - 'A' + 'a');
			if (strcmp(key, "version") == 0 && !version)
				version = RR_STEAL(val);
			else if (strcmp(key, "version_info") == 0 && !version_info)
				version_info = RR_STEAL(val);
			else if (strcmp(key, "home") == 0 && !l->v->home)
				l->v->home = RR_STEAL(val);
			else if (strcmp(key, "include-system-site-packages") == 0)
				l->v->system_site_packages = rr_str_casecmp(val, "true") == 0;
		}
		s = nl ? nl + 1 : end;
	}
	/* uv writes version_info (e.g. "3.12.3"); venv writes version */
	if (version_info && *version_info)
		l->v->python_version = RR_STEAL(version_info);
	else if (version && *version)
		l->v->python_version = RR_STEAL(version);
}

/*
 * a conda environment has no pyvenv.cfg; its conda-meta/ names the interpreter
 * package "python-3.10.14-h955ad1f_0.json" (name-version-build), which
 * python-dateutil-2.9.0-... does not match: the version must start with a digit
 */
static void read_conda_meta(struct loader *l)
{
	RR_AUTOFREE char *meta = join(l->v->root, "conda-meta");
	DIR *dir = opendir(meta);
	struct dirent *de;

	if (!dir)
		return;
	while (!l->v->python_version && (de = readdir(dir))) {
		const char *ver = de->d_name + 7, *dash;
		if (!rr_str_startswith(de->d_name, "python-") || !rr_str_endswith(de->d_name, ".json") ||
		    *ver < '0' || *ver > '9')
			continue;
		dash = strchr(ver, '-');
		if (dash && (size_t)(dash - ver) < 16 &&
		    strspn(ver, "0123456789.") == (size_t)(dash - ver))
			l->v->python_version = rr_xstrndup(ver, (size_t)(dash - ver));
	}
	closedir(dir);
}

/* parse `name = 'x'`, `name: Optional[str] = 'x'`, `name = None` */
static bool py_assign(const char *line, const char *name, char **ret)
{
	size_t n = strlen(name);
	const char *p = line, *q;

	if (strncmp(p, name, n) != 0)
		return false;
	p += n;
	if (*p != ' ' && *p != '\t' && *p != '=' && *p != ':')
		return false;
	p = strchr(p, '=');
	if (!p || p[1] == '=')
		return false;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "None", 4) == 0) {
		*ret = rr_free(*ret);
		return true;
	}
	if (*p != '\'' && *p != '"')
		return false;
	q = strchr(p + 1, *p);
	if (!q)
		return false;
	free(*ret);
	*ret = rr_xstrndup(p + 1, (size_t)(q - p - 1));
	return true;
}

static void read_torch_version(struct loader *l)
{
	const struct rr_dist *torch = rr_venv_lookup(l->v, "torch");
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
	const char *site = NULL;
	const char *s, *end;
	rr_err rc = RR_E_NOTFOUND;

	/* the torch dist's own site; without a torch dist, the first site that has one */
	for (size_t i = 0; i < (torch ? 1 : l->nsites) && rc == RR_E_NOTFOUND; i++) {
		int fd;
		site = torch ? torch->site : l->sites[i];
		fd = open(site, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		rr_error_release(&e);
		rc = read_at(fd, "torch/version.py", RR_VENV_MAX_SMALL, &buf, "torch/version.py", &e);
		close(fd);
	}
	if (rc) {
		if (rc != RR_E_NOTFOUND)
			warn(l, "%s: %s", site, e.msg);
		else if (torch && !torch->problem)
			warn(l, "torch is installed but %s/torch/version.py is missing", site);
		return;
	}
	for (s = buf.buf, end = buf.buf + buf.len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		RR_AUTOFREE char *t = rr_xstrndup(s, (size_t)((nl ? nl : end) - s));
		s = nl ? nl + 1 : end;
		if (!py_assign(t, "__version__", &l->v->torch_version) &&
		    !py_assign(t, "hip", &l->v->torch_hip))
			py_assign(t, "cuda", &l->v->torch_cuda);
	}
}

static void read_rocm(struct loader *l, const struct rr_venv_opts *opts)
{
	const char *env = getenv("ROCM_PATH");
	RR_AUTOFREE char *path = NULL;
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	struct stat st;
	int fd;

	if (opts && opts->rocm_path)
		path = rr_xstrdup(opts->rocm_path);
	else if (env && *env)
		path = rr_xstrdup(env);
	else
		path = in_sysroot(l, "/opt/rocm");
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	l->v->rocm_path = rr_xstrdup(path);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (read_at(fd, ".info/version", RR_VENV_MAX_SMALL, &buf, ".info/version", NULL) == RR_OK) {
		/* "7.2.0-43\n" (first line only) */
		size_t n = strcspn(buf.buf, "\r\n");
		l->v->rocm_version = trimmed_dup(buf.buf, n);
	} else if (read_at(fd, "include/rocm-core/rocm_version.h", RR_VENV_MAX_SMALL, &buf,
			   "rocm_version.h", NULL) == RR_OK) {
		static const char *const keys[] = {"ROCM_VERSION_MAJOR", "ROCM_VERSION_MINOR",
						   "ROCM_VERSION_PATCH"};
		long parts[3] = {-1, -1, -1};
		for (size_t i = 0; i < 3; i++) {
			const char *p = strstr(buf.buf, keys[i]);
			if (p)
				parts[i] = strtol(p + strlen(keys[i]), NULL, 10);
		}
		if (parts[0] >= 0 && parts[1] >= 0)
			l->v->rocm_version =
				parts[2] >= 0 ? rr_xasprintf("%ld.%ld.%ld", parts[0], parts[1], parts[2]) :
						rr_xasprintf("%ld.%ld", parts[0], parts[1]);
	}
	close(fd);
	if (!l->v->rocm_version)
		warn(l, "ROCm at '%s' has no .info/version", path);
}

/* a constraint file's requirement lines, with their line numbers (options, comments and
 * blank lines skipped; the stack reads the requirements) */
static void read_constraint_file(struct loader *l, const char *path)
{
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error e = RR_ERROR_INIT;
	RR_AUTOFREE char *shown = rr_redact_password(path);
	unsigned lineno = 0;

	if (rr_file_read(AT_FDCWD, path, RR_VENV_MAX_SMALL, 0, shown, &buf, &e)) {
		warn(l, "pip constraint %s: %s", shown, e.msg);
		return;
	}
	for (const char *s = buf.buf, *end = buf.buf + buf.len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		RR_AUTOFREE char *t = trimmed_dup(s, (size_t)((nl ? nl : end) - s));
		char *hash = strstr(t, " #");
		struct rr_venv_constraint *c;
		char *redacted;

		s = nl ? nl + 1 : end;
		lineno++;
		if (hash)
			*hash = '\0';
		if (!*t || t[0] == '#' || t[0] == '-')
			continue;
		c = &RR_PUSH(l->v->constraints, l->v->nconstraints, l->cap_constraints);
		c->file = rr_xstrdup(shown);
		c->line = lineno;
		/* a fact the stack file and inspect carry: a URL's password never goes there */
		c->requirement = trimmed_dup(t, strlen(t));
		redacted = rr_redact_password(c->requirement);
		free(c->requirement);
		c->requirement = redacted;
	}
}

/*
 * the pip constraint in force, read as facts about the stack: $PIP_CONSTRAINT (pip's
 * variable: paths separated by whitespace), else <sysroot>/etc/pip/constraint.txt, where
 * NGC images pin their stack (and point PIP_CONSTRAINT at it)
 */
static void read_pip_constraint(struct loader *l)
{
	const char *env = getenv("PIP_CONSTRAINT");
	RR_AUTOFREE char *path = NULL;

	if (env && *env) {
		RR_AUTOFREE char *copy = rr_xstrdup(env);
		char *save = NULL;
		l->v->pip_constraint = rr_redact_password(env);
		for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
			read_constraint_file(l, t);
		return;
	}
	path = in_sysroot(l, "/etc/pip/constraint.txt");
	if (access(path, F_OK) == 0) {
		read_constraint_file(l, path);
		l->v->pip_constraint = RR_STEAL(path);
	}
}

static int cmp_dist_idx(const void *a, const void *b, void *ctx)
{
	const struct rr_venv *v = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(v->dists[x].key, v->dists[y].key);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

static void release_dist(struct rr_dist *d)
{
	free(d->name);
	free(d->key);
	free(d->version_text);
	rr_version_release(&d->version);
	free(d->path);
	free(d->site);
	free(d->installer);
	free(d->direct_url);
	free(d->direct_url_sha256);
	rr_metadata_release(&d->meta);
	for (size_t i = 0; i < d->ntop_level; i++)
		free(d->top_level[i]);
	free(d->top_level);
	free(d->problem);
}

/* sort by key; of several dists with one key the first scanned (first site) wins */
static void sort_dists(struct loader *l)
{
	struct rr_venv *v = l->v;
	struct rr_dist *out;
	RR_AUTOFREE size_t *order = NULL;
	size_t n = 0;

	if (!v->ndists)
		return;
	/* ties broken by scan order, so the first site scanned wins */
	order = rr_xcalloc(v->ndists, sizeof(*order));
	for (size_t i = 0; i < v->ndists; i++)
		order[i] = i;
	qsort_r(order, v->ndists, sizeof(*order), cmp_dist_idx, v);
	out = rr_xcalloc(v->ndists, sizeof(*out));
	for (size_t i = 0; i < v->ndists; i++) {
		struct rr_dist *d = &v->dists[order[i]];
		if (n && strcmp(out[n - 1].key, d->key) == 0) {
			if (strcmp(out[n - 1].site, d->site) == 0)
				warn(l, "two installations of '%s' in %s: %s and %s; using the first",
				     d->key, d->site, out[n - 1].path, d->path);
			else
				warn(l, "'%s' in %s is shadowed by %s", d->key, d->site,
				     out[n - 1].path);
			release_dist(d);
			continue;
		}
		out[n++] = *d;
	}
	free(v->dists);
	v->dists = out;
	v->ndists = n;
}

/* what makes a directory without site-packages an (empty or broken) environment */
static bool marks_env(const char *root)
{
	static const char *const marks[] = {"pyvenv.cfg", "conda-meta", "bin/python", "bin/python3"};

	for (size_t i = 0; i < RR_ARRAY_LEN(marks); i++) {
		RR_AUTOFREE char *p = join(root, marks[i]);
		if (access(p, F_OK) == 0)
			return true;
	}
	return false;
}

rr_err rr_venv_load(const char *root, const struct rr_venv_opts *opts, struct rr_venv **ret,
		    rr_error *err)
{
	struct loader l = {0};
	struct stat st;

	if (stat(root, &st) < 0)
		return rr_fail(err, RR_E_ENV, "cannot use venv '%s': %s", root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rr_fail(err, RR_E_ENV, "venv '%s' is not a directory", root);
	if (access(root, R_OK | X_OK) < 0)
		return rr_fail(err, RR_E_ENV, "cannot read venv '%s': %s", root, strerror(errno));
	l.v = rr_xcalloc(1, sizeof(*l.v));
	l.sysroot = opts ? opts->sysroot : NULL;
	l.v->root = rr_xstrdup(root);
	read_pyvenv_cfg(&l);
	if (!l.v->python_version)
		read_conda_meta(&l);
	find_sites(&l);
	if (!l.v->site_packages && !marks_env(l.v->root)) {
		rr_fail(err, RR_E_ENV,
			"'%s' is no Python environment: it holds no pyvenv.cfg, conda-meta, "
			"bin/python or lib/python3.X/site-packages; pass --venv DIR of the venv or conda "
			"environment, or --stack FILE written by `rocm-resolve inspect --format "
			"json` in the container",
			root);
		for (size_t i = 0; i < l.nsites; i++)
			free(l.sites[i]);
		rr_venv_free(l.v);
		return RR_E_ENV;
	}
	/* scan_site may append bridged sites found in .pth files; the base interpreter's
	 * sites come after the venv's own and their bridges, as on sys.path */
	{
		size_t i = 0;
		rr_err rc = RR_OK;
		for (; !rc && i < l.nsites; i++)
			rc = scan_site(&l, i, err);
		if (!rc)
			add_base_sites(&l);
		for (; !rc && i < l.nsites; i++)
			rc = scan_site(&l, i, err);
		if (rc) {
			for (i = 0; i < l.nsites; i++)
				free(l.sites[i]);
			rr_venv_free(l.v);
			return rc;
		}
	}
	sort_dists(&l);
	read_torch_version(&l);
	read_rocm(&l, opts);
	read_pip_constraint(&l);
	for (size_t i = 0; i < l.nsites; i++)
		free(l.sites[i]);
	*ret = l.v;
	return RR_OK;
}

const struct rr_dist *rr_venv_lookup(const struct rr_venv *v, const char *key)
{
	size_t lo = 0, hi = v ? v->ndists : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v->dists[mid].key, key);
		if (c == 0)
			return &v->dists[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void rr_venv_marker_env(const struct rr_venv *v, struct rr_marker_env *env, char pybuf[16])
{
	rr_marker_env_init(env);
	if (v && v->python_version)
		rr_marker_env_set_python(env, v->python_version, pybuf);
	for (size_t i = 0; v && i < RR_MVAR__MAX; i++)
		if (v->markers[i] && i != RR_MVAR_EXTRA)
			env->vars[i] = v->markers[i];
}

void rr_venv_target(const struct rr_venv *v, struct rr_target *t)
{
	unsigned ma = 0, mi = 0;

	rr_target_host(t, v ? v->python_version : NULL);
	if (!v || (!v->machine && !v->glibc))
		return;
	if (v->glibc)
		sscanf(v->glibc, "%u.%u", &ma, &mi);
	else
		ma = t->glibc_major, mi = t->glibc_minor;
	rr_target_init(t, v->python_version, v->machine ? v->machine : t->machine, ma, mi);
}

const char *rr_venv_origin_name(enum rr_venv_origin o)
{
	switch (o) {
	case RR_VENV_FROM_OPTION:
		return "--venv";
	case RR_VENV_FROM_VIRTUAL_ENV:
		return "$VIRTUAL_ENV";
	case RR_VENV_FROM_CONDA_PREFIX:
		return "$CONDA_PREFIX";
	case RR_VENV_FROM_OPT_VENV:
		return "/opt/venv";
	case RR_VENV_FROM_OPT_CONDA:
		return "/opt/conda";
	case RR_VENV_FROM_SYSTEM:
		return "the system Python (/usr)";
	}
	return "?";
}

/* a torch distribution in the site directory sp */
static bool site_holds_torch(const char *sp)
{
	DIR *sd = opendir(sp);
	struct dirent *e;
	bool yes = false;

	while (sd && !yes && (e = readdir(sd)))
		yes = rr_str_startswith(e->d_name, "torch-") &&
		      (rr_str_endswith(e->d_name, ".dist-info") ||
		       rr_str_endswith(e->d_name, ".egg-info"));
	if (sd)
		closedir(sd);
	return yes;
}

/* a torch distribution in <prefix>/<lib>/python3.X/<site> */
static bool holds_torch_in(const char *prefix, const char *lib_dir, const char *site)
{
	RR_AUTOFREE char *lib = join(prefix, lib_dir);
	DIR *dir = opendir(lib);
	struct dirent *de;
	bool yes = false;

	if (!dir)
		return false;
	while (!yes && (de = readdir(dir))) {
		char xy[16];
		RR_AUTOFREE char *sp = NULL;
		if (!is_python_dir(de->d_name, xy))
			continue;
		sp = rr_xasprintf("%s/%s/%s", lib, de->d_name, site);
		yes = site_holds_torch(sp);
	}
	closedir(dir);
	return yes;
}

/* a torch distribution in <prefix>/lib/python3.X/site-packages */
static bool holds_torch(const char *prefix)
{
	return holds_torch_in(prefix, "lib", "site-packages");
}

/* a system Python's torch (NGC images): <prefix>/local/lib/python3.X/dist-packages, ... */
static bool system_holds_torch(const char *prefix)
{
	RR_AUTOFREE char *debian = join(prefix, "lib/python3/dist-packages");

	return holds_torch_in(prefix, "local/lib", "dist-packages") ||
	       holds_torch_in(prefix, "lib", "dist-packages") || site_holds_torch(debian);
}

/*
 * older rocm/pytorch images: the environment is /opt/conda itself or an env such as
 * /opt/conda/envs/py_3.10 put first on PATH without activation: the first env (by
 * name) whose site-packages holds torch, else the base
 */
static char *conda_root(const char *base)
{
	RR_AUTOFREE char *envs = join(base, "envs");
	DIR *dir = opendir(envs);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	char *found = NULL;

	while (dir && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			RR_PUSH(names, n, cap) = rr_xstrdup(de->d_name);
	if (dir)
		closedir(dir);
	rr_qsort(names, n, sizeof(*names), cmp_entry);
	for (size_t i = 0; i < n; i++) {
		RR_AUTOFREE char *p = join(envs, names[i]);
		if (!found && holds_torch(p))
			found = RR_STEAL(p);
		free(names[i]);
	}
	free(names);
	return found ? found : rr_xstrdup(base);
}

rr_err rr_venv_locate(const char *option, const char *virtual_env, const char *conda_prefix,
		      const char *sysroot, char **ret_path, enum rr_venv_origin *ret_origin,
		      rr_error *err)
{
	struct loader l = {.sysroot = sysroot};
	RR_AUTOFREE char *opt_venv = in_sysroot(&l, "/opt/venv");
	RR_AUTOFREE char *opt_conda = in_sysroot(&l, "/opt/conda");
	RR_AUTOFREE char *usr = in_sysroot(&l, "/usr");

	if (option && *option) {
		*ret_path = rr_xstrdup(option);
		*ret_origin = RR_VENV_FROM_OPTION;
	} else if (virtual_env && *virtual_env) {
		*ret_path = rr_xstrdup(virtual_env);
		*ret_origin = RR_VENV_FROM_VIRTUAL_ENV;
	} else if (conda_prefix && *conda_prefix) {
		*ret_path = rr_xstrdup(conda_prefix);
		*ret_origin = RR_VENV_FROM_CONDA_PREFIX;
	} else if (rr_file_is_dir(opt_venv)) {
		*ret_path = RR_STEAL(opt_venv);
		*ret_origin = RR_VENV_FROM_OPT_VENV;
	} else if (rr_file_is_dir(opt_conda)) {
		*ret_path = conda_root(opt_conda);
		*ret_origin = RR_VENV_FROM_OPT_CONDA;
	} else if (system_holds_torch(usr)) {
		*ret_path = RR_STEAL(usr);
		*ret_origin = RR_VENV_FROM_SYSTEM;
	} else {
		return rr_fail(err, RR_E_ENV,
			       "no Python environment found: $VIRTUAL_ENV and $CONDA_PREFIX are "
			       "unset, neither %s nor %s exists, and the system Python holds no "
			       "torch; pass --venv DIR, activate the "
			       "venv, or pass --stack FILE written by `rocm-resolve inspect --format "
			       "json` in the container",
			       opt_venv, opt_conda);
	}
	return RR_OK;
}

struct rr_venv *rr_venv_free(struct rr_venv *v)
{
	if (!v)
		return NULL;
	for (size_t i = 0; i < v->ndists; i++)
		release_dist(&v->dists[i]);
	free(v->dists);
	for (size_t i = 0; i < v->nbridged_sites; i++)
		free(v->bridged_sites[i]);
	free(v->bridged_sites);
	rr_strv_free_array(v->base_sites, v->nbase_sites);
	for (size_t i = 0; i < v->nconstraints; i++) {
		free(v->constraints[i].file);
		free(v->constraints[i].requirement);
	}
	free(v->constraints);
	for (size_t i = 0; i < v->nwarnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
	free(v->root);
	free(v->python_version);
	free(v->home);
	free(v->site_packages);
	free(v->torch_version);
	free(v->torch_hip);
	free(v->torch_cuda);
	free(v->rocm_version);
	free(v->rocm_path);
	free(v->pip_constraint);
	for (size_t i = 0; i < RR_MVAR__MAX; i++)
		free(v->markers[i]);
	free(v->machine);
	free(v->glibc);
	free(v->stack_file);
	free(v);
	return NULL;
}
