/*
 * cmd-verify.c - `verify`: integrity of the protected stack, a kernel on every
 * visible GPU through the runtime torch uses, and torch computing on the device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "session.h"
#include "verify-run.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/verify.h"

int rr_cli_verify_session(struct rr_cli *cli, struct rr_session *s, struct rr_verify_report **ret)
{
	struct rr_verify_opts o = {0};
	struct rr_verify_dist *dists;
	const char **sites;
	RR_AUTOFREE char *python = rr_xasprintf("%s/bin/python", s->venv->root);
	RR_AUTOFREE char *torch_lib = NULL;
	const char *sysroot = getenv("RR_SYSROOT");
	const char *rocm = getenv("ROCM_PATH");
	RR_AUTOFREE char *rocm_buf = NULL;
	rr_error err = RR_ERROR_INIT;
	struct stat st;
	rr_err rc;

	dists = rr_xcalloc(s->stack->n + 1, sizeof(*dists));
	for (size_t i = 0; i < s->stack->n; i++) {
		const struct rr_protected *p = &s->stack->items[i];
		dists[i].name = p->name;
		dists[i].version = p->version;
		dists[i].dist_info_dir = p->dist ? p->dist->path : NULL;
	}
	sites = rr_xcalloc(s->venv->nbridged_sites + 2, sizeof(*sites));
	if (s->venv->site_packages)
		sites[o.nsite_dirs++] = s->venv->site_packages;
	for (size_t i = 0; i < s->venv->nbridged_sites; i++)
		sites[o.nsite_dirs++] = s->venv->bridged_sites[i];
	o.site_dirs = sites;
	o.protected_dists = dists;
	o.nprotected = s->stack->n;
	o.python = stat(python, &st) == 0 ? python : NULL;
	for (size_t i = 0; i < o.nsite_dirs && !torch_lib; i++) {
		char *cand = rr_xasprintf("%s/torch/lib", sites[i]);
		if (stat(cand, &st) == 0)
			torch_lib = cand;
		else
			free(cand);
	}
	o.torch_lib_dir = torch_lib;
	if (!rocm || !*rocm)
		rocm = s->venv->rocm_path;
	if (!rocm || !*rocm)
		rocm = rocm_buf = rr_xasprintf("%s/opt/rocm", sysroot ? sysroot : "");
	o.rocm_path = rocm;
	o.sysfs_root = sysroot && *sysroot ? sysroot : "/";
	o.backend = cli->backend;
	o.torch_is_cuda = s->venv->torch_cuda != NULL;
	o.timeout_ms = cli->timeout_s ? cli->timeout_s * 1000 : 0;
	rc = rr_verify_run(&o, ret, &err);
	free(dists);
	free(sites);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		return rr_cli_exit_for(rc);
	}
	return -1;
}

int rr_cli_verify_print(const struct rr_cli *cli, const struct rr_verify_report *r)
{
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;

	if (cli->format == RR_FORMAT_JSON) {
		rr_strbuf_adds(&out, r->json);
		if (!out.len || out.buf[out.len - 1] != '\n')
			rr_strbuf_addch(&out, '\n');
	} else {
		rr_verify_report_format_text(r, &out);
	}
	rr_cli_write_stdout(out.buf, out.len);
	return rr_verify_exit_code(r);
}

int cmd_verify(struct rr_cli *cli)
{
	struct rr_session s;
	struct rr_verify_report *report = NULL;
	int status;

	if (cli->ninputs) {
		fprintf(stderr, "rocm-resolve: error: verify takes no INPUT (got '%s')\n",
			cli->inputs[0]);
		return RR_EXIT_USAGE;
	}
	status = rr_session_open(&s, cli, false);
	if (status >= 0)
		return status;
	status = rr_cli_verify_session(cli, &s, &report);
	if (status < 0)
		status = rr_cli_verify_print(cli, report);
	rr_verify_report_free(report);
	rr_session_close(&s);
	return status;
}
