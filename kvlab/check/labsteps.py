"""The lab's eight steps as checks: which rules, runs and artifact files make each step, in one table.

Used by `kvlab check` and the notebooks (public rules, stored expectations, a plain subprocess) and by
the instructor's grader (the same rules plus hidden random ones, the reference's answers, bubblewrap).
Student code runs in three processes: kvsim.py's classes (steps 1 and 5), every run of scenario.py
(steps 2, 3, 4, 6, 7) and every run of summarize.py (step 8). A step whose code depends on an earlier
failing step holds its hints back and names that step: one mistake, one hint.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import caches, judging, scenarios, summaries
from .probes import file_row, judge_probe, run_probes
from .report import Report, Row, hold_back

TITLES = {
    1: "LRUCache in kvsim.py",
    2: "scenario.py and cyclic.json",
    3: "baseline.json (fwd,fwd,rev)",
    4: "cliff.json (GPU capacity sweep)",
    5: "TwoTierCache in kvsim.py",
    6: "scenario.py --cpu and offload.json",
    7: "cpu_cliff.json (CPU capacity sweep)",
    8: "summarize.py and measured.json",
}
ARTIFACT_STEP = {"cyclic.json": 2, "baseline.json": 3, "cliff.json": 4, "offload.json": 6, "cpu_cliff.json": 7,
                 "measured.json": 8}
SCENARIO_STEPS = (2, 3, 4, 6, 7)
SCRIPTS = ("kvsim.py", "scenario.py", "summarize.py")


@dataclass
class Plan:
    """What to check and how: the seed of the random cases and whether the hidden ones are added."""
    execute: Callable            # execute(jobs, files) -> outcomes, in the student's folder
    oracle: object
    seed: int = 0
    hidden: bool = False         # the grader's extra random cases
    functions: bool = True       # the student edition's layout: gpu_cliff/cpu_cliff are called as functions
    lab_lines: list = None       # the measured file's lines (step 8)


def class_report(title, rules, module, name, execute, oracle):
    """Run every rule's operations on the student's class (one process) and judge them."""
    outcomes = execute([{"kind": "ops", "module": module, "ops": rule.ops} for rule in rules], {})
    failure = judging.job_failure(outcomes[0], module, name) if outcomes else None
    if failure:
        return Report(title, [failure])
    return judging.report(title, rules, outcomes, oracle)


def class_steps(plan):
    """Steps 1 and 5, in one process: the student's LRUCache and TwoTierCache."""
    lru = caches.lru_rules()
    tiers = caches.tier_rules()
    if plan.hidden:
        lru.append(caches.random_run(plan.seed + 1000, caches.LRU, "lru", "lru-reference"))
        tiers = tiers + caches.tier_rules(seed=plan.seed + 2000)[-1:]
    rules = lru + tiers
    outcomes = plan.execute([{"kind": "ops", "module": "kvsim", "ops": rule.ops} for rule in rules], {})
    reports = {}
    for number, name, chosen, part in ((1, caches.LRU, lru, outcomes[:len(lru)]),
                                       (5, caches.TIERS, tiers, outcomes[len(lru):])):
        failure = judging.job_failure(part[0], "kvsim", name) if part else None
        title = f"Step {number}: {TITLES[number]}"
        reports[number] = Report(title, [failure]) if failure else judging.report(title, chosen, part, plan.oracle)
    return reports


def script_steps(plan, steps=SCENARIO_STEPS):
    """Steps 2, 3, 4, 6 and 7: scenario.py, all runs in one process."""
    by_step = scenarios.step_probes(plan.seed, functions=plan.functions)
    if plan.hidden:
        for number, probes in scenarios.step_probes(plan.seed + 1, functions=plan.functions).items():
            by_step[number] += probes[-1:]  # the random ones, drawn from the grading seed
    chosen = [(number, probe) for number in steps for probe in by_step[number]]
    jobs, files = [], {}
    for _, probe in chosen:
        jobs += probe.jobs
        files.update(probe.files)
    outcomes = plan.execute(jobs, files)
    rows, start = {number: [] for number in steps}, 0
    for number, probe in chosen:
        rows[number].append(judge_probe(probe, outcomes[start:start + len(probe.jobs)], plan.oracle))
        start += len(probe.jobs)
    return {number: Report(f"Step {number}: {TITLES[number]}", hold_back(rows[number])) for number in steps}


def summary_step(plan):
    """Step 8: summarize.py on small inputs, blank lines, the measured file and random inputs."""
    names = summaries.Names()
    probes = summaries.script_probes(plan.lab_lines or [], plan.seed, names=names)
    if plan.hidden:
        probes += summaries.script_probes(plan.lab_lines or [], plan.seed + 1, names=names)[-1:]
    return Report(f"Step 8: {TITLES[8]}", run_probes(probes, plan.execute, plan.oracle))


def artifact_rows(folder, oracle, lab_lines, required):
    """{step: [Row]} for the six JSON files in `folder`; a missing file is a row only when `required`."""
    judges = scenarios.artifact_judges(oracle)
    judges["measured.json"] = summaries.artifact_judge(lab_lines or [], oracle)
    rows = {}
    for name, judge in judges.items():
        text = read_text(Path(folder) / name) if folder else None
        if text is None and not required:
            continue
        rows.setdefault(ARTIFACT_STEP[name], []).append(file_row(f"{name} holds what the lab asks for", text, judge))
    return rows


def read_text(path, limit=1_000_000):
    """A file's text (at most `limit` bytes), or None if it is missing or unreadable."""
    try:
        with open(path, "rb") as file:
            return file.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


DEPENDS = {  # step -> (the steps whose code it runs on, why)
    5: ((1,), "TwoTierCache's tiers are your LRUCache"),
    **{number: ((1, 5), "scenario.py runs on your kvsim.py") for number in SCENARIO_STEPS},
}


def hold_after_earlier(reports):
    """Hold back the hints of a failing step whose code runs on an earlier failing step's code."""
    def failing(number):  # a stub not written yet names itself wherever it is called: nothing to hold
        report = reports.get(number)
        return report is not None and not report.passed and set(report.misconceptions) - {"not-written"}
    for number, (earlier, why) in DEPENDS.items():
        cause = next((step for step in earlier if failing(step)), None)
        if cause and number in reports and not reports[number].passed:
            reports[number] = reports[number].held_back(
                f"held back: step {cause} fails above, and {why}: fix step {cause} first")
    return reports


def check_steps(plan, artifacts=None, required=False, steps=tuple(TITLES)):
    """{step: Report} for the chosen steps, in order, artifacts (if a folder is given) included."""
    reports = {}
    if {1, 5} & set(steps):
        reports.update({number: report for number, report in class_steps(plan).items() if number in steps})
    chosen = [number for number in SCENARIO_STEPS if number in steps]
    if chosen:
        reports.update(script_steps(plan, chosen))
    if 8 in steps:
        reports[8] = summary_step(plan)
    for number, rows in artifact_rows(artifacts, plan.oracle, plan.lab_lines, required).items():
        if number in reports:
            report = reports[number]
            reports[number] = Report(report.title, hold_back(report.rows + rows), report.note)
    reports = hold_after_earlier(reports)
    return {number: reports[number] for number in TITLES if number in reports}


def table(reports, folder=None):
    """One line per step: ✓ or ✗, its title, rules passed, and the root cause of a failing step."""
    lines = [f"Checked: {folder}"] if folder else []
    for number, report in reports.items():
        good = sum(row.ok for row in report.rows)
        mark = "✓" if report.passed else "✗"
        lines.append(f"{number} {mark} {TITLES[number]:<38} {good}/{len(report.rows)}")
        failure = next((row for row in report.rows if not row.ok), None)
        if failure:
            lines += [f"    ✗ {failure.rule}", f"        {failure.hint}"]
    passed = sum(report.passed for report in reports.values())
    lines.append(f"{passed} of {len(reports)} steps pass")
    return "\n".join(lines)


__all__ = ["TITLES", "Plan", "check_steps", "table", "class_report", "Row"]
