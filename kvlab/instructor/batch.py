"""Grade hand-in folders, step by step, without trusting them: one folder (Batch.grade) and many (grade_all).

Each folder is first copied into a private snapshot (kvlab.instructor.layout: its top-level regular
files only, or those of a common wrong layout or a .zip), so that files appearing or vanishing later
change nothing; a grade is cached under the snapshot's content. The student's code then runs under
bubblewrap (kvlab.instructor.sandbox), in one process per folder that is sent its jobs a list at a
time (Batch.run_steps: the public rules of summarize.py, kvsim.py's classes and scenario.py, then their
hidden rules; a list that ended the process unlike a process of its own would, runs again alone), and
only reports raw outcomes; the rules, the hidden random cases (from --course's secret, else --seed) and
every verdict stay in this process, with the reference's answers (kvlab.instructor.oracle), behind
kvlab.instructor.judge. A folder's own problem is a row in its report, never the end of the batch.

KVLAB_NO_ISOLATION=1 runs the code as a plain child process with the grader's rights and environment:
it can read what you can, and a daemon that leaves its session outlives the grade. Trusted code only.
"""
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .. import summarize
from ..errors import visible
from ..i18n import Msg, t
from . import judge, sandbox
from .judge import ARTIFACT_STEP, HIDDEN, PROCESSES, TITLES, Report, Row, hold_back
from .layout import LayoutError, take
from .measured import lab_measurement, measured_rows, own_measurement
from .oracle import Recording, Reference
from . import similarity
from .scripts import Readers, causes, explain, read_handin, refusals

DEFAULT_TIMEOUT = 1.0     # CPU seconds a student's run may take (its cgroup's clock): a correct lab script takes milliseconds
CACHE_VERSION = "3"       # bump when a grade's meaning changes without kvlab's source changing
INTERRUPTED = "interrupted (Ctrl-C) before this folder was graded"
MOST_JOBS = sandbox.WORKERS // len(PROCESSES)  # folders at once (each runs one sandboxed process at a time)
VOLATILE = {"timeout", "killed", "protocol", "not-run"}  # what a busy or broken machine can cause: never cached
PREPARED = 8              # sets of Runs kept by a batch (one per measured file seen: the lab's, and students' own)
ENDS_PROCESS = {"timeout", "flood", "killed", "protocol"}  # raw outcome kinds after which a process runs nothing
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


def _stopped_at(outcomes, places):
    """Where in its Run (`places`: each outcome's place there) the job that ended the process is (infinity:
    none did): a timeout, a flood, a kill or a protocol break, or the job before one not run. The jobs
    after it in the Run would not have run in a process of its own."""
    for number, outcome in enumerate(outcomes):
        kind = outcome.get("kind")
        if kind in ENDS_PROCESS:
            return places[number]
        if kind == "not-run" and number:
            return places[number - 1]
    return float("inf")



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
    """What the folders of one run share: the options, the reference, the oracle, the cache, a stop switch."""

    def __init__(self, options=Options(), cache=None, course=None):
        self.options, self.cache = options, Path(cache) if cache else None
        self.lab = lab_measurement(course)
        self.in_course = course is not None
        self.readers = Readers()  # one reader of source per grading thread: nothing shared across hand-ins
        self.repeat = course is not None  # a course's hand-in runs twice: verdicts that differ are flagged
        self.local = threading.local()  # this thread's hand-in: its wall-clock deadline
        self.oracle = Recording(Reference())
        self.source = source_digest(options.isolation, self.lab.path) if cache else ""
        self.stop = threading.Event()
        self.prepared, self.lock = {}, threading.Lock()  # runs(): {measured lines: the Runs}
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
        """Grade a snapshot: run the student's code and judge it (twice for a course: verdicts that differ
        between the two are flagged nondeterministic, the lower kept, never cached), judge the artifacts,
        read the scripts, and flag what is odd."""
        refused = refusals(found)
        own, misconception, problem = own_measurement(copy, refused)
        reports, kinds, over = self.judged(copy, own)
        flags = {}
        if self.repeat and not kinds & VOLATILE:
            again, kinds_again, over_again = self.judged(copy, own)
            differ = [number for number in TITLES if _verdicts(reports[number]) != _verdicts(again[number])]
            if differ and not kinds_again & VOLATILE:
                flags["nondeterministic"] = "steps " + ", ".join(map(str, differ))
                reports = {number: min((reports[number], again[number]), key=_held) for number in TITLES}
            kinds, over = kinds | kinds_again, over or over_again
        extra = judge.artifact_rows(copy, self.oracle, (own or self.lab).lines)
        for name, number in ARTIFACT_STEP.items():
            if name in refused and name != "measured.json":
                extra[number] = [Row(Msg("rule.artifact", file=name), False, "missing-file",
                                     Msg("seen.refused", files=Msg("seen.file-is", file=name, why=refused[name])))]
        extra[8] = measured_rows(copy, own, (misconception, problem), self.lab, self.oracle, refused)
        for number, rows in extra.items():
            report = reports[number]
            reports[number] = Report(report.title, hold_back(report.rows + rows), report.note)
        reports = judge.hold_after_earlier(reports, self.replaced)
        if not self.lab.real:  # no course measurement: say that step 8 compared nothing with one
            reports[8].note = (Msg("grade.ttft-not-compared-course") if self.in_course
                               else Msg("grade.ttft-not-compared", path=self.lab.name))
        reading = read_handin(copy, self.readers)
        holds = {path.stem for path in Path(copy).glob("*.py")}
        for number, cause in causes(reading, found, holds).items():
            if not reports[number].passed:
                reports[number] = explain(reports[number], cause)
        flags.update({name: ", ".join(items) for name, items in sandbox.flag_items(found) if items})
        if self.lab.real and own is not None and own.records != self.lab.records:
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

    @property
    def handin_seconds(self):
        """Wall-clock seconds a hand-in's runs may take together (each pass of a course's two): HANDIN_RUNS times
        a run's time and its start-up allowance (a buggy hand-in's endless loops fit, on a busy machine too)."""
        return HANDIN_RUNS * judge.run_deadline(self.options.timeout)

    def judged(self, copy, own):
        """({step: Report} of one run of the student's code, the raw outcome kinds seen, whether the hand-in's
        wall-clock time ran out); sets self.replaced (the steps fair scoring replaced)."""
        kinds = set()  # what became of each run: a timeout or a kill may be the machine's, not the code's
        self.local.deadline, self.local.over = time.monotonic() + self.handin_seconds, False
        isolation = self.options.isolation
        with sandbox.budget() if isolation or self.fallback else sandbox.cgroups.Unlimited() as budget:  # one cgroup
            if isolation:  # each takes a free slot
                backend = sandbox.Bubblewrap(budget=budget, deadline=self.local.deadline)
            elif self.fallback:
                from .fallback import Unprivileged
                backend = Unprivileged(budget=budget, deadline=self.local.deadline)
            else:
                backend = None  # KVLAB_NO_ISOLATION=1: a plain child process (trusted code only)
            plan = judge.Plan(execute=self.executor(copy, backend, kinds), oracle=self.oracle,
                              seed=self.options.seed, lab_lines=(own or self.lab).lines)
            reports, self.local.replaced = self.run_steps(copy, backend, kinds, plan)
        return {number: reports[number] for number in TITLES}, kinds, self.local.over

    @property
    def replaced(self):
        return self.local.replaced

    def late(self):
        """Has this thread's hand-in used its wall-clock time? (then no more of its code is started)"""
        if time.monotonic() < getattr(self.local, "deadline", math.inf):
            return False
        self.local.over = True
        return True

    def runs(self, plan):
        """A hand-in's three Runs in the order they share a process: summarize.py, kvsim.py's classes, then
        scenario.py (which may turn out not to be wanted). The same for every hand-in of the batch with the
        same measured file, so built once for each (their judges keep no state)."""
        key = tuple(plan.lab_lines or ())
        with self.lock:
            runs = self.prepared.get(key)
            if runs is None:
                if len(self.prepared) >= PREPARED:
                    self.prepared.clear()
                runs = self.prepared[key] = judge.runs(plan)
        return runs

    def scenario_steps(self, copy, backend, kinds, plan, reports, own):
        """Add the scenario steps to `reports` (which has the kvsim steps); the steps replaced: (1, 5) or ().

        own() gives the scenario steps' reports on the student's own kvsim.py. Fair scoring: when the
        student's kvsim.py fails (step 1 or 5), scenario.py is graded on the reference kvsim.py instead,
        so that one kvsim.py bug costs only steps 1 and 5 (what scenario.py did on the failing kvsim.py
        in the shared process is thrown away unjudged). The reference is then beside the student's code,
        which could read and print it: nothing of that run but each rule's verdict and hint reaches the
        report (no value, no text it printed)."""
        kvsim_steps = PROCESSES["kvsim"]
        scenario_steps = PROCESSES["scenario"]
        if self.on_own_kvsim(copy, reports):
            reports.update(own())
            return ()
        with tempfile.TemporaryDirectory(prefix="kvlab-grade-reference-", dir=sandbox.scratch_dir()) as scratch:
            other = Path(scratch)
            for path in Path(copy).iterdir():
                if path.is_file():
                    shutil.copyfile(path, other / path.name)
            shutil.copyfile(Path(__file__).resolve().parent.parent / "kvsim.py", other / "kvsim.py")
            again = judge.Plan(execute=self.executor(other, backend, kinds), oracle=plan.oracle, seed=plan.seed,
                                  lab_lines=plan.lab_lines)
            fresh = judge.steps_of(again, scenario_steps)
        note = Msg("grade.on-reference-kvsim")
        for number in scenario_steps:
            rows = [row._replace(seen=None) for row in fresh[number].rows]  # the verdicts only: no echo
            reports[number] = Report(fresh[number].title, rows, note)
        return kvsim_steps

    def run_steps(self, copy, backend, kinds, plan):
        """({step: Report} of the student's code, the steps replaced by the reference's: scenario_steps()).

        One process of the student's code runs what three would: the public rules of summarize.py,
        kvsim.py's classes and scenario.py, then their hidden rules (run_together: the code of one part
        never sees the jobs or files of a later one, so no public run can see, and print into a report, a
        hidden case). summarize.py comes first: a kvsim.py that forges the rest of the results cannot
        reach it. scenario.py's parts are sent only while kvsim.py passes (else they are graded on the
        reference's kvsim.py). A part the process did not give as a process of its own would (it stopped
        before, or broke its protocol) runs alone, as do the later ones that are wanted."""
        runs = self.runs(plan)
        keys = [(name, hidden) for hidden in (False, True) for name in runs]
        judged = {}  # {name: (outcomes, reports)}: each Run is judged once for the same outcomes

        def reports_of(name, public, hidden, noted=kinds):
            outcomes = runs[name].joined(public, hidden)
            if name in judged and judged[name][0] == outcomes:
                return judged[name][1]
            reports = judge.reports(runs[name], self.taken(copy, noted, outcomes))
            if noted is kinds:
                judged[name] = (outcomes, reports)
            return reports

        def wanted(index, outcomes_of):  # scenario.py's parts, only while kvsim.py is graded as the student's own
            name, hidden = keys[index]
            if name != "scenario":
                return True
            public = outcomes_of(keys.index(("kvsim", False)))
            if public is None:
                return False
            if not hidden:  # its hidden rules not run yet: do its public rules pass?
                missing = [judge.failed(job, "not-run") for job in runs["kvsim"].part(True)[0]]
                found = reports_of("kvsim", public, missing, noted=set())
                return all(row.ok for report in found.values() for row in report.rows if row.rule_id not in HIDDEN)
            secret = outcomes_of(keys.index(("kvsim", True)))
            return secret is not None and self.on_own_kvsim(copy, reports_of("kvsim", public, secret))

        ahead = dict(zip(keys, self.together(copy, backend, [runs[name].part(hidden) for name, hidden in keys],
                                             wanted)))
        execute = self.executor(copy, backend, kinds, raw=True)

        def own(name):
            """The Run's reports, its outcomes as one process of its own would give them: after the first
            job that stopped the process (in the Run's order), every job is not run."""
            run = runs[name]
            parts = {hidden: run.part(hidden) for hidden in (False, True)}  # (jobs, files)
            places = {hidden: run.places(hidden) for hidden in (False, True)}
            public = ahead[name, False]
            if public is None:
                public = execute(*parts[False]) if parts[False][0] else []
            stop = _stopped_at(public, places[False])
            hidden = ahead[name, True]
            if hidden is None:  # only those before the stop: the others would not have run
                jobs, files = parts[True]
                before = [job for job, place in zip(jobs, places[True]) if place < stop]
                hidden = execute(before, files) if before else []
            stop = min(stop, _stopped_at(hidden, places[True]))
            hidden = hidden + [judge.failed(job, "not-run") for job in parts[True][0][len(hidden):]]
            public, hidden = ([outcome if place <= stop else judge.failed(job, "not-run")
                               for outcome, place, job in zip(found, places[flag], parts[flag][0])]
                              for flag, found in ((False, public), (True, hidden)))
            return reports_of(name, public, hidden)
        reports = {**own("summarize"), **own("kvsim")}
        return reports, self.scenario_steps(copy, backend, kinds, plan, reports, lambda: own("scenario"))

    @staticmethod
    def on_own_kvsim(copy, reports):
        """Is scenario.py graded on the student's own kvsim.py? Yes when it passes steps 1 and 5 (or
        there is no scenario.py to grade)."""
        return (all(reports[number].passed for number in PROCESSES["kvsim"])
                or not (Path(copy) / "scenario.py").is_file())

    def executor(self, copy, backend, kinds, raw=False):
        """execute(jobs, files) for the Plan: one process of the student's code, unless the batch stopped.
        `raw`: its outcomes as they came (to be read through taken() later)."""
        def execute(jobs, files):
            if self.stop.is_set():
                raise Interrupted()
            if self.late():  # the hand-in's wall-clock time is used up: its code is not started again
                outcomes = [judge.failed(job, "timeout") for job in jobs]
                return outcomes if raw else self.taken(copy, kinds, outcomes)(jobs, files)
            outcomes = judge.run_jobs(copy, jobs, files=files, timeout=self.options.timeout, backend=backend)
            return outcomes if raw else self.taken(copy, kinds, outcomes)(jobs, files)
        return execute

    def together(self, copy, backend, groups, wanted):
        """The raw outcomes of each (jobs, files) group from one shared process of the student's code
        (run_together, which asks wanted()), or None: not run there as a process of its own would run it."""
        if self.stop.is_set():
            raise Interrupted()
        if self.late():
            return [None] * len(groups)
        return judge.run_together(copy, groups, timeout=self.options.timeout, backend=backend, wanted=wanted)

    @staticmethod
    def taken(copy, kinds, outcomes):
        """An execute(jobs, files) that gives `outcomes` as the grader reads them, and notes their kinds.

        A run that says a file is missing when the grader put it there forged that line: a protocol error.
        """
        def execute(jobs, files):
            taken = list(outcomes)
            for number, (job, outcome) in enumerate(zip(jobs, taken)):
                staged = job.get("script") or f"{job.get('module')}.py"
                if outcome.get("kind") == "missing" and (Path(copy) / staged).is_file():
                    taken[number] = {**outcome, "kind": "protocol"}
                kinds.add(taken[number].get("kind"))
            return taken
        return execute

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
            summarize.write_atomically(self.cache / f"{entry}.json", json.dumps(grade.as_dict(marks=True)))
        except (OSError, summarize.InputError):
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
