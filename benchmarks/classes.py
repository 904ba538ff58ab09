"""Classes of hand-ins for the grading benchmarks (and the check that a change kept every grade).

honest(root, count): `count` folders, the reference in each; every other one has one planted mistake
(kvlab.instructor.plants: the step modules' plants), each with a small edit of its own so that no two
are alike; every folder's saved files are made by its own code.
hostile(root, count): the reference with a small edit each, every third with an endless loop.
"""
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab import lab, paths  # noqa: E402  (after the path is set)
from kvlab.instructor import plants  # noqa: E402
from kvlab.instructor.reference import handin_modules, planted_source, run_here  # noqa: E402

LOOPS = {  # file -> (what the reference says, the same with an endless loop)
    "scenario.py": ("    if docs < 1:\n",
                    "    while True:  # meant to wait for something\n        pass\n    if docs < 1:\n"),
    "kvsim.py": ("            _, evicted = self._sizes.popitem(last=False)\n            self._used -= evicted\n",
                 "            oldest = next(iter(self._sizes))  # looked at, never removed\n"),
}
PLANTS = plants.plants()


def files_of(plant=None):
    """{file name: bytes} of a hand-in: the reference (with one planted mistake), and its own saved files."""
    package = ROOT / "kvlab"
    files = {name: (package / name).read_text() for name in lab.SCRIPTS}
    if plant is not None:
        files[plant.file] = planted_source(plant, files[plant.file])
    modules = handin_modules(plant)
    saved = plants.saved_files(lambda jobs: run_here(jobs, modules), paths.STAND_IN_TTFT.read_text())
    files.update({name: text for name, text in saved.items() if text is not None})
    return {name: text.encode() for name, text in files.items()}


def reference():
    return files_of()


def _folder(root, number, files):
    folder = Path(root) / f"student{number:03}"
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    edited = "kvsim.py" if "kvsim.py" in files else "scenario.py"
    with open(folder / edited, "a") as script:
        script.write(f"\nSTUDENT = {number}\n")  # a small edit of its own
    return folder


def honest(root, count):
    """`count` hand-in folders in `root`, half of them with a planted mistake; {folder name: mistake or ""}."""
    files, made, planted = reference(), {}, {}
    for number in range(count):
        chosen = PLANTS[(number // 2) % len(PLANTS)] if number % 2 else None
        if chosen is not None and chosen[1] not in planted:
            planted[chosen[1]] = files_of(chosen[3])
        folder = _folder(root, number, planted[chosen[1]] if chosen else files)
        made[folder.name] = chosen[1] if chosen else ""
    return made


def hostile(root, count):
    """`count` hand-in folders in `root`, every third with an endless loop; the names of those."""
    files, looping = reference(), []
    for number in range(count):
        folder = _folder(root, number, files)
        if number % 3 == 2:
            name = list(LOOPS)[len(looping) % 2]
            old, new = LOOPS[name]
            text = (folder / name).read_text()
            assert old in text, old
            (folder / name).write_text(text.replace(old, new))
            looping.append(folder.name)
    return looping


if __name__ == "__main__":  # a quick look: python benchmarks/classes.py OUT COUNT
    print(honest(Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()), int(sys.argv[2]) if len(sys.argv) > 2 else 4))
