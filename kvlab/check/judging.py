"""Judging raw outcomes: a rule's operations, what the student's code answered, and the verdict.

Student code only runs operations (kvlab/check/driver.py) and reports what came back; everything here
runs in the trusted process. A rule is a Script of operations on one new object plus a judge that reads
the Trace of results and raises Wrong when a result shows a misconception. What stopped the student's
code (an exception, a stub, a timeout) is a kind decided where it happened, never read from a message.
"""
from typing import Callable, NamedTuple

from .hints import HINTS
from .oracle import NoAnswer
from .report import Report, Row, Wrong, hint, hold_back, printable, unanswered

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
    text: str              # what the rule checks, as the student reads it
    ops: list              # the operations, starting with ["new", class, *args]
    judge: Callable        # judge(trace, oracle): returns if the rule holds, raises Wrong if not
    crash: object = "crash"  # the misconception if the code raises: a HINTS key, or fn(raised) -> key


class Raised(Exception):
    """The student's code raised during an operation (the driver's report of it)."""

    def __init__(self, raised, op):
        self.raised, self.op = raised, op
        super().__init__(raised.get("type"))

    @property
    def type(self):
        return self.raised.get("type") or "Exception"

    def describe(self):
        where = f" at {self.raised['where']}" if self.raised.get("where") else ""
        message = f": {self.raised['message']}" if self.raised.get("message") else ""
        return printable(f"{describe_op(self.op)} raised {self.type}{message}{where}", 400)


class Stopped(Exception):
    """The run stopped before an operation: timeout, not-run, killed, flood or protocol."""

    def __init__(self, outcome):
        self.outcome = outcome
        super().__init__(outcome.get("kind"))


def describe_op(op):
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


def stopped_row(text, outcome):
    """A row for a run that stopped: the kind says why."""
    kind = outcome.get("kind")
    if kind == "timeout":
        return Row(text, False, hint("timeout", "stopped after the time limit"), "timeout")
    if kind == "not-run":
        return Row(text, False, HINTS["not-run"], "not-run")
    if kind == "flood":
        return Row(text, False, HINTS["output-flood"], "output-flood")
    if kind == "killed":
        return Row(text, False, hint("killed", f"signal {outcome.get('signal')}"), "killed")
    if kind == "missing-attr":  # the object lacks a method or attribute the rule uses
        return Row(text, False, hint("missing-method", f"no {outcome.get('name')}"), "missing-method")
    return Row(text, False, f"the run ended without reporting its results ({kind})", "crash")


def raised_row(text, raised, crash):
    """A row for code that raised: a stub's own message, or the rule's misconception with what it saw."""
    if raised.type == NOT_WRITTEN:
        return Row(text, False, printable(raised.raised.get("message") or HINTS["not-written"]), "not-written")
    misconception = crash(raised) if callable(crash) else crash
    return Row(text, False, hint(misconception, raised.describe()), misconception)


def judge(rule, outcome, oracle):
    """One rule's row, from the outcome of its operations."""
    trace = Trace(rule.ops, outcome)
    try:
        rule.judge(trace, oracle)
        trace.complete()
    except Wrong as wrong:
        return Row(rule.text, False, printable(str(wrong), 1000), wrong.misconception)
    except Raised as raised:
        return raised_row(rule.text, raised, rule.crash)
    except Stopped as stopped:
        return stopped_row(rule.text, stopped.outcome)
    except NoAnswer as error:
        return unanswered(rule.text, error)
    return Row(rule.text, True)


def report(title, rules, outcomes, oracle, note=""):
    """The Report of `rules` judged on their outcomes (one per rule), root cause first."""
    return Report(title, hold_back([judge(rule, outcome, oracle) for rule, outcome in zip(rules, outcomes)]), note)


def job_failure(outcome, module, name):
    """A Row for a job that never reached the rules (no file, import failed, no such class), else None."""
    kind = outcome.get("kind")
    text = f"{module}.py imports and defines {name}"
    if kind == "missing":
        return Row(text, False, hint("missing-file", f"{module}.py not found"), "missing-file")
    if kind == "missing-attr" and outcome.get("name") in (None, name):  # the class itself (a missing method is a rule's)
        return Row(text, False, hint("missing-class", f"{module}.py has no {name}"), "missing-class")
    if kind == "import":
        raised = Raised(outcome.get("raised") or {}, ["import", module])
        if raised.type == NOT_WRITTEN:
            return raised_row(text, raised, "import-failed")
        return Row(text, False, hint("import-failed", printable(
            f"importing {module}.py raised {raised.type}: {raised.raised.get('message', '')}"
            + (f" at {raised.raised['where']}" if raised.raised.get("where") else ""), 400)), "import-failed")
    if kind in ("timeout", "killed", "flood", "protocol", "not-run") and not outcome.get("results"):
        return stopped_row(text, outcome)
    return None
