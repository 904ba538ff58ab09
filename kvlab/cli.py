"""The kvlab command: `python -m kvlab COMMAND` (or `kvlab COMMAND` once installed)."""
import argparse
import os
import sys

from . import artifacts, summarize


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")  # one line, no usage block


def cmd_artifacts(args):
    """Write the lab's six JSON artifacts and a copy of the measured file."""
    ttft = artifacts.ttft_source()
    try:
        written = artifacts.write(args.out, ttft)
    except summarize.InputError as error:
        raise SystemExit(f"kvlab artifacts: error: {error}") from None
    except OSError as error:
        raise SystemExit(f"kvlab artifacts: error: {error.filename}: {error.strerror}") from None
    for path in written:
        note = ""
        if path.name == "ttft.jsonl":
            note = f" (copied from {ttft}{', the generated stand-in, not a measurement' if artifacts.is_stand_in(ttft) else ''})"
        print(f"wrote {path}{note}")


def cmd_notebooks(args):
    """Run the lab's notebooks headless (writing their artifacts and figures), one line per notebook."""
    from . import nbrun  # nbclient is imported only when notebooks run

    paths = args.notebook or nbrun.notebook_paths()
    try:
        copies = nbrun.run(paths, args.out, args.inplace)
    except nbrun.NotebookError as error:
        raise SystemExit(f"kvlab notebooks: error: {error}") from None
    print("stored notebooks refreshed (from the stand-in measurement)" if args.inplace else f"executed copies in {copies}")


def cmd_grade(args):
    """Grade hand-in folders: run their scripts in a sandbox and compare with the lab, step by step."""
    import json
    from pathlib import Path

    from . import grade

    missing = [folder for folder in args.folder if not Path(folder).is_dir()]
    problem = f"no such folder: {', '.join(missing)}" if missing else ""
    if not 0 < args.timeout <= 3600:
        problem = f"--timeout must be a number of seconds above 0 (and at most 3600), got {args.timeout:g}"
    if problem:
        print(f"kvlab grade: error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    grades = [grade.grade(folder, args.seed, args.timeout) for folder in args.folder]
    passed = all(result.passed for result in grades)
    if args.json:
        print(json.dumps({"seed": args.seed, "passed": passed, "folders": [result.as_dict() for result in grades]},
                         indent=2))
    elif len(grades) == 1:
        print(grades[0])
    else:
        print(grade.table(grades))
        print(f"seed {args.seed}; `kvlab grade FOLDER` shows one folder's hints")
    if not passed:
        raise SystemExit(1)


def cmd_handin(args):
    """Fill a hand-in folder with the lab's three scripts, its six JSON files and ttft.jsonl."""
    from . import handin

    try:
        done = handin.handin(args.folder, args.force)
    except handin.HandinError as error:
        raise SystemExit(f"kvlab handin: error: {error}") from None
    except OSError as error:
        raise SystemExit(f"kvlab handin: error: {error.filename}: {error.strerror}") from None
    for path, status in done:
        print(f"{status} {path}")


def build_parser():
    parser = _Parser(prog="kvlab", description="KV-cache offloading lab.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub = commands.add_parser("artifacts", help=cmd_artifacts.__doc__, description=cmd_artifacts.__doc__)
    sub.add_argument("--out", help="folder to write to (default: $KVLAB_OUT, else artifacts/ at the repository root)")
    sub.set_defaults(func=cmd_artifacts)
    sub = commands.add_parser("notebooks", help=cmd_notebooks.__doc__, description=cmd_notebooks.__doc__)
    sub.add_argument("notebook", nargs="*", help="notebooks to run (default: every notebooks/NN_*.ipynb)")
    sub.add_argument("--out", help="artifacts folder for the run (default: $KVLAB_OUT, else artifacts/ at the repository root)")
    sub.add_argument("--inplace", action="store_true",
                     help="save the outputs into the notebooks themselves, run on the stand-in (for maintainers)")
    sub.set_defaults(func=cmd_notebooks)
    sub = commands.add_parser("grade", help=cmd_grade.__doc__, description=cmd_grade.__doc__ +
                              " Exit status: 0 if every step of every folder passes, 1 if not, 2 on bad usage.")
    sub.add_argument("folder", nargs="+", help="hand-in folders, laid out like the lab's (kvsim.py, scenario.py, ...)")
    sub.add_argument("--json", action="store_true", help="print machine-readable JSON instead of the report")
    sub.add_argument("--seed", type=int, default=0, help="seed of the random scenarios and inputs (default 0)")
    sub.add_argument("--timeout", type=float, default=10.0,
                     help="seconds each run of a student's script may take (default 10)")
    sub.set_defaults(func=cmd_grade)
    sub = commands.add_parser("handin", help=cmd_handin.__doc__, description=cmd_handin.__doc__)
    sub.add_argument("folder", help="the hand-in folder (on the course machine: /root/kvlab); created if missing")
    sub.add_argument("--force", action="store_true", help="overwrite files that have other content")
    sub.set_defaults(func=cmd_handin)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not in an unraisable error at exit
    except BrokenPipeError:  # `kvlab grade ... | head`: the reader left, which is no error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None


if __name__ == "__main__":
    main(sys.argv[1:])
