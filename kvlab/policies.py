"""Eviction policies beyond LRU: FIFO, LFU, MRU, ARC and Belady's OPT.

Every cache here has LRUCache's interface and rules (kvsim.py, step 1): `capacity`, access(key, size)
returns True on a hit and False on a miss, `used` is the sum of the stored sizes, keys() lists the
stored keys and `key in cache` only peeks. On a miss the entry is stored, evicting until it fits; an
entry larger than the capacity is not stored and evicts nothing. A hit never changes a size. The
policies differ in what a hit changes and in which entry goes first. Standard library only; it also
runs as a plain module.
"""
import heapq
from collections import OrderedDict, defaultdict


def _check_size(size):
    if size < 0:
        raise ValueError(f"size < 0: {size}")


class Cache:
    """What the policies share: the stored keys with their sizes, `used`, and making room on a miss."""

    def __init__(self, capacity):
        if capacity < 0:
            raise ValueError(f"capacity < 0: {capacity}")
        self.capacity = capacity
        self._entries = OrderedDict()  # stored key -> size; each policy says what the order means
        self._used = 0

    @property
    def used(self):
        """The sum of the sizes of the stored entries (a property: `cache.used`, no call)."""
        return self._used

    def keys(self):
        """A new list of the stored keys, front of `_entries` first (each policy's docstring says what that is)."""
        return list(self._entries)

    def __contains__(self, key):
        """`key in cache`: True if `key` is stored. Only a peek: nothing changes."""
        return key in self._entries

    def __len__(self):
        return len(self._entries)

    def _oldest(self):
        """The key at the front of `_entries`."""
        return next(iter(self._entries))

    def _newest(self):
        """The key at the back of `_entries` (the one stored, or moved to the end, last)."""
        return next(reversed(self._entries))

    def _admit(self, key, size, evict):
        """Store a missed entry, first removing the key evict() names until it fits; True if stored.

        An entry larger than the capacity could never fit: it is not stored and evicts nothing.
        Every policy's miss comes here (FIFO, LFU, MRU, ARC and OPT differ only in `evict`).
        """
        # Exercise 07: if the entry can never fit (size above the capacity), return False and evict
        # nothing. Else, while the entry does not fit yet, remove the key that evict() names (the
        # method _remove does that); then store the entry (the method _store) and return True.
        # BEGIN SOLUTION
        if size > self.capacity:
            return False  # it could never fit: evicting for it would only lose good entries
        while self.used + size > self.capacity:
            self._remove(evict())
        self._store(key, size)
        return True
        # END SOLUTION

    def _store(self, key, size):
        """Add an entry at the back of `_entries`."""
        self._entries[key] = size
        self._used += size

    def _remove(self, key):
        """Evict a stored entry."""
        self._used -= self._entries.pop(key)

    def __repr__(self):
        return f"{type(self).__name__}(capacity={self.capacity}, used={self.used}, keys={self.keys()})"


class FIFOCache(Cache):
    """First in, first out: evicts the entry stored longest ago, and a hit changes nothing.

    keys() lists the order of arrival, oldest first. An LRU cache whose hits forget to move their
    entry is this (the pitfall of step 1).
    """

    def access(self, key, size):
        """Read `key`: True on a hit (nothing moves); on a miss store it, evicting the oldest arrivals; False."""
        _check_size(size)
        if key in self:
            return True
        self._admit(key, size, evict=self._oldest)
        return False


class MRUCache(Cache):
    """Most recently used: evicts the entry read last. keys() lists least recently used first, as LRUCache does.

    Poor for most workloads; but when a cyclic scan does not fit, it keeps the entries it read first,
    and those are the ones the next pass reads first.
    """

    def access(self, key, size):
        """Read `key`, whose entry takes `size`; return True on a hit, False on a miss.

        Hit: the entry becomes the most recent (the end of keys()); nothing is evicted.
        Miss: evict the MOST recently used entries, one by one, until the entry fits, then store it as
        the most recent. An entry larger than the capacity is not stored and evicts nothing.
        """
        _check_size(size)
        # Exercise 07: like LRUCache.access (kvsim.py) but a miss evicts from the most recent end.
        # Cache's helpers do the work: self._entries (in use order), self._admit (which you write
        # first, above) and self._newest.
        # BEGIN SOLUTION
        if key in self:
            self._entries.move_to_end(key)  # the most recent end, where the next eviction starts
            return True
        self._admit(key, size, evict=self._newest)
        return False
        # END SOLUTION


class LFUCache(Cache):
    """Least frequently used: evicts the entry read the fewest times since it was stored.

    Ties go to the least recently used of them, which is the one that reached its count first (as in
    LMCache's LFU, which keeps one list per count in the order keys joined it). Counts start at 1 when
    an entry is stored and are forgotten when it is evicted. keys() lists the eviction order: fewest
    reads first, least recently used first among equals.
    """

    def __init__(self, capacity):
        super().__init__(capacity)
        self._counts = {}                          # stored key -> reads since it was stored
        self._by_count = defaultdict(OrderedDict)  # count -> its keys, least recently used first

    def access(self, key, size):
        """Read `key`: True on a hit (its count goes up by 1); on a miss store it with count 1, False."""
        _check_size(size)
        if key in self:
            self._recount(key, self._counts[key] + 1)
            return True
        self._admit(key, size, evict=self._least_frequent)
        return False

    def keys(self):
        return [key for count in sorted(self._by_count) for key in self._by_count[count]]

    def _least_frequent(self):
        return next(iter(self._by_count[min(self._by_count)]))

    def _recount(self, key, count):
        """Move `key` to the end of the list of `count` (None: off every list)."""
        old = self._counts.pop(key, None)
        if old is not None:
            del self._by_count[old][key]
            if not self._by_count[old]:
                del self._by_count[old]  # so that min(self._by_count) is a count some key has
        if count is not None:
            self._counts[key] = count
            self._by_count[count][key] = None

    def _store(self, key, size):
        super()._store(key, size)
        self._recount(key, 1)

    def _remove(self, key):
        super()._remove(key)
        self._recount(key, None)


class _Queue:
    """Keys with their sizes, oldest first, and the sum of the sizes."""

    def __init__(self):
        self.sizes = OrderedDict()
        self.total = 0

    def push(self, key, size):
        """Add `key` at the newest end."""
        self.sizes[key] = size
        self.total += size

    def pop(self, key):
        """Take `key` out; return its size."""
        size = self.sizes.pop(key)
        self.total -= size
        return size

    def oldest(self):
        return next(iter(self.sizes))

    def __contains__(self, key):
        return key in self.sizes

    def __len__(self):
        return len(self.sizes)

    def __iter__(self):
        return iter(self.sizes)


class ARCCache(Cache):
    """Adaptive Replacement Cache, as vLLM's CPU offload runs it.

    Followed: vllm-project/vllm, vllm/v1/kv_offload/arc_manager.py (ARCOffloadingManager, commit 05fad73).
    T1 holds the entries read once since they were stored, T2 those read again. B1 and B2 are ghosts:
    the keys lately evicted from T1 and T2, without their KV. A miss on a B1 ghost says T1 was too
    small, so T1's target grows; a miss on a B2 ghost shrinks it. To make room, ARC evicts T1's least
    recently used entry when T1 is at least its target, else T2's. As in vLLM (unlike the original ARC
    of Megiddo and Modha), every stored entry enters T1, ghost or not, and each ghost list is bounded
    by the capacity, trimmed oldest first before a new entry is stored.
    Sizes: vLLM's blocks all have one size. Here each length is a sum of sizes: T1 against its target,
    each ghost list against the capacity, and a ghost hit moves the target by the entry's size times
    vLLM's step, max(1, len(B2) // len(B1)) for B1 (the reverse for B2; entry counts). If the chosen
    list is empty the other one gives the entry (vLLM would give up). With all sizes equal to 1 this
    is vLLM's algorithm. keys() lists T1 then T2, each least recently used first.
    """

    def __init__(self, capacity):
        super().__init__(capacity)
        self._t1, self._t2 = _Queue(), _Queue()  # stored entries, least recently used first
        self._b1, self._b2 = _Queue(), _Queue()  # ghosts, oldest first
        self._target = 0  # the size T1 should have

    def access(self, key, size):
        """Read `key`: True on a hit (T1 -> T2, or most recent in T2); on a miss adapt, store in T1, False."""
        _check_size(size)
        if key in self._t1:  # read again: now a frequent entry
            self._t2.push(key, self._t1.pop(key))
            return True
        if key in self._t2:
            self._t2.push(key, self._t2.pop(key))
            return True
        if key in self._b1:  # T1 lost it too soon: more room for recent entries
            step = max(1, len(self._b2) // len(self._b1))
            self._target = min(self._target + size * step, self.capacity)
        elif key in self._b2:  # T2 lost it too soon: more room for frequent entries
            step = max(1, len(self._b1) // len(self._b2))
            self._target = max(self._target - size * step, 0)
        self._admit(key, size, evict=self._victim)
        return False

    def keys(self):
        return [*self._t1, *self._t2]

    def _victim(self):
        if self._t1 and (self._t1.total >= self._target or not self._t2):
            return self._t1.oldest()
        return self._t2.oldest()

    def _store(self, key, size):
        for ghosts in (self._b1, self._b2):
            while ghosts.total > self.capacity:
                ghosts.pop(ghosts.oldest())
            if key in ghosts:
                ghosts.pop(key)
        super()._store(key, size)
        self._t1.push(key, size)

    def _remove(self, key):
        super()._remove(key)
        if key in self._t1:
            self._b1.push(key, self._t1.pop(key))
        else:
            self._b2.push(key, self._t2.pop(key))

    def __repr__(self):
        return (f"ARCCache(capacity={self.capacity}, used={self.used}, target={self._target}, "
                f"t1={list(self._t1)}, t2={list(self._t2)})")


def next_reads(keys):
    """For each position of `keys`, the position of the same key's next read (len(keys): never)."""
    never = len(keys)
    result = [never] * len(keys)
    upcoming = {}
    for position in reversed(range(len(keys))):
        result[position] = upcoming.get(keys[position], never)
        upcoming[keys[position]] = position
    return result


class BeladyCache(Cache):
    """Belady's OPT: evicts the entry whose next read is farthest in the future (never read again first).

    It needs the future, so it is built from the whole trace of (key, size) and must then read that
    trace in order (anything else is a ValueError). With equal sizes no cache that stores every entry
    it misses gets more hits (Belady 1966). With unequal sizes the same rule, evicting the
    farthest-read entries until the new one fits, is a heuristic and not always optimal: which entries
    to keep is then a knapsack-like choice (one big entry read soon may cost the room of two small
    ones read a little later), and size-aware variants weigh the distance by the size.
    Ties (entries never read again) go least recently read first. keys() lists the order of storing.
    """

    def __init__(self, capacity, trace):
        super().__init__(capacity)
        self._trace = [key for key, _ in trace]
        self._next_reads = next_reads(self._trace)
        self._position = 0  # how much of the trace has been read
        self._next = {}     # stored key -> position of its next read
        self._heap = []     # (-next read, position then, key); entries outdated by a later read are skipped

    def access(self, key, size):
        """Read the trace's next access, which must be `key`: True on a hit; on a miss store it, False."""
        _check_size(size)
        if self._position == len(self._trace):
            raise ValueError(f"BeladyCache: len(trace) == {self._position}, {key!r}")
        if self._trace[self._position] != key:
            raise ValueError(f"BeladyCache: trace[{self._position}] == {self._trace[self._position]!r} != {key!r}")
        next_read = self._next_reads[self._position]
        self._position += 1
        if key in self:
            self._plan(key, next_read)
            return True
        if self._admit(key, size, evict=self._farthest):
            self._plan(key, next_read)
        return False

    def _plan(self, key, next_read):
        self._next[key] = next_read
        heapq.heappush(self._heap, (-next_read, self._position, key))  # equal next reads: earliest read first

    def _farthest(self):
        while True:
            minus_next, _, key = heapq.heappop(self._heap)
            if self._next.get(key) == -minus_next:  # still stored, and not read since
                return key

    def _remove(self, key):
        super()._remove(key)
        del self._next[key]
