"""Rules about scripts and functions: the runs they need, and a judge of what those runs reported.

A Probe is one row of a report. Its jobs go to kvlab/check/driver.py (through kvlab.check.run, or the
instructor's bubblewrap sandbox), which reports raw outcomes; the probe's judge reads them here, in the
trusted process, with answers from an oracle. What stopped a run is its outcome's kind.
"""
import ast
import json
from dataclasses import dataclass, field
from typing import Callable

from ..i18n import Msg
from .judging import STOPPED, Raised, not_written, stub_seen, unanswered
from .oracle import NoAnswer
from .report import Row, Wrong, hold_back, printable


@dataclass
class Probe:
    """One rule: the jobs it runs and judge(outcomes, oracle), which raises Wrong if the rule does not hold."""
    id: str
    text: Msg
    jobs: list
    judge: Callable
    files: dict = field(default_factory=dict)   # input files the jobs need, {name: text}


def script_job(script, argv=(), read=()):
    """A run of `python script argv...` in the student's folder; `read` names files to bring back."""
    return {"kind": "script", "script": script, "argv": [str(arg) for arg in argv], "read": list(read)}


def function_job(module, function, *args, **kwargs):
    """A call of module.function(*args, **kwargs); the outcome's one result is what it returned."""
    return {"kind": "ops", "module": module, "ops": [["fn", function, *args, *([{"$kwargs": kwargs}] if kwargs else [])]]}


def command(job):
    """The job as the command or call that does it (code, never translated)."""
    if job["kind"] == "script":
        return " ".join(["python3", job["script"], *job["argv"]])
    op = job["ops"][0]
    args = list(op[2:])
    kwargs = args.pop()["$kwargs"] if args and isinstance(args[-1], dict) and "$kwargs" in args[-1] else {}
    shown = [repr(arg) for arg in args] + [f"{name}={value!r}" for name, value in kwargs.items()]
    return f"{job['module']}.{op[1]}({', '.join(shown)})"


def succeeded(outcome, job):
    """Return the outcome if the run did what a correct run does; else raise Wrong naming why, by its kind."""
    kind, where = outcome.get("kind"), command(job)
    if kind == "ok":
        return outcome
    if kind in ("crash", "import"):
        raised = outcome.get("raised") or {}
        if not_written(raised) is not None:
            raise Wrong("not-written", stub_seen(raised))
        if raised.get("type") == "ModuleNotFoundError" and raised.get("name") == "kvsim":
            raise Wrong("kvsim-missing", Msg("seen.run", command=where))
        raise Wrong("crash", Raised(raised, ["script"]).seen(op=where))
    if kind == "exit":
        code = outcome.get("code")
        if code == 2 and any(arg.startswith("--") for arg in job.get("argv", ())):
            raise Wrong("option-refused", Msg("seen.exit", command=where, code=code))
        raise Wrong("crash", Msg("seen.exit", command=where, code=code))
    raise Wrong(STOPPED.get(kind, "protocol"), Msg("seen.run", command=where))


def returned(outcome, job):
    """The value a function job returned (or Wrong naming why there is none)."""
    if outcome.get("kind") == "missing-attr":
        raise Wrong("missing-method", Msg("seen.no-name", name=printable(outcome.get("name"), 80)))
    results = outcome.get("results") or []
    if outcome.get("kind") == "ok" and results and "raised" in results[0]:
        succeeded({"kind": "crash", "raised": results[0]["raised"]}, job)
    if outcome.get("kind") == "ok" and results:
        return results[0].get("v")
    succeeded(outcome, job)
    raise Wrong("protocol", Msg("seen.run", command=command(job)))


def judge_probe(probe, outcomes, oracle):
    try:
        probe.judge(outcomes, oracle)
    except Wrong as wrong:
        return Row(probe.text, False, wrong.misconception, wrong.seen, rule_id=probe.id)
    except NoAnswer as error:
        return unanswered(probe.id, probe.text, error)
    return Row(probe.text, True, rule_id=probe.id)


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
        raise Wrong("no-output", Msg("seen.empty", what=what))
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problem = printable(f"{error.msg}, line {error.lineno}", 120)
    except (ValueError, RecursionError) as error:  # a 5,000-digit integer; nesting too deep
        raise Wrong("not-json", Msg("seen.not-json", what=what, problem=printable(type(error).__name__, 60))) from None
    if _python_literal(text):
        raise Wrong("python-repr", Msg("seen.starts", what=what, start=printable(text.strip()[:40])))
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
            raise Wrong("several-json", Msg("seen.several-json", what=what))
        extra = (before.strip() or after.strip()).splitlines()[0]
        raise Wrong("text-on-stdout", Msg("seen.extra-text", what=what, text=printable(extra[:60])))
    raise Wrong("not-json", Msg("seen.not-json", what=what, problem=problem))


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


def file_row(rule_id, text_msg, text, judge, where=""):
    """A row for a file the student wrote (an artifact): `text` is its content or None if missing."""
    try:
        if text is None:
            raise Wrong("missing-artifact", Msg("seen.artifact-missing", folder=printable(where, 200)))
        judge(text)
    except Wrong as wrong:
        return Row(text_msg, False, wrong.misconception, wrong.seen, rule_id=rule_id)
    except NoAnswer as error:
        return unanswered(rule_id, text_msg, error)
    return Row(text_msg, True, rule_id=rule_id)
