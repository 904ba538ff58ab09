"""A check's report: one row per rule, ✓ or ✗, and for the root cause a hint naming the misconception.

Rules run simplest first. The first rule that fails names the misconception; a later rule that fails
stays ✗ but holds its hint back, because one mistake usually breaks several rules and a student should
get one hint, the one about the cause. `Report.misconceptions` is therefore the root cause alone.
"""
import html
import re
from typing import NamedTuple

from .hints import HINTS

HELD = "may follow from the first ✗ above: fix that one, then check again"
SKIPPED = ("not checked here: this edition's stored expectations do not cover this input (the measured file "
           "is not the one the lab was released with); the grader checks it")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # terminal escapes in a student's text stop here


class Row(NamedTuple):
    """One rule: what it checks, whether it held, and if not a hint naming the misconception."""
    rule: str
    ok: bool
    hint: str = ""
    misconception: str = ""   # a key of HINTS; "" when the rule held or its hint is held back
    held: bool = False        # failed, but probably because of an earlier failure
    skipped: bool = False     # not judged here (the stored expectations do not cover this input)


class Wrong(Exception):
    """Raised by a judge when the student's code does not do what the rule says."""

    def __init__(self, misconception, detail=""):
        self.misconception, self.detail = misconception, detail
        super().__init__(hint(misconception, detail))


def unanswered(rule, error):
    """The row of a rule the stored expectations cannot judge: skipped for a measured file, else failed."""
    if error.question == "summary":
        return Row(rule, True, SKIPPED, skipped=True)
    return Row(rule, False, HINTS["stale-expectations"], "stale-expectations")


def hint(misconception, detail=""):
    """The hint for a misconception, with what was seen; a stub's own message says it all."""
    if misconception == "not-written" and detail:
        return detail
    return HINTS[misconception] + (f" ({detail})" if detail else "")


def printable(text, limit=300):
    """A student's text as it may be shown: no control characters, at most `limit` characters."""
    text = CONTROL.sub("?", str(text))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def mark(row):
    return "–" if row.skipped else "✓" if row.ok else "✗"


def hold_back(rows, cause=None):
    """The rows with every failure after the first held back; with a `cause` (an earlier step), all of them."""
    kept, failed = [], False
    for row in rows:
        if not row.ok and (failed or cause is not None):
            row = row._replace(hint=HELD if failed else cause, misconception="", held=True)
        failed = failed or not row.ok
        kept.append(row)
    return kept


class Report:
    """Rows of (rule, ok, hint): printable in a terminal, a table in a notebook, and data."""

    def __init__(self, title, rows, note=""):
        self.title, self.rows, self.note = title, list(rows), note

    @property
    def passed(self):
        return all(row.ok for row in self.rows)

    @property
    def failures(self):
        return [row for row in self.rows if not row.ok]

    @property
    def misconceptions(self):
        """The misconceptions the report names (the root cause), in order, without repeats."""
        return list(dict.fromkeys(row.misconception for row in self.failures if row.misconception))

    def held_back(self, cause):
        """The same report with every failure held back, because of `cause` (e.g. an earlier step)."""
        return Report(self.title, hold_back(self.rows, cause), self.note)

    def count(self):
        judged = [row for row in self.rows if not row.skipped]
        return f"{sum(row.ok for row in judged)} of {len(judged)} rules pass"

    def as_dict(self):
        return {"title": self.title, "passed": self.passed, "note": self.note,
                "rules": [row._asdict() for row in self.rows]}

    @classmethod
    def from_dict(cls, data):
        return cls(data["title"], [Row(**row) for row in data["rules"]], data.get("note", ""))

    def __str__(self):
        lines = [f"{self.title}: {self.count()}"]
        for row in self.rows:
            lines.append(f"  {mark(row)} {printable(row.rule)}")
            if not row.ok or row.skipped:
                lines.append(f"      {printable(row.hint, 1000)}")
        if self.note:
            lines.append(f"  {printable(self.note, 1000)}")
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))

    def _repr_html_(self):
        cells = []
        for row in self.rows:
            color = "#8c959f" if row.skipped else "#1a7f37" if row.ok else "#cf222e"
            sign = f'<span style="color:{color}">{mark(row)}</span>'
            shade = "#8c959f" if row.held else "#57606a"
            text = f'<br><span style="color:{shade}">{html.escape(printable(row.hint, 1000))}</span>' if row.hint else ""
            cells.append(f'<tr><td style="vertical-align:top">{sign}</td>'
                         f'<td style="text-align:left">{html.escape(printable(row.rule))}{text}</td></tr>')
        note = f'<p>{html.escape(printable(self.note, 1000))}</p>' if self.note else ""
        return (f'<div><b>{html.escape(self.title)}</b>: {self.count()}'  # the same headline as in a terminal
                f'<table>{"".join(cells)}</table>{note}</div>')
