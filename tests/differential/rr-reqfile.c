/*
 * rr-reqfile - print what librr reads from requirements files, one record a
 * line, for tests/differential/reqfile_diff.py to compare with pip's parser.
 *
 *   rr-reqfile FILE...     (each FILE loaded into its own set)
 *
 * Records (tab-separated, fields with tabs/newlines escaped as \t \n \\):
 *   case  FILE
 *   item  PATH LINE COL FLAGS KIND TEXT HASHES OPTIONS NAME URL
 *   opt   PATH LINE NAME VALUE
 *   error MESSAGE
 * FLAGS: "e" editable, "c" constraint, "-" none. HASHES/OPTIONS space-joined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"

static void put(const char *s)
{
	putchar('\t');
	if (!s)
		return;
	for (; *s; s++) {
		if (*s == '\t')
			fputs("\\t", stdout);
		else if (*s == '\n')
			fputs("\\n", stdout);
		else if (*s == '\\')
			fputs("\\\\", stdout);
		else
			putchar(*s);
	}
}

static void putv(char **v, size_t n)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		rr_strbuf_addf(&sb, "%s%s", i ? " " : "", v[i]);
	put(sb.buf);
}

int main(int argc, char **argv)
{
	int status = 0;

	for (int a = 1; a < argc; a++) {
		struct rr_reqset set = RR_REQSET_INIT;
		rr_error err = RR_ERROR_INIT;
		rr_err rc = rr_reqfile_load(&set, argv[a], &err);

		fputs("case", stdout);
		put(argv[a]);
		putchar('\n');
		if (rc) {
			RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
			rr_error_format(&err, &sb);
			fputs("error", stdout);
			put(sb.buf);
			putchar('\n');
			status = 1;
		} else {
			for (size_t i = 0; i < set.nitems; i++) {
				const struct rr_item *it = &set.items[i];
				char flags[3] = "-";
				if (it->editable)
					strcpy(flags, it->constraint ? "ec" : "e");
				else if (it->constraint)
					strcpy(flags, "c");
				printf("item");
				put(it->path);
				printf("\t%u\t%u", it->line, it->col);
				put(flags);
				put(it->kind == RR_ITEM_URL ? "url" : "req");
				put(it->text_expanded); /* pip compares what is used */
				putv(it->hashes, it->nhashes);
				putv(it->options, it->noptions);
				put(it->req.key);
				put(it->req.url);
				putchar('\n');
			}
			for (size_t i = 0; i < set.nopts; i++) {
				printf("opt");
				put(set.opts[i].path);
				printf("\t%u", set.opts[i].line);
				put(set.opts[i].name);
				put(set.opts[i].value_expanded);
				putchar('\n');
			}
		}
		rr_error_release(&err);
		rr_reqset_release(&set);
	}
	return status;
}
