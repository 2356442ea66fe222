/*
 * elf-probe - the load check on loose files, for the tests (tests/elf/oracle-test.py):
 *
 *   elf-probe [--interpreter P] [--preload P] [--preload-global P] [--ld-library-path S]
 *             [--cache P] [--system-dir D]... [--rocm-major N] [--image FILE=AT]... FILE...
 *   elf-probe --dump-cache PATH        the cache as the loader reads it: "name\tpath" lines
 *
 * One line per file, "file\tPATH\tloads|fails", then one per problem:
 * "problem\tKIND\tLIBRARY\tVERSION\tSYMBOL\tVIA\tTEXT" ("-" for none; SYMBOL is the first
 * missing one, demangled). CUDA and HIP names come from the built-in policy. --image reads
 * FILE into memory and checks the bytes as if installed at AT (a wheel's member).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf-private.h"
#include "rocm-resolve/loadcheck.h"
#include "rocm-resolve/loadenv.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

static void print_entry(void *ctx, const char *name, const char *path)
{
	(void)ctx;
	printf("%s\t%s\n", name, path);
}

static int dump_cache(const char *path)
{
	struct rr_elf_ldcache *c = rr_elf_ldcache_load(path);

	if (!c) {
		fprintf(stderr, "elf-probe: '%s' is no loader cache\n", path);
		return 1;
	}
	rr_elf_ldcache_each(c, print_entry, NULL);
	rr_elf_ldcache_free(c);
	return 0;
}

int main(int argc, char **argv)
{
	struct rr_loadcheck_opts o = {0};
	struct rr_loadcheck_preload pre[16];
	const char *dirs[16], *files[256];
	struct rr_loadcheck_image images[16];
	struct rr_strbuf bytes[16] = {0};
	size_t nimages = 0;
	struct rr_loadcheck_report *r;
	struct rr_policy *pol = NULL;
	rr_error err = RR_ERROR_INIT;
	size_t ndirs = 0, nfiles = 0;
	bool have_dirs = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--dump-cache") && v)
			return dump_cache(v);
		if (!strcmp(a, "--interpreter") && v)
			o.interpreter = v, i++;
		else if ((!strcmp(a, "--preload") || !strcmp(a, "--preload-global")) && v &&
			 o.npreload < 16)
			pre[o.npreload++] =
			    (struct rr_loadcheck_preload){v, !strcmp(a, "--preload-global")},
			i++;
		else if (!strcmp(a, "--ld-library-path") && v)
			o.ld_library_path = v, i++;
		else if (!strcmp(a, "--cache") && v)
			o.ld_so_cache = v, i++;
		else if (!strcmp(a, "--system-dir") && v && ndirs < 16)
			dirs[ndirs++] = v, have_dirs = true, i++;
		else if (!strcmp(a, "--image") && v && strchr(v, '=') && nimages < 16) {
			RR_AUTOFREE char *file = rr_xstrndup(v, (size_t)(strchr(v, '=') - v));
			if (rr_strbuf_read_file(&bytes[nimages], file, (size_t)1 << 30, &err)) {
				fprintf(stderr, "elf-probe: %s\n", err.msg);
				return 2;
			}
			images[nimages] = (struct rr_loadcheck_image){
			    bytes[nimages].buf, bytes[nimages].len, strchr(v, '=') + 1};
			nimages++, i++;
		} else if (!strcmp(a, "--no-system-dirs"))
			have_dirs = true;
		else if (!strcmp(a, "--rocm-major") && v)
			o.rocm_major = atoi(v), o.runtime = "ROCm (the test's)", i++;
		else if (a[0] == '-') {
			fprintf(stderr, "elf-probe: unknown option '%s'\n", a);
			return 2;
		} else if (nfiles < 256)
			files[nfiles++] = a;
	}
	if (rr_policy_load_default(&pol, &err)) {
		fprintf(stderr, "elf-probe: %s\n", err.msg);
		return 3;
	}
	o.preload = pre;
	o.files = files;
	o.nfiles = nfiles;
	o.images = images;
	o.nimages = nimages;
	if (have_dirs) {
		o.system_dirs = dirs;
		o.nsystem_dirs = ndirs;
	}
	o.classify = rr_loadenv_classify;
	o.classify_ctx = pol;
	o.max_symbols = 3;
	if (rr_loadcheck_run(&o, &r, &err)) {
		fprintf(stderr, "elf-probe: %s\n", err.msg);
		return 3;
	}
	for (size_t i = 0; i < r->ndists; i++) {
		const struct rr_loadcheck_dist *d = &r->dists[i];
		printf("file\t%s\t%s\t%zu\n", d->name, d->loads ? "loads" : "fails", d->nfiles);
		for (size_t k = 0; k < d->nproblems; k++) {
			const struct rr_loadcheck_problem *p = &d->problems[k];
			printf("problem\t%s\t%s\t%s\t%s\t%s\t%s\n", rr_loadcheck_kind_name(p->kind),
			       dash(p->library), dash(p->version),
			       dash(p->nsymbols ? p->symbols[0] : NULL), dash(p->via), p->text);
		}
	}
	rr_loadcheck_report_free(r);
	rr_policy_free(pol);
	for (size_t i = 0; i < nimages; i++)
		rr_strbuf_release(&bytes[i]);
	return 0;
}
