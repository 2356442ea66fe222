/*
 * dl-curl.c - binds libcurl on first use (see dl-private.h for why).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "index/dl-private.h"

struct rr_curl_syms rr_curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[512];

static void load(void)
{
	struct rr_curl_syms t;
	void *h = dlopen(RR_LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, sizeof(why), "%s", dlerror());
		return;
	}
#define RR_DL_BIND(n)                                                                              \
	if (!(t.n = (__typeof__(t.n))dlsym(h, "curl_" #n))) {                                      \
		snprintf(why, sizeof(why), "%s", dlerror());                                       \
		dlclose(h);                                                                        \
		return;                                                                            \
	}
	RR_CURL_SYMBOLS(RR_DL_BIND)
#undef RR_DL_BIND
	/* before any other curl call, and only once: not thread-safe in old curls */
	if (t.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(why, sizeof(why), "curl_global_init() failed");
		return; /* the library stays mapped: it may have half-initialised itself */
	}
	rr_curl = t;
	loaded = true;
}

rr_err rr_curl_load(rr_error *err)
{
	pthread_once(&once, load);
	if (loaded)
		return RR_OK;
	return rr_fail(err, RR_E_ENV,
		       "cannot load " RR_LIBCURL_SONAME " (needed to talk to the package index): %s; "
		       "install " RR_LIBCURL_PACKAGES,
		       why);
}
