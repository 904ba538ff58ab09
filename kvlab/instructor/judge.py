"""The grader's one door to the judging (kvlab.check and the step modules in kvlab/lab/).

grade_steps() judges a hand-in snapshot step by step, each step on its own code with the reference
standing in for the rest, so that one mistake costs its own step once:
- one sandboxed process runs the student's own files: the public cases of every step (summarize.py's
  first, so that a kvsim.py that forges results cannot reach them; then kvsim.py's, then scenario.py's and
  the saved files), the runs that make a failing case smaller, then the hidden cases (the course secret);
- if step 1 fails, TwoTierCache (step 5) is judged again in a process of its own where its tiers are the
  reference's LRUCache (a module with the reference LRUCache only: no reference TwoTierCache to copy);
- if step 1 or 5 fails, scenario.py's code rules (steps 2, 4, 6, 7) are judged again in a process where
  kvsim.py is the reference's. What such a run printed never reaches a report (it ran beside the reference,
  which it could read and print): only its verdicts and the lab's side of each case do.
Saved files are always judged against the student's own code (their kvsim.py too): a file that is what
their code makes passes, whoever pays for a mistake in that code.
"""
import ast
from pathlib import Path

from .. import lab
from ..check import conversation, engine, labsteps
from ..check import number_of as stub_step
from ..check.labsteps import TITLES, read_text
from ..check.report import Report, Row, Wrong, hold_back, printable
from ..check import run as _run
from ..check.run import failed, run_jobs

__all__ = ["TITLES", "read_text", "Report", "Row", "Wrong", "hold_back", "printable", "failed", "run_jobs",
           "ARTIFACT_STEP", "SCRIPTS", "PROCESSES", "STEP_SCRIPT", "grade_steps", "default_points", "step_points",
           "OTHER_ROW", "run_deadline"]

ARTIFACT_STEP, SCRIPTS = lab.ARTIFACTS, lab.SCRIPTS
PROCESSES = lab.PROCESSES   # {student module: its steps}: {"kvsim": (1, 5), "scenario": (2, 3, 4, 6, 7), ...}
CLASSES = lab.STEPS[lab.NUMBERS[0]].process       # the module of the classes (kvsim): the others run on it
COMMANDS = tuple(name for name in PROCESSES if name != CLASSES and any(  # the modules that run on the classes
    number in lab.STEPS[later].runs_on for later in PROCESSES[name] for number in PROCESSES[CLASSES]))
STEP_SCRIPT = {number: step.file[:-3] for number, step in lab.STEPS.items()}
OTHER_ROW = 1          # the weight of a row that is none of the step's rules ("the code is there")
PACKAGE = Path(__file__).resolve().parent.parent
STAND_IN_LRU = "_kvlab_reference_lru"   # the module of the reference LRUCache, beside a student's TwoTierCache
ORDER = tuple(number for name in sorted(PROCESSES, key=lambda name: (name in COMMANDS, name == CLASSES))
              for number in PROCESSES[name])  # the steps on no class first, then the classes, then what runs on them


def run_deadline(timeout):
    """Seconds a process of one job may take before it is stopped: its time and the start-up allowance."""
    return timeout + _run.STARTUP_ALLOWANCE


def _class_of(number):
    """The class a step writes (LRUCache for step 1): its functions are that class's methods."""
    return lab.STEPS[number].functions[0].partition(".")[0]


def stand_in_module(names):
    """The reference kvsim.py with only the classes `names` (and what it imports): no other reference code."""
    source = (PACKAGE / "kvsim.py").read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    kept = [node for node in ast.parse(source).body if not (isinstance(node, ast.ClassDef) and node.name not in names)]
    return "".join("".join(lines[node.lineno - 1:node.end_lineno]) + "\n" for node in kept)


def _talk(steps, copy, backend, expect, seed, timeout, kinds, texts=None, files=None, transform=None, here=None,
          late=None):
    generator = engine.judge(steps, expect, seed=seed, number_of=stub_step, artifacts=texts, owner=lab.owner,
                             stood_in=PROCESSES[CLASSES] if texts is not None else ())
    if here is not None:  # trusted code in this process ({module name: module}): the tests, the costs table
        from .reference import on_kvsim, reference_modules, run_here
        modules = dict(here)
        for name in files or {}:  # a staged file: the reference's module stands in
            if name == f"{STAND_IN_LRU}.py":
                modules[STAND_IN_LRU] = reference_modules()[CLASSES]
            else:
                modules = on_kvsim(modules, reference_modules()[CLASSES])
        return conversation.here(generator, lambda jobs: run_here(transform(jobs) if transform else jobs, modules))
    return conversation.talk(generator, copy, timeout=timeout, backend=backend, files=files,
                             transform=(lambda jobs, request: transform(jobs)) if transform else None, kinds=kinds,
                             late=late)


def grade_steps(copy, backend, expect, *, seed, texts, timeout, kinds, here=None, late=None):
    """({step: engine Result} of a hand-in snapshot `copy`, the steps whose code the later steps were judged
    without: the reference's stood in for it). `here`: {module name: module} to run in this process instead
    (trusted code only: the reference with a planted mistake)."""
    results = _talk([lab.STEPS[number] for number in ORDER], copy, backend, expect, seed, timeout, kinds, texts,
                    here=here, late=late)
    replaced = set()
    classes = PROCESSES[CLASSES]
    for number in classes:  # a class judged on the reference's class of an earlier failing step (TwoTierCache)
        failing = [earlier for earlier in lab.STEPS[number].runs_on if earlier in classes and not results[earlier].passed]
        if failing and results[number].absent is None:
            names = [_class_of(earlier) for earlier in failing]
            patch = {name: [STAND_IN_LRU, name] for name in names}
            again = _talk([lab.STEPS[number]], copy, backend, expect, seed, timeout, kinds,
                          files={f"{STAND_IN_LRU}.py": stand_in_module(names)}, here=here, late=late,
                          transform=lambda jobs: [{**job, "patch": patch} if job["kind"] == "ops" else job for job in jobs])
            results[number] = _quiet(again[number])
            replaced.update(failing)
    if any(not results[number].passed for number in classes):  # scenario.py's code on the reference kvsim.py
        scenario = [lab.STEPS[number] for name in COMMANDS for number in PROCESSES[name]]
        again = _talk(scenario, copy, backend, expect, seed, timeout, kinds, here=here, late=late,
                      files={lab.STEPS[classes[0]].file: (PACKAGE / lab.STEPS[classes[0]].file).read_text(encoding="utf-8")})
        for step in scenario:
            results[step.number] = _merged(results[step.number], _quiet(again[step.number]))
        replaced.update(classes)
    return results, tuple(sorted(replaced))


def _quiet(result):
    """A Result from a process that ran beside the reference: nothing the student's code gave is shown."""
    for verdict in result.verdicts:
        verdict.got = None
        if verdict.stop is not None:
            verdict.stop = {key: value for key, value in verdict.stop.items() if key in ("stop", "type", "at")}
    result.quiet = True
    return result


def _merged(own, stood_in):
    """Step results of the same step: its code's verdicts from the run on the reference kvsim.py, its saved
    files' from the student's own code."""
    files = {rule.id for rule in lab.STEPS[own.number].rules if set(rule.kinds) & {"artifact", "ttft"}}
    verdicts = [mine if mine.rule in files else theirs for mine, theirs in zip(own.verdicts, stood_in.verdicts)]
    stood_in.verdicts = verdicts
    return stood_in


def reports(results, replaced=()):
    """{step: Report} of a hand-in's Results, hints held back after an earlier failing step (unless replaced)."""
    found = {number: labsteps.report_of(lab.STEPS[number], results[number]) for number in lab.NUMBERS}
    return labsteps.hold_after_earlier(found, replaced)


def default_points():
    """({step: its rules' points summed}, {rule id: its points}), from the step modules."""
    rules = {rule.id: rule.points for step in lab.STEPS.values() for rule in step.rules}
    return {number: step.points for number, step in lab.STEPS.items()}, rules


def step_points(course, number, report):
    """The points a step earns: all of them if it passed; else, with partial credit, its points times the
    weights of its rows that held over the weights of its rows that were judged (a rule's weight from the
    course; the row that says the step's code is not there weighs 1 and fails: 0; a skipped row counts for
    neither). Rounded to 2 decimals."""
    worth = course.step_points[number]
    if report.passed:
        return round(float(worth), 2)
    if not course.partial:
        return 0.0
    step_rules = {rule.id for rule in lab.STEPS[number].rules}
    held = judged = 0.0
    for row in report.rows:
        if row.skipped:
            continue
        weight = course.rule_points[row.rule_id] if row.rule_id in step_rules else OTHER_ROW
        judged += weight
        held += weight if row.ok else 0
    return round(worth * held / judged, 2) if judged else 0.0
