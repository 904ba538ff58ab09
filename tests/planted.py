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
    Plant("scenario_gpu_cpu_swapped", "scenario.py", (2, 3, 4, 6, 7), "gpu-cpu-swapped",
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
    Plant("summarize_renames_passes", "summarize.py", (8,), "pass-names", "pass names are shortened (pass1-cold: pass1).",
          (('ttfts[record["config"]].setdefault(record["pass"], [])',
            'ttfts[record["config"]].setdefault(record["pass"].split("-")[0], [])'),)),
    Plant("summarize_no_blank_skip", "summarize.py", (8,), "blank-lines", "blank lines are not skipped.",
          (('            if line.strip() == "":  # empty, or only spaces and tabs\n                continue\n', ''),)),
    # More of step 1
    Plant("lru_returns_ints", "kvsim.py", (1,), "return-values", "access returns 1 and 0, not True and False.",
          ((LRU_HIT, "            self.hits += 1\n            return 1"),)),
    Plant("lru_miss_not_stored", "kvsim.py", (1,), "miss-stores", "a miss never stores the entry.",
          (("        self._sizes[key] = size\n        self._used += size\n        return False",
            "        self._used += size\n        return False"),)),
    Plant("lru_no_counts", "kvsim.py", (1,), "counts", "access() does not count its hits.",
          ((LRU_HIT, "            return True"),)),
    Plant("lru_clears_when_full", "kvsim.py", (1,), "eviction", "a miss that needs room clears the whole cache.",
          ((EVICT, "            self._sizes.clear()\n            self._used = 0"),)),
    Plant("lru_refuses_exact_fit", "kvsim.py", (1,), "fits-exactly", "an entry exactly the capacity is refused (>=).",
          (("        if size > self.capacity:\n            return False", "        if size >= self.capacity:\n            return False"),)),
    Plant("lru_keys_newest_first", "kvsim.py", (1,), "keys-order", "keys() lists the newest first.",
          (("        return list(self._sizes)\n", "        return list(reversed(self._sizes))\n"),)),
    Plant("lru_refuses_capacity_zero", "kvsim.py", (1,), "capacity-zero", "LRUCache(0) raises.",
          (("        if capacity < 0:", "        if capacity <= 0:"),)),
    Plant("lru_fifo_for_numbers", "kvsim.py", (1,), "lru-reference", "a hit on a number key does not move it.",
          (("            self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO\n",
            "            if not isinstance(key, int):\n                self._sizes.move_to_end(key)\n"),)),
    Plant("kvsim_import_error", "kvsim.py", (1, 5), "import-failed", "kvsim.py raises when it is imported.",
          (('CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")',
            'CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")\nCACHE_LINE = 1 / 0'),)),
    Plant("kvsim_renames_class", "kvsim.py", (1,), "missing-class", "the class is called LRU, not LRUCache.",
          (("class LRUCache:", "class LRU:"), ("        self.gpu = LRUCache(gpu_capacity)\n        self.cpu = LRUCache(cpu_capacity)",
            "        self.gpu = LRU(gpu_capacity)\n        self.cpu = LRU(cpu_capacity)"))),
    Plant("kvsim_renames_keys", "kvsim.py", (1,), "missing-method", "keys() is called key_list().",
          (("    def keys(self):", "    def key_list(self):"), ("keys={self.keys()}", "keys={self.key_list()}"),
           ("        return len(self.keys())", "        return len(self.key_list())"))),
    Plant("lru_not_written", "kvsim.py", (1,), "not-written", "access is still the stub of the student edition.",
          ((LRU_HIT, '            raise NotImplementedError("step 1 is not written yet: LRUCache.access in kvlab/kvsim.py")'),
           ("        if key in self._sizes:\n            self._sizes.move_to_end(key)",
            '        raise NotImplementedError("step 1 is not written yet: LRUCache.access in kvlab/kvsim.py")\n'
            "        if key in self._sizes:\n            self._sizes.move_to_end(key)"))),
    # More of step 5
    Plant("tier_one_cache", "kvsim.py", (5,), "tier-attributes", "both tiers are the same cache.",
          (("        self.cpu = LRUCache(cpu_capacity)", "        self.cpu = self.gpu"),)),
    Plant("tier_capacities_swapped", "kvsim.py", (5,), "tier-capacities-swapped", "the tiers get each other's capacity.",
          (("        self.gpu = LRUCache(gpu_capacity)\n        self.cpu = LRUCache(cpu_capacity)",
            "        self.gpu = LRUCache(cpu_capacity)\n        self.cpu = LRUCache(gpu_capacity)"),)),
    Plant("tier_says_hit", "kvsim.py", (5,), "tier-returns", 'a GPU hit returns "hit", not "gpu".',
          (('            self.gpu.access(key, size)  # the CPU copy is not touched\n            return "gpu"',
            '            self.gpu.access(key, size)  # the CPU copy is not touched\n            return "hit"'),)),
    Plant("tier_ignores_numbers_in_cpu", "kvsim.py", (5,), "tier-reference", "a number key is never found in the CPU.",
          (("        if key in self.cpu:", "        if key in self.cpu and not isinstance(key, int):"),)),
    # More of steps 2, 3, 4, 6, 7
    Plant("scenario_ignores_gpu", "scenario.py", (2,), "option-ignored-gpu", "run() uses the default GPU capacity.",
          (("    cache = TwoTierCache(gpu, cpu)\n", "    cache = TwoTierCache(GPU, cpu)\n"),)),
    Plant("scenario_ignores_cpu", "scenario.py", (6,), "option-ignored-cpu", "main() never passes --cpu on.",
          (("run(args.gpu, args.cpu, args.docs", "run(args.gpu, CPU, args.docs"),)),
    Plant("scenario_ignores_docs", "scenario.py", (2,), "option-ignored-docs", "main() never passes --docs on.",
          (("args.cpu, args.docs, args.tokens", "args.cpu, DOCS, args.tokens"),)),
    Plant("scenario_ignores_tokens", "scenario.py", (2,), "option-ignored-tokens", "main() never passes --tokens on.",
          (("args.docs, args.tokens, args.passes", "args.docs, TOKENS, args.passes"),)),
    Plant("scenario_ignores_passes", "scenario.py", (2,), "option-ignored-passes", "main() never passes --passes on.",
          (("args.tokens, args.passes)", "args.tokens, PASSES)"),)),
    Plant("scenario_truthy_miss", "scenario.py", (6,), "tier-result-truthy",
          "step 6 kept step 2's `if cache.access(...)`: with the two tiers every read counts as a hit.",
          (("    cache = TwoTierCache(gpu, cpu)\n", "    cache = TwoTierCache(gpu, cpu) if cpu else LRUCache(gpu)\n"),
           ('            tier = cache.access(doc, tokens)\n            if tier == "miss":\n                counts["misses"] += 1\n'
            '            else:\n                counts[f"{tier}_hits"] += 1\n                counts["hit_docs"].append(doc)',
            '            if cache.access(doc, tokens):\n                counts["gpu_hits"] += 1\n'
            '                counts["hit_docs"].append(doc)\n            else:\n                counts["misses"] += 1'))),
    Plant("scenario_cpu_counted_as_gpu", "scenario.py", (6,), "gpu-cpu-counts", "loads from CPU are counted as GPU hits.",
          (('                counts[f"{tier}_hits"] += 1', '                counts["gpu_hits"] += 1'),)),
    Plant("scenario_order_renamed", "scenario.py", (2,), "order-field", 'the pass is named "FWD", not "fwd".',
          (('counts = {"order": order,', 'counts = {"order": order.upper(),'),)),
    Plant("scenario_alone", "kvsim.py", (2,), "kvsim-missing", "kvsim.py is not next to scenario.py.", ()),
    Plant("scenario_returns_json_text", "scenario.py", (2,), "json-text", "run() returns JSON text, not the dict.",
          (('    return {"passes": results}\n    # END SOLUTION', '    return json.dumps({"passes": results})\n    # END SOLUTION'),)),
    Plant("scenario_misses_twice", "scenario.py", (2,), "wrong-result", "a miss is counted twice.",
          (('                counts["misses"] += 1', '                counts["misses"] += 2'),)),
    Plant("scenario_no_cpu_hits_key", "scenario.py", (2,), "scenario-shape", "a pass object has no cpu_hits.",
          (('        results.append(counts)', '        del counts["cpu_hits"]\n        results.append(counts)'),)),
    Plant("scenario_json_per_pass", "scenario.py", (2,), "several-json", "one JSON document per pass.",
          (("    sys.stdout.write(to_json(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)))",
            "    for one in run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)[\"passes\"]:\n"
            "        sys.stdout.write(to_json(one))"),)),
    Plant("scenario_prints_dict", "scenario.py", (2,), "python-repr", "prints the dict, not its JSON.",
          (("    sys.stdout.write(to_json(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)))",
            "    print(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes))"),)),
    Plant("scenario_prints_nothing", "scenario.py", (2,), "no-output", "computes the result and prints nothing.",
          (("    sys.stdout.write(to_json(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)))",
            "    run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)"),)),
    Plant("scenario_prints_broken_json", "scenario.py", (2,), "not-json", "the JSON is cut off.",
          (("    sys.stdout.write(to_json(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)))",
            "    sys.stdout.write(to_json(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes))[:-3])"),)),
    Plant("scenario_no_cpu_option", "scenario.py", (6,), "option-refused", "scenario.py has no --cpu option.",
          (('    parser.add_argument("--cpu", type=_count(0), default=CPU, help=f"CPU capacity in tokens, 0 = no CPU tier (default {CPU})")\n', ""),
           ("run(args.gpu, args.cpu, args.docs", "run(args.gpu, CPU, args.docs"))),
    Plant("scenario_killed", "scenario.py", (2,), "killed", "the script kills itself.",
          (("    args = parser.parse_args(argv)\n",
            "    args = parser.parse_args(argv)\n    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n"),)),
    Plant("scenario_exits_quietly", "scenario.py", (2,), "protocol", "the script ends its process before it reports.",
          (("    args = parser.parse_args(argv)\n", "    args = parser.parse_args(argv)\n    import os\n    os._exit(0)\n"),)),
    Plant("gpu_cliff_int_keys", "scenario.py", (4,), "sweep-int-keys", "the sweep's keys are numbers, not strings.",
          (("        cliff[str(gpu)] = second", "        cliff[gpu] = second"),)),
    Plant("gpu_cliff_odd_keys", "scenario.py", (4,), "sweep-shape", "the sweep's keys are 21520 tokens and so on.",
          (("        cliff[str(gpu)] = second", '        cliff[f"{gpu} tokens"] = second'),)),
    Plant("gpu_cliff_misses", "scenario.py", (4,), "sweep-hits-not-misses", "gpu_cliff records the misses.",
          (('        cliff[str(gpu)] = second["gpu_hits"] + second["cpu_hits"]', '        cliff[str(gpu)] = second["misses"]'),)),
    Plant("gpu_cliff_first_pass", "scenario.py", (4,), "sweep-first-pass", "gpu_cliff reads the first pass.",
          (('        second = run(gpu=gpu, **scenario)["passes"][1]', '        second = run(gpu=gpu, **scenario)["passes"][0]'),)),
    Plant("gpu_cliff_drops_arguments", "scenario.py", (4,), "sweep-drops-arguments", "gpu_cliff passes only the capacity on.",
          (('        second = run(gpu=gpu, **scenario)["passes"][1]', '        second = run(gpu=gpu)["passes"][1]'),)),
    Plant("gpu_cliff_gpu_hits_only", "scenario.py", (4,), "sweep-gpu-hits-only", "gpu_cliff adds up gpu_hits only.",
          (('        cliff[str(gpu)] = second["gpu_hits"] + second["cpu_hits"]', '        cliff[str(gpu)] = second["gpu_hits"]'),)),
    Plant("cpu_cliff_copied_from_gpu_cliff", "scenario.py", (7,), "cpu-cliff-sweeps-gpu",
          "cpu_cliff is gpu_cliff's loop: it sweeps the GPU capacity and never uses the CPU one.",
          (('run(gpu=gpu, cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}',
            'run(gpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}'),)),
    Plant("cpu_cliff_default_gpu", "scenario.py", (7,), "cpu-cliff-ignores-gpu", "cpu_cliff never passes gpu on.",
          (('run(gpu=gpu, cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}',
            'run(cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}'),)),
    Plant("cpu_cliff_hits", "scenario.py", (7,), "sweep-misses-not-hits", "cpu_cliff records the hits.",
          (('run(gpu=gpu, cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}',
            'sum(run(gpu=gpu, cpu=cpu, **scenario)["passes"][1][k] for k in ("gpu_hits", "cpu_hits")) for cpu in capacities}'),)),
    Plant("cpu_cliff_first_pass", "scenario.py", (7,), "sweep-first-pass", "cpu_cliff reads the first pass.",
          (('run(gpu=gpu, cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}',
            'run(gpu=gpu, cpu=cpu, **scenario)["passes"][0]["misses"] for cpu in capacities}'),)),
    Plant("cpu_cliff_zeros", "scenario.py", (7,), "sweep-zeros", "cpu_cliff never fills in its counts.",
          (('run(gpu=gpu, cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}',
            '0 for cpu in capacities}'),)),
    # More of step 8
    Plant("summarize_median_unsorted", "summarize.py", (8,), "median-unsorted", "the median is taken without sorting.",
          (("(median(values), statistics.mean(values), len(values))",
            "(values[len(values) // 2], statistics.mean(values), len(values))"),)),
    Plant("summarize_ratio_inverted", "summarize.py", (8,), "ratio-inverted", "ratio = lmcache / baseline.",
          (('    summary["ratio"] = {name: {"p50": ratio(base[name][0], lm[name][0]),\n'
            '                               "mean": ratio(base[name][1], lm[name][1])}',
            '    summary["ratio"] = {name: {"p50": ratio(lm[name][0], base[name][0]),\n'
            '                               "mean": ratio(lm[name][1], base[name][1])}'),)),
    Plant("summarize_not_rounded", "summarize.py", (8,), "not-rounded", "p50_ms is not rounded.",
          (('"p50_ms": round(float(p50), 1)', '"p50_ms": float(p50)'),)),
    Plant("summarize_p50_key", "summarize.py", (8,), "summary-shape", 'the key is "p50", not "p50_ms".',
          (('"p50_ms": round(float(p50), 1)', '"p50": round(float(p50), 1)'),)),
    Plant("summarize_n_wrong", "summarize.py", (8,), "n-count", "n counts the distinct values.",
          (("(median(values), statistics.mean(values), len(values))",
            "(median(values), statistics.mean(values), len(set(values)) + 1)"),)),
    Plant("summarize_mean_is_median", "summarize.py", (8,), "wrong-stat", "mean_ms is the median.",
          (("(median(values), statistics.mean(values), len(values))", "(median(values), median(values), len(values))"),)),
    Plant("summarize_prints_summary", "summarize.py", (8,), "no-output-file", "the summary goes to stdout, not the file.",
          (("        write_output(args.output, to_json(summarize(iter_records(args.input))))",
            "        write_output(\"-\", to_json(summarize(iter_records(args.input))))"),)),
    Plant("summarize_missing", "summarize.py", (8,), "missing-file", "summarize.py is not handed in.", ()),
]
# Correct alternatives: each must pass every step it touches (no hint at all).
ALTERNATIVES = [
    Plant("summarize_rounds_before_ratio", "summarize.py", (8,), None,
          "the ratio of the rounded statistics: the lab text allows it too.",
          (('    base, lm = exact["baseline"], exact["lmcache"]',
            '    base = {name: (s["p50_ms"], s["mean_ms"]) for name, s in summary["baseline"].items()}\n'
            '    lm = {name: (s["p50_ms"], s["mean_ms"]) for name, s in summary["lmcache"].items()}'),)),
    Plant("lru_dict_and_list", "kvsim.py", (1, 5), None, "a plain dict and a list instead of an OrderedDict.",
          (("        self._sizes = OrderedDict()  # oldest first, most recent last", "        self._sizes = {}  # oldest first: a dict keeps insertion order"),
           ("            self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO\n",
            "            self._sizes[key] = self._sizes.pop(key)\n"),
           ("            _, evicted = self._sizes.popitem(last=False)",
            "            evicted = self._sizes.pop(next(iter(self._sizes)))"))),
    Plant("scenario_pretty_json", "scenario.py", (2, 3, 6), None, "pretty-printed JSON with its keys in another order.",
          (('    return json.dumps(document) + "\\n"', '    return json.dumps(document, indent=2, sort_keys=True) + "\\n"'),)),
]
BY_NAME = {plant.name: plant for plant in PLANTS + ALTERNATIVES}


DELETED = ""  # a plant without pieces removes its script from the hand-in


def planted_text(plant):
    """The reference script with the plant's bug in it (DELETED for a file left out), or None if a piece
    is no longer in the reference."""
    if not plant.pieces:
        return DELETED
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
    text = planted_text(plant)
    if text == DELETED:
        (folder / plant.script).unlink()
    else:
        (folder / plant.script).write_text(text)
    return folder


class ArtifactPlant(NamedTuple):
    name: str
    step: int
    misconception: str
    change: object       # change(folder): the mistake, made to the reference's artifacts in `folder`


def _write(name, text):
    return lambda folder: (Path(folder) / name).write_text(text)


ARTIFACT_PLANTS = [
    ArtifactPlant("baseline_missing", 3, "missing-artifact", lambda folder: (Path(folder) / "baseline.json").unlink()),
    ArtifactPlant("cliff_of_misses", 4, "sweep-hits-not-misses",
                  _write("cliff.json", '{"21520": 10, "30000": 10, "40000": 10, "45000": 10, "50109": 10, "50110": 0}\n')),
    ArtifactPlant("cyclic_as_python", 2, "python-repr", _write("cyclic.json", "{'passes': []}\n")),
]

# Hints that no bug in the three scripts can give: where they are given instead.
ELSEWHERE = {
    "stale-expectations": "test_check.py: a stale edition (its digests lack the answer)",
    "shadows-stdlib": "test_grade.py: a hand-in with a json.py",
    "not-allowed-import": "test_red_team.py: a hand-in whose kvsim.py imports numpy",
    "ttft-changed": "test_grade.py: a hand-in whose ttft.jsonl was changed",
    "measured-other-file": "test_grade.py: a measured.json of another measured file",
    "mru-evicts-oldest": "test_check.py: the MRU exercise, checked on an LRU cache",
    "mru-reference": "test_check.py: the MRU exercise, with a hit that does not move",
}
