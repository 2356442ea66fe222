// demangle.cc - C++ symbol names for people, through the C++ runtime's own demangler
// (libstdc++, linked already for toml++): no other dependency.
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>

extern "C" {
#include "elf/elf-private.h"
}

extern "C" char *rr_elf_demangle(const char *sym)
{
	int status = 0;

	if (std::strncmp(sym, "_Z", 2) != 0)
		return nullptr;
	// malloc'd by the runtime, freed by the caller with free()
	char *out = abi::__cxa_demangle(sym, nullptr, nullptr, &status);
	if (status != 0) {
		std::free(out);
		return nullptr;
	}
	return out;
}
