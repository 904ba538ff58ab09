# BUG: CPU capacity 0 leaves no CPU tier (None), so every access fails.
"""KV-cache simulator: an LRU cache, and a GPU tier backed by a CPU tier.

Sizes are in tokens. Standard library only, so this file also runs when it is
copied alone into a student's hand-in folder.
"""
from collections import OrderedDict, namedtuple

CacheInfo = namedtuple("CacheInfo", "hits misses capacity used")


class LRUCache:
    """Keeps the most recently used entries whose sizes fit in `capacity`."""

    def __init__(self, capacity):
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = capacity
        self._sizes = OrderedDict()  # oldest first, most recent last
        self._used = 0
        self.hits = 0
        self.misses = 0

    def access(self, key, size):
        """Read `key`: True on a hit; on a miss store it (if it can ever fit) and return False."""
        if size < 0:
            raise ValueError(f"size must be >= 0, got {size}")
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

    @property
    def used(self):
        """Sum of the sizes of the stored entries."""
        return self._used

    def keys(self):
        """Stored keys, least recently used first."""
        return list(self._sizes)

    def cache_info(self):
        return CacheInfo(self.hits, self.misses, self.capacity, self._used)

    def __contains__(self, key):
        return key in self._sizes  # a peek: the order is not changed

    def __len__(self):
        return len(self._sizes)

    def __repr__(self):
        return f"LRUCache(capacity={self.capacity}, used={self._used}, keys={self.keys()})"


class TwoTierCache:
    """A GPU tier in front of a CPU tier; each tier is an LRUCache."""

    def __init__(self, gpu_capacity, cpu_capacity):
        self.gpu = LRUCache(gpu_capacity)
        self.cpu = LRUCache(cpu_capacity) if cpu_capacity else None

    def access(self, key, size):
        """Read `key` and say where it came from: "gpu", "cpu" or "miss"."""
        # Ask with `in` first: access() on a tier that misses would already store the entry.
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

    def __repr__(self):
        return f"TwoTierCache(gpu={self.gpu!r}, cpu={self.cpu!r})"
