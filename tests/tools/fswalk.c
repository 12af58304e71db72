// SPDX-License-Identifier: GPL-2.0
/*
 * fswalk DIR: print everything a user can observe of the tree under DIR,
 * one line per fact, in a stable order (directory order as getdents64
 * returns it), so that two mounts of the same image can be diffed.
 *
 *   statfs:  f_type f_bsize f_blocks f_bfree f_bavail f_files f_ffree f_namelen f_fsid
 *   dirent:  path, d_ino, d_type, d_off  (getdents64 with a small buffer)
 *   seekdir: a listing resumed at a saved d_off matches the full listing
 *   stat:    ino mode uid gid size blocks nlink atime mtime ctime rdev
 *   link:    readlink target
 *   data:    SHA-256 of the contents (files over 16 MiB: of 64 KiB windows at
 *            multiples of a power-of-two step of at least 16 MiB, at most 64
 *            of them, and of the last 64 KiB; marked "sampled")
 *   xattr:   listxattr order, name=hex value
 *   err:     any failing call, with its errno name
 *
 * fswalk -m DEV FSTYPE DIR: mount DEV read-only on DIR first (printing
 * "mount-err ERRNO" and stopping if that fails), walk, then unmount.
 *
 * fswalk -w DEV FSTYPE DIR OPTIONS: mount DEV read-write with OPTIONS (such
 * as errors=continue) and write while walking: in each directory (the first
 * 64) a new file is created, written (two blocks, one past 80 KiB), cut,
 * synced and unlinked, a directory made with a file, links, a fifo and an
 * attribute in it, renamed, and all removed again; the first 4 regular files
 * are appended to, cut to half, given an attribute, renamed and renamed
 * back; the first of them is unlinked. Failures are "err" lines;
 * "mode ro" says the mount became read-only.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "privs.h"

static const char *root;
static int dirent_buf = 80;
static int write_mode, dirs_written;

static void err(const char *what, const char *path)
{
	printf("err %s %s %s\n", what, path + strlen(root), strerrorname_np(errno) ?: "?");
}

/* SHA-256 (FIPS 180-4). */
struct sha { uint32_t h[8]; uint8_t buf[64]; uint64_t len; size_t n; };
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
static void sha_block(struct sha *s, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | p[4 * i + 1] << 16 | p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}
static void sha_init(struct sha *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->n = 0;
}
static void sha_update(struct sha *s, const uint8_t *p, size_t len)
{
	s->len += len;
	while (len) {
		size_t k = 64 - s->n < len ? 64 - s->n : len;

		if (s->n == 0 && len >= 64) {
			sha_block(s, p);
			p += 64;
			len -= 64;
			continue;
		}
		memcpy(s->buf + s->n, p, k);
		s->n += k; p += k; len -= k;
		if (s->n == 64) {
			sha_block(s, s->buf);
			s->n = 0;
		}
	}
}
static void sha_final(struct sha *s, char out[65])
{
	uint64_t bits = s->len * 8;
	uint8_t pad = 0x80, z = 0, l[8];
	int i;

	sha_update(s, &pad, 1);
	while (s->n != 56)
		sha_update(s, &z, 1);
	for (i = 0; i < 8; i++)
		l[i] = bits >> (56 - 8 * i);
	sha_update(s, l, 8);
	for (i = 0; i < 8; i++)
		sprintf(out + 8 * i, "%08x", s->h[i]);
}

#define SAMPLE_LIMIT (16ULL << 20)
#define WINDOW (64 << 10)

static void data(const char *path, off_t size)
{
	static uint8_t buf[1 << 20];
	struct sha s;
	char hex[65];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return err("open", path);
	sha_init(&s);
	if ((uint64_t)size <= SAMPLE_LIMIT) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			sha_update(&s, buf, n);
		if (n < 0)
			err("read", path);
		sha_final(&s, hex);
		printf("data %s %s\n", path + strlen(root), hex);
	} else {
		/* 64 KiB windows at multiples of a power-of-two step (at least
		 * 16 MiB, at most 64 windows), and the last 64 KiB. */
		uint64_t step = SAMPLE_LIMIT, off;

		while (step < (uint64_t)size / 64)
			step <<= 1;
		for (off = 0;; off += step) {
			int last = off + WINDOW >= (uint64_t)size;

			if (last)
				off = size > WINDOW ? size - WINDOW : 0;
			n = pread(fd, buf, WINDOW, off);
			if (n < 0) {
				err("pread", path);
				break;
			}
			sha_update(&s, buf, n);
			if (last)
				break;
		}
		sha_final(&s, hex);
		printf("data %s sampled %s\n", path + strlen(root), hex);
	}
	close(fd);
}

static void xattrs(const char *path)
{
	char names[65536], val[65536];
	ssize_t len = llistxattr(path, names, sizeof(names)), v, i;
	char *n;

	if (len < 0)
		return err("listxattr", path);
	for (n = names; n < names + len; n += strlen(n) + 1) {
		printf("xattr %s %s=", path + strlen(root), n);
		v = lgetxattr(path, n, val, sizeof(val));
		if (v < 0) {
			printf("ERR %s\n", strerrorname_np(errno));
			continue;
		}
		for (i = 0; i < v; i++)
			printf("%02x", (unsigned char)val[i]);
		printf("\n");
	}
}

static void inode(const char *path)
{
	struct stat st;
	char target[8192];
	ssize_t n;

	if (lstat(path, &st) < 0)
		return err("lstat", path);
	printf("stat %s ino=%llu mode=%o uid=%u gid=%u size=%lld blocks=%lld nlink=%lu atime=%lld.%09ld mtime=%lld.%09ld ctime=%lld.%09ld rdev=%u:%u\n",
	       path + strlen(root), (unsigned long long)st.st_ino, st.st_mode, st.st_uid, st.st_gid,
	       (long long)st.st_size, (long long)st.st_blocks, (unsigned long)st.st_nlink,
	       (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec, (long long)st.st_mtim.tv_sec,
	       st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
	       major(st.st_rdev), minor(st.st_rdev));
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			err("readlink", path);
		else
			printf("link %s %.*s\n", path + strlen(root), (int)n, target);
	} else if (S_ISREG(st.st_mode) && !getenv("FSWALK_NODATA")) {
		data(path, st.st_size);
	}
	xattrs(path);
}

struct ent { unsigned long long ino; long long off; unsigned char type; char name[256]; };

/* All entries of directory fd, read with a getdents64 buffer of `bufsz` bytes. */
static int list(int fd, struct ent **out, int bufsz, long long stop_after, long long *resume)
{
	char *buf = malloc(bufsz);
	int n = 0, cap = 64;
	struct ent *e = malloc(cap * sizeof(*e));
	long nread, pos;

	for (;;) {
		nread = syscall(SYS_getdents64, fd, buf, bufsz);
		if (nread < 0 && errno == EINVAL && bufsz < 4096) {
			/* The next entry does not fit (a long name): a bigger buffer. */
			bufsz *= 2;
			buf = realloc(buf, bufsz);
			continue;
		}
		if (nread < 0) {
			free(buf);
			*out = e;
			return -1;
		}
		if (nread == 0)
			break;
		for (pos = 0; pos < nread;) {
			struct dirent64 *d = (struct dirent64 *)(buf + pos);

			if (n == cap)
				e = realloc(e, (cap *= 2) * sizeof(*e));
			e[n].ino = d->d_ino;
			e[n].off = d->d_off;
			e[n].type = d->d_type;
			snprintf(e[n].name, sizeof(e[n].name), "%s", d->d_name);
			n++;
			pos += d->d_reclen;
			if (stop_after >= 0 && n == stop_after) {
				*resume = d->d_off;
				free(buf);
				*out = e;
				return n;
			}
		}
	}
	free(buf);
	*out = e;
	return n;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

/* -w: a new file in directory `path`, written, cut, synced and unlinked. */
static void write_new(const char *path)
{
	static char buf[8192];
	char name[8192];
	int fd;

	snprintf(name, sizeof(name), "%s/.fswalk-new", path);
	memset(buf, 0xa5, sizeof(buf));
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return err("create", name);
	if (pwrite(fd, buf, sizeof(buf), 0) < 0)
		err("write", name);
	if (pwrite(fd, buf, 100, 80 << 10) < 0)
		err("write-far", name);
	if (ftruncate(fd, 3000) < 0)
		err("truncate", name);
	if (fsync(fd) < 0)
		err("fsync", name);
	close(fd);
	if (unlink(name) < 0)
		err("unlink", name);
}

/* -w: the namespace in directory `path`: a directory made, a file created in
 * it with an attribute, renamed within it, linked, moved up to `path`, fast
 * and slow symbolic links and a fifo beside it, then all removed again. */
static void write_ns(const char *path)
{
	static char target[600];
	char d[8192], a[8300], b[8300], c[8300], l1[8300], l2[8300], f[8300];
	int fd;

	snprintf(d, sizeof(d), "%s/.fswalk-dir", path);
	snprintf(a, sizeof(a), "%s/a", d);
	snprintf(b, sizeof(b), "%s/b", d);
	snprintf(c, sizeof(c), "%s/.fswalk-moved", path);
	snprintf(l1, sizeof(l1), "%s/l1", d);
	snprintf(l2, sizeof(l2), "%s/l2", d);
	snprintf(f, sizeof(f), "%s/fifo", d);
	memset(target, 't', sizeof(target) - 1);
	if (mkdir(d, 0755) < 0)
		return err("mkdir", d);
	fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		err("create", a);
	} else {
		if (write(fd, "x", 1) < 0)
			err("write", a);
		close(fd);
	}
	if (setxattr(a, "user.fswalk", "value", 5, 0) < 0)
		err("setxattr", a);
	if (rename(a, b) < 0)
		err("rename", a);
	if (link(b, a) < 0)
		err("link", b);
	if (rename(b, c) < 0)
		err("rename-up", b);
	if (symlink("short", l1) < 0)
		err("symlink", l1);
	if (symlink(target, l2) < 0)
		err("symlink-slow", l2);
	if (mknod(f, S_IFIFO | 0644, 0) < 0)
		err("mknod", f);
	if (removexattr(a, "user.fswalk") < 0)
		err("removexattr", a);
	if (unlink(a) < 0)
		err("unlink", a);
	if (unlink(l1) < 0)
		err("unlink", l1);
	if (unlink(l2) < 0)
		err("unlink", l2);
	if (unlink(f) < 0)
		err("unlink", f);
	if (rmdir(d) < 0)
		err("rmdir", d);
	if (unlink(c) < 0)
		err("unlink", c);
}

/* -w: regular file `path` of size `size` appended to and cut to half. */
static void write_old(const char *path, off_t size)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return err("open-w", path);
	if (pwrite(fd, "appended by fswalk\n", 19, size) < 0)
		err("append", path);
	if (ftruncate(fd, size / 2) < 0)
		err("truncate", path);
	close(fd);
}

static void walk(const char *path)
{
	struct ent *e, *part, *rest;
	int fd = open(path, O_RDONLY | O_DIRECTORY), n, i, k, m;
	long long resume = 0;
	char child[8192];

	if (fd < 0)
		return err("opendir", path);
	n = list(fd, &e, dirent_buf, -1, NULL);
	if (n < 0) {
		err("getdents64", path);
		n = 0;
	}
	for (i = 0; i < n; i++)
		printf("dirent %s/%s ino=%llu type=%u off=%lld\n", path + strlen(root), e[i].name,
		       e[i].ino, e[i].type, e[i].off);
	/* telldir/seekdir: stop halfway, seek to the saved offset, read the rest. */
	if (n > 2) {
		int ok = 1;

		k = n / 2;
		lseek(fd, 0, SEEK_SET);
		if (list(fd, &part, 4096, k, &resume) != k)
			ok = 0;
		free(part);
		lseek(fd, resume, SEEK_SET);
		m = list(fd, &rest, 4096, -1, NULL);
		if (m != n - k)
			ok = 0;
		for (i = 0; ok && i < m; i++)
			if (strcmp(rest[i].name, e[k + i].name) || rest[i].ino != e[k + i].ino)
				ok = 0;
		free(rest);
		printf("seekdir %s %s\n", path + strlen(root), ok ? "ok" : "MISMATCH");
	}
	close(fd);
	/* Recurse in name order, so the output does not depend on hash order. */
	qsort(e, n, sizeof(*e), cmp_name);
	int files = 0, writing = write_mode && dirs_written++ < 64;

	if (writing) {
		write_new(path);
		write_ns(path);
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!strcmp(e[i].name, ".") || !strcmp(e[i].name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, e[i].name);
		inode(child);
		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			walk(child);
		else if (writing && S_ISREG(st.st_mode) && files < 4) {
			char moved[8300];

			write_old(child, st.st_size);
			if (setxattr(child, "user.fswalk", "old", 3, 0) < 0)
				err("setxattr", child);
			snprintf(moved, sizeof(moved), "%s.fswalk", child);
			if (rename(child, moved) < 0 || rename(moved, child) < 0)
				err("rename", child);
			if (files++ == 0 && unlink(child) < 0)
				err("unlink", child);
		}
	}
	free(e);
}

int main(int argc, char **argv)
{
	struct statfs sf;
	int do_mount = argc > 4 && !strcmp(argv[1], "-m");

	write_mode = argc > 5 && !strcmp(argv[1], "-w");
	if (do_mount || write_mode) {
		if (mount(argv[2], argv[4], argv[3], write_mode ? 0 : MS_RDONLY,
			  write_mode ? argv[5] : NULL) < 0) {
			printf("mount-err %s\n", strerrorname_np(errno) ?: "?");
			return 0;
		}
		printf("mount ok\n");
		argv += 3;
		argc -= 3;
		if (write_mode) {
			/* OPTIONS dropped: DIR [GETDENTS_BUFSIZE] follow. */
			argv[2] = argv[1];
			argv++;
			argc--;
		}
	}
	if (argc < 2) {
		fprintf(stderr, "usage: [FSWALK_UID=N] [FSWALK_NODATA=1] fswalk [-m DEV FSTYPE | -w DEV FSTYPE] DIR [OPTIONS] [GETDENTS_BUFSIZE]\n");
		return 2;
	}
	/* FSWALK_UID: walk as that (unprivileged) user and group, no groups. */
	if (drop_privileges_from_env("FSWALK_UID", "fswalk") < 0)
		return 2;
	root = argv[1];
	if (argc > 2)
		dirent_buf = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (statfs(root, &sf) < 0)
		err("statfs", root);
	else
		printf("statfs type=%lx bsize=%ld blocks=%llu bfree=%llu bavail=%llu files=%llu ffree=%llu namelen=%ld fsid=%x:%x\n",
		       (long)sf.f_type, (long)sf.f_bsize, (unsigned long long)sf.f_blocks,
		       (unsigned long long)sf.f_bfree, (unsigned long long)sf.f_bavail,
		       (unsigned long long)sf.f_files, (unsigned long long)sf.f_ffree,
		       (long)sf.f_namelen, sf.f_fsid.__val[0], sf.f_fsid.__val[1]);
	inode(root);
	walk(root);
	fflush(stdout);
	if (write_mode && statfs(root, &sf) == 0 && (sf.f_flags & ST_RDONLY))
		printf("mode ro\n");
	fflush(stdout);
	if ((do_mount || write_mode) && umount2(root, 0) < 0)
		printf("umount-err %s\n", strerrorname_np(errno) ?: "?");
	return 0;
}
