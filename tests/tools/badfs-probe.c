// SPDX-License-Identifier: GPL-2.0
/*
 * badfs-probe MOUNTPOINT: the system calls that reach each misbehaviour of
 * samples/rust/rust_badfs.rs, one line each: "WHAT = RESULT", where RESULT
 * is a return value, a link target or an errno name. Run as root, then again
 * as an unprivileged user (BADFS_UID=N). BADFS_ONLY=GROUP runs one group of
 * calls: align, xattr, noaops, noread, blocks, partial, failing, owned,
 * inlink, holder, bigino, holes, write, forget.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "privs.h"

static void result(const char *what, long ret)
{
	if (ret < 0)
		printf("%s = %s\n", what, strerrorname_np(errno) ?: "?");
	else
		printf("%s = %ld\n", what, ret);
}

/* Writes 100 bytes at the start of a file: the count, or -1 with errno. */
static long write_start(const char *path)
{
	char buf[100] = { 0 };
	int fd = open(path, O_WRONLY);
	long n;

	if (fd < 0)
		return -1;
	n = write(fd, buf, sizeof(buf));
	close(fd);
	return n;
}

static void link_target(const char *what, const char *path)
{
	char buf[256];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	if (n < 0) {
		result(what, -1);
		return;
	}
	buf[n] = 0;
	printf("%s = %s\n", what, buf);
}

/* Reads the first 4 KiB of a file, opened with FLAGS: the count, or -1 with errno. */
static long read_start(const char *path, int flags)
{
	static char buf[4096] __attribute__((aligned(4096)));
	int fd = open(path, O_RDONLY | flags);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n;
}

/*
 * Reads the 64 KiB of "partial", whose read_folio writes only "partial" at
 * byte 100 and "end" at byte 4000: the number of other bytes that are not
 * zero, or -1 with errno. Memory is first filled with a pattern and freed,
 * so that the page cache gets pages that held something.
 */
static long stale_bytes(const char *path)
{
	static char buf[65536];
	size_t churn = 8 << 20, i;
	long n, stale = 0;
	char *m = mmap(NULL, churn, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd;

	if (m != MAP_FAILED) {
		memset(m, 0x5a, churn);
		munmap(m, churn);
	}
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -1;
	for (i = 0; i < (size_t)n; i++) {
		char want = 0;

		if (i >= 100 && i < 107)
			want = "partial"[i - 100];
		else if (i >= 4000 && i < 4003)
			want = "end"[i - 4000];
		stale += buf[i] != want;
	}
	return n == sizeof(buf) ? stale : -1 - n;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "xattrs", "noaops", "owned", "inlink" };
	char path[512], buf[64];
	struct stat st;
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: [BADFS_UID=N] badfs-probe MOUNTPOINT\n");
		return 2;
	}
	if (drop_privileges_from_env("BADFS_UID", "badfs-probe") < 0)
		return 2;
#define P(name) (snprintf(path, sizeof(path), "%s/%s", argv[1], name), path)
#define GROUP(g) if (!getenv("BADFS_ONLY") || !strcmp(getenv("BADFS_ONLY"), g))
	/* Every inode comes with aligned data (the file system checks). */
	GROUP("align") for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char what[64];

		snprintf(what, sizeof(what), "lstat %s", names[i]);
		result(what, lstat(P(names[i]), &st));
	}
	/* Lengths larger than the buffer: ERANGE, and the size query works. */
	GROUP("xattr") {
		result("listxattr size", llistxattr(P("xattrs"), NULL, 0));
		result("listxattr 64", llistxattr(P("xattrs"), buf, sizeof(buf)));
		result("getxattr size", lgetxattr(P("xattrs"), "user.x", NULL, 0));
		result("getxattr 64", lgetxattr(P("xattrs"), "user.x", buf, sizeof(buf)));
	}
	/* A folio read on an inode without read_folio: EINVAL. */
	GROUP("noaops") result("lookup in noaops", lstat(P("noaops/x"), &st));
	/* An owned target in RCU walk: ECHILD inside, ref walk follows it. */
	GROUP("owned") {
		link_target("readlink owned", P("owned"));
		result("stat through owned", stat(P("owned"), &st));
		result("stat through owned again", stat(P("owned"), &st));
	}
	/*
	 * Page-cache reads (a regular file's read(2), page_get_link) on inodes
	 * without read_folio: the inodes are refused, their lookups fail.
	 */
	GROUP("noread") {
		result("lstat noread", lstat(P("noread"), &st));
		result("read noread", read_start(P("noread"), 0));
		result("lstat nolink", lstat(P("nolink"), &st));
		link_target("readlink nolink", P("nolink"));
	}
	/*
	 * Blocks on the device of a superblock without one: EIO for page-cache
	 * and direct reads (not a bio to a NULL device).
	 */
	GROUP("blocks") {
		result("read blocks", read_start(P("blocks"), 0));
		result("odirect read blocks", read_start(P("blocks"), O_DIRECT));
	}
	/* Folios only partly written by read_folio: the rest reads as zeros. */
	GROUP("partial") result("stale bytes in partial", stale_bytes(P("partial")));
	/* A new inode whose set-up failed is released: each lookup fails, none waits. */
	GROUP("failing") {
		result("lstat failing", lstat(P("failing"), &st));
		result("lstat failing again", lstat(P("failing"), &st));
	}
	/* A target borrowed from non-whitelisted inode data: copied for readlink. */
	GROUP("inlink") {
		link_target("readlink inlink", P("inlink"));
		result("stat through inlink", stat(P("inlink"), &st));
	}
	/* A target borrowed from another inode's object: copied for readlink. */
	GROUP("holder") {
		link_target("readlink holder", P("holder"));
		result("stat through holder", stat(P("holder"), &st));
	}
	/* An inode number above 32 bits: no ino32 handle (it would name inode 2). */
	GROUP("bigino") {
		struct { struct file_handle h; unsigned char f[64]; } fh;
		int mnt;

		fh.h.handle_bytes = sizeof(fh.f);
		result("handle bigino", name_to_handle_at(AT_FDCWD, P("bigino"), &fh.h, &mnt, 0));
	}
	/*
	 * FIEMAP of everything on a file whose mapper finds only holes: the
	 * length is clamped to the size, two holes, no extent (last: on a
	 * binding without the clamp it does not return).
	 */
	GROUP("holes") {
		struct { struct fiemap f; struct fiemap_extent e[4]; } m;
		int fd = open(P("holes"), O_RDONLY);

		memset(&m, 0, sizeof(m));
		m.f.fm_length = FIEMAP_MAX_OFFSET;
		m.f.fm_extent_count = 4;
		if (fd < 0 || ioctl(fd, FS_IOC_FIEMAP, &m.f) < 0)
			result("fiemap holes", -1);
		else
			result("fiemap holes", m.f.fm_mapped_extents);
		if (fd >= 0)
			close(fd);
	}
	/*
	 * Set up and read by code that forgets its new inode and its folio: both
	 * are unlocked anyway, the second lookup and read do not wait.
	 */
	/*
	 * Writes through the page cache: an inode whose address space cannot
	 * write is refused; a write_begin that prepares another length than
	 * asked gets EINVAL (and a second write the same: the folio was released).
	 */
	GROUP("write") {
		result("lstat nowrite", lstat(P("nowrite"), &st));
		result("write wrongpos", write_start(P("wrongpos")));
		result("write wrongpos again", write_start(P("wrongpos")));
	}
	GROUP("forget") {
		result("lstat forget", lstat(P("forget"), &st));
		result("lstat forget again", lstat(P("forget"), &st));
		result("read forget", read_start(P("forget"), 0));
		result("read forget again", read_start(P("forget"), 0));
	}
	return 0;
}
