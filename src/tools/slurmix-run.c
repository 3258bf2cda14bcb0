/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurmix-run.c - `slurmix-run -n N prog args`: run a PMIx program on this
 * machine without Slurm, with our PMIx server hosted in this process.
 *
 * This file holds main(): options, the task environment (our private
 * library directory is prepended to LD_LIBRARY_PATH so that tasks load our
 * libpmix.so.2), the session directory, the topology, and the main loop.
 * See sxr.h for the thread model: the main loop is the only owner of the
 * launcher's state; it polls an eventfd (work posted by the server's
 * progress thread) and a signalfd (SIGCHLD, and SIGINT/SIGTERM/SIGHUP
 * which are forwarded to the tasks), and fires timers (--timeout, the
 * SIGTERM->SIGKILL grace period, lookup timeouts). It ends when every
 * task of every namespace has exited.
 *
 * Exit status: the first failure decides - a task's non-zero exit status,
 * 128+signal for a task killed by a signal, the status given to
 * PMIx_Abort, 124 on --timeout, 128+signal when slurmix-run itself was
 * interrupted; 0 when every task exited 0. Launcher errors: 2 for bad
 * usage, 126/127 for a program that cannot be executed / is not found,
 * 1 otherwise. The session directory (server socket, task dirs) is
 * removed at exit whatever happened.
 *
 * Caveat: tasks stay in slurmix-run's process group, so a Ctrl-C on the
 * terminal reaches them directly too; their own children are not tracked.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "sxr.h"
#include "slurmix-run.h"
#include "sxr_dir.h"
#include "sxr_in.h"
#include "sxr_iof.h"
#include "sxr_host.h"
#include "sxr_job.h"
#include "sxr_req.h"
#include "sxr_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#ifndef SXR_PKGLIBDIR
#define SXR_PKGLIBDIR ""
#endif
#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

extern char **environ;

/* ---------------------------------------------------------------- options */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s -n N [options] program [args...] [: [-n M] program2 [args...]]...\n"
		"Run N copies of a PMIx (e.g. Open MPI) program on this machine, with\n"
		"slurmix's PMIx server hosted by %s. Programs separated by ':' form\n"
		"one job of several apps (MPMD); ranks follow the command line.\n\n"
		"  -n, --np N          number of tasks (required, >= 1)\n"
		"  -t, --timeout SECS  kill every task after SECS seconds (exit 124)\n"
		"      --tmpdir DIR    where to create the session directory\n"
		"                      (default: $TMPDIR or /tmp)\n"
		"  -x VAR[=VALUE]      set VAR in the tasks' environment (VAR alone:\n"
		"                      pass it through; the whole environment is passed anyway)\n"
		"      --keep-going    a failing task does not end the other tasks\n"
		"      --no-libpath    do not prepend slurmix's library directory to\n"
		"                      the tasks' LD_LIBRARY_PATH\n"
		"      --libdir DIR    use DIR as slurmix's library directory\n"
		"      --no-ompi-env   do not set JSM_JSRUN_PORT, which makes Open MPI 4.x\n"
		"                      accept the launch (its ess pmi path)\n"
		"  -v, --verbose       report what the launcher does on stderr\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n"
		"Environment: SLURMIX_STDIN=push gives every task a stdin that only\n"
		"PMIx_IOF_push feeds (open until a push marked complete); otherwise rank 0\n"
		"reads our stdin and the others /dev/null.\n",
		SXR_NAME, SXR_NAME);
}

enum { OPT_TMPDIR = 256, OPT_KEEP, OPT_NOLIB, OPT_LIBDIR, OPT_NOOMPI };

static const struct option long_opts[] = {
	{ "np", required_argument, NULL, 'n' },
	{ "timeout", required_argument, NULL, 't' },
	{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
	{ "keep-going", no_argument, NULL, OPT_KEEP },
	{ "no-libpath", no_argument, NULL, OPT_NOLIB },
	{ "libdir", required_argument, NULL, OPT_LIBDIR },
	{ "no-ompi-env", no_argument, NULL, OPT_NOOMPI },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int parse_uint(const char *arg, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Returns -1 to continue, else the exit status to end with now. */
static int parse_one(struct sxr *s, int c, const char *arg)
{
	long v;
	char *end;

	switch (c) {
	case 'n':
		if (parse_uint(arg, 65535, &v) < 0)
			return sxr_msg("invalid number of tasks '%s' (1..65535)", arg), 2;
		s->o.np = (uint32_t)v;
		return -1;
	case 't':
		s->o.timeout = strtod(arg, &end);
		if (*end || end == arg || !(s->o.timeout > 0))
			return sxr_msg("invalid timeout '%s'", arg), 2;
		return -1;
	case OPT_TMPDIR: s->o.tmpbase = arg; return -1;
	case 'x': return sxr_argv_add(&s->o.xenv, arg) < 0 ? 1 : -1;
	case OPT_KEEP: s->o.keep_going = 1; return -1;
	case OPT_NOLIB: s->o.libpath = 0; return -1;
	case OPT_NOOMPI: s->o.ompi_env = 0; return -1;
	case OPT_LIBDIR:
		free(s->libdir);
		s->libdir = strdup(arg);
		return -1;
	case 'v': s->o.verbose++; return -1;
	case 'h': usage(stdout); return 0;
	case 'V': printf("%s (slurmix) %s\n", SXR_NAME, PACKAGE_VERSION); return 0;
	default: usage(stderr); return 2;
	}
}

/* "-n N" at the start of an MPMD segment: returns 1 and sets *np if there. */
static int segment_np(char ***a, uint32_t *np, int *bad)
{
	long v;

	if (!(*a)[0] ||
	    (strcmp((*a)[0], "-n") && strcmp((*a)[0], "-np") && strcmp((*a)[0], "--np")))
		return 0;
	if (!(*a)[1] || parse_uint((*a)[1], 65535, &v) < 0)
		return *bad = 1, 0;
	*np = (uint32_t)v;
	*a += 2;
	return 1;
}

/* Splits mpirun's MPMD form "prog args : [-n N] prog args ..." in place
 * into apps (a later segment without -n gets the first one's count). */
static int split_apps(struct sxr *s)
{
	char **a = s->o.argv;
	unsigned long total = 0;
	int bad = 0;

	for (;;) {
		uint32_t np = s->o.np;

		if (s->o.napps > 0)
			segment_np(&a, &np, &bad);
		if (bad || !a[0] || !strcmp(a[0], ":") || s->o.napps == SXR_MAX_APPS)
			return sxr_msg("bad program list (try --help)"), 2;
		s->o.app_argv[s->o.napps] = a;
		s->o.app_np[s->o.napps++] = np;
		total += np;
		while (*a && strcmp(*a, ":"))
			a++;
		if (!*a)
			break;
		*a++ = NULL;
	}
	if (total > 65535)
		return sxr_msg("too many tasks (%lu > 65535)", total), 2;
	return -1;
}

static int parse_opts(struct sxr *s, int argc, char **argv)
{
	int c, rc;

	for (int i = 1; i < argc && argv[i][0] == '-'; i++)
		if (!strcmp(argv[i], "-np")) /* mpirun spelling */
			argv[i] = "-n";
	s->o.libpath = 1;
	s->o.ompi_env = 1;
	while ((c = getopt_long(argc, argv, "+n:t:x:vhV", long_opts, NULL)) != -1)
		if ((rc = parse_one(s, c, optarg)) >= 0)
			return rc;
	if (optind >= argc)
		return sxr_msg("no program given (try --help)"), 2;
	if (!s->o.np)
		return sxr_msg("the number of tasks is required: -n N (try --help)"), 2;
	s->o.argv = &argv[optind];
	return split_apps(s);
}

/* ---------------------------------------------------------------- environment */

static int has_lib(const char *dir)
{
	char path[PATH_MAX + 32];
	int n = snprintf(path, sizeof(path), "%s/libpmix.so.2", dir);

	return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

/* Our private library directory: next to the binary (build tree or
 * <prefix>/bin -> <prefix>/lib/slurmix), else the configured one. */
static char *find_libdir(void)
{
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *fmts[] = { "%s", "%s/.libs", "%s/../.libs", "%s/../lib/slurmix", NULL };
	char *slash;

	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
		for (int i = 0; fmts[i]; i++) {
			snprintf(cand, sizeof(cand), fmts[i], exe);
			if (has_lib(cand))
				return realpath(cand, NULL);
		}
	}
	return *SXR_PKGLIBDIR && has_lib(SXR_PKGLIBDIR) ? strdup(SXR_PKGLIBDIR) : NULL;
}

static int stale_pmix_var(const char *e)
{
	return (!strncmp(e, "PMIX_", 5) && strncmp(e, "PMIX_MCA_", 9)) ||
	       !strncmp(e, "SLURMIX_PMIX_", 13);
}

static int apply_x(struct sxr *s, char ***env)
{
	for (char **x = s->o.xenv; x && *x; x++) {
		char *eq = strchr(*x, '='), *name;
		int rc;

		if (!eq) /* pass-through: it is in our environment already */
			continue;
		if (!(name = strndup(*x, (size_t)(eq - *x))))
			return -1;
		rc = sxr_env_set(env, name, eq + 1);
		free(name);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int build_base_env(struct sxr *s)
{
	char **env = calloc(1, sizeof(char *));
	const char *old;
	char *ld;
	int rc = env ? 0 : -1;

	for (char **e = environ; rc == 0 && e && *e; e++)
		if (!stale_pmix_var(*e))
			rc = sxr_argv_add(&env, *e);
	/* Open MPI 4.x accepts a direct launch only from launchers its schizo
	 * framework knows; the jsm component's trigger selects exactly what a
	 * PMIx launch needs (ess pmi, no binding by Open MPI) and nothing else. */
	if (rc == 0 && s->o.ompi_env && !sxr_env_get(env, "JSM_JSRUN_PORT"))
		rc = sxr_env_set(&env, "JSM_JSRUN_PORT", SXR_NAME);
	if (rc == 0)
		rc = apply_x(s, &env);
	if (rc == 0 && s->o.libpath && s->libdir) {
		old = sxr_env_get(env, "LD_LIBRARY_PATH");
		rc = asprintf(&ld, "%s%s%s", s->libdir, old && *old ? ":" : "", old ? old : "");
		if (rc >= 0) {
			rc = sxr_env_set(&env, "LD_LIBRARY_PATH", ld);
			free(ld);
		}
	}
	s->base_env = env;
	return rc < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- setup */

static int make_tmpdir(struct sxr *s)
{
	const char *base = s->o.tmpbase ? s->o.tmpbase : getenv("TMPDIR");

	if (!base || !*base)
		base = "/tmp";
	snprintf(s->tmpdir, sizeof(s->tmpdir), "%s/sxr.%d.XXXXXX", base, (int)getpid());
	if (!mkdtemp(s->tmpdir)) {
		sxr_msg("cannot create a session directory in %s: %s", base, strerror(errno));
		s->tmpdir[0] = '\0';
		return -1;
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		sxr_msg("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

static void remove_tmpdir(struct sxr *s)
{
	if (s->tmpdir[0])
		nftw(s->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	s->tmpdir[0] = '\0';
}

static int load_topology(struct sxr *s)
{
	char *xml = NULL;
	int len = 0;

	if (hwloc_topology_init(&s->topo) < 0 || hwloc_topology_load(s->topo) < 0) {
		sxr_msg("cannot discover the hardware topology");
		return -1;
	}
	if (hwloc_topology_export_xmlbuffer(s->topo, &xml, &len, 0) == 0 && xml) {
		s->topo_xml = strdup(xml);
		hwloc_free_xmlbuffer(s->topo, xml);
	}
	return 0;
}

static void make_locality(struct sxr *s)
{
	pmix_cpuset_t cs = { .source = "hwloc",
			     .bitmap = (void *)hwloc_topology_get_allowed_cpuset(s->topo) };

	if (PMIx_server_generate_locality_string(&cs, &s->locality) != PMIX_SUCCESS)
		s->locality = NULL;
}

static int setup_signals(struct sxr *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	signal(SIGPIPE, SIG_IGN); /* a closed stdout must not kill us before cleanup */
	/* before any thread exists, so that every thread inherits the mask */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
		return -1;
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	s->qfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return s->sigfd < 0 || s->qfd < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- ending */

void sxr_set_status(struct sxr *s, int status)
{
	if (s->have_status)
		return;
	s->have_status = 1;
	s->status = status;
}

void sxr_terminate(struct sxr *s, int sig)
{
	if (s->terminating && sig != SIGKILL)
		return;
	s->terminating = 1;
	sxr_signal_tasks(s, sig);
	if (sig != SIGKILL && !s->kill_at)
		s->kill_at = sxr_now() + SXR_GRACE_MS / 1000.0;
}

static void on_signal(struct sxr *s, int sig)
{
	if (sig == SIGCHLD) {
		sxr_reap(s);
		return;
	}
	if (s->terminating && s->signals_sent) {
		sxr_msg("received SIG%s again, killing every task", sigabbrev_np(sig));
		sxr_terminate(s, SIGKILL);
		return;
	}
	sxr_msg("received SIG%s, terminating the job", sigabbrev_np(sig));
	s->signals_sent = 1;
	sxr_set_status(s, 128 + sig);
	s->terminating = 0; /* forward this signal even if already ending */
	sxr_terminate(s, sig);
}

static void read_signals(struct sxr *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		on_signal(s, (int)si.ssi_signo);
}

/* Fires due timers; returns the poll timeout in ms (-1 = none). */
static int run_timers(struct sxr *s)
{
	double now = sxr_now(), next = 0, d;

	if (s->deadline && now >= s->deadline) {
		sxr_msg("timeout after %g seconds, terminating the job", s->o.timeout);
		sxr_set_status(s, 124);
		s->deadline = 0;
		sxr_terminate(s, SIGTERM);
	}
	if (s->kill_at && now >= s->kill_at) {
		sxr_verbose(s, "grace period over, killing what is left");
		sxr_signal_tasks(s, SIGKILL);
		s->kill_at = 0;
	}
	d = sxr_dir_timers(s->dir, now);
	next = s->deadline;
	if (s->kill_at && (!next || s->kill_at < next))
		next = s->kill_at;
	if (d && (!next || d < next))
		next = d;
	return next ? (int)((next - now) * 1000) + 1 : -1;
}

static void main_loop(struct sxr *s)
{
	struct pollfd *pfd = NULL;
	int cap = 0;

	while (sxr_tasks_running(s) > 0) {
		int ms = run_timers(s), n, want = 2 + 3 * sxr_tasks_running(s);
		struct pollfd *grown;

		if (want > cap && (grown = realloc(pfd, (size_t)want * sizeof(*pfd)))) {
			pfd = grown;
			cap = want;
		}
		if (!pfd) { /* (no memory for even the two) */
			sxr_msg("out of memory");
			sxr_terminate(s, SIGKILL);
			break;
		}
		pfd[0] = (struct pollfd){ .fd = s->qfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
		n = 2 + sxr_iof_pollfds(s, pfd + 2, cap - 2);
		n += sxr_in_pollfds(s, pfd + n, cap - n);
		if (poll(pfd, (nfds_t)n, ms) < 0 && errno != EINTR) {
			sxr_msg("poll: %s", strerror(errno));
			sxr_terminate(s, SIGKILL);
		}
		sxr_iof_run(s); /* the tasks' output */
		sxr_in_run(s);  /* pushes into their stdin */
		/* work first: a finalize notice must land before that task's exit */
		sxr_host_drain(s);
		read_signals(s);
	}
	free(pfd);
	sxr_iof_run(s); /* what the last ones left (their ends were read) */
}

/* ---------------------------------------------------------------- main */

/* Fills app from one command line segment; returns 0 or an exit status. */
static int build_app(struct sxr *s, struct sxr_app *app, char **argv, uint32_t np)
{
	int err;

	app->nprocs = np;
	app->cwd = strdup(s->cwd);
	app->argv = sxr_argv_dup(argv);
	app->env = sxr_argv_dup(s->base_env);
	if (app->cwd && app->argv && app->env &&
	    sxr_resolve_exe(argv[0], s->cwd, sxr_env_get(s->base_env, "PATH"), NULL, &app->exe) ==
		    0)
		return 0;
	err = errno;
	sxr_msg("cannot execute %s: %s", argv[0], strerror(err));
	return err == ENOENT ? 127 : err == EACCES ? 126 : 1;
}

static int start_job(struct sxr *s)
{
	struct sxr_app *apps = calloc((size_t)s->o.napps, sizeof(*apps));
	struct sxr_job *j;
	pmix_status_t rc;
	int ret = apps ? 0 : 1;

	for (int i = 0; ret == 0 && i < s->o.napps; i++)
		ret = build_app(s, &apps[i], s->o.app_argv[i], s->o.app_np[i]);
	if (ret) {
		sxr_apps_free(apps, (size_t)s->o.napps);
		return ret;
	}
	rc = sxr_job_launch(s, apps, (size_t)s->o.napps, NULL, &j); /* takes apps */
	return rc == PMIX_SUCCESS ? 0 : rc == PMIX_ERR_NOT_FOUND ? 127 : 1;
}

static int setup(struct sxr *s)
{
	if (!getcwd(s->cwd, sizeof(s->cwd)) || gethostname(s->hostname, sizeof(s->hostname)) < 0)
		return sxr_msg("cannot read the working directory or host name"), 1;
	s->hostname[sizeof(s->hostname) - 1] = '\0';
	if (!s->libdir)
		s->libdir = find_libdir();
	if (s->o.libpath && !s->libdir)
		sxr_msg("warning: slurmix's libpmix.so.2 not found; tasks use the default one");
	sxr_verbose(s, "library directory: %s", s->libdir ? s->libdir : "(none)");
	if (build_base_env(s) < 0 || setup_signals(s) < 0 || !(s->dir = sxr_dir_create()))
		return sxr_msg("out of resources: %s", strerror(errno)), 1;
	if (sxr_in_init() < 0 || make_tmpdir(s) < 0 || load_topology(s) < 0 || sxr_host_init(s) < 0)
		return 1;
	make_locality(s);
	return 0;
}

/* PMIx_server_finalize has no timeout: if it hangs, still clean up. */
static void *watchdog(void *arg)
{
	struct sxr *s = arg;

	sleep(SXR_FINALIZE_SECS);
	sxr_msg("PMIx server shutdown hangs; exiting anyway");
	remove_tmpdir(s);
	_exit(s->have_status ? s->status : 1);
	return NULL;
}

static void teardown(struct sxr *s)
{
	pthread_t wd;

	s->terminating = 1; /* late spawns are refused */
	if (s->qfd >= 0 && s->server_up)
		sxr_host_drain(s);
	sxr_dir_flush(s->dir);
	if (s->server_up) {
		if (pthread_create(&wd, NULL, watchdog, s) == 0)
			pthread_detach(wd);
		sxr_jobs_release(s);
		s->server_up = 0;
		PMIx_server_finalize();
	}
	sxr_jobs_release(s);
	sxr_dir_destroy(s->dir);
	remove_tmpdir(s);
	if (s->topo)
		hwloc_topology_destroy(s->topo);
	free(s->topo_xml);
	free(s->locality);
	free(s->libdir);
	sxr_argv_free(s->base_env);
	sxr_argv_free(s->o.xenv);
}

int main(int argc, char **argv)
{
	static struct sxr s;
	int rc;

	pthread_mutex_init(&s.qlock, NULL);
	s.qfd = s.sigfd = -1;
	rc = parse_opts(&s, argc, argv);
	if (rc >= 0) {
		sxr_argv_free(s.o.xenv);
		free(s.libdir);
		return rc;
	}
	rc = setup(&s);
	if (rc == 0)
		rc = start_job(&s);
	if (rc == 0) {
		if (s.o.timeout > 0)
			s.deadline = sxr_now() + s.o.timeout;
		main_loop(&s);
		rc = s.have_status ? s.status : 0;
	}
	teardown(&s);
	return rc;
}
