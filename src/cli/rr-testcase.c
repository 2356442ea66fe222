/*
 * rr-testcase - run resolver scenarios (.t files), libsolv testsolv style: a thin
 * main over the library's reader (include/rocm-resolve/testcase.h).
 *
 *   rr-testcase [-v] FILE|DIR...   run; prints PASS|FAIL|SKIP <file>, then a count
 *   rr-testcase -r FILE            print the actual result of every question
 *   rr-testcase --options          the run options a scenario's `option` line takes
 *   rr-testcase -h | --help | --version
 *
 * The format is described in man/rocm-resolve-scenario.5. Exit status: 0
 * when everything passed, 1 when something failed, 2 for a usage error or a
 * file that cannot be read, 77 when all were skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/flow.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/testcase.h"
#include "rocm-resolve/util.h"

static void usage(FILE *f)
{
	fputs("usage: rr-testcase [-v] FILE|DIR...   run scenarios (.t files)\n"
	      "       rr-testcase -r FILE            print the actual results, as result blocks\n"
	      "       rr-testcase --options          the run options an `option` line takes\n"
	      "Replays a bug report `rocm-resolve --write-testcase DIR` wrote (DIR/case.t).\n"
	      "See rocm-resolve-scenario(5). Exit status: 0 all passed, 1 a failure, 2 usage,\n"
	      "77 all skipped.\n",
	      f);
}

/* the run's option table, as rocm-resolve --write-testcase carries each option */
static void print_options(void)
{
	static const char *const kinds[] = {"flag", "value", "list", "seconds"};
	static const char *const replays[] = {"as-given", "file", "found", "none"};
	size_t n;
	const struct rr_run_option *t = rr_run_options(&n);

	for (size_t i = 0; i < n; i++)
		printf("%s %s %s %s%s%s\n", t[i].word, kinds[t[i].kind],
		       t[i].resolves ? "resolves" : "fetch-only", replays[t[i].replay],
		       t[i].alias ? " " : "", t[i].alias ? t[i].alias : "");
}

int main(int argc, char **argv)
{
	bool print = false;
	bool verbose = false;
	int passed = 0;
	int failed = 0;
	int skipped = 0;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct rr_strv files = RR_STRV_INIT;
		DIR *d;
		if (!strcmp(argv[i], "-r")) {
			print = true;
			continue;
		}
		if (!strcmp(argv[i], "-v")) {
			verbose = true;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--options")) {
			print_options();
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("rr-testcase %s\n", RR_VERSION);
			return 0;
		}
		if (argv[i][0] == '-') {
			fprintf(stderr, "rr-testcase: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
		d = opendir(argv[i]);
		if (d) {
			struct dirent *e;
			while ((e = readdir(d)))
				if (rr_str_endswith(e->d_name, ".t"))
					rr_strv_take(&files,
						     rr_xasprintf("%s/%s", argv[i], e->d_name));
			closedir(d);
			rr_strv_sort_unique(&files);
		} else if (errno == ENOTDIR) {
			rr_strv_push(&files, argv[i]);
		} else {
			fprintf(stderr, "rr-testcase: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		for (size_t k = 0; k < files.n; k++) {
			struct rr_testcase_report r;
			rr_testcase_run(files.v[k], print ? RR_TESTCASE_PRINT : 0, &r);
			if (r.status == RR_TESTCASE_SKIP) {
				printf("SKIP %s\n", files.v[k]);
				skipped++;
			} else if (print && r.status == RR_TESTCASE_PASS) {
				fputs(r.text, stdout);
				passed++;
			} else {
				printf("%s %s\n", r.status == RR_TESTCASE_PASS ? "PASS" : "FAIL",
				       files.v[k]);
				if (r.status == RR_TESTCASE_FAIL || verbose)
					fputs(r.text, stdout);
				if (r.status == RR_TESTCASE_FAIL)
					failed++;
				else
					passed++;
			}
			rr_testcase_report_release(&r);
		}
		rr_strv_release(&files);
	}
	if (!print)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	if (failed)
		return 1;
	return passed == 0 && skipped > 0 ? 77 : 0;
}
