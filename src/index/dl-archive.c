/*
 * dl-archive.c - binds libarchive on first use (see dl-private.h for why).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "index/dl-private.h"

struct rr_archive_syms rr_archive;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char why[512];

static void load(void)
{
	struct rr_archive_syms t;
	void *h = dlopen(RR_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, sizeof(why), "%s", dlerror());
		return;
	}
#define RR_DL_BIND(n)                                                                              \
	if (!(t.n = (__typeof__(t.n))dlsym(h, "archive_" #n))) {                                   \
		snprintf(why, sizeof(why), "%s", dlerror());                                       \
		dlclose(h);                                                                        \
		return;                                                                            \
	}
	RR_ARCHIVE_SYMBOLS(RR_DL_BIND)
#undef RR_DL_BIND
	rr_archive = t;
	loaded = true;
}

rr_err rr_archive_load(rr_error *err)
{
	pthread_once(&once, load);
	if (loaded)
		return RR_OK;
	return rr_fail(err, RR_E_ENV,
		       "cannot load " RR_LIBARCHIVE_SONAME
		       " (needed to read metadata out of wheels and sdists): %s; "
		       "install " RR_LIBARCHIVE_PACKAGES,
		       why);
}
