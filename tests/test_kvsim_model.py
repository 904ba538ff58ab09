"""Random reads on the caches, checked after every step against something simpler.

LRUCache against a brute-force model: a plain list of (key, size) pairs, oldest first, whose
used size is recomputed from scratch each time; slow and obviously right.
TwoTierCache by decomposition, not by a second copy of its code: its GPU tier must be exactly a
standalone LRUCache fed every read, its CPU tier exactly a standalone LRUCache fed only the reads
that missed the GPU, and the tier it returns must follow from where the key was before the read.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlab.kvsim import LRUCache, TwoTierCache

KEYS = st.sampled_from("abcdefg")   # few keys, so that hits and re-reads are common
SIZES = st.integers(0, 25)          # zero, small, and larger than most capacities
CAPACITIES = st.integers(0, 20)
READS = st.lists(st.tuples(KEYS, SIZES), max_size=40)
FAST = settings(max_examples=150, deadline=None, database=None)  # no .hypothesis/ folder left behind


class ListLRU:
    """The LRU rules of step 1 on a list of (key, size) pairs, oldest first."""

    def __init__(self, capacity):
        self.capacity, self.entries = capacity, []

    def keys(self):
        return [key for key, _ in self.entries]

    def used(self):
        return sum(size for _, size in self.entries)

    def access(self, key, size):
        for index, (stored, _) in enumerate(self.entries):
            if stored == key:
                self.entries.append(self.entries.pop(index))
                return True
        if size <= self.capacity:
            while self.used() + size > self.capacity:
                self.entries.pop(0)
            self.entries.append((key, size))
        return False


@FAST
@given(capacity=CAPACITIES, reads=READS, peeks=st.lists(KEYS, max_size=5))
def test_lru_cache_matches_the_list_model_after_every_read(capacity, reads, peeks):
    cache, model = LRUCache(capacity), ListLRU(capacity)
    hits = 0
    for key, size in reads:
        hit = model.access(key, size)
        assert cache.access(key, size) is hit
        hits += hit
        for peek in peeks:  # a peek answers from the model's keys and changes nothing
            assert (peek in cache) == (peek in model.keys())
        assert (cache.keys(), cache.used, len(cache)) == (model.keys(), model.used(), len(model.entries))
        assert cache.used <= capacity
    assert (cache.hits, cache.misses) == (hits, len(reads) - hits)


@FAST
@given(gpu=CAPACITIES, cpu=st.integers(0, 40), reads=READS)
def test_two_tier_cache_is_two_lru_caches_in_a_row(gpu, cpu, reads):
    cache = TwoTierCache(gpu, cpu)
    gpu_alone, cpu_alone = LRUCache(gpu), LRUCache(cpu)
    for key, size in reads:
        expected = "gpu" if key in cache.gpu else "cpu" if key in cache.cpu else "miss"
        assert cache.access(key, size) == expected
        if not gpu_alone.access(key, size):  # every read goes to the GPU tier...
            cpu_alone.access(key, size)      # ...and only the GPU's misses go on to the CPU tier
        assert (cache.gpu.keys(), cache.gpu.used) == (gpu_alone.keys(), gpu_alone.used)
        assert (cache.cpu.keys(), cache.cpu.used) == (cpu_alone.keys(), cpu_alone.used)

