"""Judging raw outcomes: a rule's operations, what the student's code answered, and the verdict.

Student code only runs operations (kvlab/check/driver.py) and reports what came back; everything here
runs in the trusted process. A rule is a Script of operations on one new object plus a judge that reads
the Trace of results and raises Wrong when a result shows a misconception. What stopped the student's
code (an exception, a stub, a timeout) is a kind decided where it happened, never read from a message.
"""
from typing import Callable, NamedTuple

from ..i18n import Msg
from .oracle import NoAnswer
from .report import Row, Wrong, printable

NOT_WRITTEN = "NotImplementedError"


class Script:
    """The operations of one rule on one new object; each method returns the index of its result."""

    def __init__(self, cls, *args):
        self.ops = [["new", cls, *args]]

    def _add(self, *op):
        self.ops.append(list(op))
        return len(self.ops) - 1

    def access(self, key, size, target=""):
        return self._add("access", target, key, size)

    def keys(self, target=""):
        return self._add("keys", target)

    def used(self, target=""):
        return self._add("used", target)

    def has(self, key, target=""):
        return self._add("in", target, key)

    def attr(self, name, target=""):
        return self._add("attr", target, name)


class Rule(NamedTuple):
    id: str                # the rule's id in the step table (kvlab/steps.py); its text is "rule.<id>"
    text: Msg              # what the rule checks, as the student reads it
    ops: list              # the operations, starting with ["new", class, *args]
    judge: Callable        # judge(trace, oracle): returns if the rule holds, raises Wrong if not
    crash: object = "crash"  # the misconception if the code raises: a hint name, or fn(raised) -> name


class Raised(Exception):
    """The student's code raised during an operation (the driver's report of it)."""

    def __init__(self, raised, op):
        self.raised, self.op = raised, op
        super().__init__(raised.get("type"))

    @property
    def type(self):
        return self.raised.get("type") or "Exception"

    def seen(self, op=None):
        """What raised, and where in the student's file, as a Msg."""
        return Msg("seen.raised", op=op or describe_op(self.op), type=printable(self.type, 80),
                   message=printable(self.raised.get("message") or "", 400),
                   where=printable(self.raised.get("where") or "?", 80))


class Stopped(Exception):
    """The run stopped before an operation: timeout, not-run, killed, flood or protocol."""

    def __init__(self, outcome):
        self.outcome = outcome
        super().__init__(outcome.get("kind"))


def describe_op(op):
    """The operation as the code that would do it (code, not prose: it is never translated)."""
    name, args = op[0], op[1:]
    if name == "new":
        return f"{args[0]}({', '.join(map(repr, args[1:]))})"
    target = f".{args[0]}" if args and args[0] else ""
    if name == "access":
        return f"cache{target}.access({args[1]!r}, {args[2]})"
    if name == "in":
        return f"{args[1]!r} in cache{target}"
    if name in ("keys", "used"):
        return f"cache{target}.{name}{'()' if name == 'keys' else ''}"
    if name == "attr":
        return f"cache{target}.{args[1]}"
    if name == "fn":
        return f"{args[0]}(...)"
    return name


class Trace:
    """The results of a rule's operations, read one at a time by its judge."""

    def __init__(self, ops, outcome):
        self.ops, self.outcome = ops, outcome
        self.results = outcome.get("results") or []

    def result(self, index):
        if index < len(self.results):
            result = self.results[index]
            if "raised" in result:
                raise Raised(result["raised"], self.ops[index])
            return result
        if self.results and "raised" in self.results[-1]:
            raise Raised(self.results[-1]["raised"], self.ops[len(self.results) - 1])
        raise Stopped(self.outcome)

    def __getitem__(self, index):
        return self.result(index).get("v")

    def is_method(self, index):
        return bool(self.result(index).get("callable"))

    def complete(self):
        """Raise what stopped the run if any operation has no result (a judge that returned early)."""
        if self.ops:
            self.result(len(self.ops) - 1)


STOPPED = {"timeout": "timeout", "not-run": "timeout", "flood": "output-flood", "killed": "killed",
           "missing": "missing-file", "protocol": "protocol"}


def stopped_row(rule_id, text, outcome):
    """A row for a run that stopped: the kind says why."""
    kind = outcome.get("kind")
    if kind == "missing-attr":  # the object lacks a method or attribute the rule uses
        return Row(text, False, "missing-method", Msg("seen.no-name", name=printable(outcome.get("name"), 80)),
                   rule_id=rule_id)
    if kind == "killed":
        return Row(text, False, "killed", Msg("seen.signal", signal=outcome.get("signal")), rule_id=rule_id)
    return Row(text, False, STOPPED.get(kind, "protocol"), rule_id=rule_id)


def not_written(raised):
    """The step number of a stub that raised (its function is in the step table), else None."""
    from .. import steps

    if (raised or {}).get("type") != NOT_WRITTEN:
        return None
    where = (raised.get("where") or "").rpartition(":")[0]
    return steps.step_of(where, raised.get("function") or "")


def stub_seen(raised):
    """The Msg for a stub not written yet: which step, which function, which file."""
    from .. import steps

    where = (raised.get("where") or "").rpartition(":")[0]
    number = not_written(raised)
    kind = "stub.exercise-not-written" if steps.is_exercise(number) else "stub.not-written"
    return Msg(kind, step=steps.shown_number(number), function=printable(raised.get("function"), 80), file=where)


def raised_row(rule_id, text, raised, crash):
    """A row for code that raised: a stub not written yet, or the rule's misconception with what it saw."""
    if not_written(raised.raised) is not None:
        return Row(text, False, "not-written", stub_seen(raised.raised), rule_id=rule_id)
    misconception = crash(raised) if callable(crash) else crash
    return Row(text, False, misconception, raised.seen(), rule_id=rule_id)


def judge(rule, outcome, oracle):
    """One rule's row, from the outcome of its operations."""
    trace = Trace(rule.ops, outcome)
    try:
        rule.judge(trace, oracle)
        trace.complete()
    except Wrong as wrong:
        return Row(rule.text, False, wrong.misconception, wrong.seen, rule_id=rule.id)
    except Raised as raised:
        return raised_row(rule.id, rule.text, raised, rule.crash)
    except Stopped as stopped:
        return stopped_row(rule.id, rule.text, stopped.outcome)
    except NoAnswer as error:
        return unanswered(rule.id, rule.text, error)
    return Row(rule.text, True, rule_id=rule.id)


def unanswered(rule_id, text, error):
    """The row of a rule the stored digests cannot judge: skipped for a measured file, else failed."""
    if error.question == "summary":
        return Row(text, True, skipped=True, rule_id=rule_id)
    return Row(text, False, "stale-expectations", rule_id=rule_id)


def job_failure(outcome, module, name):
    """A Row for a job that never reached the rules (no file, import failed, no such class), else None."""
    kind = outcome.get("kind")
    text = Msg("rule.imports", file=f"{module}.py", name=name)
    if kind == "missing":
        return Row(text, False, "missing-file", Msg("seen.file-missing", file=f"{module}.py"), rule_id="imports")
    if kind == "missing-attr" and outcome.get("name") in (None, name):  # the class itself (a missing method is a rule's)
        return Row(text, False, "missing-class", Msg("seen.no-name", name=name), rule_id="imports")
    if kind == "import":
        raised = outcome.get("raised") or {}
        if not_written(raised) is not None:
            return Row(text, False, "not-written", stub_seen(raised), rule_id="imports")
        return Row(text, False, "import-failed", Raised(raised, ["import", module]).seen(), rule_id="imports")
    if kind in ("timeout", "killed", "flood", "protocol", "not-run") and not outcome.get("results"):
        return stopped_row("imports", text, outcome)
    return None
