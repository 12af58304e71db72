// SPDX-License-Identifier: GPL-2.0
/*
 * mountopt TYPE DEV DIR OPTS [REMOUNT-OPTS...]: mount DEV read-only on DIR
 * with OPTS (mount(2), as mount(8) passes them), then remount it with each
 * REMOUNT-OPTS in turn, and print what a user sees after each step, so that
 * two drivers can be diffed:
 *
 *   mount OPTS: ok | ERRNO
 *   options: the options field of DIR's line in /proc/mounts
 *   statfs: blocks, free, available, inodes and free inodes (statfs(2))
 *   probe PATH: uid gid, system.posix_acl_access (size or errno), the
 *               attribute names listxattr gives
 *
 * PATHs (relative to DIR) come from $MO_PROBE (space-separated). DIR is
 * unmounted at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>

static const char *en(int e)
{
	return strerrorname_np(e) ?: "?";
}

static void fs_stats(const char *dir)
{
	struct statfs s;

	if (statfs(dir, &s) < 0)
		printf("statfs: %s\n", en(errno));
	else
		printf("statfs: blocks=%llu bfree=%llu bavail=%llu files=%llu ffree=%llu\n",
		       (unsigned long long)s.f_blocks, (unsigned long long)s.f_bfree,
		       (unsigned long long)s.f_bavail, (unsigned long long)s.f_files,
		       (unsigned long long)s.f_ffree);
}

static void options(const char *dir)
{
	char dev[4096], mnt[4096], type[256], opts[4096];
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return;
	while (fscanf(f, "%4095s %4095s %255s %4095s %*d %*d", dev, mnt, type, opts) == 4) {
		if (!strcmp(mnt, dir))
			printf("options: %s\n", opts);
	}
	fclose(f);
}

static void probe(const char *dir)
{
	char *list = getenv("MO_PROBE"), *save = NULL, *p, path[4096], names[4096];
	struct stat st;
	ssize_t n, i;

	if (!list)
		return;
	list = strdup(list);
	for (p = strtok_r(list, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, p);
		printf("probe %s:", p);
		if (lstat(path, &st) < 0) {
			printf(" %s\n", en(errno));
			continue;
		}
		printf(" uid=%u gid=%u", st.st_uid, st.st_gid);
		n = lgetxattr(path, "system.posix_acl_access", NULL, 0);
		printf(" acl=%s", n < 0 ? en(errno) : "");
		if (n >= 0)
			printf("%zd", n);
		n = llistxattr(path, names, sizeof(names));
		printf(" list=");
		if (n < 0)
			printf("%s", en(errno));
		for (i = 0; i < n; i++)
			putchar(names[i] ? names[i] : ',');
		printf("\n");
	}
	free(list);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 5) {
		fprintf(stderr, "usage: mountopt TYPE DEV DIR OPTS [REMOUNT-OPTS...]\n");
		return 2;
	}
	printf("mount %s: ", argv[4]);
	if (mount(argv[2], argv[3], argv[1], MS_RDONLY, argv[4]) < 0) {
		printf("%s\n", en(errno));
		return 0;
	}
	printf("ok\n");
	options(argv[3]);
	fs_stats(argv[3]);
	probe(argv[3]);
	for (i = 5; i < argc; i++) {
		printf("remount %s: ", argv[i]);
		if (mount(NULL, argv[3], NULL, MS_REMOUNT | MS_RDONLY, argv[i]) < 0)
			printf("%s\n", en(errno));
		else
			printf("ok\n");
		options(argv[3]);
		fs_stats(argv[3]);
		probe(argv[3]);
	}
	if (umount(argv[3]) < 0)
		printf("umount: %s\n", en(errno));
	return 0;
}
