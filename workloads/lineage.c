// SPDX-License-Identifier: GPL-2.0
/*
 * lineage: attack the biological process tree while the OOM killer works
 * (issue 16; run on lca-debug with several vCPUs, lab/test/lca.t.sh).
 *
 *   lineage [-t SECONDS] [-c CGROUP]
 *
 * Everything runs in the cgroup CGROUP [/sys/fs/cgroup/lineage]. One
 * attacker per kind of event loops until the deadline; an attacker the
 * OOM killer took is started again (counted). The kinds:
 *
 *   exec_thread    a thread of a process with children execs: de_thread()
 *                  moves the leader's node to the thread
 *   clone_parent   clone(CLONE_PARENT): the child's real parent is the
 *                  caller's parent
 *   vfork          vfork() and exec
 *   pidns          a pid namespace (unshare -p) whose init dies with
 *                  children and grandchildren in it
 *   subreaper      PR_SET_CHILD_SUBREAPER adopts grandchildren whose
 *                  parent exited
 *   setsid         double-forked setsid daemons
 *   middle_exit    a middle generation exits at once under its children
 *   oom_global     hogs on every CPU drive the guest out of memory together
 *   oom_memcg      hogs in small memory cgroups: constrained OOMs beside them
 *   policy_switch  vm.oom_kill_lca, _score and _window_ms changed every
 *                  250 ms (kernels without the knobs: not counted)
 *
 * Output, one JSON line at the end: {"type":"lineage","seconds":S,"cpus":N,
 * "counts":{KIND: N, ..., "restarts": N}, "oom_kills": N,
 * "memcg_oom_kills": N, "lca_decisions": N, "kmsg_lost": N}.
 */
#include "lcalab.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

enum kind {
	KIND_EXEC_THREAD, KIND_CLONE_PARENT, KIND_VFORK, KIND_PIDNS, KIND_SUBREAPER,
	KIND_SETSID, KIND_MIDDLE_EXIT, KIND_OOM_GLOBAL, KIND_OOM_MEMCG, KIND_POLICY_SWITCH,
	NKINDS
};

static const char *const kind_name[NKINDS] = {
	"exec_thread", "clone_parent", "vfork", "pidns", "subreaper", "setsid",
	"middle_exit", "oom_global", "oom_memcg", "policy_switch",
};

enum { NOT_STARTED = -1, KILLED = -2, DONE = -3 };

#define MEMCG_MAX_MB	16
#define MEMCG_HOGS	2

static long *counts;		/* shared: one per kind, then restarts */
static char cgroup[256] = "/sys/fs/cgroup/lineage";
static char self[4096];

static void count(enum kind k)
{
	__atomic_fetch_add(&counts[k], 1, __ATOMIC_RELAXED);
}

/* fork() whose child never returns: it runs @fn(@arg) and exits. */
static pid_t spawn(void (*fn)(long), long arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
}

static void sleeper(long ms)
{
	sleep_ms(ms);
}

static void *exec_from_thread(void *arg)
{
	char *argv[] = { self, "--exit", NULL };

	(void)arg;
	execv(self, argv);
	_exit(1);
}

/* A process with two children whose second thread execs. */
static void exec_thread_once(long unused)
{
	pthread_t t;

	(void)unused;
	spawn(sleeper, 50);
	spawn(sleeper, 50);
	if (pthread_create(&t, NULL, exec_from_thread, NULL))
		_exit(1);
	pthread_join(t, NULL);
}

static void clone_parent_once(long unused)
{
	pid_t pid;

	(void)unused;
	pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid == 0) {
		sleep_ms(20);
		_exit(0);
	}
}

static void vfork_once(long unused)
{
	char *argv[] = { self, "--exit", NULL };

	(void)unused;
	if (vfork() == 0) {
		execv(self, argv);
		_exit(1);
	}
	reap_all();
}

static void grandparent(long n)
{
	long i;

	for (i = 0; i < n; i++)
		spawn(sleeper, 10000);
	sleep_ms(10000);
}

/* A pid namespace's init with children and grandchildren, then it dies. */
static void pidns_once(long unused)
{
	pid_t init;

	(void)unused;
	if (unshare(CLONE_NEWPID))
		die("unshare(CLONE_NEWPID): %s", strerror(errno));
	init = fork();
	if (init == 0) {
		spawn(grandparent, 3);
		spawn(grandparent, 3);
		sleep_ms(30);
		_exit(0);	/* zap_pid_ns_processes() kills the rest */
	}
	reap_all();
}

/* Grandchildren orphaned under a subreaper, which reaps them. */
static void subreaper_once(long unused)
{
	(void)unused;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		die("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	if (fork() == 0) {
		spawn(sleeper, 30);
		spawn(sleeper, 30);
		_exit(0);
	}
	reap_all();
}

static void setsid_once(long unused)
{
	(void)unused;
	if (fork() == 0) {
		setsid();
		spawn(sleeper, 200);
		_exit(0);
	}
	reap_all();
}

/* Four middles with three children each; the middles exit together. */
static void middle_exit_once(long unused)
{
	int go[2], i;
	char c;

	(void)unused;
	if (pipe(go))
		die("pipe: %s", strerror(errno));
	for (i = 0; i < 4; i++) {
		if (fork() == 0) {
			close(go[1]);
			spawn(sleeper, 100);
			spawn(sleeper, 100);
			spawn(sleeper, 100);
			if (read(go[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
	}
	close(go[0]);
	sleep_ms(20);
	close(go[1]);	/* every middle's read returns at once */
	reap_all();
}

/* Touch memory until killed. */
static void hog(long mb)
{
	write_file("/proc/self/oom_score_adj", "500");
	grow_for_ever(mb);
}

/* One hog per CPU, each sized to fill the guest alone: OOMs on every CPU. */
static void oom_global_once(long cpus)
{
	long mb = proc_field("/proc/meminfo", "MemTotal") >> 10, i;

	for (i = 0; i < cpus; i++)
		spawn(hog, mb);
	reap_all();
}

/* Hogs in a memory cgroup of MEMCG_MAX_MB: constrained OOMs. */
static void oom_memcg_once(long unused)
{
	char procs[512];
	int i;

	(void)unused;
	snprintf(procs, sizeof(procs), "%s/memcg/cgroup.procs", cgroup);
	for (i = 0; i < MEMCG_HOGS; i++) {
		if (fork() == 0) {
			write_file(procs, "%d", getpid());
			hog(MEMCG_MAX_MB * 2);
		}
	}
	reap_all();
}

/* Cycle the three knobs: 3 rules x 3 scores x 2 windows. */
static void policy_switch_once(long step)
{
	write_file("/proc/sys/vm/oom_kill_lca", "%ld", step % 3);
	write_file("/proc/sys/vm/oom_kill_lca_score", "%ld", step / 3 % 3);
	write_file("/proc/sys/vm/oom_kill_lca_window_ms", "%d", step / 9 % 2 ? 1000 : 30000);
	sleep_ms(250);
}

static void (*const event[NKINDS])(long) = {
	exec_thread_once, clone_parent_once, vfork_once, pidns_once, subreaper_once,
	setsid_once, middle_exit_once, oom_global_once, oom_memcg_once, policy_switch_once,
};

/*
 * One kind of event until @deadline: each in a new child (so the child's
 * one-shot state, a pid namespace or a subreaper, is fresh), counted when
 * the child exits 0 (a round of hogs also when the OOM killer took it).
 */
static void attacker(enum kind k, int64_t deadline, long cpus)
{
	long step = 0;
	int status;
	pid_t pid;

	write_file("/proc/self/oom_score_adj", "0");
	while (now_ns() < deadline) {
		pid = spawn(event[k], k == KIND_OOM_GLOBAL ? cpus : step);
		step++;
		if (pid < 0 || waitpid(pid, &status, 0) < 0) {
			sleep_ms(10);
			continue;
		}
		/* a round of hogs ends in kills, the parent's too under LCA */
		if ((WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
		    ((k == KIND_OOM_GLOBAL || k == KIND_OOM_MEMCG) && WIFSIGNALED(status)))
			count(k);
		reap_all();
	}
	_exit(0);
}

static void make_cgroups(void)
{
	char path[512];

	write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir(cgroup, 0755);
	write_file(strcat(strcpy(path, cgroup), "/cgroup.subtree_control"), "+memory");
	mkdir(strcat(strcpy(path, cgroup), "/main"), 0755);
	mkdir(strcat(strcpy(path, cgroup), "/memcg"), 0755);
	write_file(strcat(strcpy(path, cgroup), "/memcg/memory.max"), "%dM", MEMCG_MAX_MB);
	/* without swap the file is absent: nothing to turn off */
	if (access(strcat(strcpy(path, cgroup), "/memcg/memory.swap.max"), F_OK) == 0)
		write_file(path, "0");
}

/* Kill what is left in @sub and wait until it is empty; 0 when it is. */
static int empty_cgroup(const char *sub)
{
	char path[512], *events;
	int i, populated = 1;

	snprintf(path, sizeof(path), "%s/%s/cgroup.kill", cgroup, sub);
	write_file(path, "1");
	snprintf(path, sizeof(path), "%s/%s/cgroup.events", cgroup, sub);
	for (i = 0; i < 600 && populated; i++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		events = read_file(path, 4096);
		populated = !strstr(events, "populated 0");
		free(events);
		if (populated)
			sleep_ms(100);
	}
	return populated;
}

static void count_decision(const struct kmsg_record *rec, void *decisions)
{
	if (strstr(rec->text, "oom_lca: victim="))
		(*(long *)decisions)++;
}

/* The kernel log since boot: LCA decisions, and records lost to the ring. */
static void scan_kmsg(long *decisions, long *lost)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		die("cannot open /dev/kmsg: %s", strerror(errno));
	*decisions = 0;
	*lost = kmsg_drain(fd, count_decision, decisions);
	close(fd);
}

static long memcg_oom_kills(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/memcg/memory.events", cgroup);
	return proc_field(path, "oom_kill");
}

static void report(double seconds, long cpus, long oom_kills)
{
	long decisions, lost;
	int k;

	scan_kmsg(&decisions, &lost);
	printf("{\"type\":\"lineage\",\"seconds\":%.1f,\"cpus\":%ld,\"counts\":{", seconds, cpus);
	for (k = 0; k < NKINDS; k++)
		printf("\"%s\":%ld,", kind_name[k], counts[k]);
	printf("\"restarts\":%ld},\"oom_kills\":%ld,\"memcg_oom_kills\":%ld,"
	       "\"lca_decisions\":%ld,\"kmsg_lost\":%ld}\n",
	       counts[NKINDS], oom_kills, memcg_oom_kills(), decisions, lost);
}

int main(int argc, char **argv)
{
	pid_t attackers[NKINDS], pid;
	int64_t t0, deadline;
	long seconds = 60, cpus = sysconf(_SC_NPROCESSORS_ONLN), oom0;
	int opt, k, status, lca = access("/proc/sys/vm/oom_kill_lca", F_OK) == 0;
	char procs[512];

	require_lab_guest("lineage");
	/* what exec_thread and vfork exec */
	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return 0;
	while ((opt = getopt(argc, argv, "t:c:")) != -1) {
		if (opt == 't' && (seconds = strtol(optarg, NULL, 10)) > 0)
			continue;
		if (opt == 'c' && strlen(optarg) < sizeof(cgroup) - 32) {
			strcpy(cgroup, optarg);
			continue;
		}
		fprintf(stderr, "usage: lineage [-t SECONDS] [-c CGROUP]\n");
		return 2;
	}
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		die("cannot read /proc/self/exe: %s", strerror(errno));
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	make_cgroups();
	/* never a victim, never an LCA root; the orphans come here to be reaped */
	write_file("/proc/self/oom_score_adj", "-1000");
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	snprintf(procs, sizeof(procs), "%s/main/cgroup.procs", cgroup);
	oom0 = proc_field("/proc/vmstat", "oom_kill");
	t0 = now_ns();
	deadline = t0 + seconds * 1000000000LL;
	/* an attacker: its pid, NOT_STARTED, KILLED (start it again) or DONE */
	for (k = 0; k < NKINDS; k++)
		attackers[k] = k == KIND_POLICY_SWITCH && !lca ? DONE : NOT_STARTED;
	while (now_ns() < deadline) {
		for (k = 0; k < NKINDS; k++) {
			if (attackers[k] > 0 || attackers[k] == DONE)
				continue;
			pid = fork();
			if (pid == 0) {
				write_file(procs, "%d", getpid());
				attacker(k, deadline, cpus);
			}
			if (pid > 0 && attackers[k] == KILLED)
				count(NKINDS);
			if (pid > 0)
				attackers[k] = pid;
		}
		pid = waitpid(-1, &status, WNOHANG);
		for (k = 0; pid > 0 && k < NKINDS; k++)
			if (attackers[k] == pid)
				attackers[k] = WIFEXITED(status) ? DONE : KILLED;
		if (pid <= 0)
			sleep_ms(20);
	}
	if (empty_cgroup("main") || empty_cgroup("memcg"))
		die("what the stress started did not end in 60 s");
	report((now_ns() - t0) / 1e9, cpus, proc_field("/proc/vmstat", "oom_kill") - oom0);
	return 0;
}
