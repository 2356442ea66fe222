/*
 * The torch stage: run the venv's python on the embedded probe (data/torch-probe.py) under a
 * time limit, read the JSON it prints with Jansson and judge it.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu-embedded.h"
#include "gpu/gpu.h"
#include "rocm-resolve/strbuf.h"

#define OUTPUT_MAX (4u << 20)

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* run python -c PROBE; false on timeout. out/errout collect stdout/stderr */
static bool run_probe(const char *python, int timeout_ms, struct rr_strbuf *out,
		      struct rr_strbuf *errout, int *status, int *spawn_errno)
{
	int po[2], pe[2], px[2];
	long long deadline = now_ms() + timeout_ms;
	bool open_o = true, open_e = true, timed_out = false;
	RR_AUTOFREE char *abs = NULL;
	pid_t pid, parent = getpid();

	/* absolute without resolving symlinks: a venv's python must keep its own path */
	if (python[0] != '/') {
		char cwd[PATH_MAX];
		abs = rr_xasprintf("%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".", python);
	} else {
		abs = rr_xstrdup(python);
	}
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || pipe2(px, O_CLOEXEC)) {
		*spawn_errno = errno;
		return true;
	}
	pid = fork();
	if (pid < 0) {
		*spawn_errno = errno;
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]), close(px[0]), close(px[1]);
		return true;
	}
	if (pid == 0) {
		int e;
		rr_gpu_child_setup(parent);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		/* not the caller's directory: a ./torch source tree there would shadow the venv's */
		if (chdir("/")) {
			/* nothing better to do; the probe still runs */
		}
		execl(abs, abs, "-c", (const char *)rr_data_torch_probe, (char *)NULL);
		e = errno;
		if (write(px[1], &e, sizeof(e)) < 0) {
			/* the parent then sees no output and reports the exit status */
		}
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	close(px[1]);
	while (open_o || open_e) {
		struct pollfd pfd[2] = {{.fd = open_o ? po[0] : -1, .events = POLLIN},
					{.fd = open_e ? pe[0] : -1, .events = POLLIN}};
		long long left = deadline - now_ms();
		char chunk[4096];

		if (left <= 0) {
			timed_out = true;
			break;
		}
		if (poll(pfd, 2, (int)(left > 1000000 ? 1000000 : left)) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			struct rr_strbuf *sb = i ? errout : out;
			ssize_t r;
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(pfd[i].fd, chunk, sizeof(chunk));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				if (i)
					open_e = false;
				else
					open_o = false;
				continue;
			}
			if (sb->len < OUTPUT_MAX)
				rr_strbuf_add(sb, chunk, (size_t)r);
		}
	}
	if (timed_out) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (!timed_out && read(px[0], spawn_errno, sizeof(*spawn_errno)) != sizeof(*spawn_errno))
		*spawn_errno = 0;
	close(po[0]);
	close(pe[0]);
	close(px[0]);
	return !timed_out;
}

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void tail_details(struct rr_verify_stage *st, const char *text)
{
	const char *p = text + strlen(text);
	int lines = 0;

	/* the last 8 lines of stderr say what went wrong */
	while (p > text && lines < 9)
		if (*--p == '\n')
			lines++;
	rr_gpu_stage_detail_lines(st, "stderr: ", p + (*p == '\n'), 8);
}

static void judge(json_t *j, enum rr_verdict kernel, struct rr_verify_stage *st)
{
	const char *ver = jstr(j, "torch_version"), *hip = jstr(j, "hip"), *cuda = jstr(j, "cuda");
	const char *ovr = jstr(j, "hsa_override_gfx_version");
	json_t *devs = json_object_get(j, "devices"), *list = json_object_get(j, "arch_list");
	RR_AUTO_STRBUF struct rr_strbuf archs = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf backend = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf overnote = RR_STRBUF_INIT;
	bool failed = false;
	size_t i, ndev;
	json_t *v;
	const char *key;

	if (jstr(j, "import_error")) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "torch does not import: %s",
				 jstr(j, "import_error"));
		rr_gpu_stage_advice(st, "reinstall the protected torch build (`pip install "
				    "--force-reinstall --no-deps torch==<version>` from the ROCm "
				    "index)");
		return;
	}
	if (hip)
		rr_strbuf_addf(&backend, "HIP %s", hip);
	else if (cuda)
		rr_strbuf_addf(&backend, "CUDA %s", cuda);
	else
		rr_strbuf_adds(&backend, "CPU-only build");
	rr_gpu_stage_detail(st, "torch %s (%s)", ver ? ver : "?", backend.buf);
	json_array_foreach(list, i, v)
		rr_strbuf_addf(&archs, "%s%s", i ? " " : "", json_string_value(v) ? json_string_value(v) : "?");
	if (archs.len)
		rr_gpu_stage_detail(st, "torch.cuda.get_arch_list(): %s", archs.buf);
	if (ovr)
		rr_strbuf_addf(&overnote, "HSA_OVERRIDE_GFX_VERSION=%s is set", ovr);
	else
		rr_strbuf_adds(&overnote, "HSA_OVERRIDE_GFX_VERSION is not set");
	if (hip)
		rr_gpu_stage_detail(st, "%s", overnote.buf);
	json_object_foreach(json_object_get(j, "visible"), key, v)
		rr_gpu_stage_detail(st, "%s=%s", key, json_string_value(v) ? json_string_value(v) : "");

	if (jstr(j, "error")) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "torch.cuda raised %s", jstr(j, "error"));
		rr_gpu_stage_advice(st, "torch cannot talk to the GPU runtime; check that torch's "
				    "HIP/CUDA build matches the driver");
		return;
	}
	if (!json_is_true(json_object_get(j, "available"))) {
		if (!hip && !cuda) {
			rr_gpu_stage_set(st, kernel == RR_VERDICT_PASS ? RR_VERDICT_FAIL
								       : RR_VERDICT_UNAVAILABLE,
					 "torch %s is a CPU-only build: it cannot use the GPU",
					 ver ? ver : "");
			rr_gpu_stage_advice(st, "install the ROCm build of torch from the ROCm index "
					    "(a plain `pip install torch` brings a CUDA or CPU build)");
		} else if (kernel == RR_VERDICT_PASS) {
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "torch sees no GPU although the kernel "
					 "check ran on one");
			rr_gpu_stage_advice(st, "torch's own %s does not match the driver or the "
					    "device; compare torch.version.hip with the ROCm on the "
					    "host", hip ? "HIP runtime" : "CUDA runtime");
		} else {
			rr_gpu_stage_set(st, RR_VERDICT_UNAVAILABLE, "torch %s (%s) sees no GPU",
					 ver ? ver : "", backend.buf);
			rr_gpu_stage_advice(st, hip ? "the container needs --device=/dev/kfd "
						      "--device=/dev/dri"
						    : "run the container with `--gpus all`");
		}
		return;
	}
	ndev = json_array_size(devs);
	json_array_foreach(devs, i, v) {
		const char *name = jstr(v, "name"), *arch = jstr(v, "arch"), *err = jstr(v, "error");
		json_t *mm = json_object_get(v, "matmul");
		RR_AUTOFREE char *label = rr_xasprintf("device %zu (%s, %s)", i, name ? name : "?",
						       arch ? arch : "unknown arch");

		if (arch && !json_is_true(json_object_get(v, "arch_in_list"))) {
			failed = true;
			rr_gpu_stage_detail(st, "%s: %s is NOT in this torch's arch list: it has no "
					    "kernels for this GPU; %s", label, arch, overnote.buf);
			rr_gpu_stage_advice(st, "install a torch build for %s, or (at your own risk) "
					    "set HSA_OVERRIDE_GFX_VERSION to a supported architecture "
					    "of the same family; %s", arch, overnote.buf);
		}
		if (err) {
			failed = true;
			rr_gpu_stage_detail(st, "%s: the matmul raised %s", label, err);
			continue;
		}
		if (mm) {
			double e = json_number_value(json_object_get(mm, "max_abs_err"));
			double tol = json_number_value(json_object_get(mm, "tol"));
			bool ok = json_is_true(json_object_get(mm, "ok"));
			long long n = json_integer_value(json_object_get(mm, "n"));
			if (json_is_null(json_object_get(mm, "max_abs_err")))
				rr_gpu_stage_detail(st, "%s: %lldx%lld matmul gave NaN/inf", label, n, n);
			else
				rr_gpu_stage_detail(st, "%s: %lldx%lld matmul max |gpu-cpu| = %.3g, "
						    "tolerance %.3g: %s", label, n, n, e, tol,
						    ok ? "ok" : "WRONG");
			if (!ok) {
				failed = true;
				if (!st->advice)
					rr_gpu_stage_advice(st, "the GPU computes a wrong matrix product; "
							    "check dmesg for GPU errors and %s",
							    ovr ? "unset HSA_OVERRIDE_GFX_VERSION"
								: "whether the GPU is overclocked "
								  "or failing");
			}
		}
	}
	if (failed)
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "torch %s does not compute correctly on every "
				 "device", ver ? ver : "");
	else if (!ndev)
		rr_gpu_stage_set(st, RR_VERDICT_UNAVAILABLE, "torch reports the GPU available but no "
				 "device");
	else
		rr_gpu_stage_set(st, RR_VERDICT_PASS, "torch %s (%s) computes on %zu device%s; matmul "
				 "matches the CPU within 1e-3 relative", ver ? ver : "",
				 backend.buf, ndev, ndev == 1 ? "" : "s");
}

void rr_gpu_torch_probe(const struct rr_verify_opts *o, int timeout_ms, enum rr_verdict kernel,
			struct rr_verify_stage *st, json_t **probe)
{
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf errout = RR_STRBUF_INIT;
	int status = 0, spawn_errno = 0;
	json_error_t jerr;
	json_t *j;
	char *last;

	*probe = NULL;
	if (!run_probe(o->python, timeout_ms, &out, &errout, &status, &spawn_errno)) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "the torch probe did not finish within %d ms",
				 timeout_ms);
		if (errout.len)
			tail_details(st, errout.buf);
		rr_gpu_stage_advice(st, "torch hangs on the GPU: check `dmesg` for GPU resets and "
				    "that no other process holds the device");
		return;
	}
	if (spawn_errno) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "cannot run %s: %s", o->python,
				 strerror(spawn_errno));
		rr_gpu_stage_advice(st, "check the venv (its bin/python must exist and run)");
		return;
	}
	rr_strbuf_rtrim(&out);
	last = strrchr(out.buf, '\n');
	last = last ? last + 1 : out.buf;
	j = *last == '{' ? json_loads(last, 0, &jerr) : NULL;
	if (!json_is_object(j)) {
		json_decref(j);
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "the torch probe printed no result (%s %d)",
				 WIFSIGNALED(status) ? "signal" : "exit status",
				 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		if (errout.len)
			tail_details(st, errout.buf);
		rr_gpu_stage_advice(st, "run `%s -c 'import torch; print(torch.cuda.is_available())'` "
				    "to see the error", o->python);
		return;
	}
	judge(j, kernel, st);
	*probe = j;
}
