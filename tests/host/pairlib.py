# Shared by the guest scripts of the tests/host tests that run the same
# operations on C ext2 and rust_ext2 (64-ops.py, 66-ops.py), copied beside
# them into the work directory.
import errno
import os


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
