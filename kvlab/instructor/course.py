"""A course file for `kvlab grade --course`: its secret, points, roster and late policy (`kvlab course init FILE`).

The course file is TOML (read with tomllib, or tomli before Python 3.11):

    secret = "…64 hex digits…"          # written by `kvlab course init`; never printed, never in an output
    due = 2026-12-15T23:59:00+00:00     # optional; with a late policy:
    late_penalty_per_day = 0.1          # the share of the total taken off per day (or part of a day) late
    max_late_days = 5                   # later than this: 0 points, flagged too-late
    partial_credit = true               # false: a step earns its points only when every rule holds

    [points.steps]                      # optional: a step's points (default: its rules' points summed)
    "8" = 4
    [points.rules]                      # optional: a rule's weight inside its step (default: its step module's)
    "lru.keys" = 4

    measurement = "ttft.jsonl"          # optional: the course's measured file, relative to this file, with
    measurement_sha256 = "…"            # its SHA-256 (`kvlab course init --measurement FILE` writes both)

    [roster]                            # optional: folder name -> student id, or a table with submitted_at,
    alice = "s1001"                     # name, email, login, canvas_id, section
    bob = { id = "s1002", submitted_at = 2026-12-16T08:00:00+00:00 }
    [extensions]                        # optional, by student id, with the reason the feedback shows
    s1002 = { days = 2, reason = "medical certificate" }
    [overrides]                         # optional, by student id: a total set by hand, with its reason
    s1003 = { total = 55, reason = "regraded by hand" }
    [lms]
    assignment = "KV-cache lab (12345)" # the Canvas and Moodle gradebooks' column
    similarity_store = "course.similarity.json"   # default: beside the course file; false: none

How a score is made (the README's "For instructors" says the same): see `step_points` and `total`.
Step 8 compares each hand-in's ttft.jsonl with the course's measurement; without one, it says that
nothing was compared (the grader never takes $KVLAB_TTFT or the machine's file: a grade depends only on
the hand-in and the course file).
The hidden cases' seed is HMAC-SHA256(secret, "hidden-cases"): the same course file draws the same
cases on every machine, whatever its cache or $HOME; reports show `fingerprint()` only.
"""
import datetime
import hashlib
import hmac
import math
import os
import re
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import lab as lab_table
from ..errors import UserError
from .judge import default_points, step_points

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover (3.10)
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

KEYS = {"secret", "due", "late_penalty_per_day", "max_late_days", "partial_credit", "points", "roster", "name",
        "measurement", "measurement_sha256", "extensions", "overrides", "lms", "similarity_store"}
ROSTER_FIELDS = {"id", "submitted_at", "name", "email", "login", "canvas_id", "section"}  # a roster entry's table
DAY = 86400.0
EARLIEST = datetime.datetime(1980, 1, 1, tzinfo=datetime.timezone.utc)  # file times outside these are clamped
LATEST = datetime.datetime(2100, 1, 1, tzinfo=datetime.timezone.utc)    # (a zip's epoch; far in the future)
MOST_REASON = 500            # characters of an extension's or override's reason


@dataclass(frozen=True)
class Student:
    """What the roster says of a student besides the folder: for the LMS gradebooks (all optional)."""
    id: str
    name: str = ""
    email: str = ""
    login: str = ""
    canvas_id: str = ""
    section: str = ""


@dataclass(frozen=True)
class Extension:
    due: object                        # the student's own due date (aware datetime)
    reason: str


@dataclass(frozen=True)
class Override:
    total: float                       # the total set by hand (late penalty and all)
    reason: str


@dataclass(frozen=True)
class Course:
    secret: str = field(repr=False)
    step_points: dict                  # step number -> points of the step
    rule_points: dict                  # rule id -> weight inside its step
    roster: dict = field(default_factory=dict)       # folder name -> student id
    submitted: dict = field(default_factory=dict)    # folder name -> aware datetime (from the roster)
    due: object = None                 # aware datetime, or None
    penalty: float = 0.0               # per day late
    max_late_days: object = None       # int, or None (no limit)
    partial: bool = True
    name: str = ""
    measurement: object = None         # Path of the course's measured file (its SHA-256 checked), or None
    students: dict = field(default_factory=dict)     # student id -> Student (the roster's order)
    extensions: dict = field(default_factory=dict)   # student id -> Extension
    overrides: dict = field(default_factory=dict)    # student id -> Override
    assignment: str = "kvlab"          # the LMS gradebooks' assignment column ([lms] assignment)
    store: object = None               # Path of the course's similarity store (every batch's fingerprints), or None

    @property
    def seed(self):
        """The hidden cases' seed: a keyed function of the secret; rng_for(seed, step, rule) draws each rule's cases."""
        return hmac.new(self.secret.encode(), b"hidden-cases", hashlib.sha256).hexdigest()

    @property
    def fingerprint(self):
        """A short name of this course's secret, for reports: tells two course files apart, reveals nothing."""
        return hmac.new(self.secret.encode(), b"fingerprint", hashlib.sha256).hexdigest()[:12]

    @property
    def max_total(self):
        return sum(self.step_points.values())

    def student(self, folder):
        """The student id of a hand-in folder (or .zip): its name exactly as the roster has it, a .zip file
        matching a roster key with or without ".zip"; "" if the roster does not name it."""
        return self.roster.get(self.roster_key(folder), "")

    def roster_key(self, folder):
        """The roster key of `folder` (its name, with or without ".zip"), or its name if none matches."""
        name = Path(folder).name
        if name in self.roster:
            return name
        if name[-4:].lower() == ".zip" and name[:-4] in self.roster:
            return name[:-4]
        if f"{name}.zip" in self.roster:
            return f"{name}.zip"
        return name

    def due_for(self, student):
        """The due date of a student (an extension's, else the course's), or None."""
        extension = self.extensions.get(student)
        return extension.due if extension else self.due


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def template(secret, measurement=None):
    if measurement:
        measured = (f'measurement = "{measurement[0]}"\nmeasurement_sha256 = "{measurement[1]}"\n')
    else:
        measured = ('# measurement = "ttft.jsonl"          # relative to this file\n'
                    '# measurement_sha256 = "…"             # `kvlab course init --measurement FILE` writes both\n')
    return f'''# kvlab course file: `kvlab grade --course THIS_FILE -- handins/*/`.
# Keep it private: its secret draws the hidden cases (anyone with it can replay them).
secret = "{secret}"

# The course's measured file: step 8 compares each hand-in's ttft.jsonl with it (and says so when the
# course names none). Every TA needs the same file: its SHA-256 is checked.
{measured}
# Optional: a due date and a late policy (lateness: a roster entry's submitted_at, else the
# newest modification time of a file in the hand-in folder).
# due = 2026-12-15T23:59:00+00:00
# late_penalty_per_day = 0.1
# max_late_days = 5

# A step earns its points times the share of its rules' weights that held (false: all or nothing).
partial_credit = true

# Optional: points per step (default: the sum of its rules' points, one per rule) and per rule.
[points.steps]
# "8" = 4

[points.rules]
# "lru.keys" = 4

# Optional: folder name -> student id (or {{ id = "s1002", submitted_at = 2026-12-16T08:00:00+00:00 }},
# with name, email, login, canvas_id, section for the LMS gradebooks: kvlab grade --canvas / --moodle).
[roster]
# alice = "s1001"

# Optional, by student id: a due date of one's own, or a total set by hand; the feedback shows the reason.
[extensions]
# s1002 = {{ days = 2, reason = "medical certificate" }}
[overrides]
# s1003 = {{ total = 55, reason = "step 8 regraded by hand" }}

# The Canvas and Moodle gradebooks' column (Canvas: "Assignment name (id)" as its gradebook export names it).
[lms]
# assignment = "KV-cache lab"

# The course's similarity store (each batch's marks, compared with the next): beside this file by default.
# similarity_store = "course.similarity.json"
'''


def init(path, measurement=None):
    """Write a new course file at `path`; `measurement`: the course's measured file, named relative to it."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        raise UserError(f"{path} already exists: not overwriting a course file (its secret would be lost)")
    if not path.resolve().parent.is_dir():
        raise UserError(f"{path}: the folder {path.resolve().parent} does not exist")
    measured = None
    if measurement is not None:
        measured = _measured_file(measurement, f"--measurement {measurement}")
        relative = os.path.relpath(measured.resolve(), path.resolve().parent)
        measured = (Path(relative).as_posix().replace("\\", "\\\\").replace('"', '\\"'), sha256(measured))
    try:
        with open(path, "x", encoding="utf-8") as out:  # "x": never over a file that appeared meanwhile
            out.write(template(secrets.token_hex(32), measured))
        path.chmod(0o600)
    except FileExistsError:
        raise UserError(f"{path} already exists: not overwriting a course file") from None
    return path


def _measured_file(path, what):
    """`path` if it is a measured file that summarize.py reads; UserError (one line) if not."""
    from .. import records
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{what}: no such file")
    try:
        records.read_records(path)
    except OSError as error:
        raise UserError(f"{what}: cannot be read ({error.strerror})") from None
    except records.InputError as error:
        raise UserError(f"{what}: not a measured file ({error})") from None
    return path


def _measurement(data, path, where, instead):
    """The course's measured file, its SHA-256 checked; None if the course names none."""
    if "measurement" not in data:
        if "measurement_sha256" in data:
            raise UserError(f"{where}: measurement_sha256 without measurement")
        return None
    named, digest = data["measurement"], data.get("measurement_sha256")
    if not isinstance(named, str) or not named:
        raise UserError(f"{where}: measurement must be the path of the measured file, relative to the course file")
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise UserError(f"{where}: measurement_sha256 must be the file's SHA-256 (64 hex digits; "
                        "kvlab course init --measurement FILE writes it)")
    measured = Path(instead) if instead else Path(path).resolve().parent / named
    measured = _measured_file(measured, f"{where}: measurement {named}")
    if sha256(measured) != digest:
        raise UserError(f"{where}: measurement {named} is not the course's file (its SHA-256 differs from "
                        "measurement_sha256): every TA must grade with the same measurement")
    return measured


def _moment(value, what):
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise UserError(f"{what} must have a time zone (e.g. 2026-12-15T23:59:00+00:00), got {value}")
        return value
    raise UserError(f"{what} must be a date and time with a time zone (e.g. 2026-12-15T23:59:00+00:00)")


def _number(value, what, low, high=None, whole=False):
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) or value < low \
            or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise UserError(f"{what} must be a {'whole ' if whole else ''}number {bound}, got {value!r}")
    return value


def load(path, measurement=None):
    """The Course in `path`; UserError (one line) on any problem.

    `measurement`: a copy of the course's measured file to use in place of the one it names (the
    Gradescope bundle's); its SHA-256 must be the course's all the same."""
    if tomllib is None:
        raise UserError("reading a course file needs tomli on Python 3.10: pip install tomli")
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"--course {path}: no such file (kvlab course init {path} writes one)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"--course {path}: cannot be read ({getattr(error, 'strerror', None) or error})") from None
    except tomllib.TOMLDecodeError as error:
        raise UserError(f"--course {path}: not valid TOML ({error})") from None
    where = f"--course {path}"
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise UserError(f"{where}: unknown setting {', '.join(unknown)}")
    secret = data.get("secret")
    if not isinstance(secret, str) or not re.fullmatch(r"[0-9a-f]{32,}", secret):
        raise UserError(f"{where}: secret must be a string of at least 32 hex digits (kvlab course init writes one)")
    steps, rules = default_points()
    points = data.get("points", {})
    if not isinstance(points, dict) or set(points) - {"steps", "rules"}:
        raise UserError(f"{where}: [points] may only hold [points.steps] and [points.rules]")
    for part in ("steps", "rules"):
        if not isinstance(points.get(part, {}), dict):
            raise UserError(f"{where}: [points.{part}] must be a table of \"name\" = points")
    for rule, value in points.get("rules", {}).items():
        if rule not in rules:
            raise UserError(f"{where}: [points.rules] names no rule of the lab: {rule!r}")
        rules[rule] = _number(value, f"{where}: [points.rules] {rule!r}", 0)
    for number in steps:  # a step's default follows its rules' weights
        steps[number] = sum(rules[spec.id] for spec in lab_table.STEPS[number].rules)
    for number, value in points.get("steps", {}).items():
        if not (isinstance(number, str) and number.isdigit() and int(number) in steps):
            raise UserError(f"{where}: [points.steps] names no step 1 to {len(steps)}: {number!r}")
        steps[int(number)] = _number(value, f"{where}: [points.steps] {number!r}", 0)
    roster, submitted = {}, {}
    entries = data.get("roster", {})
    if not isinstance(entries, dict):
        raise UserError(f"{where}: [roster] must be a table: folder name = \"student id\"")
    students = {}
    for folder, entry in entries.items():
        details = {}
        if isinstance(entry, dict):
            if set(entry) - ROSTER_FIELDS or not isinstance(entry.get("id"), str):
                raise UserError(f"{where}: roster entry {folder!r} must be \"id\" or {{ id = \"…\", submitted_at = …, "
                                f"name, email, login, canvas_id, section = \"…\" }}")
            if "submitted_at" in entry:
                submitted[folder] = _moment(entry["submitted_at"], f"{where}: roster {folder!r} submitted_at")
            for key in ROSTER_FIELDS - {"id", "submitted_at"}:
                if key in entry:
                    details[key] = _text(entry[key], f"{where}: roster {folder!r} {key}")
            entry = entry["id"]
        if not isinstance(entry, str) or not entry.strip():
            raise UserError(f"{where}: roster entry {folder!r} must be a student id (a string)")
        roster[folder] = entry
        students[entry] = Student(entry, **details)
    ids = [student for student in roster.values()]
    if len(set(ids)) != len(ids):
        raise UserError(f"{where}: the roster gives one student id to two folders")
    due = _moment(data["due"], f"{where}: due") if "due" in data else None
    penalty = _number(data.get("late_penalty_per_day", 0.0), f"{where}: late_penalty_per_day", 0, 1)
    most = data.get("max_late_days")
    if most is not None:
        most = _number(most, f"{where}: max_late_days", 0, whole=True)
    if due is None and ("late_penalty_per_day" in data or most is not None):
        raise UserError(f"{where}: a late policy needs a due date (due = 2026-12-15T23:59:00+00:00)")
    partial = data.get("partial_credit", True)
    if not isinstance(partial, bool):
        raise UserError(f"{where}: partial_credit must be true or false")
    measured = _measurement(data, path, where, measurement)
    extensions = {student: Extension(_extended(entry, due, f"{where}: [extensions] {student!r}"),
                                     _reason(entry, f"{where}: [extensions] {student!r}"))
                  for student, entry in _table(data, "extensions", where, students).items()}
    max_total = sum(steps.values())
    overrides = {student: Override(_number(entry.get("total"), f"{where}: [overrides] {student!r} total", 0, max_total),
                                   _reason(entry, f"{where}: [overrides] {student!r}"))
                 for student, entry in _table(data, "overrides", where, students, {"total", "reason"}).items()}
    lms = data.get("lms", {})
    if not isinstance(lms, dict) or set(lms) - {"assignment"}:
        raise UserError(f"{where}: [lms] may only hold assignment = \"the gradebook column's name\"")
    assignment = _text(lms.get("assignment", "kvlab"), f"{where}: [lms] assignment") or "kvlab"
    store = data.get("similarity_store", f"{Path(path).stem}.similarity.json")
    if store is not False:
        if not isinstance(store, str) or not store:
            raise UserError(f"{where}: similarity_store must be a file name (relative to the course file) or false")
        store = Path(path).resolve().parent / store
    return Course(secret, steps, rules, roster, submitted, due, float(penalty), most, partial, str(data.get("name", "")),
                  measured, students, extensions, overrides, assignment, store or None)


def _text(value, what):
    if not isinstance(value, str) or len(value) > MOST_REASON:
        raise UserError(f"{what} must be a string of at most {MOST_REASON} characters")
    return value


def _table(data, key, where, students, fields=None):
    """[key] of the course file: {student id: a table}, every id one of the roster's (if it has one)."""
    entries = data.get(key, {})
    if not isinstance(entries, dict) or not all(isinstance(entry, dict) for entry in entries.values()):
        raise UserError(f"{where}: [{key}] must be a table of student id = {{ …, reason = \"…\" }}")
    for student, entry in entries.items():
        if students and student not in students:
            raise UserError(f"{where}: [{key}] names {student!r}, who is not in the roster")
        if fields is not None and set(entry) - fields:
            raise UserError(f"{where}: [{key}] {student!r} may only hold {', '.join(sorted(fields))}")
    return entries


def _reason(entry, what):
    reason = entry.get("reason")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > MOST_REASON:
        raise UserError(f"{what} needs a reason = \"…\" (at most {MOST_REASON} characters): the student's feedback "
                        "shows it")
    return " ".join(reason.split())


def _extended(entry, due, what):
    """An extension's due date: due = a date and time, or days = whole days after the course's."""
    if set(entry) - {"due", "days", "reason"} or ("due" in entry) == ("days" in entry):
        raise UserError(f"{what} must hold either due = … or days = N, and reason = \"…\"")
    if "due" in entry:
        return _moment(entry["due"], f"{what} due")
    if due is None:
        raise UserError(f"{what}: days = N needs the course's due date")
    return due + datetime.timedelta(days=_number(entry["days"], f"{what} days", 0, 3650, whole=True))


# --- scores ---------------------------------------------------------------------------------------------

def newest_mtime(folder):
    """The newest modification time of a regular file where the grader takes the hand-in's files (the top of
    `folder`, or the folders of a wrong layout: kvlab.instructor.layout.locate), links not followed; a .zip
    hand-in's own time; or None. A number of seconds, any number (times() clamps it)."""
    from .layout import locate
    folder, newest = Path(folder), None
    try:
        if folder.is_file() and not folder.is_symlink():
            return folder.stat().st_mtime
        for place in dict.fromkeys(locate(folder)[:2]):
            for path in place.iterdir():
                if path.is_file() and not path.is_symlink():
                    mtime = path.stat().st_mtime
                    newest = mtime if newest is None else max(newest, mtime)
    except OSError:
        return None
    return newest


def clamped(seconds):
    """(an aware datetime, whether it was clamped): a file time as a date, within EARLIEST and LATEST
    (a time of 3e11 seconds, or a NaN, never ends the batch)."""
    if not math.isfinite(seconds) or seconds < EARLIEST.timestamp():
        return EARLIEST, True
    if seconds >= LATEST.timestamp():
        return LATEST, True
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc), False


@dataclass(frozen=True)
class Submitted:
    """When a hand-in was handed in, and from where that time comes: "given" (a time the student cannot set:
    Gradescope's submission metadata), "roster" (its submitted_at), "file-times" (the fallback: its files'
    newest modification time, which an archive or a copy can carry from anywhere), or "" (unknown)."""
    when: object = None
    source: str = ""
    clamped: bool = False


def submitted_at(course, folder, given=None):
    """The Submitted of a folder: `given` (a time the student cannot set), else its roster submitted_at, else
    its files' newest modification time (clamped)."""
    if given is not None:
        return Submitted(given, "given")
    key = course.roster_key(folder)
    if key in course.submitted:
        return Submitted(course.submitted[key], "roster")
    mtime = newest_mtime(folder)
    if mtime is None:
        return Submitted()
    when, clamp = clamped(mtime)
    return Submitted(when, "file-times", clamp)


def late_days(due, when):
    """Whole days late, a part of a day counting as a day; 0 if on time, without a due date, or unknown."""
    if due is None or when is None or when <= due:
        return 0
    return math.ceil((when - due).total_seconds() / DAY)


@dataclass
class Score:
    steps: dict          # step -> points
    raw: float           # their sum
    late: int            # days late
    penalty: float       # the share taken off (0..1)
    total: float         # raw after the penalty (or the override's)
    too_late: bool
    submitted: Submitted = Submitted()
    extension: object = None   # the student's Extension, or None
    override: object = None    # the student's Override, or None

    def flags(self, course):
        """The score's flags for the instructor's gradebook: where the lateness came from, what the course changed."""
        found = []
        if course.due is not None and self.submitted.source == "file-times":
            found.append("late-from-file-times")  # the fallback: file times can be set by whoever made the files
        if self.submitted.clamped:
            found.append("file-time-clamped")
        if course.due is not None and self.submitted.source == "":
            found.append("submitted-unknown")
        found += ["extension"] if self.extension else []
        found += ["override"] if self.override else []
        found += ["too-late"] if self.too_late else []
        return found


def score(course, grade, given=None, student=None):
    """A grade's Score under the course: step points, late days, the penalty and the total. `given`: when it
    was handed in, from a source the student cannot set (Gradescope's metadata); `student`: its id (by
    default the roster's for its folder)."""
    student = course.student(grade.folder) if student is None else student
    steps = {number: 0.0 if grade.error else step_points(course, number, grade.steps[number])
             for number in course.step_points}
    raw = round(sum(steps.values()), 2)
    submitted = submitted_at(course, grade.folder, given) if course.due is not None else Submitted()
    late = late_days(course.due_for(student), submitted.when)
    too_late = course.max_late_days is not None and late > course.max_late_days
    penalty = 1.0 if too_late else min(1.0, course.penalty * late)
    total = round(raw * (1 - penalty), 2)
    override = course.overrides.get(student)
    if override is not None:
        total = round(float(override.total), 2)
    return Score(steps, raw, late, penalty, total, too_late, submitted, course.extensions.get(student), override)


# --- the command -------------------------------------------------------------------------------------------

def add_arguments(parser):
    actions = parser.add_subparsers(dest="action", required=True)
    start = actions.add_parser("init", help="write a new course file with a fresh random secret "
                                            "(refuses to overwrite one)")
    start.add_argument("file", metavar="COURSE.toml")
    start.add_argument("--measurement", metavar="TTFT.jsonl",
                       help="the course's measured file: step 8 compares each hand-in's ttft.jsonl with it")


def run(args):
    if args.action == "init":
        path = init(args.file, args.measurement)
        course = load(path)
        measured = f", measurement {course.measurement}" if course.measurement else ", no measurement named"
        print(f"wrote {path} (course {course.fingerprint}{measured}); keep it private: its secret draws the hidden cases")
    return 0


def practice():
    """The scoring of practice mode (no course file): the default points, no roster, no late policy."""
    steps, rules = default_points()
    return Course("", steps, rules)
