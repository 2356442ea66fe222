/*
 * args.c - the option table: one enum value and one getopt_long row per long
 * option. tests/cli/test-options.sh checks that every long option here is in
 * --help and in man/rocm-resolve.1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/strv.h"

/* --timeout: a day at most, so that seconds * 1000 always fits an int */
#define RR_CLI_MAX_TIMEOUT_S 86400
#define RR_STRINGIFY_(x) #x
#define RR_STRINGIFY(x) RR_STRINGIFY_(x)

enum {
	OPT_VENV = 256,
	OPT_FORMAT,
	OPT_POLICY,
	OPT_PROTECT,
	OPT_EXTRA,
	OPT_ALL_EXTRAS,
	OPT_GROUP,
	OPT_NO_INDEX,
	OPT_EXTRA_INDEX_URL,
	OPT_CACHE_DIR,
	OPT_NO_CACHE,
	OPT_OFFLINE,
	OPT_REFRESH,
	OPT_STRICT,
	OPT_LOCK,
	OPT_UV_EXCLUDES,
	OPT_INSTALLER,
	OPT_BACKEND,
	OPT_PRE,
	OPT_TIMEOUT,
	OPT_STACK,
	OPT_WRITE_TESTCASE,
	OPT_CERT,
	OPT_REQUIRE_GPU,
};

static const struct option long_options[] = {
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"venv", required_argument, NULL, OPT_VENV},
	{"stack", required_argument, NULL, OPT_STACK},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"policy", required_argument, NULL, OPT_POLICY},
	{"protect", required_argument, NULL, OPT_PROTECT},
	{"extra", required_argument, NULL, OPT_EXTRA},
	{"all-extras", no_argument, NULL, OPT_ALL_EXTRAS},
	{"group", required_argument, NULL, OPT_GROUP},
	{"no-index", no_argument, NULL, OPT_NO_INDEX},
	{"index-url", required_argument, NULL, 'i'},
	{"extra-index-url", required_argument, NULL, OPT_EXTRA_INDEX_URL},
	{"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
	{"no-cache", no_argument, NULL, OPT_NO_CACHE},
	{"offline", no_argument, NULL, OPT_OFFLINE},
	{"refresh", no_argument, NULL, OPT_REFRESH},
	{"strict", no_argument, NULL, OPT_STRICT},
	{"lock", no_argument, NULL, OPT_LOCK},
	{"uv-excludes", required_argument, NULL, OPT_UV_EXCLUDES},
	{"installer", required_argument, NULL, OPT_INSTALLER},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"pre", no_argument, NULL, OPT_PRE},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"write-testcase", required_argument, NULL, OPT_WRITE_TESTCASE},
	{"cert", required_argument, NULL, OPT_CERT},
	{"require-gpu", no_argument, NULL, OPT_REQUIRE_GPU},
	{NULL, 0, NULL, 0},
};

static const char *const commands[] = {"plan", "check", "inspect", "verify", "install",
					     "restore"};

void rr_cli_usage(FILE *f)
{
	fputs("usage: rocm-resolve [plan] [options] INPUT...\n"
	      "       rocm-resolve check [options] INPUT...\n"
	      "       rocm-resolve inspect [options]\n"
	      "       rocm-resolve verify [options]\n"
	      "       rocm-resolve install [options] INPUT... [-- INSTALLER-ARGS]\n"
	      "       rocm-resolve restore [options]\n"
	      "\n"
	      "Keep the ROCm builds of torch and friends when installing a project's\n"
	      "dependencies. INPUT is a requirements file, a pyproject.toml, a directory\n"
	      "holding one of them, or - for standard input.\n"
	      "\n"
	      "commands:\n"
	      "  plan       print a safe requirements file for uv or pip (the default)\n"
	      "  check      exit 1 if installing INPUT as written would break the ROCm stack\n"
	      "  inspect    show the venv, its ROCm facts and the protected stack\n"
	      "  verify     check RECORD integrity, run a GPU kernel, and let torch compute\n"
	      "  install    snapshot the protected stack, run uv (or pip) with the plan, put\n"
	      "             back what it damaged, then verify\n"
	      "  restore    put the protected stack back from the snapshot install took\n"
	      "\n"
	      "options:\n"
	      "  -h, --help                 show this help and exit\n"
	      "  -V, --version              show the version and exit\n"
	      "  -q, --quiet                only errors on stderr\n"
	      "  -v, --verbose              explain more on stderr\n"
	      "      --venv DIR             target venv (default $VIRTUAL_ENV, $CONDA_PREFIX,\n"
	      "                             /opt/venv, /opt/conda)\n"
	      "      --stack FILE           read the environment from a stack snapshot written\n"
	      "                             by `inspect --format json` (plan, check, inspect)\n"
	      "      --format text|json     output format (default text)\n"
	      "      --policy FILE          extra policy rules (repeatable)\n"
	      "      --protect NAME         protect an installed distribution (repeatable)\n"
	      "      --extra NAME           pyproject: include an optional-dependency group\n"
	      "      --all-extras           pyproject: include every optional-dependency group\n"
	      "      --group NAME           pyproject: include a PEP 735 dependency group\n"
	      "      --no-index             do not query any package index (direct lines only)\n"
	      "  -i, --index-url URL        primary package index (default PyPI)\n"
	      "      --extra-index-url URL  further index, consulted after the primary\n"
	      "      --cert FILE            CA bundle for HTTPS (default $SSL_CERT_FILE; also\n"
	      "                             $SSL_CERT_DIR)\n"
	      "      --cache-dir DIR        HTTP cache (default $XDG_CACHE_HOME/rocm-resolve)\n"
	      "      --no-cache             do not read or write the HTTP cache\n"
	      "      --offline              answer from the cache only\n"
	      "      --refresh              revalidate every cached response\n"
	      "      --strict               exit 1 with no plan when a requirement has no safe version\n"
	      "      --lock                 print the whole closure pinned with hashes\n"
	      "      --uv-excludes FILE     write a uv exclusions file for packages that must\n"
	      "                             never be installed\n"
	      "      --installer uv|pip     installer used by install (default uv, else pip)\n"
	      "      --backend auto|hip|cuda  GPU runtime used by verify (default auto)\n"
	      "      --pre                  allow pre-releases\n"
	      "      --timeout SECONDS      time limit for the resolution (network and CPU)\n"
	      "                             and for each verify stage\n"
	      "      --write-testcase DIR   plan/check: also write the run as a scenario that\n"
	      "                             rr-testcase replays offline (a bug report as a test)\n"
	      "      --require-gpu          install: fail when verify has no GPU to check on\n"
	      "\n"
	      "exit status: 0 ok, 1 the answer is no, 2 bad input or usage, 3 environment or\n"
	      "index problem, 70 internal error. See rocm-resolve(1).\n",
	      f);
}

static void push(char ***v, size_t *n, const char *s)
{
	*v = rr_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = rr_xstrdup(s);
}

/* Levenshtein distance, for "did you mean" (short words only) */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t prev[32], cur[32];

	if (la >= 31 || lb >= 31)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "rocm-resolve: error: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'rocm-resolve --help'.\n");
	return RR_EXIT_USAGE;
}

/*
 * returns -1 to go on, or an exit status (0 after --help/--version); the
 * first positional word names the command when it is one
 */
int rr_cli_parse(struct rr_cli *cli, int argc, char **argv)
{
	int c;
	int split = argc;
	char *end;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	for (int i = split + 1; i < argc; i++)
		push(&cli->passthrough, &cli->npassthrough, argv[i]);
	cli->format = RR_FORMAT_TEXT;
	cli->backend = "auto";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(split, argv, "hVqvi:", long_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			rr_cli_usage(stdout);
			return RR_EXIT_OK;
		case 'V':
			printf("rocm-resolve %s\n", RR_VERSION);
			return RR_EXIT_OK;
		case 'q':
			cli->verbosity = -1;
			break;
		case 'v':
			cli->verbosity++;
			break;
		case OPT_VENV:
			cli->venv = optarg;
			break;
		case OPT_STACK:
			cli->stack = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				cli->format = RR_FORMAT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				cli->format = RR_FORMAT_JSON;
			else
				return usage_error("unknown format '%s' (expected text or json)", optarg);
			break;
		case OPT_POLICY:
			push(&cli->policies, &cli->npolicies, optarg);
			break;
		case OPT_PROTECT:
			push(&cli->protect, &cli->nprotect, optarg);
			break;
		case OPT_EXTRA:
			push(&cli->extras, &cli->nextras, optarg);
			break;
		case OPT_ALL_EXTRAS:
			cli->all_extras = true;
			break;
		case OPT_GROUP:
			push(&cli->groups, &cli->ngroups, optarg);
			break;
		case OPT_NO_INDEX:
			cli->no_index = true;
			break;
		case 'i':
			if (cli->nindex_urls)
				free(cli->index_urls[--cli->nindex_urls]);
			push(&cli->index_urls, &cli->nindex_urls, optarg);
			break;
		case OPT_EXTRA_INDEX_URL:
			push(&cli->extra_index_urls, &cli->nextra_index_urls, optarg);
			break;
		case OPT_CACHE_DIR:
			cli->cache_dir = optarg;
			break;
		case OPT_NO_CACHE:
			cli->no_cache = true;
			break;
		case OPT_OFFLINE:
			cli->offline = true;
			break;
		case OPT_REFRESH:
			cli->refresh = true;
			break;
		case OPT_STRICT:
			cli->strict = true;
			break;
		case OPT_LOCK:
			cli->lock = true;
			break;
		case OPT_UV_EXCLUDES:
			cli->uv_excludes = optarg;
			break;
		case OPT_INSTALLER:
			if (strcmp(optarg, "uv") && strcmp(optarg, "pip"))
				return usage_error("unknown installer '%s' (expected uv or pip)", optarg);
			cli->installer = optarg;
			break;
		case OPT_BACKEND:
			if (strcmp(optarg, "auto") && strcmp(optarg, "hip") && strcmp(optarg, "cuda"))
				return usage_error("unknown backend '%s' (expected auto, hip or cuda)",
						   optarg);
			cli->backend = optarg;
			break;
		case OPT_PRE:
			cli->pre = true;
			break;
		case OPT_WRITE_TESTCASE:
			cli->write_testcase = optarg;
			break;
		case OPT_CERT:
			cli->cert = optarg;
			break;
		case OPT_TIMEOUT:
		{
			/* bounded: 3000000 overflowed the milliseconds, 4294967297 wrapped to 1 s */
			long v;
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || v <= 0 || v > RR_CLI_MAX_TIMEOUT_S)
				return usage_error("--timeout needs a whole number of seconds from 1 "
						   "to " RR_STRINGIFY(RR_CLI_MAX_TIMEOUT_S) ", not '%s'",
						   optarg);
			cli->timeout_s = (int)v;
		}
			break;
		case OPT_REQUIRE_GPU:
			cli->require_gpu = true;
			break;
		case '?':
		default:
			if (optopt && optopt < 256)
				return usage_error("unknown or incomplete option '-%s'",
						   (char[]){(char)optopt, 0});
			return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	for (int i = optind; i < split; i++) {
		if (!cli->command && i == optind) {
			for (size_t k = 0; k < RR_ARRAY_LEN(commands); k++)
				if (strcmp(argv[i], commands[k]) == 0)
					cli->command = commands[k];
			if (cli->command)
				continue;
		}
		push(&cli->inputs, &cli->ninputs, argv[i]);
	}
	if (!cli->command)
		cli->command = "plan";
	if (strcmp(cli->command, "plan") == 0 && cli->ninputs && optind < split &&
	    strcmp(argv[optind], "plan") != 0) {
		/* "chek": a word that is no file but nearly a command is a typo, not an input */
		const char *w = cli->inputs[0];
		struct stat st;
		for (size_t k = 0; k < RR_ARRAY_LEN(commands); k++)
			if (stat(w, &st) != 0 && !strchr(w, '/') && !strchr(w, '.') &&
			    edit_distance(w, commands[k]) <= 2) {
				fprintf(stderr,
					"rocm-resolve: error: unknown command '%s'; did you mean '%s'?\n"
					"Try 'rocm-resolve --help'.\n",
					w, commands[k]);
				return RR_EXIT_USAGE;
			}
	}
	if (cli->npassthrough && strcmp(cli->command, "install"))
		return usage_error("arguments after '--' are only for install (got '%s')",
				   cli->passthrough[0]);
	return -1;
}

void rr_cli_release(struct rr_cli *cli)
{
	rr_strv_free_array(cli->inputs, cli->ninputs);
	rr_strv_free_array(cli->policies, cli->npolicies);
	rr_strv_free_array(cli->protect, cli->nprotect);
	rr_strv_free_array(cli->extras, cli->nextras);
	rr_strv_free_array(cli->groups, cli->ngroups);
	rr_strv_free_array(cli->index_urls, cli->nindex_urls);
	rr_strv_free_array(cli->extra_index_urls, cli->nextra_index_urls);
	rr_strv_free_array(cli->passthrough, cli->npassthrough);
}
