"""The lab's six JSON artifacts, written exactly as the steps' commands write them.

Where they go: --out, else $KVLAB_OUT, else artifacts/ at the repository root.
Which measurement is summarized: $KVLAB_TTFT, else the course machine's file, else the stand-in.
"""
import os
from pathlib import Path

from . import scenario, summarize

REPO = Path(__file__).resolve().parent.parent
COURSE_TTFT = Path("/opt/fixtures/kvoffload/ttft.jsonl")
STAND_IN_TTFT = REPO / "fixtures" / "ttft.jsonl"

GPU_CAPACITIES = (21520, 30000, 40000, 45000, 50109, 50110)          # step 4
CPU_CAPACITIES = (0, 20000, 30000, 40000, 50109, 50110, 56000)      # step 7
OFFLOAD_CPU = 56000                                                  # step 6
NAMES = ("cyclic.json", "baseline.json", "cliff.json", "offload.json", "cpu_cliff.json", "measured.json")


def out_dir(out=None):
    """--out if given, else $KVLAB_OUT, else artifacts/ at the repository root."""
    return Path(out or os.environ.get("KVLAB_OUT") or REPO / "artifacts")


def ttft_source():
    """The measured file to use: $KVLAB_TTFT, else the course machine's, else the stand-in."""
    if os.environ.get("KVLAB_TTFT"):
        return Path(os.environ["KVLAB_TTFT"])
    return COURSE_TTFT if COURSE_TTFT.exists() else STAND_IN_TTFT


def is_stand_in(path):
    return Path(path).resolve() == STAND_IN_TTFT.resolve()


def contents(ttft=None):
    """{file name: exact text} for the six artifacts."""
    records = summarize.read_records(ttft or ttft_source())
    return {
        "cyclic.json": scenario.to_json(scenario.run(passes=("fwd", "fwd"))),
        "baseline.json": scenario.to_json(scenario.run(passes=("fwd", "fwd", "rev"))),
        "cliff.json": scenario.to_json(scenario.gpu_cliff(GPU_CAPACITIES)),
        "offload.json": scenario.to_json(scenario.run(cpu=OFFLOAD_CPU, passes=("fwd", "fwd", "rev"))),
        "cpu_cliff.json": scenario.to_json(scenario.cpu_cliff(CPU_CAPACITIES)),
        "measured.json": summarize.to_json(summarize.summarize(records)),
    }


def write(out=None, ttft=None):
    """Write the six artifacts and a copy of the measured file; return the paths written, in order."""
    folder, ttft = out_dir(out), Path(ttft or ttft_source())
    files = {**contents(ttft), "ttft.jsonl": ttft.read_bytes()}  # a bad measured file stops us before any write
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        summarize.write_atomically(folder / name, data)  # the measured file unchanged, byte for byte
    return [folder / name for name in files]
