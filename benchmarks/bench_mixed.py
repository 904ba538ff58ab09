"""A hostile class beside an honest one: the batch's time against the honest batch alone, and the grader's memory.

    python benchmarks/bench_mixed.py [--honest 6] [--jobs 2]

Builds `--honest` reference hand-ins (each marked with its name), one chatty and one slow honest hand-in,
and one folder per attack: 5 MB .py files nothing imports, 400 MB down the result channel, memfd +
fallocate, /dev/shm filled, 20 processes of 100 MB each, CPU spinners in their own sessions (two
folders), a forged result line, os._exit(137), halved TTFTs with their own summary, and a folder that is a
link to a classmate's. Grades the same batch with each attack replaced by an honest folder, then the
batch with the attacks, side by side in this run (no cache, `--jobs`), and prints both times, their
ratio (target: at most 2), the grader's peak RSS
(target: at most 1 GB), and whether every honest hand-in kept 8/8. Nothing is asserted.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab import summarize  # noqa: E402  (after the path is set)
from kvlab.instructor import artifacts, batch, gradebook  # noqa: E402

HOOKS = {"scenario.py": "    args = parser.parse_args(argv)\n",  # a line of each reference main(), before its work
         "summarize.py": "    args = sys.argv[1:] if argv is None else argv\n"}


def hooked(file, code):
    """A change to `file` that runs `code` first thing in its main(); refused if the reference has moved on."""
    def change(text):
        if HOOKS[file] not in text:
            raise SystemExit(f"bench_mixed: {file} has no line {HOOKS[file]!r} to hook into any more")
        return text.replace(HOOKS[file], HOOKS[file] + code)
    return change


ATTACKS = {
    "big-files": {f"extra{n}.py": "x = 1\n" * 800_000 for n in range(2)},
    "flood": {"scenario.py": hooked("scenario.py", "    import os\n    for _ in range(400):\n"
                                                   "        os.write(3, b'x' * 1_000_000)\n")},
    "memfd": {"kvsim.py": lambda text: "import os\nfd = os.memfd_create('x')\ntry:\n"
                                       "    os.posix_fallocate(fd, 0, 3_000_000_000)\nexcept OSError:\n    pass\n" + text},
    "shm": {"summarize.py": hooked("summarize.py", "    try:\n        open('/dev/shm/x', 'wb')"
                                                  ".write(b'x' * 200_000_000)\n    except OSError:\n        pass\n")},
    "many-gb": {"summarize.py": hooked("summarize.py", "    import os\n    for _ in range(20):\n"
                                                      "        if os.fork() == 0:\n            b = bytearray(100_000_000)\n"
                                                      "            import time; time.sleep(5); os._exit(0)\n")},
    "spinner-1": {"scenario.py": hooked("scenario.py", "    import os\n    for _ in range(8):\n"
                                                       "        if os.fork() == 0:\n            os.setsid()\n"
                                                       "            while True: pass\n")},
    "forged-line": {"kvsim.py": lambda text: "import os\nos.write(3, b'{\"job\": 0, \"kind\": \"missing\"}\\n')\n" + text},
    "exit-137": {"summarize.py": hooked("summarize.py", "    import os\n    os._exit(137)\n")},
}
ATTACKS["spinner-2"] = ATTACKS["spinner-1"]


def reference():
    files = {name: (ROOT / "kvlab" / name).read_bytes() for name in ("kvsim.py", "scenario.py", "summarize.py")}
    with tempfile.TemporaryDirectory() as folder:
        artifacts.write(folder)
        files.update({path.name: path.read_bytes() for path in Path(folder).iterdir() if path.is_file()})
    return files


def build(root, name, files, changes=()):
    folder = Path(root) / name
    folder.mkdir()
    for file, data in files.items():
        (folder / file).write_bytes(data)
    with open(folder / "kvsim.py", "a") as kvsim:
        kvsim.write(f"\nHANDED_IN_BY = {name!r}\n")
    for file, change in dict(changes).items():
        path = folder / file
        text = change(path.read_text() if path.exists() else "") if callable(change) else change
        path.write_text(text)
    return folder


def halved(folder):
    lines = []
    for record in summarize.read_records(folder / "ttft.jsonl"):
        lines.append(__import__("json").dumps({**record, "ttft_ms": round(record["ttft_ms"] / 2, 1)}))
    (folder / "ttft.jsonl").write_text("\n".join(lines) + "\n")
    records = summarize.read_records(folder / "ttft.jsonl")
    (folder / "measured.json").write_text(summarize.to_json(summarize.summarize(records)))


def peak_rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def timed(folders, jobs):
    start = time.perf_counter()
    grades, _ = batch.grade_all(folders, seed=1, jobs=jobs)
    return time.perf_counter() - start, grades


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=6, help="reference hand-ins in each batch (default 6)")
    parser.add_argument("--jobs", type=int, default=2, help="folders graded at once (default 2)")
    args = parser.parse_args()
    files = reference()
    with tempfile.TemporaryDirectory(prefix="kvlab-bench-mixed-") as root:
        honest = [build(root, f"honest-{n}", files) for n in range(args.honest)]
        honest.append(build(root, "chatty", files, {"scenario.py": hooked(
            "scenario.py", "    print('progress ' * 20_000, file=sys.stderr)\n")}))
        honest.append(build(root, "slow", files, {"summarize.py": hooked("summarize.py", "    import time\n    time.sleep(0.1)\n")}))
        attacks = [build(root, name, files, changes) for name, changes in ATTACKS.items()]
        attacks.append(build(root, "halved", files))
        halved(attacks[-1])
        link = Path(root) / "link-to-honest-0"
        link.symlink_to(honest[0])
        attacks.append(link)
        stand_ins = [build(root, f"honest-instead-of-{n}", files) for n in range(len(attacks))]
        alone, _ = timed(honest + stand_ins, args.jobs)  # the same batch, each attack replaced by an honest folder
        mixed, grades = timed(honest + attacks, args.jobs)
        kept = [result.score == 8 for result in grades[:len(honest)]]
        print(f"the batch without the attacks ({len(honest) + len(stand_ins)} honest folders): {alone:.1f} s")
        print(f"the batch with them ({len(honest)} honest + {len(attacks)} attacks): {mixed:.1f} s, "
              f"{mixed / alone:.2f}x (target: at most 2x)")
        print(f"grader peak RSS: {peak_rss() / 2 ** 20:.0f} MB (target: at most 1,024 MB)")
        print(f"honest hand-ins at 8/8 beside the attacks: {sum(kept)} of {len(kept)}")
        for result in grades[len(honest):]:
            print(f"  {batch.shown(Path(result.folder).name):<16} {result.score}/8 {gradebook.remarks(result)[:90]}")


if __name__ == "__main__":
    main()
