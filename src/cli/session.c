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

const char *rr_session_venv_path(const struct rr_cli *cli)
{
	const char *v = cli->venv;

	if (!v || !*v)
		v = getenv("VIRTUAL_ENV");
	if (!v || !*v)
		v = "/opt/venv";
	return v;
}

int rr_session_open(struct rr_session *s, struct rr_cli *cli, bool want_inputs)
{
	struct rr_venv_opts vo = {0};
	rr_error err = RR_ERROR_INIT;
	struct rr_input_sel sel = {0};
	RR_AUTOFREE char *abs = NULL;
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
	vo.sysroot = getenv("RR_SYSROOT");
	/* an absolute root: paths in reports and RECORD checks do not depend on the cwd */
	abs = realpath(rr_session_venv_path(cli), NULL);
	rc = rr_venv_load(abs ? abs : rr_session_venv_path(cli), &vo, &s->venv, &err);
	if (rc) {
		if (rc != RR_E_ENV)
			rc = RR_E_ENV;
		goto fail;
	}
	rc = rr_stack_compute(s->venv, s->policy, (const char *const *)cli->protect, cli->nprotect,
			      &s->stack, &err);
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
