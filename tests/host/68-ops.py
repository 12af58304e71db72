# The extended attribute operations of tests/host/68-ext2-rw-xattr.sh, run
# in the guest on a mounted copy of an image: python3 68-ops.py MOUNTPOINT
# SHARED. Sets, replaces and removes attributes of the user., trusted. and
# security. namespaces (CREATE/REPLACE flags, sizes that fit in place or not,
# a full block, names and values too long), on files, a directory, a device
# and a symbolic link; SHARED files get the same attributes (ext2 shares one
# block between them, up to 1024 users). Prints each step's result (errno)
# and each file's attributes in listxattr order with their values and its
# i_blocks, which the host compares between C ext2 and rust_ext2.
import errno, os, stat, struct, sys
from pairlib import run, step

mp, shared = sys.argv[1], int(sys.argv[2])


def p(name):
    return os.path.join(mp, name)



def show(name):
    try:
        s = os.lstat(p(name))
        names = os.listxattr(p(name), follow_symlinks=False)
        vals = []
        for n in names:
            try:
                v = os.getxattr(p(name), n, follow_symlinks=False)
                vals.append(f'{n}={v[:24]!r}({len(v)})')
            except OSError as e:
                vals.append(f'{n}:{errno.errorcode.get(e.errno, e.errno)}')
        print(f'{name}: blocks {s.st_blocks} ' + ' '.join(vals))
    except OSError as e:
        print(f'{name}: {errno.errorcode.get(e.errno, e.errno)}')


def ops():
    os.umask(0o022)
    for n in ('f1', 'f2', 'f3', 'big'):
        with open(p(n), 'wb') as f:
            f.write(b'x' * 3000)
    bs = os.statvfs(mp).f_bsize
    sx = os.setxattr
    step('set f1 user.a', lambda: sx(p('f1'), 'user.a', b'1'))
    step('set f1 user.b', lambda: sx(p('f1'), 'user.b', b'two'))
    show('f1')
    step('set f2 user.a, user.b (same as f1: shared)', lambda: (
        sx(p('f2'), 'user.a', b'1'), sx(p('f2'), 'user.b', b'two')))
    show('f2')
    step('create f1 user.a', lambda: sx(p('f1'), 'user.a', b'9', os.XATTR_CREATE))
    step('replace f1 user.zz', lambda: sx(p('f1'), 'user.zz', b'9', os.XATTR_REPLACE))
    step('replace f1 user.a (same size)', lambda: sx(p('f1'), 'user.a', b'3', os.XATTR_REPLACE))
    show('f1')
    show('f2')
    step('set f1 user.a longer', lambda: sx(p('f1'), 'user.a', b'a much longer value' * 3))
    step('set f1 user.0 empty', lambda: sx(p('f1'), 'user.0', b''))
    step('set f1 trusted.t', lambda: sx(p('f1'), 'trusted.t', b'trusted value'))
    step('set f1 security.s', lambda: sx(p('f1'), 'security.s', b'sec'))
    step('set f1 user.\xe9t\xe9 (high bytes)', lambda: sx(p('f1'), 'user.\xe9t\xe9', b'\xff\x00\x80'))
    show('f1')
    step('remove f1 user.b', lambda: os.removexattr(p('f1'), 'user.b'))
    step('remove f1 user.b again', lambda: os.removexattr(p('f1'), 'user.b'))
    step('remove f3 user.none (no block)', lambda: os.removexattr(p('f3'), 'user.none'))
    show('f1')
    step('name 255', lambda: sx(p('f3'), 'user.' + 'n' * 250, b'v'))
    step('name 256', lambda: sx(p('f3'), 'user.' + 'n' * 251, b'v'))
    step('value of a block', lambda: sx(p('f3'), 'user.big', b'b' * bs))
    step('value of a block less the header', lambda: sx(p('f3'), 'user.big', b'b' * (bs - 64)))
    show('f3')
    # The block filled up.
    i = 0
    def fill():
        nonlocal i
        while True:
            sx(p('big'), f'user.fill{i:04d}', b'v' * (i % 50))
            i += 1
    step('fill big', fill)
    print(f'big: {i} attributes')
    show('big')
    for k in range(0, i, 3):
        os.removexattr(p('big'), f'user.fill{k:04d}')
    step('refill big', lambda: sx(p('big'), 'user.again', b'w' * 100))
    show('big')
    for n in os.listxattr(p('big')):
        os.removexattr(p('big'), n)
    show('big')
    # Other kinds of inodes.
    os.mkdir(p('d'))
    os.mknod(p('dev'), 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    os.symlink('f1', p('ln'))
    step('set d user.x', lambda: sx(p('d'), 'user.x', b'dir'))
    step('set dev user.x', lambda: sx(p('dev'), 'user.x', b'dev'))
    step('set dev trusted.x', lambda: sx(p('dev'), 'trusted.x', b'dev'))
    step('set ln user.x', lambda: sx(p('ln'), 'user.x', b'ln', follow_symlinks=False))
    step('set ln trusted.x', lambda: sx(p('ln'), 'trusted.x', b'ln', follow_symlinks=False))
    for n in ('d', 'dev', 'ln'):
        show(n)
    # Many files with the same attributes share blocks, 1024 users each.
    for k in range(shared):
        with open(p(f's{k}'), 'wb') as f:
            f.write(b's')
        sx(p(f's{k}'), 'user.same', b'shared value')
    print(f'{shared} files with one attribute')
    for n in ('s0', f's{shared - 1}'):
        show(n)
    # POSIX ACLs (system.posix_acl_*, as setfacl writes them): access ACLs
    # that change the mode or are dropped for it, default ACLs inherited by
    # new files and directories, chmod updating the mask.
    def acl(*entries):
        b = struct.pack('<I', 2)
        for tag, perm, ident in entries:
            b += struct.pack('<HHI', tag, perm, ident)
        return b
    UO, U, GO, G, M, O, NOID = 1, 2, 4, 8, 0x10, 0x20, 0xffffffff
    named = acl((UO, 6, NOID), (U, 6, 1000), (GO, 4, NOID), (G, 5, 2000), (M, 7, NOID), (O, 0, NOID))
    plain = acl((UO, 7, NOID), (GO, 5, NOID), (O, 4, NOID))
    def showacl(name):
        s = os.lstat(p(name))
        out = []
        for n in ('system.posix_acl_access', 'system.posix_acl_default'):
            try:
                out.append(f'{n[18:]}={os.getxattr(p(name), n).hex()}')
            except OSError as e:
                out.append(f'{n[18:]}:{errno.errorcode.get(e.errno, e.errno)}')
        print(f'{name}: mode {s.st_mode:o} blocks {s.st_blocks} ' + ' '.join(out))
    with open(p('af'), 'wb') as f:
        f.write(b'a')
    step('setfacl af named', lambda: sx(p('af'), 'system.posix_acl_access', named))
    showacl('af')
    step('chmod af 640', lambda: os.chmod(p('af'), 0o640))
    showacl('af')
    step('setfacl af plain (mode only)', lambda: sx(p('af'), 'system.posix_acl_access', plain))
    showacl('af')
    step('setfacl af named again', lambda: sx(p('af'), 'system.posix_acl_access', named))
    step('remove af access ACL', lambda: os.removexattr(p('af'), 'system.posix_acl_access'))
    showacl('af')
    step('default ACL on a file', lambda: sx(p('af'), 'system.posix_acl_default', named))
    os.mkdir(p('ad'))
    step('default ACL on ad', lambda: sx(p('ad'), 'system.posix_acl_default', named))
    step('access ACL on ad', lambda: sx(p('ad'), 'system.posix_acl_access', named))
    showacl('ad')
    with open(p('ad/file'), 'wb') as f:
        f.write(b'inherits')
    os.mkdir(p('ad/sub'), 0o755)
    os.mknod(p('ad/fifo'), 0o666 | stat.S_IFIFO)
    for n in ('ad/file', 'ad/sub', 'ad/fifo'):
        showacl(n)
    step('remove ad default ACL', lambda: os.removexattr(p('ad'), 'system.posix_acl_default'))
    with open(p('ad/file2'), 'wb') as f:
        f.write(b'no longer')
    showacl('ad/file2')
    # Unlinks: a shared block's count goes down, an only user's block is freed.
    step('unlink f2', lambda: os.unlink(p('f2')))
    step('unlink s0', lambda: os.unlink(p('s0')))
    step('unlink f3', lambda: os.unlink(p('f3')))
    show('f1')


run(ops, mp)
