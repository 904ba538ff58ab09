"""The gradebooks: the table and the practice CSV (one row per folder), and a course's (one row per student).

A course's gradebook comes from its roll (roll()): one Entry per student id, whatever the folders are
called (a .zip matches its roster key with or without ".zip"), a second hand-in of the same student
flagged (never a second row), a folder the roster does not name on a row of its own, and a row for every
roster student who handed nothing in (flagged missing). It is written as kvlab's CSV (--csv), Canvas's
import CSV (--canvas: Student, ID, SIS User ID, SIS Login ID, Section, then the assignment's column, with
its Points Possible row) or Moodle's (--moodle). The --csv file is written as folders finish
(Gradebook: FILE.partial), and whole at the end.
"""
import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from .. import files
from .batch import shown
from .judge import TITLES


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
        files.write_atomically(self.path, self.render(grades))
        self.partial.unlink(missing_ok=True)


def cell(text, limit=1000):
    """Text for a spreadsheet: printable, and never taken for a formula."""
    text = shown(text, limit)
    return "'" + text if text.startswith(("=", "+", "-", "@")) else text


# --- a course's gradebook: one row per student ---------------------------------------------------------------

@dataclass
class Entry:
    """One student's row: the id ("" when the roster does not name the folder), the Grade that counts (None:
    nothing handed in), its Score, and the other folders of the same student (not counted)."""
    student: str
    grade: object = None
    score: object = None
    others: list = field(default_factory=list)

    @property
    def missing(self):
        return self.grade is None

    def folder(self):
        return "" if self.grade is None else (Path(self.grade.folder).name or self.grade.folder)


def roll(course, grades, given=None, fill=True):
    """[Entry]: the graded folders' students in the folders' order (the first folder of a student counts, the
    others are flagged), then the roster's students with no hand-in, in the roster's order. `given`:
    {folder: when it was handed in, from a source the student cannot set}; `fill`: add the missing students."""
    from . import course as courses
    given = given or {}
    entries, by_student = [], {}
    for grade in grades:
        student = course.student(grade.folder)
        if student and student in by_student:
            by_student[student].others.append(Path(grade.folder).name or grade.folder)
            continue
        entry = Entry(student, grade, courses.score(course, grade, given.get(grade.folder), student))
        entries.append(entry)
        if student:
            by_student[student] = entry
    for student in dict.fromkeys(course.roster.values()) if fill else ():
        if student not in by_student:
            entries.append(Entry(student))
    return entries


def flag_codes(entry, course, practice=False):
    """Short codes for an entry's flags column."""
    if entry.missing:
        return ["missing"] + (["extension"] if entry.student in course.extensions else [])
    grade = entry.grade
    codes = (["not-graded"] if grade.error else []) + list(grade.flags)
    codes += [] if grade.isolated else ["not-isolated"]
    codes += ["duplicate-hand-ins"] if entry.others else []
    codes += [] if entry.student or not course.roster else ["not-in-roster"]
    codes += entry.score.flags(course)
    return codes + (["practice"] if practice else [])


def number(value):
    """Points as the gradebook shows them: 3, 2.5, 0.33."""
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


COURSE_HEADER = ["student_id", "folder", *(f"step{number}" for number in TITLES), "total", "max_total", "late", "flags"]


def course_rows(course, entries, practice=False):
    """The rows of kvlab's course CSV (no header)."""
    rows = []
    for entry in entries:
        if entry.missing:
            steps, total, late = [""] * len(TITLES), "0", ""
        else:
            score = entry.score
            steps, total, late = [number(score.steps[step]) for step in TITLES], number(score.total), score.late
        flags = flag_codes(entry, course, practice)
        if entry.others:
            flags.append("(" + ", ".join(entry.others) + ")")
        rows.append([cell(entry.student), cell(entry.folder()), *steps, total, number(course.max_total), late,
                     cell(" ".join(flags), 10_000)])
    return rows


def course_csv(course, grades, header=True, given=None, practice=False):
    """The course gradebook: one row per student, step points, the total after the late penalty, flags as codes.
    Without the header (rows appended as folders finish) no missing student is added."""
    return _csv([COURSE_HEADER] if header else [], course_rows(course, roll(course, grades, given, fill=header),
                                                                 practice))


CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def canvas_csv(course, grades, given=None):
    """Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then the assignment's
    column ([lms] assignment), the second row its Points Possible. A row per roster student (a student
    with no hand-in: 0, or blank when the student has an extension), then the folders the roster does not name (no
    id: Canvas cannot match them; they stay for the instructor to see)."""
    rows = [["Points Possible", "", "", "", "", number(course.max_total)]]
    for entry in roll(course, grades, given):
        who = course.students.get(entry.student)
        name = (who.name if who and who.name else entry.student or entry.folder())
        ids = [who.canvas_id, entry.student, who.login, who.section] if who else ["", "", "", ""]
        rows.append([cell(name), *map(cell, ids), _points(course, entry)])
    return _csv([CANVAS_HEADER + [course.assignment]], rows)


MOODLE_HEADER = ["ID number", "Username", "Email address", "Full name"]


def moodle_csv(course, grades, given=None):
    """Moodle's grade import CSV: an identifier column to map (ID number, Username or Email address), the
    student's full name, then the assignment's grade column; a row per student, as canvas_csv()."""
    rows = []
    for entry in roll(course, grades, given):
        who = course.students.get(entry.student)
        rows.append([cell(entry.student), cell(who.login if who else ""), cell(who.email if who else ""),
                     cell(who.name if who and who.name else entry.student or entry.folder()),
                     _points(course, entry)])
    return _csv([MOODLE_HEADER + [course.assignment]], rows)


def _points(course, entry):
    """An LMS cell: the total; 0 for a student with no hand-in, blank if that student has an extension."""
    if entry.missing:
        return "" if entry.student in course.extensions else "0"
    return number(entry.score.total)


def _csv(head, rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(head + rows)
    return out.getvalue()
