/*
 * symbols.c - a torch-bound ROCm counterpart (policy rocm_counterpart, torch_bound: the PyG
 * extensions) declares no torch requirement; what it was built against shows only in its
 * extensions' dynamic symbols. The wheel the plan would install is read by range requests
 * (its members named like shared libraries, src/index/members.c) and each is checked by the
 * load check (src/elf) as if installed in the venv, after `import torch`. The verdict rests
 * on torch alone: torch's libraries it links (libc10*, libtorch*) and the undefined symbols
 * in torch's namespaces (c10::, at::, torch::, caffe2::). A library that is not torch's and
 * is not found on this machine (libamdhip64.so.7 where no ROCm is installed) decides
 * nothing: it is named as unknown.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flow/flow-private.h"
#include "flow/transitive-private.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/index-provider.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/loadcheck.h"
#include "rocm-resolve/loadenv.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/venv.h"

#define SHOWN 3 /* missing torch symbols named */

/* libc10.so, libc10_hip.so, libtorch.so, libtorch_cpu.so, libtorch_hip.so, libshm.so */
static bool torch_library(const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;

	return !strncmp(base, "libc10", 6) || !strncmp(base, "libtorch", 8) ||
	       !strncmp(base, "libcaffe2", 9) || !strncmp(base, "libshm.", 7);
}

/* a symbol of torch's namespaces, demangled ("c10::detail::torchCheckFail(char const*)",
 * "typeinfo for c10::Error") or not ("_ZN3c10...") */
bool rr_flow_torch_symbol(const char *sym)
{
	static const char *const mangled[] = {"_ZN3c10",   "_ZNK3c10",   "_ZN2at",     "_ZNK2at",
					      "_ZN5torch", "_ZNK5torch", "_ZN6caffe2", "_ZTIN3c10",
					      "_ZTVN3c10", "_ZTIN2at",   "_ZTVN2at"};
	static const char *const spaces[] = {"c10::", "at::", "torch::", "caffe2::"};
	/* the qualified name, without parameters and template arguments */
	size_t end = strcspn(sym, "(<");

	for (size_t i = 0; i < RR_ARRAY_LEN(mangled); i++)
		if (!strncmp(sym, mangled[i], strlen(mangled[i])))
			return true;
	for (size_t i = 0; i < RR_ARRAY_LEN(spaces); i++)
		for (const char *p = sym; (p = strstr(p, spaces[i])) && (size_t)(p - sym) < end;
		     p++)
			if (p == sym || p[-1] == ' ' || p[-1] == '*' || p[-1] == '&')
				return true;
	return false;
}

/* "pkg.data/platlib/x.so" installs at "x.so"; other .data schemes are not site-packages */
static const char *install_path(const char *member)
{
	const char *slash = strchr(member, '/');

	if (!slash || slash - member < 6 || strncmp(slash - 5, ".data", 5) != 0)
		return member;
	if (!strncmp(slash + 1, "platlib/", 8) || !strncmp(slash + 1, "purelib/", 8))
		return slash + 9;
	return NULL;
}

/* torch/lib holds name: not reached by the loader's search, yet torch has it (an `import
 * torch` whose torch/_C*.so this venv lacks would have loaded it) */
static bool in_torch_lib(const char *site, const char *name)
{
	RR_AUTOFREE char *path = strchr(name, '/') ? NULL
						   : rr_xasprintf("%s/torch/lib/%s", site, name);
	struct stat st;

	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

struct verdict {
	int fit; /* 1 fits, -1 does not, 0 unknown */
	struct rr_strbuf why;
};

/* the load check's report on the images, as a verdict on torch alone */
static void judge(const struct rr_loadcheck_report *rep, const char *torch, const char *site,
		  struct verdict *v)
{
	size_t sl = strlen(site);
	RR_AUTO_STRBUF struct rr_strbuf bad = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf unknown = RR_STRBUF_INIT;
	size_t others = 0, undefined = 0;

	for (size_t i = 0; i < rep->ndists; i++) {
		const struct rr_loadcheck_dist *d = &rep->dists[i];
		for (size_t k = 0; k < d->nproblems; k++) {
			const struct rr_loadcheck_problem *p = &d->problems[k];
			/* the member's path, as the wheel names it */
			const char *file = !strncmp(d->name, site, sl) && d->name[sl] == '/'
					       ? d->name + sl + 1
					       : d->name;
			size_t shown = 0, ntorch = 0;
			switch (p->kind) {
			case RR_LOADCHECK_NOT_FOUND:
				if (torch_library(p->library) && !in_torch_lib(site, p->library)) {
					if (!bad.len)
						rr_strbuf_addf(
						    &bad,
						    "%s links %s, which torch %s does not have",
						    file, p->library, torch);
				} else if (!strstr(unknown.buf ? unknown.buf : "", p->library)) {
					rr_strbuf_addf(&unknown, "%s%s", unknown.len ? ", " : "",
						       p->library);
				}
				break;
			case RR_LOADCHECK_VERSION:
				if (torch_library(p->library) && !bad.len)
					rr_strbuf_addf(&bad,
						       "%s needs version %s of %s, which torch %s "
						       "does not define",
						       file, p->version, p->library, torch);
				else
					others++;
				break;
			case RR_LOADCHECK_SYMBOLS:
				for (size_t s = 0; s < p->nsymbols; s++)
					ntorch += rr_flow_torch_symbol(p->symbols[s]);
				if (!ntorch) {
					undefined += p->nmissing;
					break;
				}
				if (bad.len)
					break;
				rr_strbuf_addf(
				    &bad,
				    "%s needs %s of torch's that torch %s does not define: ", file,
				    ntorch == 1 ? "a symbol" : "symbols", torch);
				for (size_t s = 0; s < p->nsymbols && shown < SHOWN; s++)
					if (rr_flow_torch_symbol(p->symbols[s]))
						rr_strbuf_addf(&bad, "%s%s", shown++ ? ", " : "",
							       p->symbols[s]);
				if (p->nmissing > shown)
					rr_strbuf_addf(&bad, " (%zu undefined in all)",
						       p->nmissing);
				break;
			default: /* CUDA, another ROCm major, a bad file: not a question of torch */
				others++;
				break;
			}
		}
	}
	rr_strbuf_init(&v->why);
	if (bad.len) {
		v->fit = -1;
		rr_strbuf_adds(&v->why, bad.buf);
		return;
	}
	v->fit = 1;
	rr_strbuf_addf(&v->why, "%zu shared %s", rep->nfiles,
		       rep->nfiles == 1 ? "object" : "objects");
	if (unknown.len)
		rr_strbuf_addf(&v->why, "; not found on this machine, so unknown: %s", unknown.buf);
	if (undefined)
		rr_strbuf_addf(&v->why, "; %zu undefined %s not torch's, unknown", undefined,
			       undefined == 1 ? "symbol" : "symbols");
	if (others)
		rr_strbuf_addf(&v->why, "; %zu other %s, not torch's (verify names them)", others,
			       others == 1 ? "problem" : "problems");
}

/* the wheel's libraries checked as installed in the venv, after `import torch` */
static void check_wheel(struct rr_flow *f, const struct rr_index_members *m,
			const struct rr_dist *torch, struct verdict *v)
{
	struct rr_loadenv e;
	struct rr_loadcheck_image *imgs = rr_xcalloc(m->n + 1, sizeof(*imgs));
	char **paths = rr_xcalloc(m->n + 1, sizeof(*paths));
	struct rr_loadcheck_report *rep = NULL;
	rr_error err = RR_ERROR_INIT;
	size_t n = 0;

	rr_loadenv_init(&e, f->venv, f->policy, getenv("LD_LIBRARY_PATH"));
	e.opts.ndists = 0; /* the venv's own files are not in question (torch is preloaded) */
	e.opts.max_symbols = 16;
	e.opts.symbols_past_missing = true; /* libamdhip64.so.7 absent: torch's still decide */
	for (size_t i = 0; i < m->n; i++) {
		const char *rel = install_path(m->v[i].path);
		if (!rel)
			continue;
		paths[n] = rr_xasprintf("%s/%s", torch->site, rel);
		imgs[n] = (struct rr_loadcheck_image){m->v[i].data, m->v[i].len, paths[n]};
		n++;
	}
	e.opts.images = imgs;
	e.opts.nimages = n;
	rr_strbuf_init(&v->why);
	v->fit = 0;
	if (rr_loadcheck_run(&e.opts, &rep, &err) != RR_OK) {
		rr_strbuf_addf(&v->why, "the load check could not run: %s", err.msg);
	} else if (!rep->nfiles) {
		rr_strbuf_adds(&v->why, "its wheel holds no shared object of this machine");
	} else {
		rr_strbuf_release(&v->why);
		judge(rep, torch->version_text, torch->site, v);
	}
	rr_loadcheck_report_free(rep);
	rr_error_release(&err);
	rr_loadenv_release(&e);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	free(imgs);
}

/* the index file of key's release version, NULL when the provider has none */
static const struct rr_index_file *file_of(const struct rr_provider *prov, const char *key,
					   const char *version)
{
	const struct rr_candidate *cs;
	size_t nc = 0;
	rr_error e = RR_ERROR_INIT;

	if (prov->candidates(prov->ctx, key, &cs, &nc, &e) != RR_OK) {
		rr_error_release(&e);
		return NULL;
	}
	for (size_t i = 0; i < nc; i++)
		if (!strcmp(cs[i].version_text, version))
			return rr_index_provider_file(&cs[i]);
	return NULL;
}

static const char *locked_version(const struct rr_resolution *res, const char *key)
{
	for (size_t i = 0; i < res->nlocked; i++)
		if (!strcmp(res->locked[i].name, key))
			return res->locked[i].version;
	return NULL;
}

/* alt from now on excludes version ("torch-scatter-rocm!=2.1.2.post8", op "!="): the next
 * older release is resolved in its place, and the plan's line keeps the installer off it;
 * with op "<" and version "0", every release (given up on) */
static void exclude_version(struct rr_requirement *alt, const char *op, const char *version)
{
	RR_AUTOFREE char *text = rr_requirement_to_string(alt);
	const char *semi = strchr(text, ';');
	size_t head = semi ? (size_t)(semi - text) : strlen(text);
	RR_AUTOFREE char *one = NULL;
	struct rr_requirement r = RR_REQUIREMENT_INIT;

	while (head && text[head - 1] == ' ')
		head--;
	one = rr_xasprintf("%.*s%s%s%s%s", (int)head, text, alt->spec.n ? "," : "", op, version,
			   semi ? semi : "");
	if (rr_requirement_parse(one, &r, NULL) == RR_OK) {
		rr_requirement_release(alt);
		*alt = r;
	} else {
		rr_requirement_release(&r);
	}
}

size_t rr_flow_check_symbols(struct rr_flow *f, struct rr_index_client *client,
			     const struct rr_provider *prov, bool last)
{
	const struct rr_dist *torch = rr_venv_lookup(f->venv, "torch");
	size_t rejected = 0;

	if (f->alts && !f->symbol_notes)
		f->symbol_notes = rr_xcalloc(f->reqs.nitems + 1, sizeof(*f->symbol_notes));
	for (size_t i = 0; f->alts && i < f->reqs.nitems; i++) {
		const struct rr_policy_rule *rule = f->alt_rules[i];
		const struct rr_item_result *cr = rr_resolution_item(&f->res, i);
		struct rr_item_result *r;
		const struct rr_requirement *alt;
		const struct rr_index_file *file;
		struct rr_index_members m = {0};
		rr_error e = RR_ERROR_INIT;
		RR_AUTOFREE char *torch_lib = NULL;
		const char *version;
		struct verdict v = {0, RR_STRBUF_INIT};

		if (!rule || !rule->torch_bound || !cr || !cr->alternative ||
		    cr->alternative > f->alts[i].n)
			continue;
		alt = &f->alts[i].reqs[cr->alternative - 1];
		/* the line itself, its own last choice: nothing was put in its place */
		if (!alt->key || !strcmp(alt->key, f->reqs.items[i].req.key))
			continue;
		r = rr_transitive_item(&f->res, i);
		version = locked_version(&f->res, alt->key);
		torch_lib = torch && torch->site ? rr_xasprintf("%s/torch/lib", torch->site) : NULL;
		if (!torch || !torch_lib || !rr_file_is_dir(torch_lib)) {
			r->symbols_why = rr_xasprintf(
			    "the installed torch has no %s to check them against",
			    torch_lib ? torch_lib : "torch/lib");
			continue;
		}
		if (!version || !(file = file_of(prov, alt->key, version)) || !file->is_wheel) {
			r->symbols_why = rr_xasprintf("no wheel of %s %s for this venv to read",
						      alt->key, version ? version : "");
			continue;
		}
		if (rr_index_wheel_libraries(client, file, 0, &m, &e) != RR_OK) {
			r->symbols_why = rr_xasprintf("its wheel could not be read: %s",
						      e.msg ? e.msg : "unknown error");
			rr_error_release(&e);
			continue;
		}
		if (!m.n) {
			r->symbols_why = rr_xasprintf("%s holds no shared library", file->filename);
		} else {
			check_wheel(f, &m, torch, &v);
			r->symbols = v.fit;
			r->symbols_why =
			    v.fit < 0   ? rr_xasprintf("%s %s was built against another torch: %s",
						       alt->name, version, v.why.buf)
			    : v.fit > 0 ? rr_xasprintf("%s %s: %s", alt->name, version, v.why.buf)
					: rr_strbuf_detach(&v.why, NULL);
			rr_strbuf_release(&v.why);
		}
		rr_index_members_release(&m);
		if (r->symbols_why && f->symbol_notes[i]) {
			/* what an earlier round turned down comes first */
			char *both = rr_xasprintf("%s; %s", f->symbol_notes[i], r->symbols_why);
			free(r->symbols_why);
			r->symbols_why = both;
		}
		if (r->symbols < 0) {
			struct rr_alternatives *alts = &f->alts[i];
			/* the last round: no further release is read, none is taken (a lock
			 * must not name what the plan strips) */
			exclude_version((struct rr_requirement *)alt,
					last ? "<" : "!=", last ? "0" : version);
			/* the line itself, its last choice (an sdist), would be built against
			 * whatever torch its build gets, the way such mismatches come about: not
			 * a choice once a build was turned down for its torch */
			if (alts->n > 1 && alts->reqs[alts->n - 1].key &&
			    !strcmp(alts->reqs[alts->n - 1].key, f->reqs.items[i].req.key))
				rr_requirement_release(
				    (struct rr_requirement *)&alts->reqs[--alts->n]);
			free(f->symbol_notes[i]);
			f->symbol_notes[i] = rr_xstrdup(r->symbols_why);
			rejected++;
		}
	}
	return rejected;
}

void rr_flow_symbol_notes(struct rr_flow *f)
{
	for (size_t i = 0; f->symbol_notes && i < f->reqs.nitems; i++) {
		struct rr_item_result *r;
		if (!f->symbol_notes[i] ||
		    (rr_resolution_item(&f->res, i) && rr_resolution_item(&f->res, i)->symbols_why))
			continue;
		/* no release of it was left to check: the last one's verdict stands */
		r = rr_transitive_item(&f->res, i);
		r->symbols = -1;
		r->symbols_why = rr_xstrdup(f->symbol_notes[i]);
	}
}
