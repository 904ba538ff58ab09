"""Hand in your lab: copy your three scripts, the six JSON files and ttft.jsonl into DIR, then check them there.

`python -m kvlab handin [DIR]`, DIR by default the lab folder of the lab text, /root/kvlab. The scripts
come from this lab's kvlab/ folder (yours; in the instructor edition, the reference), the JSON files and
ttft.jsonl from the artifacts folder the notebooks write ($KVLAB_OUT, else artifacts/). Nothing is
written when a file is missing or when DIR already holds a different version of one (unless --force).
Then the checks run on DIR, as `python -m kvlab check --folder DIR --artifacts DIR` would: the exit status
is 0 only when every step passes. Standard library only, like the rest of what both editions share.
"""
from pathlib import Path

from . import lab, paths
from .errors import UserError
from .files import write_files
from .i18n import t

LAB_FOLDER = Path("/root/kvlab")          # the lab text's folder on the course machine
PACKAGE = Path(__file__).resolve().parent  # kvlab/: the student's kvsim.py, scenario.py, summarize.py
SCRIPTS = lab.SCRIPTS
MEASURED = "ttft.jsonl"
WRITTEN_BY = {name: lab.STEPS[number].notebook[:2] for name, number in lab.ARTIFACTS.items()}  # file -> its notebook
WRITTEN_BY[MEASURED] = WRITTEN_BY["measured.json"]


def planned(artifacts=None, scripts=None):
    """{file name: bytes} for the hand-in, in the lab's order: scripts, six JSON files, ttft.jsonl.

    A missing file is a UserError naming it and the folder it was looked for in.
    """
    artifacts, scripts = paths.out_dir(artifacts), Path(scripts or PACKAGE)
    files = {}
    for name in SCRIPTS:
        if not (scripts / name).is_file():
            raise UserError(t("handin.script-missing", name=name, folder=scripts))
        files[name] = (scripts / name).read_bytes()
    for name in (*lab.NAMES, MEASURED):
        if not (artifacts / name).is_file():
            raise UserError(t("handin.artifact-missing", name=name, folder=artifacts, notebook=WRITTEN_BY[name]))
        files[name] = (artifacts / name).read_bytes()
    return files


def handin(folder=LAB_FOLDER, force=False, artifacts=None, scripts=None):
    """Write the hand-in into `folder`; [(path, "wrote" | "unchanged")] in order. Nothing on a refusal."""
    return write_files(folder, planned(artifacts, scripts), force)


def check(folder):
    """{step: Report} of the public checks on the hand-in `folder` (its scripts and its artifacts)."""
    from . import check as checks
    return checks.steps(folder=Path(folder), artifacts=Path(folder))


def add_arguments(parser):
    parser.description = t("handin.about")
    parser.add_argument("folder", nargs="?", default=str(LAB_FOLDER), metavar="DIR",
                        help=t("handin.folder-help", default=LAB_FOLDER))
    parser.add_argument("--force", action="store_true", help=t("handin.force-help"))
    from .cli import add_lang_argument
    add_lang_argument(parser, "what it prints")


def run(args):
    from .check.labsteps import table

    folder = Path(args.folder)
    for path, status in handin(folder, args.force):
        print(t(f"handin.{status}", path=path))
    print(t("handin.checking", folder=folder))
    reports = check(folder)
    print(table(reports, folder))
    passed = all(report.passed for report in reports.values())
    print(t("handin.passes" if passed else "handin.fails", folder=folder))
    return 0 if passed else 1
