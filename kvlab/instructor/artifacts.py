"""Write the lab's six JSON artifacts, exactly as the steps' commands write them, and a copy of ttft.jsonl.

Where they go: --out, else $KVLAB_OUT, else artifacts/ at the repository root.
Which measurement is summarized: $KVLAB_TTFT, else the course machine's file, else the stand-in.
A file already there with other content is somebody's work (a student's cyclic.json in /root/kvlab):
nothing is written unless --force says to overwrite it.
"""
import json
from pathlib import Path

from .. import lab, paths, records, scenario, summarize
from ..errors import UserError
from ..files import write_files
from ..lab import sweeps


def contents(ttft=None):
    """{file name: exact text} for the six artifacts, computed with the reference scripts."""
    measured = records.read_records(ttft or paths.ttft_source())  # kvlab's reader: one line for a bad file
    return {
        "cyclic.json": _text(scenario.run(passes=lab.FWD_FWD)),
        "baseline.json": _text(scenario.run(passes=lab.FWD_FWD_REV)),
        "cliff.json": _text(sweeps.second_pass(scenario.run, "gpu", lab.GPU_CAPACITIES, "hits")),
        "offload.json": _text(scenario.run(cpu=lab.OFFLOAD_CPU, passes=lab.FWD_FWD_REV)),
        "cpu_cliff.json": _text(sweeps.second_pass(scenario.run, "cpu", lab.CPU_CAPACITIES, "misses")),
        "measured.json": summarize.to_json(summarize.summarize(measured)),
    }


def _text(document):
    """What scenario.py prints (and the loops save): the JSON on one line, then a newline."""
    return json.dumps(document) + "\n"


def planned(ttft=None):
    """{file name: bytes}: the six artifacts, then the measured file unchanged."""
    ttft = Path(ttft or paths.ttft_source())
    try:
        files = {name: text.encode("utf-8") for name, text in contents(ttft).items()}
        files["ttft.jsonl"] = ttft.read_bytes()
    except records.InputError as error:
        raise UserError(str(error)) from None
    return files


def write(out=None, ttft=None, force=False):
    """Write the six artifacts and a copy of the measured file; return [(path, status)] in order."""
    return write_files(paths.out_dir(out), planned(ttft), force)


def add_arguments(parser):
    parser.add_argument("--out", help="folder to write to (default: $KVLAB_OUT, else artifacts/ at the repository root)")
    parser.add_argument("--force", action="store_true", help="overwrite files that have other content")


def run(args):
    ttft = paths.ttft_source()
    for path, status in write(args.out, ttft, args.force):
        note = ""
        if path.name == "ttft.jsonl":
            kind = ", the generated stand-in, not a measurement" if paths.is_stand_in(ttft) else ""
            note = f" (copied from {ttft}{kind})"
        print(f"{status} {path}{note}")
