"""A check's report: one row per rule, ✓ or ✗, and for the root cause a hint naming the misconception.

Rules run simplest first. The first rule that fails names the misconception; a later rule that fails
stays ✗ but holds its hint back, because one mistake usually breaks several rules and a student should
get one hint, the one about the cause. `Report.misconceptions` is therefore the root cause alone.
Every text is a catalog message (kvlab.i18n.Msg): rows are data, rendered when shown.
"""
import html
import re
from typing import NamedTuple

from ..i18n import Msg

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # terminal escapes in a student's text stop here


class Row(NamedTuple):
    """One rule: what it checks, whether it held, and if not the hint naming the misconception."""
    rule: Msg
    ok: bool
    misconception: str = ""   # the hint's id, "hint.<misconception>"; "" when the rule held or is held back
    seen: object = None       # a Msg: what the rule saw (the student's own values), or None
    held: object = None       # a Msg saying why the hint is held back (an earlier failure), or None
    skipped: bool = False     # not judged here: another step pays for it, or it waits for another step
    rule_id: str = ""

    @property
    def hint(self):
        """The hint as a Msg: the misconception with what was seen, why it is held back, or None."""
        if self.ok and not self.skipped:
            return None
        if self.skipped:
            return self.held or Msg("check.skipped")
        if self.held is not None:
            return self.held
        if not self.misconception:
            return None
        if self.misconception == "not-written" and self.seen is not None:
            return self.seen  # the stub's own line says it all: which step, which function
        if self.seen is None:
            return Msg(f"hint.{self.misconception}")
        return Msg("check.hint-seen", hint=Msg(f"hint.{self.misconception}"), seen=self.seen)

    def as_dict(self):
        hint = self.hint
        return {"text": str(self.rule), "hint_text": str(hint) if hint is not None else None,
                "rule": self.rule.as_dict(), "rule_id": self.rule_id, "ok": self.ok,
                "misconception": self.misconception, "seen": self.seen.as_dict() if self.seen else None,
                "held": self.held.as_dict() if self.held else None, "skipped": self.skipped}

    @classmethod
    def from_dict(cls, data):
        return cls(Msg.from_dict(data["rule"]), data["ok"], data["misconception"],
                   Msg.from_dict(data["seen"]) if data["seen"] else None,
                   Msg.from_dict(data["held"]) if data["held"] else None, data["skipped"], data.get("rule_id", ""))


class Wrong(Exception):
    """Raised by a judge when the student's code does not do what the rule says: a hint id, what was seen."""

    def __init__(self, misconception, seen=None):
        if not isinstance(seen, (Msg, type(None))):
            raise TypeError("seen must be a catalog message (kvlab.i18n.Msg)")
        self.misconception, self.seen = misconception, seen
        super().__init__(misconception)


def printable(text, limit=300):
    """A student's text as it may be shown: no control characters, at most `limit` characters."""
    text = CONTROL.sub("?", str(text))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def shown(value, limit=120):
    """A student's value, as a short printable repr, for a message parameter."""
    return printable(repr(value), limit)


def mark(row):
    return "–" if row.skipped else "✓" if row.ok else "✗"


def hold_back(rows, cause=None):
    """The rows with every failure after the first held back; with a `cause` (a Msg), all of them."""
    kept, failed = [], False
    for row in rows:
        if not row.ok and not row.skipped and (failed or cause is not None):
            row = row._replace(held=Msg("check.held") if failed else cause, misconception="")
        failed = failed or (not row.ok and not row.skipped)
        kept.append(row)
    return kept


class Report:
    """Rows of rules: printable in a terminal, a table in a notebook, and data."""

    def __init__(self, title, rows, note=None):
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
        """The same report with every failure held back, because of `cause` (a Msg: an earlier step)."""
        return Report(self.title, hold_back(self.rows, cause), self.note)

    def count(self):
        judged = [row for row in self.rows if not row.skipped]
        return Msg("check.rules-ok", ok=sum(row.ok for row in judged), total=len(judged))

    def as_dict(self):
        return {"title_text": str(self.title), "title": self.title.as_dict(), "passed": self.passed, "note": self.note.as_dict() if self.note else None,
                "rules": [row.as_dict() for row in self.rows]}

    @classmethod
    def from_dict(cls, data):
        return cls(Msg.from_dict(data["title"]), [Row.from_dict(row) for row in data["rules"]],
                   Msg.from_dict(data["note"]) if data.get("note") else None)

    def __str__(self):
        lines = [str(Msg("check.report-heading", title=self.title, count=self.count()))]
        for row in self.rows:
            lines.append(f"  {mark(row)} {printable(row.rule)}")
            if row.hint is not None:
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
            hint = row.hint
            text = f'<br><span style="color:{shade}">{html.escape(printable(hint, 1000))}</span>' if hint else ""
            cells.append(f'<tr><td style="vertical-align:top">{sign}</td>'
                         f'<td style="text-align:left">{html.escape(printable(row.rule))}{text}</td></tr>')
        note = f'<p>{html.escape(printable(self.note, 1000))}</p>' if self.note else ""
        between = str(Msg("check.report-heading", title="", count=""))  # ": ", or "：" in Chinese and Japanese
        return (f'<div><b>{html.escape(str(self.title))}</b>{html.escape(between)}{html.escape(str(self.count()))}'
                f'<table>{"".join(cells)}</table>{note}</div>')
