"""The attacks of a hostile class on the grader itself, each run through run_jobs and Bubblewrap at a small cap.

A flood of the result channel, memory held in memfds, /dev/shm and many processes, CPU spinners in
sessions of their own beside an honest run, and a student's own os._exit(137). Each hostile script
is small; the budget is 64 MB, so that hitting it is quick.
"""
import os
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc

import pytest

from kvlab.check import run
from kvlab.instructor import cgroups, sandbox

AVAILABLE, WHY = sandbox.available()
HIERARCHY, NO_CGROUP = cgroups.detect()
needs_bwrap = pytest.mark.skipif(not AVAILABLE, reason=WHY)
needs_cgroup = pytest.mark.skipif(not AVAILABLE or HIERARCHY is None, reason=WHY or f"no cgroup: {NO_CGROUP}")
CAP = 64_000_000   # bytes of the hand-in's budget in these tests
MB = 1_000_000

HOSTILE = {
    "hello.py": "print('hello')\n",
    "floods.py": """
        import os
        for _ in range(400):
            os.write(3, b'x' * 1_000_000)  # fd 3 is the driver's result channel
    """,
    "newlines.py": """
        import os
        for _ in range(400):
            os.write(3, b'\\n' * 1_000_000)  # many short lines
    """,
    "memfds.py": """
        import os
        fds = []
        try:
            for _ in range(20):  # 40 MB each passes RLIMIT_FSIZE; 800 MB in all
                fd = os.memfd_create('hog')
                os.posix_fallocate(fd, 0, 40_000_000)
                fds.append(fd)
        except OSError as error:
            print('refused', len(fds), error.errno)
    """,
    "files.py": """
        import os
        held = 0
        for place in ('/dev/shm', '/tmp', '.'):  # tmpfs all three: memory, which the budget counts
            try:
                with open(os.path.join(place, 'hog'), 'wb') as handle:
                    for _ in range(70):
                        handle.write(b'x' * 1_000_000)
                        handle.flush()
                        held += 1_000_000
            except OSError as error:
                print(place, 'refused at', held, error.errno)
    """,
    "processes.py": """
        import os, time
        children = []
        for _ in range(10):  # 30 MB each: 300 MB in all, each far below RLIMIT_AS
            pid = os.fork()
            if pid == 0:
                hog = bytearray(30_000_000)
                for at in range(0, len(hog), 4096):
                    hog[at] = 1
                time.sleep(0.3)
                os._exit(0)
            children.append(pid)
        print(sorted(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children))
    """,
    "forks.py": """
        import os, time
        count, error = 0, None
        try:
            while count < 100:
                if os.fork() == 0:
                    time.sleep(0.5)
                    os._exit(0)
                count += 1
        except OSError as stopped:
            error = stopped.errno
        print(count, error)
    """,
    "spins.py": """
        import os
        for _ in range(14):
            try:
                child = os.fork()
            except OSError:  # RLIMIT_NPROC: as many as it may
                break
            if child == 0:
                os.setsid()  # a session of its own: its own autogroup, without a cgroup
                while True:
                    pass
        while True:
            pass
    """,
    "works.py": "print(sum(range(3_000_000)))\n",  # 0.1 s of CPU: late at 0.5 s with a fifteenth of the machine
    "exits.py": "import os\nos._exit(137)\n",
    "waits.py": "import time\ntime.sleep(0.4)\nprint('woke')\n",
    "loops.py": "while True:\n    pass\n",
    "grows.py": "hog = bytearray(300_000_000)\nprint('survived')\n",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    place = tmp_path_factory.mktemp("hostile")
    for name, text in HOSTILE.items():
        (place / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return place


def jobs(*names):
    return [run.script_job(name) for name in names]


def graded(folder, names, memory=CAP, processes=sandbox.HANDIN_PROCESSES, timeout=2.0):
    """(outcomes, the budget's peak bytes, seconds) of the scripts in one sandbox of a fresh budget."""
    with sandbox.budget(memory=memory, processes=processes) as budget:
        started = time.monotonic()
        outcomes = run.run_jobs(folder, jobs(*names), timeout=timeout, backend=sandbox.Bubblewrap(budget=budget))
        return outcomes, budget.peak(), time.monotonic() - started


@needs_cgroup
def test_limits_say_which_are_enforced():
    found = sandbox.limits()
    assert found["memory"] == found["processes"] == HIERARCHY.version
    assert found["deadline"].startswith("cpu time") and found["shm"] == "tmpfs 16 MB"


def test_without_a_cgroup_the_limits_say_per_process_only(monkeypatch):
    monkeypatch.setattr(cgroups, "detect", lambda: (None, "not root"))
    found = sandbox.limits()
    assert (found["memory"], found["processes"], found["deadline"], found["why"]) == \
        ("per-process only", "per-process only", "wall clock", "not root")
    assert isinstance(sandbox.budget(), cgroups.Unlimited)


@needs_bwrap
@pytest.mark.parametrize("script", ["floods.py", "newlines.py"])
def test_a_flood_of_the_result_channel_is_stopped_where_it_happens(folder, script):
    tracemalloc.start()
    try:
        flood, after = run.run_jobs(folder, jobs(script, "hello.py"), backend=sandbox.Bubblewrap())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (flood["kind"], after["kind"]) == (("flood" if script == "floods.py" else "protocol"), "not-run")
    assert peak < 2 * MB, peak  # 400 MB were sent (how long it takes: benchmarks/bench_hostile.py)


def test_a_line_over_its_bound_is_never_decoded(monkeypatch):
    monkeypatch.setattr(run.json, "loads", lambda line: pytest.fail("decoded"))
    job = run.ops_job("kvsim", [["new", "LRUCache", 1]])
    limit = run.line_limit(job, run.CAP)
    seen = run.Seen(b"x" * limit, "", -9, "flood")
    assert run.outcomes([job], seen, None)[0]["kind"] == "flood"


def test_the_labs_largest_job_fits_its_line_with_margin():
    job = run.ops_job("kvsim", [["new", "LRUCache", 8]] + [["access", "", f"k{n}"] for n in range(300)]
                      + [["keys", ""] for _ in range(300)])
    assert run.line_limit(job, run.CAP) >= 3 * 12_323  # what the reference's largest job writes


def test_what_the_pipes_hold_is_read_before_a_deadline_applies():
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdout.write('{}\\n'); sys.stdout.flush()"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    process.wait()  # the grader stalled: the run is over before anyone looked
    talk = run.Talk(timeout=0.0, cap=100, wall=None)  # a deadline of 0 s, long past
    talk.lines, talk.ending = [100], True
    seen = run.watch(process, talk, 100, clock=lambda: 1e9)
    assert (seen.stdout, seen.stopped) == (b"{}\n", "")


@needs_cgroup
@pytest.mark.parametrize("script", ["memfds.py", "files.py", "processes.py", "grows.py"])
def test_memory_of_all_kinds_hits_the_hand_ins_budget(folder, script):
    (outcome, after), peak, _ = graded(folder, [script, "hello.py"])
    assert peak is None or peak <= CAP
    if outcome["kind"] == "killed":  # the kernel's OOM killer, in this run's group: evidence
        assert outcome == {**outcome, "signal": 9, "cause": "memory"} and after["kind"] == "not-run"
    elif script == "processes.py":
        assert outcome["kind"] == "ok" and "-9" in outcome["stdout"], outcome  # some children were OOM-killed
    else:
        assert outcome["kind"] == "ok" and "refused" in outcome["stdout"], outcome
        assert after["kind"] == "ok"
    if script == "files.py" and outcome["kind"] == "ok":
        assert "/dev/shm refused at 16000000" in outcome["stdout"]  # a sized tmpfs, even without a cgroup


@needs_cgroup
def test_processes_hit_the_hand_ins_budget(folder):
    [forks], _, _ = graded(folder, ["forks.py"], processes=12)
    count, error = forks["stdout"].split()
    assert int(count) < 12 and error == "11", forks  # EAGAIN, below RLIMIT_NPROC's 20


@needs_cgroup
def test_a_spinner_in_new_sessions_does_not_make_an_honest_run_late(folder, monkeypatch):
    monkeypatch.setattr(run, "STARTUP_ALLOWANCE", 0.5)
    spun = {}

    def spinner():
        spun["outcomes"], _, spun["took"] = graded(folder, ["spins.py"], timeout=1.0)
    thread = threading.Thread(target=spinner)
    thread.start()
    time.sleep(0.2)  # up to fifteen spinners are running, each in a session of its own
    honest, _, took = graded(folder, ["works.py", "hello.py", "works.py"], timeout=0.5)
    thread.join()
    assert [outcome["kind"] for outcome in honest] == ["ok", "ok", "ok"], honest
    # the spinner itself is stopped (its CPU time, or the wall-clock backstop: how soon depends on the machine's
    # load, which a test must not time)
    assert spun["outcomes"][0]["kind"] == "timeout"


@needs_cgroup
def test_a_jobs_limit_is_its_cpu_time_and_the_wall_clock_a_backstop(folder):
    (waits, loops, after), _, _ = graded(folder, ["waits.py", "loops.py", "hello.py"], timeout=0.3)
    assert (waits["kind"], waits["stdout"], loops["kind"], after["kind"]) == ("ok", "woke\n", "timeout", "not-run")
    # how soon the loop is stopped depends on the machine's load: benchmarks/bench_hostile.py measures it


@needs_cgroup
def test_the_students_own_exit_137_is_its_exit_code_not_a_kill(folder):
    [exits], _, _ = graded(folder, ["exits.py"])
    assert (exits["kind"], exits["code"]) == ("protocol", 137)
    assert "signal" not in exits


@needs_cgroup
def test_a_budget_leaves_nothing(tmp_path):
    for _ in range(3):  # what one costs: benchmarks/bench_hostile.py
        with sandbox.budget(memory=CAP) as budget:
            with budget.run() as group:
                assert group.has_clock and group.cpu_seconds() == 0
    for parent in HIERARCHY.parents.values():
        assert not [entry for entry in os.scandir(parent) if entry.is_dir()
                    and entry.name.startswith(f"{os.getpid()}-")]


@needs_bwrap
def test_one_slot_runs_sandbox_after_sandbox(folder):
    """Each sandbox's first process is reaped by the grader: its zombie would hold the slot's RLIMIT_NPROC."""
    backend = sandbox.Bubblewrap(slot=sandbox.WORKERS - 1)
    runs = sandbox.PROCESS_LIMIT + 3  # without the reaping, run 19 here said "Can't fork for pid 1"
    kinds = [run.run_jobs(folder, jobs("hello.py"), backend=backend)[0]["kind"] for _ in range(runs)]
    assert kinds == ["ok"] * runs


@needs_cgroup
def test_a_budget_the_machine_refuses_is_the_sandboxs_failure(monkeypatch):
    monkeypatch.setattr(cgroups, "_write", lambda path, text: (_ for _ in ()).throw(PermissionError(13, "refused")))
    with pytest.raises(sandbox.SandboxUnavailable, match="cannot make the hand-in's cgroup"):
        with sandbox.budget():
            pass
    for parent in HIERARCHY.parents.values():
        assert not [entry for entry in os.scandir(parent) if entry.is_dir()
                    and entry.name.startswith(f"{os.getpid()}-")]


def test_a_v2_hierarchy_is_used_as_v2(tmp_path, monkeypatch):
    """The v2 layout, on a stand-in folder (this machine may have v1): the files written and read."""
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    monkeypatch.setattr(cgroups, "ROOT", tmp_path)
    monkeypatch.setattr(cgroups, "_own_paths", lambda: {"": "/"})
    monkeypatch.setattr(cgroups, "_remove", lambda folder: None)  # a plain folder keeps its files
    found, why = cgroups.detect.__wrapped__()
    assert (found.version, why, set(found.parents.values())) == ("cgroup-v2", "", {tmp_path / "kvlab"})
    assert (tmp_path / "kvlab" / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    with cgroups.Budget(found, CAP, 10) as budget, budget.run() as group:
        folder = budget.dirs["memory"]
        assert [(folder / name).read_text() for name in ("memory.max", "memory.swap.max", "pids.max", "cpu.weight")] \
            == [str(CAP), "0", "10", "100"]
        assert group.procs == [group.dirs[0] / "cgroup.procs"] and group.dirs[0].parent == folder
        (group.dirs[0] / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
        (group.dirs[0] / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
        assert (group.has_clock, group.cpu_seconds(), group.oom_kills()) == (True, 1.5, 1)
