# The write operations of tests/host/64-ext2-rw-write.sh, run in the guest on
# a mounted copy of an image: python3 64-ops.py MOUNTPOINT BLOCKSIZE. Prints
# what each step leaves (size, i_blocks, checksum) or its errno, which the
# host compares between C ext2 and rust_ext2. The allocator places a file's
# first block by the writer's pid (ext2_find_near's colour, pid % 16): the
# steps run in a process whose pid is 0 mod 16, on both drivers.
import errno, hashlib, mmap, os, random, sys
from pairlib import fork16, run

mp, bs = sys.argv[1], int(sys.argv[2])
p = bs // 4
D, I = 12, 12 + p                       # first indirect, double-indirect block
DD = I + p * p                          # first triple-indirect block


def data(tag, n):
    """n bytes that say where they belong, deterministic."""
    r = random.Random(tag)
    return r.randbytes(n)


def st(name):
    """Size, i_blocks and a checksum of what is written: the first 4 MiB and
    64 KiB around each indirect level's start and the end (reading gigabytes
    of holes would take minutes under TCG)."""
    path = os.path.join(mp, name)
    s = os.stat(path)
    h = hashlib.sha256()
    wins = [(0, 4 << 20), (s.st_size - (64 << 10), s.st_size)]
    wins += [(b * bs - (64 << 10), b * bs + (64 << 10)) for b in (I, I + p, DD, DD + p * p + p + 1)]
    with open(path, 'rb') as f:
        for a, b in wins:
            a, b = max(a, 0), min(b, s.st_size)
            if a < b:
                f.seek(a)
                h.update(f.read(b - a))
    print(f'{name}: size {s.st_size} blocks {s.st_blocks} sha {h.hexdigest()[:16]}')


def step(name, what, f):
    try:
        f()
        print(f'{name} {what}: ok')
    except OSError as e:
        print(f'{name} {what}: {errno.errorcode.get(e.errno, e.errno)}')


def pwrite(name, off, n, tag, flags=0):
    fd = os.open(os.path.join(mp, name), os.O_WRONLY | os.O_CREAT | flags)
    try:
        os.pwrite(fd, data(tag, n), off)
    finally:
        os.close(fd)


def main():
    # Sequential: 300 blocks in 7-block writes, then in one go.
    for i in range(0, 300, 7):
        pwrite('seq', i * bs, 7 * bs, f'seq{i}')
    st('seq')
    step('seq2', 'write', lambda: pwrite('seq2', 0, 300 * bs + 123, 'seq2'))
    st('seq2')
    # Two files open at once, appended to in turn a block at a time: with
    # reservation windows each gets its own run (windows of 8 blocks that
    # double as they fill), without them their blocks alternate.
    fa = os.open(os.path.join(mp, 'ila'), os.O_WRONLY)
    fb = os.open(os.path.join(mp, 'ilb'), os.O_WRONLY)
    for i in range(150):
        os.write(fa, data(f'ila{i}', bs))
        os.write(fb, data(f'ilb{i}', bs))
    os.close(fa)
    os.close(fb)
    st('ila')
    st('ilb')
    # Random writes, random sizes, inside 2 MiB.
    r = random.Random(5)
    for i in range(200):
        pwrite('rand', r.randrange(2 << 20), r.randrange(1, 3 * bs), f'rand{i}')
    st('rand')
    # Appends.
    for i in range(60):
        fd = os.open(os.path.join(mp, 'app'), os.O_WRONLY | os.O_APPEND)
        os.write(fd, data(f'app{i}', r.randrange(1, 2 * bs)))
        os.close(fd)
    st('app')
    # Across the direct/indirect/double/triple boundaries, far past EOF.
    for b in (D - 1, D, D + 1, I - 1, I, I + 1, I + p, DD - 1, DD, DD + p * p + p + 1):
        step('sparse', f'block {b}', lambda b=b: pwrite('sparse', b * bs - 10, 20, f'sp{b}'))
    st('sparse')
    # Truncate down across each level, write again.
    for sz in (DD * bs + 5, I * bs + 3, D * bs + 1, 3 * bs + 7, 0):
        step('trunc', f'to {sz}', lambda sz=sz: os.truncate(os.path.join(mp, 'sparse'), sz))
        step('trunc', f'write at {sz}', lambda sz=sz: pwrite('sparse', sz + bs, 2 * bs, f't{sz}'))
        st('sparse')
    # O_DIRECT: aligned and misaligned.
    buf = mmap.mmap(-1, 64 * bs)
    buf.write(data('dio', 64 * bs))
    for off, n in ((0, 8 * bs), (40 * bs, 16 * bs), (8 * bs, 4096), (100 * bs + 512, 1024), (7, 100)):
        def dio(off=off, n=n):
            fd = os.open(os.path.join(mp, 'dio'), os.O_WRONLY | os.O_CREAT | os.O_DIRECT)
            try:
                os.pwritev(fd, [memoryview(buf)[:n]], off)
            finally:
                os.close(fd)
        step('dio', f'{off}+{n}', dio)
    st('dio')
    # Synchronous writes.
    step('sync', 'O_SYNC', lambda: pwrite('sync', 0, 5 * bs + 3, 'sync', os.O_SYNC))
    step('sync', 'O_DSYNC', lambda: pwrite('sync', 20 * bs, bs, 'dsync', os.O_DSYNC))

    def fs():
        fd = os.open(os.path.join(mp, 'sync'), os.O_WRONLY)
        os.pwrite(fd, data('fsync', 3 * bs), 30 * bs)
        os.fsync(fd)
        os.pwrite(fd, data('fdatasync', 3 * bs), 40 * bs)
        os.fdatasync(fd)
        os.close(fd)
    step('sync', 'fsync', fs)
    os.sync()
    st('sync')

    # A shared, read-only mapping of a file open for writing (as fsx's mapped
    # reads): what it shows after a write(2) through the same file.
    def mapped():
        fd = os.open(os.path.join(mp, 'sync'), os.O_RDWR)
        try:
            m = mmap.mmap(fd, 32 * bs, mmap.MAP_SHARED, mmap.PROT_READ)
            os.pwrite(fd, data('mapped', bs), 2 * bs)
            print(f'sync mapped: sha {hashlib.sha256(m[:]).hexdigest()[:16]}')
            m.close()
        finally:
            os.close(fd)
    step('sync', 'shared read-only mapping', mapped)
    st('sync')
    # A shared writable mapping over holes (direct blocks, a block beside a
    # written one, the first indirect block and past it) of a file grown by
    # ftruncate: its blocks are allocated when msync writes them back.
    def mapw():
        fd = os.open(os.path.join(mp, 'mapw'), os.O_RDWR)
        try:
            size = (I + 8) * bs
            os.ftruncate(fd, size)
            os.pwrite(fd, data('mapw', bs), 5 * bs)
            m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            try:
                for b in (0, 3, 6, D, I - 1, I, I + 7):
                    m[b * bs + 100:b * bs + 300] = data(f'mapw{b}', 200)
                m.flush()
            finally:
                m.close()
        finally:
            os.close(fd)
    step('mapw', 'shared writable mapping', mapw)
    st('mapw')
    # Past the largest size: EFBIG; a file over 2 GiB (LARGE_FILE).
    step('big', 'write at 2^31', lambda: pwrite('big', 1 << 31, bs, 'big'))
    step('big', 'write at 2^44', lambda: pwrite('big', 1 << 44, 1, 'big'))
    st('big')
    os.sync()
    full()


def full():
    """Fill the file system: a user stops at the reserved blocks (C's free
    count is a per-CPU counter that may lag by up to 32 blocks per CPU: the
    distance is printed as within 64), root goes on to the last block."""
    path = os.path.join(mp, 'fill')

    def fill():
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        # The same bytes everywhere: where the user stopped does not show.
        chunk = b'\xa5' * (16 * bs)
        try:
            while True:
                os.write(fd, chunk)
        except OSError as e:
            return errno.errorcode.get(e.errno, e.errno)
        finally:
            os.close(fd)

    v = os.statvfs(mp)
    reserved = v.f_bfree - v.f_bavail
    sys.stdout.flush()
    if fork16():
        os.setgid(1000)
        os.setuid(1000)
        err = fill()
        v = os.statvfs(mp)
        print(f'full user: {err}, stopped within 64 blocks of the reserved ones: {abs(v.f_bfree - reserved) <= 64}')
        sys.stdout.flush()
        os._exit(0)
    print(f'full root: {fill()}')
    os.sync()
    st('fill')
    print(f'full: {os.statvfs(mp).f_bfree} blocks free')

    # A mapped write into a hole when no block is left: msync reports the
    # failed allocation of writeback.
    def mapfull():
        fd = os.open(os.path.join(mp, 'hole'), os.O_RDWR)
        try:
            os.ftruncate(fd, 8 * bs)
            m = mmap.mmap(fd, 8 * bs, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            try:
                m[bs:2 * bs] = data('hole', bs)
                m.flush()
            finally:
                m.close()
        finally:
            os.close(fd)
    step('full', 'mapped write into a hole', mapfull)
    step('full', 'truncate', lambda: os.truncate(path, 5 * bs))
    step('full', 'write again', lambda: pwrite('fill', 6 * bs, bs, 'again'))
    st('fill')


sys.stdout.flush()
run(main)
