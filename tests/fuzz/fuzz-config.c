/*
 * libFuzzer: pip.conf (configparser syntax) and uv.toml (toml++) through
 * rr_config_load. The input is written to a file named by PIP_CONFIG_FILE or
 * UV_CONFIG_FILE (the first byte picks which), in a private directory, so no
 * other configuration of the machine is read.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocm-resolve/config.h"
#include "rocm-resolve/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char file[96];
static char kv[128];

static const char *fuzz_getenv(const char *name)
{
	if (strcmp(name, "HOME") == 0)
		return dir;
	if (strcmp(name, "PIP_CONFIG_FILE") == 0 || strcmp(name, "UV_CONFIG_FILE") == 0)
		return kv;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_installer_config c;
	struct rr_config_env e = {dir, dir, NULL, fuzz_getenv};
	rr_error err = RR_ERROR_INIT;
	enum rr_installer inst;
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/rr-fuzz-config-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(file, sizeof(file), "%s/config", dir);
		snprintf(kv, sizeof(kv), "%s", file);
	}
	if (!size)
		return 0;
	inst = data[0] & 1 ? RR_INSTALLER_UV : RR_INSTALLER_PIP;
	f = fopen(file, "wb");
	if (!f)
		abort();
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);
	if (rr_config_load(inst, &e, &c, &err) == RR_OK) {
		for (size_t i = 0; i < c.nindexes; i++)
			if (!c.indexes[i].value || !c.indexes[i].origin)
				abort();
		rr_config_release(&c);
	} else {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		if (!err.msg)
			abort();
		rr_error_format(&err, &sb);
		rr_strbuf_release(&sb);
	}
	rr_error_release(&err);
	return 0;
}
