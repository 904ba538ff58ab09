"""Test-wide set-up, shared by the unit tests and the notebooks that nbval runs.

The notebook kernels inherit this process's environment, so what is set here reaches them too:
the stand-in measurement (never the course machine's file, so results are the stored ones),
a temporary artifacts folder, private matplotlib/IPython folders and a private cache for the grader. When nbval is installed,
the notebooks run under --nbval-lax --nbval-current-env (pyproject.toml names no nbval option, so
that the unit tests also run where only pytest and hypothesis are installed).
"""
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WORKERS = max(1, min(2, os.cpu_count() or 1))  # the suite is sized for two cores


def pytest_configure(config):
    scratch = Path(tempfile.mkdtemp(prefix="kvlab-tests-"))
    os.environ["KVLAB_TTFT"] = str(ROOT / "fixtures" / "ttft.jsonl")
    os.environ["KVLAB_OUT"] = str(scratch / "artifacts")
    for name in ("MPLCONFIGDIR", "IPYTHONDIR"):
        os.environ.setdefault(name, str(scratch / name.lower()))
    os.environ["KVLAB_UNATTENDED"] = "1"  # nbval's and papermill's kernels draw no slider (kvlab.timeline)
    os.environ["XDG_CACHE_HOME"] = str(scratch / "cache")  # the grader's cache and seed: never the user's
    # the student edition's stored expectations, computed once for the run: the first worker that asks
    # computes them, the other waits and reads them (setdefault: a worker keeps the controller's folder)
    os.environ.setdefault("KVLAB_EXPECTATIONS_DIR", str(scratch / "expectations"))
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput") \
            and config.option.numprocesses is None and not config.option.collectonly:
        # pytest-xdist is installed (the test extra has it) and no -n was given: one worker per core,
        # each test file on one worker (a notebook's cells share one kernel, in order).
        config.option.dist, config.option.tx = "loadfile", ["popen"] * WORKERS
    if hasattr(config.option, "nbval_lax"):  # nbval is installed: run the notebooks as --nbval-lax --nbval-current-env
        if not config.option.nbval:  # unless strict --nbval was asked for
            config.option.nbval_lax = True
        if not config.option.nbval_kernel_name:
            config.option.nbval_current_env = True


# Test files by their test time on 2026-12-02 (two workers, a quiet machine), largest first: two workers that
# take files greedily in this order finish close together (each file stays on one worker, in its own order).
SLOW_FIRST = ("test_release.py", "test_grade.py", "test_notebooks.py", "test_judging.py", "test_autograder.py",
              "06_measured_ttft.ipynb", "test_course.py", "07_beyond_lru.ipynb", "test_measure.py", "test_i18n.py",
              "test_hostile_sandbox.py", "test_red_team.py", "05_cpu_cliff.ipynb", "03_gpu_cliff.ipynb",
              "test_check.py", "04_two_tier.ipynb", "02_cyclic_scan.ipynb", "test_handin.py")


def pytest_collection_modifyitems(session, config, items):
    """The slowest test files first, so that two workers finish together (each file stays on one worker,
    in its own order)."""
    def rank(item):
        name = item.path.name
        return SLOW_FIRST.index(name) if name in SLOW_FIRST else len(SLOW_FIRST)
    items.sort(key=rank)  # stable: the order within a file, and of the other files, is kept
