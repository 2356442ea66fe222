/*
 * verify: the four stages in order, the isolation of the kernel stage in a child process,
 * and the report (text and JSON schema 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "rocm-resolve/json.h"
#include "rocm-resolve/strbuf.h"

const char *rr_verdict_to_string(enum rr_verdict v)
{
	switch (v) {
	case RR_VERDICT_PASS:
		return "PASS";
	case RR_VERDICT_FAIL:
		return "FAIL";
	case RR_VERDICT_SKIP:
		return "SKIP";
	case RR_VERDICT_UNAVAILABLE:
		return "UNAVAILABLE";
	}
	return "?";
}

/* one line: newlines and tabs become spaces so the text and the pipe protocol stay intact */
static char *one_line(char *s)
{
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return s;
}

void rr_gpu_stage_set(struct rr_verify_stage *st, enum rr_verdict v, const char *fmt, ...)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	st->verdict = v;
	free(st->summary);
	st->summary = one_line(rr_strbuf_detach(&sb, NULL));
}

static int progress_fd = -1;
static void put_record(int fd, char tag, const char *text);

static void add_detail(struct rr_verify_stage *st, char *s)
{
	/* in the isolated child, details go out at once so that a hang keeps them */
	if (progress_fd >= 0)
		put_record(progress_fd, 'D', s);
	st->details = rr_xrealloc(st->details, (st->ndetails + 1) * sizeof(*st->details));
	st->details[st->ndetails++] = one_line(s);
}

void rr_gpu_stage_detail(struct rr_verify_stage *st, const char *fmt, ...)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	add_detail(st, rr_strbuf_detach(&sb, NULL));
}

void rr_gpu_stage_detail_lines(struct rr_verify_stage *st, const char *prefix, const char *text,
			       size_t max)
{
	size_t n = 0;

	for (const char *p = text; *p && n < max;) {
		size_t len = strcspn(p, "\n");
		if (len)
			add_detail(st, rr_xasprintf("%s%.*s", prefix, (int)len, p)), n++;
		p += len;
		p += *p == '\n';
		if (n == max && *p)
			add_detail(st, rr_xasprintf("%s...", prefix));
	}
}

void rr_gpu_stage_advice(struct rr_verify_stage *st, const char *fmt, ...)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(st->advice);
	st->advice = one_line(rr_strbuf_detach(&sb, NULL));
}

void rr_gpu_stage_release(struct rr_verify_stage *st)
{
	free(st->summary);
	for (size_t i = 0; i < st->ndetails; i++)
		free(st->details[i]);
	free(st->details);
	free(st->advice);
	st->summary = st->advice = NULL;
	st->details = NULL;
	st->ndetails = 0;
}

void rr_gpu_child_setup(pid_t parent)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

	/* its own group, so that a timeout takes the runtime's helpers down too; and it dies
	 * with us, so that ^C on verify leaves no hung runtime behind */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/* a runtime that chats on stdout must not corrupt the report (--format json) */
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 1);
		close(devnull);
	}
}

/* ---- isolation: the child writes "<tag> <text>\n" records to a pipe ---- */

static void put_record(int fd, char tag, const char *text)
{
	RR_AUTOFREE char *line = rr_xasprintf("%c %s", tag, text ? text : "");
	size_t len;

	one_line(line + 2);
	len = strlen(line);
	line[len] = '\n'; /* overwrite the NUL: write exactly one line */
	for (size_t off = 0; off < len + 1;) {
		ssize_t w = write(fd, line + off, len + 1 - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	line[len] = '\0';
}

void rr_gpu_progress(const char *fmt, ...)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	if (progress_fd < 0)
		return;
	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	put_record(progress_fd, 'P', sb.buf);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void parse_records(const char *buf, struct rr_verify_stage *st, char **progress,
			  bool *have_verdict)
{
	for (const char *p = buf; *p;) {
		size_t len = strcspn(p, "\n");
		if (!p[len])
			break; /* a partial last line: the child died mid-write */
		if (len >= 2) {
			char *text = rr_xstrndup(p + 2, len - 2);
			switch (p[0]) {
			case 'V':
				st->verdict = (enum rr_verdict)atoi(text);
				*have_verdict = true;
				free(text);
				break;
			case 'S':
				free(st->summary);
				st->summary = text;
				break;
			case 'D':
				add_detail(st, text);
				break;
			case 'A':
				free(st->advice);
				st->advice = text;
				break;
			case 'P':
				free(*progress);
				*progress = text;
				break;
			default:
				free(text);
			}
		}
		p += len + 1;
	}
}

void rr_gpu_run_isolated(void (*fn)(const struct rr_verify_opts *, struct rr_verify_stage *),
			 const struct rr_verify_opts *o, int timeout_ms, const char *what,
			 struct rr_verify_stage *st)
{
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	RR_AUTOFREE char *progress = NULL;
	long long deadline = now_ms() + timeout_ms;
	bool have_verdict = false, timed_out = false;
	int fds[2], status = 0;
	pid_t pid, parent = getpid();

	if (pipe2(fds, O_CLOEXEC)) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "cannot create a pipe: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "cannot fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		struct rr_verify_stage cs = {.name = st->name, .verdict = RR_VERDICT_FAIL};
		char v[16];

		close(fds[0]);
		rr_gpu_child_setup(parent);
		progress_fd = fds[1];
		fn(o, &cs);
		if (cs.advice)
			put_record(fds[1], 'A', cs.advice);
		put_record(fds[1], 'S', cs.summary ? cs.summary : "(no summary)");
		snprintf(v, sizeof(v), "%d", (int)cs.verdict);
		put_record(fds[1], 'V', v);
		/* _exit: no atexit handlers or runtime destructors that could hang or crash */
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		long long left = deadline - now_ms();
		struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
		char chunk[4096];
		ssize_t r;
		int pr;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		pr = poll(&pfd, 1, (int)(left > 1000000 ? 1000000 : left));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		r = read(fds[0], chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* EOF: the child is done (or died) */
		rr_strbuf_add(&buf, chunk, (size_t)r);
	}
	close(fds[0]);
	/* EOF may come before the exit; a child stuck in the driver still gets the deadline */
	while (!timed_out) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (w == 0 && now_ms() >= deadline)
			timed_out = true;
		else if (w == 0)
			usleep(2000);
	}
	if (timed_out) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	parse_records(buf.buf, st, &progress, &have_verdict);
	if (timed_out) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s did not finish within %d ms%s%s", what,
				 timeout_ms, progress ? ": hung in " : "", progress ? progress : "");
		rr_gpu_stage_advice(st, "the GPU runtime hangs: check `dmesg` for amdgpu/GPU resets "
				    "and that no other process holds the device; a reboot of the "
				    "host may be needed");
	} else if (!have_verdict) {
		if (WIFSIGNALED(status))
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s crashed with signal %d (%s)%s%s", what,
					 WTERMSIG(status), strsignal(WTERMSIG(status)),
					 progress ? " in " : "", progress ? progress : "");
		else
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s exited (status %d) before reporting%s%s",
					 what, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
					 progress ? " in " : "", progress ? progress : "");
		rr_gpu_stage_advice(st, "the GPU runtime library is broken or mismatched; reinstall "
				    "torch or ROCm so that their versions agree");
	}
}

/* ---- the report ---- */

static json_t *stage_json(const struct rr_verify_stage *st)
{
	json_t *o = json_object(), *d = json_array();
	char lower[16];
	const char *v = rr_verdict_to_string(st->verdict);
	size_t i;

	for (i = 0; v[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)(v[i] | 0x20);
	lower[i] = '\0';
	json_object_set_new(o, "name", json_string(st->name));
	json_object_set_new(o, "verdict", json_string(lower));
	json_object_set_new(o, "why", rr_json_str(st->summary ? st->summary : ""));
	for (i = 0; i < st->ndetails; i++)
		json_array_append_new(d, rr_json_str(st->details[i]));
	json_object_set_new(o, "details", d);
	json_object_set_new(o, "advice", rr_json_str(st->advice));
	return o;
}

/* a probe member as a JSON string, null when absent or not a string */
static json_t *probe_str(json_t *probe, const char *key)
{
	json_t *v = json_object_get(probe, key);
	return json_is_string(v) ? json_incref(v) : json_null();
}

/*
 * what the probe said, in the other commands' names: torch as inspect's and plan's
 * {version, hip, cuda}; the probe's own protocol version is not the report's
 */
static json_t *probe_json(json_t *probe)
{
	json_t *o = json_object(), *torch = json_object();
	const char *key;
	json_t *v;

	json_object_set_new(o, "python", probe_str(probe, "python"));
	json_object_set_new(torch, "version", probe_str(probe, "torch_version"));
	json_object_set_new(torch, "hip", probe_str(probe, "hip"));
	json_object_set_new(torch, "cuda", probe_str(probe, "cuda"));
	json_object_set_new(o, "torch", torch);
	json_object_foreach(probe, key, v)
	{
		if (strcmp(key, "schema") && strcmp(key, "python") &&
		    strcmp(key, "torch_version") && strcmp(key, "hip") && strcmp(key, "cuda"))
			json_object_set(o, key, v);
	}
	return o;
}

static void make_json(struct rr_verify_report *r, const char *venv, json_t *probe, json_t *dists)
{
	json_t *root = json_object(), *stages = json_array();
	struct rr_strbuf out = RR_STRBUF_INIT;

	json_object_set_new(root, "schema", json_integer(3));
	json_object_set_new(root, "venv", rr_json_str(venv));
	json_object_set_new(root, "exit_code", json_integer(rr_verify_exit_code(r)));
	for (size_t i = 0; i < RR_ARRAY_LEN(r->stages); i++) {
		json_t *s = stage_json(&r->stages[i]);
		if (i == 2 && probe)
			json_object_set_new(s, "probe", probe_json(probe));
		if (i == 3 && dists)
			json_object_set(s, "dists", dists);
		json_array_append_new(stages, s);
	}
	json_object_set_new(root, "stages", stages);
	/* one line, as plan's and check's documents: the one JSON writer */
	rr_json_dump(root, RR_JSON_LINE, &out);
	r->json = rr_strbuf_detach(&out, NULL);
}

rr_err rr_verify_run(const struct rr_verify_opts *o, struct rr_verify_report **ret, rr_error *err)
{
	struct rr_verify_report *r;
	const char *backend = o->backend ? o->backend : "auto";
	bool cuda;
	int timeout = o->timeout_ms > 0 ? o->timeout_ms : 60000;
	json_t *probe = NULL, *dists = NULL;

	if (strcmp(backend, "auto") && strcmp(backend, "hip") && strcmp(backend, "cuda"))
		return rr_fail(err, RR_E_USAGE, "unknown GPU backend '%s' (expected auto, hip or cuda)",
			       backend);
	if (o->nsite_dirs && !o->site_dirs)
		return rr_fail(err, RR_E_USAGE, "verify: site_dirs is NULL but nsite_dirs is %zu",
			       o->nsite_dirs);
	if (o->nprotected && !o->protected_dists)
		return rr_fail(err, RR_E_USAGE, "verify: protected_dists is NULL but nprotected is %zu",
			       o->nprotected);
	cuda = !strcmp(backend, "cuda") || (!strcmp(backend, "auto") && o->torch_is_cuda);

	r = rr_xcalloc(1, sizeof(*r));
	r->stages[0].name = "integrity";
	r->stages[1].name = "kernel";
	r->stages[2].name = "torch";
	r->stages[3].name = "load";

	if (o->skip_integrity)
		rr_gpu_stage_set(&r->stages[0], RR_VERDICT_SKIP, "skipped (--skip-integrity)");
	else
		rr_gpu_integrity(o, &r->stages[0]);

	if (o->skip_kernel)
		rr_gpu_stage_set(&r->stages[1], RR_VERDICT_SKIP, "skipped (--skip-kernel)");
	else
		rr_gpu_run_isolated(cuda ? rr_gpu_cuda_check : rr_gpu_hip_check, o, timeout,
				    cuda ? "the CUDA kernel check" : "the HIP kernel check",
				    &r->stages[1]);

	if (o->skip_torch)
		rr_gpu_stage_set(&r->stages[2], RR_VERDICT_SKIP, "skipped (--skip-torch)");
	else if (!o->python)
		rr_gpu_stage_set(&r->stages[2], RR_VERDICT_SKIP, "skipped: no venv python given");
	else
		rr_gpu_torch_probe(o, timeout, r->stages[1].verdict, &r->stages[2], &probe);

	/* no GPU needed: runs wherever the venv can be read */
	if (o->skip_load)
		rr_gpu_stage_set(&r->stages[3], RR_VERDICT_SKIP, "skipped (--skip-load)");
	else if (!o->load)
		rr_gpu_stage_set(&r->stages[3], RR_VERDICT_SKIP, "skipped: no environment to read");
	else
		rr_gpu_load(o, &r->stages[3], &dists);

	make_json(r, o->venv, probe, dists);
	json_decref(probe);
	json_decref(dists);
	*ret = r;
	return RR_OK;
}

int rr_verify_exit_code(const struct rr_verify_report *r)
{
	bool unavailable = false;

	for (size_t i = 0; i < RR_ARRAY_LEN(r->stages); i++) {
		if (r->stages[i].verdict == RR_VERDICT_FAIL)
			return 1;
		unavailable |= r->stages[i].verdict == RR_VERDICT_UNAVAILABLE;
	}
	return unavailable ? 3 : 0;
}

void rr_verify_report_format_text(const struct rr_verify_report *r, struct rr_strbuf *out)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(r->stages); i++) {
		const struct rr_verify_stage *st = &r->stages[i];

		rr_strbuf_addf(out, "%s: %s %s\n", st->name, rr_verdict_to_string(st->verdict),
			       st->summary ? st->summary : "");
		for (size_t j = 0; j < st->ndetails; j++)
			rr_strbuf_addf(out, "    %s\n", st->details[j]);
		if (st->advice)
			rr_strbuf_addf(out, "    advice: %s\n", st->advice);
	}
}

struct rr_verify_report *rr_verify_report_free(struct rr_verify_report *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < RR_ARRAY_LEN(r->stages); i++)
		rr_gpu_stage_release(&r->stages[i]);
	free(r->json);
	free(r);
	return NULL;
}
