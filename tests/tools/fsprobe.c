// SPDX-License-Identifier: GPL-2.0
/*
 * fsprobe [-p PROBES] DIR: for every inode under DIR (directory order),
 * print what a reader can ask the file system beyond fswalk's walk, one line
 * per fact, so that two mounts of the same image can be diffed:
 *
 *   flags:  FS_IOC_GETFLAGS, FS_IOC_FSGETXATTR (xflags extsize nextents
 *           projid cowextsize)
 *   statx:  mask, attributes, attributes_mask, blocks, blksize
 *   seek:   the SEEK_DATA/SEEK_HOLE map (regular files, first 64 extents)
 *   mmap:   a hash of the file read through a shared mapping (first 16 MiB)
 *   eof:    read() at the size and one past it, pread() of 1 MiB at size-1
 *   access: access(R_OK/W_OK/X_OK) and open(O_RDONLY) as uid/gid 1000,
 *           as uid/gid 1001 with supplementary group 1000 and as uid 1002,
 *           gid 1003 with supplementary group 1004
 *   acl:    the system.posix_acl_access and _default attributes (hex)
 *   dirseek: directories: lseek (SET to entry and mid-entry offsets, past
 *           the end, negative; CUR, END, DATA, HOLE) and the first entry
 *           getdents then gives, with its d_off
 *   version: FS_IOC_GETVERSION
 *   fiemap: FS_IOC_FIEMAP extents (first 32)
 *   fibmap: FIBMAP of blocks 0, 1, 12 and the last
 *   odirect: an O_DIRECT read of 4 KiB at 0 and a misaligned one at 1
 *   handle: name_to_handle_at + open_by_handle_at round trip
 *   sync:   fsync() and fdatasync() (regular files and directories)
 *   lease:  F_SETLEASE F_RDLCK, F_GETLEASE, F_SETLEASE F_UNLCK on a
 *           read-only open (regular files and directories)
 *
 * PROBES is a comma-separated list (default: all); errors print as errno
 * names.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *root;
static const char *probes;

static int want(const char *p)
{
	const char *s = probes;
	size_t n = strlen(p);

	if (!s)
		return 1;
	while ((s = strstr(s, p))) {
		if ((s == probes || s[-1] == ',') && (s[n] == ',' || !s[n]))
			return 1;
		s += n;
	}
	return 0;
}

static const char *en(int e)
{
	return strerrorname_np(e) ?: "?";
}

static const char *rel(const char *path)
{
	return path + strlen(root);
}

/* FNV-1a, 64 bits: enough to tell contents apart. */
static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static void probe_flags(const char *path, int fd)
{
	unsigned int fl;
	struct fsxattr fx;

	printf("flags %s getflags=", rel(path));
	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0)
		printf("%#x", fl);
	else
		printf("%s", en(errno));
	printf(" fsx=");
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) == 0)
		printf("%#x/%u/%u/%u/%u\n", fx.fsx_xflags, fx.fsx_extsize, fx.fsx_nextents,
		       fx.fsx_projid, fx.fsx_cowextsize);
	else
		printf("%s\n", en(errno));
}

static void probe_statx(const char *path)
{
	struct statx st;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_ALL | STATX_BTIME, &st) < 0) {
		printf("statx %s %s\n", rel(path), en(errno));
		return;
	}
	printf("statx %s mask=%#x attributes=%#llx attributes_mask=%#llx blocks=%llu blksize=%u\n",
	       rel(path), st.stx_mask, (unsigned long long)st.stx_attributes,
	       (unsigned long long)st.stx_attributes_mask, (unsigned long long)st.stx_blocks,
	       st.stx_blksize);
}

static void probe_seek(const char *path, int fd, off_t size)
{
	off_t pos = 0;
	int i;

	printf("seek %s", rel(path));
	for (i = 0; i < 64 && pos < size; i++) {
		off_t d = lseek(fd, pos, SEEK_DATA), h;

		if (d < 0) {
			printf(" data@%lld=%s", (long long)pos, en(errno));
			break;
		}
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0) {
			printf(" hole@%lld=%s", (long long)d, en(errno));
			break;
		}
		printf(" %lld-%lld", (long long)d, (long long)h);
		pos = h;
	}
	printf(" hole@size=%lld\n", (long long)lseek(fd, size, SEEK_HOLE));
}

static void probe_mmap(const char *path, int fd, off_t size)
{
	size_t len = size > (16 << 20) ? (16 << 20) : size;
	unsigned char *p;

	if (!len) {
		printf("mmap %s empty\n", rel(path));
		return;
	}
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		printf("mmap %s %s\n", rel(path), en(errno));
		return;
	}
	printf("mmap %s %zu %016llx\n", rel(path), len,
	       (unsigned long long)fnv(0xcbf29ce484222325ULL, p, len));
	munmap(p, len);
}

static void probe_eof(const char *path, int fd, off_t size)
{
	static char buf[1 << 20];
	ssize_t a = pread(fd, buf, 4096, size), b = pread(fd, buf, 4096, size + 1);
	ssize_t c = size > 0 ? pread(fd, buf, sizeof(buf), size - 1) : 0;

	printf("eof %s at=%zd past=%zd last=%zd", rel(path), a, b, c);
	if (c == 1)
		printf(" byte=%02x", (unsigned char)buf[0]);
	printf("\n");
}

/*
 * As each user: the file-system ids (setfsuid/setfsgid, which also drop the
 * file capabilities of root) and the supplementary groups, then checks with
 * AT_EACCESS, which uses those ids; no fork per inode.
 */
static void probe_access(const char *path, int type)
{
	static const struct { uid_t uid; gid_t gid; gid_t extra; } who[] = {
		{ 1000, 1000, 0 }, { 1001, 1001, 1000 }, { 1002, 1003, 1004 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(who) / sizeof(who[0]); i++) {
		gid_t g[1] = { who[i].extra };
		int r, w, x, fd = -2;

		if (setgroups(who[i].extra ? 1 : 0, g) < 0) {
			printf("access %s setgroups=%s\n", rel(path), en(errno));
			return;
		}
		setfsgid(who[i].gid);
		setfsuid(who[i].uid);
		r = faccessat(AT_FDCWD, path, R_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) ? errno : 0;
		w = faccessat(AT_FDCWD, path, W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) ? errno : 0;
		x = faccessat(AT_FDCWD, path, X_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) ? errno : 0;
		if (type == DT_REG || type == DT_DIR) {
			fd = open(path, O_RDONLY | O_NOFOLLOW);
			if (fd < 0)
				fd = -errno;
			else
				close(fd), fd = 0;
		}
		setfsuid(0);
		setfsgid(0);
		setgroups(0, NULL);
		printf("access %s uid=%u r=%s w=%s x=%s", rel(path), who[i].uid,
		       r ? en(r) : "ok", w ? en(w) : "ok", x ? en(x) : "ok");
		if (fd != -2)
			printf(" open=%s", fd ? en(-fd) : "ok");
		printf("\n");
	}
}

/* lseek on a directory, then the first entry read from there. */
static void probe_dirseek(const char *path, int fd, off_t size)
{
	static const struct { off_t off; int whence; } seeks[] = {
		{ 0, SEEK_SET }, { 1, SEEK_SET }, { 12, SEEK_SET }, { 13, SEEK_SET },
		{ 24, SEEK_SET }, { 100, SEEK_SET }, { 1023, SEEK_SET }, { 1024, SEEK_SET },
		{ 4097, SEEK_SET }, { -1, SEEK_SET }, { 0, SEEK_END }, { -12, SEEK_END },
		{ 1, SEEK_END }, { 5, SEEK_CUR }, { 0, SEEK_DATA }, { 0, SEEK_HOLE },
		{ 1LL << 40, SEEK_SET },
	};
	char buf[4096];
	unsigned int i;

	for (i = 0; i < sizeof(seeks) / sizeof(seeks[0]); i++) {
		off_t r = lseek(fd, seeks[i].off, seeks[i].whence);
		long n;

		printf("dirseek %s %lld/%d:", rel(path), (long long)seeks[i].off, seeks[i].whence);
		if (r < 0) {
			printf(" %s\n", en(errno));
			lseek(fd, 0, SEEK_SET);
			continue;
		}
		n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		printf(" at=%lld", (long long)r);
		if (n < 0)
			printf(" getdents=%s", en(errno));
		else if (n == 0)
			printf(" end");
		else {
			struct linux_dirent64 {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)buf;

			printf(" first=%s d_off=%lld", d->name, (long long)d->off);
		}
		printf(" pos=%lld\n", (long long)lseek(fd, 0, SEEK_CUR));
	}
	(void)size;
}

/* The ACL attributes as the VFS serves them (from ->get_inode_acl). */
static void probe_acl(const char *path)
{
	static const char *const names[] = {
		"system.posix_acl_access", "system.posix_acl_default",
	};
	unsigned char buf[1024];
	unsigned int i;
	ssize_t n, j;

	for (i = 0; i < 2; i++) {
		printf("acl %s %s", rel(path), names[i] + 17);
		n = lgetxattr(path, names[i], buf, sizeof(buf));
		if (n < 0)
			printf(" %s", en(errno));
		else
			printf(" (%zd) ", n);
		for (j = 0; j < n; j++)
			printf("%02x", buf[j]);
		printf("\n");
	}
}

static void probe_version(const char *path, int fd)
{
	int v;

	if (ioctl(fd, FS_IOC_GETVERSION, &v) == 0)
		printf("version %s %u\n", rel(path), v);
	else
		printf("version %s %s\n", rel(path), en(errno));
}

static void probe_fiemap(const char *path, int fd)
{
	struct { struct fiemap f; struct fiemap_extent e[32]; } m;
	unsigned int i;

	memset(&m, 0, sizeof(m));
	m.f.fm_length = FIEMAP_MAX_OFFSET;
	m.f.fm_flags = FIEMAP_FLAG_SYNC;
	m.f.fm_extent_count = 32;
	if (ioctl(fd, FS_IOC_FIEMAP, &m.f) < 0) {
		printf("fiemap %s %s\n", rel(path), en(errno));
		return;
	}
	printf("fiemap %s %u", rel(path), m.f.fm_mapped_extents);
	for (i = 0; i < m.f.fm_mapped_extents && i < 32; i++)
		printf(" %llu+%llu@%llu/%#x", (unsigned long long)m.e[i].fe_logical,
		       (unsigned long long)m.e[i].fe_length, (unsigned long long)m.e[i].fe_physical,
		       m.e[i].fe_flags);
	printf("\n");
}

static void probe_fibmap(const char *path, int fd, off_t size, long bs)
{
	int blocks[4] = { 0, 1, 12, size > 0 ? (int)((size - 1) / bs) : 0 };
	unsigned int i;

	printf("fibmap %s", rel(path));
	for (i = 0; i < 4; i++) {
		int b = blocks[i];

		if (ioctl(fd, FIBMAP, &b) == 0)
			printf(" %d=%d", blocks[i], b);
		else
			printf(" %d=%s", blocks[i], en(errno));
	}
	printf("\n");
}

static void probe_odirect(const char *path)
{
	void *buf;
	int fd = open(path, O_RDONLY | O_DIRECT);
	ssize_t a, b;

	if (fd < 0) {
		printf("odirect %s open=%s\n", rel(path), en(errno));
		return;
	}
	if (posix_memalign(&buf, 4096, 8192)) {
		close(fd);
		return;
	}
	a = pread(fd, buf, 4096, 0);
	printf("odirect %s aligned=%zd", rel(path), a < 0 ? (ssize_t)-errno : a);
	if (a > 0)
		printf(" %016llx", (unsigned long long)fnv(0xcbf29ce484222325ULL, buf, a));
	b = pread(fd, (char *)buf + 1, 4096, 1);
	printf(" misaligned=%s\n", b < 0 ? en(errno) : "ok");
	free(buf);
	close(fd);
}

static void probe_handle(const char *path)
{
	struct { struct file_handle h; unsigned char b[128]; } fh;
	int mnt, fd;
	struct stat a, b;

	fh.h.handle_bytes = 128;
	if (name_to_handle_at(AT_FDCWD, path, &fh.h, &mnt, 0) < 0) {
		printf("handle %s %s\n", rel(path), en(errno));
		return;
	}
	printf("handle %s type=%d ", rel(path), fh.h.handle_type);
	for (unsigned int i = 0; i < fh.h.handle_bytes && i < sizeof(fh.b); i++)
		printf("%02x", ((unsigned char *)&fh.h + sizeof(fh.h))[i]);
	fd = open(root, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		printf(" mountfd=%s\n", en(errno));
		return;
	}
	mnt = open_by_handle_at(fd, &fh.h, O_PATH);
	close(fd);
	if (mnt < 0) {
		printf(" open=%s\n", en(errno));
		return;
	}
	fstat(mnt, &a);
	lstat(path, &b);
	printf(" same=%d\n", a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	close(mnt);
}

static void probe_sync(const char *path, int fd)
{
	int a = fsync(fd), b;

	a = a < 0 ? errno : 0;
	b = fdatasync(fd) < 0 ? errno : 0;
	printf("sync %s fsync=%s fdatasync=%s\n", rel(path), a ? en(a) : "ok",
	       b ? en(b) : "ok");
}

static void probe_lease(const char *path)
{
	int fd = open(path, O_RDONLY), r;

	if (fd < 0) {
		printf("lease %s open=%s\n", rel(path), en(errno));
		return;
	}
	printf("lease %s set=%s", rel(path), fcntl(fd, F_SETLEASE, F_RDLCK) < 0 ? en(errno) : "ok");
	r = fcntl(fd, F_GETLEASE);
	printf(" get=%s", r < 0 ? en(errno) : r == F_RDLCK ? "rdlck" : r == F_UNLCK ? "unlck" : "other");
	printf(" unlock=%s\n", fcntl(fd, F_SETLEASE, F_UNLCK) < 0 ? en(errno) : "ok");
	close(fd);
}

static void probe(const char *path, int type)
{
	struct stat st;
	int fd = -1;

	if (want("statx"))
		probe_statx(path);
	if (want("access"))
		probe_access(path, type);
	if (want("acl"))
		probe_acl(path);
	if (want("handle"))
		probe_handle(path);
	if (type != DT_REG && type != DT_DIR)
		return;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("open %s %s\n", rel(path), en(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (want("flags"))
		probe_flags(path, fd);
	if (want("version"))
		probe_version(path, fd);
	if (want("sync"))
		probe_sync(path, fd);
	if (want("lease"))
		probe_lease(path);
	if (type == DT_DIR && want("dirseek"))
		probe_dirseek(path, fd, st.st_size);
	if (type == DT_REG) {
		if (want("seek"))
			probe_seek(path, fd, st.st_size);
		if (want("mmap"))
			probe_mmap(path, fd, st.st_size);
		if (want("eof"))
			probe_eof(path, fd, st.st_size);
		if (want("fiemap"))
			probe_fiemap(path, fd);
		if (want("fibmap"))
			probe_fibmap(path, fd, st.st_size, st.st_blksize);
		if (want("odirect"))
			probe_odirect(path);
	}
	close(fd);
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		printf("opendir %s %s\n", rel(dir), en(errno));
		return;
	}
	while ((e = readdir(d))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			break;
		probe(p, e->d_type);
		if (e->d_type == DT_DIR)
			walk(p);
		free(p);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "p:")) != -1) {
		if (opt == 'p') {
			probes = optarg;
		} else {
			fprintf(stderr, "usage: fsprobe [-p PROBES] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: fsprobe [-p PROBES] DIR\n");
		return 2;
	}
	root = argv[optind];
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	probe(root, DT_DIR);
	walk(root);
	return 0;
}
