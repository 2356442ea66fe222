/* index-fixture.c - spawn and stop tests/index/serve.py (see index-fixture.h) */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "index-fixture.h"

static char *src_path(const char *rel)
{
	const char *root = getenv("RR_SRCDIR");
	char *p;

	if (rel[0] == '/' || !root)
		return strdup(rel);
	p = malloc(strlen(root) + strlen(rel) + 2);
	sprintf(p, "%s/%s", root, rel);
	return p;
}

pid_t rr_test_index_start(const char *world, char **ret_url)
{
	int fds[2];
	pid_t pid;
	char line[256];
	size_t n = 0;
	char *serve = src_path("tests/index/serve.py");
	char *wpath = src_path(world ? world : "fixtures/index/world.txt");
	pid_t parent = getpid();

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(1);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl("/usr/bin/python3", "python3", serve, "--world", wpath, (char *)NULL);
		fprintf(stderr, "exec /usr/bin/python3: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	free(serve);
	free(wpath);
	while (n + 1 < sizeof(line)) {
		ssize_t r = read(fds[0], line + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	close(fds[0]);
	if (strncmp(line, "http://", 7) != 0) {
		fprintf(stderr, "fixture index did not start (got '%s')\n", line);
		rr_test_index_stop(pid);
		return -1;
	}
	*ret_url = strdup(line);
	return pid;
}

void rr_test_index_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static int control(const char *url, const char *what, char *buf, size_t cap)
{
	const char *colon = strrchr(url, ':');
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd;
	size_t n = 0;
	char req[512];

	if (!colon)
		return -1;
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(req, sizeof(req), "GET /_control/%s HTTP/1.0\r\nConnection: close\r\n\r\n", what);
	if (write(fd, req, strlen(req)) < 0) {
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n + 1 >= cap)
			break;
	}
	buf[n] = '\0';
	close(fd);
	return 0;
}

long rr_test_index_requests(const char *url)
{
	static char buf[1 << 16];
	const char *p;

	if (control(url, "stats", buf, sizeof(buf)) != 0)
		return -1;
	p = strstr(buf, "\"requests\": ");
	return p ? strtol(p + 12, NULL, 10) : -1;
}

void rr_test_index_reset(const char *url)
{
	char buf[4096];
	control(url, "reset", buf, sizeof(buf));
}

long rr_test_index_seen(const char *url, const char *sub)
{
	static char buf[1 << 20];
	const char *p;
	long n = 0;

	if (control(url, "stats", buf, sizeof(buf)) != 0)
		return -1;
	p = strstr(buf, "\"paths\": {");
	if (!p)
		return -1;
	p = strchr(p, '{');
	/* "paths": {"/a/b": 2, ...}: count the keys containing sub */
	while ((p = strchr(p + 1, '"'))) {
		const char *end = strchr(p + 1, '"');
		if (!end)
			break;
		if (end[1] == ':' && p[1] == '/') {
			char key[1024];
			size_t len = (size_t)(end - p - 1);
			if (len < sizeof(key)) {
				memcpy(key, p + 1, len);
				key[len] = '\0';
				if (strstr(key, sub))
					n++;
			}
		}
		p = end;
	}
	return n;
}

/* a number from /_control/stats ("requests", "heads", "html", "json", ...); -1 on error */
long rr_test_index_stat(const char *url, const char *name)
{
	static char buf[1 << 16];
	char pat[64];
	const char *p;

	if (control(url, "stats", buf, sizeof(buf)) != 0)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\": ", name);
	p = strstr(buf, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

int rr_test_index_order(const char *url, const char *a, const char *b)
{
	char buf[4096];
	char what[400];

	snprintf(what, sizeof(what), "order?a=%s&b=%s", a, b);
	/* the server notes an answer ("out") after its last byte is written: the client may
	 * have read it, finished and asked this before the serving thread got that far. A
	 * missing event is asked about again, for up to 2 s */
	for (int tries = 0; tries < 40; tries++) {
		if (control(url, what, buf, sizeof(buf)) != 0)
			return -1;
		if (strstr(buf, "\"before\""))
			return 1;
		if (strstr(buf, "\"after\""))
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}
