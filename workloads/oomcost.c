// SPDX-License-Identifier: GPL-2.0
/*
 * oomcost: what one OOM-killer decision costs, from the function graph
 * tracer (a stock-trace or lca-trace kernel).
 *
 *   oomcost [-r REPS] tree N | chain D
 *     tree N   a bomb-like tree of N processes: a root, about sqrt(N)
 *              middles, each with its share of sleeping leaves
 *     chain D  a root with a biological chain of D processes below it
 *     -r       repetitions, each with a freshly built population [1]
 *
 * Both shapes have two "fat" processes that the OOM killer picks first:
 * fat1 (FAT1_MB) a child of the root, fat2 (FAT2_MB) a child of the root
 * (tree) or of the chain's last link (chain). Each repetition triggers
 * the OOM killer twice with SysRq-f, the same out_of_memory() an
 * allocation failure runs: the first kills fat1 and, with the LCA policy,
 * anchors at the root; the second kills fat2 and, with the LCA policy,
 * the root's whole biological subtree, after a walk from fat2 up to the
 * root (D links for a chain).
 *
 * A warm-up repetition with a small population comes first, unprinted.
 * Console output is off (printk level 1) and vm.oom_dump_tasks is 0, so
 * the timings are the decision and the kill, not a serial port; pid_max
 * and threads-max are raised to fit the population.
 *
 * Output, one JSON line each: "oom" per OOM invocation with the traced
 * functions' durations in us ("us", in the tracer's clock: under QEMU
 * -icount shift=0 a microsecond is a thousand guest instructions), the
 * rest of out_of_memory() ("rest_us": the inlined victim scan and LCA
 * kill), the victim's comm, the LCA line's ancestor and count, and how many
 * tasks went after the kill ("gone"); "slab_at" with the task_struct slab
 * at full population, in the first repetition; "irqsoff" with the longest
 * interrupts-off section of one more repetition's subtree kill (us, and
 * the functions where it started and ended), on the irqsoff tracer.
 */
#include "lcalab.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#define FAT1_MB		32
#define FAT2_MB		24
#define TRACEFS		"/sys/kernel/tracing"
#define OOM_TIMEOUT_S	120
#define REAP_TIMEOUT_S	20
#define TRACE_MAX	(1 << 20)

/* The functions timed; the static ones the compiler inlines are not here. */
static const char *const traced[] = {
	"out_of_memory", "oom_kill_process", "dump_header",
	"__oom_kill_process", "oom_lca_decide",
};
#define NTRACED (sizeof(traced) / sizeof(traced[0]))

struct oom_sample {
	double us[NTRACED];
	int calls[NTRACED];
	pid_t victim_pid;
	long gone;
	char victim[16];
	char lca[16];
	long lca_killed;
};

/* A sysctl raised to at least @min. */
static void raise_limit(const char *path, long min)
{
	char *cur = read_file(path, 64), value[32];

	if (atol(cur) < min) {
		snprintf(value, sizeof(value), "%ld", min);
		write_file(path, "%s", value);
	}
	free(cur);
}

/* ---- the population ---------------------------------------------------- */

static void signal_ready(int fd)
{
	if (write(fd, "r", 1) != 1)
		_exit(1);
}

static _Noreturn void become(const char *name, int ready)
{
	prctl(PR_SET_NAME, name);
	signal_ready(ready);
	for (;;)
		pause();
}

static _Noreturn void become_fat(const char *name, long mb, int ready)
{
	volatile char *p = malloc(mb << 20);
	long off;

	if (!p)
		_exit(1);
	/* volatile: a memset the program never reads back may be optimised away */
	for (off = 0; off < mb << 20; off += 4096)
		p[off] = 1;
	become(name, ready);
}

/* fork() that dies on failure: a partial population measures nothing. */
static pid_t must_fork(void)
{
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "oomcost: fork: %s\n", strerror(errno));
		_exit(1);
	}
	return pid;
}

static void spawn(void (*child)(const char *, long, int), const char *name,
		  long arg, int ready)
{
	if (must_fork() == 0)
		child(name, arg, ready);
}

static void fat_child(const char *name, long mb, int ready)
{
	become_fat(name, mb, ready);
}

static void leaf_child(const char *name, long unused, int ready)
{
	(void)unused;
	become(name, ready);
}

static void middle_child(const char *name, long leaves, int ready)
{
	long i;

	for (i = 0; i < leaves; i++)
		spawn(leaf_child, "oomcost-leaf", 0, ready);
	become(name, ready);
}

static _Noreturn void tree_root(long n, int ready)
{
	long middles = 1, leaves, i;

	while (middles * middles < n)
		middles++;
	leaves = n - 3 - middles;

	spawn(fat_child, "oomcost-fat1", FAT1_MB, ready);
	spawn(fat_child, "oomcost-fat2", FAT2_MB, ready);
	for (i = 0; i < middles; i++)
		spawn(middle_child, "oomcost-mid",
		      leaves / middles + (i < leaves % middles), ready);
	become("oomcost-root", ready);
}

static _Noreturn void chain_root(long depth, int ready)
{
	long i;

	spawn(fat_child, "oomcost-fat1", FAT1_MB, ready);
	prctl(PR_SET_NAME, "oomcost-root");
	for (i = 0; i < depth; i++) {
		if (must_fork() > 0)
			become(i ? "oomcost-link" : "oomcost-root", ready);
	}
	spawn(fat_child, "oomcost-fat2", FAT2_MB, ready);
	become("oomcost-link", ready);
}

/*
 * Build the population under a root in its own process group, with
 * oom_score_adj 0 (this program inherits the lab's -1000), and return
 * once all @total processes have said they are ready.
 */
static pid_t build(int chain, long size, long total)
{
	int ready[2];
	time_t t0 = time(NULL);
	long got = 0;
	char buf[4096];
	ssize_t n;
	pid_t root;

	if (pipe(ready))
		die("pipe: %s", strerror(errno));
	root = must_fork();
	if (root == 0) {
		close(ready[0]);
		setpgid(0, 0);
		signal(SIGCHLD, SIG_IGN);	/* inherited: the dead are reaped at once */
		write_file("/proc/self/oom_score_adj", "0");
		if (chain)
			chain_root(size, ready[1]);
		tree_root(size, ready[1]);
	}
	close(ready[1]);
	/* a member whose fork failed never reports: give up after a quiet minute */
	while (got < total && poll(&(struct pollfd){ .fd = ready[0], .events = POLLIN }, 1, 60000) > 0 &&
	       (n = read(ready[0], buf, sizeof(buf))) > 0) {
		if ((got + n) / 10000 > got / 10000)
			fprintf(stderr, "oomcost: %ld of %ld processes started, %ld s\n",
				got + n, total, (long)(time(NULL) - t0));
		got += n;
	}
	close(ready[0]);
	if (got < total)
		die("only %ld of %ld processes started", got, total);
	return root;
}

static long count_tasks(void)
{
	char *list = read_file("/proc/loadavg", 256), *slash = strchr(list, '/');
	long n = slash ? atol(slash + 1) : -1;

	free(list);
	return n;
}

/* Members of process group @pgrp, from /proc: what is left of a population. */
static long count_group(pid_t pgrp)
{
	char path[300], buf[512], *p;
	struct dirent *d;
	long n = 0;
	int fd, pg;
	ssize_t len;
	DIR *proc = opendir("/proc");

	if (!proc)
		die("/proc: %s", strerror(errno));
	while ((d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) state ppid pgrp": comm may hold spaces, skip to its ')' */
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %*c %*d %d", &pg) == 1 && pg == pgrp)
			n++;
	}
	closedir(proc);
	return n;
}

/*
 * Reap the orphans that came to this subreaper until the system's task
 * count has not changed for a second; returns that count.
 */
static long settle(void)
{
	time_t stable = time(NULL), end = stable + REAP_TIMEOUT_S;
	long last = -1, now;

	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		now = count_tasks();
		if (now != last) {
			last = now;
			stable = time(NULL);
		} else if (time(NULL) - stable >= 1) {
			return now;
		}
		if (time(NULL) > end)
			die("tasks still exiting after %d s", REAP_TIMEOUT_S);
		sleep_ms(50);
	}
}

static void wait_gone(pid_t pid)
{
	time_t end = time(NULL) + REAP_TIMEOUT_S;
	char path[64], *stat;

	while (pid > 0 && kill(pid, 0) == 0) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;	/* the victim may be the root, a child of this process */
		if (time(NULL) > end) {
			snprintf(path, sizeof(path), "/proc/%d/stat", pid);
			stat = read_file(path, 512);
			die("OOM victim still there after %d s: %s", REAP_TIMEOUT_S, stat);
		}
		sleep_ms(20);
	}
}

/* The number after @key in a "key: value" or "key value" file (meminfo, vmstat). */
/* ---- the tracer and the kernel log -------------------------------------- */

static int traced_index(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NTRACED; i++)
		if (strlen(traced[i]) == len && !strncmp(traced[i], name, len))
			return i;
	return -1;
}

static void setup_tracer(void)
{
	char filter[512] = "", *avail;
	size_t i;

	if (access(TRACEFS "/trace", F_OK) &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		die("no tracefs (is this a -trace kernel?): %s", strerror(errno));
	avail = read_file(TRACEFS "/available_filter_functions", 16 << 20);
	for (i = 0; i < NTRACED; i++) {
		if (!line_starting(avail, traced[i], "\n "))
			continue;
		strcat(filter, traced[i]);
		strcat(filter, " ");
	}
	free(avail);
	if (!strstr(filter, "out_of_memory "))
		die("out_of_memory() is not traceable in this kernel");
	write_file(TRACEFS "/tracing_on", "0");
	write_file(TRACEFS "/current_tracer", "nop");
	write_file(TRACEFS "/set_ftrace_filter", "%s", filter);
	write_file(TRACEFS "/options/funcgraph-tail", "1");
	write_file(TRACEFS "/options/funcgraph-irqs", "0");
	write_file(TRACEFS "/current_tracer", "function_graph");
	write_file(TRACEFS "/tracing_on", "1");
}

/*
 * Durations from function_graph lines: "CPU) [mark] 12.345 us | name();"
 * for a leaf, "... | } /\* name *\/" for a return (funcgraph-tail).
 */
static int parse_trace(const char *trace, struct oom_sample *s)
{
	const char *line, *end, *bar, *name, *p;
	int done = 0, i, len;
	double us;

	for (line = trace; *line; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		bar = memchr(line, '|', end - line);
		if (*line == '#' || !bar)
			continue;
		for (name = bar + 1; name < end && *name == ' '; name++)
			;
		if (!strncmp(name, "} /* ", 5))
			name += 5;
		else if (!strstr(name, "();"))
			continue;	/* an entry, "name() {": no duration yet */
		for (len = 0; name[len] == '_' || isalnum((unsigned char)name[len]); len++)
			;
		i = traced_index(name, len);
		p = memchr(line, ')', bar - line);
		if (i < 0 || !p)
			continue;
		while (p < bar && !isdigit((unsigned char)*p))
			p++;
		if (p == bar || sscanf(p, "%lf", &us) != 1)
			continue;
		s->us[i] += us;
		s->calls[i]++;
		done |= i == 0;
	}
	return done;
}

/* The comm in "Killed process PID (COMM)" and the oom_lca line's fields. */
static void note_kmsg(const struct kmsg_record *rec, void *arg)
{
	struct oom_sample *s = arg;
	struct oom_lca_line d;

	parse_killed_process(rec->text, &s->victim_pid, s->victim);
	if (parse_oom_lca(rec->text, &d)) {
		memcpy(s->lca, d.lca_comm, sizeof(s->lca));
		s->lca_killed = d.killed;
	}
}

/* One SysRq-f, timed by the tracer; dies if out_of_memory() never returns. */
static void trigger_oom(struct oom_sample *s)
{
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	time_t end = time(NULL) + OOM_TIMEOUT_S;
	char *trace;
	int done;

	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
		die("/dev/kmsg: %s", strerror(errno));
	memset(s, 0, sizeof(*s));
	s->lca_killed = -1;
	write_file(TRACEFS "/trace", "%s", "");
	write_file("/proc/sysrq-trigger", "f");
	do {
		sleep_ms(50);
		memset(s->us, 0, sizeof(s->us));
		memset(s->calls, 0, sizeof(s->calls));
		trace = read_file(TRACEFS "/trace", TRACE_MAX);
		done = parse_trace(trace, s);
		free(trace);
	} while (!done && time(NULL) < end);
	if (!done)
		die("out_of_memory() did not return within %d s", OOM_TIMEOUT_S);
	sleep_ms(100);	/* the log lines of the kill */
	kmsg_drain(kmsg, note_kmsg, s);
	close(kmsg);
	wait_gone(s->victim_pid);
}

static void print_sample(const char *shape, long size, int rep, int oom,
			 long tasks, const struct oom_sample *s)
{
	double rest = s->us[0];
	size_t i;

	printf("{\"type\":\"oom\",\"shape\":\"%s\",\"size\":%ld,\"rep\":%d,\"oom\":%d,\"tasks\":%ld,\"us\":{",
	       shape, size, rep, oom, tasks);
	for (i = 0; i < NTRACED; i++)
		printf("%s\"%s\":%.3f", i ? "," : "", traced[i], s->us[i]);
	printf("},\"calls\":{");
	for (i = 0; i < NTRACED; i++)
		printf("%s\"%s\":%d", i ? "," : "", traced[i], s->calls[i]);
	/* out_of_memory()'s own part: the victim scan and the inlined LCA kill */
	rest -= s->us[1] + s->us[4];
	printf("},\"rest_us\":%.3f,\"gone\":%ld,\"victim\":\"%s\",\"lca\":%s%s%s,\"lca_killed\":",
	       rest, s->gone, s->victim, *s->lca ? "\"" : "", *s->lca ? s->lca : "null",
	       *s->lca ? "\"" : "");
	if (s->lca_killed < 0)
		printf("null}\n");
	else
		printf("%ld}\n", s->lca_killed);
	fflush(stdout);
}

/* The task_struct slab, and what the population took of MemAvailable. */
static void print_slab(long tasks, long avail_before)
{
	char *slab = read_file("/proc/slabinfo", 1 << 20), *p = strstr(slab, "\ntask_struct ");
	long active, num, size, perslab, pages, slabs;

	if (!p || sscanf(p, " task_struct %ld %ld %ld %ld %ld : tunables %*d %*d %*d : slabdata %*d %ld",
			 &active, &num, &size, &perslab, &pages, &slabs) != 6)
		die("no task_struct line in /proc/slabinfo");
	printf("{\"type\":\"slab_at\",\"tasks\":%ld,\"active_objs\":%ld,\"num_objs\":%ld,\"objsize\":%ld,"
	       "\"objperslab\":%ld,\"pagesperslab\":%ld,\"num_slabs\":%ld,\"bytes\":%ld,\"population_kb\":%ld}\n",
	       tasks, active, num, size, perslab, pages, slabs, slabs * pages * 4096,
	       avail_before - proc_field("/proc/meminfo", "MemAvailable"));
	fflush(stdout);
	free(slab);
}

/* Processes in a population: the shapes add the root and the two fat ones. */
static long population_size(int chain, long size)
{
	return chain ? size + 3 : size;
}

/*
 * One repetition: build the population, two OOM kills (each followed by
 * waiting until the task count is still for a second, to count what went),
 * then kill the rest. Rep 0 is a warm-up and prints nothing.
 */
static void measure(int chain, long size, int rep, int slab)
{
	const char *shape = chain ? "chain" : "tree";
	long total = population_size(chain, size), tasks, left, kills, avail;
	struct oom_sample first, second;
	pid_t root;

	settle();
	kills = proc_field("/proc/vmstat", "oom_kill");
	avail = proc_field("/proc/meminfo", "MemAvailable");
	root = build(chain, size, total);
	tasks = count_tasks();
	if (proc_field("/proc/vmstat", "oom_kill") != kills)
		die("the OOM killer ran while %ld processes started: the guest needs more RAM", total);
	if (slab)
		print_slab(tasks, avail);
	trigger_oom(&first);
	settle();
	left = count_group(root);
	first.gone = total - left;
	trigger_oom(&second);
	settle();
	second.gone = left - count_group(root);
	if (rep) {
		print_sample(shape, size, rep, 1, tasks, &first);
		print_sample(shape, size, rep, 2, tasks, &second);
	}
	kill(-root, SIGKILL);
	settle();
	if (count_group(root))
		die("the population did not exit");
}

/* One SysRq-f without the function graph tracer: until oom_kill counts it. */
static void trigger_oom_untimed(void)
{
	long kills = proc_field("/proc/vmstat", "oom_kill");
	time_t end = time(NULL) + OOM_TIMEOUT_S;

	write_file("/proc/sysrq-trigger", "f");
	while (proc_field("/proc/vmstat", "oom_kill") == kills && time(NULL) < end)
		sleep_ms(50);
	if (proc_field("/proc/vmstat", "oom_kill") == kills)
		die("SysRq-f killed nothing within %d s", OOM_TIMEOUT_S);
}

/* The function an irqsoff trace names after KEY ("=> started at:"). */
static void section_end(const char *trace, const char *key, char *fn, size_t len)
{
	const char *p = strstr(trace, key);

	snprintf(fn, len, "?");
	if (p)
		sscanf(p + strlen(key), " %63[A-Za-z0-9_.]", fn);
}

/*
 * The longest interrupts-off section from the second SysRq-f until the
 * population is still again: the subtree kill, the members' exits and
 * their release, which moves each one's biological children under
 * tasklist_lock with interrupts off. One more repetition, on the irqsoff
 * tracer (a -trace kernel has it); skipped, with a line saying so, if the
 * kernel lacks it.
 */
static void measure_irqsoff(int chain, long size)
{
	const char *shape = chain ? "chain" : "tree";
	long total = population_size(chain, size), max_us;
	char *tracers, *lat, *trace, from[64], to[64];
	pid_t root;

	tracers = read_file(TRACEFS "/available_tracers", 4096);
	if (!strstr(tracers, "irqsoff")) {
		printf("{\"type\":\"irqsoff\",\"shape\":\"%s\",\"size\":%ld,\"max_us\":null}\n", shape, size);
		free(tracers);
		return;
	}
	free(tracers);
	write_file(TRACEFS "/current_tracer", "nop");
	settle();
	root = build(chain, size, total);
	trigger_oom_untimed();
	settle();
	write_file(TRACEFS "/current_tracer", "irqsoff");
	write_file(TRACEFS "/tracing_max_latency", "0");
	trigger_oom_untimed();
	settle();
	lat = read_file(TRACEFS "/tracing_max_latency", 64);
	trace = read_file(TRACEFS "/trace", TRACE_MAX);
	write_file(TRACEFS "/current_tracer", "nop");
	max_us = atol(lat);
	section_end(trace, "=> started at:", from, sizeof(from));
	section_end(trace, "=> ended at:", to, sizeof(to));
	printf("{\"type\":\"irqsoff\",\"shape\":\"%s\",\"size\":%ld,\"max_us\":%ld,"
	       "\"started_at\":\"%s\",\"ended_at\":\"%s\"}\n", shape, size, max_us, from, to);
	fflush(stdout);
	free(lat);
	free(trace);
	kill(-root, SIGKILL);
	settle();
}

static void usage(void)
{
	fprintf(stderr, "usage: oomcost [-r REPS] tree N | chain D   (N >= 16, D >= 1)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int reps = 1, opt, rep, chain;
	long size, total;
	char *end;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r' || (reps = atoi(optarg)) < 1)
			usage();
	}
	if (argc - optind != 2)
		usage();
	chain = !strcmp(argv[optind], "chain");
	if (!chain && strcmp(argv[optind], "tree"))
		usage();
	size = strtol(argv[optind + 1], &end, 10);
	if (*end || size < (chain ? 1 : 16) || size > 1000000)
		usage();
	require_lab_guest("oomcost");
	total = population_size(chain, size);

	/* Only the ring buffer: console output would be timed with the kill. */
	write_file("/proc/sys/kernel/printk", "1");
	write_file("/proc/sys/vm/oom_dump_tasks", "0");
	raise_limit("/proc/sys/kernel/pid_max", 2 * total + 1024);
	raise_limit("/proc/sys/kernel/threads-max", 2 * total + 1024);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	setup_tracer();
	/* Unprinted: the first runs of the OOM paths (TCG translates them then). */
	measure(chain, chain ? 16 : 64, 0, 0);
	for (rep = 1; rep <= reps; rep++)
		measure(chain, size, rep, rep == 1);
	measure_irqsoff(chain, size);
	return 0;
}
