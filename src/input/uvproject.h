/*
 * uvproject.h - (private to src/input) what uv's project commands read from one
 * pyproject.toml besides the dependencies: whether it has [project] and its name,
 * [tool.uv] at all, [tool.uv.workspace] members and exclude, [tool.uv.sources]
 * (workspace, path, git and url sources), the three dependency settings
 * (exclude-, constraint-, override-dependencies) and [dependency-groups].
 * uvproject.cc reads them with toml++; workspace.c puts workspaces together.
 */
#ifndef RR_INPUT_UVPROJECT_H
#define RR_INPUT_UVPROJECT_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

enum rr_uvset { RR_UVSET_EXCLUDE, RR_UVSET_CONSTRAINT, RR_UVSET_OVERRIDE, RR_UVSET__COUNT };

struct rr_uvproject_entry {
	char *value;
	unsigned line;
};

struct rr_uvproject_source {
	char *key;      /* the package's normalised name */
	bool workspace; /* { workspace = true } */
	char *path;     /* { path = "..." } as written (relative to the file's directory) */
	char *url;      /* { url = "..." }, or git+URL[@rev] of { git = ..., rev/tag/branch } */
	char *subdirectory;
	unsigned line;
};

struct rr_uvproject_file {
	bool has_project;
	char *name;      /* [project] name, NULL when none */
	bool has_groups; /* [dependency-groups] */
	bool has_poetry; /* [tool.poetry] */
	bool has_tool_uv;
	bool has_workspace;
	char **members, **exclude;
	size_t nmembers, nexclude;
	struct rr_uvproject_source *sources;
	size_t nsources;
	struct rr_uvproject_entry *set[RR_UVSET__COUNT];
	size_t nset[RR_UVSET__COUNT];
};

/* what a malformed value would make uv refuse is an error at its line (RR_E_PARSE) */
rr_err rr_uvproject_parse(const char *path, const char *text, size_t len,
			  struct rr_uvproject_file *ret, rr_error *err) RR_WUR;
void rr_uvproject_release(struct rr_uvproject_file *f);

#endif
