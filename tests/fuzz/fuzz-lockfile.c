/*
 * libFuzzer: uv.lock and pylock.toml from memory (toml++ behind the C API), then
 * what installing them selects in a default environment. The first byte picks the
 * format; the rest is the file. An error always carries a message; a selection
 * always yields items with a path and a parsed requirement.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rocm-resolve/lockfile.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_lock lk = RR_LOCK_INIT;
	struct rr_reqset set = RR_REQSET_INIT;
	rr_error err = RR_ERROR_INIT;
	struct rr_marker_env env;
	const char *groups[] = {"dev"};
	struct rr_input_sel sel = {.all_extras = true, .groups = groups, .ngroups = 1};
	enum rr_lock_format f;
	rr_err rc;

	if (!size)
		return 0;
	f = data[0] & 1 ? RR_LOCK_PYLOCK : RR_LOCK_UV;
	/* a directory without a pyproject.toml: nothing beside the lock is read */
	lk.dir = rr_xstrdup("/nonexistent-rr-fuzz");
	rc = rr_lock_parse(&lk, f == RR_LOCK_UV ? "uv.lock" : "pylock.toml", (const char *)data + 1,
			   size - 1, f, &err);
	if (!rc) {
		rr_marker_env_init(&env);
		rc = rr_lock_select(&lk, &env, data[0] & 2 ? &sel : NULL, &set, &err);
		for (size_t i = 0; !rc && i < set.nitems; i++)
			if (!set.items[i].path || !set.items[i].req.name)
				abort();
	}
	if (rc) {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		if (!err.msg)
			abort();
		rr_error_format(&err, &sb);
		rr_strbuf_release(&sb);
	}
	rr_error_release(&err);
	rr_reqset_release(&set);
	rr_lock_release(&lk);
	return 0;
}
