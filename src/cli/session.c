/*
 * session.c - what every command needs: the policy, the inputs, the venv and
 * the protected stack, loaded in that order with one error convention.
 */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/venv.h"

/* the venv (--venv, $VIRTUAL_ENV, $CONDA_PREFIX, /opt/venv, /opt/conda) or --stack FILE */
static rr_err load_env(const struct rr_cli *cli, struct rr_venv **ret, rr_error *err)
{
	struct rr_venv_opts vo = {0};
	enum rr_venv_origin origin;
	RR_AUTOFREE char *path = NULL;
	RR_AUTOFREE char *abs = NULL;
	rr_err rc;

	if (cli->stack) {
		if (cli->venv)
			return rr_fail(err, RR_E_USAGE, "--venv and --stack name two environments; "
							"give one");
		if (strcmp(cli->command, "verify") == 0 || strcmp(cli->command, "install") == 0)
			return rr_fail(err, RR_E_USAGE, "%s needs the live environment, not a stack "
							"snapshot (--stack is for plan, check and inspect)",
				       cli->command);
		return rr_venv_load_snapshot(cli->stack, ret, err);
	}
	vo.sysroot = getenv("RR_SYSROOT");
	rc = rr_venv_locate(cli->venv, getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX"), vo.sysroot,
			    &path, &origin, err);
	if (rc)
		return rc;
	/* an absolute root: paths in reports and RECORD checks do not depend on the cwd */
	abs = realpath(path, NULL);
	rc = rr_venv_load(abs ? abs : path, &vo, ret, err);
	return rc ? RR_E_ENV : RR_OK;
}

int rr_session_open(struct rr_session *s, struct rr_cli *cli, bool want_inputs)
{
	rr_error err = RR_ERROR_INIT;
	struct rr_input_sel sel = {0};
	rr_err rc;

	memset(s, 0, sizeof(*s));
	rc = rr_policy_load_default(&s->policy, &err);
	for (size_t i = 0; !rc && i < cli->npolicies; i++)
		rc = rr_policy_load_file(s->policy, cli->policies[i], &err);
	if (rc)
		goto fail;
	if (want_inputs) {
		if (!cli->ninputs) {
			rr_fail(&err, RR_E_USAGE, "%s needs at least one INPUT (a requirements file, "
						  "pyproject.toml, directory or -)",
				cli->command);
			rc = RR_E_USAGE;
			goto fail;
		}
		sel.extras = (const char *const *)cli->extras;
		sel.nextras = cli->nextras;
		sel.all_extras = cli->all_extras;
		sel.groups = (const char *const *)cli->groups;
		sel.ngroups = cli->ngroups;
		/* a partly loaded set is released on failure too */
		s->have_reqs = true;
		for (size_t i = 0; !rc && i < cli->ninputs; i++)
			rc = rr_input_load(&s->reqs, cli->inputs[i], &sel, &err);
		if (rc)
			goto fail;
	}
	rc = load_env(cli, &s->venv, &err);
	if (rc)
		goto fail;
	rc = rr_stack_compute(s->venv, s->policy, (const char *const *)cli->protect, cli->nprotect,
			      &s->stack, &err);
	/* plan, check and install guard a stack: one that protects nothing is no answer */
	if (!rc && want_inputs)
		rc = rr_stack_require(s->stack, s->venv, &err);
	if (rc)
		goto fail;
	return -1;
fail:
	rr_cli_print_error(&err);
	rr_error_release(&err);
	rr_session_close(s);
	return rr_cli_exit_for(rc);
}

void rr_session_warnings(const struct rr_session *s, const struct rr_cli *cli)
{
	for (size_t i = 0; s->venv && i < s->venv->nwarnings; i++)
		rr_cli_warn(cli, "%s", s->venv->warnings[i]);
	for (size_t i = 0; s->stack && i < s->stack->nwarnings; i++)
		rr_cli_warn(cli, "%s", s->stack->warnings[i]);
}

void rr_session_close(struct rr_session *s)
{
	s->stack = rr_stack_free(s->stack);
	s->venv = rr_venv_free(s->venv);
	if (s->have_reqs)
		rr_reqset_release(&s->reqs);
	s->have_reqs = false;
	s->policy = rr_policy_free(s->policy);
}
