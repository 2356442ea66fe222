/*
 * config.c - pip's and uv's configuration, with each installer's precedence
 * (include/rocm-resolve/config.h says which files, which keys, which order).
 *
 * pip's files are Python configparser files as pip reads them (RawConfigParser:
 * "[section]" headers, "key = value" or "key: value", indented continuation
 * lines, "#" and ";" comment lines, [DEFAULT] keys in every section, keys
 * lower-cased and "_" read as "-" as pip normalises them); uv's are TOML
 * (uvtoml.cc).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/config.h"
#include "rocm-resolve/strbuf.h"
#include "uvtoml.h"

/* a configuration file larger than this is refused */
#define RR_CONFIG_MAX_SIZE (1u << 20)

const char *rr_installer_name(enum rr_installer inst)
{
	return inst == RR_INSTALLER_PIP ? "pip" : "uv";
}

static const char *env_get(const struct rr_config_env *e, const char *name)
{
	const char *v = e->getenv_fn ? e->getenv_fn(name) : getenv(name);

	return v && *v ? v : NULL;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void set_value(struct rr_config_value *v, const char *value, char *origin)
{
	free(v->value);
	free(v->origin);
	v->value = rr_xstrdup(value);
	v->origin = origin;
}

static void push_value(struct rr_config_value **v, size_t *n, const char *value, char *origin)
{
	*v = rr_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].value = rr_xstrdup(value);
	(*v)[*n].origin = origin;
	(*n)++;
}

static void add_file(struct rr_installer_config *c, const char *path)
{
	c->files = rr_xrealloc(c->files, (c->nfiles + 1) * sizeof(char *));
	c->files[c->nfiles++] = rr_xstrdup(path);
}

/* "/etc/x" under the sysroot */
static char *in_root(const struct rr_config_env *e, const char *path)
{
	return rr_xasprintf("%s%s", e->sysroot ? e->sysroot : "", path);
}

/* $XDG_CONFIG_HOME, else ~/.config; NULL without either */
static char *user_config_dir(const struct rr_config_env *e)
{
	const char *xdg = env_get(e, "XDG_CONFIG_HOME");
	const char *home = env_get(e, "HOME");

	if (xdg && xdg[0] == '/')
		return rr_xstrdup(xdg);
	return home ? rr_xasprintf("%s/.config", home) : NULL;
}

/* Python's strtobool, as pip reads booleans: -1 when it is none */
static int str_to_bool(const char *s)
{
	static const char *const yes[] = {"y", "yes", "t", "true", "on", "1"};
	static const char *const no[] = {"n", "no", "f", "false", "off", "0"};

	for (size_t i = 0; i < RR_ARRAY_LEN(yes); i++)
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
	for (size_t i = 0; i < RR_ARRAY_LEN(no); i++)
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	return -1;
}

/* ------------------------------------------------------------------ pip */

enum pip_key { PK_INDEX_URL, PK_EXTRA_INDEX_URL, PK_FIND_LINKS, PK_NO_INDEX, PK_CERT, PK__COUNT };
static const char *const pip_keys[PK__COUNT] = {"index-url", "extra-index-url", "find-links",
						"no-index", "cert"};
static const char *const pip_vars[PK__COUNT] = {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
						"PIP_FIND_LINKS", "PIP_NO_INDEX", "PIP_CERT"};
/* the sections pip install reads, weakest first */
enum { PS_GLOBAL, PS_INSTALL, PS__COUNT };

/* the value each key has so far per section: later files replace earlier ones */
struct pip_state {
	struct rr_config_value v[PS__COUNT][PK__COUNT];
};

/* pip's name for a key: lower case, "_" as "-", a leading "--" dropped */
static int pip_key_of(const char *name, size_t n)
{
	char buf[64];

	if (n >= sizeof(buf))
		return -1;
	for (size_t i = 0; i < n; i++)
		buf[i] = name[i] == '_' ? '-' : (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32
											 : name[i]);
	buf[n] = '\0';
	for (int k = 0; k < PK__COUNT; k++)
		if (strcmp(buf + (strncmp(buf, "--", 2) == 0 ? 2 : 0), pip_keys[k]) == 0)
			return k;
	return -1;
}

struct ini_entry {
	int section; /* PS_*, or -1 for [DEFAULT] */
	int key;
	struct rr_strbuf value;
	unsigned line;
};

/* one pip.conf into st; RR_E_PARSE where configparser would raise */
static rr_err pip_read_file(const char *path, struct pip_state *st, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	struct ini_entry *ents = NULL;
	size_t nents = 0;
	char **seen_sections = NULL;
	size_t nseen = 0;
	int section = -2; /* -2: before any header; -3: a section pip install does not read */
	bool in_value = false;
	unsigned key_indent = 0;
	bool defaults_used[PS__COUNT] = {false, false};
	rr_err rc = RR_OK;
	unsigned lineno = 0;
	const char *p;

	rc = rr_strbuf_read_file(&sb, path, RR_CONFIG_MAX_SIZE, err);
	if (rc)
		return rc;
	for (p = sb.buf; *p && !rc;) {
		size_t n = strcspn(p, "\n");
		RR_AUTOFREE char *line = rr_xstrndup(p, n);
		size_t len = n;
		unsigned indent = 0;
		const char *s;

		p += n + (p[n] ? 1 : 0);
		lineno++;
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		while (line[indent] == ' ' || line[indent] == '\t')
			indent++;
		s = line + indent;
		if (*s == '#' || *s == ';')
			continue;
		if (!*s)
			continue; /* blank lines inside a value change nothing we read */
		if (in_value && indent > key_indent) {
			rr_strbuf_addf(&ents[nents - 1].value, "\n%s", s);
			continue;
		}
		in_value = false;
		if (*s == '[' && strchr(s, ']')) {
			const char *close = strrchr(s, ']');
			RR_AUTOFREE char *name = rr_xstrndup(s + 1, (size_t)(close - s - 1));
			for (size_t i = 0; i < nseen; i++)
				if (strcmp(seen_sections[i], name) == 0) {
					rc = rr_fail_at(err, RR_E_PARSE, path, lineno, 1, line,
							"section [%s] appears twice (pip refuses this "
							"file)",
							name);
					break;
				}
			seen_sections = rr_xrealloc(seen_sections, (nseen + 1) * sizeof(char *));
			seen_sections[nseen++] = rr_xstrdup(name);
			section = strcmp(name, "global") == 0	 ? PS_GLOBAL
				  : strcmp(name, "install") == 0 ? PS_INSTALL
				  : strcmp(name, "DEFAULT") == 0 ? -1
								 : -3;
			if (section >= 0)
				defaults_used[section] = true;
			continue;
		}
		if (section == -2) {
			rc = rr_fail_at(err, RR_E_PARSE, path, lineno, 1, line,
					"no [section] header before this line (pip refuses this "
					"file)");
			break;
		}
		{
			size_t klen = strcspn(s, "=:");
			size_t kend = klen;
			const char *v;
			int key;
			if (!s[klen]) {
				rc = rr_fail_at(err, RR_E_PARSE, path, lineno, indent + 1, line,
						"a line that is no 'key = value' (pip refuses this "
						"file)");
				break;
			}
			while (kend && (s[kend - 1] == ' ' || s[kend - 1] == '\t'))
				kend--;
			v = s + klen + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			key = pip_key_of(s, kend);
			in_value = true;
			key_indent = indent;
			if (section == -3 || key < 0) {
				/* a value we do not read: its continuation lines go nowhere */
				ents = rr_xrealloc(ents, (nents + 1) * sizeof(*ents));
				ents[nents] = (struct ini_entry){-3, -1, RR_STRBUF_INIT, lineno};
				nents++;
				continue;
			}
			for (size_t i = 0; i < nents; i++)
				if (ents[i].section == section && ents[i].key == key) {
					rc = rr_fail_at(err, RR_E_PARSE, path, lineno, indent + 1, line,
							"'%s' appears twice in this section (pip "
							"refuses this file)",
							pip_keys[key]);
					break;
				}
			if (rc)
				break;
			ents = rr_xrealloc(ents, (nents + 1) * sizeof(*ents));
			ents[nents] = (struct ini_entry){section, key, RR_STRBUF_INIT, lineno};
			rr_strbuf_adds(&ents[nents].value, v);
			nents++;
		}
	}
	/* [DEFAULT] first, so that a section's own key replaces it */
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (size_t i = 0; i < nents; i++) {
			struct ini_entry *e = &ents[i];
			if (e->key < 0 || (pass == 0) != (e->section == -1))
				continue;
			rr_strbuf_rtrim(&e->value);
			if (!e->value.len)
				continue; /* pip ignores an empty value */
			for (int sec = 0; sec < PS__COUNT; sec++) {
				if (e->section == -1 ? !defaults_used[sec] : e->section != sec)
					continue;
				set_value(&st->v[sec][e->key], e->value.buf,
					  rr_xasprintf("%s:%u", path, e->line));
			}
		}
	for (size_t i = 0; i < nents; i++)
		rr_strbuf_release(&ents[i].value);
	free(ents);
	for (size_t i = 0; i < nseen; i++)
		free(seen_sections[i]);
	free(seen_sections);
	return rc;
}

static rr_err pip_file(struct rr_installer_config *c, const char *path, struct pip_state *st,
		       rr_error *err)
{
	if (!is_file(path))
		return RR_OK;
	add_file(c, path);
	return pip_read_file(path, st, err);
}

/* whitespace-separated values, as pip splits a list option's configured value */
static void push_split(struct rr_config_value **v, size_t *n, const char *value,
		       const char *origin, const char *seps)
{
	RR_AUTOFREE char *copy = rr_xstrdup(value);
	char *save = NULL;

	for (char *t = strtok_r(copy, seps, &save); t; t = strtok_r(NULL, seps, &save))
		push_value(v, n, t, rr_xstrdup(origin));
}

static rr_err pip_load(const struct rr_config_env *e, struct rr_installer_config *c, rr_error *err)
{
	struct pip_state st;
	const char *env_file = e->getenv_fn ? e->getenv_fn("PIP_CONFIG_FILE")
					    : getenv("PIP_CONFIG_FILE");
	struct rr_config_value got[PK__COUNT];
	rr_err rc = RR_OK;

	memset(&st, 0, sizeof(st));
	memset(got, 0, sizeof(got));
	/* PIP_CONFIG_FILE=/dev/null: no file at all */
	if (!env_file || strcmp(env_file, "/dev/null") != 0) {
		const char *dirs = env_get(e, "XDG_CONFIG_DIRS");
		RR_AUTOFREE char *dirs_copy = dirs ? rr_xstrdup(dirs) : in_root(e, "/etc/xdg");
		RR_AUTOFREE char *etc = in_root(e, "/etc/pip.conf");
		RR_AUTOFREE char *ucfg = user_config_dir(e);
		const char *home = env_get(e, "HOME");
		char *save = NULL;
		/* global: each $XDG_CONFIG_DIRS entry, then /etc, the later winning */
		for (char *d = strtok_r(dirs_copy, ":", &save); d && !rc; d = strtok_r(NULL, ":", &save)) {
			RR_AUTOFREE char *f = rr_xasprintf("%s/pip/pip.conf", d);
			rc = pip_file(c, f, &st, err);
		}
		if (!rc)
			rc = pip_file(c, etc, &st, err);
		/* user: the legacy file, then the XDG one; not when PIP_CONFIG_FILE exists */
		if (!rc && !(env_file && *env_file && is_file(env_file))) {
			if (home) {
				RR_AUTOFREE char *legacy = rr_xasprintf("%s/.pip/pip.conf", home);
				rc = pip_file(c, legacy, &st, err);
			}
			if (!rc && ucfg) {
				RR_AUTOFREE char *f = rr_xasprintf("%s/pip/pip.conf", ucfg);
				rc = pip_file(c, f, &st, err);
			}
		}
		/* site: the environment pip installs into */
		if (!rc && e->venv) {
			RR_AUTOFREE char *f = rr_xasprintf("%s/pip.conf", e->venv);
			rc = pip_file(c, f, &st, err);
		}
		if (!rc && env_file && *env_file)
			rc = pip_file(c, env_file, &st, err);
	}
	for (int k = 0; k < PK__COUNT && !rc; k++) {
		const char *var = env_get(e, pip_vars[k]);
		const struct rr_config_value *from = st.v[PS_INSTALL][k].value ? &st.v[PS_INSTALL][k]
									: &st.v[PS_GLOBAL][k];
		if (var)
			set_value(&got[k], var, rr_xstrdup(pip_vars[k]));
		else if (from->value)
			set_value(&got[k], from->value, rr_xstrdup(from->origin));
	}
	if (!rc && got[PK_NO_INDEX].value) {
		int b = str_to_bool(got[PK_NO_INDEX].value);
		if (b < 0)
			rc = rr_fail(err, RR_E_PARSE,
				     "%s: no-index = '%s' is no boolean (yes/no, true/false, 1/0); pip "
				     "refuses it too",
				     got[PK_NO_INDEX].origin, got[PK_NO_INDEX].value);
		else if (b)
			set_value(&c->no_index, "true", rr_xstrdup(got[PK_NO_INDEX].origin));
	}
	if (!rc) {
		if (got[PK_INDEX_URL].value)
			set_value(&c->default_index, got[PK_INDEX_URL].value,
				  rr_xstrdup(got[PK_INDEX_URL].origin));
		if (got[PK_EXTRA_INDEX_URL].value)
			push_split(&c->indexes, &c->nindexes, got[PK_EXTRA_INDEX_URL].value,
				   got[PK_EXTRA_INDEX_URL].origin, " \t\r\n");
		if (got[PK_FIND_LINKS].value)
			push_split(&c->find_links, &c->nfind_links, got[PK_FIND_LINKS].value,
				   got[PK_FIND_LINKS].origin, " \t\r\n");
		if (got[PK_CERT].value)
			set_value(&c->cert, got[PK_CERT].value, rr_xstrdup(got[PK_CERT].origin));
	}
	for (int s = 0; s < PS__COUNT; s++)
		for (int k = 0; k < PK__COUNT; k++) {
			free(st.v[s][k].value);
			free(st.v[s][k].origin);
		}
	for (int k = 0; k < PK__COUNT; k++) {
		free(got[k].value);
		free(got[k].origin);
	}
	return rc;
}

/* ------------------------------------------------------------------ uv */

/* uv's boolean variables: -1 unset or unreadable */
static int uv_env_bool(const struct rr_config_env *e, const char *name)
{
	const char *v = env_get(e, name);

	if (!v)
		return -1;
	if (!strcasecmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	    !strcasecmp(v, "on") || !strcasecmp(v, "y") || !strcasecmp(v, "t"))
		return 1;
	if (!strcasecmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
	    !strcasecmp(v, "off") || !strcasecmp(v, "n") || !strcasecmp(v, "f"))
		return 0;
	return -1;
}

struct uv_file {
	char *path;
	struct rr_uvtoml t;
};

static rr_err uv_read(const char *path, bool pyproject, struct uv_file *f, bool *found,
		      rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_err rc;

	memset(f, 0, sizeof(*f));
	*found = false;
	if (!is_file(path))
		return RR_OK;
	rc = rr_strbuf_read_file(&sb, path, RR_CONFIG_MAX_SIZE, err);
	if (!rc)
		rc = rr_uvtoml_parse(path, sb.buf, sb.len, pyproject, &f->t, err);
	if (rc || !f->t.found) {
		rr_uvtoml_release(&f->t);
		return rc;
	}
	f->path = rr_xstrdup(path);
	*found = true;
	return RR_OK;
}

/* the nearest directory from cwd up holding uv.toml, or a pyproject.toml with [tool.uv] */
static rr_err uv_project(const struct rr_config_env *e, struct uv_file *f, bool *found,
			 rr_error *err)
{
	char buf[4096];
	RR_AUTOFREE char *dir = NULL;
	rr_err rc;

	*found = false;
	if (e->cwd)
		dir = rr_xstrdup(e->cwd);
	else if (getcwd(buf, sizeof(buf)))
		dir = rr_xstrdup(buf);
	else
		return RR_OK;
	for (;;) {
		RR_AUTOFREE char *uvtoml = rr_xasprintf("%s/uv.toml", *dir ? dir : "");
		RR_AUTOFREE char *pyproject = rr_xasprintf("%s/pyproject.toml", *dir ? dir : "");
		char *slash;
		rc = uv_read(uvtoml, false, f, found, err);
		if (rc || *found)
			return rc;
		rc = uv_read(pyproject, true, f, found, err);
		if (rc || *found)
			return rc;
		slash = strrchr(dir, '/');
		if (!slash || !*dir)
			return RR_OK;
		*slash = '\0';
	}
}

static rr_err uv_files(const struct rr_config_env *e, struct uv_file files[3], size_t *nfiles,
		       rr_error *err)
{
	const char *only = env_get(e, "UV_CONFIG_FILE");
	bool found = false;
	rr_err rc;

	*nfiles = 0;
	if (only) {
		if (!is_file(only))
			return rr_fail(err, RR_E_USAGE, "UV_CONFIG_FILE '%s': no such file (uv "
							"refuses it too)",
				       only);
		rc = uv_read(only, false, &files[0], &found, err);
		*nfiles = found;
		return rc;
	}
	if (uv_env_bool(e, "UV_NO_CONFIG") == 1)
		return RR_OK;
	/* project, user, system: the order their settings rank in */
	rc = uv_project(e, &files[*nfiles], &found, err);
	*nfiles += found;
	if (!rc) {
		RR_AUTOFREE char *ucfg = user_config_dir(e);
		RR_AUTOFREE char *f = ucfg ? rr_xasprintf("%s/uv/uv.toml", ucfg) : NULL;
		if (f)
			rc = uv_read(f, false, &files[*nfiles], &found, err);
		*nfiles += f && found;
	}
	if (!rc) {
		/* system: the first of $XDG_CONFIG_DIRS/uv/uv.toml (default /etc/xdg) and
		 * /etc/uv/uv.toml */
		const char *dirs = env_get(e, "XDG_CONFIG_DIRS");
		RR_AUTOFREE char *copy = dirs ? rr_xstrdup(dirs) : in_root(e, "/etc/xdg");
		RR_AUTOFREE char *etc = in_root(e, "/etc/uv/uv.toml");
		char *save = NULL;
		found = false;
		for (char *d = strtok_r(copy, ":", &save); d && !rc && !found;
		     d = strtok_r(NULL, ":", &save)) {
			RR_AUTOFREE char *f = rr_xasprintf("%s/uv/uv.toml", d);
			rc = uv_read(f, false, &files[*nfiles], &found, err);
		}
		if (!rc && !found)
			rc = uv_read(etc, false, &files[*nfiles], &found, err);
		*nfiles += found;
	}
	return rc;
}

/* every value of key k, project first */
static void uv_all(struct uv_file *files, size_t n, enum rr_uvkey k, struct rr_config_value **v,
		   size_t *nv)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < files[i].t.key[k].n; j++)
			push_value(v, nv, files[i].t.key[k].v[j],
				   rr_xasprintf("%s:%u", files[i].path, files[i].t.key[k].line[j]));
}

/* the first value of key k (project, user, system); false when none */
static bool uv_first(struct uv_file *files, size_t n, enum rr_uvkey k, struct rr_config_value *v)
{
	for (size_t i = 0; i < n; i++)
		if (files[i].t.key[k].n) {
			set_value(v, files[i].t.key[k].v[0],
				  rr_xasprintf("%s:%u", files[i].path, files[i].t.key[k].line[0]));
			return true;
		}
	return false;
}

/* UV_INDEX: entries "url" or "name=url", separated by spaces */
static void uv_env_indexes(const struct rr_config_env *e, const char *var,
			   struct rr_installer_config *c)
{
	const char *val = env_get(e, var);
	RR_AUTOFREE char *copy = val ? rr_xstrdup(val) : NULL;
	char *save = NULL;

	if (!val)
		return;
	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(t, '=');
		char *scheme = strstr(t, "://");
		if (eq && (!scheme || eq < scheme))
			t = eq + 1;
		push_value(&c->indexes, &c->nindexes, t, rr_xstrdup(var));
	}
}

static rr_err uv_load(const struct rr_config_env *e, struct rr_installer_config *c, rr_error *err)
{
	struct uv_file files[3];
	size_t n = 0;
	struct rr_config_value v = {0};
	const char *var;
	int off;
	rr_err rc;

	memset(files, 0, sizeof(files));
	rc = uv_files(e, files, &n, err);
	for (size_t i = 0; i < n; i++)
		add_file(c, files[i].path);
	if (!rc) {
		/* the indexes asked before the default, in uv's order */
		uv_env_indexes(e, "UV_INDEX", c);
		uv_env_indexes(e, "UV_EXTRA_INDEX_URL", c);
		uv_all(files, n, RR_UVK_INDEX, &c->indexes, &c->nindexes);
		uv_all(files, n, RR_UVK_PIP_EXTRA_INDEX_URL, &c->indexes, &c->nindexes);
		uv_all(files, n, RR_UVK_EXTRA_INDEX_URL, &c->indexes, &c->nindexes);
		/* the default */
		if ((var = env_get(e, "UV_DEFAULT_INDEX")))
			set_value(&c->default_index, var, rr_xstrdup("UV_DEFAULT_INDEX"));
		else if ((var = env_get(e, "UV_INDEX_URL")))
			set_value(&c->default_index, var, rr_xstrdup("UV_INDEX_URL"));
		else if (!uv_first(files, n, RR_UVK_INDEX_DEFAULT, &c->default_index) &&
			 !uv_first(files, n, RR_UVK_PIP_INDEX_URL, &c->default_index))
			uv_first(files, n, RR_UVK_INDEX_URL, &c->default_index);
		/* find-links: UV_FIND_LINKS (comma-separated), then the files' */
		if ((var = env_get(e, "UV_FIND_LINKS")))
			push_split(&c->find_links, &c->nfind_links, var, "UV_FIND_LINKS", ",");
		uv_all(files, n, RR_UVK_PIP_FIND_LINKS, &c->find_links, &c->nfind_links);
		uv_all(files, n, RR_UVK_FIND_LINKS, &c->find_links, &c->nfind_links);
		if ((uv_first(files, n, RR_UVK_PIP_NO_INDEX, &v) ||
		     uv_first(files, n, RR_UVK_NO_INDEX, &v)) &&
		    strcmp(v.value, "true") == 0)
			set_value(&c->no_index, "true", RR_STEAL(v.origin));
		off = uv_env_bool(e, "UV_OFFLINE");
		if (off == 1)
			set_value(&c->offline, "true", rr_xstrdup("UV_OFFLINE"));
		else if (off < 0 && uv_first(files, n, RR_UVK_OFFLINE, &v) &&
			 strcmp(v.value, "true") == 0)
			set_value(&c->offline, "true", RR_STEAL(v.origin));
	}
	free(v.value);
	free(v.origin);
	for (size_t i = 0; i < RR_ARRAY_LEN(files); i++) {
		free(files[i].path);
		rr_uvtoml_release(&files[i].t);
	}
	return rc;
}

/* ------------------------------------------------------------------ */

rr_err rr_config_load(enum rr_installer inst, const struct rr_config_env *env,
		      struct rr_installer_config *ret, rr_error *err)
{
	struct rr_installer_config c = {.installer = inst};
	rr_err rc;

	rc = inst == RR_INSTALLER_PIP ? pip_load(env, &c, err) : uv_load(env, &c, err);
	/* UV_OFFLINE is rocm-resolve's own --offline too, whichever installer the plan is for
	 * (the one place it is read) */
	if (!rc && !c.offline.value && uv_env_bool(env, "UV_OFFLINE") == 1)
		set_value(&c.offline, "true", rr_xstrdup("UV_OFFLINE"));
	if (rc) {
		rr_config_release(&c);
		return rc;
	}
	*ret = c;
	return RR_OK;
}

static void copy_value(struct rr_config_value *d, const struct rr_config_value *s)
{
	d->value = s->value ? rr_xstrdup(s->value) : NULL;
	d->origin = s->origin ? rr_xstrdup(s->origin) : NULL;
}

static void copy_values(struct rr_config_value **d, size_t *nd, const struct rr_config_value *s,
			size_t n)
{
	*d = n ? rr_xcalloc(n, sizeof(**d)) : NULL;
	for (size_t i = 0; i < n; i++)
		copy_value(&(*d)[i], &s[i]);
	*nd = n;
}

void rr_config_copy(struct rr_installer_config *dst, const struct rr_installer_config *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->installer = src->installer;
	copy_value(&dst->default_index, &src->default_index);
	copy_values(&dst->indexes, &dst->nindexes, src->indexes, src->nindexes);
	copy_values(&dst->find_links, &dst->nfind_links, src->find_links, src->nfind_links);
	copy_value(&dst->no_index, &src->no_index);
	copy_value(&dst->offline, &src->offline);
	copy_value(&dst->cert, &src->cert);
	for (size_t i = 0; i < src->nfiles; i++)
		add_file(dst, src->files[i]);
}

static void value_release(struct rr_config_value *v)
{
	free(v->value);
	free(v->origin);
	v->value = v->origin = NULL;
}

void rr_config_release(struct rr_installer_config *c)
{
	value_release(&c->default_index);
	for (size_t i = 0; i < c->nindexes; i++)
		value_release(&c->indexes[i]);
	free(c->indexes);
	for (size_t i = 0; i < c->nfind_links; i++)
		value_release(&c->find_links[i]);
	free(c->find_links);
	value_release(&c->no_index);
	value_release(&c->offline);
	value_release(&c->cert);
	for (size_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
}
