"""kvlab.instructor.sandbox: hostile code under bubblewrap changes nothing outside, and snapshot().

Each hostile script prints what it managed to do; the test asserts the outcome AND that nothing
outside the sandbox changed, and that no process of the sandbox is left. The sandbox starts three
times in all: one batch of hostile jobs, one daemon, one trial run (available()).
"""
import errno
import importlib.util
import json
import marshal
import os
import socket
import textwrap
import uuid
from pathlib import Path

import pytest

from kvlab.check import run
from kvlab.instructor import sandbox

KVLAB = Path(sandbox.__file__).resolve().parent.parent
AVAILABLE, WHY = sandbox.available()
needs_bwrap = pytest.mark.skipif(not AVAILABLE, reason=WHY)

HOSTILE = {
    "shadow.py": """
        try:
            print(open('/etc/shadow').read()[:20])
        except OSError as error:
            print(type(error).__name__)
    """,
    "env.py": "import json, os\nprint(json.dumps(dict(os.environ)))\n",
    "imports.py": "import sys\nsys.path.insert(0, sys.argv[1])\nimport kvlab\n",
    "connects.py": """
        import socket, sys
        try:
            socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=1)
            print('connected')
        except OSError as error:
            print(type(error).__name__)
    """,
    "writes.py": """
        import json, sys
        done = {}
        for path in sys.argv[1:]:
            try:
                with open(path, 'w') as handle:
                    handle.write('escaped')
                done[path] = 'written'
            except OSError as error:
                done[path] = type(error).__name__
        print(json.dumps(done))
    """,
    "whoami.py": """
        import json, os
        try:
            os.setuid(0)
            became = 'root'
        except OSError as error:
            became = type(error).__name__
        print(json.dumps([os.getuid(), os.getgid(), became]))
    """,
    "bigfile.py": """
        import json, os, resource
        try:
            resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            raised = 'raised'
        except (ValueError, OSError) as error:
            raised = type(error).__name__
        written, stopped = 0, ''
        try:
            with open('big.bin', 'wb') as handle:
                for _ in range(300):
                    handle.write(b'x' * 1_000_000)
                    handle.flush()
                    written += 1_000_000
        except OSError as error:
            stopped = type(error).__name__
        print(json.dumps([raised, written, stopped, os.path.getsize('big.bin')]))
    """,
    "forks.py": """
        import json, os
        wake, hold = os.pipe()
        children, error = 0, None
        try:
            while children < 1000:
                if os.fork() == 0:
                    os.close(hold)
                    os.read(wake, 1)  # until the parent has counted
                    os._exit(0)
                children += 1
        except OSError as stopped:
            error = stopped.errno
        os.close(hold)
        for _ in range(children):
            os.wait()
        print(json.dumps([children, error]))
    """,
    "memory.py": "hog = bytearray(3_000_000_000)\n",
    "dies.py": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",  # its own doing: no kill of ours
    "daemon.py": """
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, 1024)
                os.execv(sys.executable, [sys.executable, '-c', 'import time\\n'
                         'open("alive", "w").close()\\nwhile True: time.sleep(0.05)', sys.argv[1]])
            os._exit(0)
        os.wait()
        for _ in range(200):
            if os.path.exists('alive'):
                print('daemon running')
                break
            time.sleep(0.01)
    """,
}


@pytest.fixture
def handed_in(tmp_path):
    """A hand-in folder of hostile scripts (and the reference kvsim.py) with an empty sibling folder."""
    folder = tmp_path / "handin"
    folder.mkdir()
    (tmp_path / "sibling").mkdir()
    for name, text in HOSTILE.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"))
    (folder / "kvsim.py").write_bytes((KVLAB / "kvsim.py").read_bytes())
    return folder


def contents(folder):
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


# The outside uids of this process's sandboxes (other test processes, e.g. pytest-xdist workers, have their own).
MY_OUTSIDE_UIDS = range(sandbox.OUTSIDE_UID_BASE + (os.getpid() % sandbox.HIGHEST_PID) * sandbox.WORKERS,
                        sandbox.OUTSIDE_UID_BASE + (os.getpid() % sandbox.HIGHEST_PID + 1) * sandbox.WORKERS)


def sandbox_processes(marker=b"\0"):
    """Live processes (zombies hold nothing) of this process's sandboxes' outside uids, or with `marker` in argv."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            if not entry.name.isdigit() or Path(entry.path, "stat").read_text().rpartition(")")[2].split()[0] == "Z":
                continue
            if os.geteuid() == 0 and entry.stat().st_uid in MY_OUTSIDE_UIDS \
                    or marker in Path(entry.path, "cmdline").read_bytes().split(b"\0"):
                found.append(entry.name)
        except OSError:
            pass  # it has just ended
    return found


@needs_bwrap
def test_hostile_code_changes_nothing_outside_the_sandbox(handed_in, tmp_path, monkeypatch):
    monkeypatch.setenv("KVLAB_TEST_SECRET", "hunter2")
    marker = f"kvlab-escape-{uuid.uuid4().hex}"
    driver = sandbox.driver_file(sandbox.interpreter().magic)[1]
    targets = [tmp_path / "sibling" / marker, Path.home() / marker, Path("/tmp") / marker,
               KVLAB / marker, handed_in / marker, Path("/work/kvsim.py"), Path(driver)]
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    before = contents(handed_in)
    jobs = [run.script_job(name, argv) for name, argv in [
        ("shadow.py", ()), ("env.py", ()), ("imports.py", [KVLAB.parent]),
        ("connects.py", [listener.getsockname()[1]]), ("writes.py", targets), ("whoami.py", ()),
        ("bigfile.py", ()), ("forks.py", ()), ("memory.py", ()), ("dies.py", ()), ("env.py", ())]]
    try:
        outcomes = run.run_jobs(handed_in, jobs, backend=sandbox.Bubblewrap())
        shadow, env, imports, connects, writes, whoami, bigfile, forks, memory, dies, not_run = outcomes
        assert shadow["stdout"] == "FileNotFoundError\n"  # there is no /etc at all
        assert "KVLAB_TEST_SECRET" not in json.loads(env["stdout"])
        assert set(json.loads(env["stdout"])) <= {*sandbox.ENVIRONMENT, "PWD"}
        assert imports["kind"] == "crash" and imports["raised"]["name"] == "kvlab"
        assert connects["stdout"] == "ConnectionRefusedError\n"  # the sandbox's own loopback
        with pytest.raises(BlockingIOError):
            listener.accept()
        written = json.loads(writes["stdout"])
        assert [written[str(target)] for target in targets[:5]] == \
            ["FileNotFoundError", "FileNotFoundError", "written", "FileNotFoundError", "FileNotFoundError"]
        assert written[str(Path("/tmp") / marker)] == "written"  # its private /tmp
        assert written["/work/kvsim.py"] == "written"  # its private copy
        assert written[driver] == "OSError"  # read-only
        uid, gid, became = json.loads(whoami["stdout"])
        assert (uid, gid) == (sandbox.INSIDE_UID, sandbox.INSIDE_UID) and became != "root"
        raised, size, stopped, on_disk = json.loads(bigfile["stdout"])
        assert raised == "ValueError" and stopped == "OSError"  # EFBIG
        assert size < 300_000_000 and on_disk <= sandbox.FILE_SIZE_LIMIT
        children, error = json.loads(forks["stdout"])
        assert children < sandbox.PROCESS_LIMIT and error == errno.EAGAIN  # RLIMIT_NPROC
        assert memory["kind"] == "crash" and memory["raised"]["type"] == "MemoryError"
        # bwrap says 128 + 9 whether the code killed itself or called os._exit(137): no evidence of a kill
        assert (dies["kind"], dies["code"], not_run["kind"]) == ("protocol", 137, "not-run")
        for target in targets[:5]:
            assert not target.exists(), target
        assert contents(handed_in) == before
        assert os.listdir(tmp_path / "sibling") == []
        assert sandbox_processes() == []
    finally:
        listener.close()
        for target in targets[:5]:
            if target.exists():
                target.unlink()


@needs_bwrap
def test_the_runs_files_reach_work_as_given_and_a_link_never(handed_in, tmp_path):
    """bwrap copies each file from an open one (the folder's own, or an in-memory one for run_jobs' `files`)."""
    secret = tmp_path / "secret.py"
    secret.write_text("print('outside')\n")
    (handed_in / "link.py").symlink_to(secret)
    (handed_in / "lists.py").write_text("import json, os\nprint(json.dumps(sorted(os.listdir('.'))))\n"
                                        "print(open('input.txt', encoding='utf-8').read(), end='')\n")
    text = "héllo 日本\n" * 500
    [listed] = run.run_jobs(handed_in, [run.script_job("lists.py")], files={"input.txt": text},
                            backend=sandbox.Bubblewrap())
    names, _, seen = listed["stdout"].partition("\n")
    assert json.loads(names) == sorted([*(path.name for path in handed_in.glob("*.py") if path.name != "link.py"),
                                  "input.txt"])
    assert (listed["kind"], seen) == ("ok", text)
    assert (secret.read_text(), sandbox_processes()) == ("print('outside')\n", [])


@needs_bwrap
def test_a_daemon_dies_with_the_sandbox(handed_in):
    marker = f"kvlab-marker-{uuid.uuid4().hex}"
    [daemon] = run.run_jobs(handed_in, [run.script_job("daemon.py", [marker])], backend=sandbox.Bubblewrap())
    assert daemon["stdout"] == "daemon running\n", daemon
    assert sandbox_processes(marker.encode()) == []


def test_without_bwrap_the_grader_gets_one_line(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.available.cache_clear()
    try:
        with pytest.raises(sandbox.SandboxUnavailable, match="^bwrap is not installed: apt-get install bubblewrap"):
            sandbox.Bubblewrap()
    finally:
        sandbox.available.cache_clear()


class TestSnapshot:
    def test_copies_the_labs_files_and_refuses_links_and_compiled_modules(self, tmp_path):
        folder, dest = tmp_path / "handin", tmp_path / "copy"
        folder.mkdir()
        for name in ("kvsim.py", "scenario.py", "cliff.json", "ttft.jsonl", "json.py"):
            (folder / name).write_text(f"# {name}\n")
        (folder / "notes.txt").write_text("not the lab's")
        (folder / "kvsim.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
        (folder / "__pycache__").mkdir()
        (folder / "summarize.py").symlink_to(folder / "kvsim.py")  # even a link that stays inside
        (folder / "secret.json").symlink_to("/etc/hostname")
        os.mkfifo(folder / "fifo.py")  # would block a plain open()
        (folder / "huge.json").write_bytes(b"0" * (sandbox.LARGEST_FILE + 1))
        flags = sandbox.snapshot(folder, dest)
        assert sorted(flags.copied) == ["cliff.json", "json.py", "kvsim.py", "scenario.py", "ttft.jsonl"]
        assert sorted(path.name for path in dest.iterdir()) == sorted(flags.copied)
        assert sorted(flags.symlinks) == ["secret.json", "summarize.py"]
        assert flags.compiled == ["__pycache__", "kvsim.cpython-311-x86_64-linux-gnu.so"]
        assert (flags.too_big, flags.unreadable, flags.shadows_stdlib) == (["huge.json"], ["fifo.py"], ["json.py"])
        assert (dest / "kvsim.py").read_text() == "# kvsim.py\n"
        assert dict(sandbox.flag_items(flags))["shadows-stdlib"] == ["json.py"]

    def test_a_folder_of_ten_thousand_files_still_gives_the_scripts(self, tmp_path):
        folder = tmp_path / "handin"
        folder.mkdir()
        (tmp_path / "empty.py").touch()
        for number in range(10_000):
            os.link(tmp_path / "empty.py", folder / f"a{number:05}.py")  # far quicker to make than new files
        (folder / "scenario.py").write_text("print()\n")
        flags = sandbox.snapshot(folder, tmp_path / "copy")
        assert "scenario.py" in flags.copied and len(flags.copied) == sandbox.MOST_FILES
        assert flags.left_out == 10_001 - sandbox.MOST_FILES

    def test_a_file_that_vanishes_while_copying_is_skipped(self, tmp_path, monkeypatch):
        folder = tmp_path / "handin"
        folder.mkdir()
        for name in ("kvsim.py", "scenario.py"):
            (folder / name).write_text("\n")
        read_one = sandbox._read_one

        def vanishing(entry, flags):
            if entry.name == "kvsim.py":
                os.unlink(entry.path)
            return read_one(entry, flags)
        monkeypatch.setattr(sandbox, "_read_one", vanishing)
        assert sandbox.snapshot(folder, tmp_path / "copy").copied == ["scenario.py"]


def test_the_driver_goes_in_compiled_only_for_a_python_that_makes_the_same_bytecode():
    source, inside = sandbox.driver_file("00000000")
    assert (source, inside) == (run.DRIVER.read_bytes(), sandbox.DRIVER_INSIDE)
    compiled, inside = sandbox.driver_file(importlib.util.MAGIC_NUMBER.hex())
    assert inside == sandbox.DRIVER_COMPILED and compiled[:4] == importlib.util.MAGIC_NUMBER
    assert marshal.loads(compiled[16:]).co_filename == sandbox.DRIVER_COMPILED  # its own name in tracebacks
