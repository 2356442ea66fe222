/* KFD topology: the GPU architecture without loading HIP (the amdgpu driver publishes it) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu/gpu.h"
#include "rocm-resolve/strbuf.h"

bool rr_gpu_sysfs_has_kfd(const char *root)
{
	RR_AUTOFREE char *p = rr_xasprintf("%s/dev/kfd", root);
	struct stat stbuf;

	return stat(p, &stbuf) == 0;
}

bool rr_gpu_gfx_from_target_version(unsigned v, char out[24])
{
	unsigned major = v / 10000, minor = v / 100 % 100, step = v % 100;

	if (!v || !major || minor > 15 || step > 15)
		return false;
	/* the stepping is one hex digit: 90010 is gfx90a */
	snprintf(out, 24, "gfx%u%x%x", major, minor, step);
	return true;
}

static int cmp_node(const void *a, const void *b)
{
	const struct rr_kfd_gpu *x = a, *y = b;

	return (x->node > y->node) - (x->node < y->node);
}

size_t rr_gpu_sysfs_gpus(const char *root, struct rr_kfd_gpu **ret)
{
	RR_AUTOFREE char *dir = rr_xasprintf("%s/sys/class/kfd/kfd/topology/nodes", root);
	struct rr_kfd_gpu *gpus = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir(dir);
	struct dirent *de;

	*ret = NULL;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		RR_AUTOFREE char *props = NULL;
		uint64_t node;
		unsigned gtv = 0;
		const char *line;

		if (!rr_parse_u64(de->d_name, strlen(de->d_name), &node))
			continue;
		props = rr_xasprintf("%s/%s/properties", dir, de->d_name);
		if (rr_strbuf_read_file(&sb, props, 1 << 20, NULL))
			continue;
		/* "gfx_target_version 90402" on a line of its own; CPU nodes say 0 */
		for (line = sb.buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			if (rr_str_startswith(line, "gfx_target_version ")) {
				gtv = (unsigned)strtoul(line + strlen("gfx_target_version "), NULL, 10);
				break;
			}
		}
		if (!gtv)
			continue;
		struct rr_kfd_gpu *g = &RR_PUSH(gpus, n, cap);
		g->node = (unsigned)node;
		g->gfx_target_version = gtv;
		if (!rr_gpu_gfx_from_target_version(gtv, g->arch))
			snprintf(g->arch, sizeof(g->arch), "gfx?(%u)", gtv);
	}
	closedir(d);
	if (n)
		rr_qsort(gpus, n, sizeof(*gpus), cmp_node);
	*ret = gpus;
	return n;
}
