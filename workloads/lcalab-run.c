// SPDX-License-Identifier: GPL-2.0
/*
 * lcalab-run: the guest-side run driver. Sets up a small "desktop", starts
 * one workload in it, watches at 10 Hz and prints what happened as JSON
 * lines on stdout (the results channel): the settings, the timeline, and
 * one result record, last.
 *
 *   lcalab-run [options] PROGRAM [-- ARGS...]
 *     -t SECONDS   deadline of the workload phase (required: the cell's)
 *     -q SECONDS   the workload is gone once its cgroup stayed empty this long
 *                  (required: the cell's)
 *     -T N         kernel.threads-max to set (0: keep the kernel's) [0]
 *     -n N         RLIMIT_NPROC of the workload's user (0: unlimited) [0]
 *     -s KEY=VALUE a sysctl to set before the desktop starts (repeatable;
 *                  one that this kernel lacks is an error)
 *     -m MB        memory the "browser" probe holds (required: the desktop's)
 *     -D SHAPE     the desktop's process tree: flat or article [flat]
 *     -H HOOK      a defence hook (workloads/README.md, Defences): run as
 *                  "HOOK apply [PARAM]" once the desktop is up, before the
 *                  workload starts, and "HOOK evidence [PARAM]" at the end,
 *                  which prints the defence's evidence as one JSON object
 *     -P PARAM     the hook's parameter
 *     -u UID       the unprivileged user [1000]
 *     -g CGROUP    the lab's cgroup, where it makes desktop/ and workload/
 *                  [/sys/fs/cgroup/lcalab]; in a systemd guest, one under
 *                  the user's manager (user@1000.service/app.slice/...)
 *     -U KEY=N     end the run once KEY reached N (KEY: oom_kills, lca_decisions,
 *                  lca_killed): a test of the mechanism, which then needs no
 *                  deadline's worth of bomb; the record is inconclusive about
 *                  survival
 *
 * PROGRAM is the workload's path in the guest; the driver knows no list of
 * workloads or defences (lab/run resolves them from the registries).
 *
 * The process trees it builds (the driver stands for the system's init and
 * is protected; everything else has oom_score_adj 0). -D flat:
 *
 *   lcalab-run (-1000)
 *   +- probe daemon                     a system daemon (klogd)
 *   +- login shell (UID, cgroup lcalab/desktop)
 *      +- probe session, probe editor,  the desktop: the session, an editor
 *      |  probe browser (-m MB)         with unsaved work, a big resident app
 *      +- terminal shell
 *         +- WORKLOAD (cgroup lcalab/workload)
 *
 * -D article, the 2005 patch notes' desktop (the login shell becomes the
 * session manager, which parents the apps and the terminal emulator):
 *
 *   lcalab-run (-1000)
 *   +- probe daemon
 *   +- probe session                    the session manager
 *      +- probe editor, probe browser
 *      +- probe emulator                the terminal emulator
 *         +- terminal shell
 *            +- WORKLOAD
 *
 * The workload's cgroup has only the pids controller (no limit): it counts
 * the workload's tasks exactly and cgroup.kill ends what is left.
 *
 * The driver survives the bomb: oom_score_adj -1000, mlockall(), all its
 * memory allocated before the workload starts, and no fork() once it has
 * started: the sampling loop only reads files it opened beforehand. It
 * samples under SCHED_FIFO (everything it started runs SCHED_OTHER), so
 * the bomb cannot delay its ticks; ~0.1% of a CPU at 10 Hz.
 *
 * Times are seconds from the workload's start. A sample is stamped once
 * its state is read (a thrashing guest can hold a read for seconds; the
 * result says how late the samples came). OOM kills, LCA decisions and a
 * probe's kill take the kernel log's own timestamps, from the mark the
 * driver logs as the workload starts (result "event_clock": "kernel").
 */
#include "lcalab.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LAB		"/lab"
#define RUNDIR		"/run/lcalab"
#define CGROOT		"/sys/fs/cgroup"
#define SAMPLE_NS	100000000	/* 10 Hz */
#define CG_MAX		200		/* the longest -g */
#define CG_PATH		(CG_MAX + 64)	/* a file in it */
#define MAX_EVENTS	4096
#define MAX_KILL_TIMES	64
/* Written to the kernel log when the workload starts: events are timed from it. */
#define KMSG_MARK	"lcalab-run: the workload starts"
#define MAX_SPLATS	32
/* the version of analysis/channel.schema.json these lines follow (settings.schema) */
#define CHANNEL_SCHEMA	1
#define MAX_SYSCTLS	16
#define EVIDENCE_MAX	4096
#define HOOK_TIMEOUT_S	30

enum { P_DAEMON, P_SESSION, P_EDITOR, P_BROWSER, P_EMULATOR, P_TERMINAL, NPROBES };
static const char *const probe_names[NPROBES] = {
	"daemon", "session", "editor", "browser", "emulator", "terminal"
};

struct probe {
	bool present;		/* the emulator is only in the article shape */
	int fd;			/* heartbeat file; -1 for the terminal */
	int pidfd;
	pid_t pid, ppid;	/* ppid: its parent once the desktop was up */
	bool alive;
	double died_at;		/* the first sample that found it gone */
	double killed_at;	/* the kernel's Killed process line naming it, or -1 */
	struct probe_beat beat;
};

struct sample {
	float t;
	int tasks, running, workload;	/* running: runnable tasks, the sampler too */
	long memavail_kb, swapfree_kb, oom_kill;
	int lca, probes_alive;
};

struct event {		/* an oom_lca: decision */
	float t;
	int victim, prev, lca, anchor;
	unsigned int killed;
};

struct run {
	const char *program, *hook, *hook_param;
	char **args;
	char *sysctls[MAX_SYSCTLS];
	int nsysctls;
	int deadline, quiet, threads_max, nproc, browser_mb;
	uid_t uid;
	bool article;		/* -D article */
	const char *until;	/* -U KEY=N, or NULL */
	enum { UNTIL_OOM_KILLS, UNTIL_LCA_DECISIONS, UNTIL_LCA_KILLED } until_key;
	long until_n;

	int fd_loadavg, fd_meminfo, fd_vmstat, fd_cgpids, fd_cgevents, fd_kmsg;
	struct probe probes[NPROBES];
	pid_t workload_pid;
	int workload_pidfd;
	bool workload_root_alive;

	int64_t t0;
	struct sample *samples;
	int nsamples, max_samples;
	struct event *events;
	int nevents;
	struct {
		const char *kind;
		char *line;
	} splats[MAX_SPLATS];
	int nsplats;
	long kills_lines, kmsg_lost, oom_kill0;
	long reaped, unreapable;	/* the oom_reaper's lines */
	int64_t kmsg_t0_us;	/* the kernel's time of KMSG_MARK, -1 until read */
	float kill_times[MAX_KILL_TIMES];	/* of the first Killed process lines */
	double late_max;	/* the sampler's lateness: the most, in s, */
	int late_1s;		/* and the samples more than 1 s late */
	unsigned long lca_killed;

	bool gone, stopped;
	double t_gone, t_end;
	int64_t end_ns;		/* heartbeat gaps are measured up to here */
	int peak_tasks, peak_workload, leftover;
	long workload_status;	/* -1: not known (still running, or terminal gone) */
	long min_memavail, min_swapfree;
	char evidence[EVIDENCE_MAX];	/* the hook's JSON object, or "" */
};

static double since(const struct run *r)
{
	return (now_ns() - r->t0) / 1e9;
}

static int open_ro(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	return fd;
}

/* Read a whole small file at offset 0 into buf (NUL-terminated). */
static ssize_t read_fd(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Read a whole small file into buf; false when it cannot be read. */
static bool read_path(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read_fd(fd, buf, size);
	close(fd);
	return n > 0;
}

static long read_long(const char *path)
{
	char buf[64];

	return read_path(path, buf, sizeof(buf)) ? strtol(buf, NULL, 10) : -1;
}

/* The value after "key" in a "key value" file such as meminfo or vmstat. */
static long field(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *p = buf;

	while ((p = strstr(p, key))) {
		if ((p == buf || p[-1] == '\n') && (p[len] == ' ' || p[len] == ':'))
			return strtol(p + len + 1 + strspn(p + len + 1, " :"), NULL, 10);
		p += len;
	}
	return -1;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_str_or_null(const char *s)
{
	if (s)
		json_str(s);
	else
		printf("null");
}

static pid_t spawn(void (*child)(struct run *, const char *), struct run *r, const char *arg)
{
	pid_t pid = fork_or_die();

	if (pid == 0) {
		write_file("/proc/self/oom_score_adj", "0");
		child(r, arg);
		_exit(127);
	}
	return pid;
}

static void become_user(struct run *r)
{
	struct rlimit nproc = { RLIM_INFINITY, RLIM_INFINITY };

	if (r->nproc > 0)
		nproc.rlim_cur = nproc.rlim_max = r->nproc;
	if (setrlimit(RLIMIT_NPROC, &nproc) || setgroups(0, NULL) ||
	    setgid(r->uid) || setuid(r->uid))
		die("cannot become uid %d: %s", r->uid, strerror(errno));
}

static void run_daemon(struct run *r, const char *unused)
{
	(void)r;
	(void)unused;
	execl(LAB "/bin/probe", "probe", RUNDIR, "daemon", (char *)NULL);
}

/* The lab's cgroup (-g). */
static const char *cg = CGROOT "/lcalab";

/* @leaf in the lab's cgroup, written into @buf (CG_PATH bytes). */
static const char *cg_file(char *buf, const char *leaf)
{
	snprintf(buf, CG_PATH, "%s%s", cg, leaf);
	return buf;
}

/*
 * The login shell: builds the desktop (-D) around the terminal shell, which
 * waits for the go file, moves a child into the workload cgroup, execs the
 * workload there, writes its exit status (128 + signal when killed) and
 * stays, as a terminal does, so its death is evidence.
 */
static void run_login(struct run *r, const char *cmd)
{
	char pid[32], path[CG_PATH];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(cg_file(path, "/desktop/cgroup.procs"), "%s", pid);
	become_user(r);
	execl("/bin/bash", "bash", "-c", cmd, (char *)NULL);
}

/* Quote @s for the shell: 'it'\''s'. */
static void shell_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

#define TERMINAL_SH	RUNDIR "/terminal.sh"

/* The terminal shell's script: "bash TERMINAL_SH PROGRAM ARGS...". */
static void write_terminal_script(void)
{
	write_file(TERMINAL_SH, "echo $$ >" RUNDIR "/terminal.pid\n"
		   "until [ -e " RUNDIR "/go ]; do sleep 0.05; done\n"
		   "(echo $BASHPID >%s/workload/cgroup.procs &&\n"
		   " echo $BASHPID >" RUNDIR "/workload.pid && exec \"$@\")\n"
		   "echo $? >" RUNDIR "/workload.status\n"
		   "exec sleep infinity\n", cg);
}

/*
 * The login shell's command: the desktop of -D around "bash TERMINAL_SH
 * PROGRAM ARGS". In the article shape, the session manager and the terminal
 * emulator start their children and then become their probes (exec), so
 * each is the parent of what it started.
 */
static char *login_script(struct run *r)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int i;

	fprintf(f, "export PATH=" LAB "/bin:/usr/bin:/bin\ncd /tmp\nset -- ");
	shell_quote(f, r->program);
	for (i = 0; r->args[i]; i++) {
		fputc(' ', f);
		shell_quote(f, r->args[i]);
	}
	if (r->article)
		fprintf(f, "\nprobe " RUNDIR " editor & probe " RUNDIR " browser -m %d &\n"
			"bash -c 'bash " TERMINAL_SH " \"$@\" & exec probe " RUNDIR " emulator' emulator \"$@\" &\n"
			"exec probe " RUNDIR " session\n", r->browser_mb);
	else
		fprintf(f, "\nprobe " RUNDIR " session & probe " RUNDIR " editor &\n"
			"probe " RUNDIR " browser -m %d &\n"
			"bash " TERMINAL_SH " \"$@\" &\nwait\n", r->browser_mb);
	if (fclose(f))
		die("out of memory");
	return s;
}

static int pidfd_of(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		die("pidfd_open(%d): %s", pid, strerror(errno));
	return fd;
}

static bool exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* fork(), retried for a while: after a bomb the guest may be short of tasks or memory. */
static pid_t fork_retrying(void)
{
	pid_t pid;
	int tries;

	for (tries = 0; (pid = fork()) < 0 && (errno == EAGAIN || errno == ENOMEM) && tries < 100; tries++)
		usleep(100000);
	return pid;
}

/*
 * Run the defence hook: "HOOK STEP [PARAM]", as root, outside the
 * driver's OOM protection, with the places it acts on in its environment;
 * SIGALRM ends it after HOOK_TIMEOUT_S. Its stdout goes to @out
 * (NUL-terminated) when @out is given. Returns its exit status, or -1
 * when it could not run.
 */
static int run_hook(const struct run *r, const char *step, char *out, size_t size)
{
	char terminal[32], uid[32], path[CG_PATH];
	int pipefd[2] = { -1, -1 }, status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	snprintf(terminal, sizeof(terminal), "%d", r->probes[P_TERMINAL].pid);
	snprintf(uid, sizeof(uid), "%d", r->uid);
	if (out && pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork_retrying();
	if (pid < 0) {
		if (out) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (pid == 0) {
		alarm(HOOK_TIMEOUT_S);
		write_file("/proc/self/oom_score_adj", "0");
		sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){ 0 });
		if (out && dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(127);
		setenv("LCALAB_CGROUP", cg_file(path, "/workload"), 1);
		setenv("LCALAB_CGROUP_PARENT", cg, 1);
		setenv("LCALAB_RUNDIR", RUNDIR, 1);
		setenv("LCALAB_TERMINAL_PID", terminal, 1);
		setenv("LCALAB_UID", uid, 1);
		execl("/bin/bash", "bash", r->hook, step, r->hook_param, (char *)NULL);
		_exit(127);
	}
	if (out) {
		close(pipefd[1]);
		while (len < size - 1 && (n = read(pipefd[0], out + len, size - 1 - len)) > 0)
			len += n;
		out[len] = '\0';
		close(pipefd[0]);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The hook's evidence: one JSON object on its stdout, or none (null). */
static void collect_evidence(struct run *r)
{
	int status = run_hook(r, "evidence", r->evidence, sizeof(r->evidence));
	size_t len = strcspn(r->evidence, "\n");

	r->evidence[len] = '\0';
	if (status == 0 && len > 1 && r->evidence[0] == '{' && r->evidence[len - 1] == '}')
		return;
	fprintf(stderr, "lcalab-run: the defence hook '%s evidence' failed (status %d, output '%.80s')\n",
		r->hook, status, r->evidence);
	r->evidence[0] = '\0';
}

/* Set each -s KEY=VALUE: vm.oom_kill_lca=1 is /proc/sys/vm/oom_kill_lca. */
static void set_sysctls(const struct run *r)
{
	char path[256], key[128];
	const char *eq;
	size_t i;
	int k;

	for (k = 0; k < r->nsysctls; k++) {
		eq = strchr(r->sysctls[k], '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - r->sysctls[k]), r->sysctls[k]);
		for (i = 0; key[i]; i++)
			key[i] = key[i] == '.' ? '/' : key[i];
		snprintf(path, sizeof(path), "/proc/sys/%s", key);
		if (access(path, W_OK))
			die("sysctl %.*s does not exist on this kernel", (int)(eq - r->sysctls[k]),
			    r->sysctls[k]);
		write_file(path, "%s", eq + 1);
	}
}

/* The pids controller in each cgroup from the root down to the lab's. */
static void enable_pids(void)
{
	char path[CG_PATH];
	const char *slash = cg + strlen(CGROOT);
	int len;

	do {
		slash = strchr(slash + 1, '/');
		len = slash ? (int)(slash - cg) : (int)strlen(cg);
		snprintf(path, sizeof(path), "%.*s", len, cg);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%.*s/cgroup.subtree_control", len, cg);
		write_file(path, "+pids");
	} while (slash);
}

static void setup_cgroups(struct run *r)
{
	char path[CG_PATH];

	write_file(CGROOT "/cgroup.subtree_control", "+pids");
	enable_pids();
	mkdir(cg_file(path, "/desktop"), 0755);
	mkdir(cg_file(path, "/workload"), 0755);
	/* the user moves its own child from desktop to workload */
	if (chown(cg_file(path, "/cgroup.procs"), r->uid, r->uid) ||
	    chown(cg_file(path, "/desktop/cgroup.procs"), r->uid, r->uid) ||
	    chown(cg_file(path, "/workload/cgroup.procs"), r->uid, r->uid))
		die("cannot delegate the cgroups: %s", strerror(errno));
	r->fd_cgpids = open_ro(cg_file(path, "/workload/pids.current"));
	r->fd_cgevents = open_ro(cg_file(path, "/workload/pids.events"));
}

/* The parent of @pid (field 4 of /proc/PID/stat), or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!read_path(path, buf, sizeof(buf)) || !(p = strrchr(buf, ')')))
		return -1;
	return strtol(p + 4, NULL, 10);
}

/* Wait until every probe beats and the terminal waits for go. */
static void await_desktop(struct run *r)
{
	char path[256];
	int i, tries;

	for (tries = 0; tries < 600; tries++) {
		bool ready = true;

		for (i = 0; i < P_TERMINAL; i++) {
			if (!r->probes[i].present)
				continue;
			if (r->probes[i].fd < 0) {
				snprintf(path, sizeof(path), RUNDIR "/%s", probe_names[i]);
				r->probes[i].fd = open(path, O_RDONLY | O_CLOEXEC);
			}
			if (r->probes[i].fd < 0 ||
			    pread(r->probes[i].fd, &r->probes[i].beat, sizeof(struct probe_beat), 0) !=
			    sizeof(struct probe_beat) || r->probes[i].beat.beats < 2)
				ready = false;
		}
		if (ready && read_long(RUNDIR "/terminal.pid") > 0)
			break;
		usleep(100000);
	}
	if (tries == 600)
		die("the desktop did not come up in 60 s");
	for (i = 0; i < NPROBES; i++) {
		struct probe *p = &r->probes[i];

		if (!p->present)
			continue;
		p->pid = i == P_TERMINAL ? read_long(RUNDIR "/terminal.pid") : p->beat.pid;
		p->ppid = parent_of(p->pid);
		p->pidfd = pidfd_of(p->pid);
		p->alive = true;
		p->died_at = -1;
		p->killed_at = -1;
	}
}

static void start_workload(struct run *r)
{
	int tries;

	r->t0 = now_ns();
	write_file("/dev/kmsg", "%s\n", KMSG_MARK);
	write_file(RUNDIR "/go", "go\n");
	for (tries = 0; tries < 300 && read_long(RUNDIR "/workload.pid") <= 0; tries++)
		usleep(10000);
	r->workload_pid = read_long(RUNDIR "/workload.pid");
	if (r->workload_pid <= 0)
		die("the workload did not start in 3 s");
	r->workload_pidfd = pidfd_of(r->workload_pid);
}

/* The kinds of kernel splat and their patterns (workloads/splats.tab). */
#define SPLATS_TAB	"/lab/workloads/splats.tab"
#define MAX_SPLAT_KINDS	32

static struct splat_kind {
	char name[32];
	regex_t re;
} splat_kinds[MAX_SPLAT_KINDS];
static int nsplat_kinds;

static void load_splat_kinds(void)
{
	FILE *f = fopen(SPLATS_TAB, "r");
	char line[512], *pat;
	struct splat_kind *k;

	if (!f)
		die("cannot read %s: %s", SPLATS_TAB, strerror(errno));
	while (fgets(line, sizeof(line), f) && nsplat_kinds < MAX_SPLAT_KINDS) {
		k = &splat_kinds[nsplat_kinds];
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%31s", k->name) != 1 || k->name[0] == '#')
			continue;
		pat = strstr(line, k->name) + strlen(k->name);
		pat += strspn(pat, " \t");
		if (regcomp(&k->re, pat, REG_EXTENDED | REG_NOSUB))
			die("%s: the pattern of %s is not an extended regular expression", SPLATS_TAB, k->name);
		nsplat_kinds++;
	}
	fclose(f);
}

/*
 * When the kernel logged a record, in seconds from the workload's start:
 * the kernel's own clock from its KMSG_MARK on, so an event's time does
 * not depend on when the sampler got to read it.
 */
static double kernel_time(const struct run *r, int64_t usec)
{
	return r->kmsg_t0_us < 0 ? since(r) : (usec - r->kmsg_t0_us) / 1e6;
}

/* A Killed process line, of @pid: its time, and a desktop probe's death. */
static void note_kill(struct run *r, int pid, double t)
{
	int i;

	if (r->kills_lines < MAX_KILL_TIMES)
		r->kill_times[r->kills_lines] = t;
	r->kills_lines++;
	for (i = 0; i < NPROBES; i++)
		if (r->probes[i].present && r->probes[i].pid == pid && r->probes[i].killed_at < 0)
			r->probes[i].killed_at = t;
}

static void note_kmsg(const struct kmsg_record *rec, void *arg)
{
	struct run *r = arg;
	struct oom_lca_line d;
	double t;
	int i, pid;

	if (strcmp(rec->text, KMSG_MARK) == 0) {
		r->kmsg_t0_us = rec->usec;
		return;
	}
	t = kernel_time(r, rec->usec);
	if (parse_oom_lca(rec->text, &d)) {
		if (r->nevents < MAX_EVENTS)
			r->events[r->nevents++] = (struct event){ t, d.victim, d.prev, d.lca,
								   d.anchor, d.killed };
		r->lca_killed += d.killed;
		return;
	}
	if (parse_killed_process(rec->text, &pid, NULL))
		note_kill(r, pid, t);
	if (strstr(rec->text, "oom_reaper: reaped process"))
		r->reaped++;
	if (strstr(rec->text, "oom_reaper: unable to reap"))
		r->unreapable++;
	for (i = 0; i < nsplat_kinds; i++) {
		if (regexec(&splat_kinds[i].re, rec->text, 0, NULL, 0) == 0) {
			if (r->nsplats < MAX_SPLATS) {
				r->splats[r->nsplats].kind = splat_kinds[i].name;
				r->splats[r->nsplats++].line = strndup(rec->text, 200);
			}
			return;
		}
	}
}

/* Drain /dev/kmsg: one record per read, "pri,seq,usec,flags;text\n". */
static void read_kmsg(struct run *r)
{
	r->kmsg_lost += kmsg_drain(r->fd_kmsg, note_kmsg, r);
}

/*
 * One sample, due @due s after the workload's start. Stamped once its state
 * is read, so a sample that waited on a thrashing guest is late rather
 * than early; how late is kept.
 */
static void sample(struct run *r, double due)
{
	struct sample s = { 0 };
	char buf[16384];
	bool gone[NPROBES] = { false };
	int i;

	read_kmsg(r);
	read_fd(r->fd_loadavg, buf, sizeof(buf));
	sscanf(buf, "%*s %*s %*s %d/%d", &s.running, &s.tasks);
	read_fd(r->fd_meminfo, buf, sizeof(buf));
	s.memavail_kb = field(buf, "MemAvailable");
	s.swapfree_kb = field(buf, "SwapFree");
	read_fd(r->fd_vmstat, buf, sizeof(buf));
	s.oom_kill = field(buf, "oom_kill") - r->oom_kill0;
	read_fd(r->fd_cgpids, buf, sizeof(buf));
	s.workload = atoi(buf);
	s.lca = r->nevents;
	for (i = 0; i < NPROBES; i++) {
		struct probe *p = &r->probes[i];

		if (!p->present)
			continue;
		if (p->fd >= 0)
			pread(p->fd, &p->beat, sizeof(p->beat), 0);
		gone[i] = p->alive && exited(p->pidfd);
	}
	s.t = since(r);
	if (s.t - due > r->late_max)
		r->late_max = s.t - due;
	r->late_1s += s.t - due > 1;

	for (i = 0; i < NPROBES; i++) {
		struct probe *p = &r->probes[i];

		if (gone[i]) {
			p->alive = false;
			p->died_at = s.t;
		}
		s.probes_alive += p->present && p->alive;
	}
	if (r->workload_root_alive && exited(r->workload_pidfd))
		r->workload_root_alive = false;

	if (s.tasks > r->peak_tasks)
		r->peak_tasks = s.tasks;
	if (s.workload > r->peak_workload)
		r->peak_workload = s.workload;
	if (r->min_memavail < 0 || s.memavail_kb < r->min_memavail)
		r->min_memavail = s.memavail_kb;
	if (r->min_swapfree < 0 || s.swapfree_kb < r->min_swapfree)
		r->min_swapfree = s.swapfree_kb;
	if (r->nsamples < r->max_samples)
		r->samples[r->nsamples++] = s;
}

/* Has the -U condition been met by sample @s? */
static bool until_met(const struct run *r, const struct sample *s)
{
	long v;

	if (!r->until)
		return false;
	switch (r->until_key) {
	case UNTIL_OOM_KILLS:
		v = s->oom_kill;
		break;
	case UNTIL_LCA_DECISIONS:
		v = s->lca;
		break;
	default:
		v = r->lca_killed;
	}
	return v >= r->until_n;
}

/*
 * Sample until the workload's cgroup stayed empty -q seconds, the -U
 * condition held, or the deadline.
 */
static void watch(struct run *r)
{
	struct timespec next;
	double empty_since = -1;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		const struct sample *s;

		next.tv_nsec += SAMPLE_NS;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		sample(r, ((int64_t)next.tv_sec * 1000000000 + next.tv_nsec - r->t0) / 1e9);
		s = &r->samples[r->nsamples - 1];
		if (s->workload > 0)
			empty_since = -1;
		else if (empty_since < 0)
			empty_since = s->t;
		if (empty_since >= 0 && s->t - empty_since >= r->quiet) {
			r->gone = true;
			r->t_gone = empty_since;
			break;
		}
		if (until_met(r, s)) {
			r->stopped = true;
			break;
		}
		if (s->t >= r->deadline)
			break;
	}
	r->end_ns = now_ns();
	r->t_end = (r->end_ns - r->t0) / 1e9;
	r->leftover = r->samples[r->nsamples - 1].workload;
	r->workload_status = read_long(RUNDIR "/workload.status");
}

/*
 * End what is left of the workload: its cgroup goes in one write. No wait
 * for it to empty: in a thrashing guest a thousand tasks took a minute to
 * exit, and the guest reboots once the driver has reported.
 */
static void kill_workload(void)
{
	char path[CG_PATH];

	write_file(cg_file(path, "/workload/cgroup.kill"), "1");
}

/* The longest heartbeat gap of a probe during the workload phase. */
static long max_gap_ms(const struct run *r, const struct probe *p)
{
	int64_t gap = p->beat.max_gap_ns;

	if (p->alive && r->end_ns - p->beat.last_ns > gap)
		gap = r->end_ns - p->beat.last_ns;
	return gap / 1000000;
}

/* A count, or null when it is not known (negative). */
static void json_count(long v)
{
	if (v < 0)
		printf("null");
	else
		printf("%ld", v);
}

static void print_settings(const struct run *r)
{
	char printk[64], meminfo[16384];
	int fd = open_ro("/proc/sys/kernel/printk");

	read_fd(fd, printk, sizeof(printk));
	close(fd);
	printk[strcspn(printk, " \t\n")] = '\0';
	read_fd(r->fd_meminfo, meminfo, sizeof(meminfo));
	printf("{\"type\":\"settings\",\"schema\":%d,\"program\":", CHANNEL_SCHEMA);
	json_str(r->program);
	printf(",\"args\":[");
	for (int i = 0; r->args[i]; i++) {
		printf(i ? "," : "");
		json_str(r->args[i]);
	}
	printf("],\"deadline_s\":%d,\"quiet_s\":%d,\"threads_max\":%ld,\"pid_max\":%ld,",
	       r->deadline, r->quiet, read_long("/proc/sys/kernel/threads-max"),
	       read_long("/proc/sys/kernel/pid_max"));
	if (r->nproc)
		printf("\"nproc\":%d,", r->nproc);
	else
		printf("\"nproc\":\"unlimited\",");
	printf("\"oom_dump_tasks\":%ld,\"console_loglevel\":%s,\"oom_kill_lca\":",
	       read_long("/proc/sys/vm/oom_dump_tasks"), printk);
	json_count(read_long("/proc/sys/vm/oom_kill_lca"));
	printf(",\"oom_kill_lca_window_ms\":");
	json_count(read_long("/proc/sys/vm/oom_kill_lca_window_ms"));
	printf(",\"sysctls\":[");
	for (int i = 0; i < r->nsysctls; i++) {
		printf(i ? "," : "");
		json_str(r->sysctls[i]);
	}
	printf("],\"swaptotal_kb\":%ld,\"browser_mb\":%d,\"desktop_shape\":\"%s\",\"uid\":%d,\"cgroup\":",
	       field(meminfo, "SwapTotal"), r->browser_mb, r->article ? "article" : "flat", r->uid);
	json_str(cg);
	printf(",\"hook\":");
	json_str_or_null(r->hook);
	printf(",\"until\":");
	json_str_or_null(r->until);
	printf("}\n");
}

static void print_timeline(const struct run *r)
{
	int i;

	for (i = 0; i < r->nsamples; i++) {
		const struct sample *s = &r->samples[i];

		printf("{\"type\":\"sample\",\"t\":%.1f,\"tasks\":%d,\"running\":%d,"
		       "\"workload_tasks\":%d,\"memavail_kb\":%ld,\"swapfree_kb\":%ld,"
		       "\"oom_kill\":%ld,\"lca_decisions\":%d,\"probes_alive\":%d}\n",
		       s->t, s->tasks, s->running, s->workload, s->memavail_kb, s->swapfree_kb,
		       s->oom_kill, s->lca, s->probes_alive);
	}
}

/*
 * The workload's forks refused at a pids limit: its cgroup's own (the pids
 * defence) or an ancestor's (a systemd session's TasksMax); the kernel
 * counts them in the forking task's cgroup.
 */
static long fork_refusals(const struct run *r)
{
	char buf[128];

	read_fd(r->fd_cgevents, buf, sizeof(buf));
	return field(buf, "max");
}

static void print_result(const struct run *r)
{
	const struct sample *last = &r->samples[r->nsamples - 1];
	int i;

	printf("{\"type\":\"result\",\"gone\":%s,\"stopped\":%s,", r->gone ? "true" : "false",
	       r->stopped ? "true" : "false");
	if (r->gone)
		printf("\"t_gone_s\":%.1f,", r->t_gone);
	else
		printf("\"t_gone_s\":null,");
	printf("\"workload_status\":");
	json_count(r->workload_status);
	printf(",\"t_end_s\":%.1f,\"leftover_tasks\":%d,\"workload_root_alive\":%s,"
	       "\"peak_tasks\":%d,\"peak_workload_tasks\":%d,\"min_memavail_kb\":%ld,"
	       "\"min_swapfree_kb\":%ld,\"oom_kills\":%ld,\"oom_kill_lines\":%ld,"
	       "\"kmsg_lost\":%ld,\"samples\":%d,\"sampler_late_max_s\":%.1f,"
	       "\"samples_late_1s\":%d,\"event_clock\":\"%s\",\"oom_kill_times_s\":[",
	       r->t_end, r->leftover, r->workload_root_alive ? "true" : "false",
	       r->peak_tasks, r->peak_workload, r->min_memavail, r->min_swapfree,
	       last->oom_kill, r->kills_lines, r->kmsg_lost, r->nsamples, r->late_max,
	       r->late_1s, r->kmsg_t0_us < 0 ? "sampler" : "kernel");
	for (i = 0; i < r->kills_lines && i < MAX_KILL_TIMES; i++)
		printf("%s%.2f", i ? "," : "", r->kill_times[i]);
	printf("],\"lca_decisions\":[");
	for (i = 0; i < r->nevents; i++) {
		const struct event *e = &r->events[i];

		printf("%s{\"t\":%.2f,\"victim\":%d,\"prev\":%d,\"lca\":%d,\"killed\":%u,\"anchor\":%d}",
		       i ? "," : "", e->t, e->victim, e->prev, e->lca, e->killed, e->anchor);
	}
	printf("],\"lca_killed\":%lu,\"fork_refusals\":%ld,\"oom_reaped\":%ld,"
	       "\"oom_unreapable\":%ld,\"probes\":[", r->lca_killed, fork_refusals(r),
	       r->reaped, r->unreapable);
	for (i = 0; i < NPROBES; i++) {
		const struct probe *p = &r->probes[i];

		if (!p->present)
			continue;
		printf("%s{\"name\":\"%s\",\"pid\":%d,\"ppid\":%d,\"alive\":%s,\"died_at_s\":", i ? "," : "",
		       probe_names[i], p->pid, p->ppid, p->alive ? "true" : "false");
		if (p->alive)
			printf("null");
		else
			printf("%.2f", p->killed_at >= 0 ? p->killed_at : p->died_at);
		if (p->fd >= 0)
			printf(",\"max_gap_ms\":%ld}", max_gap_ms(r, p));
		else
			printf(",\"max_gap_ms\":null}");
	}
	printf("]");
	printf(",\"kernel_splats\":[");
	for (i = 0; i < r->nsplats; i++) {
		printf("%s{\"kind\":", i ? "," : "");
		json_str(r->splats[i].kind);
		printf(",\"line\":");
		json_str(r->splats[i].line);
		printf("}");
	}
	printf("]}\n");
}

static int number(const char *s, char opt)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > 1000000) {
		fprintf(stderr, "lcalab-run: -%c wants a whole number, not '%s'\n", opt, s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: lcalab-run -t S -q S -m MB [-T N] [-n N] [-s KEY=VALUE]... [-u UID] "
		"[-D SHAPE] [-U KEY=N] [-H HOOK [-P PARAM]] PROGRAM [-- ARGS]\n");
	exit(2);
}

/* -U KEY=N: the key and the count, N >= 1. */
static void parse_until(struct run *r, const char *arg)
{
	static const char *const keys[] = { "oom_kills", "lca_decisions", "lca_killed" };
	const char *eq = strchr(arg, '=');
	size_t i;

	for (i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i]) == (size_t)(eq - arg) && !strncmp(arg, keys[i], eq - arg))
			break;
	}
	if (!eq || i == sizeof(keys) / sizeof(keys[0])) {
		fprintf(stderr, "lcalab-run: -U wants oom_kills=N, lca_decisions=N or lca_killed=N, not '%s'\n", arg);
		exit(2);
	}
	r->until = arg;
	r->until_key = i;
	r->until_n = number(eq + 1, 'U');
	if (r->until_n == 0) {
		fprintf(stderr, "lcalab-run: -U wants a count of at least 1, not '%s'\n", arg);
		exit(2);
	}
}

static void parse(struct run *r, int argc, char **argv)
{
	int opt;

	*r = (struct run){ .deadline = -1, .quiet = -1, .browser_mb = -1, .uid = 1000,
			   .min_memavail = -1, .min_swapfree = -1, .workload_root_alive = true,
			   .kmsg_t0_us = -1 };
	while ((opt = getopt(argc, argv, "+t:q:T:n:s:m:D:u:U:H:P:g:")) != -1) {
		switch (opt) {
		case 't':
			r->deadline = number(optarg, 't');
			break;
		case 'q':
			r->quiet = number(optarg, 'q');
			break;
		case 'T':
			r->threads_max = number(optarg, 'T');
			break;
		case 'n':
			r->nproc = number(optarg, 'n');
			break;
		case 's':
			if (r->nsysctls == MAX_SYSCTLS || !strchr(optarg, '=') || *optarg == '=' ||
			    strchr(optarg, '=') - optarg > 100) {
				fprintf(stderr, "lcalab-run: -s wants KEY=VALUE (at most %d), not '%s'\n",
					MAX_SYSCTLS, optarg);
				exit(2);
			}
			r->sysctls[r->nsysctls++] = optarg;
			break;
		case 'm':
			r->browser_mb = number(optarg, 'm');
			break;
		case 'u':
			r->uid = number(optarg, 'u');
			break;
		case 'U':
			parse_until(r, optarg);
			break;
		case 'D':
			if (strcmp(optarg, "flat") && strcmp(optarg, "article")) {
				fprintf(stderr, "lcalab-run: -D wants flat or article, not '%s'\n", optarg);
				exit(2);
			}
			r->article = !strcmp(optarg, "article");
			break;
		case 'H':
			r->hook = optarg;
			break;
		case 'P':
			r->hook_param = optarg;
			break;
		case 'g':
			if (strncmp(optarg, CGROOT "/", strlen(CGROOT) + 1) || strlen(optarg) > CG_MAX ||
			    strstr(optarg, "/.") || optarg[strlen(optarg) - 1] == '/') {
				fprintf(stderr, "lcalab-run: -g wants a cgroup under " CGROOT
					" (at most %d characters), not '%s'\n", CG_MAX, optarg);
				exit(2);
			}
			cg = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	r->program = argv[optind];
	optind++;
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	r->args = argv + optind;
	if (r->deadline == 0 || r->quiet == 0)
		usage();
	if (r->hook_param && !r->hook) {
		fprintf(stderr, "lcalab-run: -P needs a hook (-H)\n");
		exit(2);
	}
	/* the cell's own (lab/run-cell passes them): no second default here */
	if (r->deadline < 0 || r->quiet < 0 || r->browser_mb < 0) {
		fprintf(stderr, "lcalab-run: -t, -q and -m are required: the cell's deadline, quiet period and browser size\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct run r;
	char *script;
	char buf[16384];
	int i;

	parse(&r, argc, argv);
	require_lab_guest("lcalab-run");
	write_file("/proc/self/oom_score_adj", "-1000");
	write_file("/proc/sys/vm/oom_dump_tasks", "0");
	if (r.threads_max)
		write_file("/proc/sys/kernel/threads-max", "%d", r.threads_max);
	set_sysctls(&r);
	mkdir(RUNDIR, 01777);
	chmod(RUNDIR, 01777);
	load_splat_kinds();
	setup_cgroups(&r);

	r.max_samples = (r.deadline + r.quiet + 5) * 1000000000LL / SAMPLE_NS;
	r.samples = calloc(r.max_samples, sizeof(*r.samples));
	r.events = calloc(MAX_EVENTS, sizeof(*r.events));
	if (!r.samples || !r.events)
		die("out of memory");
	r.fd_loadavg = open_ro("/proc/loadavg");
	r.fd_meminfo = open_ro("/proc/meminfo");
	r.fd_vmstat = open_ro("/proc/vmstat");
	r.fd_kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r.fd_kmsg < 0)
		die("cannot open /dev/kmsg: %s", strerror(errno));
	lseek(r.fd_kmsg, 0, SEEK_END);
	read_fd(r.fd_vmstat, buf, sizeof(buf));
	r.oom_kill0 = field(buf, "oom_kill");
	for (i = 0; i < NPROBES; i++) {
		r.probes[i].fd = -1;
		r.probes[i].present = i != P_EMULATOR || r.article;
	}
	write_terminal_script();

	spawn(run_daemon, &r, NULL);
	script = login_script(&r);
	spawn(run_login, &r, script);
	await_desktop(&r);
	if (r.hook && (i = run_hook(&r, "apply", NULL, 0)) != 0)
		die("the defence hook '%s apply' failed (status %d)", r.hook, i);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall: %s", strerror(errno));
	/* the sampler must tick on time however many tasks compete */
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 50 }))
		die("sched_setscheduler: %s", strerror(errno));
	memset(r.samples, 0, r.max_samples * sizeof(*r.samples));

	print_settings(&r);
	fflush(stdout);
	start_workload(&r);
	watch(&r);
	kill_workload();
	print_timeline(&r);
	print_result(&r);
	/* the evidence last, on its own line: a hook that fails costs only it */
	if (r.hook) {
		fflush(stdout);
		collect_evidence(&r);
		if (*r.evidence)
			printf("{\"type\":\"evidence\",\"evidence\":%s}\n", r.evidence);
	}
	return 0;
}
