"""Fill a hand-in folder with the reference scripts, their six JSON files and ttft.jsonl (`kvlab handin DIR`).

For instructors: a reference hand-in to try the grader on. A file already there with other content is
somebody's work: nothing is written unless --force says to overwrite it.
"""
from pathlib import Path

from .. import paths
from .artifacts import planned as planned_artifacts, write_files

PACKAGE = Path(__file__).resolve().parent.parent
SCRIPTS = ("kvsim.py", "scenario.py", "summarize.py")


def planned(ttft=None):
    """{file name: bytes} for the hand-in, in the lab's order: scripts, six JSON files, ttft.jsonl."""
    files = {name: (PACKAGE / name).read_bytes() for name in SCRIPTS}
    files.update(planned_artifacts(ttft))
    return files


def handin(folder, force=False, ttft=None):
    """Write the hand-in into `folder`; [(path, "wrote" | "unchanged")] in order."""
    return write_files(folder, planned(ttft or paths.ttft_source()), force)


def add_arguments(parser):
    parser.add_argument("folder", help="the hand-in folder; created if missing")
    parser.add_argument("--force", action="store_true", help="overwrite files that have other content")


def run(args):
    for path, status in handin(args.folder, args.force):
        print(f"{status} {path}")
