/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oomd-pid1 CGROUP: PID 1's side of systemd-oomd's varlink interface, for
 * the oomd defence (defences/oomd.sh) in a guest whose PID 1 is not
 * systemd. Listens on /run/systemd/io.system.ManagedOOM and answers
 * io.systemd.ManagedOOM.SubscribeManagedOOMCGroups as systemd 252's PID 1
 * does with Debian's drop-ins: ManagedOOMSwap=kill on -.slice (the root
 * cgroup), ManagedOOMMemoryPressure=kill with
 * ManagedOOMMemoryPressureLimit=50% on CGROUP (the lab's session, e.g.
 * /lcalab), which plays user@1000.service.
 */
#include "lcalab.h"
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#define SOCKET_PATH	"/run/systemd/io.system.ManagedOOM"
#define SUBSCRIBE	"\"io.systemd.ManagedOOM.SubscribeManagedOOMCGroups\""
/* 50% as PID 1 sends it: UINT32_SCALE_FROM_PERMYRIAD(5000), a fraction of 2^32-1 */
#define LIMIT_50	2147483648u

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = SOCKET_PATH };
	char req[4096], reply[1024];
	size_t got;
	ssize_t n;
	int lfd, fd, len;

	require_lab_guest("oomd-pid1");
	if (argc != 2 || argv[1][0] != '/' || strpbrk(argv[1], "\"\\"))
		die("usage: oomd-pid1 /CGROUP (a path under /sys/fs/cgroup)");
	/* the root slice's cgroup path is "" in PID 1: its cgroup_root */
	len = snprintf(reply, sizeof(reply), "{\"parameters\":{\"cgroups\":["
		       "{\"mode\":\"kill\",\"path\":\"\",\"property\":\"ManagedOOMSwap\"},"
		       "{\"mode\":\"kill\",\"path\":\"%s\",\"property\":\"ManagedOOMMemoryPressure\","
		       "\"limit\":%u}]},\"continues\":true}", argv[1], LIMIT_50);
	if (len < 0 || (size_t)len >= sizeof(reply))
		die("the cgroup path is too long");
	/* PID 1 is never OOM-killed, and oomd stops monitoring once we are gone */
	write_file("/proc/self/oom_score_adj", "-1000");
	if (mkdir("/run/systemd", 0755) && errno != EEXIST)
		die("cannot create /run/systemd: %s", strerror(errno));
	unlink(SOCKET_PATH);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 16))
		die("cannot listen on %s: %s", SOCKET_PATH, strerror(errno));
	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			die("accept: %s", strerror(errno));
		/* one varlink message: JSON ended by a NUL byte */
		for (got = 0; !memchr(req, '\0', got); got += n)
			if (got == sizeof(req) || (n = read(fd, req + got, sizeof(req) - got)) <= 0)
				die("no complete request from oomd (%zu bytes)", got);
		if (!strstr(req, SUBSCRIBE) || !strstr(req, "\"more\":true"))
			die("unexpected request: %.200s", req);
		if (send(fd, reply, len + 1, MSG_NOSIGNAL) != len + 1)
			die("cannot send the reply: %s", strerror(errno));
		/* fd stays open: oomd drops the subscription when it closes */
	}
}
