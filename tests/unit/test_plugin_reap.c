/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_reap.c - stepd/reap.c (fast step end) and stepd/weight.c
 * (task weight), without Slurm.
 *
 * The test's main thread plays slurmstepd's job manager thread: it arms
 * the watch, forks the "tasks" (each calls plug_reap_task, as the task
 * hook does, then sleeps a little and exits), and reaps them the way
 * slurmstepd 22.05 does: a blocking wait for one, usleep(100000) when
 * tasks are left, then a non-blocking sweep. What is checked is how long
 * that usleep lasted. The test sleeps 1 s instead of Slurm's 100 ms, so
 * that a loaded machine (make -j check beside the cluster suites) cannot
 * make a late signal look like none: cut short means < 500 ms, not cut
 * means the whole second.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stepd/reap.h"
#include "stepd/weight.h"
#include "progress.h"
#include "slurm_adapter.h"
#include "runner.h"

#define PAUSE_MS 1000 /* Slurm's is 100 */
#define CUT_MS 500    /* a pause shorter than this was cut short */

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void finalized_fn(void *arg)
{
	plug_reap_finalized((uint32_t)(uintptr_t)arg);
}

/* Forks n tasks; task i reports (unless i == silent) and exits after
 * delay_ms[i]. Every task but `unfinalized` "finalizes": the server's
 * client_finalized upcall, in the progress thread. */
static void fork_tasks(int n, const int *delay_ms, int silent, int unfinalized)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (i != silent)
				plug_reap_task((uint32_t)i);
			usleep((useconds_t)delay_ms[i] * 1000);
			_exit(0);
		}
		if (i != unfinalized)
			ck_assert_int_eq(pxc_progress_post(pxc_progress_global(), finalized_fn,
							   (void *)(uintptr_t)(100 + i)),
					 0);
	}
}

/* slurmstepd's reaping loop, first round: returns how long the pause
 * lasted (ms) and how many tasks the round reaped. */
static double slurm_round(int *reaped)
{
	double t0;
	int st;

	ck_assert_int_gt(waitpid(-1, &st, 0), 0);
	*reaped = 1;
	t0 = now_ms();
	usleep(PAUSE_MS * 1000);
	t0 = now_ms() - t0;
	while (waitpid(-1, &st, WNOHANG) > 0)
		++*reaped;
	return t0;
}

/* The watch cut Slurm's pause short. */
static void expect_cut(double pause)
{
	ck_assert_int_ge(plug_reap_fired(), 1);
	ck_assert_msg(pause < CUT_MS, "the pause lasted %.1f ms", pause);
}

/* Slurm's pause stayed whole: no signal. */
static void expect_kept(double pause)
{
	ck_assert_int_eq(plug_reap_fired(), 0);
	ck_assert_msg(pause >= PAUSE_MS - 5, "the pause lasted %.1f ms", pause);
}

static void reap_all(void)
{
	int st;

	while (waitpid(-1, &st, 0) > 0)
		;
}

static void setup(void)
{
	ck_assert_ptr_nonnull(pxc_progress_acquire());
}

static void teardown(void)
{
	plug_reap_stop();
	reap_all();
	pxc_progress_release();
}

START_TEST(test_cut_short)
{
	const int delay[4] = { 20, 20, 25, 30 };
	double pause;
	int reaped;

	ck_assert_int_eq(plug_reap_start(4, 1), 0);
	fork_tasks(4, delay, -1, -1);
	usleep(60000); /* every task has exited */
	pause = slurm_round(&reaped);
	ck_assert_int_eq(reaped, 4);
	expect_cut(pause);
}
END_TEST

/* The usual case: the tasks end while Slurm waits for the first. */
START_TEST(test_cut_short_while_waiting)
{
	const int delay[3] = { 30, 31, 32 };
	double pause;
	int reaped;

	ck_assert_int_eq(plug_reap_start(3, 1), 0);
	fork_tasks(3, delay, -1, -1);
	pause = slurm_round(&reaped);
	ck_assert_int_eq(reaped, 3);
	expect_cut(pause);
}
END_TEST

static void stall_fn(void *arg)
{
	(void)arg;
	usleep(300000);
}

/* Many tasks reporting at once while the progress thread is busy
 * elsewhere (more than net.unix.max_dgram_qlen, 10 by default, which
 * does not bound a socket pair): all 40 reports arrive, the pause is cut
 * short. */
START_TEST(test_many_tasks)
{
	int delay[40];
	double pause;
	int reaped;

	for (int i = 0; i < 40; i++)
		delay[i] = 500;
	ck_assert_int_eq(plug_reap_start(40, 1), 0);
	ck_assert_int_eq(pxc_progress_post(pxc_progress_global(), stall_fn, NULL), 0);
	usleep(20000); /* the thread is in stall_fn now */
	fork_tasks(40, delay, -1, -1);
	usleep(700000);
	pause = slurm_round(&reaped);
	ck_assert_int_eq(reaped, 40);
	expect_cut(pause);
}
END_TEST

/* A task still runs: Slurm's pause stays. */
START_TEST(test_task_left)
{
	const int delay[3] = { 10, 10, 1400 };
	double pause;
	int reaped;

	ck_assert_int_eq(plug_reap_start(3, 1), 0);
	fork_tasks(3, delay, -1, -1);
	usleep(50000);
	pause = slurm_round(&reaped);
	ck_assert_int_eq(reaped, 2);
	expect_kept(pause);
	/* The last one ends: Slurm reaps it and its loop ends (nothing to cut). */
	slurm_round(&reaped);
	ck_assert_int_eq(reaped, 1);
}
END_TEST

/* A task that never reported: the watch never fires. */
START_TEST(test_silent_task)
{
	const int delay[3] = { 10, 10, 10 };
	double pause;
	int reaped;

	ck_assert_int_eq(plug_reap_start(3, 1), 0);
	fork_tasks(3, delay, 1, -1);
	usleep(50000);
	pause = slurm_round(&reaped);
	ck_assert_int_eq(reaped, 3);
	expect_kept(pause);
}
END_TEST

/* A task that did not finalize (killed, lost, not a PMIx program):
 * Slurm's pause stays; a repeated finalize of another rank does not
 * stand in for it. */
START_TEST(test_unfinalized_task)
{
	const int delay[3] = { 10, 10, 10 };
	double pause;
	int reaped;

	ck_assert_int_eq(plug_reap_start(3, 1), 0);
	fork_tasks(3, delay, -1, 2);
	ck_assert_int_eq(pxc_progress_post(pxc_progress_global(), finalized_fn,
					   (void *)(uintptr_t)100),
			 0);
	usleep(50000);
	pause = slurm_round(&reaped);
	ck_assert_int_eq(reaped, 3);
	expect_kept(pause);
}
END_TEST

/* More reports than tasks (a report from a process that is not a task):
 * the extra one is ignored (its pidfd closed); the two tasks still end
 * the pause. The extra process reports after them and outlives them. */
START_TEST(test_extra_reports)
{
	const int delay[2] = { 10, 10 };
	double pause;
	int reaped;
	pid_t pid;

	int ready[2];
	char c[2];

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(plug_reap_start(2, 1), 0);
	for (int i = 0; i < 2; i++) { /* the tasks, reporting first */
		ck_assert_int_ge(pid = fork(), 0);
		if (pid == 0) {
			plug_reap_task(0);
			(void)!write(ready[1], "r", 1);
			usleep((useconds_t)delay[i] * 1000);
			_exit(0);
		}
		ck_assert_int_eq(pxc_progress_post(pxc_progress_global(), finalized_fn,
						   (void *)(uintptr_t)(100 + i)),
				 0);
	}
	ck_assert_int_eq(read(ready[0], c, 1) + read(ready[0], c + 1, 1), 2);
	close(ready[0]);
	close(ready[1]);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		plug_reap_task(0);
		usleep(2000000);
		_exit(0);
	}
	usleep(50000);
	pause = slurm_round(&reaped);
	ck_assert_int_eq(reaped, 2);
	expect_cut(pause);
	kill(pid, SIGKILL);
}
END_TEST

static void other_handler(int sig)
{
	(void)sig;
}

static void on_nothing(int sig)
{
	(void)sig;
}

/* ---- exit statuses ---- */

/* Whether this kernel keeps a reaped task's exit status for its pidfd
 * (PIDFD_GET_INFO with PIDFD_INFO_EXIT, Linux 6.15). */
static int kernel_keeps_exit(void)
{
	struct {
		uint64_t mask, cgroupid;
		uint32_t ids[11];
		int32_t exit_code;
	} info = { .mask = 1ULL << 3 };
	pid_t pid = fork();
	int fd, st, ok;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(100);
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ok = fd >= 0 && ioctl(fd, _IOWR(0xFF, 11, info), &info) == 0 && (info.mask & (1ULL << 3)) &&
	     WIFEXITED(info.exit_code) && WEXITSTATUS(info.exit_code) == 100;
	if (fd >= 0)
		close(fd);
	return ok;
}

static struct {
	volatile int n;
	int known[8], wstatus[8];
	double at[8];
} ans;

static void status_cb(int known, int wstatus, void *arg)
{
	int i = (int)(uintptr_t)arg;

	ans.known[i] = known;
	ans.wstatus[i] = wstatus;
	ans.at[i] = now_ms();
	__atomic_add_fetch(&ans.n, 1, __ATOMIC_SEQ_CST);
}

static struct {
	pid_t pid;
	int wait_ms, slot;
} askq;

static void ask_fn(void *arg)
{
	plug_reap_exit_status(askq.pid, askq.wait_ms, status_cb, (void *)(uintptr_t)askq.slot);
	pxc_sync_signal(arg, PMIX_SUCCESS);
}

/* Asks (in the progress thread) how pid ended, answer in slot. */
static void ask(pid_t pid, int wait_ms, int slot)
{
	askq.pid = pid;
	askq.wait_ms = wait_ms;
	askq.slot = slot;
	ck_assert_int_eq(pxc_progress_call(pxc_progress_global(), ask_fn, 5000), PMIX_SUCCESS);
}

static void wait_answers(int n)
{
	for (int i = 0; i < 500 && ans.n < n; i++)
		usleep(10000);
	ck_assert_int_eq(ans.n, n);
}

static pid_t fork_one(int delay_ms, int how)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		plug_reap_task((uint32_t)delay_ms);
		usleep((useconds_t)delay_ms * 1000);
		if (how == 1)
			raise(SIGKILL);
		_exit(3);
	}
	return pid;
}

/* How a task ended: asked while it runs, answered when it exits (a
 * zombie: waitid WNOWAIT); asked after "Slurm" reaped it (the pidfd's
 * PIDFD_INFO_EXIT, or unknown on older kernels); a task still running
 * after the wait, and a pid that is no task, unknown. */
START_TEST(test_exit_status)
{
	int keeps = kernel_keeps_exit(), st;
	pid_t a, b, c;
	double t0;

	memset(&ans, 0, sizeof(ans));
	ck_assert_int_eq(plug_reap_start(3, 0), 0);
	a = fork_one(300, 0); /* exits 3 */
	b = fork_one(50, 1);  /* SIGKILL */
	c = fork_one(3000, 0);
	usleep(100000); /* the reports are in */
	t0 = now_ms();
	ask(a, 2000, 0); /* answered at its exit, before any reaping */
	wait_answers(1);
	ck_assert_int_eq(ans.known[0], 1);
	ck_assert(WIFEXITED(ans.wstatus[0]) && WEXITSTATUS(ans.wstatus[0]) == 3);
	ck_assert_msg(ans.at[0] - t0 > 100 && ans.at[0] - t0 < 1500, "answered after %.0f ms",
		      ans.at[0] - t0);
	ck_assert_int_eq(waitpid(b, &st, 0), b); /* reaped first, as Slurm does */
	ask(b, 2000, 1);
	wait_answers(2);
	ck_assert_int_eq(ans.known[1], keeps);
	if (keeps)
		ck_assert(WIFSIGNALED(ans.wstatus[1]) && WTERMSIG(ans.wstatus[1]) == SIGKILL);
	t0 = now_ms();
	ask(c, 200, 2); /* still running after 200 ms */
	wait_answers(3);
	ck_assert_int_eq(ans.known[2], 0);
	ck_assert_msg(ans.at[2] - t0 >= 150, "answered after %.0f ms", ans.at[2] - t0);
	ask(1, 200, 3); /* no task of ours */
	wait_answers(4);
	ck_assert_int_eq(ans.known[3], 0);
	ask(c, 5000, 4); /* pending at stop: answered, unknown */
	plug_reap_stop();
	wait_answers(5);
	ck_assert_int_eq(ans.known[4], 0);
	kill(c, SIGKILL);
}
END_TEST

/* The hooks: each task's rank and pid when it reports, its rank and how
 * it ended when it exits (fork_one reports its delay as its rank). */
static struct {
	int ntask, nexit;
	uint32_t task_rank[4], exit_rank[4];
	pid_t pid[4];
	int known[4], wstatus[4];
} hk;

static void hook_task(uint32_t rank, pid_t pid)
{
	if (hk.ntask < 4) {
		hk.task_rank[hk.ntask] = rank;
		hk.pid[hk.ntask++] = pid;
	}
}

static void hook_exit(uint32_t rank, int known, int wstatus)
{
	if (hk.nexit < 4) {
		hk.exit_rank[hk.nexit] = rank;
		hk.known[hk.nexit] = known;
		hk.wstatus[hk.nexit++] = wstatus;
	}
}

START_TEST(test_hooks)
{
	pid_t a, b;

	memset(&hk, 0, sizeof(hk));
	plug_reap_hooks(hook_task, hook_exit);
	ck_assert_int_eq(plug_reap_start(2, 0), 0);
	a = fork_one(100, 0); /* rank 100, exits 3 */
	b = fork_one(300, 1); /* rank 300, SIGKILL */
	for (int i = 0; i < 300 && hk.nexit < 2; i++)
		usleep(10000);
	ck_assert_int_eq(hk.ntask, 2);
	ck_assert_int_eq(hk.nexit, 2);
	ck_assert_uint_eq(hk.task_rank[0] + hk.task_rank[1], 400);
	ck_assert(hk.pid[0] == (hk.task_rank[0] == 100 ? a : b));
	ck_assert_uint_eq(hk.exit_rank[0], 100); /* the earlier exit first */
	ck_assert_int_eq(hk.known[0], 1);
	ck_assert(WIFEXITED(hk.wstatus[0]) && WEXITSTATUS(hk.wstatus[0]) == 3);
	ck_assert_uint_eq(hk.exit_rank[1], 300);
	ck_assert_int_eq(hk.known[1], 1);
	ck_assert(WIFSIGNALED(hk.wstatus[1]) && WTERMSIG(hk.wstatus[1]) == SIGKILL);
	plug_reap_stop();
	plug_reap_hooks(NULL, NULL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
}
END_TEST

/* The signal belongs to someone else: the watch is not armed (the exit
 * statuses are still collected), their handler stays. */
START_TEST(test_signal_in_use)
{
	const int delay[2] = { 20, 20 };
	struct sigaction sa, now;
	int reaped;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = other_handler;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGRTMIN + 6, &sa, NULL), 0);
	ck_assert_int_eq(plug_reap_start(2, 1), 0);
	fork_tasks(2, delay, -1, -1);
	expect_kept(slurm_round(&reaped));
	plug_reap_stop();
	ck_assert_int_eq(sigaction(SIGRTMIN + 6, NULL, &now), 0);
	ck_assert_ptr_eq((void *)now.sa_handler, (void *)other_handler);
	signal(SIGRTMIN + 6, SIG_DFL); /* for the next test (CK_FORK=no) */
}
END_TEST

/* One task: Slurm never pauses, nothing to arm (but its exit status is
 * collected). Started twice: the second fails. After stop, the signal is
 * ignored: a late one cannot end the process. */
START_TEST(test_one_task_and_after_stop)
{
	struct sigaction now;

	ck_assert_int_eq(plug_reap_start(1, 1), 0);
	ck_assert_int_eq(plug_reap_start(2, 1), -1);
	plug_reap_stop();
	ck_assert_int_eq(sigaction(SIGRTMIN + 6, NULL, &now), 0);
	ck_assert_ptr_ne((void *)now.sa_handler, (void *)on_nothing);
	ck_assert_int_eq(plug_reap_start(2, 1), 0);
	plug_reap_stop();
	ck_assert_int_eq(sigaction(SIGRTMIN + 6, NULL, &now), 0);
	ck_assert_ptr_eq((void *)now.sa_handler, (void *)SIG_IGN);
	ck_assert_int_eq(raise(SIGRTMIN + 6), 0);
}
END_TEST

START_TEST(test_weight_nice)
{
	ck_assert_int_eq(plug_weight_nice(0, 0), 0);
	ck_assert_int_eq(plug_weight_nice(1, 1), 0);
	ck_assert_int_eq(plug_weight_nice(2, 1), -3); /* 1991 / 1024 = 1.94 */
	ck_assert_int_eq(plug_weight_nice(4, 0), -6); /* 3906; no parent count: 1 */
	ck_assert_int_eq(plug_weight_nice(8, 1), -9); /* 7620 */
	ck_assert_int_eq(plug_weight_nice(8, 2), -6); /* 8 children, 2 parents */
	ck_assert_int_eq(plug_weight_nice(2, 2), 0);
	ck_assert_int_eq(plug_weight_nice(1, 8), 0);    /* never above 0 */
	ck_assert_int_eq(plug_weight_nice(64, 1), -19); /* 71755 / 1024 = 70 */
	ck_assert_int_eq(plug_weight_nice(1000, 1), -20);
}
END_TEST

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void get(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	buf[fread(buf, 1, len - 1, f)] = '\0';
	fclose(f);
}

/* A stand-in /proc: the value goes to self/autogroup only when the
 * kernel schedules by autogroup. */
START_TEST(test_weight_apply)
{
	char dir[] = "/tmp/slurmix-weight-XXXXXX", path[256], buf[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sys", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/self", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/self/autogroup", dir);
	put(path, "");
	snprintf(path, sizeof(path), "%s/sys/kernel/sched_autogroup_enabled", dir);
	put(path, "0\n");
	ck_assert_int_eq(plug_weight_apply(dir, 8, 1), 0);
	snprintf(path, sizeof(path), "%s/self/autogroup", dir);
	get(path, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");

	snprintf(path, sizeof(path), "%s/sys/kernel/sched_autogroup_enabled", dir);
	put(path, "1\n");
	ck_assert_int_eq(plug_weight_apply(dir, 1, 1), 0);
	ck_assert_int_eq(plug_weight_apply(dir, 8, 1), -9);
	snprintf(path, sizeof(path), "%s/self/autogroup", dir);
	get(path, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-9");

	unlink(path); /* no autogroup file (kernel without it) */
	ck_assert_int_eq(plug_weight_apply(dir, 8, 1), -1);
	snprintf(path, sizeof(path), "%s/sys/kernel/sched_autogroup_enabled", dir);
	unlink(path);
	ck_assert_int_eq(plug_weight_apply(dir, 8, 1), 0);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

static Suite *reap_suite(void)
{
	Suite *s = suite_create("plugin_reap");
	TCase *tc = tcase_create("reap");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_cut_short);
	tcase_add_test(tc, test_cut_short_while_waiting);
	tcase_add_test(tc, test_many_tasks);
	tcase_add_test(tc, test_task_left);
	tcase_add_test(tc, test_silent_task);
	tcase_add_test(tc, test_unfinalized_task);
	tcase_add_test(tc, test_extra_reports);
	tcase_add_test(tc, test_signal_in_use);
	tcase_add_test(tc, test_one_task_and_after_stop);
	tcase_add_test(tc, test_exit_status);
	tcase_add_test(tc, test_hooks);
	suite_add_tcase(s, tc);
	tc = tcase_create("weight");
	tcase_add_test(tc, test_weight_nice);
	tcase_add_test(tc, test_weight_apply);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = reap_suite });
}
