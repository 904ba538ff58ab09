"""Self-checks for the code the lab asks students to write: why it is wrong, not only that it is.

    from kvlab import check
    check.lru_cache()          # step 1: LRUCache in your kvlab/kvsim.py
    check.two_tier_cache()     # step 5: TwoTierCache in your kvlab/kvsim.py
    check.step(2)              # any step 1-8: its rules, and its files in the artifacts folder
    check.steps()              # all eight, as `python -m kvlab check` prints them
    check.lru_cache(MyCache)   # a class given directly, checked in this process

Each returns a Report: one row per rule with ✓/✗ and, for the step's first failing rule, the smallest
case that shows the difference, your value beside the lab's, and a hint naming the misconception (a table
in a notebook, lines in a terminal; .passed, .rows, .misconceptions and .as_dict() as data). Your files
run in a separate Python process that only reports what your code returned; everything is judged here,
against the lab's rules on generated cases (kvlab/lab/ has one module per step).
"""
from pathlib import Path

from .. import lab
from ..i18n import Msg
from . import conversation, engine, labsteps
from .report import Report, Row, Wrong

STUDENT_DIR = Path(__file__).resolve().parent.parent   # the kvlab/ folder: kvsim.py, scenario.py, summarize.py
TIMEOUT = 3.0      # seconds a run of your code may take; the lab's runs take milliseconds

__all__ = ["lru_cache", "two_tier_cache", "mru_cache", "step", "steps", "Report", "Row", "Wrong"]


def number_of(stop):
    """The step (or exercise) whose stub raised this NotImplementedError, from the step table."""
    where = (stop.get("where") or "").rpartition(":")[0]
    return lab.step_of(where, stop.get("function") or "")


def expectations(expect=None):
    from .expected import default
    return expect or default()


def artifact_texts(folder):
    """{file name: its text, or None} of the saved files in `folder`, and "$lab": the lab's measured file."""
    from .. import paths
    texts = {name: labsteps.read_text(Path(folder) / name) for name in (*lab.NAMES, "ttft.jsonl")}
    texts["$lab"] = labsteps.read_text(paths.ttft_source(), limit=10_000_000)
    return texts


def judge(numbers, *, folder=None, artifacts=None, timeout=TIMEOUT, expect=None, execute=None):
    """{step: engine Result} of the chosen steps (or the exercise) on your files in `folder` (a process of
    their own), or on execute(jobs) -> outcomes in this process."""
    chosen = [lab.step(number) for number in numbers]
    texts = artifact_texts(artifacts) if artifacts else None
    generator = engine.judge(chosen, expectations(expect), number_of=number_of, artifacts=texts, owner=lab.owner)
    if execute is not None:
        return conversation.here(generator, execute)
    copy = (*lab.SCRIPTS, "policies.py")
    return conversation.talk(generator, Path(folder or STUDENT_DIR), timeout=timeout, copy=copy)


def reports(results):
    return {number: labsteps.report_of(lab.step(number), result) for number, result in results.items()}


def steps(numbers=lab.NUMBERS, *, folder=None, artifacts=None, timeout=TIMEOUT, expect=None):
    """{step: Report} for your files, and the files in `artifacts` (default: the artifacts folder; False: none)."""
    from .. import paths
    artifacts = paths.out_dir() if artifacts is None else artifacts
    found = reports(judge(tuple(numbers), folder=folder, artifacts=artifacts or None, timeout=timeout, expect=expect))
    return labsteps.settled(found)


def step(number, *, folder=None, artifacts=None, timeout=TIMEOUT, expect=None):
    """One step's Report: its rules on your files, and its saved files."""
    if number not in lab.STEPS:
        raise ValueError(f"the lab has steps 1 to {len(lab.STEPS)}, not {number!r}")
    return steps((number,), folder=folder, artifacts=artifacts, timeout=timeout, expect=expect)[number]


def _here(names, timeout):
    from .run import run_ops_here
    return lambda jobs: [run_ops_here(names, job["ops"], timeout) for job in jobs]


def _class(number, name, cls, folder, timeout, expect):
    if cls is None:
        return reports(judge((number,), folder=folder, timeout=timeout, expect=expect))[number]
    report = reports(judge((number,), execute=_here({name: cls}, timeout), expect=expect))[number]
    if getattr(cls, "__name__", name) != name:
        report.title = Msg("check.title-of-class", title=report.title, name=cls.__name__)
    return report


def lru_cache(cls=None, *, folder=None, timeout=TIMEOUT, expect=None):
    """Step 1: check LRUCache (your kvlab/kvsim.py's, or the class given) rule by rule."""
    return _class(1, "LRUCache", cls, folder, timeout, expect)


def two_tier_cache(cls=None, *, folder=None, timeout=TIMEOUT, expect=None):
    """Step 5: check TwoTierCache (your kvlab/kvsim.py's, or the class given); its tiers are your LRUCache.

    For your file, step 1 is checked too: a TwoTierCache is only as right as the LRUCache its tiers are.
    """
    if cls is None:
        tiers = lab.step_of(lab.STEPS[1].file, "TwoTierCache.access")
        return steps((*lab.STEPS[tiers].runs_on, tiers), folder=folder, artifacts=False, timeout=timeout,
                     expect=expect)[tiers]
    return _class(lab.step_of(lab.STEPS[1].file, "TwoTierCache.access"), "TwoTierCache", cls, folder, timeout, expect)


def mru_cache(cls=None, *, folder=None, timeout=TIMEOUT, expect=None):
    """Notebook 07's exercise: check MRUCache (your kvlab/policies.py's, or the class given)."""
    return _class("07", "MRUCache", cls, folder, timeout, expect)
