"""The policies of kvlab/policies.py: each told as a story, then checked against a brute-force model.

The models keep plain lists (or, for ARC, a line-by-line transcription of vLLM's manager with blocks
of size 1) and recompute everything from scratch; OPT is checked against an exhaustive search over
every choice of eviction.
"""
import functools
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlab import curve, workloads
from kvlab.kvsim import LRUCache, TwoTierCache
from kvlab.policies import ARCCache, BeladyCache, FIFOCache, LFUCache, MRUCache

FAST = settings(max_examples=100, deadline=None)
SIMULATED = ("fifo", "lfu", "mru", "arc", "opt")


@st.composite
def traces(draw, max_size=12, max_length=30):
    """Accesses of few keys (so re-reads are common), each key with one size."""
    sizes = draw(st.dictionaries(st.sampled_from("abcdef"), st.integers(0, max_size), min_size=1))
    return [(key, sizes[key]) for key in draw(st.lists(st.sampled_from(sorted(sizes)), max_size=max_length))]


def read(cache, trace):
    return [cache.access(key, size) for key, size in trace]


# The rules every policy shares with LRUCache (step 1).

@FAST
@given(st.sampled_from(SIMULATED), traces(), st.integers(0, 20))
def test_every_policy_keeps_the_rules_of_an_lru_cache(policy, trace, capacity):
    cache = curve.policy_cache(policy, capacity, trace)
    sizes = dict(trace)
    for key, size in trace:
        before = cache.keys()
        assert cache.access(key, size) is (key in before)  # a hit is exactly a stored key
        if size > capacity:
            assert cache.keys() == before  # an entry that can never fit is not stored and evicts nothing
        else:
            assert key in cache
            assert set(cache.keys()) <= set(before) | {key}  # nothing else comes in
        assert sorted(cache.keys()) == sorted(set(cache.keys()))
        assert cache.used == sum(sizes[stored] for stored in cache.keys()) <= capacity
        assert len(cache) == len(cache.keys())


@pytest.mark.parametrize("make", [FIFOCache, LFUCache, MRUCache, ARCCache, lambda c: BeladyCache(c, [])])
def test_a_negative_capacity_or_size_is_refused(make):
    with pytest.raises(ValueError, match="capacity < 0"):
        make(-1)
    with pytest.raises(ValueError, match="size < 0"):
        make(10).access("a", -1)


@pytest.mark.parametrize("make", [FIFOCache, LFUCache, MRUCache, ARCCache])
def test_in_only_peeks(make):
    cache = make(10)
    for key in "abc":
        cache.access(key, 3)
    cache.access("a", 3)
    keys = cache.keys()
    assert "a" in cache and "z" not in cache
    assert cache.keys() == keys
    assert repr(cache).startswith(f"{type(cache).__name__}(capacity=10, used=9")


# Each policy, told as a story.

def test_fifo_a_hit_does_not_save_an_entry():
    cache = FIFOCache(10)
    read(cache, [("a", 4), ("b", 4)])
    assert cache.access("a", 4) is True
    cache.access("c", 4)  # evicts "a", the first stored, although it was just read (LRU would evict "b")
    assert cache.keys() == ["b", "c"]


def test_mru_evicts_the_entry_read_last():
    cache = MRUCache(9)
    read(cache, [("a", 3), ("b", 3), ("c", 3)])
    assert cache.access("a", 3) is True  # "a" is now the most recent: b c a
    assert cache.access("d", 3) is False  # evicts "a"
    assert cache.keys() == ["b", "c", "d"]
    assert cache.access("e", 6) is False  # evicts "d", then "c", the most recent ones, until 6 fit
    assert (cache.keys(), cache.used) == (["b", "e"], 9)


def test_lfu_evicts_the_fewest_reads_and_among_equals_the_least_recently_used():
    cache = LFUCache(9)
    read(cache, [("a", 3), ("b", 3), ("c", 3), ("a", 3), ("c", 3), ("b", 3)])  # a, c, b: 2 reads each
    cache.access("a", 3)                 # a: 3 reads
    assert cache.keys() == ["c", "b", "a"]  # eviction order: c reached 2 reads before b did
    cache.access("d", 3)                 # evicts c
    assert cache.keys() == ["d", "b", "a"]  # d: 1 read
    cache.access("e", 3)                 # evicts d: a new entry is the first to go
    assert cache.keys() == ["e", "b", "a"]


def test_lfu_forgets_the_count_of_an_evicted_entry():
    cache = LFUCache(2)
    read(cache, [("a", 1), ("a", 1), ("a", 1), ("b", 1), ("c", 1)])  # c evicts b; a keeps its 3 reads
    assert cache.keys() == ["c", "a"]
    read(cache, [("b", 1), ("c", 1)])  # b comes back with 1 read and evicts c; c comes back and evicts b
    assert cache.keys() == ["c", "a"]


def test_arc_moves_a_second_read_to_t2_and_learns_from_ghosts():
    cache = ARCCache(2)
    read(cache, [("a", 1), ("b", 1), ("b", 1)])  # b read twice: T2
    assert (list(cache._t1), list(cache._t2)) == (["a"], ["b"])
    cache.access("c", 1)  # T1 (1 entry) >= target 0: evicts T1's a, remembered in B1
    assert (cache.keys(), list(cache._b1), cache._target) == (["c", "b"], ["a"], 0)
    cache.access("a", 1)  # a B1 ghost: T1 was too small, its target grows to 1; T1 (c) is at it: c goes
    assert (cache.keys(), list(cache._b1), cache._target) == (["a", "b"], ["c"], 1)
    cache.access("d", 1)  # T1 (a) is at its target 1: T1 gives its least recently used again
    assert cache.keys() == ["d", "b"]


def test_arc_counts_sizes_against_its_target():
    cache = ARCCache(10)
    read(cache, [("a", 4), ("a", 4), ("b", 4), ("c", 2)])  # T1: b c (6), T2: a (4)
    cache.access("d", 5)  # T1 (6) is over its target 0: b goes; 6 + 5 is still over 10, so c goes too
    assert cache.keys() == ["d", "a"]
    cache.access("b", 4)  # a B1 ghost of size 4: target 0 -> 4 (step max(1, 0 // 2) = 1, times 4)
    assert cache._target == 4


def test_opt_evicts_the_entry_read_again_farthest_in_the_future():
    trace = [("a", 1), ("b", 1), ("c", 1), ("a", 1), ("b", 1), ("d", 1), ("a", 1)]
    cache = BeladyCache(2, trace)
    assert read(cache, trace[:2]) == [False, False]
    cache.access("c", 1)  # a is next read at 3, b at 4: b goes (it comes back at 4 and then misses)
    assert cache.keys() == ["a", "c"]
    # b comes back and evicts c (never read again); d evicts b (never read again either).
    assert read(cache, trace[3:]) == [True, False, False, True]
    with pytest.raises(ValueError, match=r"len\(trace\) == 7, 'a'"):
        cache.access("a", 1)


def test_opt_must_read_its_trace_in_order():
    cache = BeladyCache(2, [("a", 1), ("b", 1)])
    with pytest.raises(ValueError, match=r"trace\[0\] == 'a' != 'b'"):
        cache.access("b", 1)


def test_opt_with_unequal_sizes_is_only_a_heuristic():
    # "c" needs 4 of 6 with a (1) and d (3) stored. Farthest next read first: a goes, which frees too
    # little, so d goes too, and both miss. Evicting d alone would have kept a for the last read.
    trace = [("a", 1), ("d", 3), ("c", 4), ("d", 3), ("a", 1)]
    assert read(BeladyCache(6, trace), trace).count(True) == 0
    assert most_hits(trace, 6) == 1


# Against brute-force models.

class ListCache:
    """A list of [key, size, reads, last read], with a `victim(entries)` rule; used recomputed each time."""

    def __init__(self, capacity, victim):
        self.capacity, self.victim, self.entries, self.clock = capacity, victim, [], 0

    def access(self, key, size):
        self.clock += 1
        for entry in self.entries:
            if entry[0] == key:
                entry[2], entry[3] = entry[2] + 1, self.clock
                return True
        if size <= self.capacity:
            while sum(entry[1] for entry in self.entries) + size > self.capacity:
                self.entries.remove(self.victim(self.entries))
            self.entries.append([key, size, 1, self.clock])
        return False


MODELS = {  # policy -> (whom it evicts, the order keys() lists)
    FIFOCache: (lambda entries: entries[0], lambda entry: 0),  # the list is the order of arrival
    MRUCache: (lambda entries: max(entries, key=lambda e: e[3]), lambda entry: entry[3]),
    LFUCache: (lambda entries: min(entries, key=lambda e: (e[2], e[3])), lambda entry: (entry[2], entry[3])),
}


@FAST
@given(st.sampled_from(sorted(MODELS, key=str)), traces(), st.integers(0, 20))
def test_fifo_mru_and_lfu_match_a_list_model(cls, trace, capacity):
    victim, order = MODELS[cls]
    cache, model = cls(capacity), ListCache(capacity, victim)
    for key, size in trace:
        assert cache.access(key, size) is model.access(key, size)
        assert cache.keys() == [entry[0] for entry in sorted(model.entries, key=order)]


class VllmARC:
    """vLLM's ARCOffloadingManager (vllm/v1/kv_offload/arc_manager.py) for one block per read.

    lookup, touch, then prepare_store for a block that missed; every block is ready and unused.
    """

    def __init__(self, capacity):
        self.capacity, self.target = capacity, 0
        self.t1, self.t2, self.b1, self.b2 = OrderedDict(), OrderedDict(), OrderedDict(), OrderedDict()

    def access(self, key, size):
        hit = key in self.t1 or key in self.t2
        if key in self.t1:
            self.t2[key] = self.t1.pop(key)
        elif key in self.t2:
            self.t2.move_to_end(key)
        elif key in self.b1:
            delta = max(1, len(self.b2) // len(self.b1)) if len(self.b1) > 0 else 1
            self.target = min(self.target + delta, self.capacity)
        elif key in self.b2:
            delta = max(1, len(self.b1) // len(self.b2)) if len(self.b2) > 0 else 1
            self.target = max(self.target - delta, 0)
        if hit:
            return True
        to_evict = len(self.t1) + len(self.t2) + 1 - self.capacity
        while to_evict > 0:
            if len(self.t1) >= self.target and self.t1:
                evicted, ghosts = self.t1.popitem(last=False)[0], self.b1
            else:
                evicted, ghosts = self.t2.popitem(last=False)[0], self.b2
            ghosts[evicted] = None
            to_evict -= 1
        for ghosts in (self.b1, self.b2):
            for _ in range(len(ghosts) - self.capacity):
                ghosts.popitem(last=False)
        self.t1[key] = None
        self.b1.pop(key, None)
        self.b2.pop(key, None)
        return False


@FAST
@given(st.lists(st.sampled_from("abcdefgh"), max_size=60), st.integers(1, 6))
def test_arc_with_blocks_of_size_1_is_vllms_arc(keys, capacity):
    cache, model = ARCCache(capacity), VllmARC(capacity)
    for key in keys:
        assert cache.access(key, 1) is model.access(key, 1)
        assert (list(cache._t1), list(cache._t2)) == (list(model.t1), list(model.t2))
        assert (list(cache._b1), list(cache._b2), cache._target) == (list(model.b1), list(model.b2), model.target)


def most_hits(trace, capacity):
    """The most hits of any cache that stores every entry it misses (if it fits), over every eviction choice."""
    sizes = dict(trace)

    def evictions(stored, size):  # every way to evict, one entry at a time, until `size` fits
        if sum(sizes[key] for key in stored) + size <= capacity:
            yield stored
            return
        for victim in stored:
            yield from evictions(stored - {victim}, size)

    @functools.lru_cache(maxsize=None)
    def best(position, stored):
        if position == len(trace):
            return 0
        key, size = trace[position]
        if key in stored:
            return 1 + best(position + 1, stored)
        if size > capacity:
            return best(position + 1, stored)
        return max(best(position + 1, kept | {key}) for kept in evictions(stored, size))

    return best(0, frozenset())


@FAST
@given(st.lists(st.sampled_from("abcde"), max_size=12), st.integers(1, 3), st.integers(1, 3))
def test_opt_with_equal_sizes_gets_the_most_hits_possible(keys, capacity, size):
    trace = [(key, size) for key in keys]
    assert read(BeladyCache(capacity * size, trace), trace).count(True) == most_hits(trace, capacity * size)


# Two tiers.

class Tiered(TwoTierCache):
    """TwoTierCache's rules (step 5) over two given tiers: it only asks `key in tier` and tier.access()."""

    def __init__(self, gpu, cpu):  # no super().__init__(): it would build two LRUCaches
        self.gpu, self.cpu = gpu, cpu


@FAST
@given(st.sampled_from(SIMULATED[:-1]), traces(), st.integers(0, 20), st.integers(0, 20))
def test_the_cpu_tier_reads_only_the_gpu_misses(policy, trace, gpu, cpu):
    tiered = Tiered(curve.policy_cache(policy, gpu, trace), curve.policy_cache(policy, cpu, trace))
    outcomes = read(tiered, trace)
    assert curve.policy_hits(trace, policy, [cpu], gpu=gpu) == {cpu: len(trace) - outcomes.count("miss")}


def test_on_the_lab_workload_only_mru_and_opt_hit_in_the_second_pass():
    # GPU 21,520 holds 4 of the 10 documents. LRU, FIFO, LFU and ARC each evict a document just before
    # the second pass needs it; MRU and OPT keep the first ones read, which the second pass reads first.
    trace = workloads.cyclic(10, 5011, ("fwd", "fwd"))
    second = {policy: curve.sweep(trace, lambda c: curve.policy_cache(policy, c, trace), [21520], 10)[21520]
              for policy in SIMULATED}
    assert second == {"fifo": 0, "lfu": 0, "mru": 4, "arc": 0, "opt": 4}
    assert curve.sweep(trace, LRUCache, [21520], 10) == {21520: 0}
