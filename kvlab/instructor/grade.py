"""`kvlab grade DIR [DIR ...]`: the command. Grading itself is kvlab.instructor.batch (one folder, many);
where a hand-in's files are, kvlab.instructor.layout; the practice gradebook, kvlab.instructor.gradebook;
a course's gradebook, feedback and report, kvlab.instructor.coursebook.

KVLAB_NO_ISOLATION=1 runs the code as a plain child process with the grader's rights and environment:
it can read what you can, and a daemon that leaves its session outlives the grade. Trusted code only.
"""
import json
import os
import secrets
import sys
from pathlib import Path

from .. import files
from ..errors import UserError
from . import sandbox
from .batch import DEFAULT_TIMEOUT, MOST_JOBS, grade_all, seed_fingerprint, shown
from . import gradebook
from .gradebook import Gradebook, csv_text, table
from .layout import is_handin

MOST_TIMEOUT = 600.0      # --timeout above this is a typo
SEED_BITS = 128           # practice mode's secret seed: never found from a report's fingerprint
PROGRESS_FROM = 5         # show a progress line on a terminal from this many folders on


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
    parser.add_argument("--canvas", metavar="FILE",
                        help="with --course: also write Canvas's gradebook import (Student, ID, SIS User ID, SIS Login "
                             "ID, Section, then the assignment's column and its Points Possible row)")
    parser.add_argument("--moodle", metavar="FILE", help="with --course: also write a Moodle grade import CSV")
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
    for option, path in (("--csv", args.csv), ("--canvas", args.canvas), ("--moodle", args.moodle)):
        if path and not Path(path).resolve().parent.is_dir():
            raise UserError(f"{option} {path}: the folder {Path(path).resolve().parent} does not exist")
    if (args.canvas or args.moodle) and not args.course:
        raise UserError("--canvas and --moodle need --course: an LMS gradebook holds a course's grades")
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
        args.seed = default_seed() if isolation else secrets.randbits(SEED_BITS)
    scoring = course or courses.practice()
    show = _progress_line if sys.stderr.isatty() and len(args.folder) >= PROGRESS_FROM else None
    cache = None if args.no_cache or not isolation else cache_dir()
    render = (lambda grades, header=True: gradebook.course_csv(course, grades, header)) if course else csv_text

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
    if course is not None and course.store is not None and not interrupted:
        compare_with_store(course, grades)
    try:
        if book:
            book.close(grades)
        for path, write in ((args.canvas, gradebook.canvas_csv), (args.moodle, gradebook.moodle_csv)):
            if path and not interrupted:
                files.write_atomically(path, write(course, grades))
        if interrupted and (args.feedback or args.report):
            print("kvlab grade: interrupted: --feedback and --report were not written (run again to finish)",
                  file=sys.stderr)
        elif args.feedback:
            coursebook.write_feedback(args.feedback, scoring, grades, force=args.force, practice=practice)
        if args.report and not interrupted:
            coursebook.write_report(args.report, scoring, grades, force=args.force, practice=practice)
    except files.Refused as error:
        raise UserError(str(error)) from None
    passed = all(grade.passed for grade in grades)
    applied = sandbox.limits() if isolation else {"isolation": "none (KVLAB_NO_ISOLATION=1): no limit applies"}
    mode = f"course {course.fingerprint}" if course else "PRACTICE (no --course: not a course's grade)"
    entries = gradebook.roll(course, grades) if course else []
    if args.json:
        document = {"mode": "course" if course else "practice", "course": course.fingerprint if course else None,
                    "hidden_cases": seed_fingerprint(args.seed), "passed": passed, "interrupted": interrupted,
                    "isolated": isolation, "limits": applied, "folders": []}
        counted = {id(entry.grade): entry for entry in entries if not entry.missing}
        for grade in grades:
            entry = grade.as_dict()
            if course:
                row = counted.get(id(grade))
                score = row.score if row else courses.score(course, grade)
                entry.update(student_id=course.student(grade.folder), points={str(step): points for step, points
                                                                                in score.steps.items()},
                             total=score.total, max_total=course.max_total, late=score.late, counted=row is not None,
                             flags_codes=gradebook.flag_codes(row, course) if row else ["duplicate-hand-ins"])
            document["folders"].append(entry)
        if course:
            document["missing"] = [entry.student for entry in entries if entry.missing]
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
    print_roll(entries)
    if interrupted:
        return 130
    return 0 if passed else 1


def compare_with_store(course, grades):
    """Compare the batch with the course's earlier batches (its similarity store), then add it to the store."""
    from . import similarity

    def key(grade):  # a hand-in's name in the store: its student id, else its folder's name
        return course.student(grade.folder) or f"folder:{Path(grade.folder).name}"
    stored = similarity.load_store(course.store, course.fingerprint)
    similarity.mark(grades, stored, key)
    try:
        similarity.save_store(course.store, course.fingerprint, stored, grades, key)
    except OSError as error:
        print(f"kvlab grade: warning: the course's similarity store {course.store} was not written ({error})",
              file=sys.stderr)


def print_roll(entries):
    """What a course's roll adds to the table: the students who handed nothing in, the second hand-ins."""
    missing = [entry.student for entry in entries if entry.missing]
    if missing:
        print(f"not handed in ({len(missing)}): {', '.join(map(shown, missing))}")
    for entry in entries:
        if entry.others:
            print(f"{shown(entry.student)}: {shown(entry.folder())} counts; also handed in: "
                  f"{', '.join(map(shown, entry.others))} (flagged duplicate-hand-ins)")


def cache_dir():
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kvlab" / "grades"


def default_seed():
    """$KVLAB_SEED, else this machine's secret seed: drawn once, kept beside the cache, reused by every run.

    The public checks' generators ship to students, so a known seed (0) would let them replay the hidden
    cases; a secret one that stays the same keeps grades reproducible and cached. It has 128 bits: a
    report's fingerprint of it cannot be searched back (a seed below 10**9 was, in seconds).
    """
    if os.environ.get("KVLAB_SEED"):
        try:
            return int(os.environ["KVLAB_SEED"])
        except ValueError:
            raise UserError(f"KVLAB_SEED must be a whole number, got {os.environ['KVLAB_SEED']!r}") from None
    path = cache_dir().parent / "seed"
    try:
        seed = int(path.read_text().strip())
        if seed.bit_length() > SEED_BITS - 8:  # a seed of an older kvlab (below 10**9) is drawn again
            return seed
    except (OSError, ValueError):
        pass
    seed = secrets.randbits(SEED_BITS) | 1 << (SEED_BITS - 1)  # 128 bits: no fingerprint leads back to it
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomically(path, f"{seed}\n")
    except OSError:
        pass  # a seed that cannot be kept still grades this run
    return seed


def _progress_line(done, total):
    print(f"\rgraded {done}/{total} folders", end="", file=sys.stderr, flush=True)
