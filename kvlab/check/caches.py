"""Rules for the student's LRUCache (step 1) and TwoTierCache (step 5).

Each rule is a short narrated scenario whose right answer the lab's own caches give; a failure names
the misconception that produces what the student's cache did instead.
"""
import random
from contextlib import contextmanager

from .. import kvsim
from .report import Rule, Wrong, RuleTimeout, run_rules, time_limit


def _keys(cache):
    """list(cache.keys()), called once: each rule looks at the order once, after its accesses."""
    keys = cache.keys()
    if isinstance(keys, str) or not hasattr(keys, "__iter__"):
        raise Wrong("keys-order", f"keys() returned {keys!r}")
    return list(keys)


def _used(cache):
    """cache.used; a method is called, so that only the rule about the property fails for it."""
    used = cache.used
    return used() if callable(used) else used


def _access(cache, key, size, expected):
    """cache.access(key, size), insisting on the True/False the contract promises."""
    result = cache.access(key, size)
    if result is not True and result is not False:
        raise Wrong("return-values", f"access({key!r}, {size}) returned {result!r}")
    if result is not expected:
        raise Wrong("return-values", f"access({key!r}, {size}) should be {'a hit' if expected else 'a miss'}, "
                                     f"returned {result!r}")
    return result


def _check_used(cache, keys, sizes, after):
    """used must be the sum of the sizes of the keys the cache holds, whatever those are."""
    total, used = sum(sizes.get(key, 0) for key in keys), _used(cache)
    if used != total:
        raise Wrong("used-wrong", f"after {after} the cache holds {keys!r}, of total size {total}, "
                                  f"but used is {used!r}")


def _fill(cls, capacity, *keys, size=3):
    cache = cls(capacity)
    for key in keys:
        _access(cache, key, size, False)
    return cache


LRU_RULES = []


def _lru_rule(text, crash_hint):
    def register(probe):
        LRU_RULES.append(Rule(text, crash_hint, probe))
        return probe
    return register


@_lru_rule("a new cache is empty: keys() is [] and used is 0", "keys-order")
def _starts_empty(cls):
    cache = cls(10)
    keys, used = _keys(cache), _used(cache)
    if keys != []:
        raise Wrong("keys-order", f"keys() of a new cache is {keys!r}")
    if used != 0:
        raise Wrong("used-wrong", f"used of a new cache is {used!r}")


@_lru_rule("used is a property holding the total size", "used-method")
def _used_is_property(cls):
    cache = cls(10)
    cache.access("a", 3)
    if callable(cache.used):
        raise Wrong("used-method")
    if cache.used != 3:
        raise Wrong("used-wrong", f"after storing 'a' of size 3, used is {cache.used!r}")


@_lru_rule("a first access misses (False) and stores the entry; a second one hits (True)", "return-values")
def _miss_then_hit(cls):
    cache = cls(10)
    _access(cache, "a", 3, False)
    _access(cache, "a", 3, True)
    keys, used = _keys(cache), _used(cache)
    if keys != ["a"] or used != 3:
        raise Wrong("eviction", f"after a miss and a hit on 'a' (size 3) keys() is {keys!r} and used {used!r}; "
                                "expected ['a'] and 3")


@_lru_rule("when full, a miss evicts the oldest entry: a b c (capacity 9) then d leaves b c d", "eviction")
def _evicts_oldest(cls):
    keys = _keys(_fill(cls, 9, "a", "b", "c", "d"))
    if keys == ["d", "c", "b"]:
        raise Wrong("keys-order", f"keys() is {keys!r}, newest first")
    if keys != ["b", "c", "d"]:
        raise Wrong("eviction", f"keys() is {keys!r}, expected ['b', 'c', 'd']")


@_lru_rule("a hit moves the entry to the most recent position: a b c, hit a, then d evicts b", "fifo")
def _hit_moves(cls):
    cache = _fill(cls, 9, "a", "b", "c")
    _access(cache, "a", 3, True)
    _access(cache, "d", 3, False)
    keys = _keys(cache)
    if keys == ["b", "c", "d"]:
        raise Wrong("fifo", "the hit on 'a' did not save it: d evicted a instead of b")
    if keys != ["c", "a", "d"]:
        raise Wrong("fifo", f"after a b c, a hit on a and a miss on d, keys() is {keys!r}, "
                            "expected ['c', 'a', 'd']")


@_lru_rule("a miss evicts only as many old entries as it needs: a b c (3 each, capacity 10), d of 7 "
           "leaves c d", "eviction")
def _evicts_enough(cls):
    cache = _fill(cls, 10, "a", "b", "c")
    _access(cache, "d", 7, False)
    keys = _keys(cache)
    _check_used(cache, keys, {"a": 3, "b": 3, "c": 3, "d": 7}, "a3 b3 c3 d7")
    if keys == ["d"]:
        raise Wrong("eviction", "it evicted c too: 3 + 7 fits in 10")
    if keys != ["c", "d"]:
        raise Wrong("eviction", f"keys() is {keys!r}, expected ['c', 'd']")


@_lru_rule("used stays the sum of the stored sizes through evictions of different sizes", "used-wrong")
def _used_through_evictions(cls):
    sizes = {"a": 4, "b": 5, "c": 6, "d": 2, "e": 3, "f": 9}
    cache, done = cls(10), []
    for key, size in sizes.items():
        cache.access(key, size)
        done.append(f"{key}{size}")
        _check_used(cache, _keys(cache), sizes, " ".join(done))


@_lru_rule("an entry exactly the capacity fits: a of 3 then b of 10 (capacity 10) leaves b", "fits-exactly")
def _fits_exactly(cls):
    cache = _fill(cls, 10, "a")
    _access(cache, "b", 10, False)
    keys = _keys(cache)
    _check_used(cache, keys, {"a": 3, "b": 10}, "a3 b10")
    if keys != ["b"]:
        raise Wrong("fits-exactly", f"keys() is {keys!r}")


@_lru_rule("an entry larger than the capacity is not stored (access returns False)", "oversized-stored")
def _oversized_not_stored(cls):
    cache = cls(10)
    cache.access("a", 3)
    cache.access("b", 4)
    _access(cache, "big", 11, False)
    if "big" in cache or "big" in _keys(cache):
        raise Wrong("oversized-stored", "after 'big' of size 11 in capacity 10, 'big' is in the cache")


@_lru_rule("an entry larger than the capacity evicts nothing: a b, then big, still holds a b", "oversized-evicts")
def _oversized_evicts_nothing(cls):
    cache = cls(10)
    cache.access("a", 3)
    cache.access("b", 4)
    cache.access("big", 11)
    keys = _keys(cache)
    kept = [key for key in keys if key != "big"]
    if not kept:
        raise Wrong("oversized-evicts", "your cache was emptied when 'big' arrived")
    if kept != ["a", "b"]:
        raise Wrong("oversized-evicts", f"keys() is {keys!r}, expected ['a', 'b']")
    _check_used(cache, keys, {"a": 3, "b": 4, "big": 11}, "a3 b4 big11")


@_lru_rule("`key in cache` only looks: it neither changes the order nor stores the key", "in-moves")
def _in_only_looks(cls):
    cache = _fill(cls, 9, "a", "b", "c")
    if "a" not in cache:
        raise Wrong("in-moves", "'a' in cache is False right after storing 'a'")
    if "z" in cache:
        raise Wrong("in-moves", "'z' in cache is True although 'z' was never stored")
    _access(cache, "d", 3, False)
    keys = _keys(cache)
    if "z" in keys:
        raise Wrong("in-moves", "asking 'z' in cache stored 'z'")
    if keys == ["c", "a", "d"]:
        raise Wrong("in-moves", "after 'a' in cache, d evicted b instead of a")
    if keys != ["b", "c", "d"]:
        raise Wrong("in-moves", f"a b c, then 'a' in cache and a miss on d: keys() is {keys!r}, "
                                "expected ['b', 'c', 'd']")


@_lru_rule("keys() lists the oldest first and does not change the order", "keys-moves")
def _keys_only_lists(cls):
    cache = _fill(cls, 9, "a", "b", "c")
    first = _keys(cache)
    if first == ["c", "b", "a"]:
        raise Wrong("keys-order", "keys() is ['c', 'b', 'a'] after a b c: newest first")
    if first != ["a", "b", "c"]:
        raise Wrong("keys-order", f"keys() is {first!r} after a b c")
    second = _keys(cache)
    if second != first:
        raise Wrong("keys-moves", f"keys() gave {first!r}, then {second!r}")
    _access(cache, "d", 3, False)
    last = _keys(cache)
    if last != ["b", "c", "d"]:
        raise Wrong("keys-moves", f"a b c, keys() twice, then a miss on d: keys() is {last!r}, "
                                  "expected ['b', 'c', 'd']")


@_lru_rule("a cache of capacity 0 works and stores nothing", "capacity-zero")
def _capacity_zero(cls):
    cache = cls(0)
    _access(cache, "a", 1, False)
    keys, used = _keys(cache), _used(cache)
    if keys:
        raise Wrong("oversized-stored", f"LRUCache(0) stored {keys!r}")
    if used != 0:
        raise Wrong("used-wrong", f"used of LRUCache(0) is {used!r}")
    _access(cache, "a", 1, False)


@_lru_rule("matches the lab's LRUCache on 300 random accesses (return values, keys(), used)", "lru-reference")
def _random_trace(cls):
    rng = random.Random(4)
    sizes = {key: rng.randint(1, 6) for key in range(8)}
    sizes[8] = 13  # never fits
    cache, reference, history = cls(12), kvsim.LRUCache(12), []
    for step in range(1, 301):
        key = rng.choice(list(sizes))
        history.append(f"{key}:{sizes[key]}")
        got, want = cache.access(key, sizes[key]), reference.access(key, sizes[key])
        state, expected = (got, _keys(cache), _used(cache)), (want, reference.keys(), reference.used)
        if state != expected:
            raise Wrong("lru-reference", f"capacity 12, accesses key:size {' '.join(history[-8:])} "
                                         f"(#{step} last): expected (returned, keys, used) = {expected}, "
                                         f"got {state}")


def lru_cache(cls, timeout=2.0):
    """Check an LRUCache class (step 1): one row per rule, each failure naming a misconception."""
    return run_rules(_title("LRUCache", cls), LRU_RULES, (cls,), timeout)


# --- TwoTierCache --------------------------------------------------------------------------------

TIER_RULES = []


def _tier_rule(text, crash_hint):
    def register(probe):
        TIER_RULES.append(Rule(text, crash_hint, probe))
        return probe
    return register


def _tier_access(cache, key, size, expected, misconception="tier-returns"):
    result = cache.access(key, size)
    if result != expected:
        raise Wrong(misconception, f"access({key!r}, {size}) returned {result!r}, expected {expected!r}")


def _tiers(cache):
    gpu, cpu = getattr(cache, "gpu", None), getattr(cache, "cpu", None)
    if gpu is None or cpu is None:
        raise Wrong("tier-attributes", "no attribute gpu or cpu")
    return gpu, cpu


@_tier_rule("has the tiers gpu and cpu, two caches, with the GPU capacity first", "tier-attributes")
def _has_tiers(cls):
    gpu, cpu = _tiers(cls(6, 9))
    if gpu is cpu:
        raise Wrong("tier-attributes", "gpu and cpu are the same object")
    for tier in (gpu, cpu):
        if not (hasattr(tier, "access") and hasattr(tier, "keys")):
            raise Wrong("tier-attributes", f"{tier!r} has no access() and keys()")
    capacities = getattr(gpu, "capacity", None), getattr(cpu, "capacity", None)
    if capacities == (9, 6):
        raise Wrong("tier-attributes", "TwoTierCache(6, 9) gave a GPU of capacity 9 and a CPU of 6")


@_tier_rule('a first read is a "miss" and is kept in both tiers', "tier-miss-one-tier")
def _miss_in_both(cls):
    cache = cls(6, 9)
    gpu, cpu = _tiers(cache)
    _tier_access(cache, "a", 3, "miss")
    where = [name for name, tier in (("GPU", gpu), ("CPU", cpu)) if "a" in tier]
    if where != ["GPU", "CPU"]:
        raise Wrong("tier-miss-one-tier", f"after a miss, 'a' is in {' and '.join(where) or 'neither tier'}")


@_tier_rule('a read of an entry in the GPU is a "gpu" hit', "tier-returns")
def _gpu_hit(cls):
    cache = cls(6, 9)
    _tiers(cache)[0].access("a", 3)
    _tier_access(cache, "a", 3, "gpu")


@_tier_rule("a GPU hit does not touch the CPU tier (its order and contents stay as they were)", "tier-touches-cpu")
def _gpu_hit_leaves_cpu(cls):
    cache = cls(9, 6)
    gpu, cpu = _tiers(cache)
    for key in "abc":
        gpu.access(key, 3)
    for key in "cb":
        cpu.access(key, 3)
    before = _keys(cpu)
    _tier_access(cache, "b", 3, "gpu")
    _tier_access(cache, "a", 3, "gpu")
    if _keys(cpu) != before:
        raise Wrong("tier-touches-cpu", f"GPU hits on b and a changed the CPU tier from {before!r} "
                                        f"to {_keys(cpu)!r}")


@_tier_rule('a read of an entry only in the CPU is a "cpu" hit', "tier-returns")
def _cpu_hit(cls):
    cache = cls(6, 12)
    gpu, cpu = _tiers(cache)
    for key in "abcd":
        cpu.access(key, 3)
    gpu.access("d", 3)
    _tier_access(cache, "a", 3, "cpu")


@_tier_rule("a CPU hit is loaded back into the GPU, so the next read is a GPU hit", "tier-no-gpu-copy")
def _cpu_hit_loads_gpu(cls):
    cache = cls(6, 12)
    gpu, cpu = _tiers(cache)
    for key in "abcd":
        cpu.access(key, 3)
    gpu.access("d", 3)
    _tier_access(cache, "a", 3, "cpu")
    if "a" not in gpu:
        raise Wrong("tier-no-gpu-copy", f"after the CPU hit on 'a', the GPU holds {_keys(gpu)!r}")
    _tier_access(cache, "a", 3, "gpu", "tier-no-gpu-copy")


@_tier_rule("a CPU hit makes the CPU copy the most recent", "tier-no-cpu-refresh")
def _cpu_hit_refreshes(cls):
    cache = cls(6, 12)
    gpu, cpu = _tiers(cache)
    for key in "abcd":
        cpu.access(key, 3)
    gpu.access("d", 3)
    _tier_access(cache, "a", 3, "cpu")
    if _keys(cpu) != ["b", "c", "d", "a"]:
        raise Wrong("tier-no-cpu-refresh", f"CPU order a b c d, then a CPU hit on a: the CPU tier is "
                                           f"{_keys(cpu)!r}, expected ['b', 'c', 'd', 'a']")


@_tier_rule("with CPU capacity 0 it works, and reads like the GPU tier alone", "tier-cpu-zero")
def _cpu_zero(cls):
    cache, reference = cls(9, 0), kvsim.TwoTierCache(9, 0)
    for key in "abcadbeaf":
        got, want = cache.access(key, 3), reference.access(key, 3)
        if got != want:
            raise Wrong("tier-cpu-zero", f"reading a b c a d b e a f: access({key!r}) returned {got!r}, "
                                         f"expected {want!r}")


@_tier_rule("matches the lab's TwoTierCache on 300 random reads (return values, both tiers' keys)",
            "tier-reference")
def _tier_random_trace(cls):
    rng = random.Random(5)
    sizes = {key: rng.randint(1, 6) for key in range(10)}
    sizes[10] = 11  # fits only in the CPU
    cache, reference, history = cls(10, 20), kvsim.TwoTierCache(10, 20), []
    gpu, cpu = _tiers(cache)
    for step in range(1, 301):
        key = rng.choice(list(sizes))
        history.append(f"{key}:{sizes[key]}")
        got = (cache.access(key, sizes[key]), _keys(gpu), _keys(cpu))
        want = (reference.access(key, sizes[key]), reference.gpu.keys(), reference.cpu.keys())
        if got != want:
            raise Wrong("tier-reference", f"GPU 10, CPU 20, reads key:size {' '.join(history[-8:])} "
                                          f"(#{step} last): expected (returned, GPU keys, CPU keys) = "
                                          f"{want}, got {got}")


@contextmanager
def _tiers_built_from(cls, lru_cls, timeout):
    """While checking, make the names the class builds its tiers from refer to `lru_cls`."""
    namespace = getattr(getattr(cls, "__init__", None), "__globals__", None)
    try:
        with time_limit(timeout):
            own = type(cls(1, 1).gpu)
    except (Exception, RuleTimeout):  # noqa: BLE001 (a broken constructor is reported by the rules)
        own = None
    if not isinstance(own, type) or own.__module__ == "builtins" or own is lru_cls:
        own = None
    names = [name for name, value in (namespace or {}).items() if own is not None and value is own]
    for name in names:
        namespace[name] = lru_cls
    try:
        yield bool(names)
    finally:
        for name in names:
            namespace[name] = own


def two_tier_cache(cls, lru_cls=None, timeout=2.0):
    """Check a TwoTierCache class (step 5): one row per rule, each failure naming a misconception.

    While checking, its tiers are built from `lru_cls` (default: the lab's LRUCache), so that only the
    two-tier logic is judged here; check your LRUCache with check.lru_cache.
    """
    lru_cls = lru_cls or kvsim.LRUCache
    with _tiers_built_from(cls, lru_cls, timeout) as swapped:
        source = "the lab's LRUCache" if lru_cls is kvsim.LRUCache else _name(lru_cls)
        title = _title("TwoTierCache", cls) + (f", its tiers built from {source}" if swapped else "")
        return run_rules(title, TIER_RULES, (cls,), timeout)


def _name(cls):
    return getattr(cls, "__qualname__", None) or repr(cls)


def _title(what, cls):
    return what if _name(cls) == what else f"{what} ({_name(cls)})"
