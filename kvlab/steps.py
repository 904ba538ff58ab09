"""The one table of the lab's steps: what each step asks for, where, and which rules check it.

`kvlab check`, the grader, `kvlab release`, the notebooks and the student edition's tests all read
this table. A step names the student's file and the functions written there, the artifacts it makes,
its notebook, the earlier steps whose code it runs on, and its rules. A rule is data: an id (its text
is the catalog message "rule.<id>", its code the builder of that id in kvlab/check/), whether it is
hidden (the grader's cases, drawn from the course secret; never shipped) and its points.

Random cases are drawn from (seed, step, rule): editing one rule's cases never moves another's.
Standard library only; importing it never imports student code.
"""
import hashlib
import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RuleSpec:
    id: str
    hidden: bool = False
    points: int = 1


@dataclass(frozen=True)
class Step:
    number: object                 # 1..8, or "07" for notebook 07's exercise
    file: str                      # the student's file
    functions: tuple               # what the student writes there (a stub in one of them names this step)
    artifacts: tuple               # the JSON files the step makes
    notebook: str                  # its notebook
    process: str                   # the student process its rules run in: kvsim, scenario or summarize
    runs_on: tuple = ()            # the steps whose code its code runs on, in the finished hand-in
    rules: tuple = field(default_factory=tuple)

    @property
    def title(self):
        return f"step.{self.number}.title"


def R(rule_id, hidden=False, points=1):
    return RuleSpec(rule_id, hidden, points)


LRU_RULES = ("lru.starts-empty", "lru.used-is-property", "lru.miss-then-hit", "lru.fills-exactly",
             "lru.evicts-oldest", "lru.hit-moves", "lru.evicts-enough", "lru.used-through-evictions",
             "lru.fits-exactly", "lru.oversized-not-stored", "lru.oversized-evicts-nothing", "lru.in-only-looks",
             "lru.keys-only-lists", "lru.capacity-zero", "lru.counts", "lru.random")
TIER_RULES = ("tier.has-tiers", "tier.miss-in-both", "tier.capacities", "tier.gpu-hit", "tier.gpu-hit-leaves-cpu",
              "tier.cpu-hit", "tier.cpu-hit-loads-gpu", "tier.cpu-hit-refreshes", "tier.cpu-zero", "tier.random")

# The finished scenario.py runs every scenario on a TwoTierCache (step 6 changes run()), so the steps
# before it run on step 5's code too: a failing TwoTierCache holds their hints back.
ON_CACHES = (1, 5)
STEPS = {
    1: Step(1, "kvsim.py", ("LRUCache.__init__", "LRUCache.access", "LRUCache.used", "LRUCache.keys",
                            "LRUCache.__contains__"), (), "01_lru_cache", "kvsim",
            rules=(*map(R, LRU_RULES), R("lru.hidden-random", hidden=True))),
    2: Step(2, "scenario.py", ("run",), ("cyclic.json",), "02_cyclic_scan", "scenario", ON_CACHES,
            rules=tuple(map(R, ("scenario.one-json", "scenario.defaults", "scenario.cyclic", "scenario.shares-cache",
                                "scenario.options-used", "scenario.random"))) + (R("scenario.hidden-random", True),)),
    3: Step(3, "scenario.py", (), ("baseline.json",), "02_cyclic_scan", "scenario", (*ON_CACHES, 2),
            rules=(R("baseline.result"), R("baseline.random"), R("baseline.hidden-random", True))),
    4: Step(4, "scenario.py", ("gpu_cliff",), ("cliff.json",), "03_gpu_cliff", "scenario", (*ON_CACHES, 2),
            rules=(R("gpu-cliff.lab"), R("gpu-cliff.lab-function"), R("gpu-cliff.scenario-arguments"),
                   R("gpu-cliff.counts-cpu-hits"), R("gpu-cliff.hidden-random", True))),
    5: Step(5, "kvsim.py", ("TwoTierCache.access",), (), "04_two_tier", "kvsim", (1,),
            rules=(*map(R, TIER_RULES), R("tier.hidden-random", hidden=True))),
    6: Step(6, "scenario.py", ("run",), ("offload.json",), "04_two_tier", "scenario", (1, 2, 5),
            rules=(R("offload.gpu-first"), R("offload.result"), R("offload.cpu-zero"), R("offload.random"),
                   R("offload.hidden-random", True))),
    7: Step(7, "scenario.py", ("cpu_cliff",), ("cpu_cliff.json",), "05_cpu_cliff", "scenario", (1, 2, 5, 6),
            rules=(R("cpu-cliff.lab"), R("cpu-cliff.lab-function"), R("cpu-cliff.sweeps-cpu"),
                   R("cpu-cliff.uses-gpu"), R("cpu-cliff.hidden-random", True))),
    8: Step(8, "summarize.py", ("summarize", "iter_records"), ("measured.json",), "06_measured_ttft", "summarize",
            rules=tuple(map(R, ("summary.odd", "summary.even", "summary.names", "summary.ratio", "summary.layout",
                                "summary.blank-lines", "summary.lab-file", "summary.random")))
            + (R("summary.hidden-random", True),)),
}
EXERCISES = {
    "07": Step("07", "policies.py", ("Cache._admit", "MRUCache.access", "MRUCache._victim"), (), "07_beyond_lru",
               "kvsim", (1,), rules=tuple(map(R, ("mru.miss-hit", "mru.evicts-newest", "mru.oversized", "mru.random")))),
}
NUMBERS = tuple(STEPS)
SCRIPTS = ("kvsim.py", "scenario.py", "summarize.py")
ARTIFACTS = {name: number for number, step in STEPS.items() for name in step.artifacts}
PROCESSES = {process: tuple(number for number, step in STEPS.items() if step.process == process)
             for process in ("kvsim", "scenario", "summarize")}
PUBLIC_SEED = "public"


def step_of(file, function):
    """The step (or exercise) whose stub is `function` in `file`, else None."""
    name = file.rpartition("/")[2]
    for number, step in {**STEPS, **EXERCISES}.items():
        if step.file == name and function in step.functions:
            return number
    return None


def is_exercise(number):
    return number in EXERCISES


def shown_number(number):
    return str(number)


def rng_for(seed, step, rule_id):
    """The random generator of one rule's cases: from (seed, step, rule), independent of every other rule."""
    return random.Random(hashlib.sha256(f"{seed}|{step}|{rule_id}".encode()).digest())


def notebook_of(number):
    return (STEPS.get(number) or EXERCISES.get(number)).notebook
