"""The student's code where bubblewrap cannot make its sandbox (many containers, Gradescope's among them,
refuse the namespaces it needs): a run_jobs backend that holds without namespaces, or refuses to grade.

Each run of the student's code (Unprivileged.launch_files):
- runs under a uid of its own, fresh for every run (FIRST_UID and up), with no supplementary groups, the
  sandbox's hard limits (memory, file size, processes, CPU time), no_new_privs (no setuid program gives
  it rights back), a seccomp filter that refuses every socket but a Unix one (no network) and io_uring,
  the environment PATH, LC_CTYPE and HOME only, and the hand-in's cgroup where the machine has one;
- gets a private scratch folder: made by root (mode 0700), its files written through a descriptor of
  that folder (O_CREAT | O_EXCL | O_NOFOLLOW: never through a link), each handed to the run's uid with
  fchown on what was opened, then the folder itself; no mode is ever changed through a path;
- is ended whole: once its driver is done, every process of its uid is killed (a daemon that left its
  session with setsid too: it keeps its uid), until /proc shows none, before the next run starts; the
  scratch folder is removed afterwards.
The reference and the course stay root's (/autograder/source and the venv are 0700, checked by
available()); the one run that needs the reference's kvsim.py (fair scoring: scenario.py on it) has it
in its own private folder, beside the student's scenario.py that imports it, like in bubblewrap: its
output never reaches a report (verdicts only), it has no network, and nothing of the student's runs
after it. The grader writes the results only after every process of every uid it gave out is gone
(reap_all()).

available(private) says whether this machine gives all of that, and if not, why: then the autograder
refuses to grade (it writes no results) rather than grade without it.
"""
import ctypes
import itertools
import os
import platform
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

from ..check.run import DRIVER, Launch
from . import sandbox

FIRST_UID = 1_700_000_000      # the uids given to runs: far above real users' and subuid ranges
ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LC_CTYPE": "C.UTF-8", "HOME": "/tmp"}
KILL_WAIT = 5.0                # seconds to wait for a run's uid to have no process left
DRIVER_NAME = ".kvlab-driver.py"

# seccomp (linux/seccomp.h, linux/filter.h, linux/audit.h)
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
RET_ALLOW, RET_ERRNO, RET_KILL = 0x7FFF0000, 0x00050000, 0x80000000
LD_ABS_W, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06
EACCES, AF_UNIX = 13, 1
ARCHES = {  # machine: (AUDIT_ARCH, socket, io_uring_setup, whether x32 syscall numbers exist)
    "x86_64": (0xC000003E, 41, 425, True),
    "aarch64": (0xC00000B7, 198, 425, False),
}

_uids = itertools.count(FIRST_UID + (os.getpid() % 50_000) * 4_000)  # 4,000 runs before another grader's
_given, _lock = [], threading.Lock()


def _filter():
    """The seccomp program: a socket of any family but AF_UNIX, and io_uring, are refused (EACCES); another
    architecture's system calls (i386, x32) end the process."""
    found = ARCHES.get(platform.machine())
    if found is None:
        return None
    arch, socket_nr, uring_nr, x32 = found
    errno_ret, allow = RET_ERRNO | EACCES, RET_ALLOW
    program = [(LD_ABS_W, 0, 0, 4),                       # 0: arch
               (JEQ_K, 1, 0, arch),                       # 1: native: go on, else 2
               (RET_K, 0, 0, RET_KILL),                   # 2
               (LD_ABS_W, 0, 0, 0)]                       # 3: the system call's number
    if x32:
        program.append((JGE_K, 6, 0, 0x40000000))         # 4: an x32 call: refused (11)
    else:
        program.append((JEQ_K, 6, 0, 0xFFFFFFFF))         # 4: (never)
    program += [(JEQ_K, 2, 0, socket_nr),                 # 5: socket(): look at its family (8)
                (JEQ_K, 4, 0, uring_nr),                  # 6: io_uring_setup: refused (11)
                (RET_K, 0, 0, allow),                     # 7
                (LD_ABS_W, 0, 0, 16),                     # 8: args[0], its low 32 bits (little-endian)
                (JEQ_K, 0, 1, AF_UNIX),                   # 9: a Unix socket: allowed (10), else 11
                (RET_K, 0, 0, allow),                     # 10
                (RET_K, 0, 0, errno_ret)]                 # 11
    code = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(code)

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    return Program(len(program), ctypes.addressof(buffer)), buffer


_PROGRAM = _filter()
_LIBC = ctypes.CDLL(None, use_errno=True)


def _confine():
    """In the child, after its uid is taken: no new privileges, then the seccomp filter."""
    if _PROGRAM is None or _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(_PROGRAM[0]), 0, 0) != 0:
        os._exit(121)  # never run the student's code unconfined


def new_uid():
    """A uid no run had before (every process of it is killed before it is given out)."""
    with _lock:
        uid = next(_uids)
        _given.append(uid)
    kill_uid(uid)
    return uid


def _processes(uid):
    """The pids of living (not zombie) processes whose real or effective uid is `uid`; zombies adopted by us
    are reaped on the way."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue  # it has just ended
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        uids = fields.get("Uid", "").split()
        if str(uid) not in uids[:2]:
            continue
        if fields.get("State", "").strip().startswith("Z"):
            if fields.get("PPid", "").strip() == str(os.getpid()):
                try:
                    os.waitpid(int(entry.name), os.WNOHANG)  # an orphan of the run, adopted (subreaper)
                except ChildProcessError:
                    pass
            continue
        found.append(int(entry.name))
    return found


def kill_uid(uid, wait=KILL_WAIT):
    """Kill every process of `uid` until /proc shows none (a process forked meanwhile is found next time);
    True when none is left."""
    ends = time.monotonic() + wait
    while True:
        found = _processes(uid)
        if not found:
            return True
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > ends:
            return not _processes(uid)
        time.sleep(0.005)


def reap_all():
    """Kill every process of every uid given out; True when none is left (then the results may be written)."""
    with _lock:
        given = list(_given)
    return all([kill_uid(uid) for uid in given])


def _write(folder, name, data, uid):
    """Write a new file `name` in the open folder `folder` (a descriptor), owned by `uid`, never through a link."""
    handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
    try:
        with os.fdopen(os.dup(handle), "wb") as out:
            out.write(data)
        os.fchown(handle, uid, uid)
    finally:
        os.close(handle)


def _bytes(source):
    """The bytes of a sources() entry: a regular file (never through a link), or text."""
    if isinstance(source, Path):
        with os.fdopen(os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "rb") as handle:
            return handle.read()
    return source.encode("utf-8")


class Unprivileged:
    """A run_jobs backend without namespaces: see the module docstring. `budget`: the hand-in's cgroup budget
    (sandbox.budget(), entered), or cgroups.Unlimited; `deadline`: the hand-in's wall-clock bound."""

    def __init__(self, budget=None, deadline=None):
        self.budget, self.deadline = budget, deadline
        self.python = sandbox.interpreter()

    @contextmanager
    def launch_files(self, sources):
        sandbox._adopt_orphans()  # a daemon's parent gone, its zombie is ours to reap
        uid = new_uid()
        with ExitStack() as stack:
            scratch = tempfile.mkdtemp(prefix="kvlab-run-", dir=sandbox.scratch_dir())  # 0700, root's
            stack.callback(shutil.rmtree, scratch, ignore_errors=True)  # fd-based: never follows a link
            stack.callback(kill_uid, uid)  # first (callbacks run last in, first out): then the folder goes
            folder = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            stack.callback(os.close, folder)
            for name, source in sorted(sources.items()):
                _write(folder, name, _bytes(source), uid)
            _write(folder, DRIVER_NAME, DRIVER.read_bytes(), uid)  # the installed copy is in the root-only venv
            os.fchown(folder, uid, uid)  # the run's own now (still 0700): no other uid can look in
            group = stack.enter_context((self.budget or stack.enter_context(sandbox.budget())).run())
            prepare = sandbox._identity(0, group, uid=uid, then=_confine)["preexec_fn"]
            yield Launch({"args": [self.python.path, "-I", "-S", DRIVER_NAME], "cwd": scratch,
                          "env": dict(ENVIRONMENT), "preexec_fn": prepare},
                         lambda returncode, stderr: _ended(group, returncode), sandbox._clock(group, self.deadline))


def _ended(group, returncode):
    if group.oom_kills():
        return {"signal": int(signal.SIGKILL), "cause": "memory"}
    if returncode == 121:
        from .sandbox import SandboxUnavailable
        raise SandboxUnavailable("the seccomp filter could not be installed")
    return {"signal": -returncode} if returncode < 0 else None


PROBE = ("import os, socket\n"
         "try:\n    socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n    net = 'open'\n"
         "except OSError as error:\n    net = type(error).__name__\n"
         "print(os.getuid(), os.geteuid(), net)\n")


def available(private=(), closed=()):
    """(True, "") if this machine gives the fallback everything it needs, else (False, why): root (to give each
    run a uid of its own), a Python others can run, the seccomp filter (no network), `private` paths (the
    reference, the course) that no other uid can read or write, and `closed` ones no other uid can write."""
    if os.geteuid() != 0:
        return False, "giving the student's code a uid of its own needs root"
    if sandbox.interpreter() is None:
        return False, "no Python that an unprivileged user can run"
    if _PROGRAM is None:
        return False, f"no seccomp filter for this machine ({platform.machine()}): the network cannot be refused"
    for paths, bits in ((private, 0o077), (closed, 0o022)):
        for path in paths:
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if mode & bits:
                return False, f"{path} is open to other users (mode {mode & 0o777:o}): setup.sh makes it private"
    uid = new_uid()
    try:
        prepare = sandbox._identity(0, None, uid=uid, then=_confine)["preexec_fn"]
        done = subprocess.run([sandbox.interpreter().path, "-I", "-S", "-c", PROBE], capture_output=True, text=True,
                              env=dict(ENVIRONMENT), cwd="/", preexec_fn=prepare, timeout=sandbox.PROBE_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as error:
        return False, f"an unprivileged run cannot be started ({error})"
    finally:
        kill_uid(uid)
    if done.returncode != 0 or done.stdout.split() != [str(uid), str(uid), "PermissionError"]:
        return False, (f"an unprivileged run is not confined here (it said {done.stdout.strip()!r}, exit code "
                       f"{done.returncode}): no uid of its own, or the network is not refused")
    return True, ""

