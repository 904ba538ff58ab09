"""Classes of hand-ins for the grading benchmarks (and the check that a change kept every grade).

honest(root, count): `count` folders, the reference (`kvlab artifacts`, then `kvlab handin`) in each;
every other one has one planted bug of tests/planted.py (the tests/buggy fixtures, those that never end
left out), the others are correct; each has a small edit of its own so that no two are alike.
hostile(root, count): the reference with a small edit each, every third with an endless loop.
"""
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

from kvlab import handin  # noqa: E402  (after the path is set)
from kvlab.instructor import artifacts  # noqa: E402
from planted import DELETED, PLANTS, planted_text  # noqa: E402

LOOPS = {  # file -> (what the reference says, the same with an endless loop)
    "scenario.py": ("    if docs < 1:\n",
                    "    while True:  # meant to wait for something\n        pass\n    if docs < 1:\n"),
    "kvsim.py": ("            _, evicted = self._sizes.popitem(last=False)\n            self._used -= evicted\n",
                 "            oldest = next(iter(self._sizes))  # looked at, never removed\n"),
}
HONEST_PLANTS = [plant for plant in PLANTS if plant.misconception != "timeout"]  # no endless loop


def reference():
    """{file name: bytes} of a correct hand-in."""
    with tempfile.TemporaryDirectory() as written:
        artifacts.write(written)
        return handin.planned(artifacts=written)


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
    """`count` hand-in folders in `root`, half of them with a planted bug; {folder name: plant name or ""}."""
    files, made = reference(), {}
    for number in range(count):
        plant = HONEST_PLANTS[(number // 2) % len(HONEST_PLANTS)] if number % 2 else None
        mine = dict(files)
        if plant is not None:
            text = planted_text(plant)
            assert text is not None, plant.name
            if text == DELETED:
                del mine[plant.script]
            else:
                mine[plant.script] = text.encode()
        folder = _folder(root, number, mine)
        made[folder.name] = plant.name if plant else ""
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
