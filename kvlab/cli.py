"""The kvlab command: `python -m kvlab COMMAND` (or `kvlab COMMAND` once installed).

Each command is a module with a one-line docstring (its help), add_arguments(parser) and run(args),
which returns an exit status or None. A command whose module is not there (the student edition has no
instructor/ folder) is not offered. Errors meant for the user are kvlab.errors.UserError: one line on
stderr, no traceback. Anything else is a bug of kvlab and keeps its traceback.
"""
import argparse
import importlib
import os
import sys

from .errors import UserError, visible

COMMANDS = {
    "check": "kvlab.check.cli",
    "notebooks": "kvlab.nbrun",
    "curve": "kvlab.curve",
    "handin": "kvlab.handin",
    "latency": "kvlab.latency",
    "serve": "kvlab.serve",
    "measure": "kvlab.measure",
    "engine": "kvlab.engine",
    "artifacts": "kvlab.instructor.artifacts",
    "grade": "kvlab.instructor.grade",
    "course": "kvlab.instructor.course",
    "autograder": "kvlab.instructor.autograder",
    "release": "kvlab.instructor.release",
    "plants": "kvlab.instructor.plants",
    "i18n": "kvlab.instructor.catalogs",
}


class _Parser(argparse.ArgumentParser):
    """argparse, with no abbreviated options (a folder named --no-i is not --no-isolation) and one line of error."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {visible(message, 1000)}\n")  # one line, no usage block, no escapes


def available(only=None):
    """{command: module} for the commands this edition has (with `only`: that command alone, if it has it).

    Only what is asked for is imported: `kvlab curve` does not pay for the grader's imports.
    """
    modules = {}
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name and module_name.startswith(error.name):
                continue  # this edition does not have it
            raise
        if hasattr(module, "add_arguments") and hasattr(module, "run"):
            modules[name] = module
    return modules


def add_lang_argument(parser, what="the messages"):
    """--lang LANG for a command: the language of what it prints and writes (else $KVLAB_LANG, else English)."""
    from .i18n import LANGS
    parser.add_argument("--lang", choices=LANGS, dest="message_lang",
                        help=f"the language of {what}: {', '.join(LANGS)} (default: $KVLAB_LANG, else en)")


def _use_lang(args):
    """--lang sets KVLAB_LANG, so that child processes (the notebooks' kernels, the grader's runs) follow it."""
    chosen = getattr(args, "message_lang", None)
    if chosen:
        os.environ["KVLAB_LANG"] = chosen


def build_parser(modules=None):
    modules = available() if modules is None else modules
    parser = _Parser(prog="kvlab", description="KV-cache offloading lab.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, module in modules.items():
        summary = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
        sub = commands.add_parser(name, help=summary, description=module.__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    modules = available(argv[0]) if argv and argv[0] in COMMANDS else {}
    modules = modules or available()  # no command, or one this edition lacks: the whole list, for the error or help
    module = modules.get(argv[0]) if argv else None
    if module is not None and hasattr(module, "check_argv"):  # e.g. grade: a folder name must never be an option
        try:
            module.check_argv(argv[1:])
        except UserError as error:
            print(f"kvlab {argv[0]}: error: {visible(error, 1000)}", file=sys.stderr)
            raise SystemExit(error.code) from None
    args = build_parser(modules).parse_args(argv)
    try:
        _use_lang(args)
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not in an unraisable error at exit
    except UserError as error:
        print(f"kvlab {args.command}: error: {visible(error, 1000)}", file=sys.stderr)
        raise SystemExit(error.code) from None
    except OSError as error:
        if isinstance(error, BrokenPipeError):  # `kvlab grade ... | head`: the reader left
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
            raise SystemExit(1) from None
        if error.filename is None or debugging():
            raise
        print(f"kvlab {args.command}: error: {error.filename}: {error.strerror}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    if code:
        raise SystemExit(code)


def debugging():
    """True under pytest or with KVLAB_DEBUG=1: kvlab's own errors then keep their traceback."""
    return os.environ.get("KVLAB_DEBUG") == "1" or "pytest" in sys.modules


if __name__ == "__main__":
    main(sys.argv[1:])
