"""Step 1: LRUCache(capacity) in kvsim.py, judged read by read on small generated cases.

The lab text's contract: access(key, size) returns True on a hit (the entry becomes the most recent)
and False on a miss (evict from the oldest until there is room, then store); an entry larger than the
capacity is not stored and evicts nothing; `key in cache` does not change the order; `used` is a
property, the sum of the stored sizes; keys() lists the keys oldest first. Each rule compares one of
these after every read. The hit and miss counters are the edition's addition: judged only where a
cache has them. Cases cover capacity 0, size 0, an entry exactly as large as the capacity, one larger,
reads of a key again, and two caches alive at once.
"""
from . import caches
from .base import Misconception, Plant, Rule, StepSpec

NUMBER = 1
FILE = "kvsim.py"

MESSAGES = {
    "step.1.title": "LRUCache in kvsim.py",
    "rule.lru.returns": "What access() returns after each read: True on a hit, False on a miss.",
    "rule.lru.keys": "keys() after each read: the stored keys, least recently used first.",
    "rule.lru.used": "used after each read: the sum of the stored sizes.",
    "rule.lru.contains": "`key in cache` after each read, for every key read so far.",
    "rule.lru.peek": "Asking changes nothing: keys() is the same after `in` and keys().",
    "rule.lru.fresh": "keys() gives a new list each time: not the cache's own list, not a view.",
    "rule.lru.counters": "The counters hits and misses after the reads (where your cache has them).",
    "hint.size-zero": "An entry of size 0 is stored like any other and hits when read again. Test whether the key is stored (`key in ...`), not its size: a size of 0 is false.",
    "hint.shared-store": "Each cache needs its own store. Create it in __init__ (self._entries = OrderedDict()): a store made in the class body is shared by every cache, so two caches mix their keys.",
    "hint.capacity-in-entries": "The capacity counts tokens, not entries. On a miss, evict until used + size fits in the capacity, however many entries stay. An entry larger than the capacity is not stored and evicts nothing.",
    "seen.keys-fresh": "keys() gave a new list each time",
    "seen.keys-same": "keys() gave the same {type} object both times: the cache's own",
    "seen.keys-type": "keys() gave an object of type {type}, not a list",
    "hint.keys-view": "keys() must return a new list: return list(...) of your keys. A view (odict_keys) or your cache's own list changes when the cache does.",
}


def cases(rng, hidden):
    if hidden:
        return caches.ordered(caches.seq_cases(rng, "LRUCache", 24, (3, 12), two=0.2, keys=list(range(10)))
                              + caches.seq_cases(rng, "LRUCache", 2, (40, 60), capacities=(5, 9, 12, 20)))
    return caches.ordered(caches.seq_cases(rng, "LRUCache", 40, (1, 3), two=0.15)
                          + caches.seq_cases(rng, "LRUCache", 36, (4, 6), two=0.2)
                          + caches.seq_cases(rng, "LRUCache", 12, (7, 10), two=0.2)
                          + caches.hit_then_evict(rng, "LRUCache", 8))


def jobs(case):
    return [{"kind": "ops", "module": "kvsim", "ops": caches.seq_ops(case)[0]}]


def observe(case, outcomes):
    return caches.observe_seq(case, outcomes[0])


def _counters(obs):
    return obs.get("counts") is not None


RULES = (
    Rule("lru.returns", ("seq", "two"), caches.per_read("ret"), points=3),
    Rule("lru.keys", ("seq", "two"), caches.per_read("keys"), points=3),
    Rule("lru.used", ("seq", "two"), caches.per_read("used"), points=2),
    Rule("lru.contains", ("seq", "two"), caches.per_read("in"), points=1),
    Rule("lru.peek", ("seq", "two"), caches.per_read("keys2"), points=1),
    Rule("lru.fresh", ("seq", "two"), caches.whole("fresh"), points=1, display=caches.fresh_display),
    Rule("lru.counters", ("seq", "two"), caches.whole("counts"), points=1, optional=_counters),
)

MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in (
    "fifo", "evicts-when-full", "evicts-newest", "oversized-evicts", "oversized-stored", "used-not-freed",
    "used-wrong", "used-on-hit", "used-method", "miss-stores", "return-values", "in-moves", "keys-moves",
    "keys-view", "size-zero", "shared-store", "capacity-zero", "capacity-in-entries", "counts"))

STEP = StepSpec(NUMBER, FILE, ("LRUCache.__init__", "LRUCache.access", "LRUCache.used", "LRUCache.keys",
                               "LRUCache.__contains__"), (), "01_lru_cache", "kvsim",
                rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    """{misconception: [Plant]}: the classic mistakes, played on the reference (the instructor edition's only)."""
    # BEGIN SOLUTION ...
    hit = "            self.hits += 1\n            return True"
    evict = "            _, evicted = self._sizes.popitem(last=False)\n            self._used -= evicted"
    guard = ("        if size > self.capacity:\n            return False  # evicting for an entry that can never "
             "fit would only lose good entries\n")
    access = "LRUCache.access"
    return {
        "fifo": [Plant(FILE, access, "            self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO\n", "")],
        "evicts-when-full": [Plant(FILE, access, "while self._used + size > self.capacity:",
                                   "while self._used + size >= self.capacity and self._sizes:")],
        "evicts-newest": [Plant(FILE, access, "self._sizes.popitem(last=False)", "self._sizes.popitem()")],
        "oversized-evicts": [
            Plant(FILE, access, guard, "        if size > self.capacity:\n            self._sizes.clear()\n"
                                       "            self._used = 0\n            return False\n"),
            Plant(FILE, access, guard + "        while self._used + size > self.capacity:",
                  "        while self._sizes and self._used + size > self.capacity:")],
        "oversized-stored": [Plant(FILE, access, guard, "")],
        "used-not-freed": [Plant(FILE, access, evict, "            _, evicted = self._sizes.popitem(last=False)")],
        "used-wrong": [Plant(FILE, access, evict, "            self._sizes.popitem(last=False)\n"
                                                  "            self._used -= size")],
        "used-on-hit": [Plant(FILE, access, hit, "            self.hits += 1\n            self._used += size\n"
                                                 "            return True")],
        "used-method": [Plant(FILE, "LRUCache", "    @property\n    def used(self):", "    def used(self):")],
        "miss-stores": [Plant(FILE, access, "        self._sizes[key] = size\n", "")],
        "return-values": [Plant(FILE, access, hit, "            self.hits += 1\n            return 1")],
        "in-moves": [Plant(FILE, "LRUCache.__contains__", "        return key in self._sizes  # a peek: the order is not changed",
                           "        if key in self._sizes:\n            self._sizes.move_to_end(key)\n"
                           "            return True\n        return False")],
        "keys-moves": [Plant(FILE, "LRUCache.keys", "        return list(self._sizes)",
                             "        keys = list(self._sizes)\n"
                             "        self._sizes = OrderedDict(reversed(self._sizes.items()))\n        return keys")],
        "keys-view": [Plant(FILE, "LRUCache.keys", "return list(self._sizes)", "return self._sizes.keys()")],
        "size-zero": [Plant(FILE, access, "        if key in self._sizes:\n", "        if self._sizes.get(key):\n")],
        "shared-store": [Plant(FILE, "LRUCache.__init__",
                               ("    def __init__(self, capacity):", "        self._sizes = OrderedDict()  #"),
                               ("    def __init__(self, capacity, _shared=OrderedDict()):", "        self._sizes = _shared  #"),
                               fresh=True)],
        "capacity-zero": [Plant(FILE, "LRUCache.__init__", "        if capacity < 0:", "        if capacity <= 0:")],
        "capacity-in-entries": [Plant(FILE, access, guard + "        while self._used + size > self.capacity:",
                                      "        while self._sizes and len(self._sizes) >= self.capacity:")],
        "counts": [Plant(FILE, access, hit, "            return True")],
    }
    # END SOLUTION


shrink, show, label = caches.shrink, caches.show, caches.read_label
