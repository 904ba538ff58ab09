"""KV-cache simulator: an LRU cache, and a GPU tier backed by a CPU tier.

Sizes are in tokens. Standard library only, so this file also runs when it is
copied alone into a student's hand-in folder.
"""
from collections import OrderedDict, namedtuple

CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")


class LRUCache:
    """Keeps the most recently used entries whose sizes fit in `capacity` (sizes in tokens)."""

    def __init__(self, capacity):
        if capacity < 0:
            raise ValueError(f"capacity < 0: {capacity}")
        self.capacity = capacity
        self.hits = 0    # access() counts its hits and misses here; cache_info() reports them
        self.misses = 0
        # Step 1: create what the cache remembers: each stored key with its size, in the order
        # they were used (oldest first), and whatever you need for `used`. An OrderedDict
        # (key -> size) keeps that order and can move a key to the end.
        # BEGIN SOLUTION ...
        self._sizes = OrderedDict()  # oldest first, most recent last
        self._used = 0
        # END SOLUTION

    def access(self, key, size):
        """Read `key`, whose KV takes `size` tokens; return True on a hit, False on a miss.

        Hit (`key` is stored): the entry becomes the most recent; nothing else changes.
        Miss: evict the least recently used entries, one by one, until the entry fits, then
        store it as the most recent. An entry larger than the capacity is not stored and
        evicts nothing (it could never fit).
        """
        if size < 0:
            raise ValueError(f"size < 0: {size}")
        # Step 1: on a hit, move the entry to the most recent end, add 1 to self.hits, return True.
        # On a miss, add 1 to self.misses; if the entry can ever fit, evict from the oldest end
        # until it fits, store it; return False. Keep `used` right through every eviction.
        # BEGIN SOLUTION
        if key in self._sizes:
            self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO
            self.hits += 1
            return True
        self.misses += 1
        if size > self.capacity:
            return False  # evicting for an entry that can never fit would only lose good entries
        while self._used + size > self.capacity:
            _, evicted = self._sizes.popitem(last=False)
            self._used -= evicted
        self._sizes[key] = size
        self._used += size
        return False
        # END SOLUTION

    @property
    def used(self):
        """The sum of the sizes of the stored entries, in tokens (a property: `cache.used`, no call)."""
        # Step 1: return the total size of what is stored now (0 for an empty cache).
        # BEGIN SOLUTION
        return self._used
        # END SOLUTION

    def keys(self):
        """A new list of the stored keys, least recently used first, most recent last."""
        # Step 1: list the keys in their use order; listing them must not change that order.
        # BEGIN SOLUTION
        return list(self._sizes)
        # END SOLUTION

    def cache_info(self):
        """Hits, misses, capacity and used, as a small named record (like functools.lru_cache's)."""
        return CacheInfo(self.hits, self.misses, self.capacity, self.used)

    def __contains__(self, key):
        """`key in cache`: True if `key` is stored. Only a peek: the order does not change."""
        # Step 1: answer from the stored keys without touching their order.
        # BEGIN SOLUTION
        return key in self._sizes  # a peek: the order is not changed
        # END SOLUTION

    def __len__(self):
        return len(self.keys())

    def __repr__(self):
        return f"LRUCache(capacity={self.capacity}, used={self.used}, keys={self.keys()})"


class TwoTierCache:
    """A GPU tier in front of a CPU tier; each tier is an LRUCache."""

    def __init__(self, gpu_capacity, cpu_capacity):
        self.gpu = LRUCache(gpu_capacity)
        self.cpu = LRUCache(cpu_capacity)

    def access(self, key, size):
        """Read `key` and say where it came from: "gpu", "cpu" or "miss".

        "gpu": `key` is in the GPU tier; it becomes the GPU's most recent, the CPU tier is not touched.
        "cpu": not in the GPU but in the CPU tier; the CPU copy becomes the CPU's most recent, and
        the entry is stored in the GPU too. "miss": in neither; it is stored in both tiers.
        """
        # Step 5: ask each tier with `in` first (a tier's access() already stores on a miss),
        # then call access(key, size) on exactly the tier(s) the case above names.
        # BEGIN SOLUTION
        if key in self.gpu:
            self.gpu.access(key, size)  # the CPU copy is not touched
            return "gpu"
        if key in self.cpu:
            self.cpu.access(key, size)  # refresh the CPU copy...
            self.gpu.access(key, size)  # ...and load it back into the GPU
            return "cpu"
        self.gpu.access(key, size)  # recomputed: kept in both tiers
        self.cpu.access(key, size)
        return "miss"
        # END SOLUTION

    def __repr__(self):
        return f"TwoTierCache(gpu={self.gpu!r}, cpu={self.cpu!r})"
