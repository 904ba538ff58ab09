"""Rules about scripts and functions: the runs they need, and a judge of what those runs reported.

A Probe is one row of a report. Its jobs go to kvlab/check/driver.py (through kvlab.check.run, or the
instructor's bubblewrap sandbox), which reports raw outcomes; the probe's judge reads them here, in the
trusted process, with expectations from an oracle. What stopped a run is its outcome's kind.
"""
import ast
import json
from dataclasses import dataclass, field
from typing import Callable

from .judging import NOT_WRITTEN, Raised, describe_op
from .oracle import NoAnswer
from .report import Row, Wrong, hold_back, printable, unanswered


@dataclass
class Probe:
    """One rule: the jobs it runs and judge(outcomes, oracle), which raises Wrong if the rule does not hold."""
    rule: str
    jobs: list
    judge: Callable
    files: dict = field(default_factory=dict)   # input files the jobs need, {name: text}


def script_job(script, argv=(), read=()):
    """A run of `python script argv...` in the student's folder; `read` names files to bring back."""
    return {"kind": "script", "script": script, "argv": [str(arg) for arg in argv], "read": list(read)}


def function_job(module, function, *args):
    """A call of module.function(*args); the outcome's one result is what it returned."""
    return {"kind": "ops", "module": module, "ops": [["fn", function, *args]]}


def command(job):
    if job["kind"] == "script":
        return " ".join(["python3", job["script"], *job["argv"]])
    return f"{job['module']}.{describe_op(job['ops'][0])}"


def succeeded(outcome, job):
    """Return the outcome if the run did what a correct run does; else raise Wrong naming why, by its kind."""
    kind, where = outcome.get("kind"), f"`{command(job)}`"
    if kind == "ok":
        return outcome
    if kind in ("crash", "import"):
        raised = outcome.get("raised") or {}
        if raised.get("type") == NOT_WRITTEN:
            raise Wrong("not-written", printable(raised.get("message") or "", 300))
        if raised.get("type") == "ModuleNotFoundError" and raised.get("name") == "kvsim":
            raise Wrong("kvsim-missing", where)
        detail = Raised(raised, ["script"]).describe().replace("script raised ", "raised ")
        raise Wrong("crash", f"{where} {detail}")
    if kind == "exit":
        code = outcome.get("code")
        if code == 2 and any(arg.startswith("--") for arg in job.get("argv", ())):
            raise Wrong("option-refused", f"{where} exited with code 2, the code of a usage error")
        raise Wrong("crash", f"{where} exited with code {code}")
    misconception = {"timeout": "timeout", "not-run": "not-run", "flood": "output-flood", "missing": "missing-file",
                     "killed": "killed"}.get(kind, "crash")
    raise Wrong(misconception, where if kind != "protocol" else f"{where}: the run reported no result")


def returned(outcome, job):
    """The value a function job returned (or Wrong naming why there is none)."""
    if outcome.get("kind") == "missing-attr":
        raise Wrong("crash", f"{job['module']}.py has no {outcome.get('name')}")
    results = outcome.get("results") or []
    if outcome.get("kind") == "ok" and results and "raised" in results[0]:
        succeeded({"kind": "crash", "raised": results[0]["raised"]}, job)
    if outcome.get("kind") == "ok" and results:
        return results[0].get("v")
    succeeded(outcome, job)
    raise Wrong("crash", f"`{command(job)}` reported no result")


def judge_probe(probe, outcomes, oracle):
    try:
        probe.judge(outcomes, oracle)
    except Wrong as wrong:
        return Row(probe.rule, False, printable(str(wrong), 1000), wrong.misconception)
    except NoAnswer as error:
        return unanswered(probe.rule, error)
    return Row(probe.rule, True)


def run_probes(probes, execute, oracle):
    """Rows for `probes`, root cause first. execute(jobs, files) runs all their jobs in one go."""
    jobs, files = [], {}
    for probe in probes:
        jobs += probe.jobs
        files.update(probe.files)
    outcomes = execute(jobs, files) if jobs else []
    rows, start = [], 0
    for probe in probes:
        rows.append(judge_probe(probe, outcomes[start:start + len(probe.jobs)], oracle))
        start += len(probe.jobs)
    return hold_back(rows)


def parse_json_text(text, what):
    """The JSON document in `text`; Wrong naming the mistake if it is not exactly one document."""
    if text is None or not text.strip():
        raise Wrong("no-output", f"{what} is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"{error.msg}, line {error.lineno}"
    except (ValueError, RecursionError) as error:  # a 5,000-digit integer; nesting too deep
        raise Wrong("not-json", f"{what}: {printable(error, 120)}") from None
    if _python_literal(text):
        raise Wrong("python-repr", f"{what} starts {printable(text.strip()[:40])!r}")
    decoder = json.JSONDecoder()
    first = len(text) - len(text.lstrip())  # only a document on lines of its own counts (below): try those
    starts = [at for at, char in enumerate(text) if char in "{[" and (at <= first or text[at - 1] == "\n")][:50]
    for start in starts:
        try:
            document, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, ValueError, RecursionError):
            continue
        before, after = text[:start], text[end:]
        if before.strip() and not before.endswith("\n") or after.strip() and not \
                after.lstrip(" \t").startswith(("\n", "\r")):
            continue  # not a document on lines of its own: a piece of a broken one
        if not before.strip() and _starts_with_json(after.strip()):
            raise Wrong("several-json", f"{what} holds several JSON documents")
        extra = (before.strip() or after.strip()).splitlines()[0]
        raise Wrong("text-on-stdout", f"{what} has {printable(extra[:60])!r} besides the JSON document")
    raise Wrong("not-json", f"{what}: {problem}")


def _python_literal(text):
    try:
        ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return False
    return True


def _starts_with_json(text):
    try:
        json.JSONDecoder().raw_decode(text)
    except (json.JSONDecodeError, ValueError, RecursionError):
        return False
    return True


def file_row(rule, text, judge):
    """A row for a file the student wrote (an artifact): `text` is its content or None if missing."""
    try:
        if text is None:
            raise Wrong("missing-file", "not in the folder")
        judge(text)
    except Wrong as wrong:
        return Row(rule, False, printable(str(wrong), 1000), wrong.misconception)
    except NoAnswer as error:
        return unanswered(rule, error)
    return Row(rule, True)


__all__ = ["Probe", "script_job", "function_job", "command", "succeeded", "returned", "run_probes",
           "parse_json_text", "file_row"]
