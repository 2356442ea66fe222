/*
 * pylock.c - the resolution as a PEP 751 pylock.toml (`--lock --format pylock`).
 *
 * Every package the plan installs is one [[packages]] entry: its version, the index
 * its file came from, and that one file (the wheel, else the sdist chosen for this
 * environment) with its URL, size and sha256. What the lock keeps as installed (the
 * protected stack and what it needs, struct rr_plan_kept) is an entry too, named by
 * the file it was installed from: `uv pip sync` removes what a lock does not list, and
 * an installer keeps an installed distribution its entry's file names. The stack,
 * the stripped lines and the held-back packages are recorded in [tool.rocm-resolve],
 * and `environments` limits the lock to the interpreter it was resolved for.
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

/* a kept distribution, named by the file it was installed from */
static void add_kept_entry(struct rr_strbuf *out, const struct rr_plan_kept *k)
{
	bool wheel = k->filename && rr_str_endswith(k->filename, ".whl");

	rr_strbuf_adds(out, "\n[[packages]]\nname = ");
	add_quoted(out, k->name);
	rr_strbuf_adds(out, "\nversion = ");
	add_quoted(out, k->version);
	rr_strbuf_adds(out, "\n# kept as installed: ");
	rr_strbuf_adds(out, k->why);
	rr_strbuf_addch(out, '\n');
	if (k->index_url) {
		rr_strbuf_adds(out, "index = ");
		add_quoted(out, k->index_url);
		rr_strbuf_addch(out, '\n');
	}
	rr_strbuf_adds(out, wheel ? "wheels = [{ name = " : "archive = { url = ");
	if (wheel) {
		add_quoted(out, k->filename);
		rr_strbuf_adds(out, ", url = ");
	}
	add_quoted(out, k->url);
	rr_strbuf_adds(out, ", hashes = { sha256 = ");
	add_quoted(out, k->sha256);
	rr_strbuf_adds(out, wheel ? " } }]\n" : " } }\n");
}

/* [tool.rocm-resolve] stripped / held: what the lock leaves out or holds back, and why */
static void add_decisions(const struct rr_plan *p, struct rr_strbuf *out)
{
	rr_strbuf_adds(out,
		       "# input lines the lock leaves out (it strips them), and why\nstripped = [");
	for (size_t i = 0, first = 1; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (d->action != RR_ACT_STRIP)
			continue;
		rr_strbuf_adds(out, first ? "\n" : "");
		first = 0;
		rr_strbuf_adds(out, "    { source = ");
		add_quoted(out, d->source);
		rr_strbuf_adds(out, ", requirement = ");
		add_quoted(out, d->requirement);
		rr_strbuf_adds(out, ", why = ");
		add_quoted(out, d->cause.head);
		rr_strbuf_adds(out, " },\n");
	}
	for (size_t i = 0; i < p->nstripped_options; i++) {
		rr_strbuf_adds(out, "    { option = ");
		add_quoted(out, p->stripped_options[i]);
		rr_strbuf_adds(out, " },\n");
	}
	rr_strbuf_adds(out,
		       "]\n# packages held below their newest release for the stack\nheld = [");
	for (size_t i = 0, first = 1; i < p->ndecisions + p->nholds; i++) {
		const struct rr_decision *d = i < p->ndecisions ? &p->decisions[i] : NULL;
		const struct rr_plan_hold *h = d ? NULL : &p->holds[i - p->ndecisions];
		RR_AUTOFREE char *why = NULL;
		if (d && d->reason != RR_WHY_HELD_BACK)
			continue;
		rr_strbuf_adds(out, first ? "\n" : "");
		first = 0;
		rr_strbuf_adds(out, "    { name = ");
		add_quoted(out, d ? d->name : h->name);
		rr_strbuf_adds(out, ", version = ");
		add_quoted(out, d ? d->version : h->version);
		if (d) {
			rr_strbuf_adds(out, ", source = ");
			add_quoted(out, d->source);
		}
		why = d ? rr_cause_text(&d->cause) : rr_xstrdup(h->why);
		rr_strbuf_adds(out, ", why = ");
		add_quoted(out, why);
		rr_strbuf_adds(out, " },\n");
	}
	rr_strbuf_adds(out, "]\n");
}

const struct rr_plan_kept *rr_plan_pylock_unnamed(const struct rr_plan *p)
{
	for (size_t i = 0; i < p->nkept; i++)
		if (!p->kept[i].url)
			return &p->kept[i];
	return NULL;
}

void rr_plan_format_pylock(const struct rr_plan *p, struct rr_strbuf *out)
{
	size_t n = 0;
	RR_AUTOFREE char *py = minor_of(p->python ? p->python : "3");

	for (size_t i = 0; i < p->nfiles; i++)
		n += !p->files[i].fixed && p->files[i].url;
	rr_strbuf_addf(out,
		       "# rocm-resolve %s lock for %s: %zu package%s to install, %zu kept as "
		       "installed\n",
		       RR_VERSION, p->venv, n, n == 1 ? "" : "s", p->nkept);
	rr_strbuf_adds(out,
		       "# Install or sync with: uv pip install -r pylock.toml, uv pip sync "
		       "pylock.toml: the\n# kept ones (the protected ROCm stack and what it "
		       "needs) are entries named by the\n# file each was installed from, so an "
		       "installer keeps them and a sync removes none\n");
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
	for (size_t i = 0; i < p->nkept; i++)
		if (p->kept[i].url) /* one without is refused before (rr_plan_pylock_unnamed) */
			add_kept_entry(out, &p->kept[i]);
	rr_strbuf_adds(out, "\n[tool.rocm-resolve]\nvenv = ");
	add_quoted(out, p->venv);
	rr_strbuf_adds(out, "\npython = ");
	add_quoted(out, p->python ? p->python : "");
	if (p->torch) {
		rr_strbuf_adds(out, "\ntorch = ");
		add_quoted(out, p->torch);
	}
	rr_strbuf_adds(out, "\n# the protected stack: held at these versions\n"
			    "protected = [\n");
	for (size_t i = 0; i < p->npins; i++) {
		rr_strbuf_adds(out, "    { name = ");
		add_quoted(out, p->pins[i].name);
		rr_strbuf_adds(out, ", version = ");
		add_quoted(out, p->pins[i].version);
		rr_strbuf_adds(out, " },\n");
	}
	rr_strbuf_adds(out, "]\n");
	add_decisions(p, out);
}
