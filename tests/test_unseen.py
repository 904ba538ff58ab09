"""Mistakes no plant was written for, in code that is not the reference's: the hand-in written from the lab text
alone (tests/handins/seed_true/), with one mistake a student made (issue 25's list). Each fails its own step,
and the hint, if any, names a cause the code really has (or the case alone is shown); the alternatives pass.
Each runs one step's check, in a process of its own, as `kvlab check N` does.
"""
import pytest

from kvlab import check
from planted import HANDINS

SEED = {path.name: path.read_text() for path in (HANDINS / "seed_true").glob("*.py")}
LRU_KEYS = "    def keys(self):\n        return list(self.entries)\n"

WRONG = {  # name: (file, old, new, step, the hints it may give: () for the case alone)
    "keys-a-live-view": ("kvsim.py", LRU_KEYS, "    def keys(self):\n        return self.entries.keys()\n", 1, ("keys-view",)),
    "size-zero-never-hits": ("kvsim.py", "        if key in self.entries:\n            self.entries.move_to_end(key)",
                             "        if self.entries.get(key):\n            self.entries.move_to_end(key)", 1, ("size-zero",)),
    "contains-recurses": ("kvsim.py", "    def __contains__(self, key):\n        return key in self.entries",
                          "    def __contains__(self, key):\n        return key in self", 1, ("crash",)),
    "only-baseline-drops-lmcache": ("summarize.py", 'out = {"baseline": {}, "lmcache": {}, "ratio": {}}',
                                    'out = {config: {} for config in ttfts if ttfts[config]}\nout["ratio"] = {}', 8, ()),
    "ratio-nan-on-zero": ("summarize.py", '"p50": round(statistics.median(b) / statistics.median(l), 2),',
                          '"p50": round(statistics.median(b) / statistics.median(l), 2) if statistics.median(b) '
                          'else float("nan"),', 8, ()),
}
WRONG["store-shared"] = ("kvsim.py", "class LRUCache:\n    def __init__(self, capacity):\n        self.capacity = capacity\n"
                         "        self.entries = OrderedDict()\n",
                         "class LRUCache:\n    store = OrderedDict()\n\n    def __init__(self, capacity):\n"
                         "        self.capacity = capacity\n        self.entries = LRUCache.store\n", 1, ("shared-store",))


def folder_with(tmp_path, changes):
    folder = tmp_path / "handin"
    folder.mkdir()
    for name, text in SEED.items():
        for file, old, new in changes:
            if file == name:
                assert old in text, old
                text = text.replace(old, new)
        (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize("name", WRONG)
def test_a_mistake_no_plant_was_written_for_fails_its_own_step(name, tmp_path):
    file, old, new, step, hints = WRONG[name]
    report = check.step(step, folder=folder_with(tmp_path, [(file, old, new)]), artifacts=False)
    assert not report.passed, report
    assert report.misconceptions == (list(hints) if hints else ["differs"]), report


def test_what_the_lab_text_does_not_ask_for_is_not_asked(tmp_path):
    """No gpu_cliff or cpu_cliff, no run(), no counters, `used` a plain attribute: steps 1, 2 and 5 pass."""
    folder = folder_with(tmp_path, [])
    assert all(check.step(number, folder=folder, artifacts=False).passed for number in (1, 2, 5))
