"""Build a Gradescope autograder bundle for a course (`kvlab autograder --course COURSE.toml OUT.zip`).

The zip holds what Gradescope asks for at its top: `setup.sh` (run once, as root, when the image is
built) and `run_autograder` (run for each submission), and beside them the grader: this kvlab as a
wheel (made here by zipping the package: no build step, no network), the course file and the lab's
measured file (`bundle.json` says whether it is the stand-in or a course measurement).

setup.sh installs python3, python3-venv and bubblewrap with apt-get only where a command is missing
(KVLAB_SKIP_APT=1: never), makes /autograder/venv and installs the bundled wheel into it with
`--no-index` (tomli comes from PyPI on Python 3.10 only, where reading the course file needs it), then
makes /autograder/source and /autograder/venv readable by root only: Gradescope runs the student's
code in the same container, and the reference scripts and the course's secret are in there.

run_autograder grades /autograder/submission (its top, one folder down, or the student edition's
kvlab/ tree: kvlab.instructor.layout.locate) with the course file and writes
/autograder/results/results.json: one test per step, its points as the course gives them (partial
credit included; no late policy: Gradescope applies its own), and as output the step's failing rules
with their hints. A hidden rule's row carries no case (kvlab.check.engine: a hidden case is never kept in a Verdict), so every test is
"visible": there is nothing to hold back until publication.

The student's code runs in the grader's bubblewrap sandbox (uid 65534 inside, an unprivileged outside
uid) when bwrap can make one in the container. Where it cannot (many containers refuse the namespaces
it needs), the code runs as plain child processes dropped to an unprivileged uid of their own, with the
sandbox's hard limits, in a scratch folder holding only its files: it cannot read /autograder/source or
the venv (root only) or write the results, but it sees the rest of the container as any user does, has
the network if the container does, and is not in a PID namespace. The results' output says which.
"""
import base64
import csv
import hashlib
import io
import json
import os
import sys
import tempfile
import zipfile
from pathlib import Path

from .. import paths
from ..errors import UserError

PACKAGE = Path(__file__).resolve().parent.parent          # kvlab/
COURSE_NAME = "course.toml"
TTFT_NAME = "ttft.jsonl"
MANIFEST = "bundle.json"
SOURCE = "/autograder/source"
RESULTS = "/autograder/results/results.json"
SUBMISSION = "/autograder/submission"
INSTRUCTOR_FLAGS = ("similar-to-reference", "similar-hand-ins", "not-read")  # for the course staff's eyes only
STORE_NAME = "similarity.json"                             # the course's similarity store, when it has one
METADATA = "/autograder/submission_metadata.json"          # Gradescope's: when the student submitted
ZIP_TIME = (2026, 1, 1, 0, 0, 0)                           # one date for every entry: the same bundle twice

SETUP_SH = r"""#!/bin/sh
# kvlab autograder: Gradescope runs this once, as root, when it builds the image.
set -eu
SOURCE=/autograder/source
VENV=/autograder/venv
cd "$SOURCE"
need=""
command -v python3 >/dev/null 2>&1 || need="$need python3"
python3 -c "import ensurepip" >/dev/null 2>&1 || need="$need python3-venv"  # what `python3 -m venv` needs
command -v bwrap >/dev/null 2>&1 || need="$need bubblewrap"
if [ -n "$need" ]; then
    if [ "${KVLAB_SKIP_APT:-}" = "1" ]; then
        echo "kvlab setup: missing$need, and KVLAB_SKIP_APT=1: not installing" >&2
    else
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need
    fi
fi
WHEEL=$(ls "$SOURCE"/kvlab-*.whl)
rm -rf "$VENV"
# Quick: a venv without pip, filled by the system's pip (pip >= 22.3 has --python); else a venv with pip.
if python3 -m venv --without-pip "$VENV" 2>/dev/null &&
   python3 -m pip --python "$VENV/bin/python" install -q --disable-pip-version-check --no-index --no-deps "$WHEEL" 2>/dev/null
then
    PIP="python3 -m pip --python $VENV/bin/python"
else
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$WHEEL"
    PIP="$VENV/bin/python -m pip"
fi
# Python 3.10 reads the course file with tomli, from PyPI (setup has the network); 3.11 has tomllib.
"$VENV/bin/python" -c "import tomllib" 2>/dev/null || $PIP install -q --disable-pip-version-check "tomli>=2"
"$VENV/bin/python" -I -c "import kvlab.instructor.autograder"
# The reference scripts and the course's secret: root only (the student's code runs in this container).
chmod -R go-rwx "$SOURCE" "$VENV"
chmod 700 "$SOURCE" "$VENV"
chmod 600 "$SOURCE/course.toml"
echo "kvlab setup: done"
"""

RUN_AUTOGRADER = r"""#!/bin/sh
# kvlab autograder: Gradescope runs this for each submission, as root.
cd /autograder/source || exit 1
mkdir -p /autograder/results
exec /autograder/venv/bin/python -I -m kvlab.instructor.autograder \
    /autograder/source /autograder/submission /autograder/results/results.json
"""


# --- building the bundle ---------------------------------------------------------------------------------

def package_files():
    """{path in the wheel: bytes}: every file of the kvlab package, no compiled ones."""
    found = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
            found[str(Path("kvlab") / path.relative_to(PACKAGE))] = path.read_bytes()
    return found


def _zip_bytes(files, executable=()):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100755 if name in executable else 0o100644) << 16
            package.writestr(info, data)
    return out.getvalue()


def version():
    """This kvlab's version, as installed (pyproject.toml's)."""
    from importlib import metadata
    try:
        return metadata.version("kvlab")
    except metadata.PackageNotFoundError:
        return "0"


def wheel():
    """(file name, bytes) of a pure-Python wheel of this kvlab (PEP 427), made by zipping the package."""
    files, number = package_files(), version()
    info = f"kvlab-{number}.dist-info"
    files[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: kvlab\nVersion: {number}\n"
                                 "Requires-Python: >=3.10\n").encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: kvlab-autograder\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/entry_points.txt"] = b"[console_scripts]\nkvlab = kvlab.cli:main\n"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([name, f"sha256={digest}", len(data)])
    writer.writerow([f"{info}/RECORD", "", ""])
    files[f"{info}/RECORD"] = record.getvalue().encode()
    return f"kvlab-{number}-py3-none-any.whl", _zip_bytes(files)


def bundle_files(course_path):
    """{name: bytes} of the bundle: setup.sh, run_autograder, the wheel, the course file, ttft.jsonl, bundle.json."""
    from . import course as courses
    course = courses.load(course_path)  # a bad course file is refused now, not on Gradescope
    ttft = course.measurement or paths.STAND_IN_TTFT  # the course's measurement (its SHA-256 checked), if it names one
    try:
        measured = ttft.read_bytes()
    except OSError as error:
        raise UserError(f"the lab's measured file {ttft} cannot be read ({error.strerror})") from None
    store = {}
    if course.store is not None and course.store.is_file():  # the course's earlier batches: compared there too
        store[STORE_NAME] = course.store.read_bytes()
    name, data = wheel()
    manifest = {"course": course.fingerprint, "max_total": course.max_total, "wheel": name,
                "ttft_stand_in": course.measurement is None}
    return {"setup.sh": SETUP_SH.encode(), "run_autograder": RUN_AUTOGRADER.encode(), name: data,
            COURSE_NAME: Path(course_path).read_bytes(), TTFT_NAME: measured,
            MANIFEST: (json.dumps(manifest, indent=2) + "\n").encode(), **store}


def build(course_path, out):
    """Write the bundle to `out` (a .zip), whole; the Course's fingerprint."""
    out = Path(out)
    if not out.resolve().parent.is_dir():
        raise UserError(f"{out}: the folder {out.resolve().parent} does not exist")
    files = bundle_files(course_path)
    data = _zip_bytes(files, executable=("setup.sh", "run_autograder"))
    handle, partial = tempfile.mkstemp(dir=out.resolve().parent, prefix=f".{out.name}.")
    try:
        with os.fdopen(handle, "wb") as written:
            written.write(data)
        os.chmod(partial, 0o600)  # it holds the course's secret
        os.replace(partial, out)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return json.loads(files[MANIFEST])["course"]


# --- the command ---------------------------------------------------------------------------------------------

def add_arguments(parser):
    parser.add_argument("--course", metavar="COURSE.toml", required=True,
                        help="the course file (kvlab course init): its secret, points; bundled (keep the zip private)")
    parser.add_argument("out", metavar="OUT.zip", help="the bundle to write: upload it as the Gradescope autograder")


def run(args):
    if not args.out.lower().endswith(".zip"):
        raise UserError(f"{args.out}: the bundle's name must end in .zip")
    fingerprint = build(args.course, args.out)
    print(f"wrote {args.out} (course {fingerprint}): upload it as a Gradescope autograder; it holds the course's "
          "secret and the reference: keep it private")
    return 0


# --- on Gradescope: grading one submission --------------------------------------------------------------------

def step_output(report):
    """A step's failing rules and their hints, as the feedback renders them (no hidden case is in a row)."""
    from ..i18n import t
    from .judge import printable
    lines = []
    for row in report.failures:
        rule = t("course.rule-line", rule=printable(row.rule, 1000))
        lines.append(rule if row.hint is None else
                     t("course.rule-and-hint", rule=rule, hint=t("course.hint-line", hint=printable(row.hint, 2000))))
    if report.note:
        lines.append(printable(report.note, 2000))
    return "\n".join(lines)


def results(course, result, given=None, student=""):
    """The Gradescope results.json document for one Grade: a test per step, the course's late policy if it has
    a due date (lateness from `given`, Gradescope's own submission time), and the instructor's flags
    (similarity) in a test only the course's staff see."""
    from ..i18n import t
    from . import course as courses, coursebook, gradebook
    from .judge import TITLES
    score = courses.score(course, result, given, student)
    entry = gradebook.Entry(student, result, score)
    tests = []
    for step in TITLES:
        report = result.steps.get(step)
        output = f"not graded: {result.error}" if result.error else step_output(report)
        tests.append({"name": f"Step {step}: {t(TITLES[step])}", "score": score.steps[step],
                      "max_score": float(course.step_points[step]), "output": output, "visibility": "visible"})
    staff = {flag: detail for flag, detail in result.flags.items() if flag in INSTRUCTOR_FLAGS}
    staff.update((code, "") for code in score.flags(course) if code not in staff)
    if staff:
        tests.append({"name": "kvlab flags (course staff only)", "score": 0.0, "max_score": 0.0,
                      "output": "\n".join(f"{flag}: {detail}" if detail else flag for flag, detail in staff.items()),
                      "visibility": "hidden"})
    notes = [f"course {course.fingerprint}, hidden cases {result.cases}"]
    notes += [f"{flag}: {detail}" for flag, detail in result.flags.items() if flag not in INSTRUCTOR_FLAGS]
    if result.error:
        notes.append(f"not graded: {result.error}")
    notes += [text for kind, text, *_ in coursebook.feedback_parts(course, entry) if kind == "para"
              and text != t("course.course-line", course=course.fingerprint, cases=result.cases)]
    notes.append("your code ran in a bubblewrap sandbox" if result.isolated else
                 "your code ran as an unprivileged user of its own, without network, without a sandbox "
                 "(bubblewrap cannot run in this container)")
    return {"score": score.total, "output": "\n".join(notes), "tests": tests,
            "visibility": "visible", "stdout_visibility": "hidden"}


def submitted(metadata):
    """(when it was handed in, the student's id) from Gradescope's submission_metadata.json: a time the
    student cannot set; (None, "") if it cannot be read."""
    import datetime
    try:
        data = json.loads(Path(metadata).read_text(encoding="utf-8"))
        when = datetime.datetime.fromisoformat(str(data["created_at"]).replace("Z", "+00:00"))
    except (OSError, ValueError, KeyError, TypeError):
        return None, ""
    users = data.get("users") or [{}]
    first = users[0] if isinstance(users[0], dict) else {}
    return (when if when.tzinfo else None), str(first.get("sid") or first.get("email") or "")


def write_results(results_path, document):
    """Write results.json whole, as root, through a descriptor of its folder (never through a link); the
    folder made root's and closed to others first (every student process is gone by now)."""
    out = Path(results_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(out.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        status = os.fstat(folder)
        if status.st_uid != os.geteuid() or status.st_mode & 0o022:
            os.fchown(folder, os.geteuid(), os.getegid())
            os.fchmod(folder, 0o755)
        partial = f".{out.name}.{os.getpid()}.partial"
        try:
            os.unlink(partial, dir_fd=folder)
        except FileNotFoundError:
            pass
        handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                         dir_fd=folder)
        with os.fdopen(handle, "w", encoding="utf-8") as written:
            written.write(json.dumps(document, indent=2) + "\n")
        os.replace(partial, out.name, src_dir_fd=folder, dst_dir_fd=folder)  # a link there is replaced, not followed
    finally:
        os.close(folder)


def grade_submission(source, submission, results_path, metadata=None):
    """Grade `submission` with the bundle in `source`; write results.json; the document. Where neither
    bubblewrap nor the fallback can hold, UserError (and no results): grading there would not be safe."""
    from . import batch as batches, course as courses, fallback, grade, sandbox, similarity
    source = Path(source)
    manifest = json.loads((source / MANIFEST).read_text(encoding="utf-8"))
    if manifest.get("ttft_stand_in"):
        paths.STAND_IN_TTFT = source / TTFT_NAME  # the stand-in: step 8 says nothing was compared with one
        course = courses.load(source / COURSE_NAME)
    else:  # the course's measurement, bundled beside it
        course = courses.load(source / COURSE_NAME, measurement=source / TTFT_NAME)
    isolation = os.environ.get(grade.NO_ISOLATION) != "1" and sandbox.available()[0]
    if not isolation:
        private = [source, source / COURSE_NAME, Path(sys.prefix)]
        ok, why = fallback.available(private, closed=[Path(results_path).parent])
        if not ok:
            raise UserError(f"not grading here: bubblewrap cannot make its sandbox in this container, and {why}")
    batch = batches.Batch(batches.Options(course.seed, batches.DEFAULT_TIMEOUT, isolation, course.fingerprint),
                          course=course)
    batch.fallback = not isolation
    try:
        result = batch.grade(submission)
    finally:
        batch.readers.close()
    if not isolation and not fallback.reap_all():
        raise UserError("not grading here: a process of the student's code could not be ended")
    stored = similarity.load_store(source / STORE_NAME, course.fingerprint)
    similarity.mark([result], stored)
    given, student = submitted(metadata) if metadata else (None, "")
    document = results(course, result, given, student if student in course.students else "")
    write_results(results_path, document)
    return document


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    source, submission, results_path, metadata = (argv + [SOURCE, SUBMISSION, RESULTS, METADATA][len(argv):])[:4]
    try:
        document = grade_submission(source, submission, results_path, metadata)
    except UserError as error:
        print(f"kvlab autograder: error: {error}", file=sys.stderr)
        return 2
    print(f"kvlab autograder: score {document['score']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
