"""Budgets that cover every process of a hand-in: a cgroup per hand-in, v1 or v2, through the filesystem.

A Budget is one hand-in's group, under a "kvlab" group beside (below) the grader's own: a memory
limit (which the memory controller charges with the processes' pages AND their in-memory files:
tmpfs, /dev/shm, memfd), a process limit, and a CPU weight equal to every other hand-in's. Each
sandbox of the hand-in is a Run, a group inside it: its CPU time is the deadline's clock, and its
OOM-kill counter the evidence that the kernel killed it for memory.

Layout: v2 (one hierarchy, /sys/fs/cgroup/cgroup.controllers exists) <base>/kvlab/<pid>-<n>/run-<m>;
v1 (a mount per controller) the same path in the memory and cpuacct hierarchies, and the hand-in's
group (no run groups) in pids and cpu. <base> is the grader's own group, or the root when the
grader's own cannot have children with controllers (v2's "no processes in inner groups" rule).
detect() says which hierarchy is usable; None (with the reason) when there is none (not root, a
read-only /sys/fs/cgroup): then nothing here pretends to limit anything.

Moving a process in (Run.enter) is a write of its pid to cgroup.procs: run_jobs' Popen does it in
the child before exec (preexec_fn, as root, before the sandbox's uid is taken), so that nothing the
sandbox starts is ever outside the group.
"""
import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PARENT = "kvlab"
V1_ROLES = ("memory", "pids", "cpu", "cpuacct")
V2_CONTROLLERS = ("memory", "pids", "cpu")
CPU_SHARES = 1024                 # v1: every hand-in weighs the same
CPU_WEIGHT = 100                  # v2: likewise
REMOVE_WAIT = 2.0                 # seconds to wait for a group's processes to be gone before rmdir
_numbers = itertools.count()


@dataclass(frozen=True)
class Hierarchy:
    """Where kvlab's groups go: version "cgroup-v1" or "cgroup-v2"; {role: the kvlab parent folder}.

    v1 roles are the controllers memory, pids, cpu, cpuacct (some may be missing: limits() says so);
    v2 has one folder for every role.
    """
    version: str
    parents: dict

    def has(self, role):
        return role in self.parents


def _write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def _own_paths():
    """{controller (or "" for v2): the grader's own group path} from /proc/self/cgroup."""
    found = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def _v1_mounts():
    """{controller: mount point} of the v1 hierarchies, from /proc/self/mounts."""
    found = {}
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in V1_ROLES:
                    found.setdefault(option, fields[1])
    return found


def _make_parent(base, v2=False):
    """base/kvlab, created if need be (and with the controllers for its children, on v2); None if not possible."""
    parent = Path(base) / PARENT
    try:
        parent.mkdir(exist_ok=True)
        if v2:
            _write(parent / "cgroup.subtree_control", " ".join(f"+{name}" for name in V2_CONTROLLERS))
        _sweep(parent)
        return parent
    except OSError:
        return None


def _sweep(parent):
    """Remove the empty groups that graders which are gone left behind (<pid>-<n>)."""
    for entry in os.scandir(parent):
        pid = entry.name.partition("-")[0]
        if entry.is_dir() and pid.isdigit() and int(pid) != os.getpid() and not os.path.exists(f"/proc/{pid}"):
            for inner in os.scandir(entry.path):
                if inner.is_dir():
                    _rmdir(inner.path)
            _rmdir(entry.path)


def _rmdir(path):
    try:
        os.rmdir(path)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        return False


@functools.cache
def detect():
    """(Hierarchy, "") if this process can make cgroups here, else (None, one line saying why)."""
    try:
        own = _own_paths()
    except (OSError, ValueError) as error:
        return None, f"cannot read /proc/self/cgroup ({error})"
    if (ROOT / "cgroup.controllers").is_file():
        try:
            available = (ROOT / "cgroup.controllers").read_text().split()
        except OSError as error:
            return None, f"cgroup v2 unreadable ({error})"
        missing = [name for name in V2_CONTROLLERS if name not in available]
        if missing:
            return None, f"cgroup v2 without the {', '.join(missing)} controller(s)"
        for base in dict.fromkeys([ROOT / own.get("", "/").lstrip("/"), ROOT]):
            try:
                _write(base / "cgroup.subtree_control", " ".join(f"+{name}" for name in V2_CONTROLLERS))
            except OSError:
                continue  # an inner group with processes (ours) cannot delegate controllers: try the root
            parent = _make_parent(base, v2=True)
            if parent:
                return Hierarchy("cgroup-v2", {role: parent for role in V1_ROLES}), ""
        return None, "cgroup v2: no group this process may create children with controllers in (not root?)"
    mounts = _v1_mounts()
    if not mounts:
        return None, "no cgroup hierarchy is mounted"
    parents = {}
    for role in V1_ROLES:
        if role in mounts:
            parent = _make_parent(Path(mounts[role]) / own.get(role, "/").lstrip("/"))
            if parent:
                parents[role] = parent
    if not parents:
        return None, "cgroup v1: no hierarchy this process may create groups in (not root?)"
    return Hierarchy("cgroup-v1", parents), ""


class Budget:
    """One hand-in's group: `memory` bytes (pages and in-memory files), `processes` tasks, an equal CPU weight.

    A context manager: the group exists inside the `with`, and is removed (its processes killed) after.
    """

    def __init__(self, hierarchy, memory, processes):
        self.hierarchy, self.memory, self.processes = hierarchy, memory, processes
        self.name = f"{os.getpid()}-{next(_numbers)}"
        self.dirs = {}   # role -> this hand-in's folder

    def __enter__(self):
        hierarchy = self.hierarchy
        made = {}
        try:
            for role, parent in hierarchy.parents.items():
                folder = parent / self.name
                if folder not in made.values():
                    folder.mkdir()
                made[role] = folder
            self.dirs = made
            if hierarchy.version == "cgroup-v2":
                folder = made["memory"]
                _write(folder / "memory.max", str(self.memory))
                _try_write(folder / "memory.swap.max", "0")
                _write(folder / "pids.max", str(self.processes))
                _write(folder / "cpu.weight", str(CPU_WEIGHT))
                _write(folder / "cgroup.subtree_control", " ".join(f"+{name}" for name in V2_CONTROLLERS))
            else:
                if "memory" in made:
                    _write(made["memory"] / "memory.limit_in_bytes", str(self.memory))
                    _try_write(made["memory"] / "memory.memsw.limit_in_bytes", str(self.memory))  # no swap either
                if "pids" in made:
                    _write(made["pids"] / "pids.max", str(self.processes))
                if "cpu" in made and (made["cpu"] / "cpu.shares").exists():
                    _write(made["cpu"] / "cpu.shares", str(CPU_SHARES))
        except OSError:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for folder in reversed(list(dict.fromkeys(self.dirs.values()))):
            _remove(folder)
        self.dirs = {}

    def run(self):
        """A Run: a group for one sandbox of this hand-in (enter it in the child before exec)."""
        return Run(self)

    def peak(self):
        """The most bytes the hand-in's processes and in-memory files have held at once, or None if unknown."""
        folder = self.dirs.get("memory")
        name = "memory.peak" if self.hierarchy.version == "cgroup-v2" else "memory.max_usage_in_bytes"
        try:
            return int((folder / name).read_text()) if folder else None
        except (OSError, ValueError):
            return None


class Unlimited:
    """No budget (no cgroup can be made here): each run has no group, no CPU clock, no OOM evidence."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def run(self):
        return NoRun()

    def peak(self):
        return None


class NoRun:
    has_clock = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def enter(self):
        pass

    def cpu_seconds(self):
        return None

    def oom_kills(self):
        return 0


class Run:
    """One sandbox's group inside its hand-in's: its CPU time, its OOM kills; a context manager."""

    def __init__(self, budget):
        self.budget = budget
        self.v2 = budget.hierarchy.version == "cgroup-v2"
        self.procs = []   # the cgroup.procs files the child writes its pid to
        self.dirs = []    # the run's own folders (removed after)
        self.cpu = self.memory = None
        self.clock = None  # the CPU file, kept open while the run is watched (read every POLL seconds)

    def __enter__(self):
        dirs, name = self.budget.dirs, f"run-{next(_numbers)}"
        try:
            if self.v2:
                folder = dirs["memory"] / name
                folder.mkdir()
                self.dirs, self.procs = [folder], [folder / "cgroup.procs"]
                self.cpu, self.memory = folder / "cpu.stat", folder / "memory.events"
                return self
            targets = {}
            for role, folder in dirs.items():  # a run group where it counts for this run alone
                targets[folder] = targets.get(folder, False) or role in ("memory", "cpuacct")
            for folder, own in targets.items():
                if own:
                    folder = folder / name
                    folder.mkdir()
                    self.dirs.append(folder)
                self.procs.append(folder / "tasks")  # see enter()
                if (folder / "cpuacct.usage").exists():
                    self.cpu = folder / "cpuacct.usage"
                if (folder / "memory.oom_control").exists():
                    self.memory = folder / "memory.oom_control"
        except OSError:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self.clock is not None:
            os.close(self.clock)
            self.clock = None
        for folder in reversed(self.dirs):
            _remove(folder)
        self.dirs = []

    @property
    def has_clock(self):
        return self.cpu is not None

    def enter(self):
        """Put the calling process into the run's groups (in the child, before exec: no threads, no locks).

        "0" is the writer itself. On v1 it goes to `tasks` (this one thread, which is the whole process
        here): the kernel then skips the lock for moving thread groups, whose RCU grace period would
        add 6 to 13 ms to every sandbox start. v2 has no such file for a plain group: cgroup.procs.
        """
        for path in self.procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def cpu_seconds(self):
        """CPU seconds (user and system) the run's processes have used so far, or None if there is no clock."""
        if self.cpu is None:
            return None
        try:
            if self.clock is None:
                self.clock = os.open(self.cpu, os.O_RDONLY | os.O_CLOEXEC)
            text = os.pread(self.clock, 4096, 0).decode()
        except (OSError, UnicodeDecodeError):
            return None
        if self.v2:
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
            return None
        return int(text) / 1e9

    def oom_kills(self):
        """How many of the run's processes the kernel's OOM killer ended (0 if unknown)."""
        if self.memory is None:
            return 0
        try:
            for line in self.memory.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0


def _try_write(path, text):
    try:
        _write(path, text)
    except OSError:
        pass  # no swap accounting on this machine: nothing to limit


def _pids(folder):
    try:
        return [int(pid) for pid in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _remove(folder):
    """Kill what is left in `folder` (and its run groups), then remove it; gives up after REMOVE_WAIT."""
    if _rmdir(folder):
        return
    ends = time.monotonic() + REMOVE_WAIT
    while True:
        inner = [Path(entry.path) for entry in os.scandir(folder) if entry.is_dir()] if folder.is_dir() else []
        for group in [*inner, folder]:
            if (group / "cgroup.kill").exists():
                _try_write(group / "cgroup.kill", "1")
            for pid in _pids(group):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for group in inner:
            _rmdir(group)
        if _rmdir(folder) or time.monotonic() > ends:
            return
        time.sleep(0.01)
