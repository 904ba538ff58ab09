"""Grade hand-in folders, step by step, without trusting them (`kvlab grade DIR [DIR ...]`).

A folder is laid out like the lab's: kvsim.py, scenario.py, summarize.py, the six JSON files and
ttft.jsonl. Each folder is first copied into a private snapshot (its top-level regular files only:
no symbolic links, no compiled modules, no folders), so that files appearing or vanishing later
change nothing; a grade is cached under the snapshot's content. The student's code then runs under
bubblewrap (kvlab.instructor.sandbox), in one process per folder that is sent its jobs a list at a
time (Batch.run_steps: the public rules of summarize.py, kvsim.py's classes and scenario.py, then their
hidden rules; a list that ended the process unlike a process of its own would, runs again alone), and only
reports raw outcomes; the rules, the hidden random cases (from --course's secret, else --seed) and every verdict stay
in this process, with the reference's answers (kvlab.instructor.oracle). A folder's own problem is a
row in its report, never the end of the batch.

One thing to know when reading a report: KVLAB_NO_ISOLATION=1
runs the code as a plain child process with the grader's rights and environment: it can read what
you can, and a daemon that leaves its session outlives the grade. It is for trusted code only.
"""
import ast
import csv
import hashlib
import io
import json
import os
import secrets
import shutil
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .. import paths, summarize
from .. import steps as lab_table
from ..check import labsteps, summaries
from ..check.run import failed as run_failed, run_jobs, run_together
from ..check.labsteps import TITLES
from ..check.probes import file_row
from ..check.report import Report, Row, Wrong, hold_back
from ..errors import UserError, visible
from ..i18n import Msg, t
from . import sandbox
from .oracle import Recording, Reference

ARTIFACT_STEP, SCRIPTS = lab_table.ARTIFACTS, lab_table.SCRIPTS

DEFAULT_TIMEOUT = 1.0     # CPU seconds a student's run may take (its cgroup's clock): a correct lab script takes milliseconds
MOST_TIMEOUT = 600.0      # --timeout above this is a typo
CACHE_VERSION = "2"       # bump when a grade's meaning changes without kvlab's source changing
PROGRESS_FROM = 5         # show a progress line on a terminal from this many folders on
INTERRUPTED = "interrupted (Ctrl-C) before this folder was graded"
PROCESSES = tuple(lab_table.PROCESSES.values())  # steps run in one process: kvsim.py's classes, scenario.py, summarize.py
MOST_JOBS = sandbox.WORKERS // len(PROCESSES)  # folders at once (each runs one sandboxed process at a time)
STEP_SCRIPT = {number: step.file[:-3] for number, step in lab_table.STEPS.items()}
VOLATILE = {"timeout", "killed", "protocol", "not-run"}  # what a busy or broken machine can cause: never cached
PARSE_LIMIT = 200_000     # bytes of a .py file the grader parses (to fingerprint or follow imports); larger: bytes
_AST = threading.Lock()   # ast work is serialised: CPython 3.11's parser is not safe in threads (SystemError)
PREPARED = 8              # sets of Runs kept by a batch (one per measured file seen: the lab's, and students' own)
ENDS_PROCESS = {"timeout", "flood", "killed", "protocol"}  # raw outcome kinds after which a process runs nothing
HIDDEN = {spec.id for step in lab_table.STEPS.values() for spec in step.rules if spec.hidden}  # the hidden rules
MEASURED_RULE = Msg("rule.artifact", file="measured.json")
TTFT_RULE = Msg("rule.ttft-unchanged")


@dataclass
class Grade:
    """One folder's result: a Report per step, the flags raised on the folder, and whether it was isolated."""
    folder: str
    cases: str                       # the fingerprint of the hidden cases' seed (never the seed)
    steps: dict                      # step number -> Report
    flags: dict = field(default_factory=dict)   # flag -> detail (e.g. "identical-to-reference": "kvsim.py")
    isolated: bool = True
    error: str = ""                  # why the folder could not be graded at all ("" if it was)
    fingerprint: str = ""            # the three scripts without comments or layout (""=none of them)
    volatile: bool = False           # a run timed out, was killed or broke: this grade is never cached
    practice: bool = False           # graded without --course: practice mode, marked in every output

    @property
    def passed(self):
        return not self.error and all(report.passed for report in self.steps.values())

    @property
    def score(self):
        return sum(report.passed for report in self.steps.values()) if not self.error else 0

    def as_dict(self):
        return {"folder": self.folder, "hidden_cases": self.cases, "passed": self.passed, "score": self.score,
                "max": len(TITLES), "isolated": self.isolated, "flags": self.flags, "error": self.error,
                "fingerprint": self.fingerprint, "practice": self.practice,
                "steps": {str(number): report.as_dict() for number, report in self.steps.items()}}

    @classmethod
    def from_dict(cls, data):
        return cls(data["folder"], data["hidden_cases"], {int(number): Report.from_dict(report)
                                                 for number, report in data["steps"].items()},
                   dict(data["flags"]), data["isolated"], data["error"], data["fingerprint"])

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


# --- what a folder's scripts are --------------------------------------------------------------------

def normalized(text):
    """Python source without comments or layout: two files that differ only in those compare equal.

    The parsed syntax tree says exactly that (quotes and parentheses aside); a file that does not
    parse is compared by its words.
    """
    if len(text) > PARSE_LIMIT:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    with _AST:
        known = _normalized.get(text)
        if known is None:
            try:
                known = ast.dump(ast.parse(text))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                known = " ".join(text.split())
            _remember(_normalized, text, known)
        return known


_normalized, _imported = {}, {}   # source -> normalized(), source -> imported names: a class shares most files
REMEMBERED = 2_000                # sources each keeps (at most PARSE_LIMIT bytes each)


def _remember(memo, key, value):
    if len(memo) >= REMEMBERED:
        memo.clear()
    memo[key] = value


def reference_scripts():
    """{script: normalized text} of the reference (its solution markers are comments, so they vanish)."""
    package = Path(__file__).resolve().parent.parent
    return {name: normalized((package / name).read_text(encoding="utf-8")) for name in SCRIPTS}


def script_texts(copy):
    """{script: normalized text, or None if the snapshot has no such file}."""
    texts = {}
    for name in SCRIPTS:
        text = labsteps.read_text(Path(copy) / name, limit=sandbox.LARGEST_FILE)
        texts[name] = None if text is None else normalized(text)
    return texts


def fingerprint(texts):
    """A hash of the normalized scripts, equal for hand-ins that differ only in comments and layout; "" if none."""
    if not any(texts.values()):
        return ""
    digest = hashlib.sha256()
    for name, text in texts.items():
        digest.update(name.encode() + b"\0" + (text or "").encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def imports(copy):
    """{module: names it imports} for the snapshot's .py files, as far as reading them tells (no code runs)."""
    found = {}
    for path in Path(copy).glob("*.py"):
        try:
            source = path.read_bytes()
        except OSError:
            source = None
        found[path.stem] = set(imported_names(source))
    return found


def imported_names(source):
    """The top-level module names a file's source imports (none if it does not parse, or is too large)."""
    if source is None or len(source) > PARSE_LIMIT:
        return frozenset()  # a 5 MB file nothing imports must not cost the batch
    with _AST:
        known = _imported.get(source)
        if known is not None:
            return known
        names = set()
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None  # it cannot run either: its step says why
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                names.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module.partition(".")[0])  # `from .kvsim import` too: the lab's scripts do both
        known = frozenset(names)
        _remember(_imported, source, known)
        return known


def reached(module, imported):
    """The module names `module` imports, directly or through the hand-in's other files, itself included."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imported.get(name, ()))
    return seen


REFUSED = (  # snapshot() field -> why a file was not taken, as the hint says it (a catalog message)
    ("symlinks", Msg("seen.refused-symlink")),
    ("too_big", Msg("seen.refused-too-big", size=sandbox.LARGEST_FILE)),
    ("unreadable", Msg("seen.refused-unreadable")),
)


def _joined(parts):
    """Messages one after the other, "; " between them, as one message (rendered when shown)."""
    return parts[0] if len(parts) == 1 else Msg("seen.list-semicolon", first=parts[0], rest=_joined(parts[1:]))


def refusals(found):
    """{file name: why snapshot() did not take it}."""
    return {name: why for attribute, why in REFUSED for name in getattr(found, attribute)}


def causes(copy, found):
    """{step: (hint, misconception)} for steps whose code a refused file or a shadowing module explains."""
    refused, imported = refusals(found), imports(copy)
    shadowing = {name[:-3]: name for name in found.shadows_stdlib}
    explained = {}
    for number, script in STEP_SCRIPT.items():
        modules = reached(script, imported)
        bad = [Msg("seen.file-is", file=f"{name}.py", why=refused[f"{name}.py"])
               for name in sorted(modules) if f"{name}.py" in refused]
        shadows = [shadowing[name] for name in sorted(modules) if name in shadowing]
        if bad:
            explained[number] = ("missing-file", Msg("seen.refused", files=_joined(bad)))
        elif shadows:
            statements = ", ".join(f"`import {name[:-3]}`" for name in shadows)
            explained[number] = ("shadows-stdlib", Msg("seen.shadows", files=", ".join(shadows), imports=statements,
                                                       script=f"{script}.py"))
    return explained


def explain(report, cause):
    """The report with its first failure naming `cause` (misconception, seen) and the later ones held back."""
    rows, first = [], True
    for row in report.rows:
        if not row.ok:
            misconception, seen = cause
            if first and row.held is None and row.misconception not in ("", misconception) and row.seen is not None:
                seen = Msg("seen.and-then", cause=seen, happened=row.seen)
            row = (row._replace(misconception=misconception, seen=seen, held=None) if first
                   else row._replace(misconception="", held=Msg("check.held")))
            first = False
        rows.append(row)
    return Report(report.title, rows, report.note)


# --- the measurement (step 8) ------------------------------------------------------------------------

class Measurement(NamedTuple):
    """A measured file: where it is, its lines, its records; `real` unless it is the repository's stand-in."""
    path: Path
    lines: list
    records: list
    real: bool


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


def lab_measurement(course=None):
    """The measured file hand-ins are compared with; UserError if it cannot be read.

    In practice mode: paths.ttft_source() (compared unless it is the stand-in). With a course: the
    course's measurement, always compared; if the course names none, the stand-in, never compared (a
    grade depends on the hand-in and the course file only, never on $KVLAB_TTFT or this machine's file).
    """
    if course is not None:
        path = course.measurement or paths.STAND_IN_TTFT
    else:
        path = paths.ttft_source()
    try:
        records = summarize.read_records(path)
        lines = paths.measured_lines(path)
    except (OSError, summarize.InputError) as error:
        raise UserError(f"the lab's measured file cannot be read: {error}") from None
    compared = bool(course.measurement) if course is not None else not paths.is_stand_in(path)
    return Measurement(path, lines, records, compared)


def own_measurement(copy, refused):
    """(the snapshot's ttft.jsonl as a Measurement, None, "") or (None, misconception, what is wrong with it)."""
    path = Path(copy) / "ttft.jsonl"
    if "ttft.jsonl" in refused:
        return None, "missing-file", Msg("seen.ttft-refused", why=refused["ttft.jsonl"])
    if not path.is_file():
        return None, "missing-file", Msg("seen.no-ttft")
    try:
        records = summarize.read_records(path)
    except summarize.InputError as error:
        reason = str(error).replace(str(path), "ttft.jsonl")
        return None, "ttft-changed", Msg("seen.ttft-unreadable", reason=reason)
    return Measurement(path, paths.measured_lines(path), records, True), None, ""


def measured_rows(copy, own, trouble, lab, oracle, refused):
    """Step 8's rows about ttft.jsonl and measured.json, each naming the file that is wrong.

    `trouble` is (misconception, what is wrong) when the folder's own ttft.jsonl cannot be used.
    """
    def measured(judge):
        if "measured.json" in refused:
            return Row(MEASURED_RULE, False, "missing-file",
                       Msg("seen.refused", files=Msg("seen.file-is", file="measured.json", why=refused["measured.json"])))
        return file_row("artifact.measured.json", MEASURED_RULE, labsteps.read_text(Path(copy) / "measured.json"),
                        judge, where="the hand-in")

    if own is None:  # the lab's file stands in for the hand-in's
        misconception, problem = trouble
        instead = Msg("seen.ttft-instead", problem=problem, path=str(lab.path))
        return [Row(TTFT_RULE, False, misconception, instead),
                measured(summaries.artifact_judge(lab.lines, oracle))]

    def judge(text):
        try:
            summaries.artifact_judge(own.lines, oracle)(text)
        except Wrong as wrong:
            if own.records == lab.records:
                raise
            try:
                summaries.artifact_judge(lab.lines, oracle)(text)
            except Wrong:
                raise wrong from None  # it summarizes neither file: the summary itself is wrong
            if lab.real:
                raise Wrong("ttft-changed", Msg("seen.ttft-changed", path=str(lab.path))) from None
            raise Wrong("measured-other-file", Msg("seen.measured-other", path=str(lab.path))) from None
    rows = [measured(judge)]
    if lab.real and own.records != lab.records:
        rows.append(Row(TTFT_RULE, False, "ttft-changed", Msg("seen.ttft-differs", path=str(lab.path))))
    return rows


# --- where the hand-in's files are: the common wrong layouts -----------------------------------------

MOST_ZIP_ENTRIES = 1_000          # entries of a .zip hand-in looked at
MOST_ZIP_BYTES = 50_000_000       # bytes a .zip hand-in may unpack to, all files together
IGNORED_FOLDERS = ("__MACOSX",)   # what archivers add beside the hand-in


class LayoutError(Exception):
    """A hand-in that cannot be unpacked (a bad or oversized .zip): not graded, with these flags."""

    def __init__(self, why, flags=None):
        super().__init__(why)
        self.flags = dict(flags or {})


def is_handin(path):
    """A folder, or a .zip file (which take() unpacks): what `kvlab grade` accepts."""
    path = Path(path)
    return path.is_dir() or (path.is_file() and path.suffix.lower() == ".zip")


def _subfolders(folder):
    """The sub-folders of `folder` a student made (no links, no hidden or archiver folders), at most a few."""
    found = []
    with os.scandir(folder) as entries:
        for count, entry in enumerate(entries):
            if count >= sandbox.MOST_ENTRIES or len(found) > 3:
                break
            if entry.name.startswith(".") or entry.name in IGNORED_FOLDERS or entry.name == "__pycache__":
                continue
            if entry.is_dir(follow_symlinks=False):
                found.append(entry.name)
    return sorted(found)


def _lab_file(path):
    return path.is_file() and not path.is_symlink()


def locate(folder):
    """(where the scripts are, where the artifacts are, {layout flag: detail}) for a hand-in folder.

    The lab's layout: kvsim.py at the top. The student edition's tree: kvlab/kvsim.py, artifacts in
    artifacts/ (flag layout-edition). Everything one folder down (a single sub-folder holding kvsim.py
    or kvlab/kvsim.py, or the only sub-folder of a folder with no lab file at its top): layout-one-down.
    """
    folder = Path(folder)
    found = _at(folder)
    if found[2] or _lab_file(folder / "kvsim.py"):
        return found
    inner = _subfolders(folder)
    holding = [name for name in inner if _lab_file(folder / name / "kvsim.py") or
               _lab_file(folder / name / "kvlab" / "kvsim.py")]
    lab_files = any(_lab_file(folder / name) for name in sandbox.LAB_FILES)
    if len(holding) == 1 or (len(inner) == 1 and not lab_files):
        one = holding[0] if len(holding) == 1 else inner[0]
        scripts, artifacts, flags = _at(folder / one)
        return scripts, artifacts, {"layout-one-down": one, **flags}
    return found


def _at(folder):
    """(scripts, artifacts, flags) for `folder` itself: the student edition's tree, else the lab's layout."""
    edition = folder / "kvlab"
    if not _lab_file(folder / "kvsim.py") and _lab_file(edition / "kvsim.py") and not edition.is_symlink():
        artifacts = folder / "artifacts"
        if artifacts.is_dir() and not artifacts.is_symlink():
            return edition, artifacts, {"layout-edition": "kvlab/, artifacts/"}
        return edition, folder, {"layout-edition": "kvlab/"}
    return folder, folder, {}


def unzip(archive, dest):
    """Unpack a .zip hand-in into `dest` safely: regular files only, no absolute path or `..`, no link,
    at most MOST_ZIP_ENTRIES entries and MOST_ZIP_BYTES bytes in all (counted as read, not as declared)."""
    import stat
    import zipfile
    dest = Path(dest)
    dest.mkdir(mode=0o700)
    skipped = 0
    try:
        with zipfile.ZipFile(archive) as package:
            members = package.infolist()
            if len(members) > MOST_ZIP_ENTRIES:
                raise LayoutError(f"the .zip file holds {len(members):,} entries (at most {MOST_ZIP_ENTRIES:,})",
                                  {"layout-zip": "too many entries"})
            total = 0
            for member in members:
                parts = member.filename.replace("\\", "/").split("/")
                mode = member.external_attr >> 16
                if member.is_dir() or not parts[-1]:
                    continue
                if (member.filename.startswith(("/", "\\")) or any(part in ("..", "") for part in parts)
                        or ":" in parts[0] or stat.S_IFMT(mode) not in (0, stat.S_IFREG)
                        or member.flag_bits & 0x1):
                    skipped += 1  # a path outside the folder, a link, a device, an encrypted file: never written
                    continue
                target = dest.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                with package.open(member) as source, open(target, "xb") as out:
                    while True:
                        chunk = source.read(1 << 16)
                        if not chunk:
                            break
                        total += len(chunk)
                        if total > MOST_ZIP_BYTES:
                            raise LayoutError(f"the .zip file unpacks to more than {MOST_ZIP_BYTES:,} bytes",
                                              {"layout-zip": "too large"})
                        out.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError,
            UnicodeDecodeError, ValueError) as error:
        raise LayoutError(f"the .zip file cannot be unpacked ({type(error).__name__})",
                          {"layout-zip": "not a readable zip"}) from None
    except FileExistsError:
        raise LayoutError("the .zip file names one file twice", {"layout-zip": "a file named twice"}) from None
    return skipped


def take(source, copy, scratch):
    """Snapshot the hand-in `source` (a folder or a .zip file) into `copy`: (Flags, {layout flag: detail}).

    A .zip is unpacked into `scratch` first (flag layout-zip); then the layout is found (locate()).
    """
    source, layout = Path(source), {}
    if source.is_file() and source.suffix.lower() == ".zip":
        skipped = unzip(source, scratch)
        layout["layout-zip"] = source.name + (f" ({skipped} unsafe entries not unpacked)" if skipped else "")
        source = Path(scratch)
    scripts, artifacts, found_layout = locate(source)
    layout.update(found_layout)
    if scripts == artifacts == source:
        return sandbox.snapshot(source, copy), layout
    found = sandbox.snapshot(scripts, copy, only=set(SCRIPTS) if "layout-edition" in layout else None)
    if artifacts != scripts:
        wanted = set(sandbox.LAB_FILES) - set(SCRIPTS) - set(found.copied)
        more = sandbox.snapshot(artifacts, copy, only=wanted)
        for name in ("copied", "symlinks", "too_big", "unreadable"):
            getattr(found, name).extend(getattr(more, name))
    return found, layout


# --- one folder ---------------------------------------------------------------------------------------

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
        self.reference = reference_scripts()
        self.oracle = Recording(Reference())
        self.source = source_digest(options.isolation, self.lab.path) if cache else ""
        self.stop = threading.Event()
        self.prepared, self.lock = {}, threading.Lock()  # runs(): {measured lines: the Runs}
        self.backend = None  # without isolation: run_jobs' backend (None: a plain child; the autograder's own)

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
        """Grade a snapshot: run the student's code, judge it, and the artifacts, and flag what is odd."""
        refused = refusals(found)
        own, misconception, problem = own_measurement(copy, refused)
        isolation = self.options.isolation
        kinds = set()  # what became of each run: a timeout or a kill may be the machine's, not the code's
        with sandbox.budget() if isolation else sandbox.cgroups.Unlimited() as budget:  # one cgroup for all runs
            backend = sandbox.Bubblewrap(budget=budget) if isolation else self.backend  # each takes a free slot
            plan = labsteps.Plan(execute=self.executor(copy, backend, kinds), oracle=self.oracle,
                                 seed=self.options.seed, lab_lines=(own or self.lab).lines)
            reports, replaced = self.run_steps(copy, backend, kinds, plan)
        reports = {number: reports[number] for number in TITLES}  # the code; the files come next
        extra = labsteps.artifact_rows(copy, self.oracle, plan.lab_lines)
        for name, number in ARTIFACT_STEP.items():
            if name in refused and name != "measured.json":
                extra[number] = [Row(Msg("rule.artifact", file=name), False, "missing-file",
                                     Msg("seen.refused", files=Msg("seen.file-is", file=name, why=refused[name])))]
        extra[8] = measured_rows(copy, own, (misconception, problem), self.lab, self.oracle, refused)
        for number, rows in extra.items():
            report = reports[number]
            reports[number] = Report(report.title, hold_back(report.rows + rows), report.note)
        reports = labsteps.hold_after_earlier(reports, replaced)
        if not self.lab.real:  # no course measurement: say that step 8 compared nothing with one
            reports[8].note = (Msg("grade.ttft-not-compared-course") if self.in_course
                               else Msg("grade.ttft-not-compared", path=str(self.lab.path)))
        for number, cause in causes(copy, found).items():
            if not reports[number].passed:
                reports[number] = explain(reports[number], cause)
        texts = script_texts(copy)
        flags = {name: ", ".join(items) for name, items in sandbox.flag_items(found) if items}
        if self.lab.real and own is not None and own.records != self.lab.records:
            flags["ttft-changed"] = "ttft.jsonl"
        same = [name for name in SCRIPTS if texts[name] is not None and texts[name] == self.reference[name]]
        if same:
            flags["identical-to-reference"] = ", ".join(same)
        return Grade(str(folder), seed_fingerprint(self.options.seed), reports, flags, self.options.isolation,
                     fingerprint=fingerprint(texts), volatile=bool(kinds & VOLATILE))

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
                runs = self.prepared[key] = {
                    "summarize": labsteps.summary_run(plan),
                    "kvsim": labsteps.class_run(plan, lab_table.PROCESSES["kvsim"]),
                    "scenario": labsteps.script_run(plan, lab_table.PROCESSES["scenario"])}
        return runs

    def scenario_steps(self, copy, backend, kinds, plan, reports, own):
        """Add the scenario steps to `reports` (which has the kvsim steps); the steps replaced: (1, 5) or ().

        own() gives the scenario steps' reports on the student's own kvsim.py. Fair scoring: when the
        student's kvsim.py fails (step 1 or 5), scenario.py is graded on the reference kvsim.py instead,
        so that one kvsim.py bug costs only steps 1 and 5 (what scenario.py did on the failing kvsim.py
        in the shared process is thrown away unjudged). The reference is then beside the student's code,
        which could read and print it: nothing of that run but each rule's verdict and hint reaches the
        report (no value, no text it printed)."""
        kvsim_steps = lab_table.PROCESSES["kvsim"]
        scenario_steps = lab_table.PROCESSES["scenario"]
        if self.on_own_kvsim(copy, reports):
            reports.update(own())
            return ()
        with tempfile.TemporaryDirectory(prefix="kvlab-grade-reference-", dir=sandbox.scratch_dir()) as scratch:
            other = Path(scratch)
            for path in Path(copy).iterdir():
                if path.is_file():
                    shutil.copyfile(path, other / path.name)
            shutil.copyfile(Path(__file__).resolve().parent.parent / "kvsim.py", other / "kvsim.py")
            again = labsteps.Plan(execute=self.executor(other, backend, kinds), oracle=plan.oracle, seed=plan.seed,
                                  lab_lines=plan.lab_lines)
            fresh = labsteps.check_steps(again, steps=scenario_steps)
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
            reports = labsteps.settled(runs[name].on(self.taken(copy, noted, outcomes)))
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
                missing = [run_failed(job, "not-run") for job in runs["kvsim"].part(True)[0]]
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
            hidden = hidden + [run_failed(job, "not-run") for job in parts[True][0][len(hidden):]]
            public, hidden = ([outcome if place <= stop else run_failed(job, "not-run")
                               for outcome, place, job in zip(found, places[flag], parts[flag][0])]
                              for flag, found in ((False, public), (True, hidden)))
            return reports_of(name, public, hidden)
        reports = {**own("summarize"), **own("kvsim")}
        return reports, self.scenario_steps(copy, backend, kinds, plan, reports, lambda: own("scenario"))

    @staticmethod
    def on_own_kvsim(copy, reports):
        """Is scenario.py graded on the student's own kvsim.py? Yes when it passes steps 1 and 5 (or
        there is no scenario.py to grade)."""
        return (all(reports[number].passed for number in lab_table.PROCESSES["kvsim"])
                or not (Path(copy) / "scenario.py").is_file())

    def executor(self, copy, backend, kinds, raw=False):
        """execute(jobs, files) for the Plan: one process of the student's code, unless the batch stopped.
        `raw`: its outcomes as they came (to be read through taken() later)."""
        def execute(jobs, files):
            if self.stop.is_set():
                raise Interrupted()
            outcomes = run_jobs(copy, jobs, files=files, timeout=self.options.timeout, backend=backend)
            return outcomes if raw else self.taken(copy, kinds, outcomes)(jobs, files)
        return execute

    def together(self, copy, backend, groups, wanted):
        """The raw outcomes of each (jobs, files) group from one shared process of the student's code
        (run_together, which asks wanted()), or None: not run there as a process of its own would run it."""
        if self.stop.is_set():
            raise Interrupted()
        return run_together(copy, groups, timeout=self.options.timeout, backend=backend, wanted=wanted)

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
        for path in sorted(Path(copy).iterdir()):
            digest.update(os.fsencode(path.name) + b"\0" + path.read_bytes() + b"\0")
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
            summarize.write_atomically(self.cache / f"{entry}.json", json.dumps(grade.as_dict()))
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
    grades = [grade or batch.failed(folder, INTERRUPTED) for grade, folder in zip(grades, folders)]
    mark_identical(grades)
    return grades, interrupted


def mark_identical(grades):
    """Flag each group of two or more hand-ins whose scripts are the same once comments and layout go."""
    groups = {}
    for grade in grades:
        if grade.fingerprint:
            groups.setdefault(grade.fingerprint, []).append(grade)
    for group in groups.values():
        for grade in group:
            others = list(dict.fromkeys(other.folder for other in group if other.folder != grade.folder))
            if others:  # a folder named twice on the command line is no group
                grade.flags["identical-hand-ins"] = ", ".join(others)


def table(grades):
    """One line per folder: a ✓ or ✗ per step, the score, and the flags."""
    width = max([len("folder"), *(len(shown(grade.folder)) for grade in grades)])
    lines = [f"{'folder':<{width}}  " + "  ".join(str(number) for number in TITLES) + "  steps  flags"]
    for grade in grades:
        if grade.error:
            marks = "  ".join("-" for _ in TITLES)
        else:
            marks = "  ".join("✓" if grade.steps[number].passed else "✗" for number in TITLES)
        lines.append(f"{shown(grade.folder):<{width}}  {marks}  {grade.score}/{len(TITLES)}    {shown(remarks(grade))}")
    return "\n".join(lines)


def remarks(grade):
    """The flags column: what could not be graded, the flags, and whether the code ran isolated."""
    parts = [f"not graded: {grade.error}"] if grade.error else []
    parts += ["practice"] if grade.practice else []
    parts += [f"{flag}: {detail}" for flag, detail in grade.flags.items()]
    return "; ".join(parts + ([] if grade.isolated else ["NOT ISOLATED"]))


CSV_HEADER = ["folder", *(f"step{number}" for number in TITLES), "score", "max", "flags"]


def csv_row(grade):
    steps = [("pass" if grade.steps[number].passed else "fail") if not grade.error else "" for number in TITLES]
    return [cell(grade.folder), *steps, grade.score, len(TITLES), cell(remarks(grade), 10_000)]


def csv_text(grades, header=True):
    """The gradebook: one row per folder, each step's pass/fail, score, max, flags."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if header:
        writer.writerow(CSV_HEADER)
    for grade in grades:
        writer.writerow(csv_row(grade))
    return out.getvalue()


class Gradebook:
    """The --csv file, written as folders finish: rows are appended to FILE.partial (a crash keeps what was
    graded), and at the end the whole gradebook, in the folders' order, replaces FILE in one rename."""

    def __init__(self, path, render=None):
        self.path, self.render = Path(path), render or csv_text  # render(grades, header=True): the CSV text
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.partial.write_text(self.render([], header=True), encoding="utf-8")

    def add(self, grade):
        with open(self.partial, "a", encoding="utf-8") as out:
            out.write(self.render([grade], header=False))

    def close(self, grades):
        summarize.write_atomically(self.path, self.render(grades))
        self.partial.unlink(missing_ok=True)


def cell(text, limit=1000):
    """Text for a spreadsheet: printable, and never taken for a formula."""
    text = shown(text, limit)
    return "'" + text if text.startswith(("=", "+", "-", "@")) else text


# --- the command --------------------------------------------------------------------------------------

def add_arguments(parser):
    parser.add_argument("folder", nargs="+",
                        help="hand-in folders, laid out like the lab's (kvsim.py, scenario.py, ...); put them after "
                             "-- (kvlab grade --csv g.csv -- handins/*/) so that no folder name is read as an option")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of the report")
    parser.add_argument("--csv", metavar="FILE", help="also write a gradebook: one row per folder (written whole)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the hidden random cases (default: $KVLAB_SEED, else a secret seed drawn once "
                             "and kept in ~/.cache/kvlab/seed, so that re-runs reuse it and students cannot know it; "
                             "reports show only its fingerprint)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds each run of a student's code may take (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--jobs", type=int, default=0, help="folders graded at once (default: the number of cores)")
    parser.add_argument("--no-cache", action="store_true", help="grade every folder again, even if unchanged")
    parser.add_argument("--course", metavar="COURSE.toml",
                        help="grade for a course (kvlab course init writes the file): hidden cases from its secret, "
                             "the same on every machine; points, roster and late policy from it. Without it grading "
                             "is practice mode, marked so in every output")
    parser.add_argument("--feedback", metavar="DIR", help="write one Markdown and one HTML feedback file per student")
    parser.add_argument("--report", metavar="DIR", help="write the class at a glance: class.md and class.png")
    from ..cli import add_lang_argument
    add_lang_argument(parser, "the feedback files and the class report")
    parser.add_argument("--force", action="store_true",
                        help="let --feedback and --report replace files in DIR that have other content")


NO_ISOLATION = "KVLAB_NO_ISOLATION"  # =1: run student code without bubblewrap (trusted code only); not a flag,
                                     # so that no folder name a glob produces can turn the sandbox off


def check_argv(tokens):
    """Refuse, before parsing, an option token that is also a file or folder here (a folder named --seed=1).

    argparse takes no abbreviations (kvlab.cli), and what follows `--` is always a folder.
    """
    for token in tokens:
        if token == "--":
            return
        if token.startswith("-") and token != "-" and (os.path.lexists(token) or
                                                        os.path.lexists(token.partition("=")[0])):
            raise UserError(f"{token} is an option, and also a file or folder here: put the folders after -- "
                            "(kvlab grade --csv grades.csv -- handins/*/)")


def limits_line(applied):
    """What was enforced on each hand-in, in one line (and what was not, where the machine cannot)."""
    return "limits per hand-in: " + "; ".join(f"{name} {shown(value)}" for name, value in applied.items())


def seed_fingerprint(seed):
    """A short fingerprint of the hidden cases' seed: tells two runs apart, never lets anyone redraw the cases."""
    return hashlib.sha256(f"kvlab-hidden-cases|{seed}".encode()).hexdigest()[:10]


def run(args):
    from . import course as courses, coursebook
    missing = [folder for folder in args.folder if not is_handin(folder)]
    if missing:
        raise UserError(f"no such folder (or .zip file): {', '.join(map(shown, missing))}")
    if not 0 < args.timeout <= MOST_TIMEOUT:
        raise UserError(f"--timeout must be a number of seconds above 0 and at most {MOST_TIMEOUT:g}, "
                        f"got {args.timeout:g}")
    if not 0 <= args.jobs <= MOST_JOBS:
        raise UserError(f"--jobs must be 0 (the number of cores) to {MOST_JOBS}, got {args.jobs}")
    if args.csv and not Path(args.csv).resolve().parent.is_dir():
        raise UserError(f"--csv {args.csv}: the folder {Path(args.csv).resolve().parent} does not exist")
    for option, folder in (("--feedback", args.feedback), ("--report", args.report)):
        if folder and Path(folder).exists() and not Path(folder).is_dir():
            raise UserError(f"{option} {folder}: is a file, not a folder")
    if args.course and args.seed is not None:
        raise UserError("--seed and --course: a course's hidden cases come from its secret; drop --seed")
    course = courses.load(args.course) if args.course else None
    practice = course is None
    isolation = os.environ.get(NO_ISOLATION) != "1"
    if isolation:
        ok, reason = sandbox.available()
        if not ok:
            raise UserError(reason)
    else:  # trusted code only: no cache and no secret are read or written, so nothing it does outlives the run
        print(f"kvlab grade: warning: {NO_ISOLATION}=1: the students' code runs with your rights, "
              "and the grade cache and the secret seed are not used", file=sys.stderr)
    if course is not None:
        args.seed = course.seed
    elif args.seed is None:
        args.seed = default_seed() if isolation else secrets.randbelow(10 ** 9)
    scoring = course or courses.practice()
    show = _progress_line if sys.stderr.isatty() and len(args.folder) >= PROGRESS_FROM else None
    cache = None if args.no_cache or not isolation else cache_dir()
    render = (lambda grades, header=True: coursebook.csv_text(course, grades, header)) if course else csv_text

    def finished(grade):
        grade.practice = practice
        if book:
            book.add(grade)
    book = Gradebook(args.csv, render) if args.csv else None
    grades, interrupted = grade_all(args.folder, args.seed, args.timeout, isolation, args.jobs or None, cache, show,
                                    finished=finished, course=course)
    for grade in grades:
        grade.practice = practice
    if show:
        print(file=sys.stderr)
    try:
        if book:
            book.close(grades)
        if interrupted and (args.feedback or args.report):
            print("kvlab grade: interrupted: --feedback and --report were not written (run again to finish)",
                  file=sys.stderr)
        elif args.feedback:
            coursebook.write_feedback(args.feedback, scoring, grades, force=args.force, practice=practice)
        if args.report and not interrupted:
            coursebook.write_report(args.report, scoring, grades, force=args.force, practice=practice)
    except summarize.InputError as error:
        raise UserError(str(error)) from None
    passed = all(grade.passed for grade in grades)
    applied = sandbox.limits() if isolation else {"isolation": "none (KVLAB_NO_ISOLATION=1): no limit applies"}
    mode = f"course {course.fingerprint}" if course else "PRACTICE (no --course: not a course's grade)"
    if args.json:
        document = {"mode": "course" if course else "practice", "course": course.fingerprint if course else None,
                    "hidden_cases": seed_fingerprint(args.seed), "passed": passed, "interrupted": interrupted,
                    "isolated": isolation, "limits": applied, "folders": []}
        for grade in grades:
            entry = grade.as_dict()
            if course:
                score = courses.score(course, grade)
                entry.update(student_id=course.student(grade.folder), points={str(step): points for step, points
                                                                                in score.steps.items()},
                             total=score.total, max_total=course.max_total, late=score.late,
                             flags_codes=coursebook.flag_codes(grade, score))
            document["folders"].append(entry)
        print(json.dumps(document, indent=2))
    elif len(grades) == 1:
        print(grades[0])
        print(limits_line(applied))
        print(mode)
    else:
        print(table(grades))
        print(limits_line(applied))
        print(f"{mode}; hidden cases {seed_fingerprint(args.seed)}; `kvlab grade FOLDER` shows one folder's hints"
              + ("; interrupted: the folders marked were not graded" if interrupted else ""))
    if interrupted:
        return 130
    return 0 if passed else 1


def cache_dir():
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kvlab" / "grades"


def default_seed():
    """$KVLAB_SEED, else this machine's secret seed: drawn once, kept beside the cache, reused by every run.

    The public checks' generators ship to students, so a known seed (0) would let them replay the hidden
    cases; a secret one that stays the same keeps grades reproducible and cached.
    """
    if os.environ.get("KVLAB_SEED"):
        try:
            return int(os.environ["KVLAB_SEED"])
        except ValueError:
            raise UserError(f"KVLAB_SEED must be a whole number, got {os.environ['KVLAB_SEED']!r}") from None
    path = cache_dir().parent / "seed"
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        seed = secrets.randbelow(10 ** 9)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            summarize.write_atomically(path, f"{seed}\n")
        except (OSError, summarize.InputError):
            pass  # a seed that cannot be kept still grades this run
        return seed


def _progress_line(done, total):
    print(f"\rgraded {done}/{total} folders", end="", file=sys.stderr, flush=True)
