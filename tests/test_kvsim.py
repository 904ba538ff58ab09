"""The caches of kvsim.py, told as stories: read a few documents, say what must happen and why.

Sizes are small numbers of tokens. `LRUContract` states the rules of step 1 once; it runs on
`LRUCache` and on a `TwoTierCache` with CPU capacity 0, which step 5 says must behave the same.
"""
import json

import pytest

from kvlab.kvsim import CacheInfo, LRUCache, TwoTierCache


class GPUOnly:
    """A TwoTierCache with CPU capacity 0, seen through the LRUCache interface."""

    def __init__(self, capacity):
        self.cache = TwoTierCache(capacity, 0)

    def access(self, key, size):
        tier = self.cache.access(key, size)
        assert tier in ("gpu", "miss")  # nothing can come back from an empty CPU tier
        return tier == "gpu"

    def __contains__(self, key):
        return key in self.cache.gpu

    def keys(self):
        return self.cache.gpu.keys()

    @property
    def used(self):
        return self.cache.gpu.used


class LRUContract:
    """The rules of step 1, for any cache that `make(capacity)` builds."""

    make = None

    def test_a_hit_returns_true_and_makes_the_entry_most_recent(self):
        cache = self.make(10)
        assert cache.access("a", 4) is False  # first read: a miss, stored
        assert cache.access("b", 4) is False
        assert cache.access("a", 4) is True   # a hit: "a" is now the most recent
        assert cache.keys() == ["b", "a"]     # keys are listed oldest first
        cache.access("c", 4)  # evicts "b", the least recently used (FIFO would evict "a")
        assert cache.keys() == ["a", "c"]

    def test_a_miss_evicts_from_the_oldest_and_stops_as_soon_as_the_entry_fits(self):
        cache = self.make(10)
        for key in "abc":
            cache.access(key, 3)
        assert cache.access("d", 4) is False  # evicting "a" alone makes room: 6 + 4 = 10 fits exactly
        assert cache.keys() == ["b", "c", "d"]
        cache.access("e", 7)  # 10 - 3 - 3 = 4 is not enough: "b", "c" and "d" all go
        assert (cache.keys(), cache.used) == (["e"], 7)

    def test_an_entry_larger_than_the_capacity_is_not_stored_and_evicts_nothing(self):
        cache = self.make(10)
        cache.access("a", 4)
        cache.access("b", 4)
        assert cache.access("huge", 11) is False  # can never fit: the good entries stay
        assert (cache.keys(), cache.used) == (["a", "b"], 8)
        assert "huge" not in cache
        assert cache.access("huge", 11) is False  # and it stays a miss
        cache.access("full", 10)  # as large as the capacity: it fits, alone
        assert cache.keys() == ["full"]

    def test_in_is_a_peek_that_never_reorders(self):
        cache = self.make(10)
        cache.access("a", 4)
        cache.access("b", 4)
        assert "a" in cache      # a peek: "a" stays the least recently used
        assert "z" not in cache  # and asking does not store anything
        assert cache.keys() == ["a", "b"]
        cache.access("c", 4)  # evicts "a"; had `in` refreshed it, "b" would go
        assert cache.keys() == ["b", "c"]

    def test_used_is_the_sum_of_the_stored_sizes(self):
        cache = self.make(10)
        assert cache.used == 0
        cache.access("a", 2)
        cache.access("b", 5)
        assert cache.used == 7
        cache.access("c", 6)  # evicts "a" and "b": used drops by their sizes, not by 6
        assert cache.used == 6

    def test_capacity_0_stores_nothing_and_never_hits(self):
        cache = self.make(0)
        for _ in range(2):
            assert cache.access("a", 1) is False
        assert (cache.keys(), cache.used) == ([], 0)

    def test_the_lab_numbers_four_documents_of_5011_tokens_fit_in_21520(self):
        cache = self.make(21520)
        for doc in range(10):
            cache.access(doc, 5011)
        assert (cache.keys(), cache.used) == ([6, 7, 8, 9], 4 * 5011)

    def test_a_negative_capacity_or_size_is_refused_and_changes_nothing(self):
        with pytest.raises(ValueError, match="capacity"):
            self.make(-1)
        cache = self.make(10)
        cache.access("a", 4)
        for key in ("a", "new"):  # whether the key is stored or not
            with pytest.raises(ValueError, match="size"):
                cache.access(key, -1)
        assert (cache.keys(), cache.used) == (["a"], 4)


class TestLRUCache(LRUContract):
    make = LRUCache

    def test_used_is_a_read_only_property_and_keys_a_copy(self):
        cache = LRUCache(10)
        cache.access("a", 1)
        with pytest.raises(AttributeError):
            cache.used = 3
        cache.keys().append("b")
        assert cache.keys() == ["a"]

    def test_hits_and_misses_are_counted_and_reported_like_lru_cache(self):
        cache = LRUCache(10)
        for key in ["a", "b", "a", "huge", "a"]:
            cache.access(key, 11 if key == "huge" else 4)
        assert "b" in cache  # a peek is not a read
        info = cache.cache_info()
        assert info == CacheInfo(hits=2, misses=3, capacity=10, used=8)
        assert json.dumps(info._asdict()) == '{"hits": 2, "misses": 3, "capacity": 10, "used": 8}'
        assert len(cache) == 2

    def test_repr_shows_capacity_use_and_order(self):
        cache = LRUCache(10)
        cache.access("b", 3)
        cache.access("a", 4)
        assert repr(cache) == "LRUCache(capacity=10, used=7, keys=['b', 'a'])"


class TestTwoTierCacheWithoutCPU(LRUContract):
    """Step 5: CPU capacity 0 must behave like the single tier of step 1."""

    make = GPUOnly


class TestTwoTierCache:
    def test_both_tiers_are_lru_caches_with_the_given_capacities(self):
        cache = TwoTierCache(21520, 56000)
        assert type(cache.gpu) is LRUCache and type(cache.cpu) is LRUCache
        assert (cache.gpu.capacity, cache.cpu.capacity) == (21520, 56000)
        with pytest.raises(ValueError):
            TwoTierCache(10, -1)

    def test_a_miss_in_both_is_stored_in_both_and_a_gpu_hit_leaves_the_cpu_alone(self):
        cache = TwoTierCache(10, 20)
        assert cache.access("a", 4) == "miss"
        assert cache.access("b", 4) == "miss"
        assert (cache.gpu.keys(), cache.cpu.keys()) == (["a", "b"], ["a", "b"])
        assert cache.access("a", 4) == "gpu"
        assert cache.gpu.keys() == ["b", "a"]
        assert cache.cpu.keys() == ["a", "b"]  # not refreshed: the CPU copy was not read
        assert cache.cpu.cache_info().hits == 0

    def test_a_cpu_hit_refreshes_the_cpu_copy_and_loads_it_into_the_gpu(self):
        cache = TwoTierCache(8, 12)
        for key in "abc":
            cache.access(key, 4)  # "c" pushes "a" out of the GPU; the CPU holds all three
        assert (cache.gpu.keys(), cache.cpu.keys()) == (["b", "c"], ["a", "b", "c"])
        assert cache.access("a", 4) == "cpu"
        assert cache.gpu.keys() == ["c", "a"]       # loaded back, evicting "b" from the GPU
        assert cache.cpu.keys() == ["b", "c", "a"]  # the CPU copy is now the most recent
        assert cache.access("d", 4) == "miss"        # so the CPU evicts "b", not "a"
        assert cache.cpu.keys() == ["c", "a", "d"]

    def test_an_entry_too_large_for_the_gpu_is_still_kept_in_the_cpu(self):
        cache = TwoTierCache(4, 20)
        assert cache.access("a", 10) == "miss"
        assert (cache.gpu.keys(), cache.cpu.keys()) == ([], ["a"])
        assert cache.access("a", 10) == "cpu"  # loaded from the CPU, but it still cannot stay in the GPU
        assert cache.gpu.keys() == []

    def test_the_reverse_pass_of_step_6(self):
        cache = TwoTierCache(21520, 56000)
        for doc in list(range(10)) * 2:
            cache.access(doc, 5011)
        tiers = [cache.access(doc, 5011) for doc in reversed(range(10))]
        assert tiers == ["gpu"] * 4 + ["cpu"] * 6  # docs 9, 8, 7, 6 are still in the GPU

    def test_a_zero_size_entry_fits_even_a_cpu_tier_of_capacity_0(self):
        # The rule is literal: only an entry LARGER than the capacity is refused, and 0 > 0 is false.
        # So "CPU capacity 0 behaves like the single tier" holds for every entry of size 1 or more.
        cache = TwoTierCache(10, 0)
        cache.access("empty", 0)
        cache.access("b", 10)
        cache.access("c", 1)  # evicts "empty" and then "b" from the GPU; neither fits the CPU
        assert cache.cpu.keys() == ["empty"]
        assert cache.access("empty", 0) == "cpu"

    def test_repr_shows_both_tiers(self):
        cache = TwoTierCache(10, 20)
        cache.access("a", 4)
        assert repr(cache) == ("TwoTierCache(gpu=LRUCache(capacity=10, used=4, keys=['a']), "
                               "cpu=LRUCache(capacity=20, used=4, keys=['a']))")
