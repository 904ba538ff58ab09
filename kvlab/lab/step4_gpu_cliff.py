"""Step 4: cliff.json, the second pass's hits for each GPU capacity of the lab's sweep.

Judged as what the student's own scenario.py gives (kvlab/lab/sweeps.py): the keys are the six
capacities as strings, each value the second pass's gpu_hits + cpu_hits of `scenario.py --gpu C
--passes fwd,fwd`. Without --cpu: right code for steps 1-4 passes, whatever step 6 will change.
"""
from . import commands, sweeps
from .base import Misconception, Rule, StepSpec
from .numbers import GPU_CAPACITIES

NUMBER = 4
FILE = "scenario.py"

MESSAGES = {
    "step.4.title": "cliff.json (GPU capacity sweep)",
    "rule.cliff.keys": "cliff.json's keys: the lab's six GPU capacities, as strings, in the lab's order.",
    "rule.cliff.values": "cliff.json's values: the second pass's hits (gpu_hits + cpu_hits) your scenario.py gives at each capacity.",
    "rule.cliff.function": "scenario.gpu_cliff(), where your scenario.py has it: what your command gives at each capacity.",
}

RULES = (
    Rule("cliff.keys", ("artifact",), sweeps.keys_view, points=1, holds=sweeps.keys_holds(GPU_CAPACITIES), own=True),
    Rule("cliff.values", ("artifact",), sweeps.values_view(GPU_CAPACITIES, "hits"), points=2,
         holds=sweeps.values_holds(GPU_CAPACITIES, "hits"), own=True),
    Rule("cliff.function", ("function",), sweeps.function_view("hits"), points=1, holds=sweeps.function_holds("hits"),
         optional=sweeps.has_function, own=True),
)
MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in (
    "missing-artifact", "sweep-shape", "sweep-first-pass", "sweep-hits-not-misses", "sweep-int-keys",
    "sweep-drops-arguments"))


def cases(rng, hidden):
    if hidden:
        return []
    return [sweeps.function_case("gpu_cliff", [4, 9, 10], {"docs": 2, "tokens": 5, "passes": ["fwd", "rev"]}, "gpu"),
            sweeps.function_case("gpu_cliff", [3, 6], {"docs": 3, "tokens": 3, "passes": ["fwd", "fwd", "rev"]}, "gpu")]


def artifact_cases(texts):
    return [commands.artifact_case("cliff.json", texts.get("cliff.json"), commands.sweep_runs("gpu", GPU_CAPACITIES, {}))]


jobs, observe, shrink, show = sweeps.jobs, sweeps.observe, sweeps.shrink, sweeps.show
explain = sweeps.explain("hits", GPU_CAPACITIES)


STEP = StepSpec(NUMBER, FILE, (), ("cliff.json",), "03_gpu_cliff", "scenario", (1, 5, 2),
                rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    return {}
