"""Step 7: cpu_cliff.json, the second pass's misses for each CPU capacity at the lab's GPU capacity.

Judged as what the student's own scenario.py gives (kvlab/lab/sweeps.py): the keys are the seven CPU
capacities as strings, each value the second pass's misses of `scenario.py --gpu 21520 --cpu C --passes
fwd,fwd`. The values are the simulator's prediction, not a measurement.
"""
from . import commands, sweeps
from .base import Misconception, Rule, StepSpec
from .numbers import CPU_CAPACITIES, GPU

NUMBER = 7
FILE = "scenario.py"

MESSAGES = {
    "step.7.title": "cpu_cliff.json (CPU capacity sweep)",
    "rule.cpu-cliff.keys": "cpu_cliff.json's keys: the lab's seven CPU capacities, as strings, in the lab's order.",
    "rule.cpu-cliff.values": "cpu_cliff.json's values: the second pass's misses your scenario.py gives at GPU 21520 and each CPU capacity.",
    "rule.cpu-cliff.function": "scenario.cpu_cliff(), where your scenario.py has it: what your command gives at each capacity.",
}

RULES = (
    Rule("cpu-cliff.keys", ("artifact",), sweeps.keys_view, points=1, holds=sweeps.keys_holds(CPU_CAPACITIES), own=True),
    Rule("cpu-cliff.values", ("artifact",), sweeps.values_view(CPU_CAPACITIES, "misses"), points=2,
         holds=sweeps.values_holds(CPU_CAPACITIES, "misses"), own=True),
    Rule("cpu-cliff.function", ("function",), sweeps.function_view("misses"), points=1,
         holds=sweeps.function_holds("misses"), optional=sweeps.has_function, own=True),
)
MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in (
    "missing-artifact", "sweep-shape", "sweep-first-pass", "sweep-misses-not-hits", "sweep-int-keys",
    "cpu-cliff-sweeps-gpu", "cpu-cliff-ignores-gpu"))


def cases(rng, hidden):
    if hidden:
        return []
    return [sweeps.function_case("cpu_cliff", [0, 5, 10], {"gpu": 5, "docs": 2, "tokens": 5, "passes": ["fwd", "rev"]},
                                 "cpu"),
            sweeps.function_case("cpu_cliff", [0, 9], {"gpu": 3, "docs": 3, "tokens": 3, "passes": ["fwd", "rev", "fwd"]},
                                 "cpu")]


def artifact_cases(texts):
    return [commands.artifact_case("cpu_cliff.json", texts.get("cpu_cliff.json"),
                                   commands.sweep_runs("cpu", CPU_CAPACITIES, {"gpu": GPU}))]


jobs, observe, shrink, show = sweeps.jobs, sweeps.observe, sweeps.shrink, sweeps.show
explain = sweeps.explain("misses", CPU_CAPACITIES)


STEP = StepSpec(NUMBER, FILE, (), ("cpu_cliff.json",), "05_cpu_cliff", "scenario", (1, 5, 2, 6),
                rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    return {}
