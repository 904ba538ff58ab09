"""Shared by the tests: where things are, and how to run a lab command in a fresh process."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KVLAB = ROOT / "kvlab"
STAND_IN = ROOT / "fixtures" / "ttft.jsonl"


def miss_pass(order):
    """A pass in which none of the ten documents was found."""
    return {"order": order, "gpu_hits": 0, "cpu_hits": 0, "misses": 10, "hit_docs": []}


# The lab text, "Expected results": the five simulator artifacts.


CYCLIC = {"passes": [miss_pass("fwd"), miss_pass("fwd")]}
BASELINE = {"passes": [miss_pass("fwd"), miss_pass("fwd"),
                       {"order": "rev", "gpu_hits": 4, "cpu_hits": 0, "misses": 6, "hit_docs": [9, 8, 7, 6]}]}
OFFLOAD = {"passes": [miss_pass("fwd"),
                      {"order": "fwd", "gpu_hits": 0, "cpu_hits": 10, "misses": 0, "hit_docs": list(range(10))},
                      {"order": "rev", "gpu_hits": 4, "cpu_hits": 6, "misses": 0, "hit_docs": list(range(9, -1, -1))}]}
CLIFF = {"21520": 0, "30000": 0, "40000": 0, "45000": 0, "50109": 0, "50110": 10}
CPU_CLIFF = {"0": 10, "20000": 10, "30000": 10, "40000": 10, "50109": 10, "50110": 0, "56000": 0}


def clean_env(**extra):
    """This process's environment without the variables that change what a command reads or imports."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTHON", "KVLAB_"))}
    env.update({name: str(value) for name, value in extra.items()})
    return env


def python(*args, cwd=ROOT, env=None, flags=()):
    """Run `python [flags] args...` in a fresh process; stdout and stderr are captured as text."""
    return subprocess.run([sys.executable, *flags, *map(str, args)], cwd=cwd,
                          env=clean_env() if env is None else env,
                          capture_output=True, encoding="utf-8", timeout=60)


def assert_success(result):
    """Exit 0 and not a word on stderr (a warning there would still confuse a student)."""
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def assert_one_line_error(result, *fragments):
    """A failed command: non-zero exit, nothing on stdout, one line on stderr, no traceback."""
    assert result.returncode != 0, result.stdout
    assert result.stdout == "", result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n"), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, f"{fragment!r} not in {result.stderr!r}"


def call_main(main, args, capsys):
    """Run a script's main(args) in this process, as the interpreter would run the script.

    Returns a subprocess.CompletedProcess, so that assert_success and assert_one_line_error apply:
    `raise SystemExit("message")` becomes the message on stderr and exit status 1, as it would.
    """
    try:
        main([str(arg) for arg in args])
        code = 0
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    if isinstance(code, str):
        err, code = err + code + "\n", 1
    return subprocess.CompletedProcess(args, code or 0, out, err)


def summary_of(path):
    """What the reference summarize.py writes for the measured file at `path` (a measured.json)."""
    from kvlab import summarize
    return summarize.to_json(summarize.summarize(summarize.read_records(path)))
