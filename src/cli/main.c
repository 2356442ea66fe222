#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("rocm-resolve %s\n", RR_VERSION);
		return 0;
	}
	fprintf(stderr, "rocm-resolve: not yet wired\n");
	return 70;
}
