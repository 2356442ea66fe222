/*
 * modules.h - which import names an installed distribution provides, decided from the paths
 * its RECORD lists: the one rule that plan (module clashes between distributions), install
 * (a distribution that arrived over a protected module) and verify (integrity's clashes)
 * share.
 *
 *   char **mods; size_t n;
 *   rr_modules_from_record(paths, npaths, &mods, &n);     sorted, unique; free each, then mods
 *
 * The rule, for RECORD paths relative to the site directory:
 *   six.py, _cffi.cpython-312-x86_64-linux-gnu.so, foo.pyd     a top-level module: "six", ...
 *   foo/__init__.py (or foo/__init__.<tag>.so)                   a regular package: "foo"
 *   nvidia/cublas/__init__.py, with no nvidia/__init__.*         a namespace package (PEP 420)
 *       is shared by every distribution that has a portion of it, so it is never provided
 *       itself: the portion is, "nvidia.cublas" (and deeper: "google.cloud.storage");
 *       a module file directly in a namespace is one too ("ns.mod")
 *   a directory holding no module and no __init__ anywhere      nothing (data files)
 *   *.pth files, *.dist-info/, *.data/, *.egg-info/, __pycache__/, ../ (scripts), .pyc
 *                                                                nothing
 *   __editable___<name>_finder.py (setuptools' PEP 660 finder)  nothing by its own name: an
 *       editable install provides the keys of the finder's MAPPING, which
 *       rr_modules_from_finder reads from the finder's text (a path-only .pth editable
 *       provides nothing the RECORD can tell)
 */
#ifndef RR_MODULES_H
#define RR_MODULES_H

#include <stddef.h>

/* the import names the RECORD paths provide, sorted and unique (see above) */
void rr_modules_from_record(const char *const *paths, size_t npaths, char ***ret, size_t *nret);
/* a RECORD path that is a setuptools editable finder (its MAPPING names the modules) */
int rr_modules_is_finder(const char *path);
/*
 * rr_modules_from_record for an installed distribution: the paths are relative to site, and
 * an editable finder among them is read there for its MAPPING (a regular file, at most 1 MiB)
 */
void rr_modules_installed(const char *site, const char *const *paths, size_t npaths, char ***ret,
			  size_t *nret);
/* add the top-level keys of a finder's `MAPPING ... = {'name': 'path', ...}` to *v */
void rr_modules_from_finder(const char *text, size_t len, char ***v, size_t *n);

#endif
