"""Rules for the student's LRUCache (step 1), TwoTierCache (step 5) and MRUCache (notebook 07).

Each rule is a short narrated scenario, simplest first; its judge names the misconception that would
make a cache answer what the student's did. The facts in the rules are the lab's contract (LAB.md):
"a b c in capacity 9, then d, leaves b c d". The long random runs compare with the oracle's answers.
"""
import random

from .judging import Rule, Script
from .report import Wrong

LRU, TIERS, MRU = "LRUCache", "TwoTierCache", "MRUCache"
PUBLIC_SEED = 4        # the random runs a student's check makes (the grader draws its own)
RANDOM_ACCESSES = 300  # long enough to meet every case, short enough to read the last few steps


def _keys(value, what="keys()"):
    """keys() as a list, or Wrong if it is not one."""
    if not isinstance(value, list):
        raise Wrong("keys-order", f"{what} returned {value!r}, not a list")
    return value


def _returned(value, expected, what):
    if value is not expected:
        kind = "a hit" if expected else "a miss"
        raise Wrong("return-values", f"{what} should be {kind} and return {expected}, returned {value!r}")


def _used_matches(keys, used, sizes, after):
    """used must be the sum of the sizes of the keys the cache holds, whatever those are."""
    total = sum(sizes.get(key, 0) for key in keys if not isinstance(key, (list, dict)))  # unhashable: never stored
    if used != total:
        raise Wrong("used-wrong", f"after {after} the cache holds {keys!r}, of total size {total}, "
                                  f"but used is {used!r}")


def _order(keys, expected, what, misconception="eviction"):
    """keys() must be `expected`: newest-first or reordered lists name keys-order, others `misconception`."""
    if keys == expected:
        return
    if keys == expected[::-1] and len(keys) > 1:
        raise Wrong("keys-order", f"{what}: keys() is {keys!r}, newest first")
    if sorted(map(repr, keys)) == sorted(map(repr, expected)):
        raise Wrong("keys-order", f"{what}: keys() is {keys!r}, expected {expected!r}")
    raise Wrong(misconception, f"{what}: keys() is {keys!r}, expected {expected!r}")


def _evicting(raised):
    """An access that had to evict raised: an empty container popped means used never went down."""
    return "used-not-freed" if raised.type in ("KeyError", "IndexError", "StopIteration") else "eviction"


def _random_accesses(rng, keys, sizes, count=RANDOM_ACCESSES):
    return [[key, sizes[key]] for key in (rng.choice(keys) for _ in range(count))]


# --- LRUCache (step 1) ----------------------------------------------------------------------------

def _lru_starts_empty(cls):
    s = Script(cls, 10)
    keys, used = s.keys(), s.used()

    def starts_empty(t, oracle):
        if _keys(t[keys], "keys() of a new cache") != []:
            raise Wrong("keys-order", f"keys() of a new cache is {t[keys]!r}")
        if t[used] != 0:
            raise Wrong("used-wrong", f"used of a new cache is {t[used]!r}")
    return Rule("a new cache is empty: keys() is [] and used is 0", s.ops, starts_empty, "keys-order")


def _lru_used_is_property(cls):
    s = Script(cls, 10)
    s.access("a", 3)
    used = s.used()

    def used_is_property(t, oracle):
        if t.is_method(used):
            raise Wrong("used-method")
        if t[used] != 3:
            raise Wrong("used-wrong", f"after storing 'a' of size 3, used is {t[used]!r}")
    return Rule("used is a property holding the total size", s.ops, used_is_property,
                lambda raised: "used-method" if raised.op[0] == "used" else "crash")  # access raising is no used bug


def _lru_miss_then_hit(cls):
    s = Script(cls, 10)
    first, keys1, used1 = s.access("a", 3), s.keys(), s.used()
    second, keys2, used2 = s.access("a", 3), s.keys(), s.used()

    def miss_then_hit(t, oracle):
        _returned(t[first], False, "the first access('a', 3)")
        if _keys(t[keys1]) != ["a"]:
            raise Wrong("miss-stores", f"after a miss on 'a' keys() is {t[keys1]!r}")
        if t[used1] != 3:
            raise Wrong("used-wrong", f"after a miss on 'a' of size 3, used is {t[used1]!r}")
        _returned(t[second], True, "the second access('a', 3)")
        if t[used2] != 3:
            raise Wrong("used-on-hit", f"after a miss and a hit on 'a' (size 3), used is {t[used2]!r}")
        _order(_keys(t[keys2]), ["a"], "a miss and a hit on 'a'", "miss-stores")
    return Rule("a first access misses (False) and stores the entry; a second one hits (True) "
                "and changes nothing", s.ops, miss_then_hit, "return-values")


def _lru_fills_exactly(cls):
    s = Script(cls, 9)
    accesses = [s.access(key, 3) for key in "abc"]
    keys, used = s.keys(), s.used()

    def fills_exactly(t, oracle):
        for index, key in zip(accesses, "abc"):
            _returned(t[index], False, f"access({key!r}, 3)")
        _used_matches(_keys(t[keys]), t[used], dict.fromkeys("abc", 3), "a b c of 3 each")
        if t[keys] == ["b", "c"]:
            raise Wrong("evicts-when-full", "a b c of 3 each in capacity 9: 'a' was evicted although "
                                            "3 + 3 + 3 = 9 fits")
        _order(t[keys], ["a", "b", "c"], "a b c of 3 each in capacity 9")
    return Rule("a cache can be filled exactly: a b c of 3 each (capacity 9) are all kept",
                s.ops, fills_exactly, "eviction")


def _lru_evicts_oldest(cls):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    evict = s.access("d", 3)
    keys, used = s.keys(), s.used()

    def evicts_oldest(t, oracle):
        _returned(t[evict], False, "access('d', 3)")
        _used_matches(_keys(t[keys]), t[used], dict.fromkeys("abcd", 3), "a b c d of 3 each")
        if t[keys] == ["a", "b", "d"]:
            raise Wrong("evicts-newest", "a b c (capacity 9), then d evicted c, the newest")
        _order(t[keys], ["b", "c", "d"], "a b c (capacity 9), then d")
    return Rule("when full, a miss evicts the oldest entry: a b c (capacity 9) then d leaves b c d",
                s.ops, evicts_oldest, _evicting)


def _lru_hit_moves(cls):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    hit = s.access("a", 3)
    s.access("d", 3)
    keys = s.keys()

    def hit_moves(t, oracle):
        _returned(t[hit], True, "access('a', 3) after a b c")
        if t[keys] == ["b", "c", "d"]:
            raise Wrong("fifo", "the hit on 'a' did not save it: d evicted a instead of b")
        _order(_keys(t[keys]), ["c", "a", "d"], "a b c, a hit on a, then d", "fifo")
    return Rule("a hit moves the entry to the most recent position: a b c, hit a, then d evicts b",
                s.ops, hit_moves, _evicting)


def _lru_evicts_enough(cls):
    s = Script(cls, 10)
    for key in "abc":
        s.access(key, 3)
    s.access("d", 7)
    keys, used = s.keys(), s.used()

    def evicts_enough(t, oracle):
        _used_matches(_keys(t[keys]), t[used], {"a": 3, "b": 3, "c": 3, "d": 7}, "a3 b3 c3 d7")
        if t[keys] == ["d"]:
            raise Wrong("eviction", "it evicted c too: 3 + 7 fits in 10")
        _order(t[keys], ["c", "d"], "a b c of 3 (capacity 10), then d of 7")
    return Rule("a miss evicts only as many old entries as it needs: a b c (3 each, capacity 10), "
                "d of 7 leaves c d", s.ops, evicts_enough, _evicting)


def _lru_used_through_evictions(cls):
    sizes = {"a": 4, "b": 5, "c": 6, "d": 2, "e": 3, "f": 9}
    s = Script(cls, 10)
    states = [(s.access(key, size), s.keys(), s.used()) for key, size in sizes.items()]

    def used_through_evictions(t, oracle):
        done = []
        for (_, keys, used), (key, size) in zip(states, sizes.items()):
            done.append(f"{key}{size}")
            _used_matches(_keys(t[keys]), t[used], sizes, " ".join(done))
    return Rule("used stays the sum of the stored sizes through evictions of different sizes",
                s.ops, used_through_evictions, _evicting)


def _lru_fits_exactly(cls):
    s = Script(cls, 10)
    s.access("a", 3)
    fit = s.access("b", 10)
    keys, used = s.keys(), s.used()

    def fits_exactly(t, oracle):
        _returned(t[fit], False, "access('b', 10)")
        _used_matches(_keys(t[keys]), t[used], {"a": 3, "b": 10}, "a3 b10")
        if t[keys] == ["a"]:
            raise Wrong("fits-exactly", "b of 10 in capacity 10 was not stored")
        _order(t[keys], ["b"], "a of 3, then b of 10 (capacity 10)", "fits-exactly")
    return Rule("an entry exactly the capacity fits: a of 3 then b of 10 (capacity 10) leaves b",
                s.ops, fits_exactly, "fits-exactly")


def _lru_oversized_not_stored(cls):
    s = Script(cls, 10)
    s.access("a", 3)
    s.access("b", 4)
    big = s.access("big", 11)
    inside, keys = s.has("big"), s.keys()

    def oversized_not_stored(t, oracle):
        _returned(t[big], False, "access('big', 11) in capacity 10")
        if t[inside] or "big" in _keys(t[keys]):
            raise Wrong("oversized-stored", "after 'big' of size 11 in capacity 10, 'big' is in the cache")
    return Rule("an entry larger than the capacity is not stored (access returns False)",
                s.ops, oversized_not_stored, "oversized-stored")


def _lru_oversized_evicts_nothing(cls):
    s = Script(cls, 10)
    s.access("a", 3)
    s.access("b", 4)
    s.access("big", 11)
    keys, used = s.keys(), s.used()

    def oversized_evicts_nothing(t, oracle):
        kept = [key for key in _keys(t[keys]) if key != "big"]
        if not kept:
            raise Wrong("oversized-evicts", "your cache was emptied when 'big' arrived")
        if kept != ["a", "b"]:
            raise Wrong("oversized-evicts", f"keys() is {t[keys]!r}, expected ['a', 'b']")
        _used_matches(t[keys], t[used], {"a": 3, "b": 4, "big": 11}, "a3 b4 big11")
    return Rule("an entry larger than the capacity evicts nothing: a b, then big, still holds a b",
                s.ops, oversized_evicts_nothing, "oversized-evicts")


def _lru_in_only_looks(cls):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    has_a, has_z = s.has("a"), s.has("z")
    s.access("d", 3)
    keys = s.keys()

    def in_only_looks(t, oracle):
        if t[has_a] is not True:
            raise Wrong("in-moves", f"'a' in cache is {t[has_a]!r} right after storing 'a'")
        if t[has_z] is not False:
            raise Wrong("in-moves", f"'z' in cache is {t[has_z]!r} although 'z' was never stored")
        if "z" in _keys(t[keys]):
            raise Wrong("in-moves", "asking 'z' in cache stored 'z'")
        if t[keys] == ["c", "a", "d"]:
            raise Wrong("in-moves", "after 'a' in cache, d evicted b instead of a")
        _order(t[keys], ["b", "c", "d"], "a b c, then 'a' in cache and a miss on d", "in-moves")
    return Rule("`key in cache` only looks: it neither changes the order nor stores the key",
                s.ops, in_only_looks, "in-moves")


def _lru_keys_only_lists(cls):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    first, again = s.keys(), s.keys()
    s.access("d", 3)
    last = s.keys()

    def keys_only_lists(t, oracle):
        _order(_keys(t[first]), ["a", "b", "c"], "a b c", "keys-order")
        if t[again] != t[first]:
            raise Wrong("keys-moves", f"keys() gave {t[first]!r}, then {t[again]!r}")
        if t[last] != ["b", "c", "d"]:
            raise Wrong("keys-moves", f"a b c, keys() twice, then a miss on d: keys() is {t[last]!r}, "
                                      "expected ['b', 'c', 'd']")
    return Rule("keys() lists the oldest first and does not change the order", s.ops, keys_only_lists,
                "keys-moves")


def _lru_capacity_zero(cls):
    s = Script(cls, 0)
    first, keys, used, again = s.access("a", 1), s.keys(), s.used(), s.access("a", 1)

    def capacity_zero(t, oracle):
        _returned(t[first], False, "access('a', 1) in LRUCache(0)")
        if _keys(t[keys]):
            raise Wrong("oversized-stored", f"LRUCache(0) stored {t[keys]!r}")
        if t[used] != 0:
            raise Wrong("used-wrong", f"used of LRUCache(0) is {t[used]!r}")
        _returned(t[again], False, "a second access('a', 1) in LRUCache(0)")
    return Rule("a cache of capacity 0 works and stores nothing", s.ops, capacity_zero, "capacity-zero")


LRU_RULES = [  # simplest first
    _lru_starts_empty,
    _lru_used_is_property,
    _lru_miss_then_hit,
    _lru_fills_exactly,
    _lru_evicts_oldest,
    _lru_hit_moves,
    _lru_evicts_enough,
    _lru_used_through_evictions,
    _lru_fits_exactly,
    _lru_oversized_not_stored,
    _lru_oversized_evicts_nothing,
    _lru_in_only_looks,
    _lru_keys_only_lists,
    _lru_capacity_zero,
]


def lru_rules(seed=PUBLIC_SEED, cls=LRU):
    """The rules of step 1, simplest first; `seed` draws the long random run."""
    return [build(cls) for build in LRU_RULES] + [random_run(seed, cls, "lru", "lru-reference")]


def random_run(seed, cls, question, misconception, capacity=12):
    """A long random run compared, access by access, with the oracle: returned value, keys(), used."""
    rng = random.Random(seed)
    sizes = {key: rng.randint(1, 6) for key in range(8)}
    sizes[8] = capacity + 1  # never fits
    accesses = _random_accesses(rng, list(sizes), sizes)
    s = Script(cls, capacity)
    states = [(s.access(key, size), s.keys(), s.used()) for key, size in accesses]

    def judge(t, oracle):
        expected = getattr(oracle, question)(capacity, accesses)
        for step, ((access, keys, used), want) in enumerate(zip(states, expected), 1):
            got = [t[access], t[keys], t[used]]
            if got != want:
                history = " ".join(f"{key}:{size}" for key, size in accesses[max(0, step - 8):step])
                raise Wrong(misconception, f"capacity {capacity}, accesses key:size {history} (#{step} last): "
                                           f"expected (returned, keys, used) = {tuple(want)}, got {tuple(got)}")
    return Rule(f"matches the rules on {len(accesses)} random accesses (seed {seed}: return values, keys(), used)",
                s.ops, judge, _evicting)


# --- TwoTierCache (step 5) ------------------------------------------------------------------------

def _tier_has_tiers(cls):
    s = Script(cls, 6, 9)
    gpu, cpu = s.attr("gpu"), s.attr("cpu")

    def has_tiers(t, oracle):
        if t[gpu] == t[cpu] and isinstance(t[gpu], dict):
            raise Wrong("tier-attributes", "gpu and cpu are the same object")
        for name, value in (("gpu", t[gpu]), ("cpu", t[cpu])):
            if not isinstance(value, dict) or "$type" not in value:
                raise Wrong("tier-attributes", f"cache.{name} is {value!r}, not a cache")
    return Rule("has the tiers gpu and cpu, two separate caches", s.ops, has_tiers,
                lambda raised: "tier-attributes" if raised.type == "AttributeError" else "crash")


def _tier_miss_in_both(cls):
    s = Script(cls, 6, 9)
    read, in_gpu, in_cpu = s.access("a", 3), s.has("a", "gpu"), s.has("a", "cpu")

    def miss_in_both(t, oracle):
        if t[read] != "miss":
            raise Wrong("tier-returns", f"a first access('a', 3) returned {t[read]!r}, expected 'miss'")
        where = [name for name, index in (("GPU", in_gpu), ("CPU", in_cpu)) if t[index]]
        if where != ["GPU", "CPU"]:
            raise Wrong("tier-miss-one-tier", f"after a miss, 'a' is in {' and '.join(where) or 'neither tier'}")
    return Rule('a first read is a "miss" and is kept in both tiers', s.ops, miss_in_both,
                "tier-miss-one-tier")


def _tier_capacities(cls):
    s = Script(cls, 6, 9)
    for key in "abc":
        s.access(key, 3)
    gpu_keys, cpu_keys = s.keys("gpu"), s.keys("cpu")

    def capacities(t, oracle):
        got = (_keys(t[gpu_keys], "gpu.keys()"), _keys(t[cpu_keys], "cpu.keys()"))
        if got == (["a", "b", "c"], ["b", "c"]):
            raise Wrong("tier-attributes", "TwoTierCache(6, 9) holds three documents of 3 in the GPU and two "
                                           "in the CPU: the capacities are swapped")
        if got != (["b", "c"], ["a", "b", "c"]):
            raise Wrong("tier-miss-one-tier", f"TwoTierCache(6, 9), misses on a b c of 3: GPU {got[0]!r}, "
                                              f"CPU {got[1]!r}; expected ['b', 'c'] and ['a', 'b', 'c']")
    return Rule("the GPU capacity comes first: TwoTierCache(6, 9) after a b c of 3 holds b c in the GPU, "
                "a b c in the CPU", s.ops, capacities, "tier-attributes")


def _tier_gpu_hit(cls):
    s = Script(cls, 6, 9)
    s.access("a", 3, "gpu")
    read = s.access("a", 3)

    def gpu_hit(t, oracle):
        if t[read] != "gpu":
            raise Wrong("tier-returns", f"'a' is in the GPU: access('a', 3) returned {t[read]!r}, expected 'gpu'")
    return Rule('a read of an entry in the GPU is a "gpu" hit', s.ops, gpu_hit, "tier-returns")


def _tier_gpu_hit_leaves_cpu(cls):
    s = Script(cls, 9, 6)
    for key in "abc":
        s.access(key, 3, "gpu")
    for key in "cb":
        s.access(key, 3, "cpu")
    before = s.keys("cpu")
    reads = [s.access("b", 3), s.access("a", 3)]
    after = s.keys("cpu")

    def gpu_hit_leaves_cpu(t, oracle):
        for index, key in zip(reads, "ba"):
            if t[index] != "gpu":
                raise Wrong("tier-returns", f"{key!r} is in the GPU: access returned {t[index]!r}, expected 'gpu'")
        if t[after] != t[before]:
            raise Wrong("tier-touches-cpu", f"GPU hits on b and a changed the CPU tier from {t[before]!r} "
                                            f"to {t[after]!r}")
    return Rule("a GPU hit does not touch the CPU tier (its order and contents stay as they were)",
                s.ops, gpu_hit_leaves_cpu, "tier-touches-cpu")


def _cpu_hit_script(cls):
    """a b c d in the CPU tier (capacity 12), d also in the GPU (capacity 6), then a read of a: a CPU hit."""
    s = Script(cls, 6, 12)
    for key in "abcd":
        s.access(key, 3, "cpu")
    s.access("d", 3, "gpu")
    return s, s.access("a", 3)


def _judge_cpu_hit(t, read):
    if t[read] != "cpu":
        raise Wrong("tier-returns", f"'a' is only in the CPU: access('a', 3) returned {t[read]!r}, expected 'cpu'")


def _tier_cpu_hit(cls):
    s, read = _cpu_hit_script(cls)

    def cpu_hit(t, oracle):
        _judge_cpu_hit(t, read)
    return Rule('a read of an entry only in the CPU is a "cpu" hit', s.ops, cpu_hit, "tier-returns")


def _tier_cpu_hit_loads_gpu(cls):
    s, read = _cpu_hit_script(cls)
    in_gpu, again = s.has("a", "gpu"), s.access("a", 3)

    def cpu_hit_loads_gpu(t, oracle):
        _judge_cpu_hit(t, read)
        if not t[in_gpu]:
            raise Wrong("tier-no-gpu-copy", "after the CPU hit on 'a', 'a' is not in the GPU")
        if t[again] != "gpu":
            raise Wrong("tier-no-gpu-copy", f"the next access('a', 3) returned {t[again]!r}, expected 'gpu'")
    return Rule("a CPU hit is loaded back into the GPU, so the next read is a GPU hit", s.ops,
                cpu_hit_loads_gpu, "tier-no-gpu-copy")


def _tier_cpu_hit_refreshes(cls):
    s, read = _cpu_hit_script(cls)
    cpu_keys = s.keys("cpu")

    def cpu_hit_refreshes(t, oracle):
        _judge_cpu_hit(t, read)
        if t[cpu_keys] != ["b", "c", "d", "a"]:
            raise Wrong("tier-no-cpu-refresh", f"CPU order a b c d, then a CPU hit on a: the CPU tier is "
                                               f"{t[cpu_keys]!r}, expected ['b', 'c', 'd', 'a']")
    return Rule("a CPU hit makes the CPU copy the most recent", s.ops, cpu_hit_refreshes,
                "tier-no-cpu-refresh")


def _tier_cpu_zero(cls):
    reads = [[key, 3] for key in "abcadbeaf"]
    s = Script(cls, 9, 0)
    results = [s.access(key, size) for key, size in reads]

    def cpu_zero(t, oracle):
        expected = [answer[0] for answer in oracle.tiers(9, 0, reads)]
        for step, (index, want) in enumerate(zip(results, expected)):
            if t[index] != want:
                raise Wrong("tier-cpu-zero", f"reading a b c a d b e a f: access({reads[step][0]!r}) returned "
                                             f"{t[index]!r}, expected {want!r}")
    return Rule("with CPU capacity 0 it works, and reads like the GPU tier alone", s.ops, cpu_zero,
                "tier-cpu-zero")


def random_tiers(seed, cls=TIERS):
    """A long random run of reads compared with the oracle: returned tier, both tiers' keys."""
    rng = random.Random(seed)
    sizes = {key: rng.randint(1, 6) for key in range(10)}
    sizes[10] = 11  # fits only in the CPU
    accesses = _random_accesses(rng, list(sizes), sizes)
    s = Script(cls, 10, 20)
    states = [(s.access(key, size), s.keys("gpu"), s.keys("cpu")) for key, size in accesses]

    def random_tiers(t, oracle):
        for step, ((access, gpu_keys, cpu_keys), want) in enumerate(zip(states, oracle.tiers(10, 20, accesses)), 1):
            got = [t[access], t[gpu_keys], t[cpu_keys]]
            if got != want:
                history = " ".join(f"{key}:{size}" for key, size in accesses[max(0, step - 8):step])
                raise Wrong("tier-reference", f"GPU 10, CPU 20, reads key:size {history} (#{step} last): expected "
                                              f"(returned, GPU keys, CPU keys) = {tuple(want)}, got {tuple(got)}")
    return Rule(f"matches the rules on {len(accesses)} random reads (seed {seed}: return values, both "
                "tiers' keys)", s.ops, random_tiers, "crash")


TIER_RULES = [  # simplest first
    _tier_has_tiers,
    _tier_miss_in_both,
    _tier_capacities,
    _tier_gpu_hit,
    _tier_gpu_hit_leaves_cpu,
    _tier_cpu_hit,
    _tier_cpu_hit_loads_gpu,
    _tier_cpu_hit_refreshes,
    _tier_cpu_zero,
]


def tier_rules(seed=PUBLIC_SEED + 1, cls=TIERS):
    """The rules of step 5, simplest first. The tiers are built from the student's own LRUCache."""
    return [build(cls) for build in TIER_RULES] + [random_tiers(seed, cls)]


# --- MRUCache (notebook 07's exercise) ------------------------------------------------------------

def _mru_miss_hit(cls):
    s = Script(cls, 9)
    misses = [s.access(key, 3) for key in "abc"]
    hit = s.access("a", 3)
    keys = s.keys()

    def miss_hit(t, oracle):
        for index, key in zip(misses, "abc"):
            _returned(t[index], False, f"access({key!r}, 3)")
        _returned(t[hit], True, "access('a', 3) after a b c")
        _order(_keys(t[keys]), ["b", "c", "a"], "a b c, then a hit on a", "mru-reference")
    return Rule("misses store, a hit returns True and makes the entry the most recent", s.ops, miss_hit,
                "mru-reference")


def _mru_evicts_newest(cls):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    s.access("d", 3)
    keys = s.keys()

    def evicts_newest(t, oracle):
        if t[keys] == ["b", "c", "d"]:
            raise Wrong("mru-evicts-oldest", "a b c (capacity 9), then d evicted a, the oldest")
        _order(_keys(t[keys]), ["a", "b", "d"], "a b c (capacity 9), then d", "mru-evicts-oldest")
    return Rule("when full, a miss evicts the most recent entry: a b c (capacity 9) then d leaves a b d",
                s.ops, evicts_newest, _evicting)


def _mru_oversized(cls):
    s = Script(cls, 10)
    s.access("a", 3)
    big, keys = s.access("big", 11), s.keys()

    def oversized(t, oracle):
        _returned(t[big], False, "access('big', 11) in capacity 10")
        if _keys(t[keys]) != ["a"]:
            raise Wrong("oversized-evicts", f"after 'big' of 11 in capacity 10, keys() is {t[keys]!r}")
    return Rule("an entry larger than the capacity is neither stored nor evicts anything", s.ops, oversized,
                "oversized-evicts")


MRU_RULES = [  # simplest first
    _mru_miss_hit,
    _mru_evicts_newest,
    _mru_oversized,
]


def mru_rules(seed=PUBLIC_SEED + 2, cls=MRU):
    """The rules of the policy exercise: MRU evicts the most recently used entry."""
    rules = [build(cls) for build in MRU_RULES]
    rules.append(random_run(seed, cls, "mru", "mru-reference"))
    return rules
