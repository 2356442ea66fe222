/*
 * dlopen-oracle - what the real loader says (tests/elf/oracle-test.py): dlopen() each
 * --preload (RTLD_LOCAL) or --preload-global (RTLD_GLOBAL) file, then FILE, all RTLD_NOW,
 * in this fresh process; prints "ok" or "error\t<dlerror()>". Exit 0 either way; 2 when a
 * preload itself fails (the test's setup is wrong).
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *file = NULL;

	for (int i = 1; i < argc; i++) {
		bool global = !strcmp(argv[i], "--preload-global");
		if ((global || !strcmp(argv[i], "--preload")) && i + 1 < argc) {
			if (!dlopen(argv[++i], RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL))) {
				printf("preload-error\t%s\n", dlerror());
				return 2;
			}
		} else {
			file = argv[i];
		}
	}
	if (!file)
		return 2;
	if (dlopen(file, RTLD_NOW))
		printf("ok\n");
	else
		printf("error\t%s\n", dlerror());
	return 0;
}
