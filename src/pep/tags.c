/*
 * tags.c - which wheels a CPython venv on Linux can install.
 *
 * The rank combines the three tags the way installers order them: an exact
 * interpreter tag beats abi3 beats pure python; a newer manylinux beats an
 * older one; "any" ranks last.
 */
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/tags.h"

static void split_set(const char *s, size_t len, char ***ret, size_t *n)
{
	size_t cap = 0;
	const char *end = s + len;

	*ret = NULL;
	*n = 0;
	while (s < end) {
		const char *dot = memchr(s, '.', (size_t)(end - s));
		const char *stop = dot ? dot : end;
		RR_PUSH(*ret, *n, cap) = rr_xstrndup(s, (size_t)(stop - s));
		s = stop + 1;
	}
}

rr_err rr_wheel_name_parse(const char *filename, struct rr_wheel_name *ret, rr_error *err)
{
	const char *parts[6];
	size_t lens[6];
	size_t np = 0;
	const char *base = strrchr(filename, '/');
	const char *s = base ? base + 1 : filename;
	size_t len = strlen(s);
	struct rr_wheel_name w = {0};

	if (len < 5 || strcmp(s + len - 4, ".whl") != 0)
		return rr_fail(err, RR_E_PARSE, "'%s' is not a wheel filename", filename);
	len -= 4;
	for (size_t i = 0, start = 0; i <= len; i++) {
		if (i == len || s[i] == '-') {
			if (np == 6)
				return rr_fail(err, RR_E_PARSE, "wheel filename '%s' has too many parts",
					       filename);
			parts[np] = s + start;
			lens[np++] = i - start;
			start = i + 1;
		}
	}
	if (np != 5 && np != 6)
		return rr_fail(err, RR_E_PARSE,
			       "wheel filename '%s' needs name-version[-build]-python-abi-platform",
			       filename);
	for (size_t i = 0; i < np; i++)
		if (!lens[i])
			return rr_fail(err, RR_E_PARSE, "wheel filename '%s' has an empty part",
				       filename);
	w.name = rr_xstrndup(parts[0], lens[0]);
	w.version = rr_xstrndup(parts[1], lens[1]);
	if (np == 6)
		w.build = rr_xstrndup(parts[2], lens[2]);
	split_set(parts[np - 3], lens[np - 3], &w.py, &w.npy);
	split_set(parts[np - 2], lens[np - 2], &w.abi, &w.nabi);
	split_set(parts[np - 1], lens[np - 1], &w.plat, &w.nplat);
	*ret = w;
	return RR_OK;
}

void rr_wheel_name_release(struct rr_wheel_name *w)
{
	free(w->name);
	free(w->version);
	free(w->build);
	rr_strv_free_array(w->py, w->npy);
	rr_strv_free_array(w->abi, w->nabi);
	rr_strv_free_array(w->plat, w->nplat);
	memset(w, 0, sizeof(*w));
}

void rr_target_init(struct rr_target *t, const char *python_version, const char *machine,
		    unsigned glibc_major, unsigned glibc_minor)
{
	unsigned ma = 3;
	unsigned mi = 12;

	if (python_version)
		sscanf(python_version, "%u.%u", &ma, &mi);
	t->py_major = ma;
	t->py_minor = mi;
	snprintf(t->machine, sizeof(t->machine), "%s", machine ? machine : "x86_64");
	t->glibc_major = glibc_major;
	t->glibc_minor = glibc_minor;
}

void rr_target_host(struct rr_target *t, const char *python_version)
{
	struct utsname u;
	unsigned ma = 0;
	unsigned mi = 0;

	sscanf(gnu_get_libc_version(), "%u.%u", &ma, &mi);
	rr_target_init(t, python_version, uname(&u) == 0 ? u.machine : "x86_64", ma, mi);
}

/* rank of a python tag for the target, -1 when it cannot run there */
static int py_rank(const char *tag, const char *abi, const struct rr_target *t)
{
	unsigned ma;
	unsigned mi = 0;
	char rest;

	if (strncmp(tag, "cp", 2) == 0) {
		int n = sscanf(tag + 2, "%1u%u%c", &ma, &mi, &rest);
		if (n < 1 || n > 2 || ma != t->py_major)
			return -1;
		if (mi == t->py_minor && strcmp(abi, "abi3") != 0)
			return 300; /* cp312-cp312 */
		if (strcmp(abi, "abi3") == 0 && mi <= t->py_minor)
			return 200 + (int)mi; /* cp39-abi3 runs on any later 3.x */
		if (strcmp(abi, "none") == 0 && mi == t->py_minor)
			return 150;
		return -1;
	}
	if (strncmp(tag, "py", 2) == 0) {
		int n = sscanf(tag + 2, "%1u%u%c", &ma, &mi, &rest);
		if (n < 1 || n > 2 || ma != t->py_major)
			return -1;
		if (n == 2 && mi > t->py_minor)
			return -1;
		return n == 2 ? 100 + (int)mi : 50;
	}
	return -1;
}

static int abi_ok(const char *abi, const struct rr_target *t)
{
	char want[16];

	snprintf(want, sizeof(want), "cp%u%u", t->py_major, t->py_minor);
	return strcmp(abi, "none") == 0 || strcmp(abi, "abi3") == 0 || strcmp(abi, want) == 0;
}

static int plat_rank(const char *plat, const struct rr_target *t)
{
	unsigned ma;
	unsigned mi;
	int consumed = 0;
	size_t ml = strlen(t->machine);

	if (strcmp(plat, "any") == 0)
		return 1;
	if (strncmp(plat, "linux_", 6) == 0)
		return strcmp(plat + 6, t->machine) == 0 ? 10 : -1;
	/* legacy aliases of PEP 600 names */
	if (strncmp(plat, "manylinux1_", 11) == 0) {
		ma = 2;
		mi = 5;
		consumed = 11;
	} else if (strncmp(plat, "manylinux2010_", 14) == 0) {
		ma = 2;
		mi = 12;
		consumed = 14;
	} else if (strncmp(plat, "manylinux2014_", 14) == 0) {
		ma = 2;
		mi = 17;
		consumed = 14;
	} else if (sscanf(plat, "manylinux_%u_%u_%n", &ma, &mi, &consumed) != 2 || !consumed) {
		return -1;
	}
	if (strlen(plat + consumed) != ml || strcmp(plat + consumed, t->machine) != 0)
		return -1;
	if (!t->glibc_major || ma > t->glibc_major ||
	    (ma == t->glibc_major && mi > t->glibc_minor))
		return -1;
	return 20 + (int)(ma * 100 + mi) / 10;
}

int rr_wheel_score(const struct rr_wheel_name *w, const struct rr_target *t)
{
	int best = -1;

	for (size_t a = 0; a < w->nabi; a++) {
		if (!abi_ok(w->abi[a], t))
			continue;
		for (size_t p = 0; p < w->npy; p++) {
			int pr = py_rank(w->py[p], w->abi[a], t);
			if (pr < 0)
				continue;
			for (size_t q = 0; q < w->nplat; q++) {
				int qr = plat_rank(w->plat[q], t);
				if (qr >= 0 && pr * 1000 + qr > best)
					best = pr * 1000 + qr;
			}
		}
	}
	return best;
}
