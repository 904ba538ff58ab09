"""The lab's steps as checks, built from the one table (kvlab/steps.py): rules, runs and artifact files.

Used by `kvlab check` and the notebooks (public rules, stored digests, a plain subprocess) and by the
instructor's grader (the same rules plus the hidden ones, the reference's answers, bubblewrap). Each Run
is what one process of student code runs: kvsim.py's classes (steps 1 and 5), every run of scenario.py
(steps 2, 3, 4, 6, 7) and every run of summarize.py (step 8). `kvlab check` gives each Run a process;
the grader sends the three, public rules first and hidden ones last, to one process in turn
(kvlab.check.run.run_together). A step whose code runs on an earlier failing step's code holds its hints
back and names that step: one mistake, one hint.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import steps as lab_table
from ..i18n import Msg, t
from . import caches, judging, scenarios, summaries
from .probes import file_row, judge_probe
from .report import Report, hold_back, mark, printable

TITLES = {number: step.title for number, step in lab_table.STEPS.items()}


@dataclass
class Plan:
    """What to check and how: where the code runs, the oracle, the seed of the hidden cases if any."""
    execute: Callable            # execute(jobs, files) -> outcomes, in the student's folder
    oracle: object
    seed: object = None          # the hidden cases' seed (the grader's); None: public rules only
    lab_lines: list = None       # the measured file's lines (step 8)

    @property
    def hidden(self):
        return self.seed is not None


def specs(number, plan):
    """The rule specs of a step that this plan runs, with each one's random generator."""
    step = lab_table.STEPS.get(number) or lab_table.EXERCISES[number]
    for spec in step.rules:
        if spec.hidden and not plan.hidden:
            continue
        yield spec, lab_table.rng_for(plan.seed if spec.hidden else lab_table.PUBLIC_SEED, number, spec.id)


def title(number):
    kind = "check.exercise-title" if lab_table.is_exercise(number) else "check.step-title"
    return Msg(kind, number=lab_table.shown_number(number), title=Msg(f"step.{number}.title"))


def redact(rows, chosen):
    """A hidden rule's row never says what it saw: its cases must not reach a report."""
    hidden = {spec.id for spec, _ in chosen if spec.hidden}
    return [row._replace(seen=None) if row.rule_id in hidden else row for row in rows]


@dataclass
class Run:
    """One process's worth of a check: its jobs and input files, and how its outcomes become reports."""
    jobs: list
    files: dict
    finish: Callable             # finish(outcomes) -> {step: Report}
    hidden: list                 # for each job: is it a hidden rule's?
    part_files: dict             # {False: the public rules' input files, True: the hidden rules'}

    def on(self, execute):
        """{step: Report}: the jobs run by execute(jobs, files), then judged."""
        return self.finish(execute(self.jobs, self.files))

    def places(self, hidden):
        """Where the hidden rules' jobs (or the others') are among the Run's jobs."""
        return [place for place, flag in enumerate(self.hidden) if flag == hidden]

    def part(self, hidden):
        """(jobs, files) of the hidden rules, or of the others: the grader runs the hidden ones last, so
        that no code that runs on the public cases has seen them."""
        return [self.jobs[place] for place in self.places(hidden)], self.part_files[hidden]

    def joined(self, public, hidden):
        """The outcomes of every job, in order, from those of part(False) and of part(True)."""
        parts = (iter(public), iter(hidden))
        return [next(parts[flag]) for flag in self.hidden]


def class_run(plan, numbers, cls_names=None):
    """The Run of class steps (1, 5, or "07"): ops on objects of the student's kvsim.py (or policies.py)."""
    chosen = {number: list(specs(number, plan)) for number in numbers}
    rules = {number: [caches.BUILDERS[spec.id]((cls_names or caches.CLASS_OF)[number], rng) for spec, rng in specs_]
             for number, specs_ in chosen.items()}
    module = "policies" if numbers == ("07",) else "kvsim"
    jobs = [{"kind": "ops", "module": module, "ops": rule.ops} for number in numbers for rule in rules[number]]
    hidden = [spec.hidden for number in numbers for spec, _ in chosen[number]]

    def finish(outcomes):
        reports, start = {}, 0
        for number in numbers:
            part = outcomes[start:start + len(rules[number])]
            start += len(rules[number])
            name = (cls_names or caches.CLASS_OF)[number]
            failure = judging.job_failure(part[0], module, name) if part else None
            if failure:
                reports[number] = Report(title(number), [failure])
                continue
            rows = [judging.judge(rule, outcome, plan.oracle) for rule, outcome in zip(rules[number], part)]
            reports[number] = Report(title(number), hold_back(redact(rows, chosen[number])))
        return reports
    return Run(jobs, {}, finish, hidden, {False: {}, True: {}})


def class_reports(plan, numbers, cls_names=None):
    """{step: Report} for class steps (1, 5, or "07") in one process of the student's kvsim.py (or policies.py)."""
    return class_run(plan, numbers, cls_names).on(plan.execute)


def probe_run(plan, numbers, build):
    """The Run of script steps: all their jobs in one process."""
    chosen = [(number, spec, build(spec.id, rng)) for number in numbers for spec, rng in specs(number, plan)]
    jobs, files, hidden, part_files = [], {}, [], {False: {}, True: {}}
    for _, spec, probe in chosen:
        jobs += probe.jobs
        files.update(probe.files)
        hidden += [spec.hidden] * len(probe.jobs)
        part_files[spec.hidden].update(probe.files)

    def finish(outcomes):
        rows, start = {number: [] for number in numbers}, 0
        for number, spec, probe in chosen:
            rows[number] += redact([judge_probe(probe, outcomes[start:start + len(probe.jobs)], plan.oracle)],
                                   [(spec, None)])
            start += len(probe.jobs)
        return {number: Report(title(number), hold_back(rows[number])) for number in numbers}
    return Run(jobs, files, finish, hidden, part_files)


def probe_reports(plan, numbers, build):
    """{step: Report} for script steps, all their jobs in one process."""
    return probe_run(plan, numbers, build).on(plan.execute)


def script_run(plan, numbers=lab_table.PROCESSES["scenario"]):
    return probe_run(plan, numbers, scenarios.build)


def script_reports(plan, numbers=lab_table.PROCESSES["scenario"]):
    return script_run(plan, numbers).on(plan.execute)


def summary_run(plan):
    """The Run of step 8 (every run of summarize.py): its finish gives {8: Report}."""
    names = summaries.Names()
    return probe_run(plan, (8,), lambda rule_id, rng: summaries.build(rule_id, rng, plan.lab_lines or [], names))


def summary_report(plan):
    return summary_run(plan).on(plan.execute)[8]


def artifact_rows(folder, oracle, lab_lines):
    """{step: [Row]} for the six JSON files in `folder`; a missing file is a failed row saying where it looked."""
    judges = scenarios.artifact_judges(oracle)
    judges["measured.json"] = summaries.artifact_judge(lab_lines or [], oracle)
    rows = {}
    for name, judge in judges.items():
        text = read_text(Path(folder) / name)
        rows.setdefault(lab_table.ARTIFACTS[name], []).append(
            file_row(f"artifact.{name}", Msg("rule.artifact", file=name), text, judge, where=str(folder)))
    return rows


def read_text(path, limit=1_000_000):
    """A file's text (at most `limit` bytes), or None if it is missing or unreadable."""
    try:
        with open(path, "rb") as file:
            return file.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def hold_after_earlier(reports, replaced=()):
    """Hold back the hints of a failing step whose code runs on an earlier failing step's code.

    `replaced`: steps whose code the later steps did not run on (the grader put the reference's there).
    """
    def failing(number):  # its code fails (not only its file); a stub names itself wherever it is called
        report = reports.get(number)
        code = [row for row in report.rows if not row.rule_id.startswith("artifact.")] if report else []
        return any(not row.ok for row in code) and set(report.misconceptions) - {"not-written"}
    for number, step in lab_table.STEPS.items():
        cause = next((earlier for earlier in step.runs_on if earlier not in replaced and failing(earlier)), None)
        if cause and number in reports and not reports[number].passed:
            reports[number] = reports[number].held_back(
                Msg("check.held-by-step", step=cause, file=lab_table.STEPS[cause].file))
    return reports


def check_steps(plan, artifacts=None, steps=lab_table.NUMBERS):
    """{step: Report} for the chosen steps, in order, artifacts (if a folder is given) included."""
    reports = {}
    kvsim_steps = tuple(number for number in lab_table.PROCESSES["kvsim"] if number in steps)
    if kvsim_steps:
        reports.update(class_reports(plan, kvsim_steps))
    chosen = tuple(number for number in lab_table.PROCESSES["scenario"] if number in steps)
    if chosen:
        reports.update(script_reports(plan, chosen))
    if 8 in steps:
        reports[8] = summary_report(plan)
    if artifacts:
        for number, rows in artifact_rows(artifacts, plan.oracle, plan.lab_lines).items():
            if number in reports:
                report = reports[number]
                reports[number] = Report(report.title, hold_back(report.rows + rows), report.note)
    return settled(reports)


def settled(reports):
    """The reports with hints held back where an earlier failing step is the cause, in the steps' order."""
    reports = hold_after_earlier(reports)
    return {number: reports[number] for number in lab_table.NUMBERS if number in reports}


def padded(text, width):
    """`text` padded with spaces to `width` columns, a Chinese or Japanese character counting two."""
    import unicodedata
    columns = sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)
    return text + " " * max(0, width - columns)


def table(reports, folder=None):
    """One line per step: ✓ or ✗, its title, rules OK, and the root cause of a failing step."""
    lines = [t("check.checked", folder=printable(folder))] if folder else []
    for number, report in reports.items():
        judged = [row for row in report.rows if not row.skipped]
        good = sum(row.ok for row in judged)
        lines.append(f"{number} {'✓' if report.passed else '✗'} {padded(t(TITLES[number]), 38)} {good}/{len(judged)}")
        failure = next((row for row in report.rows if not row.ok), None)
        if failure:
            lines += [f"    {mark(failure)} {printable(failure.rule)}", f"        {printable(failure.hint, 1000)}"]
    lines.append(t("check.steps-ok", ok=sum(report.passed for report in reports.values()), total=len(reports)))
    return "\n".join(lines)

