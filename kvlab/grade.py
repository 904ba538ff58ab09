"""Grade hand-in folders laid out like the lab's (`kvlab grade DIR [DIR ...]`), step by step.

A folder holds kvsim.py, scenario.py, summarize.py, the six JSON files and, if copied, ttft.jsonl.
Student code is untrusted, so all of it runs in kvlab.sandbox, in three processes per folder: the
class checks of steps 1 and 5 (kvlab.check on the student's kvsim.py), every run of scenario.py
(steps 2, 3, 4, 6, 7: the lab's scenarios plus random ones), and every run of summarize.py (step 8:
the measured file plus small and random inputs). scenario.py runs with the lab's kvsim.py, so a bug in
the caches counts in steps 1 and 5 only. The JSON files are compared, as parsed JSON, with what the
lab's own code gives (measured.json: the summary of the student's ttft.jsonl, else of the lab's).
"""
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import artifacts, sandbox, scenario, summarize
from .check import scenarios, summaries
from .check.hints import HINTS
from .check.report import Report, Row, Wrong
from .check.scripts import parse_json_text, run_probes

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
LARGEST_JSON = 1_000_000  # a bigger "JSON file" is not read whole


class GradeError(ValueError):
    """A folder that cannot be graded at all (it does not exist)."""


@dataclass
class Step:
    number: int
    title: str
    rows: list

    @property
    def passed(self):
        return all(row.ok for row in self.rows)

    @property
    def failures(self):
        return [row for row in self.rows if not row.ok]

    def as_dict(self):
        return {"step": self.number, "title": self.title, "passed": self.passed,
                "checks": [row._asdict() for row in self.rows]}


@dataclass
class Grade:
    folder: Path
    seed: int
    steps: list

    @property
    def passed(self):
        return all(step.passed for step in self.steps)

    @property
    def score(self):
        return sum(step.passed for step in self.steps)

    def failed_steps(self):
        return [step.number for step in self.steps if not step.passed]

    def as_dict(self):
        return {"folder": str(self.folder), "passed": self.passed, "score": self.score,
                "steps": [step.as_dict() for step in self.steps]}

    def __str__(self):
        lines = [f"{self.folder} (seed {self.seed})"]
        for step in self.steps:
            good = sum(row.ok for row in step.rows)
            lines.append(f"{step.number} {'✓' if step.passed else '✗'} {step.title:<38} {good}/{len(step.rows)}")
            named = set()  # a misconception's hint is spelled out once per step, then only what was seen
            for row in step.failures:
                base = HINTS.get(row.misconception, "")
                hint = row.hint
                if base and hint.startswith(base) and row.misconception in named:
                    hint = "same as above" + hint[len(base):]
                named.add(row.misconception)
                lines += [f"    ✗ {row.rule}", f"        {hint}"]
        lines.append(f"{self.score} of {len(self.steps)} steps pass")
        return "\n".join(lines)


def grade(folder, seed=0, timeout=10.0, runs=6):
    """Grade one hand-in folder: a Grade with one Step per step of the lab (1 to 8)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise GradeError(f"{folder}: no such folder")
    ttft = folder / "ttft.jsonl" if (folder / "ttft.jsonl").is_file() else artifacts.ttft_source()
    rows = {number: [] for number in TITLES}
    # One sandboxed process per step, so that a script hanging in one step does not stop the others.
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(_class_rows, folder, timeout, 1, "lru_cache", "LRUCache"),
                   pool.submit(_class_rows, folder, timeout, 5, "two_tier_cache", "TwoTierCache"),
                   *[pool.submit(_run_rows, folder, number, probes, timeout)
                     for number, probes in scenarios.step_probes(seed, runs).items()],
                   pool.submit(_summarize_rows, folder, seed, timeout, ttft)]
        for future in futures:
            for number, step_rows in future.result().items():
                rows[number] += step_rows
    for number, step_rows in _file_rows(folder, ttft).items():
        rows[number] += step_rows
    return Grade(folder, seed, [Step(number, TITLES[number], rows[number]) for number in TITLES])


def _class_rows(folder, timeout, number, check_name, class_name):
    """Step 1 or 5: kvlab.check on the student's class, inside the sandbox."""
    result = sandbox.run_jobs(folder, [sandbox.probe_job(check_name, "kvsim", class_name)], timeout=timeout)[0]
    if result.get("report"):
        return {number: Report.from_dict(result["report"]).rows}
    error, kind = result["error"], _kind(result["error"])
    hint = error if kind == "crash" else f"{HINTS[kind]} ({error})"
    return {number: [Row(f"kvsim.py imports and defines {class_name}", False, hint, kind)]}


def _kind(error):
    if "timed out" in error:
        return "timeout"
    if "is missing" in error:
        return "missing-file"
    if " has no " in error:
        return "missing-class"
    return "crash"


def _run_rows(folder, number, probes, timeout):
    return {number: run_probes(folder, probes, timeout)}


def _summarize_rows(folder, seed, timeout, ttft):
    try:
        lines = Path(ttft).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        return {8: [Row("summarize.py can be run on ttft.jsonl", False, f"{ttft}: {error}", "ttft-changed")]}
    return {8: run_probes(folder, summaries.script_probes(lines, seed), timeout)}


def _file_rows(folder, ttft):
    """The six JSON files, each compared with the lab's result; ttft.jsonl if the course's file exists."""
    gpu_hits = _sweep("gpu", artifacts.GPU_CAPACITIES, lambda second: second["gpu_hits"] + second["cpu_hits"])
    cpu_misses = _sweep("cpu", artifacts.CPU_CAPACITIES, lambda second: second["misses"], gpu=scenario.GPU)
    rows = {
        2: [_file_row(folder, "cyclic.json", "is the output of --passes fwd,fwd",
                      _scenario_judge(dict(passes=scenarios.FWD_FWD), "cyclic.json"))],
        3: [_file_row(folder, "baseline.json", "is the output of --passes fwd,fwd,rev",
                      _scenario_judge(dict(passes=scenarios.FWD_FWD_REV), "baseline.json"))],
        4: [_file_row(folder, "cliff.json", "holds the second pass's hits per GPU capacity",
                      _sweep_judge("cliff.json", *gpu_hits, "sweep-hits-not-misses"))],
        6: [_file_row(folder, "offload.json", f"is the output of --cpu {artifacts.OFFLOAD_CPU} --passes fwd,fwd,rev",
                      _scenario_judge(dict(cpu=artifacts.OFFLOAD_CPU, passes=scenarios.FWD_FWD_REV),
                                      "offload.json"))],
        7: [_file_row(folder, "cpu_cliff.json", "holds the second pass's misses per CPU capacity",
                      _sweep_judge("cpu_cliff.json", *cpu_misses, "sweep-misses-not-hits"))],
        8: [_file_row(folder, "measured.json", f"summarizes {Path(ttft).name} as summarize.py should",
                      _summary_judge(ttft))],
    }
    rows[8] += _ttft_rows(folder)
    return rows


def _file_row(folder, name, what, judge):
    rule = f"{name} {what}"
    try:
        path = folder / name
        if not path.is_file():
            raise Wrong("missing-file", f"{name} is not in the folder")
        with open(path, "rb") as handle:
            text = handle.read(LARGEST_JSON).decode("utf-8", "replace")
        judge(parse_json_text(text, name))
    except Wrong as wrong:
        return Row(rule, False, str(wrong), wrong.misconception)
    except OSError as error:
        return Row(rule, False, f"{name} cannot be read: {error.strerror}", "missing-file")
    return Row(rule, True)


def _scenario_judge(params, name):
    return lambda document: scenarios.compare_scenario(document, params, name)


def _sweep(option, capacities, measure, **fixed):
    """What the sweep file should hold, what it holds if it measures the other count, and if cleared."""
    def second_passes(passes):
        return {str(capacity): scenario.run(**fixed, **{option: capacity}, passes=passes)["passes"][-1]
                for capacity in capacities}
    shared, cleared = second_passes(("fwd", "fwd")), second_passes(("fwd",))
    expected = {key: measure(second) for key, second in shared.items()}
    other = {key: (second["misses"] if option == "gpu" else second["gpu_hits"] + second["cpu_hits"])
             for key, second in shared.items()}
    return expected, other, {key: measure(second) for key, second in cleared.items()}


def _sweep_judge(name, expected, other, cleared, other_count):
    def judge(document):
        if not isinstance(document, dict) or set(document) != set(expected):
            keys = list(document) if isinstance(document, dict) else document
            raise Wrong("sweep-shape", f"{name} has {str(keys)[:80]}, expected the keys {list(expected)}")
        if document == expected:
            return
        if document == other:
            raise Wrong(other_count, f"{name} is {document}")
        if document == cleared:
            raise Wrong("clears-between-passes", f"{name} is {document}, expected {expected}")
        for key, value in expected.items():
            if document[key] != value:
                raise Wrong("wrong-result", f"{name}[{key!r}] should be {value}, got {document[key]!r}")
    return judge


def _summary_judge(ttft):
    def judge(document):
        try:
            records = summarize.read_records(ttft)
        except (summarize.InputError, OSError) as error:
            raise Wrong("ttft-changed", f"cannot read the measurement: {error}") from None
        summaries.compare_summary(document, records, "measured.json")
    return judge


def _ttft_rows(folder):
    """ttft.jsonl must be the course's file, unchanged, where that file is known (not the stand-in)."""
    copy, source = folder / "ttft.jsonl", artifacts.ttft_source()
    if not copy.is_file() or not source.is_file() or artifacts.is_stand_in(source):
        return []
    rule = f"ttft.jsonl is an unchanged copy of {source}"
    if copy.read_bytes() == source.read_bytes():
        return [Row(rule, True)]
    return [Row(rule, False, f"{Wrong('ttft-changed')} (ttft.jsonl differs from {source})", "ttft-changed")]


def table(grades):
    """One line per folder: a ✓ or ✗ per step and the number of steps passed."""
    width = max([len("folder"), *(len(str(grade.folder)) for grade in grades)])
    lines = [f"{'folder':<{width}}  " + "  ".join(str(number) for number in TITLES) + "  steps"]
    for grade in grades:
        marks = "  ".join("✓" if step.passed else "✗" for step in grade.steps)
        lines.append(f"{str(grade.folder):<{width}}  {marks}  {grade.score}/{len(grade.steps)}")
    return "\n".join(lines)
