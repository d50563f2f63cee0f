/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the lab's guest programs share: the guard that keeps them off the
 * host, the clock, sleeping, dying with a message, reading and writing a
 * /proc or /sys file, the probes' heartbeat record, the one parser of
 * the kernel's oom_lca: decision line, and the pieces of the OOM tests'
 * populations (memory held or grown, members reporting their pids). A workload of your own includes it and calls
 * require_lab_guest() first thing (lab/run refuses one that does not).
 */
#ifndef LCALAB_H
#define LCALAB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define GUEST_MARKER "lcalab.guest=1"

/* glibc's; declared here too, so the order of the includes does not matter */
extern char *program_invocation_short_name;

static inline int inside_lab_guest(void)
{
	char line[4096], *word, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	int found = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		for (word = strtok_r(line, " \n", &save); word;
		     word = strtok_r(NULL, " \n", &save))
			found |= !strcmp(word, GUEST_MARKER);
	}
	fclose(f);
	return found;
}

/* Exit 2 with a clear message unless this is a lab guest. */
static inline void require_lab_guest(const char *prog)
{
	if (inside_lab_guest())
		return;
	fprintf(stderr, "%s: refusing to run: not inside a lab guest "
		"(no %s on the kernel command line); boot one with lab/boot\n",
		prog, GUEST_MARKER);
	exit(2);
}

/* "PROG: message" on stderr, exit 1. */
static inline void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Write a formatted value to a /proc, /sys or tracefs file; die on failure.
 * Loops: ftrace's filter files take one name per write().
 */
static inline void __attribute__((format(printf, 2, 3))) write_file(const char *path, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	ssize_t n = 0;
	int fd, len, done = 0;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(buf))
		die("the value for %s is too long", path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (fd >= 0 && done < len && (n = write(fd, buf + done, len - done)) > 0)
		done += n;
	if (fd < 0 || n < 0 || done < len)
		die("cannot write '%s' to %s: %s", buf, path,
		    fd < 0 || n < 0 ? strerror(errno) : "short write");
	close(fd);
}

/* One /dev/kmsg record: its text and when the kernel logged it. */
struct kmsg_record {
	const char *text;
	int64_t usec;		/* the kernel's clock (printk's), in us */
};

/*
 * Parse one /dev/kmsg record ("pri,seq,usec,flags;text\n..."), cutting its
 * text at the newline; false when it has no text.
 */
static inline bool kmsg_parse(char *record, struct kmsg_record *rec)
{
	char *text = strchr(record, ';'), *nl;
	long long usec;

	if (!text || sscanf(record, "%*u,%*u,%lld", &usec) != 1)
		return false;
	nl = strchr(++text, '\n');
	if (nl)
		*nl = '\0';
	rec->text = text;
	rec->usec = usec;
	return true;
}

/*
 * Read every record /dev/kmsg (@fd, opened O_NONBLOCK) has now and pass it
 * to @fn; returns how many records the ring lost before we read them.
 */
static inline long kmsg_drain(int fd, void (*fn)(const struct kmsg_record *rec, void *arg),
			      void *arg)
{
	char buf[8192];
	struct kmsg_record rec;
	long lost = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf) - 1);
		if (n < 0 && errno == EPIPE) {
			lost++;
			continue;
		}
		if (n <= 0)
			return lost;
		buf[n] = '\0';
		if (kmsg_parse(buf, &rec))
			fn(&rec, arg);
	}
}

#define PROBE_PERIOD_NS	100000000	/* 100 ms */

/* The heartbeat record a probe keeps in its file, read by lcalab-run. */
struct probe_beat {
	int32_t pid;
	int32_t pad;
	uint64_t beats;
	int64_t last_ns;	/* CLOCK_MONOTONIC of the last beat */
	int64_t max_gap_ns;	/* longest time between two beats */
};

/*
 * One decision of the LCA policy, as the kernel logs it
 * (kernel-patch/README.md):
 *   oom_lca: victim=PID(comm) prev=PID lca=PID(comm) killed=N anchor=PID
 */
struct oom_lca_line {
	int victim, prev, lca, anchor;
	char victim_comm[16], lca_comm[16];
	unsigned int killed;
};

/*
 * True when @msg is the OOM killer's "Killed process PID (COMM) ..." line
 * (mm/oom_kill.c); the pid goes to @pid and, when @comm is not NULL, the
 * name to @comm (16 bytes).
 */
static inline bool parse_killed_process(const char *msg, int *pid, char *comm)
{
	const char *p = strstr(msg, "Killed process ");
	char name[16];

	if (!p || sscanf(p, "Killed process %d (%15[^)])", pid, name) != 2)
		return false;
	if (comm)
		memcpy(comm, name, sizeof(name));
	return true;
}

/* True when @msg is a decision line; its fields go to @d. */
static inline int parse_oom_lca(const char *msg, struct oom_lca_line *d)
{
	const char *p = strstr(msg, "oom_lca: victim=");

	return p && sscanf(p, "oom_lca: victim=%d(%15[^)]) prev=%d lca=%d(%15[^)]) killed=%u anchor=%d",
			   &d->victim, d->victim_comm, &d->prev, &d->lca, d->lca_comm,
			   &d->killed, &d->anchor) == 7;
}


/* The whole of a (proc or trace) file, NUL-terminated, at most max bytes. */
static inline char *read_file(const char *path, size_t max)
{
	char *buf = malloc(max + 1);
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (!buf || fd < 0)
		die("cannot read %s: %s", path, strerror(errno));
	while (len < max && (n = read(fd, buf + len, max - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Where @key ends in the first line of @buf that starts with it and one of @ends; NULL if none. */
static inline const char *line_starting(const char *buf, const char *key, const char *ends)
{
	size_t len = strlen(key);
	const char *p;

	for (p = strstr(buf, key); p; p = strstr(p + 1, key))
		if ((p == buf || p[-1] == '\n') && p[len] && strchr(ends, p[len]))
			return p + len;
	return NULL;
}

/* The number after @key in a /proc file of "key value" lines; -1 if none. */
static inline long proc_field(const char *path, const char *key)
{
	char *text = read_file(path, 1 << 16);
	const char *p = line_starting(text, key, ": ");
	long v = p ? strtol(p + 1, NULL, 10) : -1;

	free(text);
	return v;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Take @mb MB and touch each page, so that all of it is resident. */
static inline void hold_mb(long mb)
{
	volatile char *p = malloc(mb << 20);
	long off;

	if (!p)
		die("no memory for %ld MB", mb);
	for (off = 0; off < mb << 20; off += 4096)
		p[off] = 1;
}

/* Map and touch @mb MB at a time, for ever: until the OOM killer acts. */
static inline __attribute__((noreturn)) void grow_for_ever(long mb)
{
	long off, size = mb << 20;
	char *p;

	for (;;) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			sleep_ms(10);
			continue;
		}
		for (off = 0; off < size; off += 4096)
			p[off] = 1;
	}
}

/* fork(), or die naming why: the tests' children must exist. */
static inline pid_t fork_or_die(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	return pid;
}

static inline int pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

/* A member of a test population tells its parent, on @fd, "I am @i, @pid". */
static inline void report_member(int fd, int i, pid_t pid)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%d %d\n", i, pid);

	if (write(fd, line, n) != n)
		die("member %d: cannot report", i);
}

/*
 * The parent reads the reports of members @first to @n - 1, in any order,
 * from @fd into @pids.
 */
static inline void read_members(int fd, pid_t *pids, int first, int n)
{
	FILE *in = fdopen(fd, "r");
	int i, who, pid;

	for (i = first; i < n; i++) {
		if (!in || fscanf(in, "%d %d", &who, &pid) != 2 || who < first || who >= n)
			die("the population did not start");
		pids[who] = pid;
	}
}

#endif
