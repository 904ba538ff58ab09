"""Run jobs on a student's files in another process, through driver.py, and return raw outcomes.

run_jobs() copies the files into a scratch folder, starts the driver there (a plain child process,
or the sandbox given as `backend`; a backend with launch_files() takes the files themselves and copies
them where its driver runs), hands it the spec on stdin and reads one result line per job.
When the process itself fails (it passes the deadline, prints too much, is killed by a signal, or
breaks the protocol) the first job without a result says so and the later ones are "not-run".
The result channel is bounded per job (line_limit()): a longer line stops the process as a "flood"
the moment it is seen, and no line over its bound is ever decoded. A backend may give a CPU clock
(the sandbox's cgroup): the deadline is then the process's CPU time, the wall clock only a backstop.
"killed" is said on evidence only (a signal we saw, our own kill, the cgroup's OOM counter); a
process that merely exits early is "protocol" with its exit code.
Nothing the student's code does makes run_jobs raise. run_ops_here() runs an "ops" job on objects of
this process instead (a notebook's classes), with a best-effort time limit.
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
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Callable, NamedTuple

from . import driver

DRIVER = Path(driver.__file__).resolve()
TIMEOUT = 3.0               # seconds per job
CAP = 16_000                # bytes a script may print on stdout, of each file read back (and the process on stderr):
                            # scenario.py prints under 2 KB for the lab's cases, measured.json is under 1 KB
STARTUP_ALLOWANCE = 2.0     # seconds for the interpreter (and a sandbox) to start on a busy machine
PER_JOB_ALLOWANCE = 0.1     # seconds per job for the driver's own work (imports, copies, JSON)
EXIT_GRACE = 0.5            # seconds to drain the pipes after the driver exited (a child may hold them)
JSON_GROWTH = 6             # one byte of output takes up to six in a result line ("\u0000")
LINE_SLACK = 4_096          # bytes of a result line besides the outputs or op results it carries
LINE_PER_OP = 64            # bytes per op of an "ops" job: the lab's largest (601 ops, keys() after each of 200
                            # accesses) takes 12.3 KB, 21 per op; this bound is 42.5 KB for it
WALL_FACTOR = 3             # with a CPU clock, the wall-clock backstop is this many times the CPU deadline
STDERR_CAP = 1_000_000      # bytes the process may write on stderr (a student's debug prints): only the tail is kept
POLL = 0.05                 # seconds between looks at a CPU clock
CHUNK = 65_536              # bytes per read from a pipe
OPS = {"new": 1, "fn": 1, "access": 3, "keys": 1, "used": 1, "in": 2, "attr": 2, "attr?": 2, "call": 2,
       "fresh": 1}  # least args
KINDS = {"ops": {"ok", "missing", "import", "missing-attr", "timeout"},
         "script": {"ok", "exit", "crash", "timeout", "flood", "missing"}}


class Launch(NamedTuple):
    """How a backend starts the driver.

    popen: Popen arguments. ended(returncode, stderr) -> None, or the evidence that the process was
    killed: {"signal": n} and maybe "cause" (e.g. "memory"). clock() -> CPU seconds the process and
    all it started have used (None: the backend has no such clock; the deadline is wall-clock time).
    """
    popen: dict
    ended: Callable
    clock: Callable = None
    until: float = None     # a wall-clock time (time.monotonic()) the process never outlives: its hand-in's time


class Plain:
    """The driver as a plain child process in the scratch folder: limits time and output, hides nothing.
    `deadline` (time.monotonic()): the wall-clock time of a hand-in's runs; a process still running then stops."""

    def __init__(self, deadline=None):
        self.deadline = deadline

    @contextmanager
    def launch(self, scratch):
        yield Launch({"args": [sys.executable, "-I", "-S", str(DRIVER)], "cwd": scratch},
                     lambda returncode, stderr: {"signal": -returncode} if returncode < 0 else None,
                     until=self.deadline)


def script_job(script, argv=(), *, files=None, read=()):
    """A "script" job: `python script argv...`, with input `files` {name: text}, reading back `read`."""
    return {"kind": "script", "script": script, "argv": [str(arg) for arg in argv],
            "files": dict(files or {}), "read": list(read)}


def ops_job(module, ops):
    """An "ops" job: `ops` on objects of the student's `module` (e.g. "kvsim")."""
    return {"kind": "ops", "module": module, "ops": [list(op) for op in ops]}


def run_ops_here(namespace, ops, timeout=TIMEOUT, folder=None):
    """An "ops" job on objects of this process: `namespace` is a module or a dict name -> class/function.

    The outcome is what the driver would report. The time limit is best effort: a SIGALRM, in the main
    thread only (elsewhere there is none), which Python notices only between bytecodes; an exception
    is located ("where") in `folder` (default: the module's folder; else any file outside the stdlib).
    """
    check_ops(ops)
    if folder is None and getattr(namespace, "__file__", None):
        folder = os.path.dirname(os.path.abspath(namespace.__file__))
    return driver.run_ops(namespace, ops, timeout, folder)


def run_jobs(folder, jobs, *, files=None, copy=None, timeout=TIMEOUT, cap=CAP, backend=None):
    """Run `jobs` on a scratch copy of `folder` in one process; one outcome dict per job, in order.

    `copy` names the files of `folder` to copy (default: its top-level *.py files; symlinks never),
    `files` ({name: text}) are written into the copy too. Each job has `timeout` seconds; the process
    as a whole has that plus allowances (deadline()).
    """
    return converse(folder, (jobs, {}), staged=files, copy=copy, timeout=timeout, cap=cap, backend=backend)[0]


def run_together(folder, groups, *, timeout=TIMEOUT, cap=CAP, backend=None, wanted=None):
    """The outcomes of each group of jobs, sent one group after another to one process; None for a group not run.

    `groups` is [(jobs, input files)]: what run_jobs would run in a process each. One process starts once
    where there would be several, and the code of a group never sees the jobs or files of a later one
    (they are sent once every job before them is reported). wanted(index, outcomes_of), if given, is
    asked before each group is sent: False skips it (None). outcomes_of(i) gives the outcomes of a group
    already run, or None if its lines are broken. A group's outcomes are kept when they are what a
    process of its own would have given: every job reported by the driver, or the driver stopped in it
    by its own rule (a job's timeout or flood: its later jobs not run). When the process stopped otherwise
    (the deadline, a kill, a protocol break, stderr over its cap), that group and the later ones get None:
    the caller runs those alone (run_jobs) if it needs them. Each job keeps its own time limit; the
    process's deadline is the sum of the groups' own. A group with no jobs gets [] and is never sent.
    """
    results, starts = [None] * len(groups), {}  # starts: {group sent: the number of its first job}
    told = {}  # {group: its outcomes as parsed for wanted(), or None if broken}

    def choose(after, outcomes_of):
        """The next group to send after group `after`, or None."""
        for index in range(after + 1, len(groups)):
            if not groups[index][0]:
                results[index] = []
            elif wanted is None or wanted(index, outcomes_of):
                return index
        return None

    def following(sent, out):
        split = []

        def outcomes_of(index):
            if index not in told:
                split[:] = split or bytes(out).split(b"\n", len(sent))
                start, size = starts[index], len(groups[index][0])
                lines = split[start:start + size]
                parsed = [parse(line, number, sent) for number, line in enumerate(lines, start)]
                told[index] = parsed if len(parsed) == size and None not in parsed else None
            return told[index]
        index = choose(max(starts), outcomes_of)
        if index is None:
            return None
        starts[index] = len(sent)
        return groups[index]

    first = choose(-1, lambda index: None)
    if first is None:
        return results
    starts[first] = 0
    outcomes, reported, stopped_itself = converse(folder, groups[first], timeout=timeout, cap=cap, backend=backend,
                                                  following=following)
    for index, start in starts.items():
        end = start + len(groups[index][0])
        if end <= reported or (stopped_itself and start < reported):
            results[index] = outcomes[start:end]
    return results


class Talk:
    """What the parent says to the driver on its stdin: one line per list of jobs, the next only once every
    job sent before it is reported (following(the jobs sent, out) gives it: (jobs, files), or None to end),
    then the end (stdin closed). Keeps the jobs sent, their result lines' bounds, and the process's deadline."""

    def __init__(self, timeout, cap, wall, following=None):
        self.timeout, self.cap, self.wall, self.following = timeout, cap, wall, following
        self.jobs, self.lines, self.seconds = [], [], 0.0
        self.pending, self.ending = bytearray(), False

    def send(self, jobs, files):
        check_jobs(jobs)
        for name in files:
            check_name(name)
        spec = {"timeout": self.timeout, "cap": self.cap, "jobs": jobs, "files": dict(files)}
        if self.wall is not None:  # each job's limit is CPU time too, wall time a backstop
            spec["wall"] = self.wall
        self.pending += json.dumps(spec).encode() + b"\n"
        self.jobs += jobs
        self.lines += [line_limit(job, self.cap) for job in jobs]
        self.seconds += deadline(jobs, self.timeout)

    def reported(self, out):
        """Every job sent is reported (the first len(self.jobs) lines of `out`): send the next list, or end."""
        more = self.following(self.jobs, out) if self.following else None
        if more:
            self.send(*more)
        else:
            self.ending = True


def converse(folder, first, *, staged=None, copy=None, timeout=TIMEOUT, cap=CAP, backend=None, following=None):
    """One process of the driver on a scratch copy of `folder` (`copy` and `staged` as run_jobs' copy and
    files): (outcomes of every job sent, how many the driver reported, whether it stopped by its own rule).
    It gets `first` ((jobs, input files)), then each list following() gives (see Talk); a job the driver
    does not know is a ValueError before any process starts."""
    for name in staged or {}:
        check_name(name)
    with ExitStack() as stack:
        chosen = sources(Path(folder), copy, staged or {})
        if hasattr(backend, "launch_files"):  # it copies the files itself: no scratch folder to write and remove
            starting = backend.launch_files(chosen)
        else:
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="kvlab-run-", ignore_cleanup_errors=True))
            stage(chosen, Path(scratch))
            starting = (backend or Plain()).launch(scratch)
        with starting as launch:
            talk = Talk(timeout, cap, timeout * WALL_FACTOR if launch.clock is not None else None, following)
            talk.send(*first)
            process = subprocess.Popen(**launch.popen, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, start_new_session=True)
            seen = watch(process, talk, max(cap, STDERR_CAP), clock=launch.clock, until=launch.until)
            stopped_by = launch.ended(process.returncode, seen.stderr)
    return settle(talk.jobs, seen, stopped_by)


def deadline(jobs, timeout):
    """Seconds the whole process may take: one job's time, the start-up, and a little per job."""
    return timeout + STARTUP_ALLOWANCE + PER_JOB_ALLOWANCE * len(jobs)


def line_limit(job, cap):
    """Bytes a job's result line may take, newline included: its op results, or its stdout and the files it reads."""
    if job["kind"] == "ops":
        return LINE_SLACK + LINE_PER_OP * len(job["ops"])
    return LINE_SLACK + JSON_GROWTH * (cap * (1 + len(job.get("read", ()))) + driver.UTF8_WIDEST * driver.STDERR_TAIL)


def sources(folder, copy, files):
    """{name: a regular file of `folder` (a Path), or the text to write} for a run's folder.

    The named files of `folder` (default: every top-level *.py; a symlink never), then `files` ({name: text}).
    """
    names = copy if copy is not None else sorted(path.name for path in folder.glob("*.py") if is_plain(path.name))
    chosen = {}
    for name in names:
        check_name(name)
        source = folder / name
        if source.is_file() and not source.is_symlink():  # a link could point anywhere on this machine
            chosen[name] = source
    chosen.update(files)
    return chosen


def stage(chosen, scratch):
    """Copy or write the files of sources() into the folder `scratch`."""
    for name, source in chosen.items():
        if isinstance(source, Path):
            shutil.copyfile(source, scratch / name)
        else:
            (scratch / name).write_text(source, encoding="utf-8")


class Seen(NamedTuple):
    """What a process did: its result lines, the end of its stderr, how it ended."""
    stdout: bytes
    stderr: str
    returncode: int
    stopped: str            # "" or why we killed it: "timeout" or "flood"


def watch(process, talk, stderr_limit, clock=None, until=None):
    """Talk to the process (a Talk) and read its output until it ends, passes the deadline or a limit; then
    kill its group.

    talk.lines bounds each job's result line (in order; a line more is bounded by LINE_SLACK): a line that
    grows past its bound stops the process as a "flood" as soon as it is read. talk.seconds is the
    deadline: with a `clock`, CPU time, and wall time a backstop of WALL_FACTOR times that. When a
    deadline passes, what the pipes already hold is read first: a run that finished is never a timeout. `until`
    (time.monotonic()), if given, ends the process at that time whatever its own deadline says (its hand-in's).
    Once every job sent is reported, talk.reported() gives the next list or ends the talk (stdin closed).
    """
    started = time.monotonic()
    out, err, err_total, stopped, exited = bytearray(), bytearray(), 0, "", None
    scanned, count = 0, 0  # out[:scanned] is complete lines, `count` of them
    stdin = process.stdin
    os.set_blocking(stdin.fileno(), False)

    def ends():
        own = started + talk.seconds * (WALL_FACTOR if clock else 1)
        return own if until is None else min(own, until)

    def feed(selector):
        """Write what the talk has to say, as far as the pipe takes it; close stdin once it is all said."""
        if stdin.closed:
            return
        try:
            while talk.pending:
                del talk.pending[:os.write(stdin.fileno(), talk.pending[:CHUNK])]
        except BlockingIOError:
            pass
        except OSError:  # the driver is gone (or closed its stdin): nobody to talk to
            talk.pending.clear()
            talk.ending = True
        registered = stdin in selector.get_map()
        if talk.pending and not registered:
            selector.register(stdin, selectors.EVENT_WRITE, "in")
        elif not talk.pending and registered:
            selector.unregister(stdin)
        if not talk.pending and talk.ending:
            stdin.close()

    def take(key, chunk, selector):
        nonlocal err, err_total, scanned, count
        if key.data == "err":
            err_total += len(chunk)
            err = (err + chunk)[-driver.UTF8_WIDEST * driver.STDERR_TAIL:]
            return "flood" if err_total > stderr_limit else ""
        out.extend(chunk)
        while True:
            lines = talk.lines
            if count > len(lines):
                return "flood"  # a line more than the jobs: outcomes() calls it the protocol break it is
            limit = lines[count] if count < len(lines) else LINE_SLACK
            end = out.find(b"\n", scanned, scanned + limit)
            if end < 0:
                return "flood" if len(out) - scanned >= limit else ""
            scanned, count = end + 1, count + 1
            if count == len(talk.jobs) and not talk.ending:
                talk.reported(out)
                feed(selector)

    def ready(selector, key):
        """Serve one ready pipe; the stop reason if a limit was passed."""
        if key.data == "in":
            feed(selector)
            return ""
        chunk = os.read(key.fd, CHUNK)
        if not chunk:
            selector.unregister(key.fileobj)
            return ""
        return take(key, chunk, selector)

    def drain(selector):
        """Read what the pipes hold now, without waiting; the stop reason if a limit was passed."""
        talk.ending, talk.pending[:] = True, b""  # nothing more is said to a process that is stopped
        feed(selector)
        while selector.get_map():
            found = selector.select(0)
            if not found:
                return ""
            for key, _ in found:
                stop = ready(selector, key)
                if stop:
                    return stop
        return ""

    looked = [started - POLL]  # when the CPU clock was last read

    def late():
        """Has the deadline passed? The CPU clock's if there is one (read at most every POLL seconds, however
        often the process writes), else the wall clock's."""
        now = time.monotonic()
        if now >= ends():
            return True
        if clock is None or now - looked[0] < POLL:
            return False
        looked[0] = now
        used = clock()
        return used is not None and used >= talk.seconds

    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, "out")
        selector.register(process.stderr, selectors.EVENT_READ, "err")
        try:
            feed(selector)
            while selector.get_map() and not stopped:
                if late():
                    stopped = drain(selector)  # what is already there counts, whoever was slow
                    if not stopped and selector.get_map() and process.poll() is None:
                        stopped = "timeout"
                    break
                now = time.monotonic()
                if exited is not None and now > exited + EXIT_GRACE:
                    break  # a child of the driver still holds the pipes: it is killed below
                wait = min(ends() - now, EXIT_GRACE, looked[0] + POLL - now if clock else EXIT_GRACE)
                for key, _ in selector.select(max(wait, 0)):
                    stopped = stopped or ready(selector, key)
                if exited is None and process.poll() is not None:
                    exited = time.monotonic()
        finally:
            kill(process)
            for pipe in (stdin, process.stdout, process.stderr):
                try:
                    pipe.close()
                except OSError:
                    pass
    tail = err.decode("utf-8", "replace")[-driver.STDERR_TAIL:]
    return Seen(bytes(out[:scanned]) if stopped == "flood" else bytes(out), tail, process.returncode, stopped)


def kill(process):
    """Kill the process and whatever it started in its session; wait for it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


def outcomes(jobs, seen, stopped_by):
    """One outcome per job: the driver's results, then what became of the process, then not-run."""
    return settle(jobs, seen, stopped_by)[0]


def settle(jobs, seen, stopped_by):
    """(outcomes(), how many of them the driver reported, whether it stopped itself by its rule)."""
    lines = seen.stdout.split(b"\n")
    results, bad = [], False
    for line in lines[:-1]:
        result = parse(line, len(results), jobs)
        if result is None:
            bad = True  # malformed, out of order, or one line too many: someone else wrote there too
            break
        results.append(result)
    if bad and len(results) == len(jobs):
        results.pop()
    stopped_itself = bool(results) and results[-1]["kind"] in ("timeout", "flood") and not bad  # the driver's rule
    reported = len(results)
    if len(results) < len(jobs) and not stopped_itself:
        job = jobs[len(results)]
        if bad:
            results.append(failed(job, "protocol", seen, code=seen.returncode))
        elif seen.stopped:
            results.append(failed(job, seen.stopped, seen))
        elif stopped_by:  # evidence: a signal we saw, or the cgroup's OOM counter
            results.append(failed(job, "killed", seen, **stopped_by))
        else:  # it exited without reporting every job (os._exit in the student's code?): its exit code
            results.append(failed(job, "protocol", seen, code=seen.returncode))
    return results + [failed(job, "not-run") for job in jobs[len(results):]], reported, stopped_itself


def parse(line, number, jobs):
    """The outcome on a result line, if it is well-formed and the one expected next; else None."""
    try:
        result = json.loads(line)
    except ValueError:
        return None
    if not isinstance(result, dict) or number >= len(jobs):
        return None
    said = result.pop("job", None)
    if type(said) is not int or said != number:
        return None
    kind, job = result.get("kind"), jobs[number]
    if kind not in KINDS[job["kind"]]:
        return None
    if job["kind"] == "script" and not (isinstance(result.get("stdout"), str)
                                        and isinstance(result.get("stderr"), str)
                                        and isinstance(result.get("files"), dict)):
        return None
    if kind in ("ok", "timeout", "missing-attr") and job["kind"] == "ops" \
            and not isinstance(result.get("results"), list):
        return None
    return result if well_formed(result, job) else None


def well_formed(result, job):
    """Does every field a judge reads have the shape the driver gives it? (Student code can write lines too.)"""
    raised = [result.get("raised")] if "raised" in result or result["kind"] in ("import", "crash") else []
    items = result.get("results") if job["kind"] == "ops" and isinstance(result.get("results"), list) else []
    for item in items:
        if not isinstance(item, dict) or ("raised" in item) == ("v" in item):
            return False
        raised += [item["raised"]] if "raised" in item else []
    files = result.get("files", {}) if job["kind"] == "script" else {}
    return (all(text is None or isinstance(text, str) for text in files.values())
            and all(isinstance(one, dict) and isinstance(one.get("type"), str) and isinstance(one.get("message"), str)
                    and all(isinstance(one.get(name), (str, type(None))) for name in ("where", "name", "function"))
                    for one in raised)
            and type(result.get("code", 0)) is int and isinstance(result.get("name"), (str, type(None))))


def failed(job, kind, seen=None, **details):
    """The outcome of a job the driver did not report: the process's fate, or "not-run"."""
    outcome = {"kind": kind, **details}
    if seen is not None:
        outcome["stderr"] = seen.stderr  # the process's, for the curious; a judge needs only the kind
    if job["kind"] == "script":
        outcome = {"stdout": "", "stderr": "", "files": {}, **outcome}
    return outcome


def check_jobs(jobs):
    """ValueError for a job the driver does not know (a bug of the caller, not the student's)."""
    for job in jobs:
        if job.get("kind") == "ops":
            check_name(job["module"] + ".py")
            check_ops(job["ops"])
        elif job.get("kind") == "script":
            check_name(job["script"])
            for name in [*job.get("files", {}), *job.get("read", [])]:
                check_name(name)
        else:
            raise ValueError(f"unknown job {job!r}")


def check_ops(ops):
    for op in ops:
        if not op or op[0] not in OPS or len(op) - 1 < OPS[op[0]]:
            raise ValueError(f"unknown op {op!r}")


def check_name(name):
    """ValueError unless `name` is a plain file name (we chose it: a student's odd names are skipped)."""
    if not is_plain(name):
        raise ValueError(f"not a plain file name: {name!r}")


def is_plain(name):
    """A file name of the scratch folder: no path, nothing hidden."""
    return bool(name) and not name.startswith(".") and not any(char in name for char in "/\\\0")
