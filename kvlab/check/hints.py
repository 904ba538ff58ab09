"""What each misconception is called, and the hint a student sees when a rule catches it.

Kept in one place so that the wording can be reviewed (and tested: every hint is used) as a whole.
A row's hint starts with one of these and may add what the rule saw, e.g. " (keys(): ['b', 'c', 'a'])".
"""
HINTS = {
    # LRUCache (step 1)
    "return-values": "access(key, size) returns True on a hit and False on a miss (the booleans themselves)",
    "miss-stores": "on a miss, store the entry once there is room: access must add key -> size to the cache",
    "used-on-hit": "a hit stores nothing, so used must not change: add the size only when a new entry is stored",
    "evicts-when-full": "evict only while used + size > capacity: an entry that fills the cache exactly fits "
                        "(>= evicts one entry too many)",
    "used-not-freed": "when you evict an entry, subtract its size from used: otherwise `while used + size > "
                      "capacity` never becomes false and the loop empties the cache, then fails",
    "evicts-newest": "evict the least recently used entry, the OLDEST one: popitem(last=False) "
                     "(a plain popitem() removes the newest)",
    "fifo": "a hit must move the entry to the most recent position: without move_to_end your cache "
            "is FIFO, not LRU",
    "eviction": "on a miss, evict from the oldest entry only while used + size > capacity, then store",
    "used-wrong": "used must stay the sum of the stored sizes: subtract the size of each evicted entry "
                  "(not the size of the new one) and add the size of each stored entry",
    "used-method": "used must be a property (@property def used(self)), so that cache.used is a number, "
                   "not a method",
    "fits-exactly": "an entry exactly as large as the capacity fits (after evicting everything else): "
                    "compare size > capacity, not >=",
    "oversized-stored": "an entry larger than the capacity must not be stored: it can never fit, and "
                        "used would pass the capacity",
    "oversized-evicts": "an entry larger than the capacity must evict nothing (it can never fit): check "
                        "size > capacity first and return False; clearing or evicting loses good entries",
    "in-moves": "`key in cache` must only look: your __contains__ changes the order (or stores the key), "
                "so checking membership changes what gets evicted",
    "keys-order": "keys() must list the stored keys oldest (least recently used) first, as a list",
    "keys-moves": "keys() must only list the keys: calling it changed the order of your cache",
    "capacity-zero": "LRUCache(0) must work: a cache of capacity 0 stores nothing and every access misses",
    "lru-reference": "your cache differs from the lab's LRU rules on a longer run",
    # TwoTierCache (step 5)
    "tier-attributes": "TwoTierCache(gpu_capacity, cpu_capacity) keeps two LRUCache tiers in the attributes "
                       "gpu and cpu, the GPU capacity first",
    "tier-miss-one-tier": "a miss is recomputed and must be kept in both tiers: store it in the GPU and in "
                          "the CPU (call access on both)",
    "tier-returns": 'access(key, size) returns "gpu" for a GPU hit, "cpu" for an entry found only in the CPU, '
                    'and "miss" otherwise: ask each tier with `in` before calling access',
    "tier-touches-cpu": "a GPU hit must not touch the CPU tier: only the GPU copy becomes the most recent "
                        "(do not call cpu.access on a GPU hit)",
    "tier-no-cpu-refresh": "on a CPU hit the CPU copy must become the most recent: call cpu.access(key, size) "
                           "as well as loading it into the GPU",
    "tier-no-gpu-copy": "a CPU hit must be loaded back into the GPU (gpu.access(key, size)), so that the "
                        "next read is a GPU hit",
    "tier-cpu-zero": "TwoTierCache(gpu, 0) must work and behave like the GPU tier alone: LRUCache(0) is a "
                     "valid tier that stores nothing (do not special-case 0 with None)",
    "tier-reference": "your two-tier cache differs from the lab's rules on a longer run",
    # MRUCache (notebook 07's exercise)
    "mru-evicts-oldest": "MRU evicts the MOST recently used entry: take it from the newest end "
                         "(popitem(last=True)), not the oldest",
    "mru-reference": "your MRU cache differs from the MRU rules on a longer run",
    # scenario.py (steps 2, 3, 4, 6, 7)
    "clears-between-passes": "all passes share one cache: create it once, before the loop over the passes, "
                             "and never clear it between passes",
    "hit-docs-order": "hit_docs lists the documents hit in read order (a rev pass lists 9, 8, 7, ...): append "
                      "each one as you read it, and do not sort",
    "text-on-stdout": "stdout must be exactly one JSON document: any other text breaks the grader (print "
                      "explanations with file=sys.stderr, or not at all)",
    "several-json": 'stdout must be one JSON document, {"passes": [...]} with one object per pass, not one '
                    "document per pass",
    "python-repr": "print json.dumps(result), not the Python dict itself: JSON needs double quotes "
                   "(and true/false/null)",
    "no-output": "nothing was printed on stdout: print the result with print(json.dumps(result))",
    "not-json": "stdout (or the file) must be a JSON document",
    "scenario-shape": 'the output must be {"passes": [{"order", "gpu_hits", "cpu_hits", "misses", '
                      '"hit_docs"}, ...]}, one object per pass',
    "option-ignored": "an option seems to be ignored: the output is what its default gives",
    "option-refused": "scenario.py must accept --gpu, --cpu (step 6), --docs, --tokens and --passes",
    "gpu-cpu-swapped": "TwoTierCache takes the GPU capacity first: TwoTierCache(args.gpu, args.cpu)",
    "gpu-cpu-counts": "gpu_hits counts GPU hits and cpu_hits counts loads from the CPU; hit_docs holds both",
    "order-field": 'each pass object\'s "order" is the pass as named in --passes ("fwd" or "rev")',
    "kvsim-missing": "scenario.py imports the cache from kvsim.py: keep kvsim.py next to it",
    "wrong-result": "the result differs from the lab's scenario",
    "sweep-shape": 'a sweep maps each capacity, as a string, to a number: {"21520": 0, "30000": 0, ...}',
    "sweep-hits-not-misses": "cliff.json records the second pass's hits (gpu_hits + cpu_hits), not its misses",
    "sweep-misses-not-hits": "cpu_cliff.json records the second pass's misses, not its hits",
    # summarize.py (step 8)
    "median-even": "for an even count the median is the mean of the two middle values "
                   "(statistics.median), not one of them",
    "median-unsorted": "the median is the middle of the sorted values: sort them first "
                       "(statistics.median does)",
    "rounds-before-ratio": "compute the ratio from the unrounded p50 and mean and round only the ratio: "
                           "rounding the statistics first changes it",
    "ratio-inverted": "ratio = baseline / lmcache (how many times faster lmcache is), not lmcache / baseline",
    "not-rounded": "round ms values to 1 decimal and ratios to 2 decimals (round(x, 1), round(x, 2))",
    "pass-names": "take the pass names exactly as they are in the input (e.g. \"pass1-cold\"): the grader "
                  "also uses other names, so do not rename, shorten or hard-code them",
    "blank-lines": "skip blank lines in the input (if not line.strip(): continue): json.loads fails on them",
    "summary-shape": 'the output must be {"baseline": {PASS: {"n", "p50_ms", "mean_ms"}}, "lmcache": {...}, '
                     '"ratio": {PASS: {"p50", "mean"}}}',
    "n-count": "n is the number of records of that config and pass",
    "wrong-stat": "p50_ms is statistics.median and mean_ms statistics.mean of that config and pass's ttft_ms",
    "ttft-changed": "copy the measured file unchanged: cp /opt/fixtures/kvoffload/ttft.jsonl ttft.jsonl",
    "measured-other-file": "measured.json must summarize this folder's own ttft.jsonl",
    "no-output-file": "summarize.py must write the summary to the file named by its second argument",
    # any code
    "not-written": "not written yet: the stub still raises NotImplementedError",
    "crash": "your code raised an exception here",
    "timeout": "the run did not finish in time: an endless loop?",
    "not-run": "not run: an earlier run of the same code did not finish",
    "output-flood": "the run printed far too much and was stopped (a print inside a loop?)",
    "missing-file": "a file of the hand-in is missing",
    "missing-class": "kvsim.py must define LRUCache (step 1) and TwoTierCache (step 5), with these names",
    "missing-method": "your class lacks a method or attribute the lab's contract names (access, used, keys, "
                      "`in`; gpu and cpu for TwoTierCache): keep every name the stub has",
    "import-failed": "importing the module failed: fix the error it names",
    "shadows-stdlib": "a file of yours has the name of a standard-library module, so your scripts import "
                      "it instead of Python's own: rename it",
    "killed": "the run was killed (too much memory, or too many processes?)",
    "stale-expectations": "this edition's stored expectations do not cover this rule: the lab you have is out of "
                          "date, not your code (ask for a new release of the lab)",
}
