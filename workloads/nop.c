// SPDX-License-Identifier: GPL-2.0
/*
 * nop: what forkbench execs. Static and empty, so fork+exec measures the
 * kernel's exec and exit paths, not the dynamic loader (under TCG a
 * dynamically linked /bin/true cost 28 ms an exec, measured).
 */
int main(void)
{
	return 0;
}
