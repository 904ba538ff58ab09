"""The practice gradebook and the table: one line or CSV row per folder (`kvlab grade --csv` without --course).

The --csv file is written as folders finish (Gradebook: FILE.partial), and whole at the end.
"""
import csv
import io
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
