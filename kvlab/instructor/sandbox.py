"""Run students' code under bubblewrap for `kvlab grade`, and copy hand-in folders safely (snapshot).

Bubblewrap() is a backend for kvlab.check.run.run_jobs: the driver runs in a sandbox with no network, its
own PID namespace (everything it starts dies with it), a read-only view of /usr and the interpreter
only (no site-packages, so neither kvlab nor anything installed can be imported), a private /tmp, the
student's files in a private size-limited /work, an unprivileged uid and hard resource limits.

Limits per process (rlimits) are not enough against a hostile class: memfd_create + fallocate,
/dev/shm and twenty 1 GB processes each pass them. So each hand-in also has a budget (budget(),
kvlab.instructor.cgroups) that covers all its sandboxes together: memory (in-memory files included),
processes, and an equal CPU weight; each sandbox's CPU time, not the wall clock, is its deadline,
and the group's OOM-kill counter is the only evidence for "killed for memory". Where no cgroup can
be made (not root, no writable hierarchy) nothing pretends: limits() says what is and is not enforced.
"""
import ctypes
import errno
import functools
import importlib.util
import json
import marshal
import os
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..check import run
from ..check.run import CHUNK, DRIVER, Launch
from ..errors import UserError
from ..lab import NAMES as ARTIFACT_NAMES
from . import cgroups

MEMORY_LIMIT = 1_000_000_000     # bytes of address space per process
FILE_SIZE_LIMIT = 50_000_000     # bytes any written file may reach
PROCESS_LIMIT = 20               # processes and threads of the sandbox's uid; bwrap itself takes three
CPU_LIMIT = 60                   # CPU seconds per process: a backstop behind run_jobs' wall-clock deadline
WORK_SPACE = 64_000_000          # bytes the student's code may write in /work, besides its files
TMP_SPACE = 16_000_000           # bytes of the private /tmp
SHM_SPACE = 16_000_000           # bytes of the private /dev/shm (/dev itself is read-only)
HANDIN_MEMORY = 512_000_000      # bytes a hand-in's sandboxes use together, in-memory files included (a cgroup)
HANDIN_PROCESSES = 64            # processes and threads of a hand-in's sandboxes together (three run at once)
INSIDE_UID = 65534               # "nobody", as the student's code sees itself
OUTSIDE_UID_BASE = 1_900_000_000  # when we are root: far above the uids and subuid ranges of real users
WORKERS = 64                     # sandboxes one process may run at once (each has its own outside uid)
HIGHEST_PID = 2 ** 22            # Linux's pid_max: makes OUTSIDE_UID_BASE + pid * WORKERS + slot unique
REAP_WAIT = 2.0                  # seconds to wait for a killed sandbox's processes to be gone
PR_SET_CHILD_SUBREAPER = 36      # prctl(2)
PROBE_TIMEOUT = 30               # seconds for an interpreter or bwrap to answer a trial run
MIN_PYTHON = (3, 10)
WORK = "/work"                   # the student's folder, inside
DRIVER_INSIDE = "/kvlab/driver.py"   # the driver's source, inside (or, compiled, DRIVER_COMPILED: driver_file())
DRIVER_COMPILED = "/kvlab/driver.pyc"
ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LC_CTYPE": "C.UTF-8", "HOME": "/tmp"}  # UTF-8 text, else the C locale:
# not LANG, which gettext (argparse's every message) would look up on disk, a file per call, for nothing
NOT_INSTALLED = "bwrap is not installed: apt-get install bubblewrap, or set KVLAB_NO_ISOLATION=1 for trusted code"

# snapshot(): what a hand-in folder may hold.
MOST_FILES = 50                  # files copied (a hand-in has ten)
LARGEST_FILE = 5_000_000         # bytes per file (ttft.jsonl is a few kilobytes)
MOST_ENTRIES = 100_000           # directory entries looked at, however many there are
LAB_FILES = ("kvsim.py", "scenario.py", "summarize.py", *ARTIFACT_NAMES, "ttft.jsonl")  # copied first
COMPILED = (".so", ".pyd", ".pyc")


class SandboxUnavailable(UserError):
    """bwrap, or a Python the sandbox can run, is missing on this machine."""


class Bubblewrap:
    """A run_jobs backend: the driver inside bubblewrap (see the module docstring).

    `slot` (0 to WORKERS - 1) is the grader's worker number, which picks the sandbox's outside uid;
    by default each run takes a free one. `budget` (from budget(), entered) is the hand-in's group
    its sandboxes share; by default each run has one of its own, of HANDIN_MEMORY bytes. `deadline` (a
    time.monotonic() time): the hand-in's wall-clock bound; a sandbox still running then is stopped as a
    timeout (through its CPU clock, which then reads as infinite: where there is no cgroup, at its own end).
    """

    def __init__(self, slot=None, budget=None, deadline=None):
        ok, reason = available()
        if not ok:
            raise SandboxUnavailable(reason)
        if slot is not None and slot not in range(WORKERS):
            raise ValueError(f"slot must be in 0..{WORKERS - 1}, got {slot}")
        self.python, self.slot, self.budget, self.deadline = interpreter(), slot, budget, deadline

    def launch(self, scratch):
        """The bwrap command for the files of `scratch`; waits, afterwards, until the sandbox is gone."""
        return self.launch_files({path.name: path for path in sorted(Path(scratch).iterdir())
                                  if path.is_file() and not path.is_symlink()})

    @contextmanager
    def launch_files(self, sources):
        """The bwrap command for a /work of `sources` ({name: a Path to copy, or the text to write}, as
        kvlab.check.run.sources() makes it); waits, afterwards, until the sandbox is gone.

        bwrap copies each into the sandbox's /work from an open file: the file itself, or an in-memory
        one holding the text (no scratch folder is written and removed on the way).
        """
        _adopt_orphans()
        with ExitStack() as stack:
            slot = stack.enter_context(_slot(self.slot))
            try:
                group = stack.enter_context((self.budget or stack.enter_context(budget())).run())
            except OSError as error:  # the machine's problem (e.g. a hierarchy that refuses a limit)
                raise SandboxUnavailable(f"cannot make the sandbox's cgroup ({error})") from None
            files = {name: stack.enter_context(_readable(source)) for name, source in sorted(sources.items())}
            data, inside = driver_file(self.python.magic)
            driver = stack.enter_context(_in_memory(data))
            status, status_end = os.pipe()  # bwrap's reports: the driver's pid, once it started it
            os.set_blocking(status, False)
            stack.callback(os.close, status)
            stack.callback(os.close, status_end)
            space = WORK_SPACE + sum(os.fstat(handle.fileno()).st_size for handle in files.values())
            args = [shutil.which("bwrap"), *_mounts(self.python), "--size", str(space), "--tmpfs", WORK]
            for name, handle in files.items():
                args += ["--file", str(handle.fileno()), f"{WORK}/{name}"]  # copies: the student's to change
            args += ["--ro-bind-data", str(driver.fileno()), inside, "--json-status-fd", str(status_end),
                     "--remount-ro", "/", "--chdir", WORK, self.python.path, "-I", "-S", inside]
            fds = (*[handle.fileno() for handle in files.values()], driver.fileno(), status_end)
            report = {}
            yield Launch({"args": args, "pass_fds": fds, "env": {}, **_identity(slot, group)},
                         functools.partial(_ended, status, report, group), _clock(group, self.deadline))
            _wait_gone(report.get("child-pid"))


def _clock(group, deadline):
    """The sandbox's CPU clock for run_jobs' deadline (None: no cgroup, the wall clock counts), which reads as
    infinite once the hand-in's wall-clock `deadline` has passed: the sandbox is then stopped as a timeout."""
    if not group.has_clock:
        return None
    if deadline is None:
        return group.cpu_seconds
    return lambda: float("inf") if time.monotonic() >= deadline else group.cpu_seconds()


@functools.cache
def driver_file(magic):
    """(the bytes, the path inside) of the driver for the sandbox's interpreter, whose bytecode has `magic`.

    When this process's Python makes the same bytecode (same magic number: the same minor version),
    the driver goes in compiled, as a .pyc, which Python runs as its script without compiling the 540
    lines of source again in every run; else as source."""
    source = DRIVER.read_bytes()
    if magic != importlib.util.MAGIC_NUMBER.hex():
        return source, DRIVER_INSIDE
    code = compile(source, DRIVER_COMPILED, "exec", dont_inherit=True, optimize=0)
    return importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code), DRIVER_COMPILED  # a .pyc's 16-byte header


def _readable(source):
    """An open binary file of `source`: a regular file (a Path; never through a symlink), or text (an in-memory file)."""
    if isinstance(source, Path):
        return os.fdopen(os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "rb")
    return _in_memory(source.encode("utf-8"))


def _in_memory(data):
    """An open binary file holding `data`, read from its start: in memory (memfd), else a temporary file."""
    try:
        handle = os.fdopen(os.memfd_create("kvlab-file", os.MFD_CLOEXEC), "w+b")
    except (AttributeError, OSError):  # no memfd here
        handle = tempfile.TemporaryFile(dir=scratch_dir())
    handle.write(data)
    handle.seek(0)
    return handle


@functools.cache
def scratch_dir():
    """Where the grader makes its scratch copies: $TMPDIR if set, else /dev/shm where it is a folder this
    process may write (memory: creating files on a busy disk took several ms per hand-in), else the default."""
    if os.environ.get("TMPDIR"):
        return None  # tempfile's own choice: the user's
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def budget(memory=HANDIN_MEMORY, processes=HANDIN_PROCESSES):
    """One hand-in's budget, to enter (`with`) and give to Bubblewrap(budget=...): a cgroup if this machine
    lets us make one, else cgroups.Unlimited (the per-process limits only; limits() says so)."""
    hierarchy, _ = cgroups.detect()
    if hierarchy is None:
        return cgroups.Unlimited()
    return _Budget(hierarchy, memory, processes)


class _Budget(cgroups.Budget):
    """A Budget whose failure to be made is the machine's problem, said as SandboxUnavailable."""

    def __enter__(self):
        try:
            return super().__enter__()
        except OSError as error:
            raise SandboxUnavailable(f"cannot make the hand-in's cgroup ({error})") from None


def limits():
    """Which limits apply on this machine, as data: {"memory", "processes", "cpu", "deadline", "shm", ...}.

    A value is "cgroup-v1" or "cgroup-v2" where the hand-in's budget is enforced, else "per-process
    only" (rlimits, for each process on its own; "why" then says what is missing).
    """
    hierarchy, why = cgroups.detect()
    per = "per-process only"
    found = {"memory": per, "processes": per, "cpu": "no weight (the scheduler's default)",
             "deadline": "wall clock", "shm": f"tmpfs {SHM_SPACE // 1_000_000} MB",
             "tmp": f"tmpfs {TMP_SPACE // 1_000_000} MB", "work": f"tmpfs {WORK_SPACE // 1_000_000} MB + the files"}
    if hierarchy is None:
        return {**found, "why": why}
    version = hierarchy.version
    if hierarchy.has("memory"):
        found["memory"] = version
    if hierarchy.has("pids"):
        found["processes"] = version
    if hierarchy.has("cpu"):
        found["cpu"] = f"{version} (equal weight per hand-in)"
    if hierarchy.has("cpuacct"):
        found["deadline"] = f"cpu time ({version}), wall clock {run.WALL_FACTOR}x as a backstop"
    return found


def _mounts(python):
    """bwrap's options for everything but the student's files and the driver."""
    args = ["--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
            "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID), "--clearenv"]
    if _bwrap_knows("--disable-userns"):  # bwrap >= 0.8: no user namespace of its own inside
        args.append("--disable-userns")
    for name, value in ENVIRONMENT.items():
        args += ["--setenv", name, value]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/lib", "/lib64"):  # symlinks into /usr on merged-/usr systems
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    for path in python.binds:
        args += ["--ro-bind", path, path]
    for path in python.hidden:
        args += ["--tmpfs", path, "--remount-ro", path]
    return [*args, "--proc", "/proc", "--dev", "/dev", "--size", str(SHM_SPACE), "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--size", str(TMP_SPACE), "--tmpfs", "/tmp"]


@functools.cache
def _bwrap_knows(option):
    try:
        return option in subprocess.run([shutil.which("bwrap"), "--help"], capture_output=True, text=True,
                                        timeout=PROBE_TIMEOUT).stdout
    except (OSError, subprocess.SubprocessError):
        return False


_busy_slots, _slot_freed = set(), threading.Condition()


@contextmanager
def _slot(wanted=None):
    """A worker slot of this process, `wanted` or any free one; waits while it is in use."""
    with _slot_freed:
        _slot_freed.wait_for(lambda: wanted not in _busy_slots if wanted is not None
                             else len(_busy_slots) < WORKERS)
        slot = wanted if wanted is not None else min(set(range(WORKERS)) - _busy_slots)
        _busy_slots.add(slot)
    try:
        yield slot
    finally:
        with _slot_freed:
            _busy_slots.discard(slot)
            _slot_freed.notify_all()


def _identity(slot, group=None, uid=None, then=None):
    """Popen arguments that put the sandbox in its cgroup `group` and give it its outside uid and hard limits.

    As root, bwrap would map the sandbox to root outside, where RLIMIT_NPROC is not enforced; so it
    runs as a uid of its own (one per slot: sandboxes running at once do not share a process count;
    `uid`: this one instead). As anyone else it runs as us, and RLIMIT_NPROC counts all our processes:
    the limit is what we have now plus PROCESS_LIMIT. The child enters its group first, while it is
    still root; then(), if given, runs last (kvlab.instructor.fallback: its seccomp filter).
    """
    if os.geteuid() == 0:
        uid = OUTSIDE_UID_BASE + (os.getpid() % HIGHEST_PID) * WORKERS + slot if uid is None else uid
        processes = PROCESS_LIMIT
    else:
        uid, processes = None, _my_tasks() + PROCESS_LIMIT
    limits = [(resource.RLIMIT_AS, MEMORY_LIMIT), (resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT),
              (resource.RLIMIT_NPROC, processes), (resource.RLIMIT_CPU, CPU_LIMIT), (resource.RLIMIT_CORE, 0)]
    hard = [(limit, _at_most(value, resource.getrlimit(limit)[1])) for limit, value in limits]

    def prepare():  # in the child, before exec: soft = hard, so the student's code cannot raise them
        if group is not None:
            group.enter()
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        for limit, value in hard:
            resource.setrlimit(limit, (value, value))
        if then is not None:
            then()
    return {"preexec_fn": prepare}


def _at_most(value, hard):
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _my_tasks():
    """How many processes and threads this uid runs now (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and entry.stat().st_uid == os.getuid():
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            pass  # it has just ended
    return count


def _ended(status, report, group, returncode, stderr):
    """Evidence that the sandbox was killed ({"signal", "cause"}), or None; SandboxUnavailable if bwrap never
    started the driver.

    bwrap reports a child killed by signal n as exit status 128 + n, which the student's os._exit(137)
    gives too: that alone is no evidence, only the exit code. The evidence is the group's OOM-kill
    counter, or bwrap itself ending by a signal.
    """
    for line in _read_all(status).decode("utf-8", "replace").splitlines():
        try:
            report.update(json.loads(line))
        except ValueError:
            pass
    if "child-pid" not in report:
        lines = stderr.strip().splitlines()
        raise SandboxUnavailable(f"bwrap could not start the sandbox: {lines[-1] if lines else returncode}")
    if group.oom_kills():
        return {"signal": int(signal.SIGKILL), "cause": "memory"}
    if returncode < 0:
        return {"signal": -returncode}  # bwrap itself, killed by run_jobs (or by someone else)
    return None


def _read_all(fd):
    """What a non-blocking pipe holds now."""
    data = b""
    while True:
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:
            return data
        if not chunk:
            return data
        data += chunk


@functools.cache
def _adopt_orphans():
    """Make this process the reaper of its orphaned descendants: True if it now is.

    A sandbox's first process (bwrap as the PID namespace's init) outlives the bwrap that run_jobs
    started by a moment; orphaned, it would go to the machine's init, and where that reaps late
    (containers, VMs with an init of their own) its zombie still counts against RLIMIT_NPROC of the
    slot's uid: the slot's next sandbox cannot fork ("Can't fork for pid 1"). Adopted, _wait_gone
    reaps it.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _wait_gone(pid):
    """Wait until the sandbox's first process is gone: its PID namespace, and all in it, with it; reap it if ours.

    Where the kernel gives a pidfd, it says the moment the process ends (no sleeping in steps of 10 ms).
    """
    ends = time.monotonic() + REAP_WAIT
    if pid:
        _wait_for_end(pid, REAP_WAIT)
    while pid and time.monotonic() < ends:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return  # adopted and reaped: the slot's uid has its processes back
            time.sleep(0.01)  # ours, still ending
            continue
        except ChildProcessError:
            pass  # not ours to reap (or gone)
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            return
        if state in ("Z", "X"):  # the kernel ends a PID namespace's processes before its first one
            return
        time.sleep(0.01)


def _wait_for_end(pid, seconds):
    """Wait at most `seconds` for process `pid` to end (a zombie counts), through a pidfd; at once if none can be had."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return  # gone already, or no pidfd here (Linux < 5.3): _wait_gone's loop looks
    try:
        poller = select.poll()
        poller.register(handle, select.POLLIN)
        poller.poll(seconds * 1000)
    finally:
        os.close(handle)


# The interpreter inside.


@dataclass(frozen=True)
class Python:
    """An interpreter for the sandbox, and what of the machine it needs to see (or must not)."""
    path: str
    binds: tuple    # paths to bind read-only besides /usr
    hidden: tuple   # its site-packages folders, covered by an empty read-only tmpfs
    magic: str = "" # its bytecode's magic number (hex): the driver goes in compiled when it is this process's


PROBE = ("import importlib.util, json, site, sys, sysconfig; paths = sysconfig.get_paths(); print(json.dumps("
         "{'version': sys.version_info[:2], 'prefix': sys.base_prefix, 'stdlib': paths['stdlib'],"
         " 'sites': site.getsitepackages() + [paths['purelib'], paths['platlib']],"
         " 'magic': importlib.util.MAGIC_NUMBER.hex()}))")


@functools.cache
def interpreter():
    """The Python the sandbox runs: ours if the sandbox's user can read it, else /usr/bin/python3."""
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        python = _usable(candidate)
        if python:
            return python
    return None


def _usable(path):
    """A Python >= 3.10 at `path` whose files the sandbox's user can reach, or None."""
    try:
        found = json.loads(subprocess.run([path, "-I", "-c", PROBE], capture_output=True, timeout=PROBE_TIMEOUT,
                                          check=True).stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    path = os.path.realpath(path)
    if tuple(found["version"]) < MIN_PYTHON or not all(map(_reachable, (path, found["prefix"], found["stdlib"]))):
        return None
    prefix = os.path.realpath(found["prefix"])
    binds = tuple(place for place in (prefix, os.path.dirname(path)) if not _under(place, "/usr")
                  and (place == prefix or not _under(place, prefix)))
    hidden = tuple(sorted({os.path.realpath(place) for place in found["sites"] if os.path.isdir(place)
                           and any(_under(os.path.realpath(place), root) for root in ("/usr", *binds))}))
    return Python(path, binds, hidden, found["magic"])


def _reachable(path):
    """Can the sandbox's user read `path`? As root, that user is nobody in particular: others' rights."""
    if os.geteuid() != 0:
        return os.access(path, os.R_OK)
    parts = Path(os.path.realpath(path)).parts
    for depth in range(1, len(parts)):  # every folder on the way must let others through
        if not os.stat(Path(*parts[:depth])).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(path).st_mode & stat.S_IROTH)


def _under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def trial_command(code):
    """The bwrap command that runs `python -I -S -c code` in the sandbox the driver gets (no files of a hand-in)."""
    return [shutil.which("bwrap"), *_mounts(interpreter()), interpreter().path, "-I", "-S", "-c", code]


@functools.cache
def available():
    """(True, "") if Bubblewrap can run here, else (False, one line saying why and what to do)."""
    if not shutil.which("bwrap"):
        return False, NOT_INSTALLED
    if interpreter() is None:
        return False, ("no Python >= 3.10 that the sandbox's user can read: install python3 "
                       "(apt-get install python3), or set KVLAB_NO_ISOLATION=1 for trusted code")
    trial = trial_command("")
    try:
        with _slot() as slot:
            done = subprocess.run(trial, capture_output=True, text=True, timeout=PROBE_TIMEOUT, **_identity(slot))
    except (OSError, subprocess.SubprocessError) as error:
        return False, f"bwrap cannot make a sandbox here ({error}); set KVLAB_NO_ISOLATION=1 for trusted code"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        return False, f"bwrap cannot make a sandbox here ({lines[-1]}); set KVLAB_NO_ISOLATION=1 for trusted code"
    return True, ""


# Copying a hand-in folder.


@dataclass
class Flags:
    """What snapshot() copied, refused or noticed, by file name: data, never sentences."""
    copied: list = field(default_factory=list)
    symlinks: list = field(default_factory=list)        # refused, never followed (even into the folder)
    compiled: list = field(default_factory=list)        # refused: *.so, *.pyd, *.pyc, __pycache__ shadow .py files
    too_big: list = field(default_factory=list)         # refused: over LARGEST_FILE bytes
    unreadable: list = field(default_factory=list)      # refused: not a regular file, or no permission
    left_out: int = 0                                   # wanted files beyond MOST_FILES (or MOST_ENTRIES)
    shadows_stdlib: list = field(default_factory=list)  # copied: json.py is what the student's scripts import
    folders: list = field(default_factory=list)         # refused: sub-folders (their files are not graded)


def snapshot(folder, dest, only=None):
    """Copy the hand-in's top-level *.py, *.json and ttft.jsonl files into `dest` (created); Flags.

    `only` (a set of names): take those files only, and flag no sub-folder (the student edition's
    kvlab/ and artifacts/ folders hold other files and folders of the lab's own).
    """
    os.makedirs(dest, mode=0o700, exist_ok=True)

    def write(name, data):
        with open(Path(dest) / name, "xb") as copy:
            copy.write(data)
    return _take(folder, write, only)


def flag_items(flags):
    """(flag, [file names]) for what snapshot() refused or noticed, e.g. ("shadows-stdlib", ["json.py"])."""
    for name in ("symlinks", "compiled", "too_big", "unreadable", "shadows_stdlib"):
        yield name.replace("_", "-"), getattr(flags, name)
    yield "left-out", [str(flags.left_out)] if flags.left_out else []
    yield "sub-folders", flags.folders


def _take(folder, keep, only=None):
    """keep(name, data) for each file of `folder` to copy, the lab's own first; the Flags."""
    flags, wanted = Flags(), []
    with os.scandir(folder) as entries:
        for count, entry in enumerate(entries):
            if count >= MOST_ENTRIES:
                flags.left_out += 1  # and the rest of the folder is not looked at
                break
            name = entry.name
            if only is not None:
                if name in only:
                    wanted.append(entry)
            elif name == "__pycache__" or name.endswith(COMPILED):
                flags.compiled.append(name)
            elif name.endswith((".py", ".json")) or name == "ttft.jsonl":
                wanted.append(entry)
            elif _is_folder(entry) and len(flags.folders) < MOST_FILES:
                flags.folders.append(name)
    wanted.sort(key=lambda entry: (entry.name not in LAB_FILES, entry.name))
    flags.left_out += max(len(wanted) - MOST_FILES, 0)
    for entry in wanted[:MOST_FILES]:
        data = _read_one(entry, flags)
        if data is not None:
            keep(entry.name, data)
            flags.copied.append(entry.name)
    flags.compiled.sort()
    flags.folders.sort()
    flags.shadows_stdlib = [name for name in flags.copied
                            if name.endswith(".py") and name[:-3] in sys.stdlib_module_names]
    return flags


def _is_folder(entry):
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _read_one(entry, flags):
    """The bytes of a regular file (not a link) of at most LARGEST_FILE bytes; else None, flagged."""
    try:
        if entry.is_symlink():
            flags.symlinks.append(entry.name)
            return None
        handle = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)  # a FIFO must not block us
    except FileNotFoundError:
        return None  # it vanished while we looked
    except OSError as error:
        (flags.symlinks if error.errno == errno.ELOOP else flags.unreadable).append(entry.name)  # a link by now
        return None
    with os.fdopen(handle, "rb") as source:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            flags.unreadable.append(entry.name)
            return None
        data = source.read(LARGEST_FILE + 1)
    if len(data) > LARGEST_FILE:
        flags.too_big.append(entry.name)
        return None
    return data
