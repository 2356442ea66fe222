/*
 * args.c - the command table and the option table, the one place that says
 * which commands exist, which options each takes, and what --help prints.
 *
 * Options are matched exactly, as uv and pip do (--index-ur is an error, not
 * --index-url), and an option a command does not take is a usage error
 * (`verify --lock`). tests/cli/options-test.py checks that every command's
 * --help and the man page list the same options.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"

/* --timeout: a day at most, so that seconds * 1000 always fits an int */
#define RR_CLI_MAX_TIMEOUT_S 86400
#define RR_STRINGIFY_(x) #x
#define RR_STRINGIFY(x) RR_STRINGIFY_(x)

/* ---------------------------------------------------------------- the command table */

enum {
	C_PLAN = 1 << 0,
	C_CHECK = 1 << 1,
	C_INSPECT = 1 << 2,
	C_VERIFY = 1 << 3,
	C_INSTALL = 1 << 4,
	C_RESTORE = 1 << 5,
	C_HELP = 1 << 6,
	C_PROJECT = 1 << 7,
	C_ALL = C_PLAN | C_CHECK | C_INSPECT | C_VERIFY | C_INSTALL | C_RESTORE | C_HELP | C_PROJECT,
	/* the commands that read INPUTs, resolve and plan */
	C_RESOLVE = C_PLAN | C_CHECK | C_INSTALL,
	/* the options of the environment, the indexes and the cache, which project takes too */
	C_RESOLVING = C_RESOLVE | C_PROJECT,
};

static int cmd_help(struct rr_cli *cli);

/* the table is laid out as the help reads, one command a block */
/* clang-format off */
static const struct rr_cli_command commands[] = {
	{"plan", C_PLAN, RR_CMD_INPUTS | RR_CMD_PLAN_STDOUT, cmd_plan, "[options] INPUT...",
	 "print a safe requirements file for uv or pip (the default)",
	 "Print a requirements file that installs INPUT while the installed ROCm\n"
	 "builds stay: every line kept, pinned or stripped with its reason, every\n"
	 "dependency the stack holds back pinned. Standard output gets the whole plan\n"
	 "or one line every installer rejects.\n"},
	{"check", C_CHECK, RR_CMD_INPUTS | RR_CMD_OFFLINE_FALLBACK, cmd_check, "[options] INPUT...",
	 "exit 1 if installing INPUT as written would break the ROCm stack",
	 "Exit 0 when installing INPUT as written leaves the ROCm stack intact, 1 when\n"
	 "it would not, with the reasons on stderr. The pre-commit hook runs this.\n"},
	{"inspect", C_INSPECT, 0, cmd_inspect, "[options]",
	 "show the venv, its ROCm facts and the protected stack",
	 "Show the venv, its ROCm facts and the protected stack. --format json writes\n"
	 "the stack file that --stack reads back.\n"},
	{"verify", C_VERIFY, RR_CMD_LIVE_ENV, cmd_verify, "[options]",
	 "check RECORD integrity, run a GPU kernel, let torch compute, and check\n"
	 "that every native extension will load (no GPU needed)",
	 "Check the protected stack's RECORD hashes and module clashes, run a kernel\n"
	 "on every visible GPU, let torch compute on the device, and check, as the\n"
	 "dynamic loader would, that every native extension in the venv will load\n"
	 "(no GPU needed; exit 1 when one will not).\n"},
	{"install", C_INSTALL, RR_CMD_INPUTS | RR_CMD_LIVE_ENV | RR_CMD_RUNS_INSTALLER,
	 cmd_install, "[options] INPUT... [-- INSTALLER-ARGS]",
	 "snapshot the protected stack, run uv (or pip) with the plan, put\n"
	 "back what it damaged, then verify",
	 "Plan INPUT, snapshot the protected stack, run uv (or pip) with the plan, put\n"
	 "back what it damaged, then verify. Arguments after -- go to the installer;\n"
	 "`-- --dry-run` changes nothing and keeps nothing. The snapshot is kept in\n"
	 "$XDG_STATE_HOME/rocm-resolve (~/.local/state/rocm-resolve), not the cache.\n"},
	{"restore", C_RESTORE, RR_CMD_LIVE_ENV, cmd_restore, "[options]",
	 "put the protected stack back from the snapshot install took",
	 "Put the protected stack back from the snapshot install took (its store is\n"
	 "checked first: a tampered one is refused, exit 3, with nothing changed).\n"},
	{"project", C_PROJECT, RR_CMD_INPUTS, cmd_project, "[options] [DIR...]",
	 "the [tool.uv] settings that keep uv lock/sync/add off the stack,\n"
	 "for DIR/pyproject.toml (default .): printed, --write or --check",
	 "Resolve the uv project in DIR (default .) as uv lock locks it, with the\n"
	 "stack fixed, and print the [tool.uv] exclude-dependencies and\n"
	 "constraint-dependencies that keep uv lock, uv sync and uv add off the stack,\n"
	 "each with its cause. --write puts them in DIR/pyproject.toml, changing no\n"
	 "other byte; --check exits 1 when they are missing or stale; --bridge sets\n"
	 "up the project venv's .pth bridge to the protected environment.\n"},
	{"help", C_HELP, 0, cmd_help, "[COMMAND]", "show the options of COMMAND (this help without one)",
	 "Show the options of COMMAND, or the overview without one.\n"},
};
/* clang-format on */

/* ---------------------------------------------------------------- the option table */

enum {
	O_HELP,
	O_VERSION,
	O_QUIET,
	O_VERBOSE,
	O_COLOR,
	O_NO_COLOR,
	O_VENV,
	O_PYTHON,
	O_STACK,
	O_FORMAT,
	O_POLICY,
	O_PROTECT,
	O_REQUIREMENT,
	O_CONSTRAINT,
	O_EDITABLE,
	O_EXTRA,
	O_ALL_EXTRAS,
	O_GROUP,
	O_ALL_GROUPS,
	O_INDEX,
	O_DEFAULT_INDEX,
	O_INDEX_URL,
	O_EXTRA_INDEX_URL,
	O_NO_INDEX,
	O_CERT,
	O_CACHE_DIR,
	O_NO_CACHE,
	O_OFFLINE,
	O_REFRESH,
	O_PRE,
	O_TIMEOUT,
	O_STRICT,
	O_LOCK,
	O_UV_EXCLUDES,
	O_WRITE_TESTCASE,
	O_INSTALLER,
	O_BACKEND,
	O_REQUIRE_GPU,
	O_WRITE,
	O_CHECK,
	O_BRIDGE,
};

struct opt_def {
	int id;
	char short_name; /* 0: none */
	const char *name;
	const char *arg; /* NULL: a flag */
	unsigned commands;
	const char *help; /* lines after the first are continuation lines */
};

/* a table laid out by hand: one option per entry, its help lines under it */
/* clang-format off */
static const struct opt_def options[] = {
	{O_HELP, 'h', "help", NULL, C_ALL, "show this help and exit"},
	{O_VERSION, 'V', "version", NULL, C_ALL, "show the version and exit"},
	{O_QUIET, 'q', "quiet", NULL, C_ALL, "only errors on stderr"},
	{O_VERBOSE, 'v', "verbose", NULL, C_ALL,
	 "explain more on stderr (-vv: every transfer)"},
	{O_COLOR, 0, "color", "auto|always|never", C_ALL,
	 "colour on stderr (default auto: a terminal,\n"
	 "NO_COLOR, CLICOLOR_FORCE)"},
	{O_NO_COLOR, 0, "no-color", NULL, C_ALL, "the same as --color never"},
	{O_VENV, 0, "venv", "DIR", C_ALL & ~C_HELP,
	 "target venv (default $VIRTUAL_ENV, $CONDA_PREFIX,\n"
	 "/opt/venv, /opt/conda)"},
	{O_PYTHON, 'p', "python", "PYTHON", C_ALL & ~C_HELP,
	 "the target venv's interpreter (bin/python) or\n"
	 "directory, as uv's --python (also $UV_PYTHON)"},
	{O_STACK, 0, "stack", "FILE", C_PLAN | C_CHECK | C_INSPECT | C_PROJECT,
	 "read the environment from a stack file written\n"
	 "by `inspect --format json`"},
	{O_FORMAT, 0, "format", "text|json|pylock", C_PLAN | C_CHECK | C_INSPECT | C_VERIFY,
	 "output format (default text); pylock: plan's\n"
	 "closure locked as a PEP 751 pylock.toml"},
	{O_POLICY, 0, "policy", "FILE", C_RESOLVING | C_INSPECT | C_VERIFY,
	 "extra policy rules (repeatable)"},
	{O_PROTECT, 0, "protect", "NAME", C_RESOLVING | C_INSPECT | C_VERIFY,
	 "protect an installed distribution (repeatable)"},
	{O_REQUIREMENT, 'r', "requirement", "FILE", C_RESOLVE,
	 "an INPUT, as uv's and pip's -r (repeatable)"},
	{O_CONSTRAINT, 'c', "constraint", "FILE", C_RESOLVE,
	 "a constraints file, as uv's and pip's -c\n"
	 "(repeatable)"},
	{O_EDITABLE, 'e', "editable", "PATH", C_RESOLVE,
	 "a local project, as uv's and pip's -e: read as\n"
	 "a requirements file's -e line (repeatable)"},
	{O_EXTRA, 0, "extra", "NAME", C_RESOLVE,
	 "pyproject: include an optional-dependency group"},
	{O_ALL_EXTRAS, 0, "all-extras", NULL, C_RESOLVE,
	 "pyproject: include every optional-dependency group"},
	{O_GROUP, 0, "group", "NAME", C_RESOLVE, "pyproject: include a PEP 735 dependency group"},
	{O_ALL_GROUPS, 0, "all-groups", NULL, C_RESOLVE, "pyproject: include every dependency group"},
	{O_INDEX, 0, "index", "URL", C_RESOLVING,
	 "an index asked before the default one, as uv's\n"
	 "--index (repeatable; earlier ones first)"},
	{O_DEFAULT_INDEX, 0, "default-index", "URL", C_RESOLVING,
	 "the default index, asked last (default: the\n"
	 "installer's configured one, else PyPI)"},
	{O_INDEX_URL, 'i', "index-url", "URL", C_RESOLVING, "the same as --default-index"},
	{O_EXTRA_INDEX_URL, 0, "extra-index-url", "URL", C_RESOLVING,
	 "the same as --index: asked before the default"},
	{O_NO_INDEX, 0, "no-index", NULL, C_RESOLVING,
	 "do not query any package index (direct lines only)"},
	{O_CERT, 0, "cert", "FILE", C_RESOLVING,
	 "CA bundle for HTTPS (default $SSL_CERT_FILE; also\n"
	 "$SSL_CERT_DIR)"},
	{O_CACHE_DIR, 0, "cache-dir", "DIR", C_RESOLVING | C_RESTORE,
	 "HTTP cache (default $XDG_CACHE_HOME/rocm-resolve)"},
	{O_NO_CACHE, 0, "no-cache", NULL, C_RESOLVING, "do not read or write the HTTP cache"},
	{O_OFFLINE, 0, "offline", NULL, C_RESOLVING, "answer from the cache only (also $UV_OFFLINE)"},
	{O_REFRESH, 0, "refresh", NULL, C_RESOLVING, "revalidate every cached response"},
	{O_PRE, 0, "pre", NULL, C_RESOLVING, "allow pre-releases"},
	{O_TIMEOUT, 0, "timeout", "SECONDS", C_RESOLVING | C_VERIFY,
	 "time limit for the resolution (network and CPU)\n"
	 "and for each verify stage"},
	{O_STRICT, 0, "strict", NULL, C_PLAN,
	 "exit 1 with no plan when a requirement has no\n"
	 "safe version"},
	{O_LOCK, 0, "lock", NULL, C_PLAN, "print the whole closure pinned with hashes"},
	{O_UV_EXCLUDES, 0, "uv-excludes", "FILE", C_PLAN,
	 "write a uv exclusions file for packages that must\n"
	 "never be installed"},
	{O_WRITE_TESTCASE, 0, "write-testcase", "DIR", C_PLAN | C_CHECK,
	 "also write the run as a scenario that rr-testcase\n"
	 "replays offline (a bug report as a test)"},
	{O_INSTALLER, 0, "installer", "uv|pip", C_RESOLVE,
	 "the installer the plan is for, whose configuration\n"
	 "is read (default uv when on PATH, else pip)"},
	{O_BACKEND, 0, "backend", "auto|hip|cuda", C_VERIFY | C_INSTALL,
	 "GPU runtime used by verify (default auto)"},
	{O_REQUIRE_GPU, 0, "require-gpu", NULL, C_INSTALL,
	 "fail when verify has no GPU to check on"},
	{O_WRITE, 0, "write", NULL, C_PROJECT,
	 "edit DIR/pyproject.toml in place (only the\n"
	 "[tool.uv] keys it owns)"},
	{O_CHECK, 0, "check", NULL, C_PROJECT,
	 "exit 1 when those settings are missing or stale\n"
	 "(pre-commit)"},
	{O_BRIDGE, 0, "bridge", NULL, C_PROJECT,
	 "set up or repair the .pth bridge of DIR/.venv to\n"
	 "the protected environment"},
};
/* clang-format on */

/* ---------------------------------------------------------------- help */

static void print_option(FILE *f, const struct opt_def *o)
{
	char left[64];
	const char *h = o->help;
	int n;

	n = snprintf(left, sizeof(left), "%c%c%c %s--%s%s%s", o->short_name ? '-' : ' ',
		     o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ',
		     "", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	/* two spaces, then "-x, --name ARG" padded to 27 columns; long ones get a line */
	if (n > 26)
		fprintf(f, "  %s\n%29s", left, "");
	else
		fprintf(f, "  %-27s", left);
	while (*h) {
		size_t len = strcspn(h, "\n");
		fprintf(f, "%.*s\n", (int)len, h);
		h += len;
		if (*h) {
			h++;
			fprintf(f, "%29s", "");
		}
	}
}

static void print_overview(FILE *f)
{
	fputs("usage: rocm-resolve [plan] [options] INPUT...\n", f);
	for (size_t i = 1; i < RR_ARRAY_LEN(commands); i++)
		fprintf(f, "       rocm-resolve %s %s\n", commands[i].name, commands[i].synopsis);
	fputs("\n"
	      "Keep the ROCm builds of torch and friends when installing a project's\n"
	      "dependencies. INPUT is a requirements file, a pyproject.toml, a directory\n"
	      "holding one of them, a lock file (uv.lock, pylock.toml), or - for standard\n"
	      "input; -e PATH names a local project, as in uv and pip.\n"
	      "\n"
	      "commands:\n",
	      f);
	for (size_t i = 0; i < RR_ARRAY_LEN(commands); i++) {
		const char *s = commands[i].summary;
		fprintf(f, "  %-11s", commands[i].name);
		while (*s) {
			size_t len = strcspn(s, "\n");
			fprintf(f, "%.*s\n", (int)len, s);
			s += len;
			if (*s) {
				s++;
				fprintf(f, "%13s", "");
			}
		}
	}
	fputs("\noptions of every command:\n", f);
	for (size_t i = 0; i < RR_ARRAY_LEN(options); i++)
		if ((options[i].commands & C_ALL) == C_ALL)
			print_option(f, &options[i]);
	fputs("\n"
	      "Each command's own options: rocm-resolve help COMMAND (or COMMAND --help).\n"
	      "\n"
	      "exit status: 0 ok, 1 the answer is no, 2 bad input or usage, 3 environment or\n"
	      "index problem, 70 internal error. See rocm-resolve(1).\n",
	      f);
}

static void print_command_help(FILE *f, const struct rr_cli_command *c)
{
	if (c->bit == C_PLAN)
		fprintf(f, "usage: rocm-resolve [plan] %s\n\n%s", c->synopsis, c->description);
	else
		fprintf(f, "usage: rocm-resolve %s %s\n\n%s", c->name, c->synopsis, c->description);
	fputs("\noptions:\n", f);
	for (size_t i = 0; i < RR_ARRAY_LEN(options); i++)
		if (options[i].commands & c->bit)
			print_option(f, &options[i]);
	fputs("\nexit status: 0 ok, 1 the answer is no, 2 bad input or usage, 3 environment or\n"
	      "index problem, 70 internal error. See rocm-resolve(1).\n",
	      f);
}

static const struct rr_cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* "plan, check, ..., help": the commands, for messages */
static char *command_names(void)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	for (size_t k = 0; k < RR_ARRAY_LEN(commands); k++)
		rr_strbuf_addf(&sb, "%s%s", k ? ", " : "", commands[k].name);
	return rr_strbuf_detach(&sb, NULL);
}

static int usage_error(const char *fmt, const char *arg);

/* help [COMMAND] */
static int cmd_help(struct rr_cli *cli)
{
	const struct rr_cli_command *c;

	if (!cli->ninputs) {
		print_overview(stdout);
		return RR_EXIT_OK;
	}
	if (cli->ninputs > 1)
		return usage_error("help takes one COMMAND (got '%s' too)", cli->inputs[1]);
	c = find_command(cli->inputs[0]);
	if (!c) {
		RR_AUTOFREE char *names = command_names();
		RR_AUTOFREE char *msg = rr_xasprintf("help: no command '%s' (%s)", cli->inputs[0],
						     names);
		return usage_error("%s", msg);
	}
	print_command_help(stdout, c);
	return RR_EXIT_OK;
}

/* ---------------------------------------------------------------- parsing */

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
	RR_AUTOFREE char *msg = rr_xasprintf(fmt, arg);

	rr_cli_error(RR_E_USAGE, "%s", msg);
	fprintf(stderr, "Try 'rocm-resolve --help'.\n");
	return RR_EXIT_USAGE;
}

/* one option as it was given, kept until the command is known */
struct given {
	const struct opt_def *def;
	char *spelling; /* "--index-url" or "-i", for messages */
	const char *value;
};

/* "--index-ur": the option it is a prefix of, or the nearest name, for the message */
static const struct opt_def *nearest_option(const char *name)
{
	const struct opt_def *best = NULL;
	size_t best_d = 3;
	size_t n = strlen(name);

	for (size_t i = 0; i < RR_ARRAY_LEN(options); i++)
		if (n >= 3 && strncmp(options[i].name, name, n) == 0)
			return &options[i];
	for (size_t i = 0; i < RR_ARRAY_LEN(options); i++) {
		size_t d = edit_distance(name, options[i].name);
		if (d < best_d) {
			best_d = d;
			best = &options[i];
		}
	}
	return best;
}

static int unknown_option(const char *spelling, const char *name)
{
	const struct opt_def *near = name ? nearest_option(name) : NULL;

	if (near)
		rr_cli_error(RR_E_USAGE, "unknown option '%s'; did you mean '--%s'?", spelling,
			     near->name);
	else
		rr_cli_error(RR_E_USAGE, "unknown option '%s'", spelling);
	fprintf(stderr, "Try 'rocm-resolve --help'.\n");
	return RR_EXIT_USAGE;
}

static const struct opt_def *find_long(const char *name, size_t n)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(options); i++)
		if (strlen(options[i].name) == n && strncmp(options[i].name, name, n) == 0)
			return &options[i];
	return NULL;
}

static const struct opt_def *find_short(char c)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(options); i++)
		if (options[i].short_name == c)
			return &options[i];
	return NULL;
}

static void add_given(struct given **v, size_t *n, size_t *cap, const struct opt_def *def,
		      char *spelling, const char *value)
{
	struct given *g = &RR_PUSH(*v, *n, *cap);

	g->def = def;
	g->spelling = spelling;
	g->value = value;
}

/*
 * argv[1..split) into options (exactly matched; --name=value, --name value,
 * -x value, -xVALUE, -qv) and positional words; RR_CLI_GO_ON, else the status
 */
static int scan(int split, char **argv, struct given **gv, size_t *ng, char ***words,
		size_t *nwords)
{
	size_t cap = 0;

	for (int i = 1; i < split; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			const struct opt_def *d = find_long(name, n);
			RR_AUTOFREE char *bare = rr_xstrndup(name, n);
			if (!d)
				return unknown_option(a, bare);
			if (!d->arg && eq)
				return usage_error("option '--%s' takes no value", d->name);
			if (d->arg && !eq && i + 1 >= split)
				return usage_error("option '--%s' needs a value", d->name);
			add_given(gv, ng, &cap, d, rr_xasprintf("--%s", d->name),
				  d->arg ? (eq ? eq + 1 : argv[++i]) : NULL);
		} else if (a[0] == '-' && a[1]) {
			for (const char *p = a + 1; *p; p++) {
				const struct opt_def *d = find_short(*p);
				if (!d) {
					char sp[3] = {'-', *p, 0};
					return unknown_option(sp, NULL);
				}
				if (!d->arg) {
					add_given(gv, ng, &cap, d, rr_xasprintf("-%c", *p), NULL);
					continue;
				}
				if (!p[1] && i + 1 >= split) {
					char sp[3] = {'-', *p, 0};
					return usage_error("option '%s' needs a value", sp);
				}
				add_given(gv, ng, &cap, d, rr_xasprintf("-%c", *p),
					  p[1] ? p + 1 : argv[++i]);
				break;
			}
		} else {
			push(words, nwords, a);
		}
	}
	return RR_CLI_GO_ON;
}

static int apply(struct rr_cli *cli, const struct given *g)
{
	const char *v = g->value;
	char *end;
	RR_AUTOFREE char *word = NULL;

	switch (g->def->id) {
	case O_HELP:
	case O_VERSION:
		return RR_CLI_GO_ON; /* handled before */
	case O_QUIET:
		cli->verbosity = -1;
		return RR_CLI_GO_ON;
	case O_VERBOSE:
		cli->verbosity++;
		return RR_CLI_GO_ON;
	case O_COLOR:
		if (strcmp(v, "auto") && strcmp(v, "always") && strcmp(v, "never"))
			return usage_error("--color takes auto, always or never, not '%s'", v);
		cli->color = v;
		return RR_CLI_GO_ON;
	case O_NO_COLOR:
		cli->color = "never";
		return RR_CLI_GO_ON;
	case O_PYTHON:
		cli->python = v;
		return RR_CLI_GO_ON;
	case O_FORMAT:
		if (strcmp(v, "text") == 0)
			cli->format = RR_FORMAT_TEXT;
		else if (strcmp(v, "json") == 0)
			cli->format = RR_FORMAT_JSON;
		else if (strcmp(v, "pylock") == 0)
			cli->format = RR_FORMAT_PYLOCK;
		else
			return usage_error("unknown format '%s' (expected text, json or pylock)", v);
		return RR_CLI_GO_ON;
	case O_REQUIREMENT:
		push(&cli->inputs, &cli->ninputs, v);
		return RR_CLI_GO_ON;
	case O_INDEX:
		/* uv asks every --index before any --extra-index-url: put first at the end */
		cli->indexes = rr_xrealloc(cli->indexes, (cli->nindexes + 1) * sizeof(char *));
		cli->indexes[cli->nindexes++] = v;
		return RR_CLI_GO_ON;
	case O_STRICT:
		cli->strict = true;
		return RR_CLI_GO_ON;
	case O_LOCK:
		cli->lock = true;
		return RR_CLI_GO_ON;
	case O_UV_EXCLUDES:
		cli->uv_excludes = v;
		return RR_CLI_GO_ON;
	case O_INSTALLER:
		if (strcmp(v, "uv") && strcmp(v, "pip"))
			return usage_error("unknown installer '%s' (expected uv or pip)", v);
		break;
	case O_BACKEND:
		if (strcmp(v, "auto") && strcmp(v, "hip") && strcmp(v, "cuda"))
			return usage_error("unknown backend '%s' (expected auto, hip or cuda)", v);
		cli->backend = v;
		return RR_CLI_GO_ON;
	case O_WRITE_TESTCASE:
		cli->write_testcase = v;
		return RR_CLI_GO_ON;
	case O_TIMEOUT: {
		/* bounded: 3000000 overflowed the milliseconds, 4294967297 wrapped to 1 s */
		long t;
		errno = 0;
		t = strtol(v, &end, 10);
		if (end == v || *end || errno || t <= 0 || t > RR_CLI_MAX_TIMEOUT_S)
			return usage_error("--timeout needs a whole number of seconds from 1 "
					   "to " RR_STRINGIFY(RR_CLI_MAX_TIMEOUT_S) ", not '%s'",
					   v);
		break;
	}
	case O_REQUIRE_GPU:
		cli->require_gpu = true;
		return RR_CLI_GO_ON;
	case O_WRITE:
		cli->write = true;
		return RR_CLI_GO_ON;
	case O_CHECK:
		cli->check_only = true;
		return RR_CLI_GO_ON;
	case O_BRIDGE:
		cli->bridge = true;
		return RR_CLI_GO_ON;
	default:
		break;
	}
	/* the run's own options: stored as the one table says */
	word = rr_xasprintf("--%s", g->def->name);
	const struct rr_run_option *d = rr_run_option_find(word);
	if (!d)
		return RR_EXIT_INTERNAL;
	rr_run_option_set(&cli->run, d, v);
	return RR_CLI_GO_ON;
}

/*
 * the first word when it is no command: "chek", no file but nearly a command, is a
 * typo; "frobnicate", no file and a bare word, is neither; a path is an INPUT
 */
static int typo_check(const char *w)
{
	struct stat st;
	RR_AUTOFREE char *names = NULL;

	if (stat(w, &st) == 0 || errno != ENOENT || strchr(w, '/') || strchr(w, '.') ||
	    strcmp(w, "-") == 0)
		return RR_CLI_GO_ON;
	for (size_t k = 0; k < RR_ARRAY_LEN(commands); k++)
		if (edit_distance(w, commands[k].name) <= 2) {
			rr_cli_error(RR_E_USAGE, "unknown command '%s'; did you mean '%s'?", w,
				     commands[k].name);
			fprintf(stderr, "Try 'rocm-resolve --help'.\n");
			return RR_EXIT_USAGE;
		}
	names = command_names();
	rr_cli_error(RR_E_USAGE,
		     "'%s' is no command (%s) and no file: an INPUT is a requirements "
		     "file, a pyproject.toml, a directory, a lock file or -",
		     w, names);
	fprintf(stderr, "Try 'rocm-resolve --help'.\n");
	return RR_EXIT_USAGE;
}

/* environment variables that mean what uv's options of the same meaning do; returns
 * where cli->python came from */
static const char *apply_env(struct rr_cli *cli)
{
	const char *py = getenv("UV_PYTHON");

	/* UV_OFFLINE is read with the installer's configuration (rr_config_load) */
	/* UV_PYTHON=3.12 asks uv to find an interpreter: only a path names a venv */
	if (py && strchr(py, '/') && !cli->run.venv && !cli->python) {
		cli->python = py;
		return "UV_PYTHON";
	}
	return "--python";
}

/*
 * --python PATH, as uv takes it: a venv's interpreter (DIR/bin/python, not
 * followed through its symlink: that is the base interpreter) or the venv's
 * directory; a version request (3.12) names no venv
 */
static int python_venv(struct rr_cli *cli, const char *origin)
{
	const char *py = cli->python;
	struct stat st;
	RR_AUTOFREE char *dir = NULL;
	char *slash;

	if (!strchr(py, '/')) {
		return rr_cli_error(
		    RR_E_USAGE,
		    "%s '%s': give the venv's interpreter or directory as a path "
		    "(/opt/venv/bin/python); a version or a name finds no venv here",
		    origin, py);
	}
	if (stat(py, &st) != 0) {
		return rr_cli_error(RR_E_USAGE, "%s '%s': %s", origin, py, strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		cli->python_venv = rr_xstrdup(py);
	} else {
		dir = rr_xstrdup(py);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			strcpy(dir, ".");
		slash = strrchr(dir, '/');
		if (strcmp(slash ? slash + 1 : dir, "bin") != 0) {
			return rr_cli_error(
			    RR_E_USAGE,
			    "%s '%s' is not in a venv's bin/ directory; name the venv "
			    "with --venv DIR",
			    origin, py);
		}
		if (slash == dir)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			strcpy(dir, ".");
		cli->python_venv = RR_STEAL(dir);
	}
	cli->run.venv = cli->python_venv;
	return RR_CLI_GO_ON;
}

/*
 * returns RR_CLI_GO_ON, or an exit status (0 after --help/--version); the
 * first positional word names the command when it is one
 */
int rr_cli_parse(struct rr_cli *cli, int argc, char **argv)
{
	int split = argc;
	struct given *gv = NULL;
	size_t ng = 0;
	char **words = NULL;
	size_t nwords = 0;
	size_t first_input = 0;
	const struct rr_cli_command *cmd = NULL;
	int status;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	cli->format = RR_FORMAT_TEXT;
	cli->backend = "auto";
	if (argc == 1) {
		/* a bare `rocm-resolve`: what it takes, not one line about a missing INPUT */
		cli->cmd = &commands[0];
		cli->command = commands[0].name;
		print_overview(stderr);
		return RR_EXIT_USAGE;
	}
	status = scan(split, argv, &gv, &ng, &words, &nwords);
	if (nwords && (cmd = find_command(words[0])))
		first_input = 1;
	else if (status == RR_CLI_GO_ON)
		cmd = &commands[0];
	/* a bad option before the command word leaves cmd NULL: plan is assumed */
	cli->command = cmd ? cmd->name : NULL;
	cli->cmd = cmd;
	if (status != RR_CLI_GO_ON)
		goto out;
	/* every value is checked before --version or --help acts: `--color nevr -V` is an
	 * error, as a script that runs it to test its options needs */
	for (size_t i = 0; i < ng && status == RR_CLI_GO_ON; i++)
		status = apply(cli, &gv[i]);
	if (status != RR_CLI_GO_ON)
		goto out;
	for (size_t i = 0; i < ng; i++)
		if (gv[i].def->id == O_VERSION) {
			printf("rocm-resolve %s\n", RR_VERSION);
			status = RR_EXIT_OK;
			goto out;
		}
	for (size_t i = 0; i < ng; i++)
		if (gv[i].def->id == O_HELP) {
			/* plain --help is the overview; `check --help` is check's */
			if (first_input)
				print_command_help(stdout, cmd);
			else
				print_overview(stdout);
			status = RR_EXIT_OK;
			goto out;
		}
	if (!first_input && nwords && (status = typo_check(words[0])) != RR_CLI_GO_ON)
		goto out;
	for (size_t i = 0; i < ng; i++)
		if (!(gv[i].def->commands & cmd->bit)) {
			status = rr_cli_error(RR_E_USAGE,
					      "%s takes no option '%s' (its options: rocm-resolve "
					      "help %s)",
					      cmd->name, gv[i].spelling, cmd->name);
			goto out;
		}
	for (size_t i = first_input; i < nwords; i++)
		push(&cli->inputs, &cli->ninputs, words[i]);
	/* uv asks every --index before any --extra-index-url, in whatever order they came */
	if (cli->nindexes) {
		for (size_t i = 0; i < cli->run.nextra_index_urls; i++) {
			cli->indexes = rr_xrealloc(cli->indexes,
						   (cli->nindexes + 1) * sizeof(char *));
			cli->indexes[cli->nindexes++] = cli->run.extra_index_urls[i];
		}
		free((void *)cli->run.extra_index_urls);
		cli->run.extra_index_urls = cli->indexes;
		cli->run.nextra_index_urls = cli->nindexes;
		cli->indexes = NULL;
		cli->nindexes = 0;
	}
	if (cli->write && cli->check_only) {
		status = usage_error("%s", "project: --write and --check exclude each other");
		goto out;
	}
	if (cli->format == RR_FORMAT_PYLOCK && (cmd->bit != C_PLAN || cli->run.no_index)) {
		status = usage_error("%s", "--format pylock is a lock of the resolution: plan "
					   "writes it (it implies --lock), from an index (not "
					   "--no-index)");
		goto out;
	}
	/* a pylock.toml is a lock: --format pylock alone asks for it */
	if (cli->format == RR_FORMAT_PYLOCK)
		cli->lock = true;
	if (cli->run.venv && cli->python) {
		status = usage_error("--venv and --python both name the environment (%s); give one",
				     cli->python);
		goto out;
	}
	for (int i = split + 1; i < argc; i++)
		push(&cli->passthrough, &cli->npassthrough, argv[i]);
	if (split < argc && cmd->bit != C_INSTALL) {
		status = usage_error("arguments after '--' are only for install (got '%s')",
				     split + 1 < argc ? argv[split + 1] : "--");
		goto out;
	}
	if (cli->ninputs && !(cmd->flags & RR_CMD_INPUTS) && cmd->bit != C_HELP) {
		status = rr_cli_error(RR_E_USAGE, "%s takes no INPUT (got '%s')", cmd->name,
				      cli->inputs[0]);
		goto out;
	}
	{
		const char *origin = apply_env(cli);
		if (cli->python)
			status = python_venv(cli, origin);
	}
out:
	for (size_t i = 0; i < ng; i++)
		free(gv[i].spelling);
	free(gv);
	for (size_t i = 0; i < nwords; i++)
		free(words[i]);
	free(words);
	return status;
}

void rr_cli_release(struct rr_cli *cli)
{
	free(cli->python_venv);
	rr_strv_free_array(cli->inputs, cli->ninputs);
	rr_run_options_release(&cli->run);
	free(cli->indexes);
	rr_strv_free_array(cli->passthrough, cli->npassthrough);
}
