# The create/unlink operations of tests/host/66-ext2-rw-create.sh, run in the
# guest on a mounted copy of an image: python3 66-ops.py MOUNTPOINT MANY.
# Prints what each step leaves (inode number, mode, links, size, i_blocks) or
# its errno, and the directories in readdir order with inode numbers, which
# the host compares between C ext2 and rust_ext2. Block placement depends on
# the writer's pid (ext2_find_near's colour, pid % 16): the steps run in a
# process whose pid is 0 mod 16, on both drivers.
import errno, os, sys
from pairlib import ls as pairlib_ls, run, step

mp, many = sys.argv[1], int(sys.argv[2])


def p(name):
    return os.path.join(mp, name)


def st(name):
    try:
        s = os.lstat(p(name))
        print(f'{name}: ino {s.st_ino} mode {s.st_mode:o} nlink {s.st_nlink} uid {s.st_uid} '
              f'gid {s.st_gid} size {s.st_size} blocks {s.st_blocks}')
    except OSError as e:
        print(f'{name}: {errno.errorcode.get(e.errno, e.errno)}')



def create(name, mode=0o666, data=b'', excl=True):
    fl = os.O_CREAT | os.O_WRONLY | (os.O_EXCL if excl else 0)
    fd = os.open(p(name), fl, mode)
    try:
        if data:
            os.write(fd, data)
    finally:
        os.close(fd)


def ls(d):
    pairlib_ls(mp, d)


def ops():
    os.umask(0o022)
    step('create a', lambda: create('a'))
    st('a')
    step('create a excl again', lambda: create('a'))
    step('create a again', lambda: create('a', excl=False))
    step('create b 10k', lambda: create('b', 0o640, os.urandom(1) * 10000))
    st('b')
    step('create d/c 100k', lambda: create('d/c', 0o600, b'c' * 100000))
    st('d/c')
    step('unlink keep', lambda: os.unlink(p('keep')))
    st('keep')
    step('unlink hard', lambda: os.unlink(p('hard')))
    st('hard2')
    step('unlink xf', lambda: os.unlink(p('xf')))
    step('unlink missing', lambda: os.unlink(p('missing')))
    step('unlink d', lambda: os.unlink(p('d')))
    step('create in missing dir', lambda: create('nodir/x'))
    step('create 255', lambda: create('n' * 255))
    st('n' * 255)
    step('create 256', lambda: create('n' * 256))
    # An open file unlinked: freed when it is closed (evicted).
    def open_unlinked():
        fd = os.open(p('tmp'), os.O_CREAT | os.O_RDWR, 0o644)
        os.write(fd, b't' * 50000)
        os.unlink(p('tmp'))
        os.write(fd, b'u' * 50000)
        os.fsync(fd)
        print(f'tmp open: nlink {os.fstat(fd).st_nlink} size {os.fstat(fd).st_size}')
        os.close(fd)
    step('open, unlink, write, close tmp', open_unlinked)
    st('tmp')
    # A directory that grows over several blocks and pages, then entries
    # removed and added again in the holes.
    for i in range(400):
        create(f'd/f{i:03d}' + 'x' * (i % 37), data=b'z' * (i % 3) * 700)
    print('created 400 in d')
    st('d')
    ls('d')
    for i in range(0, 400, 2):
        os.unlink(p(f'd/f{i:03d}' + 'x' * (i % 37)))
    print('unlinked 200 in d')
    for i in range(100):
        create(f'd/g{i:03d}' + 'y' * (i % 11))
    print('created 100 more in d')
    st('d')
    ls('d')
    for e in sorted(os.listdir(p('d'))):
        if e != 'c':
            os.unlink(p('d/' + e))
    print('emptied d')
    ls('d')
    # Many files created, written a little, and removed.
    for i in range(many):
        create(f'm{i}', data=b'm' if i % 2 else b'')
    print(f'created {many}')
    st('m0')
    st(f'm{many - 1}')
    for i in range(many):
        os.unlink(p(f'm{i}'))
    print(f'unlinked {many}')
    ls('.')
    ls('d')
    for n in ('a', 'b', 'd/c', 'hard2'):
        st(n)


run(ops, mp)
