/*
 * object.c - one ELF object as the dynamic loader sees it, read with elfutils' libelf (the
 * only file that uses it; bound with dlopen() on first use, see rr_elf_lib_load): the header checks ld.so makes, DT_NEEDED, DT_SONAME, DT_RPATH /
 * DT_RUNPATH, DT_FLAGS_1, the dynamic symbols with their versions, and the versions the
 * object needs (verneed). Nothing here executes or maps the object for running.
 *
 * The dynamic section and the symbol tables are found through the section headers (as
 * every linker writes them); an object without them reads as one with no dependencies.
 */
#include <dlfcn.h>
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf-private.h"
#include "rocm-resolve/util.h"

/*
 * libelf is dlopen()ed, not linked: the wheel would bundle the build machine's libelf, and
 * Debian 12's needs glibc 2.33 (fstat), beyond the wheel's manylinux tag
 * (tools/check-symbols.py); every ROCm installation has libelf.so.1 (the HSA runtime
 * links it). The soname is the ABI the headers describe.
 */
#define LIBELF_SONAME "libelf.so.1"
#define LIBELF_PACKAGES                                                                            \
	"libelf1 (Debian, Ubuntu: apt-get install libelf1) or elfutils-libelf (Fedora, RHEL)"
#define LIBELF_SYMBOLS(X)                                                                          \
	X(elf_begin)                                                                               \
	X(elf_cntl)                                                                                \
	X(elf_end)                                                                                 \
	X(elf_errmsg)                                                                              \
	X(elf_getdata)                                                                             \
	X(elf_kind)                                                                                \
	X(elf_memory)                                                                              \
	X(elf_nextscn)                                                                             \
	X(elf_strptr)                                                                              \
	X(elf_version)                                                                             \
	X(gelf_fsize)                                                                              \
	X(gelf_getdyn)                                                                             \
	X(gelf_getehdr)                                                                            \
	X(gelf_getshdr)                                                                            \
	X(gelf_getsym)                                                                             \
	X(gelf_getverdaux)                                                                         \
	X(gelf_getverdef)                                                                          \
	X(gelf_getvernaux)                                                                         \
	X(gelf_getverneed)                                                                         \
	X(gelf_getversym)

static struct {
#define LIBELF_MEMBER(n) __typeof__(n) *n;
	LIBELF_SYMBOLS(LIBELF_MEMBER)
#undef LIBELF_MEMBER
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static bool lib_loaded;
static char lib_why[512];

static void lib_bind(void)
{
	void *h = dlopen(LIBELF_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(lib_why, sizeof(lib_why), "%s", dlerror());
		return;
	}
#define LIBELF_BIND(n)                                                                             \
	if (!(lib.n = (__typeof__(lib.n))dlsym(h, #n))) {                                          \
		snprintf(lib_why, sizeof(lib_why), "%s", dlerror());                               \
		dlclose(h);                                                                        \
		return;                                                                            \
	}
	LIBELF_SYMBOLS(LIBELF_BIND)
#undef LIBELF_BIND
	lib.elf_version(EV_CURRENT);
	lib_loaded = true;
}

rr_err rr_elf_lib_load(rr_error *err)
{
	pthread_once(&lib_once, lib_bind);
	if (lib_loaded)
		return RR_OK;
	return rr_fail(err, RR_E_ENV,
		       "cannot load " LIBELF_SONAME " (needed to read ELF files for the load "
		       "check): %s; install " LIBELF_PACKAGES,
		       lib_why);
}

#if defined(__x86_64__)
#define HOST_CLASS   ELFCLASS64
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_CLASS   ELFCLASS64
#define HOST_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define HOST_CLASS   ELFCLASS64
#define HOST_MACHINE EM_PPC64
#elif defined(__i386__)
#define HOST_CLASS   ELFCLASS32
#define HOST_MACHINE EM_386
#else
#define HOST_CLASS   (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)
#define HOST_MACHINE EM_NONE /* any */
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA     ELFDATA2LSB
#define HOST_DATA_MSG "ELF file data encoding not little-endian"
#else
#define HOST_DATA     ELFDATA2MSB
#define HOST_DATA_MSG "ELF file data encoding not big-endian"
#endif

static uint16_t get16(const unsigned char *p, bool lsb)
{
	return lsb ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)(p[1] | p[0] << 8);
}

static uint32_t get32(const unsigned char *p, bool lsb)
{
	return lsb ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24
		   : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
			 (uint32_t)p[0] << 24;
}

/* the checks of glibc's open_verify, in its order and with its words */
enum rr_elf_fit rr_elf_check_header(const unsigned char *buf, size_t len, const char **why)
{
	size_t ehdr = HOST_CLASS == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phent = HOST_CLASS == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	bool lsb;
	uint16_t type, machine, phentsize;

	*why = NULL;
	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG)) {
		*why = len < ehdr ? "file too short" : "invalid ELF header";
		return RR_ELF_BAD;
	}
	if (buf[EI_CLASS] != HOST_CLASS) {
		*why = buf[EI_CLASS] == ELFCLASS32 ? "wrong ELF class: ELFCLASS32"
						   : "wrong ELF class: ELFCLASS64";
		return RR_ELF_OTHER;
	}
	if (len < ehdr) {
		*why = "file too short";
		return RR_ELF_BAD;
	}
	if (buf[EI_DATA] != HOST_DATA)
		*why = HOST_DATA_MSG;
	else if (buf[EI_VERSION] != EV_CURRENT)
		*why = "ELF file version ident does not match current one";
	else if (buf[EI_OSABI] != ELFOSABI_SYSV && buf[EI_OSABI] != ELFOSABI_GNU)
		*why = "ELF file OS ABI invalid";
	else if (buf[EI_OSABI] == ELFOSABI_SYSV ? buf[EI_ABIVERSION] != 0 : buf[EI_ABIVERSION] > 4)
		*why = "ELF file ABI version invalid";
	else
		for (size_t i = EI_PAD; i < EI_NIDENT && !*why; i++)
			if (buf[i])
				*why = "nonzero padding in e_ident";
	if (*why)
		return RR_ELF_BAD;
	lsb = buf[EI_DATA] == ELFDATA2LSB;
	type = get16(buf + 16, lsb);
	machine = get16(buf + 18, lsb);
	if (get32(buf + 20, lsb) != EV_CURRENT) {
		*why = "ELF file version does not match current one";
		return RR_ELF_BAD;
	}
	if (HOST_MACHINE != EM_NONE && machine != HOST_MACHINE) {
		*why = "built for another machine";
		return RR_ELF_OTHER;
	}
	phentsize = get16(buf + (HOST_CLASS == ELFCLASS64 ? 54 : 42), lsb);
	if (type != ET_DYN && type != ET_EXEC) {
		*why = "only ET_DYN and ET_EXEC can be loaded";
		return RR_ELF_BAD;
	}
	if (phentsize != phent) {
		*why = "ELF file's phentsize not the expected size";
		return RR_ELF_BAD;
	}
	return RR_ELF_OK;
}

/* ---- the symbol index: open addressing by name ---- */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static void build_index(struct rr_elf_obj *o)
{
	size_t cap = 16;

	while (cap < o->ndefs * 2)
		cap *= 2;
	o->index_cap = cap;
	o->index = rr_xmalloc(cap * sizeof(*o->index));
	memset(o->index, 0xff, cap * sizeof(*o->index));
	for (size_t i = 0; i < o->ndefs; i++) {
		size_t at = name_hash(o->defs[i].name) & (cap - 1);
		while (o->index[at] != UINT32_MAX)
			at = (at + 1) & (cap - 1);
		o->index[at] = (uint32_t)i;
	}
}

long rr_elf_obj_find(const struct rr_elf_obj *o, const char *name, size_t *cursor)
{
	size_t mask = o->index_cap - 1, at;

	if (!o->index_cap)
		return -1;
	at = *cursor == SIZE_MAX ? name_hash(name) & mask : (*cursor + 1) & mask;
	for (; o->index[at] != UINT32_MAX; at = (at + 1) & mask)
		if (!strcmp(o->defs[o->index[at]].name, name)) {
			*cursor = at;
			return o->index[at];
		}
	*cursor = at;
	return -1;
}

/* ---- reading ---- */

static char *elf_why(const char *what)
{
	return rr_xasprintf("%s: %s", what, lib.elf_errmsg(-1));
}

struct sections {
	Elf_Scn *dynamic, *dynsym, *versym, *verdef, *verneed;
	GElf_Shdr dynamic_sh, dynsym_sh, verdef_sh, verneed_sh;
};

static void find_sections(Elf *elf, struct sections *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = lib.elf_nextscn(elf, scn))) {
		if (!lib.gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNAMIC && !s->dynamic)
			s->dynamic = scn, s->dynamic_sh = sh;
		else if (sh.sh_type == SHT_DYNSYM && !s->dynsym)
			s->dynsym = scn, s->dynsym_sh = sh;
		else if (sh.sh_type == SHT_GNU_versym && !s->versym)
			s->versym = scn;
		else if (sh.sh_type == SHT_GNU_verdef && !s->verdef)
			s->verdef = scn, s->verdef_sh = sh;
		else if (sh.sh_type == SHT_GNU_verneed && !s->verneed)
			s->verneed = scn, s->verneed_sh = sh;
	}
}

static const char *str_at(Elf *elf, size_t link, size_t off)
{
	return lib.elf_strptr(elf, link, off);
}

static void read_dynamic(Elf *elf, const struct sections *s, struct rr_elf_obj *o)
{
	Elf_Data *d = s->dynamic ? lib.elf_getdata(s->dynamic, NULL) : NULL;
	size_t n, cap = 0, link = s->dynamic_sh.sh_link,
		  ent = lib.gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
	const char *rpath = NULL, *runpath = NULL;
	GElf_Dyn dyn;

	if (!d || !ent)
		return;
	n = d->d_size / ent;
	for (size_t i = 0; i < n && lib.gelf_getdyn(d, (int)i, &dyn); i++) {
		const char *str;
		if (dyn.d_tag == DT_NULL)
			break;
		switch (dyn.d_tag) {
		case DT_NEEDED:
			if ((str = str_at(elf, link, dyn.d_un.d_val)))
				RR_PUSH(o->needed, o->nneeded, cap) = str;
			break;
		case DT_SONAME:
			o->soname = str_at(elf, link, dyn.d_un.d_val);
			break;
		case DT_RPATH:
			rpath = str_at(elf, link, dyn.d_un.d_val);
			break;
		case DT_RUNPATH:
			runpath = str_at(elf, link, dyn.d_un.d_val);
			break;
		case DT_FLAGS_1:
			o->flags_1 = dyn.d_un.d_val;
			break;
		}
	}
	/* both given: ld.so ignores DT_RPATH */
	o->runpath = runpath;
	o->rpath = runpath ? NULL : rpath;
}

static void read_verdef(Elf *elf, const struct sections *s, struct rr_elf_obj *o)
{
	Elf_Data *d = s->verdef ? lib.elf_getdata(s->verdef, NULL) : NULL;
	size_t off = 0;
	GElf_Verdef vd;
	GElf_Verdaux va;

	if (!d)
		return;
	/* each entry is at least a Verdef: this bounds the walk however the offsets point */
	for (size_t k = 0; k < d->d_size / sizeof(Elf64_Verdef) + 1; k++) {
		size_t ndx;
		const char *name;
		if (!lib.gelf_getverdef(d, (int)off, &vd))
			break;
		ndx = vd.vd_ndx & 0x7fff;
		if (vd.vd_cnt && lib.gelf_getverdaux(d, (int)(off + vd.vd_aux), &va) &&
		    (name = str_at(elf, s->verdef_sh.sh_link, va.vda_name))) {
			if (ndx >= o->nverdefs) {
				o->verdefs = rr_xrealloc(o->verdefs,
							 (ndx + 1) * sizeof(*o->verdefs));
				memset(o->verdefs + o->nverdefs, 0,
				       (ndx + 1 - o->nverdefs) * sizeof(*o->verdefs));
				o->nverdefs = ndx + 1;
			}
			/* the base entry names the file, not a version */
			if (!(vd.vd_flags & VER_FLG_BASE))
				o->verdefs[ndx] = name;
		}
		if (!vd.vd_next || off + vd.vd_next > d->d_size)
			break;
		off += vd.vd_next;
	}
}

/* the version names the object needs, by their index (vna_other) */
struct need_ix {
	uint16_t ndx;
	const char *name;
	bool hidden;
};

static void read_verneed(Elf *elf, const struct sections *s, struct rr_elf_obj *o,
			 struct need_ix **ix, size_t *nix)
{
	Elf_Data *d = s->verneed ? lib.elf_getdata(s->verneed, NULL) : NULL;
	size_t off = 0, cap = 0, ixcap = 0, budget;
	GElf_Verneed vn;
	GElf_Vernaux va;

	if (!d)
		return;
	budget = d->d_size / sizeof(Elf64_Vernaux) + 1;
	for (; budget; budget--) {
		const char *file;
		size_t aoff;
		if (!lib.gelf_getverneed(d, (int)off, &vn))
			break;
		file = str_at(elf, s->verneed_sh.sh_link, vn.vn_file);
		aoff = off + vn.vn_aux;
		for (size_t j = 0; j < vn.vn_cnt && budget; j++, budget--) {
			const char *name;
			if (aoff > d->d_size || !lib.gelf_getvernaux(d, (int)aoff, &va))
				break;
			name = str_at(elf, s->verneed_sh.sh_link, va.vna_name);
			if (file && name) {
				struct rr_elf_verneed *e = &RR_PUSH(o->verneeds, o->nverneeds, cap);
				e->file = file;
				e->name = name;
				e->weak = va.vna_flags & VER_FLG_WEAK;
				RR_PUSH(*ix, *nix, ixcap) = (struct need_ix){
				    (uint16_t)(va.vna_other & 0x7fff), name, va.vna_other & 0x8000};
			}
			if (!va.vna_next)
				break;
			aoff += va.vna_next;
		}
		if (!vn.vn_next || off + vn.vn_next > d->d_size)
			break;
		off += vn.vn_next;
	}
}

static bool defined_for_lookup(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info), type = GELF_ST_TYPE(sym->st_info);

	/* as ld.so's check_match and do_lookup_x: no value, undefined, other types, local */
	if (sym->st_shndx == SHN_UNDEF)
		return false;
	if (sym->st_value == 0 && sym->st_shndx != SHN_ABS && type != STT_TLS)
		return false;
	if (type != STT_NOTYPE && type != STT_OBJECT && type != STT_FUNC && type != STT_COMMON &&
	    type != STT_TLS && type != STT_GNU_IFUNC)
		return false;
	return bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE;
}

static void read_symbols(Elf *elf, const struct sections *s, struct rr_elf_obj *o,
			 const struct need_ix *ix, size_t nix)
{
	Elf_Data *d = s->dynsym ? lib.elf_getdata(s->dynsym, NULL) : NULL;
	Elf_Data *vs = s->versym ? lib.elf_getdata(s->versym, NULL) : NULL;
	size_t n, nvs, dcap = 0, ucap = 0, link = s->dynsym_sh.sh_link;
	size_t ent = lib.gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	GElf_Sym sym;

	if (!d || !ent)
		return;
	n = d->d_size / ent;
	nvs = vs ? vs->d_size / sizeof(GElf_Versym) : 0;
	o->has_versym = vs != NULL;
	for (size_t i = 1; i < n; i++) {
		GElf_Versym v = 0;
		const char *name;
		if (!lib.gelf_getsym(d, (int)i, &sym))
			break;
		if (GELF_ST_BIND(sym.st_info) == STB_LOCAL)
			continue;
		name = str_at(elf, link, sym.st_name);
		if (!name || !*name)
			continue;
		if (i < nvs)
			lib.gelf_getversym(vs, (int)i, &v);
		if (sym.st_shndx == SHN_UNDEF) {
			struct rr_elf_undef *u = &RR_PUSH(o->undefs, o->nundefs, ucap);
			memset(u, 0, sizeof(*u));
			u->name = name;
			u->weak = GELF_ST_BIND(sym.st_info) == STB_WEAK;
			for (size_t k = 0; (v & 0x7fff) >= 2 && k < nix; k++)
				if (ix[k].ndx == (v & 0x7fff)) {
					u->version = ix[k].name;
					u->hidden = ix[k].hidden;
					break;
				}
		} else if (defined_for_lookup(&sym)) {
			RR_PUSH(o->defs, o->ndefs, dcap) = (struct rr_elf_def){
			    name, (uint16_t)(v & 0x7fff), (v & 0x8000) != 0};
		}
	}
	build_index(o);
}

static struct rr_elf_obj *read_elf(Elf *elf, char **why)
{
	struct rr_elf_obj *o;
	struct sections s = {0};
	struct need_ix *ix = NULL;
	size_t nix = 0;
	GElf_Ehdr eh;

	if (lib.elf_kind(elf) != ELF_K_ELF || !lib.gelf_getehdr(elf, &eh)) {
		*why = elf_why("not an ELF object");
		lib.elf_end(elf);
		return NULL;
	}
	o = rr_xcalloc(1, sizeof(*o));
	o->elf = elf;
	o->cls = eh.e_ident[EI_CLASS];
	o->data = eh.e_ident[EI_DATA];
	o->type = eh.e_type;
	o->machine = eh.e_machine;
	find_sections(elf, &s);
	read_dynamic(elf, &s, o);
	read_verdef(elf, &s, o);
	read_verneed(elf, &s, o, &ix, &nix);
	read_symbols(elf, &s, o, ix, nix);
	free(ix);
	return o;
}

/* NULL with *why when libelf is not there */
static bool have_libelf(char **why)
{
	rr_error err = RR_ERROR_INIT;

	if (rr_elf_lib_load(&err) == RR_OK)
		return true;
	*why = rr_xstrdup(err.msg);
	rr_error_release(&err);
	return false;
}

struct rr_elf_obj *rr_elf_obj_read_fd(int fd, char **why)
{
	Elf *elf;

	if (!have_libelf(why))
		return NULL;
	elf = lib.elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		*why = elf_why("cannot read");
		return NULL;
	}
	/* mapped (or, where mapping failed, read whole): the descriptor is not needed after */
	if (lib.elf_cntl(elf, ELF_C_FDREAD)) {
		*why = elf_why("cannot read");
		lib.elf_end(elf);
		return NULL;
	}
	return read_elf(elf, why);
}

struct rr_elf_obj *rr_elf_obj_read_mem(const void *buf, size_t len, char **why)
{
	Elf *elf;

	if (!have_libelf(why))
		return NULL;
	elf = lib.elf_memory((char *)buf, len);
	if (!elf) {
		*why = elf_why("cannot read");
		return NULL;
	}
	return read_elf(elf, why);
}

struct rr_elf_obj *rr_elf_obj_free(struct rr_elf_obj *o)
{
	if (!o)
		return NULL;
	free(o->needed);
	free(o->defs);
	free(o->index);
	free(o->undefs);
	free(o->verdefs);
	free(o->verneeds);
	if (o->elf)
		lib.elf_end(o->elf);
	free(o);
	return NULL;
}
