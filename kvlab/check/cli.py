"""Check your lab files, step by step: one table, the first failing rule of each step and its hint.

Runs the public checks on kvlab/kvsim.py, kvlab/scenario.py and kvlab/summarize.py (each in a fresh
Python process), and on the artifacts the notebooks wrote, if any. Exit status 0 only when every
step passes.
"""
from pathlib import Path

from ..errors import UserError
from ..i18n import t


def add_arguments(parser):
    parser.add_argument("steps", nargs="*", type=int, metavar="STEP", help="the steps to check (default: every step)")
    parser.add_argument("--folder", help="the folder holding kvsim.py, scenario.py and summarize.py "
                                         "(default: the kvlab/ folder of this lab)")
    parser.add_argument("--artifacts", help="the folder holding the six JSON files (default: $KVLAB_OUT, else "
                                            "artifacts/ at the repository root)")
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")
    from ..cli import add_lang_argument
    add_lang_argument(parser, "the check table")


def run(args):
    from . import STUDENT_DIR, steps
    from .labsteps import TITLES, table

    wrong = [number for number in args.steps if number not in TITLES]
    if wrong:
        raise UserError(t("cli.check-no-such-step", last=len(TITLES), steps=", ".join(map(str, wrong))))
    folder = Path(args.folder) if args.folder else STUDENT_DIR
    if not folder.is_dir():
        raise UserError(t("cli.no-such-folder", folder=folder))
    reports = steps(tuple(args.steps) or tuple(TITLES), folder=folder, artifacts=args.artifacts)
    if args.json:
        import json
        print(json.dumps({str(number): report.as_dict() for number, report in reports.items()}, indent=2))
    else:
        print(table(reports, folder))
    return 0 if all(report.passed for report in reports.values()) else 1
