"""What grading a class costs: 300 honest hand-ins, and 200 hostile ones (a third with an endless loop).

    python benchmarks/bench_grade.py [--folders 300] [--hostile 200] [--jobs 2] [--timeout 1]

The honest class (benchmarks/classes.py): the reference in each folder, every other one with one planted
mistake of the step modules, each with a small edit of its own so that no two are alike. The hostile class: every third hand-in with an endless
loop where students write one (half in scenario.py's run, half in LRUCache.access when it has to evict);
each costs a run's CPU limit. Both are graded as `kvlab grade --jobs N --no-cache` grades them (grade_all,
in this process, bubblewrap if it is there, no cache); the honest class again into a cache, then once more
from it. In the same run, the floor: three `python -I -S -c pass` started one after another in the
grader's own sandbox (sandbox.trial_command, a hand-in's cgroup): what a hand-in's three processes cost
at the least when each student file had a process of its own (they share one; a hand-in whose kvsim.py
fails has more, with the reference's standing in). Prints the figures and the target (met or not);
nothing is asserted.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import classes  # noqa: E402  (after the path is set)
from kvlab.instructor import batch, sandbox  # noqa: E402

TARGET_FLOORS = 2.0         # a hand-in's wall time over the floor of three sandboxed starts (issue 25)
CLASS = 300
FLOOR_REPEATS = 15          # triples of sandboxed starts measured (the median is the floor)


def timed(action):
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def sandboxed_start():
    """Wall seconds of one `python -I -S -c pass` in the grader's sandbox, in a hand-in's cgroup."""
    sandbox._adopt_orphans()  # as the grader does: the sandbox's first process, orphaned, is reaped here
    with sandbox.budget() as budget, budget.run() as group, sandbox._slot() as slot:
        command = sandbox.trial_command("pass")
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, **sandbox._identity(slot, group))
        while True:  # until it is gone (nothing else of this process runs now): the slot's uid is free again
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
        return time.perf_counter() - started


def floor():
    """The median wall time of three sandboxed starts in a row."""
    sandboxed_start()  # the page cache warmed
    return statistics.median(sum(sandboxed_start() for _ in range(3)) for _ in range(FLOOR_REPEATS))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=CLASS, help=f"honest hand-ins to grade (default {CLASS})")
    parser.add_argument("--hostile", type=int, default=200, help="hostile hand-ins to grade (default 200; 0: none)")
    parser.add_argument("--jobs", type=int, default=2, help="folders at once (default 2)")
    parser.add_argument("--timeout", type=float, default=batch.DEFAULT_TIMEOUT,
                        help=f"CPU seconds per run of student code (default {batch.DEFAULT_TIMEOUT:g})")
    args = parser.parse_args(argv)
    isolation, why = sandbox.available()
    with tempfile.TemporaryDirectory(prefix="kvlab-bench-") as scratch:
        scratch = Path(scratch)
        made = classes.honest(scratch / "honest", args.folders)
        looping = classes.hostile(scratch / "hostile", args.hostile) if args.hostile else []
        honest = sorted((scratch / "honest").iterdir())
        hostile = sorted((scratch / "hostile").iterdir()) if args.hostile else []
        start = floor() if isolation else None

        def grade_all(folders, cache=None):
            return batch.grade_all(folders, timeout=args.timeout, isolation=isolation, jobs=args.jobs,
                                   cache=cache)[0]
        grades, first = timed(lambda: grade_all(honest))
        _, into_cache = timed(lambda: grade_all(honest, scratch / "cache"))
        _, cached = timed(lambda: grade_all(honest, scratch / "cache"))
        hostile_grades, rough = timed(lambda: grade_all(hostile)) if hostile else ([], 0.0)
        after = floor() if isolation else None
    start = min(start, after) if isolation else None
    per = first / args.folders
    passing = sum(result.passed for result in grades)
    print(f"--jobs {args.jobs}, --timeout {args.timeout:g}, --no-cache, "
          f"{'bubblewrap' if isolation else f'NOT ISOLATED ({why})'}, {os.cpu_count()} cores")
    print(f"honest class    {args.folders} hand-ins ({sum(map(bool, made.values()))} with a planted bug, "
          f"{passing} pass all 8 steps)")
    print(f"  graded in     {first:7.1f} s   {per * 1000:6.1f} ms per hand-in   {args.folders / first:5.1f} folders/s")
    if isolation:
        print(f"  floor         {start * 1000:6.1f} ms for three sandboxed `python -I -S -c pass` in a row: "
              f"per hand-in / floor = {per / start:.2f}")
    print(f"  into a cache  {into_cache:7.1f} s;  every grade from the cache {cached:5.1f} s")
    if hostile:
        print(f"hostile class   {args.hostile} hand-ins ({len(looping)} with an endless loop): {rough:.1f} s, "
              f"{rough / args.hostile * 1000:.0f} ms per hand-in")
    if isolation:
        ratio = per / start
        print(f"target: a hand-in within {TARGET_FLOORS:g}x the floor of three sandboxed starts: "
              f"{'met' if ratio <= TARGET_FLOORS else 'NOT met'} ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
