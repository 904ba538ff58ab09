"""Grade a fixed class and keep `kvlab grade --json`'s output: a change that must keep every grade compares two.

    python benchmarks/same_grades.py OUT.json [--at /tmp/kvlab-same-grades]
    cmp before.json after.json

The class: one hand-in per planted mistake (kvlab.instructor.plants, the step modules' plants), then 30
correct ones with a small edit each. It is built afresh in the
same folder every time (the folder names are in the output), and graded with
`kvlab grade --json --no-cache --seed 0 --jobs 2`.
"""
import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import classes  # noqa: E402


def build(root):
    files = classes.reference()
    for number, (_, _, _, plant) in enumerate(classes.PLANTS):
        classes._folder(root, number, classes.files_of(plant))
    for number in range(len(classes.PLANTS), len(classes.PLANTS) + 30):
        classes._folder(root, number, files)
    return sorted(Path(root).iterdir())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--at", default="/tmp/kvlab-same-grades")
    args = parser.parse_args(argv)
    shutil.rmtree(args.at, ignore_errors=True)
    folders = build(Path(args.at))
    done = subprocess.run([sys.executable, "-m", "kvlab", "grade", "--json", "--no-cache", "--seed", "0",
                           "--jobs", "2", "--", *map(str, folders)], capture_output=True, cwd=classes.ROOT)
    Path(args.out).write_bytes(done.stdout)
    print(f"{len(folders)} hand-ins graded, exit status {done.returncode}, {len(done.stdout):,} bytes -> {args.out}")
    if done.stderr:
        print(done.stderr.decode(errors="replace")[-2000:], file=sys.stderr)


if __name__ == "__main__":
    main()
