/* modules.c - the import names a distribution provides (see include/rocm-resolve/modules.h) */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/modules.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique(char **v, size_t *n)
{
	size_t w = 0;

	if (*n)
		rr_qsort(v, *n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < *n; i++) {
		if (w && !strcmp(v[w - 1], v[i])) {
			free(v[i]);
			continue;
		}
		v[w++] = v[i];
	}
	*n = w;
}

/* the module name of a file name: "six.py" -> 3, "_c.cpython-312.so" -> 2; 0: not a module */
static size_t module_file(const char *name, size_t len)
{
	const char *dot = memchr(name, '.', len);

	if (!dot || dot == name)
		return 0;
	if ((len >= 3 && !memcmp(name + len - 3, ".py", 3)) ||
	    (len >= 3 && !memcmp(name + len - 3, ".so", 3)) ||
	    (len >= 4 && !memcmp(name + len - 4, ".pyd", 4)))
		return (size_t)(dot - name);
	return 0;
}

int rr_modules_is_finder(const char *path)
{
	return !strchr(path, '/') && rr_str_startswith(path, "__editable__") &&
	       rr_str_endswith(path, "_finder.py");
}

static bool skipped_top(const char *p, size_t n)
{
	static const char *const suffixes[] = {".dist-info", ".data", ".egg-info", ".pth"};

	if (!n || (n == 1 && p[0] == '.') || (n == 2 && !memcmp(p, "..", 2)) ||
	    (n == 11 && !memcmp(p, "__pycache__", 11)) || (n >= 12 && !memcmp(p, "__editable__", 12)))
		return true;
	for (size_t i = 0; i < RR_ARRAY_LEN(suffixes); i++) {
		size_t k = strlen(suffixes[i]);
		if (n >= k && !memcmp(p + n - k, suffixes[i], k))
			return true;
	}
	return false;
}

/* dir (a path prefix, no trailing slash) holds an __init__ module among the paths */
static bool is_package(const char *const *paths, size_t npaths, const char *dir, size_t dlen)
{
	for (size_t i = 0; i < npaths; i++) {
		const char *p = paths[i];
		if (strncmp(p, dir, dlen) || p[dlen] != '/')
			continue;
		p += dlen + 1;
		if (!strchr(p, '/') && rr_str_startswith(p, "__init__.") &&
		    module_file(p, strlen(p)) == 8)
			return true;
	}
	return false;
}

void rr_modules_from_record(const char *const *paths, size_t npaths, char ***ret, size_t *nret)
{
	char **v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < npaths; i++) {
		const char *p = paths[i];
		size_t first = strcspn(p, "/");
		size_t k;

		if (skipped_top(p, first) || rr_str_endswith(p, ".pyc"))
			continue;
		if (!p[first]) { /* a file at the top */
			if ((k = module_file(p, first)))
				RR_PUSH(v, n, cap) = rr_xstrndup(p, k);
			continue;
		}
		/* down through namespace directories to the first package or module file */
		for (size_t end = first;;) {
			const char *rest = p + end + 1;
			size_t next = strcspn(rest, "/");
			if (is_package(paths, npaths, p, end)) {
				char *m = rr_xstrndup(p, end);
				for (char *c = m; *c; c++)
					if (*c == '/')
						*c = '.';
				RR_PUSH(v, n, cap) = m;
				break;
			}
			if (!rest[next]) { /* a file directly in a namespace directory */
				if ((k = module_file(rest, next)) &&
				    !(k == 8 && !memcmp(rest, "__init__", 8))) {
					char *m = rr_xasprintf("%.*s.%.*s", (int)end, p, (int)k, rest);
					for (char *c = m; *c; c++)
						if (*c == '/')
							*c = '.';
					RR_PUSH(v, n, cap) = m;
				}
				break;
			}
			if (!next || (next == 11 && !memcmp(rest, "__pycache__", 11)))
				break;
			end += 1 + next;
		}
	}
	sort_unique(v, &n);
	*ret = v;
	*nret = n;
}

void rr_modules_from_finder(const char *text, size_t len, char ***v, size_t *n)
{
	const char *end = text + len;
	const char *p = text;
	size_t cap = *n;

	/* MAPPING: dict[str, str] = {'foo': '/src/foo', 'bar': '/src/bar'} */
	while ((p = memmem(p, (size_t)(end - p), "MAPPING", 7))) {
		const char *brace = memchr(p, '{', (size_t)(end - p));
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!brace || (nl && nl < brace)) {
			p += 7;
			continue;
		}
		for (p = brace + 1; p < end && *p != '}';) {
			char q;
			const char *s;
			while (p < end && (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t'))
				p++;
			if (p >= end || (*p != '\'' && *p != '"'))
				break;
			q = *p++;
			s = p;
			while (p < end && *p != q)
				p++;
			if (p >= end)
				break;
			if (p > s && !memchr(s, '.', (size_t)(p - s)))
				RR_PUSH(*v, *n, cap) = rr_xstrndup(s, (size_t)(p - s));
			p++;
			/* the value: a quoted path */
			while (p < end && *p != '\'' && *p != '"' && *p != '}')
				p++;
			if (p >= end || *p == '}')
				break;
			q = *p++;
			while (p < end && *p != q)
				p++;
			p++;
		}
		break;
	}
	sort_unique(*v, n);
}

void rr_modules_installed(const char *site, const char *const *paths, size_t npaths, char ***ret,
			  size_t *nret)
{
	rr_modules_from_record(paths, npaths, ret, nret);
	for (size_t i = 0; i < npaths; i++) {
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		RR_AUTOFREE char *path = NULL;
		if (!rr_modules_is_finder(paths[i]))
			continue;
		path = rr_xasprintf("%s/%s", site, paths[i]);
		if (rr_file_read(AT_FDCWD, path, 1u << 20, RR_FILE_NOFOLLOW, path, &sb, NULL) == RR_OK)
			rr_modules_from_finder(sb.buf, sb.len, ret, nret);
	}
}
