/*
 * emit.c - writers for a built plan: the requirements file that goes to the
 * installer, the JSON document, and the `check` report. Writers only read
 * the plan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/json.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/strbuf.h"

/* the length of the line break at s that pip (str.splitlines) or uv would end a line
 * at, beyond LF and CR: VT, FF, \x1c-\x1e, U+0085, U+2028, U+2029; 0 when none */
static size_t unicode_break(const unsigned char *s)
{
	if (s[0] == 0xc2 && s[1] == 0x85)
		return 2;
	if (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9))
		return 3;
	return 0;
}

/*
 * a comment is one line: every line break (a resolver derivation spans lines)
 * and control character becomes a space, so no text of ours can end a comment
 * early and turn the rest into a requirement
 */
static void add_comment_text(struct rr_strbuf *out, const char *s, size_t cap)
{
	size_t n = 0;
	bool space = false;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		size_t brk = unicode_break((const unsigned char *)s);
		if (ch < 0x20 || ch == 0x7f || brk) {
			space = n > 0;
			s += brk ? brk - 1 : 0;
			continue;
		}
		if (space && ch != ' ') {
			rr_strbuf_addch(out, ' ');
			n++;
		}
		space = false;
		if (cap && n >= cap) {
			rr_strbuf_adds(out, " [...]");
			return;
		}
		rr_strbuf_addch(out, (char)ch);
		n++;
	}
}

/* how a text is put into the plan: inside a line, at the end of a plan line, as the
 * URL of an option line */
enum wall_as { INSIDE, AS_LINE, AS_TOKEN };

/*
 * does s break the line it is put in, for pip (str.splitlines, then a line that ends
 * with a backslash joined with the next) or uv: a line break, at the end of a line a
 * backslash, in an option's URL a blank (pip splits an option line with shlex)
 */
static bool breaks_line(const char *s, enum wall_as as)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; p && *p; p++)
		if (*p == '\n' || *p == '\r' || *p == 0x0b || *p == 0x0c ||
		    (*p >= 0x1c && *p <= 0x1e) || unicode_break(p) ||
		    (as == AS_TOKEN && (*p == ' ' || *p == '\t')))
			return true;
	return as != INSIDE && p && p != (const unsigned char *)s && p[-1] == '\\';
}

/* one text the writers put into the plan as it is, with what it is */
static rr_err wall(rr_err rc, const char *what, const char *text, enum wall_as as, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf shown = RR_STRBUF_INIT;

	if (rc || !breaks_line(text, as))
		return rc;
	rr_strbuf_add_printable(&shown, text);
	return rr_fail(err, RR_E_INTERNAL,
		       "%s would break a line of the plan (\"%s\" holds a line break%s): no plan "
		       "written",
		       what, shown.buf,
		       as == AS_TOKEN  ? ", a blank or a final backslash"
		       : as == AS_LINE ? " or ends with a backslash"
				       : "");
}

rr_err rr_plan_check_lines(const struct rr_plan *p, rr_error *err)
{
	rr_err rc = RR_OK;
	size_t i;

	rc = wall(rc, "the environment's path", p->venv, INSIDE, err);
	rc = wall(rc, "the Python version", p->python, INSIDE, err);
	rc = wall(rc, "the ROCm version", p->rocm, INSIDE, err);
	rc = wall(rc, "the torch version", p->torch, INSIDE, err);
	rc = wall(rc, "the installer", p->installer, INSIDE, err);
	rc = wall(rc, "a bridged site", p->bridge_site, INSIDE, err);
	rc = wall(rc, "a base site", p->base_site, INSIDE, err);
	for (i = 0; i < p->ninputs; i++)
		rc = wall(rc, "an input's name", p->inputs[i], INSIDE, err);
	for (i = 0; i < p->nindexes; i++) {
		rc = wall(rc, "an index URL", p->indexes[i].url, AS_TOKEN, err);
		rc = wall(rc, "an index's origin", p->indexes[i].origin, INSIDE, err);
	}
	for (i = 0; i < p->noption_lines; i++)
		rc = wall(rc, "an option line", p->option_lines[i], AS_LINE, err);
	for (i = 0; i < p->nconstraint_lines; i++)
		rc = wall(rc, "a constraint line", p->constraint_lines[i], AS_LINE, err);
	for (i = 0; i < p->nlinks; i++) {
		rc = wall(rc, "a --find-links name", p->links[i].name, INSIDE, err);
		rc = wall(rc, "a --find-links version", p->links[i].version, AS_LINE, err);
	}
	for (i = 0; i < p->npins; i++) {
		rc = wall(rc, "a protected name", p->pins[i].name, INSIDE, err);
		rc = wall(rc, "a protected version", p->pins[i].version, AS_LINE, err);
	}
	for (i = 0; i < p->ndecisions; i++) {
		rc = wall(rc, "a requirement line", p->decisions[i].output, AS_LINE, err);
		rc = wall(rc, "an input's place", p->decisions[i].source, INSIDE, err);
	}
	for (i = 0; i < p->nholds; i++) {
		rc = wall(rc, "a held-back name", p->holds[i].name, INSIDE, err);
		rc = wall(rc, "a held-back version", p->holds[i].version, AS_LINE, err);
	}
	for (i = 0; i < p->nexcludes; i++)
		rc = wall(rc, "an excluded name", p->excludes[i], INSIDE, err);
	for (i = 0; i < p->nbridged; i++)
		rc = wall(rc, "a bridged name", p->bridged[i], INSIDE, err);
	for (i = 0; i < p->ninherited; i++)
		rc = wall(rc, "an inherited name", p->inherited[i], INSIDE, err);
	return rc;
}

/* a decision's cause as one comment: its head, then its derivation lines (cap as above) */
static void add_cause(struct rr_strbuf *out, const struct rr_cause *c, size_t cap)
{
	RR_AUTOFREE char *text = rr_cause_text(c);

	add_comment_text(out, text, cap);
}

static void write_header(const struct rr_plan *p, struct rr_strbuf *out)
{
	rr_strbuf_addf(out, "# rocm-resolve %s install plan for %s\n", RR_VERSION, p->venv);
	rr_strbuf_addf(out, "# python %s", p->python);
	if (p->rocm)
		rr_strbuf_addf(out, ", ROCm %s", p->rocm);
	if (p->torch)
		rr_strbuf_addf(out, ", torch %s", p->torch);
	rr_strbuf_addch(out, '\n');
	if (p->ninputs) {
		rr_strbuf_adds(out, "# inputs:");
		for (size_t i = 0; i < p->ninputs; i++)
			rr_strbuf_addf(out, " %s", p->inputs[i]);
		rr_strbuf_addch(out, '\n');
	}
	if (p->no_index)
		rr_strbuf_adds(out, "# the requirements say --no-index: no index was asked\n");
	else if (!p->resolved)
		rr_strbuf_addf(out, "# not resolved (%s): dependencies were not checked\n",
			       p->unresolved ? p->unresolved : "no index");
	else {
		/* what the installer reads from its own configuration is named with its place */
		bool configured = false;
		for (size_t i = 0; i < p->nindexes; i++)
			configured |= !p->indexes[i].written &&
				      strcmp(p->indexes[i].origin, "default") != 0;
		if (configured)
			rr_strbuf_addf(out, "# resolved for %s against:", p->installer);
		else
			rr_strbuf_adds(out, "# resolved against:");
		for (size_t i = 0; i < p->nindexes; i++) {
			const struct rr_plan_index *x = &p->indexes[i];
			bool named = !x->written && strcmp(x->origin, "default") != 0;
			rr_strbuf_addf(out, "%s %s", i ? "," : "", x->url);
			if (x->primary || named)
				rr_strbuf_addf(out, " (%s%s%s)", x->primary ? "default" : "",
					       x->primary && named ? ", " : "", named ? x->origin : "");
		}
		rr_strbuf_addch(out, '\n');
	}
	/* a line replaced by its ROCm build is kept in another's name: counted apart */
	size_t kept = p->counts[RR_ACT_KEEP], pinned = p->counts[RR_ACT_PIN], replaced = 0;
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (d->reason != RR_WHY_COUNTERPART || d->action == RR_ACT_STRIP)
			continue;
		replaced++;
		*(d->action == RR_ACT_PIN ? &pinned : &kept) -= 1;
	}
	rr_strbuf_addf(out, "# %zu kept, ", kept);
	if (replaced)
		rr_strbuf_addf(out, "%zu replaced, ", replaced);
	rr_strbuf_addf(out,
		       "%zu pinned, %zu stripped, %zu held back; %zu protected distributions\n",
		       pinned, p->counts[RR_ACT_STRIP] + p->nstripped_options, p->nholds, p->npins);
	if (p->nbridged) {
		rr_strbuf_adds(out, "# bridged: ");
		for (size_t i = 0; i < p->nbridged; i++)
			rr_strbuf_addf(out, "%s%s", i ? ", " : "", p->bridged[i]);
		rr_strbuf_addf(out, " come from %s through a .pth file; pip sees them there, uv does "
				    "not: install with `rocm-resolve install` or give uv the "
				    "--uv-excludes file\n",
			       p->bridge_site ? p->bridge_site : "another site");
	}
	if (p->ninherited) {
		rr_strbuf_adds(out, "# inherited: ");
		for (size_t i = 0; i < p->ninherited; i++)
			rr_strbuf_addf(out, "%s%s", i ? ", " : "", p->inherited[i]);
		rr_strbuf_addf(out, " come from the base interpreter's %s (include-system-site-packages); "
				    "pip sees them, uv does not: install with `rocm-resolve install` or "
				    "give uv the --uv-excludes file\n",
			       p->base_site ? p->base_site : "site");
	}
	for (size_t i = 0; i < p->nexcludes; i++)
		rr_strbuf_addf(out,
			       "# WARNING: this plan needs %s kept out (it would overwrite a protected "
			       "module): only `rocm-resolve install` or `uv pip install --excludes "
			       "FILE` (--uv-excludes FILE) can; pip cannot\n",
			       p->excludes[i]);
}

/*
 * the indexes given to rocm-resolve or in its inputs, --index-url first: pip
 * lets a file's --index-url line replace the indexes named before it, uv asks
 * the default last wherever its line is. What the installer's configuration
 * sets, and PyPI when nobody chose an index, is left to the installer.
 */
static void write_indexes(const struct rr_plan *p, struct rr_strbuf *out)
{
	bool creds = false;

	for (int primary = 1; primary >= 0; primary--)
		for (size_t i = 0; i < p->nindexes; i++) {
			const struct rr_plan_index *x = &p->indexes[i];
			if (!x->written || x->primary != primary)
				continue;
			rr_strbuf_addf(out, "%s %s\n", primary ? "--index-url" : "--extra-index-url",
				       x->url);
			creds |= x->credentials_removed;
		}
	if (creds)
		rr_strbuf_adds(out, "# credentials in index URLs are never written: give them to the "
				    "installer through ~/.netrc, keyring, or ${VAR} in the URL\n");
}

/* the stripped option lines that stand before decision i (i == ndecisions: after all),
 * as the plan's comment (check false) or as check's line */
static void add_options_at(const struct rr_plan *p, size_t i, bool check, struct rr_strbuf *out)
{
	for (size_t k = 0; k < p->nstripped_options; k++) {
		size_t at = p->stripped_option_at[k];
		if (at != i && !(i == p->ndecisions && at > i))
			continue;
		rr_strbuf_adds(out, check ? "" : "#   ");
		add_comment_text(out, p->stripped_options[k], 0);
		rr_strbuf_adds(out, check ? "; the plan leaves the index out\n" : "\n");
	}
}

/* the stripped lines and options, in file order: "SOURCE: REQ: CAUSE" comments */
static void write_stripped(const struct rr_plan *p, struct rr_strbuf *out)
{
	if (!p->counts[RR_ACT_STRIP] && !p->nstripped_options)
		return;
	rr_strbuf_adds(out, "# stripped:\n");
	for (size_t i = 0; i <= p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		add_options_at(p, i, false, out);
		if (i == p->ndecisions || d->action != RR_ACT_STRIP)
			continue;
		/* "SOURCE: REQ: CAUSE", as check prints it; a long requirement (a URL) is
		 * cut to keep the line near 120 columns: its source names it whole */
		const char *cause = d->cause.head;
		size_t used = 4 + strlen(d->source) + 2 + (d->constraint ? 3 : 0) + 2 +
			      strlen(cause) + 6;
		rr_strbuf_addf(out, "#   %s: %s", d->source, d->constraint ? "-c " : "");
		add_comment_text(out, d->requirement, used < 120 - 30 ? 120 - used : 30);
		rr_strbuf_adds(out, ": ");
		/* one sentence, uncut: it names paths, whose length is not ours to cap */
		add_comment_text(out, cause, 0);
		rr_strbuf_addch(out, '\n');
	}
}

void rr_plan_format_text(const struct rr_plan *p, struct rr_strbuf *out)
{
	size_t shown_pins = 0;

	write_header(p, out);
	write_indexes(p, out);
	for (size_t i = 0; i < p->noption_lines; i++)
		rr_strbuf_addf(out, "%s\n", p->option_lines[i]);
	/* next to the --find-links line: the files the resolution took from there */
	for (size_t i = 0; i < p->nlinks; i++) {
		rr_strbuf_addf(out, "%s==%s  # taken from --find-links ", p->links[i].name,
			       p->links[i].version);
		add_comment_text(out, p->links[i].location, 120);
		rr_strbuf_adds(out, ": pinned, so the installers take that file, not a newer "
				    "release an index has\n");
	}
	for (size_t i = 0; i < p->nconstraint_lines; i++)
		rr_strbuf_addf(out, "%s\n", p->constraint_lines[i]);
	/* the protected pins come before anything else is asked for */
	for (size_t i = 0; i < p->npins; i++)
		shown_pins += !p->pins[i].in_requirements;
	if (shown_pins) {
		rr_strbuf_addf(out,
			       "# protected %sstack: installed builds held at their versions\n",
			       p->rocm_stack ? "ROCm " : "");
		for (size_t i = 0; i < p->npins; i++) {
			const struct rr_plan_pin *pin = &p->pins[i];
			if (pin->in_requirements)
				continue;
			rr_strbuf_addf(out, "%s==%s  # ", pin->name, pin->version);
			add_comment_text(out, pin->short_why, 120);
			rr_strbuf_addch(out, '\n');
		}
	}
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (!d->output)
			continue;
		rr_strbuf_adds(out, d->output);
		if (d->reason == RR_WHY_COUNTERPART) {
			/* "replaced: cupy-cuda12x>=13 -> cupy-rocm-7-0 (CuPy's ROCm build)" */
			rr_strbuf_adds(out, "  # ");
			add_cause(out, &d->cause, 0);
		} else if (d->action == RR_ACT_PIN) {
			rr_strbuf_addf(out, "  # %s ", d->reason == RR_WHY_HELD_BACK ? "held back:"
										: "pinned:");
			/* a held-back chain is never cut: its end names the protected build */
			add_cause(out, &d->cause, d->reason == RR_WHY_HELD_BACK ? 0 : 160);
			rr_strbuf_adds(out, " (asked: ");
			add_comment_text(out, d->requirement, 80);
			rr_strbuf_addch(out, ')');
		} else if (d->reason == RR_WHY_DEPS_UNKNOWN) {
			rr_strbuf_adds(out, "  # unknown: ");
			add_cause(out, &d->cause, 240);
		}
		rr_strbuf_addch(out, '\n');
	}
	if (p->nholds) {
		rr_strbuf_addf(out,
			       "# held back for the %s stack (the newest release would break "
			       "it)\n",
			       p->rocm_stack ? "ROCm" : "protected");
		for (size_t i = 0; i < p->nholds; i++) {
			rr_strbuf_addf(out, "%s==%s  # ", p->holds[i].name, p->holds[i].version);
			add_comment_text(out, p->holds[i].why, 0);
			rr_strbuf_addch(out, '\n');
		}
	}
	write_stripped(p, out);
}

/* the plan lines, exactly as the text writer prints them */
static json_t *json_plan_lines(const struct rr_plan *p)
{
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	json_t *a = json_array();

	rr_plan_format_text(p, &text);
	for (const char *s = text.buf; s && *s;) {
		size_t n = strcspn(s, "\n");
		RR_AUTOFREE char *line = rr_xstrndup(s, n);
		json_array_append_new(a, rr_json_str(line));
		s += n + (s[n] ? 1 : 0);
	}
	return a;
}

static json_t *json_torch(const char *version, const char *hip, const char *cuda)
{
	json_t *o = json_object();

	rr_json_set_str(o, "version", version);
	rr_json_set_str(o, "hip", hip);
	rr_json_set_str(o, "cuda", cuda);
	return o;
}

void rr_plan_format_json(const struct rr_plan *p, struct rr_strbuf *out)
{
	json_t *root = json_object(), *a;

	/* the same shapes as `inspect --format json` (data/inspect.schema.json): schema 2,
	 * torch an object, protected entries with clash_group and bridge */
	json_object_set_new(root, "schema", json_integer(2));
	rr_json_set_str(root, "venv", p->venv);
	rr_json_set_str(root, "python", p->python);
	rr_json_set_str(root, "rocm", p->rocm);
	json_object_set_new(root, "torch",
			    json_torch(p->torch_version, p->torch_hip, p->torch_cuda));
	json_object_set_new(root, "protected", a = json_array());
	for (size_t i = 0; i < p->npins; i++) {
		json_t *o = json_object();
		rr_json_set_str(o, "name", p->pins[i].name);
		rr_json_set_str(o, "version", p->pins[i].version);
		rr_json_set_str(o, "clash_group", p->pins[i].clash_group);
		rr_json_set_str(o, "bridge", p->pins[i].bridge);
		rr_json_set_str(o, "why", p->pins[i].why);
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "decisions", a = json_array());
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		json_t *o = json_object();
		rr_json_set_str(o, "source", d->source);
		rr_json_set_str(o, "requirement", d->requirement);
		rr_json_set_str(o, "name", d->name);
		rr_json_set_str(o, "action", rr_action_to_string(d->action));
		rr_json_set_str(o, "reason", rr_reason_to_string(d->reason));
		RR_AUTOFREE char *why = rr_cause_text(&d->cause);
		rr_json_set_str(o, "output", d->output);
		rr_json_set_str(o, "why", why);
		rr_json_set_bool(o, "constraint", d->constraint);
		rr_json_set_bool(o, "breaks_stack", d->breaks_stack);
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "held_back", a = json_array());
	for (size_t i = 0; i < p->nholds; i++) {
		json_t *o = json_object();
		rr_json_set_str(o, "name", p->holds[i].name);
		rr_json_set_str(o, "version", p->holds[i].version);
		rr_json_set_str(o, "newest", p->holds[i].newest);
		rr_json_set_str(o, "source", p->holds[i].origin);
		rr_json_set_str(o, "why", p->holds[i].why);
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "find_links", a = json_array());
	for (size_t i = 0; i < p->nlinks; i++) {
		json_t *o = json_object();
		rr_json_set_str(o, "name", p->links[i].name);
		rr_json_set_str(o, "version", p->links[i].version);
		rr_json_set_str(o, "location", p->links[i].location);
		json_array_append_new(a, o);
	}
	/* the input as written, as uv and pip would install it */
	rr_json_set_bool(root, "as_written", p->as_written);
	rr_json_set_str(root, "as_written_unknown", p->as_written_unknown);
	json_object_set_new(root, "changes", a = json_array());
	for (size_t i = 0; i < p->nchanges; i++) {
		const struct rr_plan_change *c = &p->changes[i];
		json_t *o = json_object();
		rr_json_set_str(o, "source", c->source);
		rr_json_set_str(o, "requirement", c->requirement);
		rr_json_set_str(o, "name", c->name);
		rr_json_set_str(o, "version", c->version);
		rr_json_set_str(o, "why", c->why);
		rr_json_set_str(o, "instead", c->instead);
		rr_json_set_bool(o, "uv_only", c->uv_only);
		json_array_append_new(a, o);
	}
	rr_json_set_str(root, "installer", p->installer);
	json_object_set_new(root, "indexes", a = json_array());
	for (size_t i = 0; i < p->nindexes; i++) {
		json_t *o = json_object();
		rr_json_set_str(o, "url", p->indexes[i].url);
		rr_json_set_str(o, "origin", p->indexes[i].origin);
		rr_json_set_bool(o, "default", p->indexes[i].primary);
		rr_json_set_bool(o, "credentials_removed", p->indexes[i].credentials_removed);
		rr_json_set_bool(o, "written", p->indexes[i].written);
		json_array_append_new(a, o);
	}
	rr_json_set_bool(root, "resolved", p->resolved);
	rr_json_set_str(root, "unresolved", p->unresolved);
	rr_json_set_bool(root, "breaks_stack", rr_plan_breaks_stack(p));
	json_object_set_new(root, "stripped_options",
			    rr_json_strs(p->stripped_options, p->nstripped_options));
	json_object_set_new(root, "plan", json_plan_lines(p));
	json_object_set_new(root, "excludes", rr_json_strs(p->excludes, p->nexcludes));
	json_object_set_new(root, "bridged", rr_json_strs(p->bridged, p->nbridged));
	json_object_set_new(root, "inherited", rr_json_strs(p->inherited, p->ninherited));
	json_object_set_new(root, "warnings", rr_json_strs(p->warnings, p->nwarnings));
	rr_json_dump(root, RR_JSON_LINE, out);
}

static void add_name_once(const char ***seen, size_t *n, size_t *cap, const char *name,
			  struct rr_strbuf *out)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*seen)[i], name) == 0)
			return;
	RR_PUSH(*seen, *n, *cap) = name;
	rr_strbuf_addf(out, "%s\n", name);
}

void rr_plan_format_excludes(const struct rr_plan *p, struct rr_strbuf *out)
{
	const char **seen = NULL;
	size_t n = 0;
	size_t cap = 0;

	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (d->name && (d->reason == RR_WHY_COUNTERPART ||
				(d->action == RR_ACT_STRIP &&
				 (d->reason == RR_WHY_CUDA_ONLY || d->reason == RR_WHY_CLASH))))
			add_name_once(&seen, &n, &cap, d->name, out);
	}
	for (size_t i = 0; i < p->nexcludes; i++)
		add_name_once(&seen, &n, &cap, p->excludes[i], out);
	/* uv does not look through .pth files: it must not install what the bridge provides */
	for (size_t i = 0; i < p->nbridged; i++)
		add_name_once(&seen, &n, &cap, p->bridged[i], out);
	/* nor into the base interpreter's site the venv inherits */
	for (size_t i = 0; i < p->ninherited; i++)
		add_name_once(&seen, &n, &cap, p->inherited[i], out);
	free(seen);
}

/* what the plan does instead of what was asked */
static void add_instead(const struct rr_decision *d, struct rr_strbuf *out)
{
	if (d->action == RR_ACT_STRIP)
		rr_strbuf_adds(out, "the plan strips it");
	else if (d->output)
		rr_strbuf_addf(out, "the plan has %s", d->output);
	else
		rr_strbuf_adds(out, "the plan leaves it out");
}

/* "SOURCE: REQUIREMENT: CHAIN; INSTEAD" for one change of the input as written */
static void add_change_line(const struct rr_plan_change *c, struct rr_strbuf *out)
{
	rr_strbuf_addf(out, "%s: ", c->source);
	add_comment_text(out, c->requirement, 0);
	rr_strbuf_adds(out, c->uv_only ? ": with uv: " : ": ");
	add_comment_text(out, c->why, 0);
	rr_strbuf_addf(out, "; %s\n", c->instead);
}

void rr_plan_format_check(const struct rr_plan *p, struct rr_strbuf *out)
{
	/* in file order: each stripped option among the lines around it */
	for (size_t i = 0; i <= p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		bool by_chain = false;
		add_options_at(p, i, true, out);
		if (i == p->ndecisions || !d->breaks_stack)
			continue;
		/* a line the plan keeps or strips for what its dependencies would do: the
		 * chain of each change says how (a pin's own reason is that chain already) */
		if (d->action != RR_ACT_PIN)
			for (size_t k = 0; k < p->nchanges; k++)
				if (p->changes[k].decision == i) {
					add_change_line(&p->changes[k], out);
					by_chain = true;
				}
		if (by_chain)
			continue;
		rr_strbuf_addf(out, "%s: %s", d->source, d->constraint ? "-c " : "");
		add_comment_text(out, d->requirement, 0);
		rr_strbuf_adds(out, ": ");
		add_comment_text(out, d->cause.head, 0);
		rr_strbuf_adds(out, "; ");
		add_instead(d, out);
		rr_strbuf_addch(out, '\n');
	}
	for (size_t k = 0; k < p->nchanges; k++)
		if (p->changes[k].decision == SIZE_MAX)
			add_change_line(&p->changes[k], out);
	/* without the input as written, what the plan holds back stands in for it */
	for (size_t i = 0; !p->as_written && i < p->nholds; i++) {
		const struct rr_plan_hold *h = &p->holds[i];
		rr_strbuf_addf(out, "%s: %s (a dependency): ", h->origin ? h->origin : "-", h->name);
		add_comment_text(out, h->why, 0);
		rr_strbuf_addf(out, "; the plan holds it at %s\n", h->version);
	}
	for (size_t i = 0; i < p->nexcludes; i++) {
		bool said = false;
		for (size_t k = 0; k < p->nchanges && !said; k++)
			said = strcmp(p->changes[k].name, p->excludes[i]) == 0;
		if (!said)
			rr_strbuf_addf(out, "a dependency needs %s, which would overwrite a protected "
					    "module; the plan needs it excluded (uv --excludes)\n",
				       p->excludes[i]);
	}
}

/* the held-back packages and their causes, as comments (the lock pins them already) */
static void write_held_comments(const struct rr_plan *p, struct rr_strbuf *out)
{
	size_t n = p->nholds;

	for (size_t i = 0; i < p->ndecisions; i++)
		n += p->decisions[i].reason == RR_WHY_HELD_BACK;
	if (!n)
		return;
	rr_strbuf_adds(out,
		       "# held back for the ROCm stack (the newest release would break it):\n");
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		if (d->reason != RR_WHY_HELD_BACK)
			continue;
		rr_strbuf_addf(out, "#   %s: %s==%s: ", d->source, d->name, d->version);
		add_cause(out, &d->cause, 0);
		rr_strbuf_addch(out, '\n');
	}
	for (size_t i = 0; i < p->nholds; i++) {
		rr_strbuf_addf(out, "#   %s==%s: ", p->holds[i].name, p->holds[i].version);
		add_comment_text(out, p->holds[i].why, 0);
		rr_strbuf_addch(out, '\n');
	}
}

void rr_plan_format_lock(const struct rr_plan *p, struct rr_strbuf *out)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nfiles; i++)
		n += !p->files[i].fixed && p->files[i].url;
	rr_strbuf_addf(out,
		       "# rocm-resolve %s lock for %s: %zu package%s to install, %zu kept as "
		       "installed\n",
		       RR_VERSION, p->venv, n, n == 1 ? "" : "s", p->nkept);
	rr_strbuf_adds(out, "# install with: uv pip install --no-deps -r FILE (or pip install "
			    "--no-deps -r FILE);\n# syncing to it (uv pip sync FILE, pip-sync "
			    "FILE) keeps the protected ROCm stack:\n# it lists it, and what it "
			    "needs, as installed\n");
	/* protected builds uv cannot see (a .pth bridge, the base interpreter): neither
	 * installed nor removed by it, so they stay comments */
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct rr_locked *l = &p->files[i];
		bool kept = false;
		for (size_t k = 0; k < p->nkept && !kept; k++)
			kept = rr_name_eq(p->kept[k].name, l->name);
		if (l->fixed && !kept)
			rr_strbuf_addf(out,
				       "# %s==%s  (protected %sbuild, outside this venv's "
				       "own site: no installer line)\n",
				       l->name, l->version, p->rocm_stack ? "ROCm " : "");
	}
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct rr_locked *l = &p->files[i];
		if (l->fixed || !l->url)
			continue;
		rr_strbuf_addf(out, "%s==%s", l->name, l->version);
		if (l->sha256)
			rr_strbuf_addf(out, " \\\n    --hash=sha256:%s", l->sha256);
		rr_strbuf_addch(out, '\n');
	}
	if (p->nkept)
		rr_strbuf_adds(out,
			       "# kept as installed (no file: never fetched, never removed by a "
			       "sync):\n");
	for (size_t i = 0; i < p->nkept; i++) {
		rr_strbuf_addf(out, "%s==%s  # ", p->kept[i].name, p->kept[i].version);
		add_comment_text(out, p->kept[i].why, 0);
		rr_strbuf_addch(out, '\n');
	}
	write_held_comments(p, out);
	write_stripped(p, out);
}

/* each line of text, prefixed */
static void add_prefixed(struct rr_strbuf *out, const char *prefix, const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		rr_strbuf_addf(out, "%s %.*s\n", prefix, (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

void rr_plan_format_outcome(const struct rr_plan *p, struct rr_strbuf *out)
{
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf chk = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf excl = RR_STRBUF_INIT;

	rr_plan_format_text(p, &text);
	add_prefixed(out, "plan", text.buf);
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		rr_strbuf_addf(out, "decision %s %s %s %s\n", d->source,
			       rr_action_to_string(d->action), rr_reason_to_string(d->reason),
			       d->output ? d->output : "-");
	}
	rr_strbuf_addf(out, "check %s\n", rr_plan_breaks_stack(p) ? "breaks" : "intact");
	rr_plan_format_check(p, &chk);
	add_prefixed(out, "check", chk.buf);
	rr_plan_format_excludes(p, &excl);
	add_prefixed(out, "exclude", excl.buf);
}
