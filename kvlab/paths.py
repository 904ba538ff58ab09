"""Where the lab reads and writes: the artifacts folder, the measured file, the figures.

Standard library only, and no student code: both editions import it, and importing it never fails.
"""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COURSE_TTFT = Path("/opt/fixtures/kvoffload/ttft.jsonl")   # the real measurement, on the course machine only
STAND_IN_TTFT = REPO / "fixtures" / "ttft.jsonl"           # the generated stand-in (fixtures/README.md)
OTHER_PARAMETERS = "other-parameters"                      # figures at non-default parameters go here
NOTEBOOKS = REPO / "notebooks"


def notebook_paths(folder=NOTEBOOKS):
    """The lab's notebooks, in order: NN_topic.ipynb."""
    return sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))


def out_dir(out=None):
    """--out if given, else $KVLAB_OUT, else artifacts/ at the repository root."""
    return Path(out or os.environ.get("KVLAB_OUT") or REPO / "artifacts")


def figures_dir(at_lab_defaults=True, out=None):
    """OUT/figures for the lab's parameters; OUT/figures/other-parameters otherwise (never over the lab's)."""
    folder = out_dir(out) / "figures"
    return folder if at_lab_defaults else folder / OTHER_PARAMETERS


def ttft_source():
    """The measured file to use: $KVLAB_TTFT, else the course machine's, else the stand-in."""
    if os.environ.get("KVLAB_TTFT"):
        return Path(os.environ["KVLAB_TTFT"])
    return COURSE_TTFT if COURSE_TTFT.exists() else STAND_IN_TTFT


def is_stand_in(path):
    """True when `path` is the repository's generated stand-in, not a measurement."""
    try:
        return Path(path).resolve() == STAND_IN_TTFT.resolve()
    except OSError:
        return False


def measured_lines(path, limit=None):
    """The lines of a measured (JSONL) file exactly as summarize.py reads them: split at "\\n" only, a UTF-8
    byte order mark at the start dropped. A carriage return inside a line stays in it (str.splitlines would
    split there). None if the file cannot be read."""
    try:
        with open(path, "rb") as file:
            data = file.read() if limit is None else file.read(limit)
    except OSError:
        return None
    data = data.removeprefix(b"\xef\xbb\xbf")
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line.decode("utf-8", "replace") for line in lines]
