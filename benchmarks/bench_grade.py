"""What grading a class costs: 200 hand-ins, a third of them with an endless loop, graded in parallel.

    python benchmarks/bench_grade.py [--folders 200] [--jobs N] [--timeout 3]

The hand-ins are built in a temporary folder: the reference (`kvlab artifacts`, then `kvlab handin`),
each with a small edit of its own so that no two are alike, and every third with an endless loop where
students write one (half in scenario.py's run, half in LRUCache.access when it has to evict). They are
graded as `kvlab grade --jobs N` grades them (grade_all, in this process, bubblewrap if it is there)
into an empty cache; then again (every grade from the cache); then once more after one folder is fixed.
Prints the figures; nothing is asserted.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab import handin  # noqa: E402  (after the path is set)
from kvlab.instructor import artifacts, grade, sandbox  # noqa: E402

LOOPS = {  # file -> (what the reference says, the same with an endless loop)
    "scenario.py": ("    if docs < 1:\n",
                    "    while True:  # meant to wait for something\n        pass\n    if docs < 1:\n"),
    "kvsim.py": ("            _, evicted = self._sizes.popitem(last=False)\n            self._used -= evicted\n",
                 "            oldest = next(iter(self._sizes))  # looked at, never removed\n"),
}


def build(root, count):
    """`count` hand-in folders in `root`; the names of those with an endless loop."""
    with tempfile.TemporaryDirectory() as written:  # `kvlab artifacts`, then `kvlab handin`: the reference
        artifacts.write(written)
        files = handin.planned(artifacts=written)
    looping = []
    for number in range(count):
        folder = Path(root) / f"student{number:03}"
        folder.mkdir(parents=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
        with open(folder / "kvsim.py", "a") as kvsim:
            kvsim.write(f"\nSTUDENT = {number}\n")  # a small edit of its own
        if number % 3 == 2:
            name = list(LOOPS)[len(looping) % 2]
            old, new = LOOPS[name]
            text = (folder / name).read_text()
            assert old in text, old
            (folder / name).write_text(text.replace(old, new))
            looping.append(folder.name)
    return looping


def timed(action):
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", type=int, default=200, help="hand-ins to grade (default 200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="folders at once (default: the cores)")
    parser.add_argument("--timeout", type=float, default=grade.DEFAULT_TIMEOUT,
                        help=f"seconds per run of student code (default {grade.DEFAULT_TIMEOUT:g})")
    args = parser.parse_args(argv)
    isolation, why = sandbox.available()
    with tempfile.TemporaryDirectory(prefix="kvlab-bench-") as scratch:
        looping = build(Path(scratch) / "handins", args.folders)
        folders = sorted((Path(scratch) / "handins").iterdir())
        cache = Path(scratch) / "cache"

        def grade_all():
            return grade.grade_all(folders, timeout=args.timeout, isolation=isolation, jobs=args.jobs, cache=cache)[0]
        grades, first = timed(grade_all)
        _, again = timed(grade_all)
        (folders[0] / "kvsim.py").write_text((folders[0] / "kvsim.py").read_text() + "# fixed\nFIXED = True\n")
        _, fixed = timed(grade_all)
    passing = sum(result.passed for result in grades)
    print(f"{args.folders} hand-ins ({len(looping)} with an endless loop), --jobs {args.jobs}, "
          f"--timeout {args.timeout:g}, {'bubblewrap' if isolation else f'NOT ISOLATED ({why})'}, "
          f"{os.cpu_count()} cores")
    print(f"first run       {first:7.1f} s   {args.folders / first:5.2f} folders/s   "
          f"{first / args.folders * 1000:6.0f} ms per folder   ({passing} pass all 8 steps)")
    print(f"cached re-run   {again:7.1f} s")
    print(f"one folder fixed{fixed:7.1f} s")


if __name__ == "__main__":
    main()
