/*
 * pylock.c - the resolution as a PEP 751 pylock.toml (`--lock --format pylock`).
 *
 * Every package the plan installs is one [[packages]] entry: its version, the index
 * its file came from, and that one file (the wheel, else the sdist chosen for this
 * environment) with its URL, size and sha256. The protected stack is not an entry
 * (an entry needs a file to install, and the ROCm builds have none an installer may
 * fetch): it is recorded in [tool.rocm-resolve], so installing the lock changes
 * nothing there, and `environments` limits the lock to the interpreter it was
 * resolved for. `uv pip install -r pylock.toml` installs it as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/plan.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tomledit.h"

static void add_quoted(struct rr_strbuf *out, const char *s)
{
	RR_AUTOFREE char *q = rr_toml_quote(s);
	rr_strbuf_adds(out, q);
}

/* "3.12" of "3.12.3" */
static char *minor_of(const char *v)
{
	const char *dot = strchr(v, '.');
	size_t n = dot ? (size_t)(dot - v) + 1 + strcspn(dot + 1, ".") : strlen(v);

	return rr_xstrndup(v, n);
}

void rr_plan_format_pylock(const struct rr_plan *p, struct rr_strbuf *out)
{
	size_t n = 0;
	RR_AUTOFREE char *py = minor_of(p->python ? p->python : "3");

	for (size_t i = 0; i < p->nfiles; i++)
		n += !p->files[i].fixed && p->files[i].url;
	rr_strbuf_addf(out, "# rocm-resolve %s lock for %s: %zu packages to install; the %zu "
			    "protected\n# distributions are recorded in [tool.rocm-resolve], not "
			    "installed: installing this\n# changes nothing there. Install with: uv pip "
			    "install -r pylock.toml\n",
		       RR_VERSION, p->venv, n, p->npins);
	rr_strbuf_adds(out, "lock-version = \"1.0\"\n");
	rr_strbuf_addf(out, "environments = [\"sys_platform == 'linux' and python_version == '%s'\"]\n",
		       py);
	rr_strbuf_addf(out, "requires-python = \"==%s.*\"\n", py);
	rr_strbuf_adds(out, "created-by = \"rocm-resolve\"\n");
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct rr_locked *l = &p->files[i];
		if (l->fixed || !l->url)
			continue;
		rr_strbuf_adds(out, "\n[[packages]]\nname = ");
		add_quoted(out, l->name);
		rr_strbuf_adds(out, "\nversion = ");
		add_quoted(out, l->version);
		if (l->index_url) {
			rr_strbuf_adds(out, "\nindex = ");
			add_quoted(out, l->index_url);
		}
		rr_strbuf_adds(out, l->is_wheel ? "\nwheels = [{ " : "\nsdist = { ");
		if (l->filename) {
			rr_strbuf_adds(out, "name = ");
			add_quoted(out, l->filename);
			rr_strbuf_adds(out, ", ");
		}
		rr_strbuf_adds(out, "url = ");
		add_quoted(out, l->url);
		if (l->size >= 0)
			rr_strbuf_addf(out, ", size = %lld", l->size);
		rr_strbuf_adds(out, ", hashes = {");
		if (l->sha256) {
			rr_strbuf_adds(out, " sha256 = ");
			add_quoted(out, l->sha256);
			rr_strbuf_addch(out, ' ');
		}
		rr_strbuf_adds(out, l->is_wheel ? "} }]\n" : "} }\n");
	}
	rr_strbuf_adds(out, "\n[tool.rocm-resolve]\nvenv = ");
	add_quoted(out, p->venv);
	rr_strbuf_adds(out, "\npython = ");
	add_quoted(out, p->python ? p->python : "");
	if (p->torch) {
		rr_strbuf_adds(out, "\ntorch = ");
		add_quoted(out, p->torch);
	}
	rr_strbuf_adds(out, "\n# the protected stack: held at these versions, never part of the lock\n"
			    "protected = [\n");
	for (size_t i = 0; i < p->npins; i++) {
		rr_strbuf_adds(out, "    { name = ");
		add_quoted(out, p->pins[i].name);
		rr_strbuf_adds(out, ", version = ");
		add_quoted(out, p->pins[i].version);
		rr_strbuf_adds(out, " },\n");
	}
	rr_strbuf_adds(out, "]\n");
	/* what the resolution took as installed (no file to lock), for the record */
	rr_strbuf_adds(out, "installed = [");
	for (size_t i = 0, first = 1; i < p->nfiles; i++) {
		const struct rr_locked *l = &p->files[i];
		if (l->fixed || l->url)
			continue;
		if (first)
			rr_strbuf_addch(out, '\n');
		first = 0;
		rr_strbuf_adds(out, "    { name = ");
		add_quoted(out, l->name);
		rr_strbuf_adds(out, ", version = ");
		add_quoted(out, l->version);
		rr_strbuf_adds(out, " },\n");
	}
	rr_strbuf_adds(out, "]\n");
}
