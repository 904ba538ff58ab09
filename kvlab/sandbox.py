"""Run a student's scripts where they can do no harm: a temporary copy, a time limit, an output cap.

The hand-in folder is never modified: its top-level files are copied into a fresh temporary folder,
and the command runs there with stdin closed, in its own process group (so that the whole group can
be killed), reading stdout and stderr as they come and stopping the run once either passes the cap.

run_jobs() runs many script runs (or class checks) in one such process, through _runner.py, so that
a grade does not start hundreds of interpreters. Whatever goes wrong becomes a message, never an
exception: a crash, an exit code, a syntax error, a missing file, a timeout or a flood of output.
Standard library only.
"""
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

RUNNER = Path(__file__).resolve().parent / "_runner.py"
REFERENCE_KVSIM = Path(__file__).resolve().parent / "kvsim.py"
LIBRARY = Path(__file__).resolve().parent.parent  # the folder holding the kvlab package
OUTPUT_CAP = 1_000_000       # bytes a single run may print on stdout (or on stderr)
LARGEST_COPY = 50_000_000    # a hand-in file bigger than this is not copied
MOST_FILES = 200             # nor more files than this (a hand-in has ten)
JOBS_FILE = ".kvlab-jobs.json"


@dataclass
class Run:
    """What one process did: exit code (None if it was stopped), its output, and why it was stopped."""
    code: int | None
    stdout: str
    stderr: str                      # the last few kilobytes only
    stopped: str = ""                # "" or why the sandbox killed it
    seconds: float = 0.0
    files: dict = field(default_factory=dict)

    @property
    def message(self):
        """One line saying what went wrong, or "" if the run exited 0."""
        if self.stopped:
            return self.stopped
        if self.code == 0:
            return ""
        return f"exited with code {self.code}" + (f": {last_line(self.stderr)}" if last_line(self.stderr) else "")


def last_line(text):
    """The last non-blank line of `text`, stripped ("" if none)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def copy_folder(source, target):
    """Copy the top-level files of `source` (not its subfolders, at most MOST_FILES) into `target`."""
    if source is None or not Path(source).is_dir():
        return
    for entry in sorted(Path(source).iterdir())[:MOST_FILES]:
        try:
            if entry.is_file() and entry.stat().st_size <= LARGEST_COPY:
                shutil.copyfile(entry, Path(target) / entry.name)
        except OSError:
            pass  # an unreadable file is the same as a missing one for the checks


def child_env():
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT")}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONUTF8="1", PYTHONIOENCODING="utf-8")
    return env


def run(folder, argv, *, files=None, timeout=10.0, cap=OUTPUT_CAP, read=()):
    """Run `python argv...` in a temporary copy of `folder`; `files` ({name: text}) are added first.

    `read` names files to read back (capped) from the copy afterwards, into Run.files.
    """
    with tempfile.TemporaryDirectory(prefix="kvlab-run-") as scratch:
        copy_folder(folder, scratch)
        for name, text in (files or {}).items():
            Path(scratch, name).write_text(text, encoding="utf-8")
        result = _execute([sys.executable, *map(str, argv)], scratch, timeout, cap)
        for name in read:
            result.files[name] = _read_capped(Path(scratch, name), cap)
        return result


def _read_capped(path, cap):
    try:
        with open(path, "rb") as handle:
            return handle.read(cap).decode("utf-8", "replace")
    except OSError:
        return None


def _execute(command, cwd, timeout, cap):
    start = time.monotonic()
    deadline = start + timeout
    process = subprocess.Popen(command, cwd=cwd, env=child_env(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    out, err, err_total, stopped = bytearray(), bytearray(), 0, ""
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, "stdout")
        selector.register(process.stderr, selectors.EVENT_READ, "stderr")
        exited = None  # when the process was seen to have exited
        while selector.get_map() and not stopped:
            now = time.monotonic()
            if exited and now > exited + 0.5:
                break  # it exited, but a child of its still holds the pipes: killed below
            if now >= deadline:
                stopped = f"timed out after {timeout:g} s (an infinite loop?)"
                break
            events = selector.select(min(deadline - now, 0.1))
            if not events and exited is None and process.poll() is not None:
                exited = time.monotonic()  # read what is left in the pipes until they close
            for key, _ in events:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                elif key.data == "stdout":
                    out += chunk
                    if len(out) > cap:
                        stopped = f"printed more than {_size(cap)} on stdout (stopped)"
                else:
                    err_total += len(chunk)
                    err = (err + chunk)[-4096:]  # only the end is shown
                    if err_total > cap:
                        stopped = f"printed more than {_size(cap)} on stderr (stopped)"
    code = None
    if not stopped:
        try:
            code = process.wait(max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            stopped = f"timed out after {timeout:g} s (an infinite loop?)"
    _kill_group(process)
    process.stdout.close()
    process.stderr.close()
    return Run(None if stopped else code, out[:cap].decode("utf-8", "replace"),
               err.decode("utf-8", "replace"), stopped, time.monotonic() - start)


def _kill_group(process):
    """Kill the process and anything it started (they share its process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        pass
    if process.poll() is None:
        process.kill()
    process.wait()


def _size(cap):
    return f"{cap / 1_000_000:g} MB" if cap >= 1_000_000 else f"{cap:,} bytes"


def script_job(script, argv=(), *, kvsim="reference", read=()):
    """A run of `script argv...`; kvsim="reference" puts the lab's kvsim.py in place of the student's."""
    return {"kind": "script", "script": script, "argv": [str(arg) for arg in argv],
            "kvsim": kvsim, "read": list(read)}


def probe_job(check_name, module, attr):
    """A class check: kvlab.check.<check_name>(module.attr) inside the sandbox."""
    return {"kind": "probe", "check": check_name, "module": module, "attr": attr}


def run_jobs(folder, jobs, *, files=None, timeout=10.0, cap=OUTPUT_CAP):
    """Run `jobs` in one sandboxed process; one result dict per job, in order.

    Each script run has `timeout` seconds; after one has timed out the rest are not run. Class checks
    (probe jobs) limit each rule to a few seconds. The process as a whole is killed after the time all
    that may take, and the jobs it had not finished fail with the reason.
    A result has "code", "stdout", "stderr", "error" ("" if fine) and "files", or "report" for a probe.
    """
    spec = {"jobs": jobs, "timeout": timeout, "cap": cap, "library": str(LIBRARY),
            "reference_kvsim": str(REFERENCE_KVSIM)}
    files = dict(files or {}, **{JOBS_FILE: json.dumps(spec)})
    # Results are one JSON line per job, each job's stdout capped at `cap`; a few may be that large.
    process_cap = cap * 8 + 100_000 * len(jobs)
    probes = sum(job["kind"] == "probe" for job in jobs)
    limit = timeout * (3 if probes else 1) + 1 + 0.05 * len(jobs)  # plus start-up and the quick runs
    done = run(folder, [RUNNER, JOBS_FILE], files=files, timeout=limit, cap=process_cap)
    results = []
    for line in done.stdout.splitlines():
        try:
            results.append(json.loads(line))
        except json.JSONDecodeError:
            break  # a line cut short by the kill
    if len(results) < len(jobs):
        why = done.message or "the run ended early (did the code call os._exit?)"
        if "timed out" in why:
            why = f"timed out (the runs together took more than {limit:.3g} s; an infinite loop?)"
        first = len(results)
        results.append(_failed(why))
        results += [_failed(f"not run: an earlier run in the same process failed ({why})")
                    for _ in range(first + 1, len(jobs))]
    return results[:len(jobs)]


def _failed(message):
    return {"code": None, "stdout": "", "stderr": "", "error": message, "files": {}}
