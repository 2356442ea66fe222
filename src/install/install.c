/*
 * install.c - the install transaction and restore (see include/rocm-resolve/install.h).
 *
 * Before the installer runs, every file of every protected distribution is kept in the
 * install store (store.c: hard links, copies across filesystems). Afterwards, whatever the
 * installer's exit status (a half-finished install is when the stack breaks), the venv is
 * compared with the snapshot: changed or vanished files are put back byte for byte,
 * distributions that arrived and clash with a protected module are removed, and the result
 * is checked again. The ROCm wheels cannot be downloaded again, so no "reinstall from the
 * index" advice is given anywhere.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/install.h"
#include "rocm-resolve/loadenv.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/store.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/verify.h"

extern char **environ;

static const char *env_of(const struct rr_install_opts *o, const char *name)
{
	const char *v = o->flow.getenv_fn ? o->flow.getenv_fn(name) : getenv(name);

	return v && *v ? v : NULL;
}

static void emit(const struct rr_install_opts *o, struct rr_install_event ev)
{
	if (o->observe)
		o->observe(o->observe_ctx, &ev);
}

static void warn(const struct rr_install_opts *o, const char *text)
{
	emit(o, (struct rr_install_event){.kind = RR_INSTALL_EV_WARNING, .text = text});
}

static char *find_on_path(const struct rr_install_opts *o, const char *prog)
{
	return rr_file_which(env_of(o, "PATH"), prog);
}

/* a private temporary file under $TMPDIR (else /tmp) holding contents; NULL on failure */
static char *write_temp(const struct rr_install_opts *o, const char *what, const char *contents)
{
	const char *tmpdir = env_of(o, "TMPDIR");
	char *path = rr_xasprintf("%s/rocm-resolve-%s-XXXXXX", tmpdir ? tmpdir : "/tmp", what);
	int fd = mkstemp(path);
	size_t len = strlen(contents);

	if (fd < 0) {
		free(path);
		return NULL;
	}
	if (write(fd, contents, len) != (ssize_t)len || close(fd)) {
		int e = errno;
		unlink(path);
		free(path);
		errno = e;
		return NULL;
	}
	return path;
}

/* ---------------------------------------------------------------- the store */

char *rr_install_store_dir(const struct rr_install_opts *o, const char *venv_root)
{
	RR_AUTOFREE char *root = o->store_dir && *o->store_dir
					 ? rr_xstrdup(o->store_dir)
					 : rr_flow_state_dir(NULL, o->flow.getenv_fn);
	char real[PATH_MAX];

	if (!root)
		return NULL;
	return rr_store_dir(root, realpath(venv_root, real) ? real : venv_root);
}

/* where versions before 0.2 kept the store: in the cache, <cache>/snapshots/<venv id> */
static char *legacy_store_dir(const struct rr_install_opts *o, const char *venv_root)
{
	RR_AUTOFREE char *cache = rr_flow_cache_dir(o->flow.cache_dir, o->flow.getenv_fn);
	char real[PATH_MAX];

	if (!cache)
		return NULL;
	return rr_store_dir(cache, realpath(venv_root, real) ? real : venv_root);
}

static bool has_manifest(const char *dir)
{
	RR_AUTOFREE char *m = rr_xasprintf("%s/manifest", dir);
	struct stat st;

	return lstat(m, &st) == 0;
}

/* mkdir -p for the store's parents (private: the store may hold a user's only copies) */
static int make_dirs(const char *path)
{
	RR_AUTOFREE char *parent = rr_xstrdup(path);
	char *slash = strrchr(parent, '/');

	if (!slash || slash == parent)
		return 0;
	*slash = '\0';
	return rr_mkdir_p(parent, 0700);
}

/*
 * the store for the flow's venv, in the state directory: the cache is for what can be
 * fetched again, and `rm -rf ~/.cache` must not take the only copy of the stack with it. A
 * store still in the cache (where earlier versions kept it) is moved over (renamed; read in
 * place where it lies on another filesystem)
 */
static rr_err store_dir_for(const struct rr_install_opts *o, const struct rr_flow *f, char **ret,
			    rr_error *err)
{
	char *dir = rr_install_store_dir(o, rr_flow_venv(f)->root);
	RR_AUTOFREE char *old = o->store_dir ? NULL : legacy_store_dir(o, rr_flow_venv(f)->root);

	if (!dir)
		return rr_fail(err, RR_E_ENV, "no directory for the install store: set "
					      "XDG_STATE_HOME or HOME");
	if (old && !has_manifest(dir) && has_manifest(old)) {
		if (make_dirs(dir) == 0 && rename(old, dir) == 0) {
			RR_AUTOFREE char *msg = rr_xasprintf("the install store of this venv moved "
							     "out of the cache, from '%s' to '%s'",
							     old, dir);
			warn(o, msg);
		} else {
			free(dir);
			dir = RR_STEAL(old); /* another filesystem, say: used where it is */
		}
	}
	*ret = dir;
	return RR_OK;
}

/* the venv's site directory and the protected environments it bridges (NULL-terminated) */
static const char **venv_sites(const struct rr_venv *v, size_t *n)
{
	const char **sites = rr_xcalloc(v->nbridged_sites + 2, sizeof(*sites));

	*n = 0;
	if (v->site_packages)
		sites[(*n)++] = v->site_packages;
	for (size_t i = 0; i < v->nbridged_sites; i++)
		sites[(*n)++] = v->bridged_sites[i];
	return sites;
}

/* the store could not be made or written: nothing was installed, and the user is told so */
static rr_err store_failed(rr_err rc, rr_error *err)
{
	if (!rc || rc == RR_E_ENV)
		return rc; /* RR_E_ENV says why already (another install, the only copy) */
	rr_error_prefix(err, "without a snapshot the protected stack could not be put back, so "
			     "the installer was not run: ");
	/* a full disk or a state directory that cannot be written: the environment's problem */
	if (rc == RR_E_IO)
		err->code = rc = RR_E_ENV;
	return rc;
}

static rr_err take_snapshot(const struct rr_install_opts *o, const struct rr_flow *f,
			    const char *dir, rr_error *err)
{
	const struct rr_venv *v = rr_flow_venv(f);
	const struct rr_stack *stack = rr_flow_stack(f);
	struct rr_store_dist *dists = rr_xcalloc(stack->n + 1, sizeof(*dists));
	struct rr_store_spec spec = {.venv_root = v->root, .dists = dists};
	const char **sites = venv_sites(v, &spec.nsites);
	struct rr_store_stats st;
	rr_err rc;

	spec.sites = sites;
	for (size_t i = 0; i < stack->n; i++) {
		const struct rr_protected *p = &stack->items[i];
		if (!p->dist || p->dist->egg_info)
			continue;
		dists[spec.ndists].name = p->name;
		dists[spec.ndists].version = p->version;
		dists[spec.ndists].dist_info_dir = p->dist->path;
		dists[spec.ndists].site = p->dist->site;
		spec.ndists++;
	}
	rc = rr_store_take(dir, &spec, &st, err);
	free(dists);
	free(sites);
	if (rc)
		return store_failed(rc, err);
	emit(o, (struct rr_install_event){.kind = RR_INSTALL_EV_STORED, .store_dir = dir,
					  .stats = &st});
	return RR_OK;
}

/*
 * compare the venv with the snapshot in dir and repair it (flags: RR_STORE_FULL); the
 * observer hears what was found and done. *damaged: still differs after the repair
 */
static rr_err check_and_repair(const struct rr_install_opts *o, const struct rr_flow *f,
			       const char *dir, const char *who, unsigned flags, bool *repaired,
			       bool *damaged, rr_error *err)
{
	const struct rr_venv *v = rr_flow_venv(f);
	size_t nsites;
	const char **sites = venv_sites(v, &nsites);
	struct rr_store *snap = NULL;
	struct rr_store_result r = {0}, again = {0};
	struct rr_install_check c = {.who = who, .full = flags & RR_STORE_FULL, .found = &r};
	rr_err rc;

	*repaired = *damaged = false;
	rc = rr_store_load(dir, &snap, err);
	if (!rc)
		rc = rr_store_validate(snap, v->root, sites, nsites, err);
	free(sites);
	if (rc == RR_E_DATA || rc == RR_E_PARSE || rc == RR_E_LIMIT) {
		/* a damaged or tampered store is a problem of the environment: exit 3 */
		err->code = RR_E_ENV;
		rc = RR_E_ENV;
	}
	if (!rc)
		rc = rr_store_check(snap, RR_STORE_REPAIR | flags, &r, err);
	if (!rc && (r.nchanged || r.nintruders)) {
		*repaired = true;
		rc = rr_store_check(snap, flags & RR_STORE_FULL, &again, err);
		if (!rc) {
			c.again = &again;
			*damaged = again.nchanged || again.nintruders;
		}
	}
	if (!rc) {
		c.ndists = rr_store_ndists(snap);
		emit(o, (struct rr_install_event){.kind = RR_INSTALL_EV_CHECKED, .check = &c});
	}
	rr_store_result_release(&r);
	rr_store_result_release(&again);
	rr_store_free(snap);
	return rc;
}

/*
 * no distribution has replaced a protected one since the last snapshot (a plain `pip
 * install torch` outside rocm-resolve): the venv would no longer show the stack, and a plan
 * made now would be made for the intruder. restore puts the stack back first. Files that
 * merely differ are repaired after the installer, as always. No snapshot yet, or one
 * restore would not trust: nothing to compare, the later steps say what they find
 */
static rr_err check_unchanged(const struct rr_install_opts *o, const struct rr_flow *f,
			      rr_error *err)
{
	const struct rr_venv *v = rr_flow_venv(f);
	RR_AUTOFREE char *dir = rr_install_store_dir(o, v->root);
	size_t nsites;
	const char **sites = NULL;
	struct rr_store *snap = NULL;
	struct rr_store_result r = {0};
	rr_error ignored = RR_ERROR_INIT;
	rr_err rc = RR_OK;

	if (!dir || !has_manifest(dir))
		return RR_OK;
	sites = venv_sites(v, &nsites);
	if (rr_store_load(dir, &snap, &ignored) ||
	    rr_store_validate(snap, v->root, sites, nsites, &ignored)) {
		rr_error_release(&ignored);
	} else if (rr_store_check(snap, 0, &r, &ignored)) {
		rr_error_release(&ignored);
	} else if (r.nintruders) {
		size_t more = r.nintruders - 1 + r.nchanged;
		char and_more[48] = "";

		if (more)
			snprintf(and_more, sizeof(and_more), ", and %zu more difference%s", more,
				 more == 1 ? "" : "s");
		rc = rr_fail(err, RR_E_ENV,
			     "the protected stack changed since the last snapshot, outside "
			     "rocm-resolve: %s%s; nothing was installed. Put the stack back with "
			     "`rocm-resolve restore` first (or, if the change was meant, move '%s' "
			     "away: that gives up the snapshot and its copies for good)",
			     r.intruders[0], and_more, dir);
	}
	rr_store_result_release(&r);
	rr_store_free(snap);
	free(sites);
	return rc;
}

/* ---------------------------------------------------------------- running the installer */

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t got_signal;
static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP};

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	pid_t pid = (pid_t)child_pid;

	(void)uc;
	got_signal = sig;
	/* a terminal's ^C or hangup (si_code SI_KERNEL) reaches the installer already */
	if (pid > 0 && !(si && si->si_code == SI_KERNEL))
		kill(pid, sig);
}

struct signals {
	struct sigaction old[3];
	bool caught;
};

static void catch_signals(struct signals *s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	got_signal = 0;
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		sigaction(forwarded[i], &sa, &s->old[i]);
	s->caught = true;
}

/* once nothing is left to clean up or finish, a signal may end the caller at once again */
static void release_signals(struct signals *s)
{
	if (!s->caught)
		return;
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		sigaction(forwarded[i], &s->old[i], NULL);
	s->caught = false;
}

/* the installer's exit status (128 + signal when it died of one), or -1 */
static int run_installer(char **argv, rr_error *err)
{
	posix_spawnattr_t attr;
	sigset_t block, old, none, dfl;
	pid_t pid;
	int wstatus, rc;

	sigemptyset(&block);
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		sigaddset(&block, forwarded[i]);
	sigemptyset(&none);
	/* the child starts with default dispositions (SIGPIPE may be ignored here), no mask */
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		sigaddset(&dfl, forwarded[i]);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	/* a signal between spawn and recording the pid stays pending, then is forwarded */
	sigprocmask(SIG_BLOCK, &block, &old);
	rc = posix_spawn(&pid, argv[0], NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (rc == 0)
		child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		rr_fail(err, RR_E_ENV, "cannot run '%s': %s", argv[0], strerror(rc));
		return -1;
	}
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR) {
			child_pid = 0;
			rr_fail(err, RR_E_ENV, "cannot wait for '%s': %s", argv[0], strerror(errno));
			return -1;
		}
	child_pid = 0;
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* ---------------------------------------------------------------- verify */

/* a distribution as installed: its version and its RECORD's identity and times */
static char *dist_stamp(const struct rr_dist *d)
{
	RR_AUTOFREE char *rec = rr_xasprintf("%s/RECORD", d->path);
	struct stat st;

	if (stat(rec, &st))
		memset(&st, 0, sizeof(st));
	return rr_xasprintf("%s %llu %lld.%09ld %lld", d->version_text ? d->version_text : "",
			    (unsigned long long)st.st_ino, (long long)st.st_mtim.tv_sec,
			    st.st_mtim.tv_nsec, (long long)st.st_size);
}

static void stamp_dists(const struct rr_venv *v, struct rr_strmap *out)
{
	for (size_t i = 0; i < v->ndists; i++)
		*rr_strmap_find(out, v->dists[i].path, true) = dist_stamp(&v->dists[i]);
}

/*
 * verify; with before (the distributions' stamps before the installer ran), the load stage
 * checks only what the installer added or changed
 */
static rr_err install_verify(const struct rr_install_opts *o, const struct rr_flow *f,
			     struct rr_strmap *before, struct rr_verify_report **ret, rr_error *err)
{
	const struct rr_venv *v = rr_flow_venv(f);
	const struct rr_stack *stack = rr_flow_stack(f);
	struct rr_verify_opts vo = {0};
	struct rr_verify_dist *dists = rr_xcalloc(stack->n + 1, sizeof(*dists));
	const char **sites = rr_xcalloc(v->nbridged_sites + 2, sizeof(*sites));
	RR_AUTOFREE char *python = rr_xasprintf("%s/bin/python", v->root);
	RR_AUTOFREE char *torch_lib = NULL;
	RR_AUTOFREE char *rocm_buf = NULL;
	const char *sysroot = o->flow.sysroot;
	const char *rocm = env_of(o, "ROCM_PATH");
	struct rr_loadenv le;
	struct stat st;
	rr_err rc;

	for (size_t i = 0; i < stack->n; i++) {
		const struct rr_protected *p = &stack->items[i];
		dists[i].name = p->name;
		dists[i].version = p->version;
		dists[i].dist_info_dir = p->dist ? p->dist->path : NULL;
	}
	if (v->site_packages)
		sites[vo.nsite_dirs++] = v->site_packages;
	for (size_t i = 0; i < v->nbridged_sites; i++)
		sites[vo.nsite_dirs++] = v->bridged_sites[i];
	vo.venv = v->root;
	vo.site_dirs = sites;
	vo.protected_dists = dists;
	vo.nprotected = stack->n;
	vo.python = stat(python, &st) == 0 ? python : NULL;
	for (size_t i = 0; i < vo.nsite_dirs && !torch_lib; i++) {
		char *cand = rr_xasprintf("%s/torch/lib", sites[i]);
		if (stat(cand, &st) == 0)
			torch_lib = cand;
		else
			free(cand);
	}
	vo.torch_lib_dir = torch_lib;
	if (!rocm)
		rocm = v->rocm_path && *v->rocm_path ? v->rocm_path : NULL;
	if (!rocm)
		rocm = rocm_buf = rr_xasprintf("%s/opt/rocm", sysroot ? sysroot : "");
	vo.rocm_path = rocm;
	vo.sysfs_root = sysroot && *sysroot ? sysroot : "/";
	vo.backend = o->backend;
	vo.torch_is_cuda = v->torch_cuda != NULL;
	vo.timeout_ms = (int)o->verify_timeout_ms;
	/* the load check: every distribution's ELF files (what the installer touched, after it) */
	rr_loadenv_init(&le, v, rr_flow_policy(f), env_of(o, "LD_LIBRARY_PATH"));
	for (size_t i = 0; before && i < v->ndists; i++) {
		void **slot = rr_strmap_find(before, v->dists[i].path, false);
		RR_AUTOFREE char *now = dist_stamp(&v->dists[i]);
		le.dists[i].skip = slot && !strcmp(*slot, now);
	}
	vo.load = v->stack_file ? NULL : &le.opts;
	vo.load_scope = before ? "the distributions the installer added or changed" : NULL;
	rc = rr_verify_run(&vo, ret, err);
	rr_loadenv_release(&le);
	free(dists);
	free(sites);
	return rc;
}

rr_err rr_install_verify(const struct rr_install_opts *o, const struct rr_flow *f,
			 struct rr_verify_report **ret, rr_error *err)
{
	return install_verify(o, f, NULL, ret, err);
}

static bool integrity_failed(const struct rr_verify_report *vr)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(vr->stages); i++)
		if (!strcmp(vr->stages[i].name, "integrity"))
			return vr->stages[i].verdict == RR_VERDICT_FAIL;
	return false;
}

/*
 * verify the venv; when integrity fails although the quick check after the installer found
 * nothing (damage older than this install, which the snapshot may still hold good bytes
 * for), every file is hashed against the snapshot and repaired, and verify runs again
 */
static rr_err verify_after(const struct rr_install_opts *o, struct rr_flow *f, const char *dir,
			   struct rr_strmap *before, struct rr_install_result *r, rr_error *err)
{
	bool repaired = false;
	rr_err rc = install_verify(o, f, before, &r->verify, err);

	if (rc || r->damaged || !integrity_failed(r->verify))
		return rc;
	rc = check_and_repair(o, f, dir, "something before this install", RR_STORE_FULL,
			      &repaired, &r->damaged, err);
	if (rc || !repaired)
		return rc;
	r->verify = rr_verify_report_free(r->verify);
	rc = rr_flow_reload_env(f, &o->flow, err);
	return rc ? rc : install_verify(o, f, before, &r->verify, err);
}

/* ---------------------------------------------------------------- the transaction */

void rr_install_result_release(struct rr_install_result *r)
{
	free(r->kept_plan);
	rr_verify_report_free(r->verify);
	memset(r, 0, sizeof(*r));
	r->installer_status = -1;
}

struct txn {
	const struct rr_install_opts *o;
	struct rr_flow_opts fo;
	struct rr_flow *flow;
	char *uv, *python, *dir;
	char *plan_path, *excl_path;
	const char **argv;
	size_t argc, cap;
	struct signals sig;
	int lock;
	struct rr_strmap before; /* the distributions' stamps before the installer ran */
};

static void txn_release(struct txn *t, bool keep_plan)
{
	if (t->plan_path && !keep_plan)
		unlink(t->plan_path);
	if (t->excl_path)
		unlink(t->excl_path);
	release_signals(&t->sig);
	if (t->lock >= 0)
		close(t->lock);
	free(t->plan_path);
	free(t->excl_path);
	free(t->argv);
	free(t->uv);
	free(t->python);
	free(t->dir);
	rr_strmap_release(&t->before, free);
	rr_flow_free(t->flow);
}

static bool has_dist(const struct rr_venv *v, const char *key)
{
	for (size_t i = 0; i < v->ndists; i++)
		if (!strcmp(v->dists[i].key, key) && !v->dists[i].problem)
			return true;
	return false;
}

/* "'name' (uid N)", or "uid N" for an id with no name */
static char *user_name(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	return pw ? rr_xasprintf("'%s' (uid %u)", pw->pw_name, (unsigned)uid)
		  : rr_xasprintf("uid %u", (unsigned)uid);
}

/* "'name' (gid N)" or "gid N"; bare: what usermod -aG takes, the name or the number */
static char *group_name(gid_t gid, bool bare)
{
	struct group *gr = getgrgid(gid);

	if (bare)
		return gr ? rr_xstrdup(gr->gr_name) : rr_xasprintf("%u", (unsigned)gid);
	return gr ? rr_xasprintf("'%s' (gid %u)", gr->gr_name, (unsigned)gid)
		  : rr_xasprintf("gid %u", (unsigned)gid);
}

static bool in_group(gid_t gid)
{
	gid_t groups[256];
	int n = getgroups((int)RR_ARRAY_LEN(groups), groups);

	if (gid == getgid() || gid == getegid())
		return true;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * the installer writes the site directory and bin/: said before anything is planned or
 * kept, with what to do (a devcontainer's remoteUser over a root-owned /opt/venv; a group
 * that may write it but that the user is not in, as after the devcontainer CLI renumbered
 * the user's own group)
 */
static rr_err check_writable(const struct rr_venv *v, const char *command, rr_error *err)
{
	/* install would have installed; restore would have put files back */
	const char *nothing = strcmp(command, "restore") == 0 ? "nothing was restored"
							      : "nothing was installed";
	RR_AUTOFREE char *bin = rr_xasprintf("%s/bin", v->root);
	const char *dirs[] = {v->site_packages, bin};
	struct stat st;

	for (size_t i = 0; i < RR_ARRAY_LEN(dirs); i++) {
		if (!dirs[i] || stat(dirs[i], &st) || access(dirs[i], W_OK) == 0)
			continue;
		RR_AUTOFREE char *owner = user_name(st.st_uid);
		RR_AUTOFREE char *group = group_name(st.st_gid, false);
		RR_AUTOFREE char *gname = group_name(st.st_gid, true);
		RR_AUTOFREE char *me = user_name(getuid());

		if ((st.st_mode & S_IWGRP) && !in_group(st.st_gid))
			return rr_fail(
			    err, RR_E_ENV,
			    "cannot write '%s' (owner %s, group %s, mode %03o) as %s: "
			    "%s. Group %s may write the venv, but %s is "
			    "not in it: as root, add the user to that group (usermod -aG "
			    "%s USER), then start a new login or container (in a devcontainer, "
			    "the rocm-resolve Feature's venvGroupWrite makes a group of its own "
			    "for the remoteUser, which the CLI's GID renumbering leaves alone)",
			    dirs[i], owner, group, (unsigned)(st.st_mode & 0777), me, nothing,
			    group, me, gname);
		return rr_fail(
		    err, RR_E_ENV,
		    "cannot write '%s' (owner %s, group %s, mode %03o) as %s: %s. Run %s "
		    "as a user who can write the venv (in a devcontainer: at image build "
		    "time, as root), or give the venv's directories to a group that user is "
		    "in: in a devcontainer, the rocm-resolve Feature's venvGroupWrite option "
		    "(on by default) does it for the remoteUser",
		    dirs[i], owner, group, (unsigned)(st.st_mode & 0777), me, nothing, command);
	}
	return RR_OK;
}

static bool dry_run(const struct rr_install_opts *o)
{
	for (size_t i = 0; i < o->npassthrough; i++)
		if (!strcmp(o->passthrough[i], "--dry-run"))
			return true;
	return false;
}

/* which installer, and what it cannot honour */
static rr_err choose_installer(struct txn *t, const char *excl, rr_error *err)
{
	const struct rr_install_opts *o = t->o;

	t->python = rr_xasprintf("%s/bin/python", rr_flow_venv(t->flow)->root);
	if (!o->installer || strcmp(o->installer, "uv") == 0)
		t->uv = find_on_path(o, "uv");
	if (o->installer && strcmp(o->installer, "uv") == 0 && !t->uv)
		return rr_fail(err, RR_E_ENV, "--installer uv but no 'uv' on PATH");
	if (!t->uv && (access(t->python, X_OK) || !has_dist(rr_flow_venv(t->flow), "pip")))
		return rr_fail(
		    err, RR_E_ENV,
		    "nothing to install with: %s, and the venv '%s' has no pip; put uv "
		    "on PATH (https://docs.astral.sh/uv/getting-started/installation/) or "
		    "give the venv pip ('%s -m ensurepip')",
		    o->installer ? "--installer pip" : "no 'uv' on PATH",
		    rr_flow_venv(t->flow)->root, t->python);
	if (!t->uv && *excl) {
		RR_AUTO_STRBUF struct rr_strbuf msg = RR_STRBUF_INIT;
		RR_AUTO_STRBUF struct rr_strbuf names = RR_STRBUF_INIT;
		for (const char *p = excl; *p;) {
			size_t n = strcspn(p, "\n");
			if (n && *p != '#')
				rr_strbuf_addf(&names, "%s%.*s", names.len ? ", " : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
		rr_strbuf_addf(&msg, "pip has no --excludes: nothing stops it from installing %s as a "
				     "dependency; the protected stack is snapshotted and will be put "
				     "back if pip damages it (uv honours the exclusions)",
			       names.buf);
		warn(o, msg.buf);
	}
	return RR_OK;
}

static void build_argv(struct txn *t)
{
	const struct rr_install_opts *o = t->o;

	if (t->uv) {
		RR_PUSH(t->argv, t->argc, t->cap) = t->uv;
		RR_PUSH(t->argv, t->argc, t->cap) = "pip";
		RR_PUSH(t->argv, t->argc, t->cap) = "install";
		RR_PUSH(t->argv, t->argc, t->cap) = "--python";
		RR_PUSH(t->argv, t->argc, t->cap) = t->python;
		if (t->excl_path) {
			RR_PUSH(t->argv, t->argc, t->cap) = "--excludes";
			RR_PUSH(t->argv, t->argc, t->cap) = t->excl_path;
		}
	} else {
		RR_PUSH(t->argv, t->argc, t->cap) = t->python;
		RR_PUSH(t->argv, t->argc, t->cap) = "-m";
		RR_PUSH(t->argv, t->argc, t->cap) = "pip";
		RR_PUSH(t->argv, t->argc, t->cap) = "install";
	}
	if (o->quiet)
		RR_PUSH(t->argv, t->argc, t->cap) = "-q";
	RR_PUSH(t->argv, t->argc, t->cap) = "-r";
	RR_PUSH(t->argv, t->argc, t->cap) = t->plan_path;
	for (size_t i = 0; i < o->npassthrough; i++)
		RR_PUSH(t->argv, t->argc, t->cap) = o->passthrough[i];
	RR_PUSH(t->argv, t->argc, t->cap) = NULL;
}

rr_err rr_install_run(const struct rr_install_opts *o, struct rr_install_result *r, rr_error *err)
{
	struct txn t = {.o = o, .fo = o->flow, .lock = -1};
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf excl = RR_STRBUF_INIT;
	bool keep_plan = false;
	rr_err rc;

	memset(r, 0, sizeof(*r));
	r->installer_status = -1;
	t.fo.want_inputs = true;
	t.fo.needs_live_env = true;
	rc = rr_flow_open(&t.fo, &t.flow, err);
	if (rc)
		goto out;
	emit(o, (struct rr_install_event){.kind = RR_INSTALL_EV_OPENED, .flow = t.flow});
	r->dry_run = dry_run(o);
	if (!r->dry_run && (rc = check_writable(rr_flow_venv(t.flow), "install", err)))
		goto out;
	if ((rc = check_unchanged(o, t.flow, err)))
		goto out;
	rc = rr_flow_plan(t.flow, &t.fo, err);
	emit(o, (struct rr_install_event){.kind = RR_INSTALL_EV_PLANNED, .flow = t.flow});
	if (rc)
		goto out;
	rr_plan_format_text(rr_flow_get_plan(t.flow), &text);
	/* the same names --uv-excludes writes */
	rr_plan_format_excludes(rr_flow_get_plan(t.flow), &excl);
	rc = choose_installer(&t, excl.buf ? excl.buf : "", err);
	if (!rc && !r->dry_run)
		rc = store_dir_for(o, t.flow, &t.dir, err);
	/* one install at a time: a second one would snapshot the first one's damage */
	if (!rc && !r->dry_run)
		rc = store_failed(rr_store_lock(t.dir, true, &t.lock, err), err);
	if (rc)
		goto out;
	/* from here on a signal is forwarded to the installer and ends in clean-up */
	catch_signals(&t.sig);
	/* a dry run changes nothing: no snapshot to take, nothing to check or verify */
	if (!r->dry_run && (rc = take_snapshot(o, t.flow, t.dir, err)))
		goto out;
	t.plan_path = write_temp(o, "plan", text.buf);
	if (t.plan_path && excl.len)
		t.excl_path = write_temp(o, "excludes", excl.buf);
	if (!t.plan_path || (excl.len && !t.excl_path)) {
		rc = rr_fail(err, RR_E_ENV, "cannot write a temporary file in '%s': %s",
			     env_of(o, "TMPDIR") ? env_of(o, "TMPDIR") : "/tmp", strerror(errno));
		goto out;
	}
	build_argv(&t);
	if (got_signal)
		goto out; /* signalled before the installer started: nothing to undo */
	stamp_dists(rr_flow_venv(t.flow), &t.before);
	emit(o, (struct rr_install_event){.kind = RR_INSTALL_EV_RUNNING, .argv = t.argv});
	r->installer_status = run_installer((char **)t.argv, err);
	if (r->installer_status < 0) {
		rc = err->code;
		goto out;
	}
	if (got_signal || r->dry_run)
		goto out; /* `restore` repairs from the snapshot taken before it ran */
	/* whatever the installer's status: a half-finished install is when the stack breaks */
	rc = check_and_repair(o, t.flow, t.dir,
			      r->installer_status ? "the failed installer" : "the installer", 0,
			      &r->repaired, &r->damaged, err);
	if (rc || got_signal)
		goto out; /* the repair is done; verify can wait for `rocm-resolve verify` */
	if (r->installer_status != 0) {
		keep_plan = true;
		r->kept_plan = RR_STEAL(t.plan_path);
		goto out;
	}
	/* the temporary files are done with; verify (up to a minute a stage) may be stopped */
	unlink(t.plan_path);
	free(t.plan_path);
	t.plan_path = NULL;
	release_signals(&t.sig);
	if (got_signal)
		goto out;
	/* read the venv again and verify what is there now */
	rc = rr_flow_reload_env(t.flow, &t.fo, err);
	if (!rc)
		rc = verify_after(o, t.flow, t.dir, &t.before, r, err);
out:
	r->signal = got_signal;
	txn_release(&t, keep_plan);
	got_signal = 0;
	return rc;
}

rr_err rr_install_restore(const struct rr_install_opts *o, struct rr_install_result *r,
			  rr_error *err)
{
	struct rr_flow_opts fo = o->flow;
	struct rr_flow *f = NULL;
	RR_AUTOFREE char *dir = NULL;
	int lock = -1;
	rr_err rc;

	memset(r, 0, sizeof(*r));
	r->installer_status = -1;
	fo.want_inputs = false;
	fo.needs_live_env = true;
	rc = rr_flow_open(&fo, &f, err);
	if (!rc)
		rc = check_writable(rr_flow_venv(f), "restore", err);
	if (!rc)
		rc = store_dir_for(o, f, &dir, err);
	if (!rc)
		rc = rr_store_lock(dir, false, &lock, err);
	if (!rc)
		rc = check_and_repair(o, f, dir, "since the snapshot, something", RR_STORE_FULL,
				      &r->repaired, &r->damaged, err);
	if (rc == RR_E_NOTFOUND && dir)
		rr_fail(err, RR_E_NOTFOUND,
			"no snapshot of '%s' in '%s': `rocm-resolve install` "
			"takes one before it runs the installer",
			rr_flow_venv(f)->root, dir);
	if (lock >= 0)
		close(lock);
	rr_flow_free(f);
	return rc;
}
