/*
 * fetch.c - the one place that speaks libcurl.
 *
 * Requests run through one multi handle for the fetcher's whole life: they are
 * submitted at any time (rr_fetch_submit, also from a done callback) and run
 * while the owner steps the fetcher (rr_fetch_step), at most max_parallel in
 * flight, the highest priority first, HTTP/2 multiplexing when the server
 * offers it, connections reused. A transfer that fails in a way a retry can
 * fix (5xx, 429, dropped connection, truncated body, timeout) is put back on
 * the queue with exponential backoff. Proxies come from the usual
 * environment variables (curl's own handling), .netrc is optional, the CA
 * bundle may be overridden by SSL_CERT_FILE / REQUESTS_CA_BUNDLE / PIP_CERT.
 * Every message names the URL with its credentials redacted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index/dl-private.h"
#include "index/index-private.h"
#include "rocm-resolve/util.h"

#define DEFAULT_MAX_BODY (64u << 20)

struct slot;

struct rr_fetcher {
	struct rr_fetch_opts o;
	CURLM *multi;
	CURLSH *share;
	char *cainfo;
	char *capath;
	/* the system's trust store read as its hashed directory (SYS_CA_DIR), not the
	 * bundle file, until a server does not verify with it (then the file) */
	bool ca_dir_first, ca_dir_failed;
	char *sys_ca_file, *sys_ca_dir;
	size_t transfers;
	unsigned long long bytes;
	long long t0_ms;      /* when it was made: the origin of the events' times */
	struct slot **live;   /* submitted, not finished: waiting, backing off or running */
	size_t nlive, cap_live;
	size_t running;
	unsigned long seq;    /* submission order: ties in priority go first come first */
	/* announced lengths of the running transfers whose bodies could have gone to a
	 * temp file (spill_over) and are in memory: at most o.spill_memory */
	unsigned long long spill_mem;
};

/*
 * Debian's and Ubuntu's trust store, written by update-ca-certificates twice: as one
 * bundle file and as a directory of certificates named by subject hash. Loading the
 * file parses every certificate in it (60-100 ms of CPU before the first connection
 * here; the mirror is 2 ms away); the directory is looked up per certificate a server
 * sends (3-7 ms).
 */
#define SYS_CA_FILE "/etc/ssl/certs/ca-certificates.crt"
#define SYS_CA_DIR  "/etc/ssl/certs"
/* the system trust store's paths, under the sysroot (tests) */

/* does dir hold certificates by subject hash ("1a2b3c4d.0")? */
static bool hashed_ca_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		const char *n = de->d_name;
		size_t i = 0;
		while (i < 8 && ((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			i++;
		found = i == 8 && n[8] == '.' && n[9] >= '0' && n[9] <= '9' && !n[10];
	}
	closedir(d);
	return found;
}

/* do two paths name one file (a link to the system's store, another spelling of it)? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

rr_err rr_fetcher_new(const struct rr_fetch_opts *o, struct rr_fetcher **ret, rr_error *err)
{
	struct rr_fetcher *f;
	const char *envs[] = {"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT"};
	const char *from = NULL;
	struct stat st;

	if (rr_curl_load(err) != RR_OK)
		return RR_E_ENV;
	f = rr_xcalloc(1, sizeof(*f));
	f->o = *o;
	f->t0_ms = rr_fetch_now_ms();
	if (f->o.max_parallel <= 0)
		f->o.max_parallel = 16;
	if (f->o.timeout_ms <= 0)
		f->o.timeout_ms = 30000;
	if (f->o.retries < 0)
		f->o.retries = 0;
	if (f->o.backoff_ms <= 0)
		f->o.backoff_ms = 100;
	/* trust anchors as uv and pip take them: --cert, else the environment's bundle */
	if (o->ca_file && *o->ca_file) {
		f->cainfo = rr_xstrdup(o->ca_file);
		from = "--cert";
	}
	for (size_t i = 0; !f->cainfo && i < RR_ARRAY_LEN(envs); i++) {
		const char *v = getenv(envs[i]);
		if (v && *v) {
			f->cainfo = rr_xstrdup(v);
			from = envs[i];
		}
	}
	/* TLS reads the bundle when it connects: a FIFO with no writer there would block
	 * past every deadline, so anything but a regular file is refused now */
	if (f->cainfo && stat(f->cainfo, &st) == 0 && !S_ISREG(st.st_mode)) {
		rr_fail(err, RR_E_USAGE, "%s '%s': cannot read it: it is %s, not a regular file",
			from, f->cainfo,
			S_ISDIR(st.st_mode)    ? "a directory"
			: S_ISFIFO(st.st_mode) ? "a FIFO"
					       : "a special file");
		free(f->cainfo);
		free(f);
		return RR_E_USAGE;
	}
	if (o->ca_dir && *o->ca_dir)
		f->capath = rr_xstrdup(o->ca_dir);
	else if (getenv("SSL_CERT_DIR") && *getenv("SSL_CERT_DIR"))
		f->capath = rr_xstrdup(getenv("SSL_CERT_DIR"));
	/* no trust anchors named, or the system's own bundle and directory: the same store,
	 * read lazily from its directory where it has one */
	f->sys_ca_file = rr_xasprintf("%s" SYS_CA_FILE, o->sysroot ? o->sysroot : "");
	f->sys_ca_dir = rr_xasprintf("%s" SYS_CA_DIR, o->sysroot ? o->sysroot : "");
	f->ca_dir_first = (!f->capath || same_file(f->capath, f->sys_ca_dir)) &&
			  (!f->cainfo || same_file(f->cainfo, f->sys_ca_file)) &&
			  access(f->sys_ca_file, R_OK) == 0 && hashed_ca_dir(f->sys_ca_dir);
	f->multi = rr_curl.multi_init();
	if (!f->multi)
		abort();
	rr_curl.multi_setopt(f->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	rr_curl.multi_setopt(f->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)f->o.max_parallel);
	/* DNS and TLS sessions shared across the batch */
	f->share = rr_curl.share_init();
	rr_curl.share_setopt(f->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	rr_curl.share_setopt(f->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	*ret = f;
	return RR_OK;
}

static void slot_free(struct rr_fetcher *f, struct slot *s);

struct rr_fetcher *rr_fetcher_free(struct rr_fetcher *f)
{
	if (!f)
		return NULL;
	/* what never finished is dropped: its owner is going away too */
	while (f->nlive)
		slot_free(f, f->live[--f->nlive]);
	free(f->live);
	rr_curl.multi_cleanup(f->multi);
	rr_curl.share_cleanup(f->share);
	free(f->cainfo);
	free(f->capath);
	free(f->sys_ca_file);
	free(f->sys_ca_dir);
	free(f);
	return NULL;
}

size_t rr_fetcher_transfers(const struct rr_fetcher *f)
{
	return f->transfers;
}

unsigned long long rr_fetcher_bytes(const struct rr_fetcher *f)
{
	return f->bytes;
}

void rr_fetch_release(struct rr_fetch *r)
{
	rr_error_release(&r->err);
	rr_strbuf_release(&r->body);
	r->etag = rr_free(r->etag);
	r->last_modified = rr_free(r->last_modified);
	r->cache_control = rr_free(r->cache_control);
	r->content_type = rr_free(r->content_type);
	r->effective_url = rr_free(r->effective_url);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* one slot per request from its submission to its end */
struct slot {
	struct rr_fetch *r;
	CURL *easy;
	char errbuf[CURL_ERROR_SIZE];
	bool over_limit;
	size_t max_body;
	long long due_ms; /* earliest start (backoff) */
	bool ca_dir;      /* started trusting the system store's directory alone */
	bool running;
	unsigned long seq;
	struct curl_slist *headers;
	char *redacted;
	struct rr_fetcher *f;
	int spill_state; /* 0: not decided, 1: memory, 2: temp file */
	unsigned long long mem_held; /* counted in f->spill_mem while it runs */
	bool io_error;
	int io_errno;
	long long last_body_ms; /* when the last body bytes came */
	bool deadline_capped;   /* its timeout is the time left before the deadline */
	bool stalled;           /* given up by the stall check, not by curl */
	long long start_ms;     /* this attempt began */
	int resent;             /* libcurl sent the request again by itself (on_debug) */
};

/*
 * A response whose body has begun and then brings nothing for this long has
 * stalled: it is given up and retried (a mirror here stopped ~200 bytes short
 * of a 64 KiB range answer in about 1 run in 15, and the whole run then waited
 * out the 30 s request timeout). A server slow to start answering is not
 * affected: only the per-request timeout bounds the wait for the first byte.
 */
#define STALL_MS 5000

/* a transfer ends (or starts over): its body no longer counts against the budget */
static void mem_release(struct rr_fetcher *f, struct slot *s)
{
	f->spill_mem -= s->mem_held;
	s->mem_held = 0;
}

long long rr_fetch_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long now_ms(void)
{
	return rr_fetch_now_ms();
}

/* an unlinked file in $TMPDIR (else /tmp): gone when closed, whatever happens */
int rr_fetch_temp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	path = rr_xasprintf("%s/rocm-resolve-dl.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct slot *s = ud;
	struct rr_fetch *r = s->r;
	size_t n = size * nmemb;

	if ((unsigned long long)r->body_size + n > s->max_body) {
		s->over_limit = true;
		return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	if (s->spill_state == 0) {
		long status = 0;
		curl_off_t cl = -1;
		rr_curl.easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
		if (rr_curl.easy_getinfo(s->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) != CURLE_OK)
			cl = -1;
		bool big = status == 200 && r->spill_over && cl > 0 &&
			   (unsigned long long)cl > r->spill_over;
		s->spill_state = (status == 200 && r->spill) ||
					 (big && s->f->spill_mem + (unsigned long long)cl >
						     s->f->o.spill_memory) ||
					 (status == 206 && r->spill && r->spill_partial)
				     ? 2
				     : 1;
		if (s->spill_state == 1 && big) {
			s->mem_held = (unsigned long long)cl;
			s->f->spill_mem += s->mem_held;
		}
		if (s->spill_state == 2 && r->fd < 0 && (r->fd = rr_fetch_temp_fd()) < 0) {
			s->io_error = true;
			s->io_errno = errno;
			return 0;
		}
		/* the announced length, once: a body grown by doubling held up to twice
		 * its size and copied itself a dozen times on the way (a compressed
		 * answer's length is a lower bound: the buffer grows past it) */
		if (s->spill_state == 1 && cl > 0 && (unsigned long long)cl <= s->max_body)
			rr_strbuf_grow(&r->body, (size_t)cl);
	}
	if (s->spill_state == 2) {
		size_t off = 0;
		while (off < n) {
			ssize_t w = write(r->fd, p + off, n - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				s->io_error = true;
				s->io_errno = w < 0 ? errno : ENOSPC;
				return 0;
			}
			off += (size_t)w;
		}
	} else {
		rr_strbuf_add(&r->body, p, n);
	}
	r->body_size += (long long)n;
	s->f->bytes += n;
	s->last_body_ms = now_ms();
	return n;
}

static void set_header(char **dst, const char *v, size_t n)
{
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	free(*dst);
	*dst = rr_xstrndup(v, n);
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct slot *s = ud;
	size_t n = size * nmemb;
	static const char cr[] = "content-range:";
	static const char ar[] = "accept-ranges:";
	struct {
		const char *name;
		char **dst;
	} want[] = {
		{"etag", &s->r->etag},
		{"last-modified", &s->r->last_modified},
		{"cache-control", &s->r->cache_control},
		{"content-type", &s->r->content_type},
	};

	if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
		/* a new response (redirect hop, 100-continue): forget the previous headers */
		for (size_t i = 0; i < RR_ARRAY_LEN(want); i++)
			*want[i].dst = rr_free(*want[i].dst);
		s->r->total_size = -1;
		s->r->accept_ranges = false;
		return n;
	}
	if (n > sizeof(cr) - 1 && strncasecmp(p, cr, sizeof(cr) - 1) == 0) {
		/* "bytes a-b/total", or "bytes *" "/total" with a 416 */
		RR_AUTOFREE char *v = rr_xstrndup(p + sizeof(cr) - 1, n - (sizeof(cr) - 1));
		const char *slash = strchr(v, '/');
		char *end;
		long long t = slash ? strtoll(slash + 1, &end, 10) : -1;
		if (slash && end != slash + 1 && t >= 0)
			s->r->total_size = t;
		return n;
	}
	if (n > sizeof(ar) - 1 && strncasecmp(p, ar, sizeof(ar) - 1) == 0) {
		RR_AUTOFREE char *v = rr_xstrndup(p + sizeof(ar) - 1, n - (sizeof(ar) - 1));
		s->r->accept_ranges = strstr(v, "bytes") != NULL;
		return n;
	}
	for (size_t i = 0; i < RR_ARRAY_LEN(want); i++) {
		size_t k = strlen(want[i].name);
		if (n > k && p[k] == ':' && strncasecmp(p, want[i].name, k) == 0) {
			set_header(want[i].dst, p + k + 1, n - k - 1);
			break;
		}
	}
	return n;
}

/*
 * libcurl sends a request again by itself, on a fresh connection, when the reused one
 * it went out on had died before any answer (or an HTTP/2 stream was refused), and says
 * so only in its verbose text: each such resend is counted, so that the attempts the
 * user is told are the requests made on the wire (the rest of the text is dropped)
 */
static int on_debug(CURL *h, curl_infotype type, char *data, size_t size, void *ud)
{
	static const char said[] = "retrying a fresh connect";
	struct slot *s = ud;

	(void)h;
	if (type == CURLINFO_TEXT && memmem(data, size, said, sizeof(said) - 1))
		s->resent++;
	return 0;
}

static void setup_easy(struct rr_fetcher *f, struct slot *s)
{
	struct rr_fetch *r = s->r;
	CURL *e = rr_curl.easy_init();

	if (!e)
		abort();
	s->easy = e;
	s->errbuf[0] = '\0';
	s->over_limit = false;
	s->io_error = false;
	s->spill_state = 0;
	s->last_body_ms = 0;
	s->stalled = false;
	s->deadline_capped = false;
	s->start_ms = now_ms();
	s->resent = 0;
	rr_strbuf_reset(&r->body);
	r->body_size = 0;
	r->total_size = -1;
	r->accept_ranges = false;
	if (r->fd >= 0) {
		/* a retry starts the file over */
		if (ftruncate(r->fd, 0) != 0 || lseek(r->fd, 0, SEEK_SET) != 0) {
			close(r->fd);
			r->fd = -1;
		}
	}
	rr_curl.easy_setopt(e, CURLOPT_URL, r->url);
	rr_curl.easy_setopt(e, CURLOPT_PRIVATE, s);
	rr_curl.easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf);
	rr_curl.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	rr_curl.easy_setopt(e, CURLOPT_WRITEDATA, s);
	rr_curl.easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	rr_curl.easy_setopt(e, CURLOPT_HEADERDATA, s);
	rr_curl.easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
	rr_curl.easy_setopt(e, CURLOPT_DEBUGDATA, s);
	rr_curl.easy_setopt(e, CURLOPT_VERBOSE, 1L);
	rr_curl.easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	rr_curl.easy_setopt(e, CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500
	rr_curl.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https,file");
	rr_curl.easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#endif
	rr_curl.easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	/* waiting to multiplex pays only where HTTP/2 can be negotiated (TLS); on
	 * plain HTTP/1.1 it would serialise the first wave behind one connection */
	if (strncasecmp(r->url, "https:", 6) == 0)
		rr_curl.easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	/* pages may come compressed; dists never: a byte range of a compressed
	 * representation could not be decoded, and they do not shrink anyway */
	if (!r->range && !r->spill)
		rr_curl.easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	rr_curl.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	{
		long t = f->o.timeout_ms;
		if (f->o.deadline_ms > 0) {
			long long left = f->o.deadline_ms - now_ms();
			if (left < 1)
				left = 1;
			s->deadline_capped = left < t;
			if (left < t)
				t = (long)left;
		}
		rr_curl.easy_setopt(e, CURLOPT_TIMEOUT_MS, t);
		rr_curl.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, t < 10000 ? t : 10000L);
	}
	if (r->range)
		rr_curl.easy_setopt(e, CURLOPT_RANGE, r->range);
	if (r->head)
		rr_curl.easy_setopt(e, CURLOPT_NOBODY, 1L);
	rr_curl.easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	rr_curl.easy_setopt(e, CURLOPT_SHARE, f->share);
	/* a HEAD's Content-Length is what it asks for, not a body to refuse */
	if (!r->head)
		rr_curl.easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)s->max_body);
	s->ca_dir = f->ca_dir_first && !f->ca_dir_failed;
	if (s->ca_dir) {
		rr_curl.easy_setopt(e, CURLOPT_CAINFO, (char *)NULL);
		rr_curl.easy_setopt(e, CURLOPT_CAPATH, f->sys_ca_dir);
	} else {
		if (f->cainfo)
			rr_curl.easy_setopt(e, CURLOPT_CAINFO, f->cainfo);
		else if (f->ca_dir_first)
			rr_curl.easy_setopt(e, CURLOPT_CAINFO, f->sys_ca_file);
		if (f->capath)
			rr_curl.easy_setopt(e, CURLOPT_CAPATH, f->capath);
	}
	if (f->o.user_agent)
		rr_curl.easy_setopt(e, CURLOPT_USERAGENT, f->o.user_agent);
	if (r->userpwd) {
		rr_curl.easy_setopt(e, CURLOPT_USERPWD, r->userpwd);
		rr_curl.easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	}
	if (!s->headers) {
		char *h;
		if (r->accept) {
			h = rr_xasprintf("Accept: %s", r->accept);
			s->headers = rr_curl.slist_append(s->headers, h);
			free(h);
		}
		if (r->if_none_match) {
			h = rr_xasprintf("If-None-Match: %s", r->if_none_match);
			s->headers = rr_curl.slist_append(s->headers, h);
			free(h);
		}
		if (r->if_modified_since) {
			h = rr_xasprintf("If-Modified-Since: %s", r->if_modified_since);
			s->headers = rr_curl.slist_append(s->headers, h);
			free(h);
		}
	}
	if (s->headers)
		rr_curl.easy_setopt(e, CURLOPT_HTTPHEADER, s->headers);
	r->attempts++;
	f->transfers++;
}

static bool retryable_curl(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_BAD_CONTENT_ENCODING:
	case CURLE_WEIRD_SERVER_REPLY:
		return true;
	default:
		return false;
	}
}

/* a transfer finished: decide between done and retry; true when done */
static bool finish(struct rr_fetcher *f, struct slot *s, CURLcode rc)
{
	struct rr_fetch *r = s->r;
	long status = 0;
	char *eff = NULL;
	bool retry;

	rr_curl.easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	rr_curl.easy_getinfo(s->easy, CURLINFO_EFFECTIVE_URL, &eff);
	r->status = status;
	/* libcurl's own resends were attempts too: counted, and they use up the retries */
	r->attempts += s->resent;
	{
		curl_off_t cl = -1;
		if (rr_curl.easy_getinfo(s->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) !=
		    CURLE_OK)
			cl = -1;
		r->content_length = cl;
	}
	free(r->effective_url);
	r->effective_url = NULL;
	if (eff)
		rr_url_split_userinfo(eff, &r->effective_url, NULL);
	if (rc == CURLE_PEER_FAILED_VERIFICATION && s->ca_dir) {
		/* not by the directory: the bundle file may hold a CA added to it by hand.
		 * From now on the file, for this transfer (and every other that was started
		 * with the directory) at once, not counted as a retry */
		f->ca_dir_failed = true;
		r->attempts--;
		s->due_ms = now_ms();
		return false;
	}
	if (rc == CURLE_OK)
		retry = status >= 500 || status == 429;
	else
		retry = !s->over_limit && !s->io_error && rc != CURLE_FILESIZE_EXCEEDED &&
			retryable_curl(rc);

	if (retry && !r->once && r->attempts <= f->o.retries) {
		long long delay = f->o.backoff_ms << (r->attempts - 1);
		if (delay > 10000)
			delay = 10000;
		/* no retry that could not finish before the deadline */
		if (!f->o.deadline_ms || now_ms() + delay < f->o.deadline_ms) {
			s->due_ms = now_ms() + delay;
			return false;
		}
	}
	/* a timeout the deadline set is the deadline, even when curl's clock fired a
	 * millisecond before ours (the message must name --timeout either way) */
	if (f->o.deadline_ms && rc != CURLE_OK &&
	    (now_ms() >= f->o.deadline_ms ||
	     (s->deadline_capped && rc == CURLE_OPERATION_TIMEDOUT && !s->stalled))) {
		r->rc = rr_fail(&r->err, RR_E_NETWORK,
				"%s: the time allowed for index requests ran out (--timeout), after "
				"%d attempt%s",
				s->redacted, r->attempts, r->attempts == 1 ? "" : "s");
	} else if (s->io_error) {
		r->rc = rr_fail(&r->err, RR_E_IO, "%s: cannot write the download to a temporary "
				"file in $TMPDIR: %s", s->redacted, strerror(s->io_errno));
	} else if (s->over_limit || rc == CURLE_FILESIZE_EXCEEDED) {
		r->rc = rr_fail(&r->err, RR_E_LIMIT, "%s: response larger than %zu bytes",
				s->redacted, s->max_body);
	} else if (rc != CURLE_OK) {
		r->rc = rr_fail(&r->err, RR_E_NETWORK, "%s: %s (after %d attempt%s)", s->redacted,
				s->errbuf[0] ? s->errbuf : rr_curl.easy_strerror(rc), r->attempts,
				r->attempts == 1 ? "" : "s");
		/* curl's message may quote the URL it was given */
		char *m = rr_redact_credentials(r->err.msg);
		free(r->err.msg);
		r->err.msg = m;
	} else if (status >= 500 || status == 429) {
		r->rc = rr_fail(&r->err, RR_E_HTTP, "%s: HTTP %ld (after %d attempt%s)", s->redacted,
				status, r->attempts, r->attempts == 1 ? "" : "s");
	} else {
		r->rc = RR_OK;
	}
	return true;
}

static void slot_free(struct rr_fetcher *f, struct slot *s)
{
	mem_release(f, s);
	if (s->easy) {
		rr_curl.multi_remove_handle(f->multi, s->easy);
		rr_curl.easy_cleanup(s->easy);
	}
	rr_curl.slist_free_all(s->headers);
	free(s->redacted);
	free(s);
}

static void tell(struct rr_fetcher *f, struct slot *s)
{
	curl_off_t conn_us = 0;
	long nconn = 0;
	struct rr_index_event ev = {.url = s->redacted,
				    .status = s->r->status,
				    .bytes = (unsigned long long)s->r->body_size,
				    .running = f->running,
				    .transfers = f->transfers,
				    .total_bytes = f->bytes};

	if (!f->o.observe)
		return;
	/* a new connection's set-up: TCP and, over https, TLS (0 for a reused one) */
	rr_curl.easy_getinfo(s->easy, CURLINFO_NUM_CONNECTS, &nconn);
	if (nconn > 0 &&
	    (rr_curl.easy_getinfo(s->easy, CURLINFO_APPCONNECT_TIME_T, &conn_us) != CURLE_OK ||
	     conn_us <= 0))
		rr_curl.easy_getinfo(s->easy, CURLINFO_CONNECT_TIME_T, &conn_us);
	ev.range = s->r->range;
	ev.total = s->r->total_size;
	ev.accept = s->r->accept;
	ev.head = s->r->head;
	ev.start_s = (double)(s->start_ms - f->t0_ms) / 1000.0;
	ev.end_s = (double)(now_ms() - f->t0_ms) / 1000.0;
	ev.connect_s = nconn > 0 ? (double)conn_us / 1e6 : 0.0;
	ev.resent = s->resent;
	ev.guess = s->r->guess;
	f->o.observe(f->o.observe_ctx, &ev);
}

/* s leaves the live list; the order of the others does not matter (seq keeps it) */
static void unlive(struct rr_fetcher *f, struct slot *s)
{
	for (size_t i = 0; i < f->nlive; i++) {
		if (f->live[i] == s) {
			f->live[i] = f->live[--f->nlive];
			return;
		}
	}
}

/* a transfer ended (or was given up): retried later, or finished and its owner told */
static void complete(struct rr_fetcher *f, struct slot *s, CURLcode rc)
{
	struct rr_fetch *r = s->r;
	bool finished;

	rr_curl.multi_remove_handle(f->multi, s->easy);
	s->running = false;
	f->running--;
	mem_release(f, s);
	finished = finish(f, s, rc);
	tell(f, s);
	rr_curl.easy_cleanup(s->easy);
	s->easy = NULL;
	if (!finished)
		return;
	unlive(f, s);
	slot_free(f, s);
	r->finished = true;
	/* last: the callback may submit more, or let r go */
	if (r->done)
		r->done(r->done_ud, r);
}

void rr_fetch_submit(struct rr_fetcher *f, struct rr_fetch *r)
{
	struct slot *s = rr_xcalloc(1, sizeof(*s));

	r->fd = -1;
	r->body_size = 0;
	r->total_size = -1;
	r->content_length = -1;
	r->rc = RR_OK;
	r->attempts = 0;
	r->finished = false;
	rr_strbuf_init(&r->body);
	s->f = f;
	s->r = r;
	s->max_body = r->max_body ? r->max_body : DEFAULT_MAX_BODY;
	s->redacted = rr_url_redact(r->url);
	s->seq = f->seq++;
	RR_PUSH(f->live, f->nlive, f->cap_live) = s;
}

/* the next slot to start: due, not running, highest priority, then oldest */
static struct slot *next_to_start(struct rr_fetcher *f, long long now, long long *next_due)
{
	struct slot *best = NULL;

	for (size_t i = 0; i < f->nlive; i++) {
		struct slot *s = f->live[i];
		if (s->running)
			continue;
		if (s->due_ms > now) {
			if (*next_due < 0 || s->due_ms < *next_due)
				*next_due = s->due_ms;
			continue;
		}
		if (!best || s->r->priority > best->r->priority ||
		    (s->r->priority == best->r->priority && s->seq < best->seq))
			best = s;
	}
	return best;
}

bool rr_fetch_step(struct rr_fetcher *f, int wait_ms)
{
	long long now = now_ms();
	long long next_due = -1;
	struct {
		struct slot *s;
		CURLcode rc;
	} *ended = NULL;
	size_t nended = 0, cap_ended = 0;
	int still = 0;
	CURLMsg *m;
	int left;
	struct slot *s;

	/* start what may start; what the deadline left no time for fails unstarted */
	while (f->running < (size_t)f->o.max_parallel && (s = next_to_start(f, now, &next_due))) {
		if (f->o.deadline_ms && now >= f->o.deadline_ms) {
			struct rr_fetch *r = s->r;
			r->rc = rr_fail(&r->err, RR_E_NETWORK,
					"%s: the time allowed for index requests ran out "
					"(--timeout)%s",
					s->redacted, r->attempts ? " while retrying" : "");
			unlive(f, s);
			slot_free(f, s);
			r->finished = true;
			if (r->done)
				r->done(r->done_ud, r);
			continue;
		}
		setup_easy(f, s);
		rr_curl.multi_add_handle(f->multi, s->easy);
		s->running = true;
		f->running++;
	}
	rr_curl.multi_perform(f->multi, &still);
	/* the ended transfers first, their callbacks after: a callback may add more */
	while ((m = rr_curl.multi_info_read(f->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		rr_curl.easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
		RR_PUSH(ended, nended, cap_ended).s = s;
		ended[nended - 1].rc = m->data.result;
	}
	now = now_ms();
	for (size_t i = 0; i < f->nlive; i++) {
		s = f->live[i];
		if (s->running && s->last_body_ms && now - s->last_body_ms >= STALL_MS) {
			bool dup = false;
			for (size_t k = 0; k < nended && !dup; k++)
				dup = ended[k].s == s;
			if (dup)
				continue;
			snprintf(s->errbuf, sizeof(s->errbuf),
				 "stalled: no data for %d s in the middle of the response",
				 STALL_MS / 1000);
			s->stalled = true;
			RR_PUSH(ended, nended, cap_ended).s = s;
			ended[nended - 1].rc = CURLE_OPERATION_TIMEDOUT;
		}
	}
	for (size_t i = 0; i < nended; i++)
		complete(f, ended[i].s, ended[i].rc);
	free(ended);
	if (f->o.observe) {
		struct rr_index_event ev = {.running = f->running,
					    .transfers = f->transfers,
					    .total_bytes = f->bytes};
		f->o.observe(f->o.observe_ctx, &ev);
	}
	if (!f->nlive && !wait_ms)
		return false;
	if (!nended && wait_ms) {
		/* nothing happened: wait for the sockets, a retry's time, or a wakeup */
		int timeout = wait_ms < 0 || wait_ms > 1000 ? 1000 : wait_ms;
		if (next_due >= 0) {
			long long d = next_due - now_ms();
			timeout = d < 0 ? 0 : d < timeout ? (int)d : timeout;
		}
		if (f->running && f->o.deadline_ms) {
			long long d = f->o.deadline_ms - now_ms();
			timeout = d < 0 ? 0 : d < timeout ? (int)d : timeout;
		}
		rr_curl.multi_poll(f->multi, NULL, 0, timeout, NULL);
	}
	return f->nlive > 0;
}

void rr_fetch_prioritize(struct rr_fetcher *f, struct rr_fetch *r, int priority)
{
	if (r->finished || r->priority >= priority)
		return;
	r->priority = priority; /* read when it is next picked to start */
	(void)f;
}

void rr_fetch_wakeup(struct rr_fetcher *f)
{
	rr_curl.multi_wakeup(f->multi);
}

void rr_fetch_run(struct rr_fetcher *f, struct rr_fetch *reqs, size_t n)
{
	size_t left = n;

	for (size_t i = 0; i < n; i++)
		rr_fetch_submit(f, &reqs[i]);
	while (left) {
		left = 0;
		for (size_t i = 0; i < n; i++)
			left += !reqs[i].finished;
		if (left)
			rr_fetch_step(f, 1000);
	}
}

/* ---- URL helpers (curl's URL API) ----
 * They answer "not a URL" when libcurl cannot be loaded; callers that need
 * the reason call rr_curl_load() first (rr_index_client_new does). */

char *rr_url_join(const char *base, const char *ref)
{
	CURLU *u;
	char *out = NULL;
	char *ret = NULL;

	if (rr_curl_load(NULL) != RR_OK)
		return NULL;
	u = rr_curl.url();
	if (rr_curl.url_set(u, CURLUPART_URL, base, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
	    rr_curl.url_set(u, CURLUPART_URL, ref, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
	    rr_curl.url_get(u, CURLUPART_URL, &out, 0) == CURLUE_OK) {
		ret = rr_xstrdup(out);
	}
	rr_curl.free(out);
	rr_curl.url_cleanup(u);
	return ret;
}

char *rr_url_realm(const char *url)
{
	CURLU *u;
	char *scheme = NULL;
	char *host = NULL;
	char *port = NULL;
	char *ret = NULL;

	if (rr_curl_load(NULL) != RR_OK)
		return NULL;
	u = rr_curl.url();
	if (rr_curl.url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
	    rr_curl.url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    rr_curl.url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    rr_curl.url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		ret = rr_xasprintf("%s://%s:%s", scheme, host, port);
		for (char *p = ret; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
	}
	rr_curl.free(scheme);
	rr_curl.free(host);
	rr_curl.free(port);
	rr_curl.url_cleanup(u);
	return ret;
}

size_t rr_url_segment(const char *url, size_t *start)
{
	size_t end = strcspn(url, "?#");

	*start = end;
	while (*start > 0 && url[*start - 1] != '/')
		(*start)--;
	return end;
}

char *rr_url_basename(const char *url)
{
	size_t start, end = rr_url_segment(url, &start);
	char *ret, *w;

	/* decoding only shortens: one allocation, once per file of every page */
	ret = w = rr_xmalloc(end - start + 1);
	for (size_t i = start; i < end; i++) {
		int hi, lo;
		if (url[i] == '%' && i + 2 < end && (hi = rr_hex_digit(url[i + 1])) >= 0 &&
		    (lo = rr_hex_digit(url[i + 2])) >= 0) {
			*w++ = (char)(hi * 16 + lo);
			i += 2;
		} else {
			*w++ = url[i];
		}
	}
	*w = '\0';
	return ret;
}

/* textual on purpose: it must work on strings that are not valid URLs too */
char *rr_url_redact(const char *url)
{
	return url ? rr_redact_credentials(url) : NULL;
}
