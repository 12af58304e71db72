# The namespace operations of tests/host/67-ext2-rw-namespace.sh, run in the
# guest on a mounted copy of an image: python3 67-ops.py MOUNTPOINT DIRS INO.
# mkdir, rmdir, mknod, symlink and link, each with its errors; prints what
# each step leaves (inode number if INO is 1, mode, links, size, i_blocks,
# a link's target, a device's number) or its errno, and the directories in
# readdir order (with inode numbers and types), which the host compares
# between C ext2 and rust_ext2. DIRS directories are made in a spread of
# parents, then removed again. With Orlov's allocator (INO 0) the groups of
# top-level directories are random: inode numbers are not printed then.
import errno, fcntl, os, stat, struct, sys
from pairlib import run, step

mp, ndirs, show_ino = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1'


def p(name):
    return os.path.join(mp, name)


def st(name):
    try:
        s = os.lstat(p(name))
        ino = f'ino {s.st_ino} ' if show_ino else ''
        extra = ''
        if stat.S_ISLNK(s.st_mode):
            extra = f' -> {os.readlink(p(name))[:40]}...({len(os.readlink(p(name)))})'
        if stat.S_ISCHR(s.st_mode) or stat.S_ISBLK(s.st_mode):
            extra = f' dev {os.major(s.st_rdev)}:{os.minor(s.st_rdev)}'
        print(f'{name}: {ino}mode {s.st_mode:o} nlink {s.st_nlink} uid {s.st_uid} '
              f'gid {s.st_gid} size {s.st_size} blocks {s.st_blocks}{extra}')
    except OSError as e:
        print(f'{name}: {errno.errorcode.get(e.errno, e.errno)}')



def ls(d):
    def kind(e):
        return 'd' if e.is_dir(follow_symlinks=False) else 'l' if e.is_symlink() else 'f' \
            if e.is_file(follow_symlinks=False) else 's'
    with os.scandir(p(d)) as it:
        print(f'ls {d}: ' + ' '.join(
            f'{e.name}={e.inode() if show_ino else ""}{kind(e)}' for e in it))


def renameat2(old, new, flags):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(316, -100, p(old).encode(), -100, p(new).encode(), flags) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def ops():
    os.umask(0o022)
    step('mkdir a', lambda: os.mkdir(p('a')))
    st('a')
    st('.')
    step('mkdir a again', lambda: os.mkdir(p('a')))
    step('mkdir a/b 0700', lambda: os.mkdir(p('a/b'), 0o700))
    step('mkdir a/b/c', lambda: os.mkdir(p('a/b/c')))
    step('mkdir in missing', lambda: os.mkdir(p('nodir/x')))
    step('mkdir 255', lambda: os.mkdir(p('D' * 255)))
    step('mkdir 256', lambda: os.mkdir(p('D' * 256)))
    step('mkdir under a file', lambda: os.mkdir(p('f/x')))
    for n in ('a', 'a/b', 'a/b/c', 'D' * 255):
        st(n)
    ls('a')
    ls('a/b/c')
    step('rmdir a (not empty)', lambda: os.rmdir(p('a')))
    step('rmdir a/b/c', lambda: os.rmdir(p('a/b/c')))
    step('rmdir a/b/c again', lambda: os.rmdir(p('a/b/c')))
    step('rmdir a file', lambda: os.rmdir(p('f')))
    step('unlink a dir', lambda: os.unlink(p('a/b')))
    step('rmdir full (not empty)', lambda: os.rmdir(p('full')))
    st('a/b')
    st('a')
    # A directory emptied by unlinks has free records only: empty.
    for i in range(30):
        os.close(os.open(p(f'full/e{i}'), os.O_CREAT | os.O_WRONLY, 0o644))
    for e in os.listdir(p('full')):
        os.unlink(p('full/' + e))
    step('rmdir full (emptied)', lambda: os.rmdir(p('full')))
    st('full')
    # Special files.
    step('mkfifo fifo', lambda: os.mkfifo(p('a/fifo'), 0o640))
    step('mknod chr 1:3', lambda: os.mknod(p('a/chr'), 0o600 | stat.S_IFCHR, os.makedev(1, 3)))
    step('mknod blk 300:70000', lambda: os.mknod(p('a/blk'), 0o600 | stat.S_IFBLK,
                                                  os.makedev(300, 70000)))
    step('mknod sock', lambda: os.mknod(p('a/sock'), 0o755 | stat.S_IFSOCK))
    step('mknod fifo again', lambda: os.mkfifo(p('a/fifo')))
    for n in ('a/fifo', 'a/chr', 'a/blk', 'a/sock'):
        st(n)
    # Symbolic links: fast up to 59 bytes, slow from 60, none past a block.
    bs = os.statvfs(mp).f_bsize
    for n, t in (('s1', 'f'), ('s59', 'x' * 59), ('s60', 'y' * 60), ('s500', 'z/' * 250),
                 ('smax', 'm' * (bs - 1)), ('stoo', 'n' * bs), ('a/b/up', '../../f')):
        step(f'symlink {n} ({len(t)})', lambda: os.symlink(t, p(n)))
        st(n)
    step('symlink s1 again', lambda: os.symlink('g', p('s1')))
    with open(p('a/b/up'), 'rb') as f:
        print(f'through a/b/up: {len(f.read())} bytes')
    # Hard links.
    step('link f a/f2', lambda: os.link(p('f'), p('a/f2')))
    step('link f a/b/f3', lambda: os.link(p('f'), p('a/b/f3')))
    st('f')
    step('link a dir', lambda: os.link(p('a'), p('a2')))
    step('link onto a name', lambda: os.link(p('f'), p('s1')))
    step('link a symlink', lambda: os.link(p('s500'), p('a/s500')))
    step('link a fifo', lambda: os.link(p('a/fifo'), p('fifo2')))
    st('s500')
    step('unlink f', lambda: os.unlink(p('f')))
    st('a/f2')
    with open(p('a/b/f3'), 'rb') as f:
        print(f'a/b/f3: {len(f.read())} bytes')
    # Renames: files and directories, within and across directories, over
    # files and empty directories, and what the VFS or ext2 refuse.
    os.mkdir(p('r1'))
    os.mkdir(p('r1/sub'))
    os.mkdir(p('e1'))
    os.mkdir(p('full2'))
    os.mkdir(p('full2/x'))
    step('rename a/f2 a/f2r', lambda: os.rename(p('a/f2'), p('a/f2r')))
    step('rename a/f2r a/b/f4', lambda: os.rename(p('a/f2r'), p('a/b/f4')))
    step('rename s1 over s59', lambda: os.rename(p('s1'), p('s59')))
    step('rename a/b/f3 over a/b/f4 (same inode)', lambda: os.rename(p('a/b/f3'), p('a/b/f4')))
    step('rename r1/sub r1/sub2', lambda: os.rename(p('r1/sub'), p('r1/sub2')))
    st('r1')
    step('rename r1/sub2 a/sub3', lambda: os.rename(p('r1/sub2'), p('a/sub3')))
    st('r1')
    st('a')
    st('a/sub3')
    step('rename a/sub3 over e1', lambda: os.rename(p('a/sub3'), p('e1')))
    st('a')
    st('e1')
    step('rename e1 over full2', lambda: os.rename(p('e1'), p('full2')))
    step('rename e1 over a file', lambda: os.rename(p('e1'), p('s59')))
    step('rename a file over e1', lambda: os.rename(p('s59'), p('e1')))
    step('rename a into itself', lambda: os.rename(p('a'), p('a/b/a')))
    step('rename missing', lambda: os.rename(p('missing'), p('x')))
    step('rename 256', lambda: os.rename(p('s60'), p('n' * 256)))
    step('rename s60 to 255', lambda: os.rename(p('s60'), p('n' * 255)))
    step('rename fifo e1/fifo', lambda: os.rename(p('a/fifo'), p('e1/fifo')))
    step('renameat2 noreplace onto s59', lambda: renameat2('s500', 's59', 1))
    step('renameat2 noreplace to new', lambda: renameat2('s500', 's501', 1))
    step('renameat2 exchange', lambda: renameat2('s501', 's59', 2))
    step('renameat2 whiteout', lambda: renameat2('s501', 's502', 4))
    for n in ('s59', 's501', 'e1', 'e1/fifo', 'a/b/f4', 'full2', 'r1', 'n' * 255):
        st(n)
    ls('.')
    ls('e1')
    # O_TMPFILE: an unnamed file, named by linkat(2), or freed at its close.
    def tmpfile(name):
        fd = os.open(p('a'), os.O_TMPFILE | os.O_RDWR, 0o640)
        os.write(fd, b't' * 3000)
        s = os.fstat(fd)
        ino = f'ino {s.st_ino} ' if show_ino else ''
        print(f'tmpfile: {ino}mode {s.st_mode:o} nlink {s.st_nlink} size {s.st_size}')
        if name:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            # linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH)
            if libc.linkat(fd, b'', -100, p(name).encode(), 0x1000) != 0:
                e = ctypes.get_errno()
                os.close(fd)
                raise OSError(e, os.strerror(e))
        os.close(fd)
    step('tmpfile linked', lambda: tmpfile('a/tmpnamed'))
    st('a/tmpnamed')
    step('tmpfile dropped', lambda: tmpfile(None))
    # Inode flags (chattr): immutable and append-only enforced, the flags
    # users may not change kept, extended attributes refused.
    def flags(name, set_to=None):
        fd = os.open(p(name), os.O_RDONLY)
        try:
            if set_to is not None:
                fcntl.ioctl(fd, 0x40086602, struct.pack('l', set_to))
            return struct.unpack('l', fcntl.ioctl(fd, 0x80086601, struct.pack('l', 0)))[0]
        finally:
            os.close(fd)
    with open(p('a/imm'), 'wb') as f:
        f.write(b'i' * 5000)
    step('chattr +i a/imm', lambda: flags('a/imm', 0x10))
    print(f'a/imm flags {flags("a/imm"):x}')
    step('write a/imm', lambda: open(p('a/imm'), 'ab').close())
    step('unlink a/imm', lambda: os.unlink(p('a/imm')))
    step('rename a/imm', lambda: os.rename(p('a/imm'), p('a/imm2')))
    step('link a/imm', lambda: os.link(p('a/imm'), p('a/imm2')))
    step('chmod a/imm', lambda: os.chmod(p('a/imm'), 0o600))
    step('chattr -i +a a/imm', lambda: flags('a/imm', 0x20))
    step('truncate a/imm', lambda: os.truncate(p('a/imm'), 10))
    step('write a/imm (not append)', lambda: os.close(os.open(p('a/imm'), os.O_WRONLY)))
    def append():
        fd = os.open(p('a/imm'), os.O_WRONLY | os.O_APPEND)
        os.write(fd, b'more')
        os.close(fd)
    step('append a/imm', append)
    step('chattr everything a/imm', lambda: flags('a/imm', 0x7fffffff))
    print(f'a/imm flags {flags("a/imm"):x}')
    step('chattr 0 a/imm', lambda: flags('a/imm', 0))
    st('a/imm')
    step('chattr +i dir a/b', lambda: flags('a/b', 0x10))
    step('create in immutable a/b', lambda: os.close(os.open(p('a/b/new'), os.O_CREAT | os.O_WRONLY)))
    step('chattr -i dir a/b', lambda: flags('a/b', 0))
    step('chattr +D +S dir a', lambda: flags('a', 0x10008))
    print(f'a flags {flags("a"):x}')
    def fsx_projid():
        fd = os.open(p('a'), os.O_RDONLY)
        try:
            x = bytearray(fcntl.ioctl(fd, 0x801c581f, bytes(28)))
            x[12:16] = struct.pack('I', 7)
            fcntl.ioctl(fd, 0x401c5820, bytes(x))
        finally:
            os.close(fd)
    step('FS_IOC_FSSETXATTR projid', fsx_projid)
    # FS_IOC_SETVERSION and the reservation window size (EXT2_IOC_SETRSVSZ).
    def ioc(name, cmd, val=None):
        fd = os.open(p(name), os.O_RDONLY)
        try:
            r = fcntl.ioctl(fd, cmd, struct.pack('i', val or 0))
            return struct.unpack('i', r)[0]
        finally:
            os.close(fd)
    os.close(os.open(p('a/ver'), os.O_CREAT | os.O_WRONLY, 0o644))
    step('setversion a/ver', lambda: ioc('a/ver', 0x40087602, 12345))
    step('getversion a/ver', lambda: print(f'a/ver version {ioc("a/ver", 0x80087601)}'))
    step('getrsvsz a/ver (unwritten)', lambda: print(f'rsv {ioc("a/ver", 0x80086605)}'))
    step('setrsvsz a/ver 64', lambda: ioc('a/ver', 0x40086606, 64))
    step('getrsvsz a/ver', lambda: print(f'rsv {ioc("a/ver", 0x80086605)}'))
    step('setrsvsz a/ver 5000', lambda: ioc('a/ver', 0x40086606, 5000))
    step('getrsvsz a/ver', lambda: print(f'rsv {ioc("a/ver", 0x80086605)}'))
    step('setrsvsz a (dir)', lambda: ioc('a', 0x40086606, 64))
    with open(p('a/ver'), 'wb') as f:
        f.write(b'v' * 300000)
    st('a/ver')
    # An open directory removed: freed when it is closed.
    os.mkdir(p('gone'))
    fd = os.open(p('gone'), os.O_RDONLY)
    step('rmdir gone (open)', lambda: os.rmdir(p('gone')))
    print(f'gone open: nlink {os.fstat(fd).st_nlink} size {os.fstat(fd).st_size}')
    step('create in removed gone', lambda: os.close(os.open(f'/proc/self/fd/{fd}/x', os.O_CREAT | os.O_WRONLY)))
    os.close(fd)
    # Many directories in a spread of parents, a file in each, then removed.
    for i in range(ndirs):
        parent = 'a' if i % 3 == 0 else 'a/b' if i % 3 == 1 else '.'
        os.mkdir(p(f'{parent}/d{i}'))
        if i % 2:
            with open(p(f'{parent}/d{i}/data'), 'wb') as f:
                f.write(b'd' * (i * 37 % 5000))
    print(f'made {ndirs} directories')
    for n in ('d0', 'a/d0', 'a/b/d1', f'd{ndirs - 1}', 'a', 'a/b'):
        st(n)
    ls('.')
    ls('a')
    ls('a/b')
    for i in range(0, ndirs, 2):
        parent = 'a' if i % 3 == 0 else 'a/b' if i % 3 == 1 else '.'
        if os.path.exists(p(f'{parent}/d{i}/data')):
            os.unlink(p(f'{parent}/d{i}/data'))
        os.rmdir(p(f'{parent}/d{i}'))
    print(f'removed {(ndirs + 1) // 2} directories')
    for n in ('.', 'a', 'a/b'):
        st(n)
    ls('.')
    ls('a')


run(ops, mp)
