"""What `kvlab check` costs a student: one step, and the whole table, beside a bare Python start.

    python benchmarks/bench_check.py [--repeat 5]

Runs check.step(n) for each step on the reference (this instructor edition: the reference's answers, as
an edition's stored ones), then `python -m kvlab check` for the whole table, each --repeat times; beside
them, `python -I -S -c pass` (the floor of any check: a process of the student's code). Prints the
medians; the target (issue 25): a step's check well under a second. Nothing is asserted.
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab import check, lab  # noqa: E402  (after the path is set)
from kvlab.instructor import artifacts  # noqa: E402

TARGET = 1.0  # seconds for one step's check


def timed(action, repeat):
    found = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        found.append(time.perf_counter() - started)
    return statistics.median(found)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        artifacts.write(folder)
        floor = timed(lambda: subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True), args.repeat)
        check.step(1, artifacts=folder)  # the reference's answers, computed once (an edition has them stored)
        steps = {number: timed(lambda: check.step(number, artifacts=folder), args.repeat) for number in lab.NUMBERS}
        whole = timed(lambda: subprocess.run([sys.executable, "-m", "kvlab", "check", "--artifacts", folder],
                                             capture_output=True, cwd=ROOT), args.repeat)
    print(f"python -I -S -c pass: {floor * 1000:.0f} ms (the floor of a run of student code)")
    for number, seconds in steps.items():
        print(f"check.step({number}): {seconds * 1000:6.0f} ms  ({seconds / floor:4.1f}x the floor)")
    print(f"python -m kvlab check (every step, its own process): {whole * 1000:.0f} ms")
    slowest = max(steps.values())
    print(f"target: a step's check under {TARGET:g} s: {'met' if slowest < TARGET else 'NOT met'} "
          f"(slowest {slowest * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
