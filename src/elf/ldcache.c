/*
 * ldcache.c - the dynamic loader's cache (/etc/ld.so.cache, written by ldconfig), read the way
 * glibc's ld.so reads it: the format "glibc-ld.so.cache1.1", alone or after the old
 * "ld.so-1.7.0" one (string offsets count from the new header), entries for this machine's
 * ABI only (the flags ld.so accepts), the first entry of a name winning. Entries for a
 * glibc-hwcaps subdirectory (x86-64-v3, ...) are left out: the loader picks those by the
 * CPU, and the plain entry of the same name follows them.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf-private.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/util.h"

#define OLD_MAGIC   "ld.so-1.7.0"
#define NEW_MAGIC   "glibc-ld.so.cache"
#define NEW_VERSION "1.1"
#define OLD_HEADER  16 /* magic (11), padding, nlibs */
#define OLD_ENTRY   12 /* flags, key, value */
#define NEW_HEADER  48
#define NEW_ENTRY   24 /* flags, key, value, osversion, hwcap (8) */
#define MAX_CACHE   (64u << 20)

#define FLAG_ELF_LIBC6 0x0003
#if defined(__x86_64__)
#define FLAG_ARCH 0x0300
#elif defined(__aarch64__)
#define FLAG_ARCH 0x0a00
#elif defined(__powerpc64__)
#define FLAG_ARCH 0x0500
#else
#define FLAG_ARCH 0
#endif

struct rr_elf_ldcache {
	struct rr_strmap map; /* name -> path (both allocated) */
};

static uint32_t u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4); /* the cache is in the host's byte order */
	return v;
}

static uint64_t u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static bool flags_ok(int32_t flags)
{
	return flags == FLAG_ELF_LIBC6 || flags == (FLAG_ELF_LIBC6 | FLAG_ARCH);
}

/* a NUL-terminated string at off in [base, end), or NULL */
static const char *string_at(const unsigned char *base, const unsigned char *end, uint32_t off)
{
	const unsigned char *s = base + off;

	if (off >= (size_t)(end - base) || !memchr(s, '\0', (size_t)(end - s)))
		return NULL;
	return (const char *)s;
}

static void add(struct rr_elf_ldcache *c, const char *name, const char *path)
{
	void **slot = rr_strmap_find(&c->map, name, true);

	if (!*slot)
		*slot = rr_xstrdup(path);
}

struct rr_elf_ldcache *rr_elf_ldcache_parse(const void *data, size_t len)
{
	const unsigned char *buf = data, *end = buf + len, *nw = buf, *strings;
	struct rr_elf_ldcache *c;
	bool old_only = false;
	size_t nlibs;

	if (len >= OLD_HEADER && !memcmp(buf, OLD_MAGIC, strlen(OLD_MAGIC))) {
		size_t nold = u32(buf + 12), off;
		if (nold > (len - OLD_HEADER) / OLD_ENTRY)
			return NULL;
		off = (OLD_HEADER + nold * OLD_ENTRY + 7) & ~(size_t)7;
		if (off + NEW_HEADER <= len &&
		    !memcmp(buf + off, NEW_MAGIC NEW_VERSION, strlen(NEW_MAGIC NEW_VERSION))) {
			nw = buf + off;
		} else {
			old_only = true;
			nlibs = nold;
		}
	} else if (len < NEW_HEADER ||
		   memcmp(buf, NEW_MAGIC NEW_VERSION, strlen(NEW_MAGIC NEW_VERSION))) {
		return NULL;
	}
	c = rr_xcalloc(1, sizeof(*c));
	if (old_only) {
		/* offsets count from the end of the entries */
		strings = buf + OLD_HEADER + nlibs * OLD_ENTRY;
		for (size_t i = 0; i < nlibs; i++) {
			const unsigned char *e = buf + OLD_HEADER + i * OLD_ENTRY;
			const char *k = string_at(strings, end, u32(e + 4));
			const char *v = string_at(strings, end, u32(e + 8));
			if (k && v && flags_ok((int32_t)u32(e)))
				add(c, k, v);
		}
		return c;
	}
	nlibs = u32(nw + 20);
	if (nlibs > (size_t)(end - nw - NEW_HEADER) / NEW_ENTRY)
		return rr_elf_ldcache_free(c);
	for (size_t i = 0; i < nlibs; i++) {
		const unsigned char *e = nw + NEW_HEADER + i * NEW_ENTRY;
		const char *k = string_at(nw, end, u32(e + 4));
		const char *v = string_at(nw, end, u32(e + 8));
		if (k && v && flags_ok((int32_t)u32(e)) && u64(e + 16) == 0)
			add(c, k, v);
	}
	return c;
}

struct rr_elf_ldcache *rr_elf_ldcache_load(const char *path)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	if (rr_file_read(AT_FDCWD, path, MAX_CACHE, 0, path, &sb, NULL))
		return NULL;
	return rr_elf_ldcache_parse(sb.buf, sb.len);
}

const char *rr_elf_ldcache_lookup(const struct rr_elf_ldcache *c, const char *name)
{
	void **slot;

	if (!c)
		return NULL;
	slot = rr_strmap_find((struct rr_strmap *)&c->map, name, false);
	return slot ? *slot : NULL;
}

void rr_elf_ldcache_each(const struct rr_elf_ldcache *c,
			 void (*fn)(void *ctx, const char *name, const char *path), void *ctx)
{
	for (size_t i = 0; c && i < c->map.cap; i++)
		if (c->map.slots[i].key)
			fn(ctx, c->map.slots[i].key, c->map.slots[i].val);
}

struct rr_elf_ldcache *rr_elf_ldcache_free(struct rr_elf_ldcache *c)
{
	if (!c)
		return NULL;
	rr_strmap_release(&c->map, free);
	free(c);
	return NULL;
}
