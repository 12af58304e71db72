/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the test tools: run as an unprivileged user. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * If environment variable @var is set, become that user and group (with no
 * supplementary groups). Returns 0, or -1 after printing why it failed.
 */
static int drop_privileges_from_env(const char *var, const char *tool)
{
	uid_t uid;

	if (!getenv(var))
		return 0;
	uid = atoi(getenv(var));
	if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0) {
		fprintf(stderr, "%s: dropping privileges: ", tool);
		perror(NULL);
		return -1;
	}
	return 0;
}
