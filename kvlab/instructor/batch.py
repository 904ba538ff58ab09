"""Grade hand-in folders, step by step, without trusting them: one folder (Batch.grade) and many (grade_all).

Each folder is first copied into a private snapshot (kvlab.instructor.layout: its top-level regular
files only, or those of a common wrong layout or a .zip), so that files appearing or vanishing later
change nothing; a grade is cached under the snapshot's content. The student's code then runs under
bubblewrap (kvlab.instructor.sandbox), in one process per folder that is sent its jobs a list at a
time (Batch.run_steps: the public rules of summarize.py, kvsim.py's classes and scenario.py, then their
hidden rules; a list that ended the process unlike a process of its own would, runs again alone), and
only reports raw outcomes; the rules, the hidden random cases (from --course's secret, else --seed) and
every verdict stay in this process, with the reference's answers (kvlab.instructor.reference), behind
kvlab.instructor.judge. A folder's own problem is a row in its report, never the end of the batch.

KVLAB_NO_ISOLATION=1 runs the code as a plain child process with the grader's rights and environment:
it can read what you can, and a daemon that leaves its session outlives the grade. Trusted code only.
"""
import hashlib
import json
import math
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .. import files
from ..check import run as _run
from ..errors import visible
from ..i18n import Msg, t
from . import judge, sandbox
from .judge import ARTIFACT_STEP, PROCESSES, TITLES, Report
from .layout import LayoutError, take
from .measured import lab_measurement, own_records
from .reference import Reference
from . import similarity
from .scripts import Readers, causes, explain, read_handin, refusals

DEFAULT_TIMEOUT = 1.0     # CPU seconds a student's run may take (its cgroup's clock): a correct lab script takes milliseconds
CACHE_VERSION = "3"       # bump when a grade's meaning changes without kvlab's source changing
INTERRUPTED = "interrupted (Ctrl-C) before this folder was graded"
MOST_JOBS = sandbox.WORKERS // len(PROCESSES)  # folders at once (each runs one sandboxed process at a time)
VOLATILE = {"timeout", "killed", "protocol", "not-run"}  # what a busy or broken machine can cause: never cached
HANDIN_RUNS = 10          # a hand-in's runs together may take as long as this many runs' own deadlines (30 s)


@dataclass
class Grade:
    """One folder's result: a Report per step, the flags raised on the folder, and whether it was isolated."""
    folder: str
    cases: str                       # the fingerprint of the hidden cases' seed (never the seed)
    steps: dict                      # step number -> Report
    flags: dict = field(default_factory=dict)   # flag -> detail (e.g. "similar-to-reference": "kvsim.py 0.97")
    isolated: bool = True
    error: str = ""                  # why the folder could not be graded at all ("" if it was)
    marks: dict = field(default_factory=dict)   # script -> its marks for similarity (kvlab.instructor.reader)
    volatile: bool = False           # a run timed out, was killed or broke: this grade is never cached
    practice: bool = False           # graded without --course: practice mode, marked in every output

    @property
    def passed(self):
        return not self.error and all(report.passed for report in self.steps.values())

    @property
    def score(self):
        return sum(report.passed for report in self.steps.values()) if not self.error else 0

    def as_dict(self, marks=False):
        found = {"folder": self.folder, "hidden_cases": self.cases, "passed": self.passed, "score": self.score,
                 "max": len(TITLES), "isolated": self.isolated, "flags": self.flags, "error": self.error,
                 "practice": self.practice,
                 "steps": {str(number): report.as_dict() for number, report in self.steps.items()}}
        return {**found, "marks": {name: list(value) for name, value in self.marks.items()}} if marks else found

    @classmethod
    def from_dict(cls, data):
        return cls(data["folder"], data["hidden_cases"], {int(number): Report.from_dict(report)
                                                 for number, report in data["steps"].items()},
                   dict(data["flags"]), data["isolated"], data["error"],
                   {name: tuple(value) for name, value in data.get("marks", {}).items()})

    def __str__(self):
        lines = [f"{shown(self.folder)} (hidden cases {self.cases})"
                 f"{'' if self.isolated else ' — NOT ISOLATED'}{' — PRACTICE (no --course)' if self.practice else ''}"]
        if self.error:
            lines.append(f"  not graded: {shown(self.error)}")
        for flag, detail in self.flags.items():
            lines.append(f"  ! {flag}: {shown(detail)}")
        for number, report in self.steps.items():
            judged = [row for row in report.rows if not row.skipped]
            good = sum(row.ok for row in judged)
            lines.append(f"{number} {'✓' if report.passed else '✗'} {t(TITLES[number]):<38} {good}/{len(judged)}")
            for row in report.failures:
                lines += [f"    ✗ {shown(row.rule)}", f"        {shown(row.hint, 1000)}"]
            if report.note:
                lines.append(f"    {shown(report.note, 1000)}")
        lines.append(t("check.steps-ok", ok=self.score, total=len(TITLES)))
        return "\n".join(lines)


def shown(text, limit=300):
    """A student's text as it may reach a terminal: one line, control and format characters escaped visibly
    (so that folders "twin?" and "twin" + newline are told apart)."""
    return visible(text, limit)



def seed_fingerprint(seed):
    """A short fingerprint of the hidden cases' seed: tells two runs apart, never lets anyone redraw the cases."""
    return hashlib.sha256(f"kvlab-hidden-cases|{seed}".encode()).hexdigest()[:10]



@dataclass(frozen=True)
class Options:
    """How a batch is graded: the seed of the hidden cases, the time limit per run, and the sandbox."""
    seed: object = 0                 # an int (practice mode), or the course's keyed seed (a hex string)
    timeout: float = DEFAULT_TIMEOUT
    isolation: bool = True
    course: str = ""                 # the course file's fingerprint ("" in practice mode)


class Interrupted(Exception):
    """The batch was stopped (Ctrl-C): no more student code is started."""


class Batch:
    """What the folders of one run share: the options, the reference, its answers, the cache, a stop switch."""

    def __init__(self, options=Options(), cache=None, course=None):
        self.options, self.cache = options, Path(cache) if cache else None
        self.lab = lab_measurement(course)
        self.in_course = course is not None
        self.readers = Readers()  # one reader of source per grading thread: nothing shared across hand-ins
        self.repeat = course is not None  # a course's hand-in runs twice: verdicts that differ are flagged
        self.local = threading.local()  # this thread's hand-in: its wall-clock deadline
        self.expect = Reference()         # the lab's answers, computed once per case for the whole batch
        self.source = source_digest(options.isolation, self.lab.path) if cache else ""
        self.stop = threading.Event()
        self.fallback = False  # without bubblewrap: the autograder's fallback (kvlab.instructor.fallback), else a plain child

    def grade(self, folder):
        """The Grade of one folder, from the cache if its snapshot was graded before; whatever it contains."""
        if self.stop.is_set():
            return self.failed(folder, INTERRUPTED)
        if Path(folder).is_symlink():  # a link to a classmate's folder would be graded as theirs
            refused = self.failed(folder, "the folder is a symbolic link: hand in a folder of your own")
            refused.flags["folder-is-link"] = shown(os.readlink(folder))
            return refused
        try:
            with tempfile.TemporaryDirectory(prefix="kvlab-grade-", dir=sandbox.scratch_dir()) as scratch:
                copy = Path(scratch) / "handin"
                try:
                    found, layout = take(folder, copy, Path(scratch) / "unzipped")
                except LayoutError as error:
                    refused = self.failed(folder, str(error))
                    refused.flags.update(error.flags)
                    return refused
                except OSError as error:  # the folder itself: gone, not a folder, not readable
                    return self.failed(folder, f"the folder cannot be read ({error.strerror or type(error).__name__})")
                entry = self.key(copy, found)
                grade = self.cached(entry, folder)
                if grade is None:
                    grade = self.grade_copy(folder, copy, found)
                    self.store(entry, grade)
                grade.flags = {**layout, **grade.flags}  # after the cache: it is keyed by what was copied
                return grade
        except Interrupted:
            return self.failed(folder, INTERRUPTED)
        except sandbox.SandboxUnavailable as error:  # the machine's problem, not the folder's: a row, not the end
            return self.failed(folder, f"the sandbox failed: {error}")
        except Exception as error:  # noqa: BLE001 (one folder's problem must not end the batch)
            from ..cli import debugging
            if debugging():  # under pytest or KVLAB_DEBUG=1 a bug of kvlab keeps its traceback
                raise
            return self.failed(folder, f"grader error: {type(error).__name__}")

    def grade_copy(self, folder, copy, found):
        """Grade a snapshot: run the student's code and judge it and its saved files (twice for a course:
        verdicts that differ between the two are flagged nondeterministic, the lower kept, never cached), read
        the scripts, and flag what is odd."""
        refused = refusals(found)
        texts = self.texts(copy, refused)
        reports, kinds, over = self.judged(copy, texts)
        flags = {}
        if self.repeat and not kinds & VOLATILE:
            again, kinds_again, over_again = self.judged(copy, texts)
            differ = [number for number in TITLES if _verdicts(reports[number]) != _verdicts(again[number])]
            if differ and not kinds_again & VOLATILE:
                flags["nondeterministic"] = "steps " + ", ".join(map(str, differ))
                reports = {number: min((reports[number], again[number]), key=_held) for number in TITLES}
            kinds, over = kinds | kinds_again, over or over_again
        if not self.lab.real:  # no course measurement: say that step 8 compared nothing with one
            number = ARTIFACT_STEP["measured.json"]
            reports[number].note = (Msg("grade.ttft-not-compared-course") if self.in_course
                                    else Msg("grade.ttft-not-compared", path=self.lab.name))
        reading = read_handin(copy, self.readers)
        holds = {path.stem for path in Path(copy).glob("*.py")}
        for number, cause in causes(reading, found, holds).items():
            if not reports[number].passed:
                reports[number] = explain(reports[number], cause)
        flags.update({name: ", ".join(items) for name, items in sandbox.flag_items(found) if items})
        own = texts.get("ttft.jsonl")
        if self.lab.real and own is not None and own_records(own) != self.lab.records:
            flags["ttft-changed"] = "ttft.jsonl"
        if reading.unread:
            flags["not-read"] = ", ".join(reading.unread)
        if over:
            flags["over-time"] = f"{self.handin_seconds:g} s"
        like = similarity.to_reference(reading.marks)
        if like:
            flags["similar-to-reference"] = like
        return Grade(str(folder), seed_fingerprint(self.options.seed), reports, flags, self.options.isolation,
                     marks=reading.marks, volatile=bool(kinds & VOLATILE) or "nondeterministic" in flags
                     or bool(reading.unread))

    def texts(self, copy, refused):
        """{file name: text, or None if missing or refused} of the snapshot's saved files, and "$lab": the
        measured file it is compared with (the course's)."""
        texts = {name: None if name in refused else judge.read_text(Path(copy) / name)
                 for name in (*ARTIFACT_STEP, "ttft.jsonl")}
        texts["$lab"] = "\n".join(self.lab.lines) + "\n"
        return texts

    @property
    def handin_seconds(self):
        """Wall-clock seconds a hand-in's runs may take together (each pass of a course's two): HANDIN_RUNS times
        a run's time and its start-up allowance (a buggy hand-in's endless loops fit, on a busy machine too)."""
        return HANDIN_RUNS * judge.run_deadline(self.options.timeout)

    def judged(self, copy, texts):
        """({step: Report} of one run of the student's code, the raw outcome kinds seen, whether the hand-in's
        wall-clock time ran out)."""
        kinds = set()  # what became of each run: a timeout or a kill may be the machine's, not the code's
        self.local.deadline, self.local.over = time.monotonic() + self.handin_seconds, False
        isolation = self.options.isolation
        with sandbox.budget() if isolation or self.fallback else sandbox.cgroups.Unlimited() as budget:  # one cgroup
            if isolation:  # each takes a free slot
                backend = sandbox.Bubblewrap(budget=budget, deadline=self.local.deadline)
            elif self.fallback:
                from .fallback import Unprivileged
                backend = Unprivileged(budget=budget, deadline=self.local.deadline)
            else:  # KVLAB_NO_ISOLATION=1: a plain child process (trusted code only), within the hand-in's time
                backend = _run.Plain(deadline=self.local.deadline)
            if self.stop.is_set():
                raise Interrupted()
            results, replaced = judge.grade_steps(copy, backend, self.expect, seed=self.options.seed, texts=texts,
                                                  timeout=self.options.timeout, kinds=kinds, late=self.late)
        return judge.reports(results, replaced), kinds, self.local.over

    def late(self):
        """Has this thread's hand-in used its wall-clock time, or the batch stopped? (then no more of its code is
        started)"""
        if self.stop.is_set():
            raise Interrupted()
        if time.monotonic() < getattr(self.local, "deadline", math.inf):
            return False
        self.local.over = True
        return True


    def failed(self, folder, why):
        """The row of a folder that could not be graded: it still gets its line in the table."""
        return Grade(str(folder), seed_fingerprint(self.options.seed), {}, {}, self.options.isolation, error=why)

    # The cache: one JSON file per snapshot content, options and kvlab source.

    def key(self, copy, found):
        """What a grade depends on: the snapshot's files, what it refused, the options, the grader's source."""
        options = self.options
        digest = hashlib.sha256(f"{CACHE_VERSION}|{options.course}|{options.seed}|{options.timeout!r}|{options.isolation}|"
                                f"{self.source}".encode())
        entries = sorted(Path(copy).iterdir())
        digest.update(len(entries).to_bytes(8, "big"))
        for path in entries:  # each name and content with its length first: no two trees give one byte string
            name, data = os.fsencode(path.name), path.read_bytes()
            digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
        refused = {flag: sorted(items) for flag, items in sandbox.flag_items(found)}
        digest.update(json.dumps(refused, sort_keys=True).encode())
        return digest.hexdigest()

    def cached(self, entry, folder):
        """The cached Grade of a snapshot, under this folder's name; None if there is none (or it is damaged)."""
        path = self.cache / f"{entry}.json" if self.cache else None
        if path is None or not path.is_file():
            return None
        try:
            grade = Grade.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError, AttributeError, OSError):
            return None  # a damaged entry is graded again
        grade.folder = str(folder)
        return grade

    def store(self, entry, grade):
        """Keep a grade for the next run, unless it depends on this run's machine (a timeout, a kill, a broken run)."""
        if not self.cache or grade.error or grade.volatile:
            return
        try:
            self.cache.mkdir(parents=True, exist_ok=True)
            files.write_atomically(self.cache / f"{entry}.json", json.dumps(grade.as_dict(marks=True)))
        except OSError:
            pass  # a cache that cannot be written only costs time


def source_digest(isolation, measured):
    """A hash of what grades depend on besides the folder: kvlab's source, the lab's file, the interpreter."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(Path(measured).read_bytes())
    python = sandbox.interpreter().path if isolation and sandbox.interpreter() else sys.executable
    status = os.stat(python)
    digest.update(f"{python}|{status.st_size}|{status.st_mtime_ns}".encode())
    return digest.hexdigest()



# --- many folders -------------------------------------------------------------------------------------

def grade_all(folders, seed=0, timeout=DEFAULT_TIMEOUT, isolation=True, jobs=None, cache=None, progress=None,
              finished=None, course=None):
    """(a Grade for each folder in order, whatever it contains; whether Ctrl-C stopped the run).

    `jobs` folders are graded at once (default: the number of cores). Ctrl-C stops the run: the
    folders graded so far keep their grades, the others say they were not graded. `finished(grade)` is
    called as each folder's grade is made (the gradebook is written as folders finish).
    """
    batch = Batch(Options(seed, timeout, isolation, course.fingerprint if course else ""), cache, course)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(folders) or 1, MOST_JOBS))
    grades, done, lock = [None] * len(folders), [0], threading.Lock()

    def one(index):
        try:
            grades[index] = batch.grade(folders[index])
            if finished:
                with lock:
                    finished(grades[index])
        except KeyboardInterrupt:
            batch.stop.set()  # before this worker takes another folder
            raise
        finally:
            with lock:
                done[0] += 1
                if progress:
                    progress(done[0], len(folders))

    interrupted, futures = False, []
    with ThreadPoolExecutor(jobs, thread_name_prefix="kvlab-grade") as pool:
        try:
            futures = [pool.submit(one, index) for index in range(len(folders))]
            for future in futures:
                future.result()
        except KeyboardInterrupt:
            interrupted = True
            batch.stop.set()  # folders being graded stop before their next process; the rest never start
            for future in futures:
                future.cancel()
    batch.readers.close()
    grades = [grade or batch.failed(folder, INTERRUPTED) for grade, folder in zip(grades, folders)]
    similarity.mark(grades)
    return grades, interrupted


def _verdicts(report):
    return [(row.rule_id, row.ok) for row in report.rows]


def _held(report):
    """Order of two runs' reports of a step: the one with fewer rules held first (a nondeterministic
    hand-in keeps its lower verdicts)."""
    return sum(row.ok for row in report.rows)
