# Shared by the guest scripts of the tests/host tests that run the same
# operations on C ext2 and rust_ext2 (64-ops.py, 66-ops.py), copied beside
# them into the work directory.
import errno
import os
import sys


def fork16():
    """Forks until a child's pid is 0 mod 16: returns True in that child, and
    False in the caller once the child has exited (the others exit at once).
    The allocator places a file's first block by the writer's pid
    (ext2_find_near's colour, pid % 16): both drivers get the same one."""
    while True:
        pid = os.fork()
        if pid == 0:
            if os.getpid() % 16 == 0:
                return True
            os._exit(0)
        os.waitpid(pid, 0)
        if pid % 16 == 0:
            return False


def step(what, f):
    """Runs f() and prints `WHAT: ok`, or `WHAT: ERRNO` for an OSError."""
    try:
        f()
        print(f'{what}: ok')
    except OSError as e:
        print(f'{what}: {errno.errorcode.get(e.errno, e.errno)}')


def ls(mp, d):
    """Prints directory `d` of the file system at `mp` in readdir order, with
    inode numbers."""
    with os.scandir(os.path.join(mp, d)) as it:
        print(f'ls {d}: ' + ' '.join(f'{e.name}={e.inode()}' for e in it))


def run(ops, mp=None):
    """Runs ops() in a child whose pid is 0 mod 16 (fork16), then, given the
    mount point `mp`, the file system's free blocks and inodes after a sync;
    the child exits there, the caller goes on once it has."""
    if fork16():
        ops()
        if mp is not None:
            os.sync()
            s = os.statvfs(mp)
            print(f'statfs: bfree {s.f_bfree} ffree {s.f_ffree}')
        sys.stdout.flush()
        os._exit(0)
