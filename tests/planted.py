"""The planted bugs: one table, used by make_buggy.py (tests/buggy/), test_check.py and test_grade.py.

Each plant replaces exact pieces of a reference script with a classic mistake. `steps` are the steps it
makes fail; `misconception` is the one hint the checks must give for it (the root cause), or None for a
plant that breaks a run rather than a rule (an endless loop, a flood of output), whose kind is checked.
"""
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
KVLAB = ROOT / "kvlab"


class Plant(NamedTuple):
    name: str            # tests/buggy/NAME.py
    script: str          # the reference script it changes
    steps: tuple         # the steps whose rules it breaks (later steps may fail too, held back)
    misconception: str   # the single hint the checks give, a key of kvlab.check.HINTS
    bug: str             # the mistake, in words
    pieces: tuple        # ((piece of the reference, what replaces it), ...)


LRU_HIT = "            self.hits += 1\n            return True"
EVICT = "            _, evicted = self._sizes.popitem(last=False)\n            self._used -= evicted"
OVERSIZED = ("        if size > self.capacity:\n            return False  # evicting for an entry that can never fit "
             "would only lose good entries\n        while self._used + size > self.capacity:")

PLANTS = [
    Plant("lru_fifo", "kvsim.py", (1,), "fifo", "a hit does not move the entry to the most recent position (FIFO).",
          (("            self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO\n", ""),)),
    Plant("lru_used_on_hit", "kvsim.py", (1,), "used-on-hit", "used grows by the size on a hit too.",
          ((LRU_HIT, "            self.hits += 1\n            self._used += size\n            return True"),)),
    Plant("lru_used_not_freed", "kvsim.py", (1,), "used-not-freed",
          "an eviction does not subtract the evicted size, so the loop empties the cache (KeyError).",
          ((EVICT, "            _, evicted = self._sizes.popitem(last=False)"),)),
    Plant("lru_evicts_when_full", "kvsim.py", (1,), "evicts-when-full", "the eviction loop compares with >=.",
          (("while self._used + size > self.capacity:", "while self._used + size >= self.capacity:"),)),
    Plant("lru_evicts_newest", "kvsim.py", (1,), "evicts-newest", "popitem() without last=False evicts the newest.",
          (("self._sizes.popitem(last=False)", "self._sizes.popitem()"),)),
    Plant("lru_clears_on_oversized", "kvsim.py", (1,), "oversized-evicts", "an entry larger than the capacity clears the cache.",
          (("        if size > self.capacity:\n            return False",
            "        if size > self.capacity:\n            self._sizes.clear()\n            self._used = 0\n"
            "            return False"),)),
    Plant("lru_evicts_on_oversized", "kvsim.py", (1,), "oversized-evicts",
          "an entry larger than the capacity evicts entries (then is not stored).",
          ((OVERSIZED, "        while self._sizes and self._used + size > self.capacity:"),
           ("            self._used -= evicted\n        self._sizes[key] = size",
            "            self._used -= evicted\n        if size > self.capacity:\n            return False\n"
            "        self._sizes[key] = size"))),
    Plant("lru_stores_oversized", "kvsim.py", (1,), "oversized-stored",
          "an entry larger than the capacity is stored anyway (after evicting everything).",
          ((OVERSIZED, "        while self._sizes and self._used + size > self.capacity:"),)),
    Plant("lru_contains_moves", "kvsim.py", (1,), "in-moves", "`key in cache` moves the entry to the most recent position.",
          (("        return key in self._sizes  # a peek: the order is not changed",
            "        if key in self._sizes:\n            self._sizes.move_to_end(key)\n            return True\n"
            "        return False"),)),
    Plant("lru_keys_moves", "kvsim.py", (1,), "keys-moves", "keys() reverses the cache's order in place each time.",
          (("        return list(self._sizes)\n",
            "        keys = list(self._sizes)\n        self._sizes = OrderedDict(reversed(self._sizes.items()))\n"
            "        return keys\n"),)),
    Plant("lru_used_wrong", "kvsim.py", (1,), "used-wrong",
          "on an eviction, used drops by the new entry's size instead of the evicted one's.",
          ((EVICT, "            self._sizes.popitem(last=False)\n            self._used -= size"),)),
    Plant("lru_used_method", "kvsim.py", (1,), "used-method", "used is a method, not a property.",
          (("    @property\n    def used(self):", "    def used(self):"),)),
    Plant("tier_touches_cpu_on_gpu_hit", "kvsim.py", (5,), "tier-touches-cpu",
          "a GPU hit also refreshes (or stores) the entry in the CPU tier.",
          (("            self.gpu.access(key, size)  # the CPU copy is not touched\n",
            "            self.gpu.access(key, size)\n            self.cpu.access(key, size)\n"),)),
    Plant("tier_no_cpu_refresh", "kvsim.py", (5,), "tier-no-cpu-refresh", "a CPU hit does not refresh the CPU copy.",
          (("            self.cpu.access(key, size)  # refresh the CPU copy...\n", ""),)),
    Plant("tier_no_copy_to_gpu", "kvsim.py", (5,), "tier-no-gpu-copy", "a CPU hit is not loaded back into the GPU.",
          (("            self.gpu.access(key, size)  # ...and load it back into the GPU\n", ""),)),
    Plant("tier_miss_only_gpu", "kvsim.py", (5,), "tier-miss-one-tier", "a miss is stored in the GPU only.",
          (("        self.gpu.access(key, size)  # recomputed: kept in both tiers\n        self.cpu.access(key, size)\n",
            "        self.gpu.access(key, size)\n"),)),
    Plant("tier_cpu_zero_fails", "kvsim.py", (5,), "tier-cpu-zero",
          "CPU capacity 0 leaves no CPU tier (None), so every access fails.",
          (("        self.cpu = LRUCache(cpu_capacity)", "        self.cpu = LRUCache(cpu_capacity) if cpu_capacity else None"),)),
    Plant("kvsim_import_loop", "kvsim.py", (1, 5), "timeout", "importing the module never ends.",
          (('CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")',
            'CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")\nwhile True:\n    pass'),)),
    Plant("scenario_clears_between_passes", "scenario.py", (2, 3, 4, 6, 7), "clears-between-passes",
          "every pass gets a new, empty cache.",
          (("    cache = TwoTierCache(gpu, cpu)\n    results = []\n    for order, doc_ids in zip(passes, orders):\n",
            "    results = []\n    for order, doc_ids in zip(passes, orders):\n        cache = TwoTierCache(gpu, cpu)\n"),)),
    Plant("scenario_hit_docs_sorted", "scenario.py", (2, 3, 6), "hit-docs-order", "hit_docs is sorted, not in read order.",
          (("        results.append(counts)", '        counts["hit_docs"].sort()\n        results.append(counts)'),)),
    Plant("scenario_prints_text", "scenario.py", (2, 3, 4, 6, 7), "text-on-stdout",
          "explanatory text is printed on stdout before the JSON.",
          (("    args = parser.parse_args(argv)\n",
            "    args = parser.parse_args(argv)\n    print(f\"Simulating {args.docs} documents\")\n"),)),
    Plant("scenario_gpu_cpu_swapped", "scenario.py", (6, 7), "gpu-cpu-swapped",
          "TwoTierCache gets the CPU capacity first.",
          (("    cache = TwoTierCache(gpu, cpu)\n", "    cache = TwoTierCache(cpu, gpu)\n"),)),
    Plant("scenario_infinite_loop", "scenario.py", (2, 3, 4, 6, 7), "timeout", "a rev pass never ends.",
          (('    if order == "rev":\n        return list(reversed(range(docs)))',
            '    if order == "rev":\n        while True:\n            pass'),)),
    Plant("scenario_huge_print", "scenario.py", (2, 3, 4, 6, 7), "output-flood", "prints a debug line for ever.",
          (("    args = parser.parse_args(argv)\n",
            '    args = parser.parse_args(argv)\n    while True:\n        print("debug: still running " * 10)\n'),)),
    Plant("scenario_syntax_error", "scenario.py", (2, 3, 4, 6, 7), "crash", "a syntax error (a missing colon).",
          (("def read_order(order, docs):", "def read_order(order, docs)"),)),
    Plant("summarize_median_low", "summarize.py", (8,), "median-even",
          "the median of an even count is the lower middle value.",
          (("(median(values), statistics.mean(values), len(values))",
            "(statistics.median_low(values), statistics.mean(values), len(values))"),)),
    Plant("summarize_rounds_before_ratio", "summarize.py", (8,), "rounds-before-ratio",
          "the ratio is computed from the rounded statistics.",
          (('    base, lm = exact["baseline"], exact["lmcache"]',
            '    base = {name: (s["p50_ms"], s["mean_ms"]) for name, s in summary["baseline"].items()}\n'
            '    lm = {name: (s["p50_ms"], s["mean_ms"]) for name, s in summary["lmcache"].items()}'),)),
    Plant("summarize_renames_passes", "summarize.py", (8,), "pass-names", "pass names are shortened (pass1-cold: pass1).",
          (('ttfts[record["config"]].setdefault(record["pass"], [])',
            'ttfts[record["config"]].setdefault(record["pass"].split("-")[0], [])'),)),
    Plant("summarize_no_blank_skip", "summarize.py", (8,), "blank-lines", "blank lines are not skipped.",
          (('            if line.strip() == "":  # empty, or only spaces and tabs\n                continue\n', ''),)),
]
BY_NAME = {plant.name: plant for plant in PLANTS}


def planted_text(plant):
    """The reference script with the plant's bug in it, or None if a piece is no longer in the reference."""
    text = (KVLAB / plant.script).read_text()
    for old, new in plant.pieces:
        if text.count(old) != 1:
            return None
        text = text.replace(old, new)
    return f"# BUG: {plant.bug}\n{text}"


def folder_with(plant, folder):
    """A hand-in folder: the three reference scripts, one of them replaced by the planted one."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("kvsim.py", "scenario.py", "summarize.py"):
        (folder / name).write_bytes((KVLAB / name).read_bytes())
    (folder / plant.script).write_text(planted_text(plant))
    return folder
