/*
 * flow-private.h - the state of a run of the pipeline, for the flow's own files
 * (flow.c, project.c); everyone else reads it through include/rocm-resolve/flow.h
 */
#ifndef RR_FLOW_PRIVATE_H
#define RR_FLOW_PRIVATE_H

#include "rocm-resolve/flow.h"
#include "rocm-resolve/resolution.h"

struct rr_local;

struct rr_flow {
	struct rr_policy *policy;
	struct rr_reqset reqs;
	bool have_reqs;
	struct rr_lock *locks; /* lock-file inputs (uv.lock, pylock.toml), selected into reqs */
	size_t nlocks, cap_locks;
	struct rr_venv *venv;
	struct rr_stack *stack;
	char *cache_dir; /* absolute; NULL with --no-cache or when none can be found */
	char *data_dir;  /* absolute; NULL when none can be found */
	struct rr_installer_config config; /* the installer's own configuration (step 4) */
	struct rr_plan_index *indexes;     /* in priority order; the plan writes the given ones */
	size_t nindexes;
	const char **index_urls; /* the same, as the resolver uses them (borrowed) */
	/* the same as given (${VAR} kept, a literal secret too: redact before showing) */
	const char **index_written;
	struct rr_resolution res;
	bool resolved;
	struct rr_plan *plan;
	char **warnings;
	size_t nwarnings, cap_warnings;
	size_t requests;          /* HTTP transfers the resolution made */
	unsigned long long bytes; /* response bytes received */
	size_t cache_hits, range_requests, whole_files;
	size_t guesses, guesses_used;
	unsigned long long guess_bytes_unused;
	char *world; /* with opts->record: the answers, as scenario "=Pkg:" lines */
	/* per reqset item: the local project a line names, read from its metadata */
	struct rr_local *locals;
	struct rr_plan_local *plan_locals; /* the same, as the plan sees them */
	/* per reqset item: the ROCm builds a CUDA-only line is resolved as, in order (policy
	 * rocm_counterpart), and the rule that names them; n == 0: none */
	struct rr_alternatives *alts;
	const struct rr_policy_rule **alt_rules;
	/* per item (symbols.c): the torch-bound releases turned down, in words, or NULL */
	char **symbol_notes;
};

struct rr_index_client;
struct rr_provider;
/* symbols.c: the torch-bound ROCm counterparts the resolution took, their wheel's
 * extensions checked against the installed torch (their item results' symbols). Each
 * release that does not fit is excluded from its alternative (last: every release of it
 * is): returns how many were, to be resolved again. Then symbol_notes: what was turned down, onto the
 * items left with no release to check */
size_t rr_flow_check_symbols(struct rr_flow *f, struct rr_index_client *client,
			     const struct rr_provider *prov, bool last);
void rr_flow_symbol_notes(struct rr_flow *f);
/* a symbol of torch's namespaces (c10::, at::, torch::, caffe2::), demangled or not */
bool rr_flow_torch_symbol(const char *sym);

#endif
