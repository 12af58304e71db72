# The creates of tests/host/69-ext2-rw-security.sh, run in the guest (booted
# with lsm=smack) on a mounted copy of an image: python3 69-ops.py MOUNTPOINT.
# Every new inode gets the Smack label of the task that creates it as
# security.SMACK64, which the file system stores when it creates the inode
# (ext2_init_security). Prints each step's result and what it left (inode
# number, mode, i_blocks, the attribute names the file system lists); the
# values on disk are compared after the unmount. Runs in a process whose pid
# is 0 mod 16 (block placement, see pairlib.fork16).
import errno, os, stat, sys
from pairlib import ls, run, step

mp = sys.argv[1]


def p(name):
    return os.path.join(mp, name)


def label(lbl):
    """The task's Smack label (root has CAP_MAC_ADMIN): new inodes get it."""
    with open('/proc/self/attr/current', 'w') as f:
        f.write(lbl)


def st(name):
    try:
        s = os.lstat(p(name))
        names = sorted(os.listxattr(p(name), follow_symlinks=False))
        print(f'{name}: ino {s.st_ino} mode {s.st_mode:o} nlink {s.st_nlink} '
              f'blocks {s.st_blocks} xattrs {" ".join(names)}')
    except OSError as e:
        print(f'{name}: {errno.errorcode.get(e.errno, e.errno)}')


def create(name, mode=0o644):
    os.close(os.open(p(name), os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode))


def tmpfile(dirname, name):
    fd = os.open(p(dirname), os.O_TMPFILE | os.O_WRONLY, 0o600)
    try:
        os.write(fd, b't' * 3000)
        # linkat(/proc/self, "fd/N", AT_FDCWD, name, AT_SYMLINK_FOLLOW): os.link
        # without a directory fd calls link(2), which does not follow.
        proc = os.open('/proc/self', os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.link(f'fd/{fd}', p(name), src_dir_fd=proc, follow_symlinks=True)
        finally:
            os.close(proc)
    finally:
        os.close(fd)


def fill():
    """Writes a file until the file system is full (ENOSPC is the end)."""
    fd = os.open(p('big'), os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        while True:
            os.write(fd, b'b' * 65536)
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)


def ops():
    with open('/proc/self/attr/current') as f:
        print(f'task label: {f.read().strip(chr(0))}')
    names = []
    # Every kind of inode, with the floor label "_": one shared block.
    for what, name, f in (
        ('create', 'f1', lambda: create('f1')),
        ('mkdir', 'd1', lambda: os.mkdir(p('d1'), 0o755)),
        ('mkfifo', 'fifo', lambda: os.mkfifo(p('fifo'), 0o644)),
        ('mknod', 'chr', lambda: os.mknod(p('chr'), 0o644 | stat.S_IFCHR, os.makedev(1, 3))),
        ('symlink fast', 'ln', lambda: os.symlink('f1', p('ln'))),
        ('symlink slow', 'lnslow', lambda: os.symlink('x' * 300, p('lnslow'))),
        ('tmpfile', 'd1/tmp', lambda: tmpfile('d1', 'd1/tmp')),
        ('create in d1', 'd1/f2', lambda: create('d1/f2')),
    ):
        step(f'{what} {name}', f)
        names.append(name)
    step('link f1', lambda: os.link(p('f1'), p('f1link')))
    # Another label: another block, shared by the inodes created with it.
    label('lbl1')
    for name in ('g1', 'g2'):
        step(f'create {name} as lbl1', lambda: create(name))
        names.append(name)
    step('mkdir d2 as lbl1', lambda: os.mkdir(p('d2')))
    step('create d2/g3 as lbl1', lambda: create('d2/g3'))
    names += ['d2', 'd2/g3']
    label('_')
    # A user. attribute on a file whose block is shared: the block is cloned.
    step('setxattr f1 user.a', lambda: os.setxattr(p('f1'), 'user.a', b'v'))
    for i in range(30):
        create(f'm{i}')
    print('created 30 as _')
    names += ['m0', 'm29']
    # Full: a label that has no block yet needs one and fails as C fails;
    # the floor label's shared block still serves.
    step('fill', fill)
    label('lbl2')
    step('create h1 as lbl2 on a full fs', lambda: create('h1'))
    step('mkdir h2 as lbl2 on a full fs', lambda: os.mkdir(p('h2')))
    label('_')
    step('create h3 as _ on a full fs', lambda: create('h3'))
    step('unlink big', lambda: os.unlink(p('big')))
    label('lbl2')
    step('create h4 as lbl2', lambda: create('h4'))
    label('_')
    names += ['h1', 'h2', 'h3', 'h4', 'f1link']
    for n in names:
        st(n)
    for d in ('.', 'd1', 'd2'):
        ls(mp, d)


run(ops, mp)
