"""A check's report (one row per rule), and the loop that runs rules against a student's code."""
import html
import signal
import threading
import time
from contextlib import contextmanager
from typing import NamedTuple

from .hints import HINTS


class Row(NamedTuple):
    """One rule: what it checks, whether it held, and if not a hint naming the misconception."""
    rule: str
    ok: bool
    hint: str = ""
    misconception: str = ""   # a key of HINTS, "" when the rule held


class Wrong(Exception):
    """Raised by a probe when the student's code does not do what the rule says."""

    def __init__(self, misconception, detail=""):
        self.misconception, self.detail = misconception, detail
        super().__init__(HINTS[misconception] + (f" ({detail})" if detail else ""))


class Report:
    """Rows of (rule, ok, hint): printable in a terminal, rendered as a table in a notebook, and data."""

    def __init__(self, title, rows):
        self.title, self.rows = title, list(rows)

    @property
    def passed(self):
        return all(row.ok for row in self.rows)

    @property
    def failures(self):
        return [row for row in self.rows if not row.ok]

    @property
    def misconceptions(self):
        """The misconceptions the failed rules name, in order, without repeats."""
        return list(dict.fromkeys(row.misconception for row in self.failures))

    def summary(self):
        return f"{self.title}: {self._count()}"

    def _count(self):
        return f"{sum(row.ok for row in self.rows)} of {len(self.rows)} rules pass"

    def as_dict(self):
        return {"title": self.title, "passed": self.passed, "rules": [row._asdict() for row in self.rows]}

    @classmethod
    def from_dict(cls, data):
        return cls(data["title"], [Row(**row) for row in data["rules"]])

    def __str__(self):
        lines = [self.summary()]
        for row in self.rows:
            lines.append(f"  {'✓' if row.ok else '✗'} {row.rule}")
            if not row.ok:
                lines.append(f"      {row.hint}")
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))

    def _repr_html_(self):
        cells = []
        for row in self.rows:
            mark = '<span style="color:#1a7f37">✓</span>' if row.ok else '<span style="color:#cf222e">✗</span>'
            hint = f'<br><span style="color:#57606a">{html.escape(row.hint)}</span>' if row.hint else ""
            cells.append(f'<tr><td style="vertical-align:top">{mark}</td>'
                         f'<td style="text-align:left">{html.escape(row.rule)}{hint}</td></tr>')
        return (f'<div><b>{html.escape(self.title)}</b>: {self._count()}'  # the same headline as in a terminal
                f'<table>{"".join(cells)}</table></div>')


class Rule(NamedTuple):
    text: str             # what the rule checks, as the student reads it
    crash_hint: str       # the misconception to name if the student's code raises
    probe: object         # probe(*args): returns if the rule holds, raises Wrong if not


class RuleTimeout(BaseException):
    """The rule's time is up (a BaseException, so that `except Exception` in student code lets it through)."""


@contextmanager
def time_limit(seconds):
    """Interrupt the block after `seconds` (in the main thread on Unix; elsewhere no limit).

    Best effort, as any in-process limit: the handler runs only where the interpreter checks for
    signals, and on Python 3.10 a loop with a `try` and no call in it never does. `kvlab grade` does
    not rely on this: it runs student code in processes that it kills.
    """
    usable = (seconds and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise RuleTimeout()

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # someone else's alarm was pending: give it back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 0.001))


def one_line(error):
    """`KeyError: 'dictionary is empty'`: the exception's type and the first line of its message."""
    message = str(error).strip().splitlines()
    return f"{type(error).__name__}: {message[0]}" if message else type(error).__name__


def run_rules(title, rules, args, timeout=2.0):
    """Run each rule's probe on `args`; a crash or a timeout fails that rule only."""
    rows = []
    for rule in rules:
        try:
            with time_limit(timeout):
                rule.probe(*args)
        except Wrong as wrong:
            rows.append(Row(rule.text, False, str(wrong), wrong.misconception))
        except RuleTimeout:
            rows.append(Row(rule.text, False, f"timed out after {timeout:g} s (an infinite loop?); "
                                              f"{HINTS[rule.crash_hint]}", rule.crash_hint))
        except Exception as error:  # noqa: BLE001 (student code may raise anything)
            rows.append(Row(rule.text, False, f"raised {one_line(error)}; {HINTS[rule.crash_hint]}",
                            rule.crash_hint))
        else:
            rows.append(Row(rule.text, True))
    return Report(title, rows)
