"""Step 5: TwoTierCache(gpu_capacity, cpu_capacity) in kvsim.py, judged read by read.

The lab text's contract: attributes gpu and cpu are both LRUCache; access(key, size) returns "gpu" on a
GPU hit (the CPU tier is not touched), "cpu" when the entry is only in the CPU (the CPU copy becomes the
most recent and the entry is stored in the GPU too), "miss" otherwise (stored in both). CPU capacity 0
works, as the GPU tier alone. Each rule compares one of these after every read. The grader judges
TwoTierCache on the reference LRUCache when the student's own fails step 1, so that one LRU mistake
costs step 1 only.
"""
from . import caches
from .base import Misconception, Plant, Rule, StepSpec

NUMBER = 5
FILE = "kvsim.py"

MESSAGES = {
    "step.5.title": "TwoTierCache in kvsim.py",
    "rule.tier.returns": "What access() returns after each read: \"gpu\", \"cpu\" or \"miss\".",
    "rule.tier.gpu": "The GPU tier after each read: gpu.keys().",
    "rule.tier.cpu": "The CPU tier after each read: cpu.keys().",
    "rule.tier.tiers": "The attributes gpu and cpu: two LRUCache objects.",
}


def cases(rng, hidden):
    if hidden:
        return caches.ordered(caches.tier_cases(rng, 24, (3, 12), keys=list(range(10)))
                              + caches.tier_cases(rng, 2, (40, 60), capacities=(5, 9, 12, 20)))
    return caches.ordered(caches.tier_cases(rng, 36, (1, 4)) + caches.tier_cases(rng, 28, (5, 9)))


def jobs(case):
    return [{"kind": "ops", "module": "kvsim", "ops": caches.tier_ops(case)}]


def observe(case, outcomes):
    return caches.observe_tiers(case, outcomes[0])


RULES = (
    Rule("tier.returns", ("tiers",), caches.per_read("ret"), points=3),
    Rule("tier.gpu", ("tiers",), caches.per_read("gpu"), points=2),
    Rule("tier.cpu", ("tiers",), caches.per_read("cpu"), points=2),
    Rule("tier.tiers", ("tiers",), caches.whole("tiers"), points=1),
)

MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in (
    "tier-touches-cpu", "tier-no-cpu-refresh", "tier-no-gpu-copy", "tier-miss-one-tier", "tier-cpu-zero",
    "tier-capacities-swapped", "tier-returns", "tier-attributes"))

shrink, show, label = caches.shrink, caches.show, caches.read_label

STEP = StepSpec(NUMBER, FILE, ("TwoTierCache.__init__", "TwoTierCache.access"), (), "04_two_tier", "kvsim", (1,),
                rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    """{misconception: [Plant]}: the classic mistakes, played on the reference (the instructor edition's only)."""
    # BEGIN SOLUTION ...
    access = "TwoTierCache.access"
    return {
        "tier-touches-cpu": [Plant(FILE, access, "            self.gpu.access(key, size)  # the CPU copy is not touched\n",
                                   "            self.gpu.access(key, size)\n            self.cpu.access(key, size)\n")],
        "tier-no-cpu-refresh": [Plant(FILE, access, "            self.cpu.access(key, size)  # refresh the CPU copy...\n", "")],
        "tier-no-gpu-copy": [Plant(FILE, access, "            self.gpu.access(key, size)  # ...and load it back into the GPU\n", "")],
        "tier-miss-one-tier": [Plant(FILE, access, "        self.cpu.access(key, size)\n        return \"miss\"",
                                     "        return \"miss\"")],
        "tier-cpu-zero": [Plant(FILE, "TwoTierCache.__init__", "        self.cpu = LRUCache(cpu_capacity)",
                                "        self.cpu = LRUCache(cpu_capacity) if cpu_capacity else None")],
        "tier-capacities-swapped": [Plant(FILE, "TwoTierCache.__init__",
                                          "LRUCache(gpu_capacity)\n        self.cpu = LRUCache(cpu_capacity)",
                                          "LRUCache(cpu_capacity)\n        self.cpu = LRUCache(gpu_capacity)")],
        "tier-returns": [Plant(FILE, access, '            return "cpu"', '            return "gpu"')],
    }
    # END SOLUTION
