"""Notebook 07's exercise: MRUCache in policies.py (after the lab; not graded).

The same contract as LRUCache's (step 1) but a miss evicts the MOST recently used entries first.
Judged read by read like step 1: what access returns, keys() and used after each read.
"""
from . import caches
from .base import Misconception, Plant, Rule, StepSpec

NUMBER = "07"
FILE = "policies.py"

MESSAGES = {
    "step.07.title": "MRUCache in policies.py (notebook 07)",
    "rule.mru.returns": "What access() returns after each read: True on a hit, False on a miss.",
    "rule.mru.keys": "keys() after each read: least recently used first; a miss evicts from the newest end.",
    "rule.mru.used": "used after each read: the sum of the stored sizes.",
}


def cases(rng, hidden):
    return caches.ordered(caches.seq_cases(rng, "MRUCache", 40, (1, 4)) + caches.seq_cases(rng, "MRUCache", 30, (5, 9)))


def jobs(case):
    return [{"kind": "ops", "module": "policies", "ops": caches.seq_ops(case)[0]}]


def observe(case, outcomes):
    return caches.observe_seq(case, outcomes[0])


RULES = (
    Rule("mru.returns", ("seq", "two"), caches.per_read("ret"), points=1),
    Rule("mru.keys", ("seq", "two"), caches.per_read("keys"), points=1),
    Rule("mru.used", ("seq", "two"), caches.per_read("used"), points=1),
)
MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in ("mru-evicts-oldest", "oversized-evicts", "fifo"))

shrink, show, label = caches.shrink, caches.show, caches.read_label

STEP = StepSpec(NUMBER, FILE, ("Cache._admit", "MRUCache.access", "MRUCache._victim"), (), "07_beyond_lru", "policies",
                (1,), rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    """{misconception: [Plant]}: the classic mistakes, played on the reference (the instructor edition's only)."""
    # BEGIN SOLUTION ...
    return {
        "mru-evicts-oldest": [Plant(FILE, "MRUCache.access", "evict=self._newest", "evict=self._oldest")],
        "fifo": [Plant(FILE, "MRUCache.access", "            self._entries.move_to_end(key)  # the most recent end, "
                                                "where the next eviction starts\n", "")],
        "oversized-evicts": [Plant(FILE, "Cache._admit", "        if size > self.capacity:\n            return False",
                                   "        if size > self.capacity:\n            self._entries.clear()\n"
                                   "            self._used = 0\n            return False")],
    }
    # END SOLUTION
