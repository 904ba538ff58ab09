"""Self-checks for the code the lab asks students to write: why it is wrong, not only that it is.

    from kvlab import check
    check.lru_cache()          # step 1: LRUCache in your kvlab/kvsim.py
    check.two_tier_cache()     # step 5: TwoTierCache in your kvlab/kvsim.py
    check.step(2)              # any step 1-8: its rules, and its artifact files in the artifacts folder
    check.steps()              # all eight, as `python -m kvlab check` prints them
    check.lru_cache(MyCache)   # a class given directly, checked in this process
    check.summarize_function(fn)   # fn(records) -> summary dict, in this process

Each returns a Report: one row per rule with ✓/✗ and, for the first failure, a hint naming the
misconception (a table in a notebook, lines in a terminal; .passed, .rows, .misconceptions and
.as_dict() as data). Your files run in a separate Python process that only reports what your code
returned; everything is judged here, against answers you cannot read (kvlab/check/oracle.py).
Every function takes `oracle=` (default: oracle.default()).
"""
from pathlib import Path

from .. import steps as lab_table
from . import labsteps as _steps, oracle as oracles, summaries
from ..i18n import Msg
from .report import Report, Row, Wrong

STUDENT_DIR = Path(__file__).resolve().parent.parent   # the kvlab/ folder: kvsim.py, scenario.py, summarize.py
TIMEOUT = 3.0      # seconds a run of your code may take; the lab's runs take milliseconds

__all__ = ["lru_cache", "two_tier_cache", "mru_cache", "summarize_function", "scenario_script", "summarize_script",
           "step", "steps", "Report", "Row", "Wrong"]


def _execute(folder=None, timeout=TIMEOUT):
    """execute(jobs, files): run jobs on the files in `folder` (default: yours), in a fresh process."""
    from . import run

    folder = Path(folder or STUDENT_DIR)
    return lambda jobs, files: run.run_jobs(folder, jobs, files=files, copy=lab_table.SCRIPTS + ("policies.py",),
                                            timeout=timeout)


def _here(names, timeout=TIMEOUT):
    """execute(jobs, files) for classes or functions given directly: {name: object}, run in this process."""
    from . import run

    return lambda jobs, files: [run.run_ops_here(names, job["ops"], timeout) for job in jobs]


def _plan(execute, oracle):
    return _steps.Plan(execute=execute, oracle=oracle or oracles.default(), lab_lines=_lab_lines())


def _class(number, name, cls, folder, timeout, oracle):
    execute = _execute(folder, timeout) if cls is None else _here({name: cls}, timeout)
    report = _steps.class_reports(_plan(execute, oracle), (number,))[number]
    if cls is not None and getattr(cls, "__name__", name) != name:
        report.title = Msg("check.title-of-class", title=report.title, name=cls.__name__)
    return report


def lru_cache(cls=None, *, folder=None, timeout=TIMEOUT, oracle=None):
    """Step 1: check LRUCache (your kvlab/kvsim.py's, or the class given) rule by rule."""
    return _class(1, "LRUCache", cls, folder, timeout, oracle)


def two_tier_cache(cls=None, *, folder=None, timeout=TIMEOUT, oracle=None):
    """Step 5: check TwoTierCache (your kvlab/kvsim.py's, or the class given); its tiers are your LRUCache.

    For your file, step 1 is checked too: a TwoTierCache is only as right as the LRUCache its tiers are.
    """
    if cls is None:
        return steps((1, 5), folder=folder, artifacts=False, timeout=timeout, oracle=oracle)[5]
    return _class(5, "TwoTierCache", cls, folder, timeout, oracle)


def mru_cache(cls=None, *, folder=None, timeout=TIMEOUT, oracle=None):
    """Notebook 07's exercise: check MRUCache (your kvlab/policies.py's, or the class given)."""
    return _class("07", "MRUCache", cls, folder, timeout, oracle)


def _lab_lines():
    from .. import paths
    return paths.measured_lines(paths.ttft_source(), limit=1_000_000) or []


def steps(numbers=lab_table.NUMBERS, *, folder=None, artifacts=None, timeout=TIMEOUT, oracle=None):
    """{step: Report} for your files, and the artifact files in `artifacts` (default: the artifacts folder;
    False: none)."""
    from .. import paths
    artifacts = paths.out_dir() if artifacts is None else artifacts
    return _steps.check_steps(_plan(_execute(folder, timeout), oracle), artifacts or None, steps=tuple(numbers))


def step(number, *, folder=None, artifacts=None, timeout=TIMEOUT, oracle=None):
    """One step's Report: its rules on your files, and its artifact files."""
    if number not in lab_table.STEPS:
        raise ValueError(f"the lab has steps 1 to 8, not {number!r}")
    return steps((number,), folder=folder, artifacts=artifacts, timeout=timeout, oracle=oracle)[number]


def scenario_script(folder=None, timeout=TIMEOUT, oracle=None):
    """Steps 2, 3, 4, 6 and 7 on your scenario.py, merged into one Report."""
    reports = _steps.script_reports(_plan(_execute(folder, timeout), oracle))
    return Report(Msg("check.scenario-title"), [row for report in reports.values() for row in report.rows])


def summarize_script(folder=None, timeout=TIMEOUT, oracle=None):
    """Step 8 on your summarize.py, run as a script."""
    return _steps.summary_report(_plan(_execute(folder, timeout), oracle))


def summarize_function(fn=None, *, folder=None, timeout=TIMEOUT, oracle=None):
    """Step 8's rules on summarize(records) -> summary dict: yours, or the function given (in this process)."""
    from .probes import run_probes
    execute = _execute(folder, timeout) if fn is None else _here({"summarize": fn}, timeout)
    name = getattr(fn, "__name__", "summarize") if fn is not None else "summarize"
    plan = _plan(execute, oracle)
    rng = lab_table.rng_for(lab_table.PUBLIC_SEED, 8, "summary.function")
    title = Msg("check.summarize-function", name=name)
    return Report(title, run_probes(summaries.function_probes(plan.lab_lines, rng), execute, plan.oracle))
