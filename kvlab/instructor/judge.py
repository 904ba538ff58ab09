"""The grader's one door to the judging (kvlab.check and kvlab/steps.py): what grading asks of it.

Grading (batch.py, measured.py, scripts.py, course.py, coursebook.py, autograder.py) builds a Plan,
takes the three Runs that a hand-in's process runs, turns their outcomes into {step: Report}, adds the
artifact files' rows, holds hints back after an earlier failing step, and turns a step's rows into
points. How a rule becomes a verdict, and a step's rows points, is decided behind this module: grading
imports nothing else of kvlab.check.
"""
from .. import steps as lab_table
from ..check import labsteps, summaries
from ..check.labsteps import TITLES, Plan, read_text
from ..check.probes import file_row
from ..check.report import Report, Row, Wrong, hold_back, printable
from ..check import run as _run
from ..check.run import failed, run_jobs, run_together
from ..i18n import Msg

__all__ = ["TITLES", "Plan", "read_text", "file_row", "Report", "Row", "Wrong", "hold_back", "printable", "failed",
           "run_jobs", "run_together", "run_deadline", "ARTIFACT_STEP", "SCRIPTS", "PROCESSES", "STEP_SCRIPT", "HIDDEN", "runs",
           "reports", "steps_of", "artifact_rows", "hold_after_earlier", "measured_judge", "default_points",
           "step_points", "OTHER_ROW"]

ARTIFACT_STEP, SCRIPTS = lab_table.ARTIFACTS, lab_table.SCRIPTS
PROCESSES = lab_table.PROCESSES   # {"kvsim": (1, 5), "scenario": (2, 3, 4, 6, 7), "summarize": (8,)}: one process each
STEP_SCRIPT = {number: step.file[:-3] for number, step in lab_table.STEPS.items()}
HIDDEN = {spec.id for step in lab_table.STEPS.values() for spec in step.rules if spec.hidden}  # the hidden rules
HANDIN = Msg("grade.your-hand-in")   # where a row says a file is missing: never a folder of the grader's
OTHER_ROW = 1          # the weight of a row that is none of the step's rules (imports, an artifact file, ttft.jsonl)


def run_deadline(timeout):
    """Seconds a process of one job may take before it is stopped: its time and the start-up allowance."""
    return timeout + _run.STARTUP_ALLOWANCE


def runs(plan):
    """A hand-in's three Runs in the order they share a process: summarize.py, kvsim.py's classes, then
    scenario.py. Their judges keep no state: the same Runs serve every hand-in with the same measured file."""
    return {"summarize": labsteps.summary_run(plan),
            "kvsim": labsteps.class_run(plan, PROCESSES["kvsim"]),
            "scenario": labsteps.script_run(plan, PROCESSES["scenario"])}


def reports(run, execute):
    """{step: Report} of one Run whose jobs execute(jobs, files) gives the outcomes of, in the steps' order."""
    return labsteps.settled(run.on(execute))


def steps_of(plan, numbers):
    """{step: Report} of the steps `numbers`, each Run in a process of its own (plan.execute)."""
    return labsteps.check_steps(plan, steps=numbers)


def artifact_rows(folder, oracle, lab_lines):
    """{step: [Row]} for the six JSON files in `folder`: a row says "your hand-in", never the grader's folder."""
    where, rows = str(folder), labsteps.artifact_rows(folder, oracle, lab_lines)
    return {step: [_in_handin(row, (where, printable(where, 200))) for row in found] for step, found in rows.items()}


def _in_handin(row, where):
    seen = row.seen
    if seen is None or not any(isinstance(value, str) and value in where for value in seen.params.values()):
        return row
    params = {name: HANDIN if isinstance(value, str) and value in where else value for name, value in seen.params.items()}
    return row._replace(seen=Msg(seen.id, **params))


def hold_after_earlier(reports, replaced=()):
    """The reports with a step's hints held back where an earlier failing step's code is the cause."""
    return labsteps.hold_after_earlier(reports, replaced)


def measured_judge(lines, oracle):
    """The judge of measured.json's text as the summary of the measured file's `lines` (raises Wrong)."""
    return summaries.artifact_judge(lines, oracle)


def default_points():
    """({step: its rules' points summed}, {rule id: its points}), from kvlab/steps.py."""
    rules = {spec.id: spec.points for step in lab_table.STEPS.values() for spec in step.rules}
    return {number: sum(spec.points for spec in step.rules) for number, step in lab_table.STEPS.items()}, rules


def step_points(course, number, report):
    """The points a step earns: all of them if it passed; else, with partial credit, its points times the
    weights of its rows that held over the weights of its rows that were judged (a rule's weight from the
    course, a row that is none of the step's rules (imports, an artifact file, ttft.jsonl) weighs 1; a
    skipped row counts for neither). Rounded to 2 decimals."""
    worth = course.step_points[number]
    if report.passed:
        return round(float(worth), 2)
    if not course.partial:
        return 0.0
    step_rules = {spec.id for spec in lab_table.STEPS[number].rules}
    held = judged = 0.0
    for row in report.rows:
        if row.skipped:
            continue
        weight = course.rule_points[row.rule_id] if row.rule_id in step_rules else OTHER_ROW
        judged += weight
        held += weight if row.ok else 0
    return round(worth * held / judged, 2) if judged else 0.0
