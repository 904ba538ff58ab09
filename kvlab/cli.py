"""The kvlab command: `python -m kvlab COMMAND` (or `kvlab COMMAND` once installed)."""
import argparse
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


def build_parser():
    parser = _Parser(prog="kvlab", description="KV-cache offloading lab.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub = commands.add_parser("artifacts", help=cmd_artifacts.__doc__, description=cmd_artifacts.__doc__)
    sub.add_argument("--out", help="folder to write to (default: $KVLAB_OUT, else artifacts/ at the repository root)")
    sub.set_defaults(func=cmd_artifacts)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main(sys.argv[1:])
