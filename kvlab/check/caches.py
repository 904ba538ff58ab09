"""Rules for the student's LRUCache (step 1), TwoTierCache (step 5) and MRUCache (notebook 07).

Each rule is a short narrated scenario, simplest first; its judge names the misconception that would
make a cache answer what the student's did, and shows what the student's cache did beside the rule's
small example. The long random runs are matched, access by access, with the oracle's answer.
Builders are keyed by rule id (kvlab/steps.py); each takes the class name and the rule's random generator.
"""
from ..i18n import Msg
from .judging import Raised, Rule, Script, Stopped
from .report import Wrong, shown

LRU, TIERS, MRU = "LRUCache", "TwoTierCache", "MRUCache"
RANDOM_ACCESSES = 200  # long enough to meet every case, short enough to read the last few steps


def _keys(value, what="keys()"):
    """keys() as a list, or Wrong if it is not one."""
    if not isinstance(value, list):
        raise Wrong("keys-order", Msg("seen.not-a-list", what=what, value=shown(value)))
    return value


def _returned(value, expected, what):
    if value is not expected:
        raise Wrong("return-values", Msg("seen.returned" if expected else "seen.returned-miss", what=what,
                                         value=shown(value)))


def _used_matches(keys, used, sizes, after):
    """used must be the sum of the sizes of the keys the cache holds, whatever those are."""
    total = sum(sizes.get(key, 0) for key in keys if not isinstance(key, (list, dict)))  # unhashable: never stored
    if used != total:
        raise Wrong("used-wrong", Msg("seen.used", after=after, keys=shown(keys), total=total, used=shown(used)))


def _order(keys, expected, what, misconception="eviction"):
    """keys() must be `expected` (the rule's small example): otherwise name the likeliest mistake."""
    if keys == expected:
        return
    if keys == expected[::-1] and len(keys) > 1:
        raise Wrong("keys-order", Msg("seen.keys-newest-first", what=what, keys=shown(keys)))
    if sorted(map(repr, keys)) == sorted(map(repr, expected)):
        raise Wrong("keys-order", Msg("seen.keys", what=what, keys=shown(keys), expected=shown(expected)))
    raise Wrong(misconception, Msg("seen.keys", what=what, keys=shown(keys), expected=shown(expected)))


def _evicting(raised):
    """An access that had to evict raised: an empty container popped means used never went down."""
    return "used-not-freed" if raised.type in ("KeyError", "IndexError", "StopIteration") else "eviction"


def _random_accesses(rng, keys, sizes, count=RANDOM_ACCESSES):
    return [[key, sizes[key]] for key in (rng.choice(keys) for _ in range(count))]


def rule(rule_id, s, judge, crash="crash", **params):
    return Rule(rule_id, Msg(f"rule.{rule_id}", **params), s.ops, judge, crash)


# --- LRUCache (step 1) ----------------------------------------------------------------------------

def lru_starts_empty(cls, rng):
    s = Script(cls, 10)
    keys, used = s.keys(), s.used()

    def judge(t, oracle):
        if _keys(t[keys], "keys()") != []:
            raise Wrong("keys-order", Msg("seen.new-cache-keys", keys=shown(t[keys])))
        if t[used] != 0:
            raise Wrong("used-wrong", Msg("seen.new-cache-used", used=shown(t[used])))
    return rule("lru.starts-empty", s, judge, "keys-order")


def lru_used_is_property(cls, rng):
    s = Script(cls, 10)
    s.access("a", 3)
    used = s.used()

    def judge(t, oracle):
        if t.is_method(used):
            raise Wrong("used-method")
        if t[used] != 3:
            raise Wrong("used-wrong", Msg("seen.used-after-a", used=shown(t[used])))
    return rule("lru.used-is-property", s, judge,
                lambda raised: "used-method" if raised.op[0] == "used" else "crash")


def lru_miss_then_hit(cls, rng):
    s = Script(cls, 10)
    first, keys1, used1 = s.access("a", 3), s.keys(), s.used()
    second, keys2, used2 = s.access("a", 3), s.keys(), s.used()

    def judge(t, oracle):
        _returned(t[first], False, "access('a', 3) #1")
        if _keys(t[keys1]) != ["a"]:
            raise Wrong("miss-stores", Msg("seen.keys-after-miss", keys=shown(t[keys1])))
        if t[used1] != 3:
            raise Wrong("used-wrong", Msg("seen.used-after-a", used=shown(t[used1])))
        _returned(t[second], True, "access('a', 3) #2")
        if t[used2] != 3:
            raise Wrong("used-on-hit", Msg("seen.used-after-hit", used=shown(t[used2])))
        _order(_keys(t[keys2]), ["a"], "a, a", "miss-stores")
    return rule("lru.miss-then-hit", s, judge, "return-values")


def lru_counts(cls, rng):
    s = Script(cls, 10)
    s.access("a", 3), s.access("a", 3), s.access("b", 3)
    hits, misses = s.attr("hits"), s.attr("misses")

    def judge(t, oracle):
        if (t[hits], t[misses]) != (1, 2):
            raise Wrong("counts", Msg("seen.counts", hits=shown(t[hits]), misses=shown(t[misses])))
    return rule("lru.counts", s, judge, lambda raised: "counts" if raised.type == "AttributeError" else "crash")


def lru_fills_exactly(cls, rng):
    s = Script(cls, 9)
    accesses = [s.access(key, 3) for key in "abc"]
    keys, used = s.keys(), s.used()

    def judge(t, oracle):
        for index, key in zip(accesses, "abc"):
            _returned(t[index], False, f"access({key!r}, 3)")
        _used_matches(_keys(t[keys]), t[used], dict.fromkeys("abc", 3), "a b c")
        if t[keys] == ["b", "c"]:
            raise Wrong("evicts-when-full", Msg("seen.evicted-a-full"))
        _order(t[keys], ["a", "b", "c"], "a b c")
    return rule("lru.fills-exactly", s, judge, "eviction")


def lru_evicts_oldest(cls, rng):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    evict = s.access("d", 3)
    keys, used = s.keys(), s.used()

    def judge(t, oracle):
        _returned(t[evict], False, "access('d', 3)")
        _used_matches(_keys(t[keys]), t[used], dict.fromkeys("abcd", 3), "a b c d")
        if t[keys] == ["a", "b", "d"]:
            raise Wrong("evicts-newest", Msg("seen.evicted-newest"))
        _order(t[keys], ["b", "c", "d"], "a b c d")
    return rule("lru.evicts-oldest", s, judge, _evicting)


def lru_hit_moves(cls, rng):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    hit = s.access("a", 3)
    s.access("d", 3)
    keys = s.keys()

    def judge(t, oracle):
        _returned(t[hit], True, "access('a', 3)")
        if t[keys] == ["b", "c", "d"]:
            raise Wrong("fifo", Msg("seen.hit-not-saved"))
        _order(_keys(t[keys]), ["c", "a", "d"], "a b c a d", "fifo")
    return rule("lru.hit-moves", s, judge, _evicting)


def lru_evicts_enough(cls, rng):
    s = Script(cls, 10)
    for key in "abc":
        s.access(key, 3)
    s.access("d", 7)
    keys, used = s.keys(), s.used()

    def judge(t, oracle):
        _used_matches(_keys(t[keys]), t[used], {"a": 3, "b": 3, "c": 3, "d": 7}, "a3 b3 c3 d7")
        if t[keys] == ["d"]:
            raise Wrong("eviction", Msg("seen.evicted-too-many"))
        _order(t[keys], ["c", "d"], "a3 b3 c3 d7")
    return rule("lru.evicts-enough", s, judge, _evicting)


def lru_used_through_evictions(cls, rng):
    sizes = {"a": 4, "b": 5, "c": 6, "d": 2, "e": 3, "f": 9}
    s = Script(cls, 10)
    states = [(s.access(key, size), s.keys(), s.used()) for key, size in sizes.items()]

    def judge(t, oracle):
        done = []
        for (_, keys, used), (key, size) in zip(states, sizes.items()):
            done.append(f"{key}{size}")
            _used_matches(_keys(t[keys]), t[used], sizes, " ".join(done))
    return rule("lru.used-through-evictions", s, judge, _evicting)


def lru_fits_exactly(cls, rng):
    s = Script(cls, 10)
    s.access("a", 3)
    fit = s.access("b", 10)
    keys, used = s.keys(), s.used()

    def judge(t, oracle):
        _returned(t[fit], False, "access('b', 10)")
        _used_matches(_keys(t[keys]), t[used], {"a": 3, "b": 10}, "a3 b10")
        if t[keys] == ["a"]:
            raise Wrong("fits-exactly", Msg("seen.not-stored", key="b"))
        _order(t[keys], ["b"], "a3 b10", "fits-exactly")
    return rule("lru.fits-exactly", s, judge, "fits-exactly")


def lru_oversized_not_stored(cls, rng):
    s = Script(cls, 10)
    s.access("a", 3)
    s.access("b", 4)
    big = s.access("big", 11)
    inside, keys = s.has("big"), s.keys()

    def judge(t, oracle):
        _returned(t[big], False, "access('big', 11)")
        if t[inside] or "big" in _keys(t[keys]):
            raise Wrong("oversized-stored", Msg("seen.keys", what="a3 b4 big11", keys=shown(t[keys]),
                                                expected=shown(["a", "b"])))
    return rule("lru.oversized-not-stored", s, judge, "oversized-stored")


def lru_oversized_evicts_nothing(cls, rng):
    s = Script(cls, 10)
    s.access("a", 3)
    s.access("b", 4)
    s.access("big", 11)
    keys, used = s.keys(), s.used()

    def judge(t, oracle):
        kept = [key for key in _keys(t[keys]) if key != "big"]
        if kept != ["a", "b"]:
            raise Wrong("oversized-evicts", Msg("seen.keys", what="a3 b4 big11", keys=shown(t[keys]),
                                                expected=shown(["a", "b"])))
        _used_matches(t[keys], t[used], {"a": 3, "b": 4, "big": 11}, "a3 b4 big11")
    return rule("lru.oversized-evicts-nothing", s, judge,
                lambda raised: "oversized-evicts" if raised.type in ("KeyError", "IndexError", "StopIteration")
                else "crash")


def lru_in_only_looks(cls, rng):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    has_a, has_z = s.has("a"), s.has("z")
    s.access("d", 3)
    keys = s.keys()

    def judge(t, oracle):
        if t[has_a] is not True or t[has_z] is not False:
            raise Wrong("in-moves", Msg("seen.in", a=shown(t[has_a]), z=shown(t[has_z])))
        if "z" in _keys(t[keys]):
            raise Wrong("in-moves", Msg("seen.in-stored"))
        _order(t[keys], ["b", "c", "d"], "a b c, 'a' in cache, d", "in-moves")
    return rule("lru.in-only-looks", s, judge, "in-moves")


def lru_keys_only_lists(cls, rng):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    first, again = s.keys(), s.keys()
    s.access("d", 3)
    last = s.keys()

    def judge(t, oracle):
        _order(_keys(t[first]), ["a", "b", "c"], "a b c", "keys-order")
        if t[again] != t[first] or t[last] != ["b", "c", "d"]:
            raise Wrong("keys-moves", Msg("seen.keys-twice", first=shown(t[first]), again=shown(t[again]),
                                          last=shown(t[last])))
    return rule("lru.keys-only-lists", s, judge, "keys-moves")


def lru_capacity_zero(cls, rng):
    s = Script(cls, 0)
    first, keys, used, again = s.access("a", 1), s.keys(), s.used(), s.access("a", 1)

    def judge(t, oracle):
        _returned(t[first], False, "LRUCache(0).access('a', 1)")
        if _keys(t[keys]) or t[used] != 0:
            raise Wrong("capacity-zero", Msg("seen.capacity-zero", keys=shown(t[keys]), used=shown(t[used])))
        _returned(t[again], False, "LRUCache(0).access('a', 1) #2")
    return rule("lru.capacity-zero", s, judge, "capacity-zero")


def _first_unmatched(answer, states, t, accesses):
    """(step, what it gave there, the accesses up to it) of the first step of a long random run that the
    answer does not match there; None if all do. A state holds the indexes of a step's results in `t`.

    The whole run is matched first, as one value: when it matches, every step does (a list's canonical
    text is its items'), and one match costs much less than hundreds. Otherwise the steps are read and
    matched in order, so a run that raises at a step fails there, as it did step by step."""
    try:
        whole = [[t[index] for index in state] for state in states]
    except (Raised, Stopped):
        whole = None
    if whole is not None and answer.matches(whole):
        return None
    for step, state in enumerate(states):
        got = [t[index] for index in state]
        if not answer.matches(got, (step,)):
            return step, got, " ".join(f"{key}:{size}" for key, size in accesses[max(0, step - 7):step + 1])
    return None


def random_run(rule_id, rng, cls, question, misconception, capacity=12):
    """A long random run matched, access by access, with the oracle: returned value, keys(), used."""
    sizes = {key: rng.randint(1, 6) for key in range(8)}
    sizes[8] = capacity + 1  # never fits
    accesses = _random_accesses(rng, list(sizes), sizes)
    s = Script(cls, capacity)
    states = [(s.access(key, size), s.keys(), s.used()) for key, size in accesses]

    def judge(t, oracle):
        answer = oracle.ask(question, capacity, accesses)
        wrong = _first_unmatched(answer, states, t, accesses)
        if wrong is not None:
            step, got, history = wrong
            raise Wrong(misconception, Msg("seen.random-run", capacity=capacity, history=history, step=step + 1,
                                           got=shown(tuple(got), 200)))
    return rule(rule_id, s, judge, _evicting, accesses=len(accesses))


def lru_random(cls, rng):
    return random_run("lru.random", rng, cls, "lru", "lru-reference")


def lru_hidden_random(cls, rng):
    return random_run("lru.hidden-random", rng, cls, "lru", "lru-reference")


# --- TwoTierCache (step 5) ------------------------------------------------------------------------

def tier_has_tiers(cls, rng):
    s = Script(cls, 6, 9)
    gpu, cpu = s.attr("gpu"), s.attr("cpu")

    def judge(t, oracle):
        if t[gpu] == t[cpu] and isinstance(t[gpu], dict):
            raise Wrong("tier-attributes", Msg("seen.same-tier"))
        for name, value in (("gpu", t[gpu]), ("cpu", t[cpu])):
            if not isinstance(value, dict) or "$type" not in value:
                raise Wrong("tier-attributes", Msg("seen.not-a-tier", name=name, value=shown(value)))
    return rule("tier.has-tiers", s, judge, lambda raised: "tier-attributes" if raised.type == "AttributeError"
                else "crash")


def tier_miss_in_both(cls, rng):
    s = Script(cls, 6, 9)
    read, in_gpu, in_cpu = s.access("a", 3), s.has("a", "gpu"), s.has("a", "cpu")

    def judge(t, oracle):
        if t[read] != "miss":
            raise Wrong("tier-returns", Msg("seen.tier-returned", what="access('a', 3)", value=shown(t[read])))
        if not (t[in_gpu] and t[in_cpu]):
            raise Wrong("tier-miss-one-tier", Msg("seen.tier-after-miss", gpu=shown(t[in_gpu]), cpu=shown(t[in_cpu])))
    return rule("tier.miss-in-both", s, judge, "tier-miss-one-tier")


def tier_capacities(cls, rng):
    s = Script(cls, 6, 9)
    for key in "abc":
        s.access(key, 3)
    gpu_keys, cpu_keys = s.keys("gpu"), s.keys("cpu")

    def judge(t, oracle):
        got = (_keys(t[gpu_keys], "gpu.keys()"), _keys(t[cpu_keys], "cpu.keys()"))
        seen = Msg("seen.tiers", gpu=shown(got[0]), cpu=shown(got[1]))
        if got == (["a", "b", "c"], ["b", "c"]):
            raise Wrong("tier-capacities-swapped", seen)
        if got != (["b", "c"], ["a", "b", "c"]):
            raise Wrong("tier-miss-one-tier", seen)
    return rule("tier.capacities", s, judge, "tier-attributes")


def tier_gpu_hit(cls, rng):
    s = Script(cls, 6, 9)
    s.access("a", 3, "gpu")
    read = s.access("a", 3)

    def judge(t, oracle):
        if t[read] != "gpu":
            raise Wrong("tier-returns", Msg("seen.tier-returned", what="access('a', 3)", value=shown(t[read])))
    return rule("tier.gpu-hit", s, judge, "tier-returns")


def tier_gpu_hit_leaves_cpu(cls, rng):
    s = Script(cls, 9, 6)
    for key in "abc":
        s.access(key, 3, "gpu")
    for key in "cb":
        s.access(key, 3, "cpu")
    before = s.keys("cpu")
    reads = [s.access("b", 3), s.access("a", 3)]
    after = s.keys("cpu")

    def judge(t, oracle):
        for index, key in zip(reads, "ba"):
            if t[index] != "gpu":
                raise Wrong("tier-returns", Msg("seen.tier-returned", what=f"access({key!r}, 3)", value=shown(t[index])))
        if t[after] != t[before]:
            raise Wrong("tier-touches-cpu", Msg("seen.cpu-changed", before=shown(t[before]), after=shown(t[after])))
    return rule("tier.gpu-hit-leaves-cpu", s, judge, "tier-touches-cpu")


def _cpu_hit_script(cls):
    """a b c d in the CPU tier (capacity 12), d also in the GPU (capacity 6), then a read of a: a CPU hit."""
    s = Script(cls, 6, 12)
    for key in "abcd":
        s.access(key, 3, "cpu")
    s.access("d", 3, "gpu")
    return s, s.access("a", 3)


def _judge_cpu_hit(t, read):
    if t[read] != "cpu":
        raise Wrong("tier-returns", Msg("seen.tier-returned", what="access('a', 3)", value=shown(t[read])))


def tier_cpu_hit(cls, rng):
    s, read = _cpu_hit_script(cls)
    return rule("tier.cpu-hit", s, lambda t, oracle: _judge_cpu_hit(t, read), "tier-returns")


def tier_cpu_hit_loads_gpu(cls, rng):
    s, read = _cpu_hit_script(cls)
    in_gpu, again = s.has("a", "gpu"), s.access("a", 3)

    def judge(t, oracle):
        _judge_cpu_hit(t, read)
        if not t[in_gpu] or t[again] != "gpu":
            raise Wrong("tier-no-gpu-copy", Msg("seen.tier-returned", what="access('a', 3) #2", value=shown(t[again])))
    return rule("tier.cpu-hit-loads-gpu", s, judge, "tier-no-gpu-copy")


def tier_cpu_hit_refreshes(cls, rng):
    s, read = _cpu_hit_script(cls)
    cpu_keys = s.keys("cpu")

    def judge(t, oracle):
        _judge_cpu_hit(t, read)
        if t[cpu_keys] != ["b", "c", "d", "a"]:
            raise Wrong("tier-no-cpu-refresh", Msg("seen.keys", what="cpu: a b c d, access('a', 3)",
                                                   keys=shown(t[cpu_keys]), expected=shown(["b", "c", "d", "a"])))
    return rule("tier.cpu-hit-refreshes", s, judge, "tier-no-cpu-refresh")


def tier_cpu_zero(cls, rng):
    reads = [[key, 3] for key in "abcadbeaf"]
    s = Script(cls, 9, 0)
    results = [s.access(key, size) for key, size in reads]

    def judge(t, oracle):
        answer = oracle.ask("tiers", 9, 0, reads)
        for step, index in enumerate(results):
            if not answer.matches(t[index], (step, 0)):
                raise Wrong("tier-cpu-zero", Msg("seen.tier-returned", what=f"#{step + 1} access({reads[step][0]!r}, 3)",
                                                 value=shown(t[index])))
    return rule("tier.cpu-zero", s, judge, lambda raised: "tier-cpu-zero" if raised.type in
                ("AttributeError", "TypeError") else "crash")


def random_tiers(rule_id, rng, cls=TIERS):
    """A long random run of reads matched with the oracle: returned tier, both tiers' keys."""
    sizes = {key: rng.randint(1, 6) for key in range(10)}
    sizes[10] = 11  # fits only in the CPU
    accesses = _random_accesses(rng, list(sizes), sizes)
    s = Script(cls, 10, 20)
    states = [(s.access(key, size), s.keys("gpu"), s.keys("cpu")) for key, size in accesses]

    def judge(t, oracle):
        answer = oracle.ask("tiers", 10, 20, accesses)
        wrong = _first_unmatched(answer, states, t, accesses)
        if wrong is not None:
            step, got, history = wrong
            raise Wrong("tier-reference", Msg("seen.random-tiers", history=history, step=step + 1,
                                              got=shown(tuple(got), 200)))
    return rule(rule_id, s, judge, "crash", accesses=len(accesses))


def tier_random(cls, rng):
    return random_tiers("tier.random", rng, cls)


def tier_hidden_random(cls, rng):
    return random_tiers("tier.hidden-random", rng, cls)


# --- MRUCache (notebook 07's exercise) ------------------------------------------------------------

def mru_miss_hit(cls, rng):
    s = Script(cls, 9)
    misses = [s.access(key, 3) for key in "abc"]
    hit = s.access("a", 3)
    keys = s.keys()

    def judge(t, oracle):
        for index, key in zip(misses, "abc"):
            _returned(t[index], False, f"access({key!r}, 3)")
        _returned(t[hit], True, "access('a', 3)")
        _order(_keys(t[keys]), ["b", "c", "a"], "a b c a", "mru-reference")
    return rule("mru.miss-hit", s, judge, "mru-reference")


def mru_evicts_newest(cls, rng):
    s = Script(cls, 9)
    for key in "abc":
        s.access(key, 3)
    s.access("d", 3)
    keys = s.keys()

    def judge(t, oracle):
        if t[keys] == ["b", "c", "d"]:
            raise Wrong("mru-evicts-oldest", Msg("seen.evicted-oldest"))
        _order(_keys(t[keys]), ["a", "b", "d"], "a b c d", "mru-evicts-oldest")
    return rule("mru.evicts-newest", s, judge, _evicting)


def mru_oversized(cls, rng):
    s = Script(cls, 10)
    s.access("a", 3)
    big, keys = s.access("big", 11), s.keys()

    def judge(t, oracle):
        _returned(t[big], False, "access('big', 11)")
        if _keys(t[keys]) != ["a"]:
            raise Wrong("oversized-evicts", Msg("seen.keys", what="a3 big11", keys=shown(t[keys]), expected=shown(["a"])))
    return rule("mru.oversized", s, judge, "oversized-evicts")


def mru_random(cls, rng):
    return random_run("mru.random", rng, cls, "mru", "mru-reference")


BUILDERS = {
    "lru.starts-empty": lru_starts_empty, "lru.used-is-property": lru_used_is_property,
    "lru.miss-then-hit": lru_miss_then_hit, "lru.counts": lru_counts, "lru.fills-exactly": lru_fills_exactly,
    "lru.evicts-oldest": lru_evicts_oldest, "lru.hit-moves": lru_hit_moves, "lru.evicts-enough": lru_evicts_enough,
    "lru.used-through-evictions": lru_used_through_evictions, "lru.fits-exactly": lru_fits_exactly,
    "lru.oversized-not-stored": lru_oversized_not_stored, "lru.oversized-evicts-nothing": lru_oversized_evicts_nothing,
    "lru.in-only-looks": lru_in_only_looks, "lru.keys-only-lists": lru_keys_only_lists,
    "lru.capacity-zero": lru_capacity_zero, "lru.random": lru_random, "lru.hidden-random": lru_hidden_random,
    "tier.has-tiers": tier_has_tiers, "tier.miss-in-both": tier_miss_in_both, "tier.capacities": tier_capacities,
    "tier.gpu-hit": tier_gpu_hit, "tier.gpu-hit-leaves-cpu": tier_gpu_hit_leaves_cpu, "tier.cpu-hit": tier_cpu_hit,
    "tier.cpu-hit-loads-gpu": tier_cpu_hit_loads_gpu, "tier.cpu-hit-refreshes": tier_cpu_hit_refreshes,
    "tier.cpu-zero": tier_cpu_zero, "tier.random": tier_random, "tier.hidden-random": tier_hidden_random,
    "mru.miss-hit": mru_miss_hit, "mru.evicts-newest": mru_evicts_newest, "mru.oversized": mru_oversized,
    "mru.random": mru_random,
}
CLASS_OF = {1: LRU, 5: TIERS, "07": MRU}
