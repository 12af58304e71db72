// SPDX-License-Identifier: GPL-2.0
/*
 * benchtool: the timed workloads of make bench. Each prints the elapsed
 * wall-clock time in seconds (CLOCK_MONOTONIC) as "time SECONDS", plus a
 * checksum of what it read so that both drivers are seen doing the same work,
 * and the CPU time (user + system) of it and its children as "cpu SECONDS".
 *
 *   benchtool seq FILE            read FILE sequentially, 1 MiB reads
 *   benchtool rand FILE SEED N [L] N 4 KiB preads at seeded random offsets,
 *                                 L times (the same offsets each time)
 *   benchtool statwalk DIR        find + lstat of every entry under DIR
 *   benchtool getdents DIR [N]    getdents64 of DIR only (ls -f), N times
 *   benchtool run CMD...          run CMD with /bin/sh -c, time it
 *   benchtool write FILE MIB [S]  write MIB MiB to FILE (an existing file),
 *                                 1 MiB writes; S: f = fsync at the end,
 *                                 d = O_DIRECT, s = sync(2) at the end
 *   benchtool overwrite FILE SEED N  N 4 KiB pwrites at seeded random
 *                                 offsets inside FILE, then fsync
 *   benchtool files DIR N SIZE    N files of SIZE bytes created and written
 *                                 in DIR, then unlinked, then sync(2)
 *   benchtool empty DIR N PER     N empty files in N/PER new directories of
 *                                 DIR, PER each, created, then unlinked and
 *                                 the directories removed, then sync(2)
 *   benchtool renames DIR N R     N empty files made in DIR/aK (timed too;
 *                                 1,000 a directory), then R rounds of: each
 *                                 renamed into DIR/bK (across directories),
 *                                 renamed within DIR/bK over a file it
 *                                 replaces every other time, and back into
 *                                 DIR/aK; then sync(2)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* user + system time of this process and its waited-for children, seconds */
static double cpu(void)
{
	struct rusage self, children;
	double t = 0;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	t += self.ru_utime.tv_sec + self.ru_utime.tv_usec / 1e6;
	t += self.ru_stime.tv_sec + self.ru_stime.tv_usec / 1e6;
	t += children.ru_utime.tv_sec + children.ru_utime.tv_usec / 1e6;
	t += children.ru_stime.tv_sec + children.ru_stime.tv_usec / 1e6;
	return t;
}

/* voluntary context switches (sleeps: waits for the disk, locks) of this process and its
 * waited-for children */
static long sleeps(void)
{
	struct rusage self, children;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &children);
	return self.ru_nvcsw + children.ru_nvcsw;
}

static uint64_t sum;
static unsigned long count;

static void add(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 512)
		sum = sum * 31 + p[i];
}

static void statwalk(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	long n, pos;
	char child[4096];
	struct stat st;

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (pos = 0; pos < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + pos);

			pos += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			snprintf(child, sizeof(child), "%s/%s", path, d->d_name);
			if (lstat(child, &st) == 0) {
				count++;
				sum += st.st_ino + st.st_size;
				if (S_ISDIR(st.st_mode)) {
					/* Recursing reuses buf: finish this batch first. */
					char *save = malloc(n - pos + 1);
					long rest = n - pos;

					memcpy(save, buf + pos, rest);
					statwalk(child);
					memcpy(buf + pos, save, rest);
					free(save);
				}
			}
		}
	}
	close(fd);
}

/* Creates NAME, empty; 0, or -1 after perror. */
static int create_empty(const char *name)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0)
		return perror(name), -1;
	close(fd);
	return 0;
}

/*
 * renames: DIR/<fd>K/<fp>I becomes DIR/<td>K/<tp>I for each I below N (K =
 * I / 1000); with REPLACE, the target of every odd I is made first, so that
 * the rename replaces (and frees) it. 0, or -1 after perror.
 */
static int rename_each(const char *dir, long n, char fd, char fp, char td, char tp,
		       int replace)
{
	static char from[4096], to[4096];
	long i;

	for (i = 0; i < n; i++) {
		snprintf(from, sizeof(from), "%s/%c%ld/%c%ld", dir, fd, i / 1000, fp, i);
		snprintf(to, sizeof(to), "%s/%c%ld/%c%ld", dir, td, i / 1000, tp, i);
		if (replace && i % 2 && create_empty(to) < 0)
			return -1;
		if (rename(from, to) < 0)
			return perror(from), -1;
		count++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 20];
	double t0, c0, t, c;
	long w0;
	ssize_t n;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: see the comment in benchtool.c\n");
		return 2;
	}
	t0 = now();
	c0 = cpu();
	w0 = sleeps();
	if (!strcmp(argv[1], "seq")) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return perror(argv[2]), 1;
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			add(buf, n);
			count += n;
		}
	} else if (!strcmp(argv[1], "rand") && argc > 4) {
		struct stat st;
		uint64_t x = 0, blocks;
		long i, k = atol(argv[4]), loops = argc > 5 ? atol(argv[5]) : 1;

		fd = open(argv[2], O_RDONLY);
		if (fd < 0 || fstat(fd, &st) < 0)
			return perror(argv[2]), 1;
		blocks = st.st_size / 4096;
		for (i = 0; i < k * loops; i++) {
			if (i % k == 0)
				x = strtoull(argv[3], NULL, 0) | 1;
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			n = pread(fd, buf, 4096, (off_t)(x % blocks) * 4096);
			if (n > 0)
				add(buf, n);
			count++;
		}
	} else if (!strcmp(argv[1], "statwalk")) {
		statwalk(argv[2]);
	} else if (!strcmp(argv[1], "getdents")) {
		long loops = argc > 3 ? atol(argv[3]) : 1;

		fd = open(argv[2], O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			return perror(argv[2]), 1;
		for (; loops > 0; loops--) {
			lseek(fd, 0, SEEK_SET);
			while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
				for (long pos = 0; pos < n; count++)
					pos += ((struct dirent64 *)(buf + pos))->d_reclen;
		}
	} else if (!strcmp(argv[1], "write") && argc > 3) {
		static unsigned char wbuf[1 << 20] __attribute__((aligned(4096)));
		const char *how = argc > 4 ? argv[4] : "";
		long i, mib = atol(argv[3]);

		memset(wbuf, 0x5a, sizeof(wbuf));
		fd = open(argv[2], O_WRONLY | (strchr(how, 'd') ? O_DIRECT : 0));
		if (fd < 0)
			return perror(argv[2]), 1;
		for (i = 0; i < mib; i++) {
			wbuf[0] = i;
			if (write(fd, wbuf, sizeof(wbuf)) != sizeof(wbuf))
				return perror("write"), 1;
			add(wbuf, 64);
			count++;
		}
		if (strchr(how, 'f') && fsync(fd) < 0)
			return perror("fsync"), 1;
		close(fd);
		if (strchr(how, 's'))
			sync();
	} else if (!strcmp(argv[1], "overwrite") && argc > 4) {
		struct stat st;
		uint64_t x = strtoull(argv[3], NULL, 0) | 1, blocks;
		long i, k = atol(argv[4]);

		fd = open(argv[2], O_WRONLY);
		if (fd < 0 || fstat(fd, &st) < 0)
			return perror(argv[2]), 1;
		blocks = st.st_size / 4096;
		memset(buf, 0xa5, 4096);
		for (i = 0; i < k && blocks; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			if (pwrite(fd, buf, 4096, (off_t)(x % blocks) * 4096) != 4096)
				return perror("pwrite"), 1;
			count++;
		}
		if (fsync(fd) < 0)
			return perror("fsync"), 1;
		close(fd);
	} else if (!strcmp(argv[1], "files") && argc > 4) {
		/* N files of SIZE bytes created and written in DIR, then unlinked. */
		static char name[4096];
		long i, k = atol(argv[3]), size = atol(argv[4]);

		if (size < 0 || size > (long)sizeof(buf))
			return 2;
		memset(buf, 0x3c, size);
		for (i = 0; i < k; i++) {
			snprintf(name, sizeof(name), "%s/s%ld", argv[2], i);
			fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0)
				return perror(name), 1;
			if (size && write(fd, buf, size) != size)
				return perror("write"), 1;
			add(buf, 64);
			close(fd);
			count++;
		}
		for (i = 0; i < k; i++) {
			snprintf(name, sizeof(name), "%s/s%ld", argv[2], i);
			if (unlink(name) < 0)
				return perror(name), 1;
		}
		sync();
	} else if (!strcmp(argv[1], "empty") && argc > 4) {
		static char name[4096];
		long i, k = atol(argv[3]), per = atol(argv[4]);

		if (k < 0 || per <= 0)
			return 2;
		for (i = 0; i < k; i++) {
			if (i % per == 0) {
				snprintf(name, sizeof(name), "%s/d%ld", argv[2], i / per);
				if (mkdir(name, 0755) < 0)
					return perror(name), 1;
			}
			snprintf(name, sizeof(name), "%s/d%ld/e%ld", argv[2], i / per, i);
			if (create_empty(name) < 0)
				return 1;
			count++;
		}
		for (i = 0; i < k; i++) {
			snprintf(name, sizeof(name), "%s/d%ld/e%ld", argv[2], i / per, i);
			if (unlink(name) < 0)
				return perror(name), 1;
			if (i % per == per - 1 || i == k - 1) {
				snprintf(name, sizeof(name), "%s/d%ld", argv[2], i / per);
				if (rmdir(name) < 0)
					return perror(name), 1;
			}
		}
		sync();
	} else if (!strcmp(argv[1], "renames") && argc > 4) {
		static char name[4096];
		long i, r, k = atol(argv[3]), rounds = atol(argv[4]);

		if (k < 0 || rounds < 0)
			return 2;
		for (i = 0; i < k; i += 1000) {
			snprintf(name, sizeof(name), "%s/a%ld", argv[2], i / 1000);
			if (mkdir(name, 0755) < 0)
				return perror(name), 1;
			snprintf(name, sizeof(name), "%s/b%ld", argv[2], i / 1000);
			if (mkdir(name, 0755) < 0)
				return perror(name), 1;
		}
		for (i = 0; i < k; i++) {
			snprintf(name, sizeof(name), "%s/a%ld/f%ld", argv[2], i / 1000, i);
			if (create_empty(name) < 0)
				return 1;
		}
		/* Across into bK, within bK (g to h, replacing), back into aK. */
		for (r = 0; r < rounds; r++)
			if (rename_each(argv[2], k, 'a', 'f', 'b', 'g', 0) < 0 ||
			    rename_each(argv[2], k, 'b', 'g', 'b', 'h', 1) < 0 ||
			    rename_each(argv[2], k, 'b', 'h', 'a', 'f', 0) < 0)
				return 1;
		sync();
	} else if (!strcmp(argv[1], "run")) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", argv[2], (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return fprintf(stderr, "command failed\n"), 1;
	} else {
		return 2;
	}
	t = now() - t0;
	c = cpu() - c0;
	printf("time %.6f count %lu sum %llx cpu %.6f waits %ld\n", t, count,
	       (unsigned long long)sum, c, sleeps() - w0);
	return 0;
}
