"""Random operations on the caches, checked step by step against a brute-force model.

The model is a plain list of (key, size) pairs, oldest first, whose used size is recomputed
from scratch every time: slow and obviously right, which is what an oracle should be.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from kvlab.kvsim import LRUCache, TwoTierCache

KEYS = st.sampled_from("abcdefg")   # few keys, so that hits and re-reads are common
SIZES = st.integers(0, 25)          # zero, small, and larger than most capacities
CAPACITIES = st.integers(0, 20)
FAST = settings(max_examples=100, stateful_step_count=30, deadline=None)


class ListLRU:
    """The LRU rules of step 1 on a list of (key, size) pairs, oldest first."""

    def __init__(self, capacity):
        self.capacity, self.entries = capacity, []

    def keys(self):
        return [key for key, _ in self.entries]

    def used(self):
        return sum(size for _, size in self.entries)

    def access(self, key, size):
        for index, (stored, stored_size) in enumerate(self.entries):
            if stored == key:
                self.entries.append(self.entries.pop(index))
                return True
        if size <= self.capacity:
            while self.used() + size > self.capacity:
                self.entries.pop(0)
            self.entries.append((key, size))
        return False


class ListTwoTier:
    """The three rules of step 5 on two ListLRUs."""

    def __init__(self, gpu_capacity, cpu_capacity):
        self.gpu, self.cpu = ListLRU(gpu_capacity), ListLRU(cpu_capacity)

    def access(self, key, size):
        if key in self.gpu.keys():
            self.gpu.access(key, size)
            return "gpu"
        if key in self.cpu.keys():
            self.cpu.access(key, size)
            self.gpu.access(key, size)
            return "cpu"
        self.gpu.access(key, size)
        self.cpu.access(key, size)
        return "miss"


def assert_same_tier(cache, model):
    assert cache.keys() == model.keys()
    assert cache.used == model.used()
    assert len(cache) == len(model.keys())
    assert cache.used <= cache.capacity


class LRUMachine(RuleBasedStateMachine):
    @initialize(capacity=CAPACITIES)
    def create(self, capacity):
        self.cache, self.model = LRUCache(capacity), ListLRU(capacity)
        self.hits = self.misses = 0

    @rule(key=KEYS, size=SIZES)
    def access(self, key, size):
        hit = self.model.access(key, size)
        assert self.cache.access(key, size) is hit
        self.hits, self.misses = self.hits + hit, self.misses + (not hit)

    @rule(key=KEYS)
    def peek(self, key):
        assert (key in self.cache) == (key in self.model.keys())

    @rule(key=KEYS, size=st.integers(-10, -1))
    def negative_size(self, key, size):
        with pytest.raises(ValueError):
            self.cache.access(key, size)

    @invariant()
    def same_state(self):
        assert_same_tier(self.cache, self.model)
        info = self.cache.cache_info()
        assert (info.hits, info.misses, info.capacity, info.used) == \
            (self.hits, self.misses, self.model.capacity, self.model.used())


class TwoTierMachine(RuleBasedStateMachine):
    @initialize(gpu=CAPACITIES, cpu=st.integers(0, 40))
    def create(self, gpu, cpu):
        self.cache, self.model = TwoTierCache(gpu, cpu), ListTwoTier(gpu, cpu)
        self.tiers = {"gpu": 0, "cpu": 0, "miss": 0}

    @rule(key=KEYS, size=SIZES)
    def access(self, key, size):
        tier = self.model.access(key, size)
        assert self.cache.access(key, size) == tier
        self.tiers[tier] += 1

    @rule(key=KEYS)
    def peek(self, key):
        assert (key in self.cache.gpu) == (key in self.model.gpu.keys())
        assert (key in self.cache.cpu) == (key in self.model.cpu.keys())

    @invariant()
    def same_state(self):
        assert_same_tier(self.cache.gpu, self.model.gpu)
        assert_same_tier(self.cache.cpu, self.model.cpu)
        gpu, cpu, miss = self.tiers.values()
        assert (self.cache.gpu.hits, self.cache.gpu.misses) == (gpu, cpu + miss)
        assert (self.cache.cpu.hits, self.cache.cpu.misses) == (cpu, miss)  # a GPU hit never reads the CPU


TestLRUAgainstModel = LRUMachine.TestCase
TestLRUAgainstModel.settings = FAST
TestTwoTierAgainstModel = TwoTierMachine.TestCase
TestTwoTierAgainstModel.settings = FAST


@FAST
@given(gpu=CAPACITIES, reads=st.lists(st.tuples(KEYS, st.integers(1, 25)), max_size=40))
def test_cpu_capacity_0_behaves_like_the_single_tier(gpu, reads):
    two_tier, single = TwoTierCache(gpu, 0), LRUCache(gpu)
    for key, size in reads:
        hit = single.access(key, size)
        assert two_tier.access(key, size) == ("gpu" if hit else "miss")
        assert two_tier.gpu.keys() == single.keys()
