/* libFuzzer target: an ELF object read as the load check reads one (the header checks of
 * ld.so, then libelf: dynamic section, symbols, versions), and the loader's cache format */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why = NULL;
	char *owhy = NULL;
	struct rr_elf_obj *o;
	struct rr_elf_ldcache *c;
	/* libelf keeps pointers into the image: a copy that lives as long as the object */
	uint8_t *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	rr_elf_check_header(copy, size, &why);
	o = rr_elf_obj_read_mem(copy, size, &owhy);
	if (o) {
		size_t cursor = SIZE_MAX, n = 0;
		/* everything read must be usable: names, versions, the symbol index */
		for (size_t i = 0; i < o->nneeded; i++)
			n += strlen(o->needed[i]);
		for (size_t i = 0; i < o->nundefs; i++) {
			cursor = SIZE_MAX;
			n += rr_elf_obj_find(o, o->undefs[i].name, &cursor) >= 0;
			n += o->undefs[i].version ? strlen(o->undefs[i].version) : 0;
		}
		for (size_t i = 0; i < o->ndefs; i++) {
			cursor = SIZE_MAX;
			if (rr_elf_obj_find(o, o->defs[i].name, &cursor) < 0)
				__builtin_trap(); /* every definition is in the index */
		}
		for (size_t i = 0; i < o->nverdefs; i++)
			n += o->verdefs[i] ? strlen(o->verdefs[i]) : 0;
		for (size_t i = 0; i < o->nverneeds; i++)
			n += strlen(o->verneeds[i].file) + strlen(o->verneeds[i].name);
		n += o->soname ? strlen(o->soname) : 0;
		n += o->runpath ? strlen(o->runpath) : 0;
		n += o->rpath ? strlen(o->rpath) : 0;
		(void)n;
		rr_elf_obj_free(o);
	} else if (!owhy) {
		__builtin_trap(); /* a refusal says why */
	}
	free(owhy);
	c = rr_elf_ldcache_parse(copy, size);
	rr_elf_ldcache_lookup(c, "libc.so.6");
	rr_elf_ldcache_free(c);
	free(copy);
	return 0;
}
