/*
 * cli.h - the rocm-resolve executable: shared state of one invocation.
 * The CLI parses arguments, calls librr, prints, and maps errors to exit
 * codes; it holds no packaging logic of its own.
 */
#ifndef RR_CLI_H
#define RR_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/flow.h"

/* exit status, documented in rocm-resolve(1) EXIT STATUS */
enum {
	RR_EXIT_OK = 0,
	RR_EXIT_NO = 1,	      /* check: would break the stack; verify: a check failed; --strict */
	RR_EXIT_USAGE = 2,    /* bad input or usage */
	RR_EXIT_ENV = 3,      /* venv, index or GPU runtime problem */
	RR_EXIT_INTERNAL = 70 /* a bug */
};

enum rr_format { RR_FORMAT_TEXT, RR_FORMAT_JSON, RR_FORMAT_PYLOCK };

struct rr_cli;

/* what a command is, for the code that serves several (the command table's flags) */
enum {
	RR_CMD_INPUTS = 1 << 0,		  /* reads INPUTs and plans them */
	RR_CMD_PLAN_STDOUT = 1 << 1,	  /* the plan goes to stdout: a failure fails the pipe */
	RR_CMD_LIVE_ENV = 1 << 2,	  /* needs the live venv, not a stack file */
	RR_CMD_OFFLINE_FALLBACK = 1 << 3, /* no network: the cache, else the lines alone */
	RR_CMD_RUNS_INSTALLER = 1 << 4,	  /* runs uv or pip itself */
};

/* a command: its name, its bit in the option table's masks, what runs it, its help */
struct rr_cli_command {
	const char *name;
	unsigned bit;
	unsigned flags; /* RR_CMD_* */
	int (*fn)(struct rr_cli *cli);
	const char *synopsis;	 /* after the name: "[options] INPUT..." */
	const char *summary;	 /* the overview's line(s) */
	const char *description; /* the top of its own --help */
};

struct rr_cli {
	const struct rr_cli_command *cmd;
	const char *command; /* cmd->name */
	char **inputs;	     /* positional INPUTs and -r FILE */
	size_t ninputs;
	/* the run's options (the table of include/rocm-resolve/flow.h): the pipeline's own
	 * fields, stored through rr_run_option_set; the session adds the rest */
	struct rr_flow_opts run;
	const char *python; /* --python / $UV_PYTHON (a path): the venv's interpreter or root */
	char *python_venv;  /* the venv that python names (owned); also in run.venv */
	const char *color;  /* --color: auto, always, never; NULL: auto */
	enum rr_format format;
	int verbosity; /* -1 quiet, 0 normal, 1+ verbose */
	const char **indexes; /* --index, until parsing ends (then first in extra_index_urls) */
	size_t nindexes;
	bool strict;
	bool lock;
	const char *uv_excludes;
	const char *write_testcase; /* --write-testcase DIR */
	const char *backend;
	bool require_gpu; /* install: no GPU to verify on is an error, not a warning */
	bool write;	  /* project: edit pyproject.toml in place */
	bool check_only;  /* project: exit 1 when the settings are missing or stale */
	bool bridge;	  /* project: set up or repair the project venv's .pth bridge */
	char **passthrough; /* install: arguments after "--" */
	size_t npassthrough;
};

/*
 * The CLI's steps (parsing, opening the session, building the plan, writing a file
 * beside it) return RR_CLI_GO_ON when the run goes on to the next step, else the exit
 * status to end it with (the error printed already; 0 after --help or --version)
 */
enum { RR_CLI_GO_ON = -1 };

/* RR_CLI_GO_ON (cli->cmd set), else the exit status (0 after --help, --version) */
int rr_cli_parse(struct rr_cli *cli, int argc, char **argv);
void rr_cli_release(struct rr_cli *cli);

/* print "rocm-resolve: error: file:line:col: message" plus the offending text and a caret */
void rr_cli_print_error(const rr_error *err);
/*
 * print "rocm-resolve: error: MESSAGE" for a failure the CLI finds itself (a usage
 * error); returns the exit status for code. Both keep the run's first error: with
 * --format json, a run that fails before printing anything prints it on stdout as one
 * error object (data/error.schema.json)
 */
int rr_cli_error(rr_err code, const char *fmt, ...) RR_PRINTF(2, 3);
int rr_cli_exit_for(rr_err code);
void rr_cli_warn(const struct rr_cli *cli, const char *fmt, ...) RR_PRINTF(2, 3);
/* "rocm-resolve: ..." on stderr: rr_cli_info with -v, rr_cli_vnote at verbosity level
 * and above (0: unless -q) */
void rr_cli_info(const struct rr_cli *cli, const char *fmt, ...) RR_PRINTF(2, 3);
void rr_cli_vnote(const struct rr_cli *cli, int level, const char *fmt, va_list ap) RR_PRINTF(3, 0);
struct rr_strbuf;
/* text, a line at a time, with control characters escaped (file text on a terminal) */
void rr_cli_add_printable_lines(struct rr_strbuf *out, const char *text);
/* write all of buf to stdout in one go; false when stdout failed (EPIPE, full disk) */
bool rr_cli_write_stdout(const char *buf, size_t len);
/* "\033[<sgr>m" when stderr gets colour (NO_COLOR, CLICOLOR_FORCE, a terminal), else "" */
const char *rr_cli_colour(const char *sgr);
/* status, after leaving the fail-closed line on stdout when it is not a terminal */
int rr_cli_fail_closed(const struct rr_cli *cli, int status);
/* the same with termination signals held until the whole plan is written */
bool rr_cli_write_plan(const char *buf, size_t len);

int cmd_plan(struct rr_cli *cli);
int cmd_check(struct rr_cli *cli);
int cmd_inspect(struct rr_cli *cli);
int cmd_verify(struct rr_cli *cli);
int cmd_install(struct rr_cli *cli);
int cmd_restore(struct rr_cli *cli);
int cmd_project(struct rr_cli *cli);

#endif
