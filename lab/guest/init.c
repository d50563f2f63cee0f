// SPDX-License-Identifier: GPL-2.0
/*
 * lcalab-init: PID 1 of a lab guest, or the job of a systemd guest.
 *
 * As PID 1 it mounts the pseudo filesystems and the job disk, runs the
 * job's /lab/init as its only child and reaps every orphan (a fork bomb
 * leaves thousands of them to init). Under systemd (lab/boot --init
 * systemd, lcalab-job.service) it mounts only the job disk; systemd reaps.
 * When the job ends it writes the end marker to the results channel and
 * reboots at once; QEMU runs with -no-reboot, so that ends the guest
 * without needing ACPI.
 *
 * First it starts the ticker: a child that writes the guest's uptime in
 * whole seconds to the tick port (ttyS2) every second, so that the host
 * can hold a guest to a deadline in guest time (lab/boot --icount). It
 * runs at oom_score_adj -1000, under SCHED_FIFO above the driver's
 * sampler, with its memory locked, and never forks, so no bomb and no
 * shortage of memory stops it; only a guest that no longer runs its
 * processes does.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define JOB_DISK	"/dev/vdb"
#define JOB_INIT	"/lab/init"
#define CHANNEL		"/dev/ttyS1"
#define TICKS		"/dev/ttyS2"

static void say(const char *fmt, const char *arg)
{
	dprintf(STDERR_FILENO, "lcalab-init: ");
	dprintf(STDERR_FILENO, fmt, arg);
	dprintf(STDERR_FILENO, "\n");
}

static void mount_one(const char *src, const char *dir, const char *type,
		      unsigned long flags)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, flags, NULL) && errno != EBUSY)
		say("cannot mount %s", dir);
}

static void console_stdio(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static void start_ticker(void)
{
	struct timespec now, second = { 1, 0 };
	int fd;

	if (fork() != 0)
		return;
	fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd < 0 || write(fd, "-1000", 5) != 5)
		say("ticker: oom_score_adj: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		say("ticker: mlockall: %s", strerror(errno));
	if (sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 60 }))
		say("ticker: SCHED_FIFO: %s", strerror(errno));
	fd = open(TICKS, O_WRONLY | O_NOCTTY);
	if (fd < 0)
		_exit(0);
	for (;;) {
		clock_gettime(CLOCK_BOOTTIME, &now);
		dprintf(fd, "%ld\n", (long)now.tv_sec);
		nanosleep(&second, NULL);
	}
}

static pid_t start_job(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		setsid();
		execl("/bin/bash", "bash", JOB_INIT, (char *)NULL);
		say("cannot run %s", JOB_INIT);
		_exit(127);
	}
	return pid;
}

/* Reap orphans until the job itself has ended; returns its wait status. */
static int reap_until(pid_t job)
{
	int status;
	pid_t pid;

	for (;;) {
		pid = wait(&status);
		if (pid == job)
			return status;
		if (pid < 0 && errno == ECHILD)
			return -1;
	}
}

static void report_end(int status)
{
	int code = status < 0 ? 255 :
		   WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	int fd = open(CHANNEL, O_WRONLY | O_NOCTTY);

	if (fd >= 0) {
		dprintf(fd, "lcalab-end status=%d\n", code);
		close(fd);
	}
	dprintf(STDERR_FILENO, "lcalab-init: job ended, status %d\n", code);
}

int main(void)
{
	pid_t job = -1;
	int status = -1;

	if (getpid() == 1) {
		mount_one("devtmpfs", "/dev", "devtmpfs", 0);
		console_stdio();
		mount_one("proc", "/proc", "proc", 0);
		mount_one("sysfs", "/sys", "sysfs", 0);
		mount_one("cgroup2", "/sys/fs/cgroup", "cgroup2", 0);
		mount_one("tmpfs", "/tmp", "tmpfs", 0);
		mount_one("tmpfs", "/run", "tmpfs", 0);
	}
	mount_one(JOB_DISK, "/lab", "ext4", MS_RDONLY);
	start_ticker();

	if (access(JOB_INIT, R_OK) == 0)
		job = start_job();
	else
		say("no job: %s is missing", JOB_INIT);
	if (job > 0)
		status = reap_until(job);
	report_end(status);

	/*
	 * No kill-and-wait for what is left: a thousand dying bomb tasks in a
	 * thrashing guest took a minute to exit, and reboot() ends them anyway.
	 * The channel's close() above waited for the UART to drain.
	 */
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
