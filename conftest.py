"""Test-wide set-up, shared by the unit tests and the notebooks that nbval runs.

The notebook kernels inherit this process's environment, so what is set here reaches them too:
the stand-in measurement (never the course machine's file, so results are the stored ones),
a temporary artifacts folder, and private matplotlib/IPython folders.
"""
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def pytest_configure(config):
    scratch = Path(tempfile.mkdtemp(prefix="kvlab-tests-"))
    os.environ["KVLAB_TTFT"] = str(ROOT / "fixtures" / "ttft.jsonl")
    os.environ["KVLAB_OUT"] = str(scratch / "artifacts")
    for name in ("MPLCONFIGDIR", "IPYTHONDIR"):
        os.environ.setdefault(name, str(scratch / name.lower()))
