"""Hand-ins for the tests: the reference with one planted mistake, correct alternatives, and hand-ins written
from the lab text alone (tests/handins/).

The planted mistakes are the step modules' own (kvlab/lab/step*.py, plants()); kvlab.instructor.plants
grades them in this process. Here: correct alternatives (each must pass every step), the edition's
untouched stubs, and folder hand-ins whose saved files are made by their own code.
"""
import shutil
from pathlib import Path

from kvlab import lab
from kvlab.check import run
from kvlab.instructor import plants
from kvlab.lab.base import Plant

ROOT = Path(__file__).resolve().parent.parent
KVLAB = ROOT / "kvlab"
HANDINS = Path(__file__).resolve().parent / "handins"
STAND_IN = ROOT / "fixtures" / "ttft.jsonl"

# Correct alternatives: each must pass every step (no hint at all).
ALTERNATIVES = {
    "dict-and-list": Plant("kvsim.py", "LRUCache.access",
                           ("            self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO\n",
                            "            _, evicted = self._sizes.popitem(last=False)"),
                           ("            self._sizes[key] = self._sizes.pop(key)\n",
                            "            evicted = self._sizes.pop(next(iter(self._sizes)))")),
    "pretty-json": Plant("scenario.py", "main", '    sys.stdout.write(json.dumps(result) + "\\n")',
                         '    sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + "\\n")'),
    "rounds-before-ratio": Plant("summarize.py", "summarize", '    base, lm = exact["baseline"], exact["lmcache"]',
                                 '    base = {name: (s["n"], s["p50_ms"], s["mean_ms"]) for name, s in summary["baseline"].items()}\n'
                                 '    lm = {name: (s["n"], s["p50_ms"], s["mean_ms"]) for name, s in summary["lmcache"].items()}'),
}


def folder_handin(folder, scripts, ttft=STAND_IN):
    """A hand-in folder: `scripts` ({name: source}), and the six files and ttft.jsonl its own code makes (one
    process of the driver runs its commands)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in scripts.items():
        (folder / name).write_text(text)
    texts = plants.saved_files(lambda jobs: run.run_jobs(folder, jobs), Path(ttft).read_text())
    for name, text in texts.items():
        if text is not None:
            (folder / name).write_text(text)
    return folder


def reference_scripts():
    return {name: (KVLAB / name).read_text() for name in lab.SCRIPTS}


def seed_true(folder):
    """The hand-in written from the lab text alone (plain scripts, argparse at the top, no run(), no counters,
    no gpu_cliff), its files made by the loop the lab text asks for."""
    return folder_handin(folder, {path.name: path.read_text() for path in (HANDINS / "seed_true").glob("*.py")})


def copy_scripts(source, folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in lab.SCRIPTS:
        shutil.copy(Path(source) / name, folder / name)
    return folder


def planted_text(name, index=0):
    """(file name, text) of the reference script with the planted mistake `name` (its `index`th plant)."""
    from kvlab.instructor.reference import planted_source
    plant = [one for _, known, _, one in plants.plants() if known == name][index]
    return plant.file, planted_source(plant, (KVLAB / plant.file).read_text())
