"""Write tests/buggy/: each file a copy of a reference script with one planted bug.

    python3 tests/make_buggy.py

Each plant replaces one exact piece of the reference with the mistake; if the reference has changed
so that the piece is gone, this stops and says which fixture to plant by hand. The first line of
every fixture names its bug. The fixtures are kept in the repository, and
tests/test_buggy_fixtures.py checks that they are still what this writes.
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KVLAB, BUGGY = ROOT / "kvlab", ROOT / "tests" / "buggy"

PLANTS = [  # (fixture, reference, the bug in words, [(piece of the reference, what replaces it), ...])
    ("lru_fifo", "kvsim.py", "a hit does not move the entry to the most recent position (FIFO, not LRU).",
     [("            self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO\n", "")]),
    ("lru_clears_on_oversized", "kvsim.py", "an entry larger than the capacity clears the cache.",
     [("        if size > self.capacity:\n            return False",
       "        if size > self.capacity:\n            self._sizes.clear()\n            self._used = 0\n"
       "            return False")]),
    ("lru_evicts_on_oversized", "kvsim.py", "an entry larger than the capacity evicts entries (then is not stored).",
     [("        if size > self.capacity:\n            return False  # evicting for an entry that can never fit "
       "would only lose good entries\n        while self._used + size > self.capacity:",
       "        while self._sizes and self._used + size > self.capacity:"),
      ("            self._used -= evicted\n        self._sizes[key] = size",
       "            self._used -= evicted\n        if size > self.capacity:\n            return False\n"
       "        self._sizes[key] = size")]),
    ("lru_stores_oversized", "kvsim.py", "an entry larger than the capacity is stored anyway (after evicting everything).",
     [("        if size > self.capacity:\n            return False  # evicting for an entry that can never fit "
       "would only lose good entries\n        while self._used + size > self.capacity:",
       "        while self._sizes and self._used + size > self.capacity:")]),
    ("lru_contains_moves", "kvsim.py", "`key in cache` moves the entry to the most recent position.",
     [("        return key in self._sizes  # a peek: the order is not changed",
       "        if key in self._sizes:\n            self._sizes.move_to_end(key)\n            return True\n"
       "        return False")]),
    ("lru_keys_moves", "kvsim.py", "keys() reverses the cache's order in place each time it is called.",
     [('        """Stored keys, least recently used first."""\n        return list(self._sizes)',
       '        """Stored keys, least recently used first."""\n        keys = list(self._sizes)\n'
       '        self._sizes = OrderedDict(reversed(self._sizes.items()))\n        return keys')]),
    ("lru_used_wrong", "kvsim.py", "on an eviction, used drops by the new entry's size instead of the evicted one's.",
     [("            _, evicted = self._sizes.popitem(last=False)\n            self._used -= evicted",
       "            self._sizes.popitem(last=False)\n            self._used -= size")]),
    ("lru_used_method", "kvsim.py", "used is a method, not a property.",
     [("    @property\n    def used(self):", "    def used(self):")]),
    ("tier_touches_cpu_on_gpu_hit", "kvsim.py", "a GPU hit also refreshes (or stores) the entry in the CPU tier.",
     [("            self.gpu.access(key, size)  # the CPU copy is not touched\n",
       "            self.gpu.access(key, size)\n            self.cpu.access(key, size)\n")]),
    ("tier_no_cpu_refresh", "kvsim.py", "a CPU hit does not make the CPU copy the most recent.",
     [("            self.cpu.access(key, size)  # refresh the CPU copy...\n", "")]),
    ("tier_no_copy_to_gpu", "kvsim.py", "a CPU hit is not loaded back into the GPU.",
     [("            self.gpu.access(key, size)  # ...and load it back into the GPU\n", "")]),
    ("tier_miss_only_gpu", "kvsim.py", "a miss is stored in the GPU only.",
     [("        self.gpu.access(key, size)  # recomputed: kept in both tiers\n        self.cpu.access(key, size)\n",
       "        self.gpu.access(key, size)\n")]),
    ("tier_cpu_zero_fails", "kvsim.py", "CPU capacity 0 leaves no CPU tier (None), so every access fails.",
     [("        self.cpu = LRUCache(cpu_capacity)", "        self.cpu = LRUCache(cpu_capacity) if cpu_capacity else None")]),
    ("kvsim_import_loop", "kvsim.py", "importing the module never ends.",
     [('CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")',
       'CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")\nwhile True:\n    pass')]),
    ("scenario_clears_between_passes", "scenario.py", "every pass gets a new, empty cache.",
     [("    cache = TwoTierCache(gpu, cpu)\n    results = []\n    for order, doc_ids in zip(passes, orders):\n",
       "    results = []\n    for order, doc_ids in zip(passes, orders):\n        cache = TwoTierCache(gpu, cpu)\n")]),
    ("scenario_hit_docs_sorted", "scenario.py", "hit_docs is sorted instead of being in read order.",
     [("        results.append(counts)", '        counts["hit_docs"].sort()\n        results.append(counts)')]),
    ("scenario_prints_text", "scenario.py", "explanatory text is printed on stdout before the JSON.",
     [("    args = parser.parse_args(argv)\n",
       "    args = parser.parse_args(argv)\n"
       "    print(f\"Simulating {args.docs} documents, passes {','.join(args.passes)}\")\n")]),
    ("scenario_infinite_loop", "scenario.py", "a rev pass never ends.",
     [('    if order == "rev":\n        return list(reversed(range(docs)))',
       '    if order == "rev":\n        while True:\n            pass')]),
    ("scenario_huge_print", "scenario.py", "prints a debug line for ever.",
     [("    args = parser.parse_args(argv)\n",
       '    args = parser.parse_args(argv)\n    while True:\n        print("debug: still running " * 10)\n')]),
    ("scenario_syntax_error", "scenario.py", "a syntax error (a missing colon).",
     [("def read_order(order, docs):", "def read_order(order, docs)")]),
    ("summarize_median_low", "summarize.py", "the median of an even count is the lower middle value, not the mean of both.",
     [("statistics.median(values)", "statistics.median_low(values)")]),
    ("summarize_rounds_before_ratio", "summarize.py", "the ratio is computed from the rounded statistics.",
     [('    base, lm = exact["baseline"], exact["lmcache"]',
       '    base = {name: (s["p50_ms"], s["mean_ms"]) for name, s in summary["baseline"].items()}\n'
       '    lm = {name: (s["p50_ms"], s["mean_ms"]) for name, s in summary["lmcache"].items()}')]),
    ("summarize_renames_passes", "summarize.py", "pass names are shortened (pass1-cold becomes pass1).",
     [('        ttfts[record["config"]].setdefault(record["pass"], []).append(record["ttft_ms"])',
       '        ttfts[record["config"]].setdefault(record["pass"].split("-")[0], []).append(record["ttft_ms"])')]),
    ("summarize_no_blank_skip", "summarize.py", "blank lines are not skipped.",
     [("            if line.strip():\n                records.append(parse_line(line))",
       "            records.append(parse_line(line))")]),
]


def plant(reference, replacements):
    text = (KVLAB / reference).read_text()
    for old, new in replacements:
        if text.count(old) != 1:
            return None
        text = text.replace(old, new)
    return text


def main(folder=BUGGY):
    folder.mkdir(exist_ok=True)
    stale = []
    for name, reference, bug, replacements in PLANTS:
        text = plant(reference, replacements)
        if text is None:
            stale.append(name)
            continue
        (folder / f"{name}.py").write_text(f"# BUG: {bug}\n{text}")
    if stale:
        raise SystemExit(f"make_buggy.py: the reference changed where these bugs go; plant them by hand: "
                         f"{', '.join(stale)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else BUGGY)
