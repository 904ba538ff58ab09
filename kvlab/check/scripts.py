"""What the script checks share: probes run in the sandbox, and reading what a script printed."""
import ast
import json
from dataclasses import dataclass, field
from typing import Callable

from .. import sandbox
from .report import Row, Wrong, one_line


@dataclass
class Probe:
    """One rule about a script: the runs it needs (sandbox jobs) and a judge of their results."""
    rule: str
    jobs: list
    judge: Callable          # judge(results): returns if the rule holds, raises Wrong if not
    files: dict = field(default_factory=dict)   # input files the runs need, {name: text}


def run_probes(folder, probes, timeout=10.0):
    """All the probes' runs in one sandboxed process; one Row per probe."""
    jobs, files = [], {}
    for probe in probes:
        jobs += probe.jobs
        files.update(probe.files)
    results = sandbox.run_jobs(folder, jobs, files=files, timeout=timeout) if jobs else []
    rows, start = [], 0
    for probe in probes:
        rows.append(judge(probe, results[start:start + len(probe.jobs)]))
        start += len(probe.jobs)
    return rows


def judge(probe, results):
    try:
        probe.judge(results)
    except Wrong as wrong:
        hint = str(wrong)
        if any(result.get("own_kvsim") for result in results):
            hint += " [run with your own kvsim.py: the script needs something the lab's kvsim.py lacks]"
        return Row(probe.rule, False, hint, wrong.misconception)
    except Exception as error:  # noqa: BLE001 (a bug in a judge must not stop the grade)
        return Row(probe.rule, False, f"the checker could not judge this: {one_line(error)}", "crash")
    return Row(probe.rule, True)


def command(job):
    return " ".join(["python3", job["script"], *job["argv"]])


def succeeded(result, job):
    """Raise Wrong naming what went wrong if the run failed."""
    error = result["error"]
    if not error:
        return result
    where = f"`{command(job)}`: {error}"
    if error.startswith("not run"):
        raise Wrong("not-run", f"`{command(job)}`")
    if "timed out" in error:
        raise Wrong("timeout", where)
    if error.endswith("is missing"):
        raise Wrong("missing-file", error)
    if "printed more than" in error:
        raise Wrong("output-flood", where)
    if "No module named 'kvsim'" in error:
        raise Wrong("kvsim-missing", where)
    if "unrecognized arguments: --cpu" in error:
        raise Wrong("cpu-option", where)
    raise Wrong("crash", where)


def parse_json_text(text, what):
    """The JSON document in `text`; Wrong naming the mistake if it is not exactly one document."""
    if text is None or not text.strip():
        raise Wrong("no-output", f"{what} is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        problem = f"{error.msg}, line {error.lineno}"
    try:
        ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    else:
        raise Wrong("python-repr", f"{what} starts {text.strip()[:40]!r}")
    decoder = json.JSONDecoder()
    starts = [at for at, char in enumerate(text) if char in "{["][:50]
    for start in starts:
        try:
            document, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if text[:start].strip() and not text[:start].endswith("\n") or text[end:].strip() and not \
                text[end:].lstrip(" \t").startswith(("\n", "\r")):
            continue  # not a document on lines of its own: a piece of a broken one
        after, before = text[end:].strip(), text[:start].strip()
        if not before and _starts_with_json(after):
            raise Wrong("several-json", f"{what} holds several JSON documents")
        extra = (before or after).splitlines()[0]
        raise Wrong("text-on-stdout", f"{what} has {extra[:60]!r} besides the JSON document")
    raise Wrong("not-json", f"{what}: {problem}")


def _starts_with_json(text):
    try:
        json.JSONDecoder().raw_decode(text)
    except json.JSONDecodeError:
        return False
    return True
