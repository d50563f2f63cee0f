// SPDX-License-Identifier: GPL-2.0
/*
 * scope: what a subtree kill may reach, in a real boot (lab/test/lca.t.sh).
 * It builds
 *
 *   owner (48 MB) - member
 *                 \ other (uid 65534) - other_child
 *                 \ ns - ns_init (pid 1 of a new pid namespace, in a
 *                        cgroup of its own) - ns_member
 *
 * and runs the OOM killer once with SysRq-f. Under vm.oom_kill_lca=2 owner
 * is the victim and the root of the subtree killed, which takes owner's
 * own user's processes, inside the container too, but not the other
 * user's, nor anything below them, nor a pid namespace's init
 * (Documentation/admin-guide/sysctl/vm.rst). It prints
 * {"pids":{...},"gone":[...],"alive":[...]} once owner is gone and the
 * processes killed with it have had STEP_SETTLE_S to exit.
 */
#include "lcalab.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { OWNER, MEMBER, OTHER, OTHER_CHILD, NS, NS_INIT, NS_MEMBER, NPROCS };

static const char *const names[NPROCS] = {
	"owner", "member", "other", "other_child", "ns", "ns_init", "ns_member",
};
static int report[2];

#define OWNER_MB	48
#define CGROUP		"/sys/fs/cgroup/lcalab-scope"
#define STEP_TIMEOUT_S	60
#define STEP_SETTLE_S	3

/* The global pid: /proc is the initial namespace's, whatever ours is. */
static pid_t global_pid(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n <= 0)
		die("readlink /proc/self: %s", strerror(errno));
	buf[n] = '\0';
	return atoi(buf);
}

static void say(int i)
{
	prctl(PR_SET_NAME, names[i]);
	report_member(report[1], i, global_pid());
}

static _Noreturn void wait_here(void)
{
	for (;;)
		pause();
}

/* Fork; the child starts what is below it, then reports as process @i. */
static void start(int i, void (*below)(void))
{
	pid_t pid = fork_or_die();

	if (pid)
		return;
	if (below)
		below();
	say(i);
	wait_here();
}

static void other_below(void)
{
	start(OTHER_CHILD, NULL);
}

static void ns_init_below(void)
{
	start(NS_MEMBER, NULL);
}

/* ns: a new pid namespace and cgroup for what it forks. */
static void ns_below(void)
{
	if (mkdir(CGROUP, 0755) && errno != EEXIST)
		die("mkdir %s: %s", CGROUP, strerror(errno));
	write_file(CGROUP "/cgroup.procs", "0");
	if (unshare(CLONE_NEWPID))
		die("unshare(CLONE_NEWPID): %s", strerror(errno));
	start(NS_INIT, ns_init_below);
}

/* The members first, then owner's memory, which they must not share. */
static void owner_below(void)
{
	start(MEMBER, NULL);
	start(NS, ns_below);
	if (fork() == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			die("other: cannot become uid 65534: %s", strerror(errno));
		say(OTHER);
		other_below();
		wait_here();
	}
	hold_mb(OWNER_MB);
}

static void print_names(const char *key, const pid_t *pids, int want_alive)
{
	const char *sep = "";
	int i;

	printf(",\"%s\":[", key);
	for (i = 0; i < NPROCS; i++)
		if (pid_alive(pids[i]) == want_alive) {
			printf("%s\"%s\"", sep, names[i]);
			sep = ",";
		}
	printf("]");
}

int main(void)
{
	pid_t pids[NPROCS] = { 0 };
	time_t end;
	int i;

	require_lab_guest("scope");
	write_file("/proc/self/oom_score_adj", "0");
	signal(SIGCHLD, SIG_IGN);
	if (pipe(report))
		die("pipe: %s", strerror(errno));
	start(OWNER, owner_below);
	close(report[1]);
	read_members(report[0], pids, 0, NPROCS);
	/* the observer must never be the victim */
	write_file("/proc/self/oom_score_adj", "-1000");
	printf("{\"pids\":{");
	for (i = 0; i < NPROCS; i++)
		printf("%s\"%s\":%d", i ? "," : "", names[i], pids[i]);
	printf("}");
	end = time(NULL) + STEP_TIMEOUT_S;
	write_file("/proc/sysrq-trigger", "f");
	while (pid_alive(pids[OWNER]) && time(NULL) < end)
		sleep_ms(100);
	sleep_ms(STEP_SETTLE_S * 1000);
	print_names("gone", pids, 0);
	print_names("alive", pids, 1);
	printf("}\n");
	return 0;
}
