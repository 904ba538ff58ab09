"""The planted mistakes as hand-ins, and what each one costs (`kvlab plants`).

Every step module's plants() is a classic mistake played on the reference: one piece of one function
replaced. A planted hand-in is the reference with that one mistake, and the six JSON files its own code
makes (cliff.json and cpu_cliff.json by the loop the lab text asks for), so that it is graded as a
student who made that one mistake would be. `kvlab plants OUT` writes them for instructors to read (they
are never committed: they follow the reference); `kvlab plants --costs` grades every one (in this
process: trusted code) and prints the table of the points each loses, step by step, which the README's
grading section shows. Each mistake must cost its own step only.
"""
import json
from pathlib import Path

from .. import lab, paths
from ..errors import UserError
from ..files import write_files
from ..lab import commands, sweeps
from . import judge
from .reference import Reference, handin_modules, planted_source, run_here

TTFT = "ttft.jsonl"


def plants():
    """[(step, misconception, index, Plant)] of every step, in the table's order."""
    found = []
    for number, step in lab.STEPS.items():
        for name, planted in (step.module.plants() or {}).items():
            found += [(number, name, index, plant) for index, plant in enumerate(planted)]
    return found


def artifact_runs():
    """{file name: [argv of each run of the student's command that makes it]} (the step modules' own runs)."""
    runs = {}
    for step in lab.STEPS.values():
        for case in getattr(step.module, "artifact_cases", lambda texts: [])({}):
            if case["kind"] == "artifact" and "runs" in case:
                runs[case["name"]] = case["runs"]
    return runs


def saved_files(run, ttft_text):
    """{file name: text} that a hand-in's own code saves, as the lab's steps say, from run(jobs) -> outcomes."""
    texts = {}
    for name, runs in artifact_runs().items():
        outputs = [commands.observe_run(outcome) for outcome in
                   run([{"kind": "script", "script": "scenario.py", "argv": argv, "read": []} for argv in runs])]
        if name in ("cliff.json", "cpu_cliff.json"):  # the loop: the second pass's count at each capacity
            counted = "hits" if name == "cliff.json" else "misses"
            capacities = [argv[argv.index("--gpu" if counted == "hits" else "--cpu") + 1] for argv in runs]
            values = sweeps.counts({"runs": outputs}, counted)
            texts[name] = json.dumps(dict(zip(capacities, values))) + "\n"
        else:
            texts[name] = outputs[0]["stdout"]
    summary = run([{"kind": "script", "script": "summarize.py", "argv": [TTFT, "measured.json"], "read": ["measured.json"],
                    "files": {TTFT: ttft_text}}])[0]
    texts["measured.json"] = (summary.get("files") or {}).get("measured.json")
    texts[TTFT] = ttft_text
    return texts


def grade_here(modules, seed=None, expect=None, ttft_text=None):
    """({step: Result}, replaced) of a hand-in of trusted modules, graded in this process as `kvlab grade` does."""
    ttft_text = ttft_text if ttft_text is not None else paths.STAND_IN_TTFT.read_text(encoding="utf-8")
    texts = saved_files(lambda jobs: run_here(jobs, modules), ttft_text)
    texts["$lab"] = ttft_text
    return judge.grade_steps(None, None, expect or Reference(), seed=seed, texts=texts, timeout=3.0, kinds=set(),
                             here=modules)


def costs(seed="plants", course=None):
    """[(step, misconception, {step: points lost})] for every plant, graded with the default points."""
    from .course import default_points
    steps, rules = default_points()
    expect = Reference()
    rows = []
    for number, name, index, plant in plants():
        results, replaced = grade_here(handin_modules(plant), seed, expect)
        reports = judge.reports(results, replaced)
        lost = {}
        for step, report in reports.items():
            earned = judge.step_points(_Course(steps, rules), step, report)
            if earned < steps[step]:
                lost[step] = round(steps[step] - earned, 2)
        rows.append((number, name if index == 0 else f"{name} ({index + 1})", lost))
    return rows


class _Course:
    """The default points, as a course file without [points] has them."""

    def __init__(self, steps, rules):
        self.step_points, self.rule_points, self.partial = steps, rules, True


def write(out, force=False):
    """Write every planted hand-in into OUT/NAME/ (the three scripts, the six files, ttft.jsonl)."""
    out = Path(out)
    ttft = paths.STAND_IN_TTFT.read_text(encoding="utf-8")
    written = []
    for number, name, index, plant in plants():
        modules = handin_modules(plant)
        package = Path(judge.PACKAGE)
        files = {script: (package / script).read_text(encoding="utf-8") for script in lab.SCRIPTS}
        files[plant.file] = f"# Planted mistake of step {number}: {name}\n" + \
            planted_source(plant, (package / plant.file).read_text(encoding="utf-8"))
        files.update({key: value for key, value in saved_files(lambda jobs: run_here(jobs, modules), ttft).items()
                      if value is not None})
        folder = out / f"step{number}-{name}" + ("" if index == 0 else f"-{index + 1}")
        written += write_files(Path(folder), {key: value.encode("utf-8") for key, value in files.items()}, force)
    return written


def table(rows):
    """The costs as a Markdown table: one row per plant, the points it loses in each step."""
    steps = list(lab.NUMBERS)
    lines = ["| step | mistake | " + " | ".join(str(step) for step in steps) + " | lost |",
             "|---|---|" + "---|" * len(steps) + "---|"]
    for number, name, lost in rows:
        cells = [f"**{lost[step]:g}**" if step == number and step in lost else f"{lost[step]:g}" if step in lost
                 else "" for step in steps]
        lines.append(f"| {number} | {name} | " + " | ".join(cells) + f" | {sum(lost.values()):g} |")
    return "\n".join(lines)


def add_arguments(parser):
    parser.add_argument("out", nargs="?", help="write every planted hand-in into OUT/ (one folder each)")
    parser.add_argument("--costs", action="store_true", help="grade every planted hand-in and print what each loses")
    parser.add_argument("--force", action="store_true", help="replace files in OUT that have other content")


def run(args):
    if not args.out and not args.costs:
        raise UserError("kvlab plants: give OUT (write the planted hand-ins) or --costs (print what each costs)")
    if args.out:
        for path, status in write(args.out, args.force):
            if status != "unchanged":
                print(f"{status} {path}")
    if args.costs:
        print(table(costs()))
    return 0
