"""The lab: its numbers (numbers.py) and the one table of its steps, assembled from the step modules.

Each step is one module here (step1_lru.py ... step8_summarize.py, exercise07_mru.py): what it asks
for, where, its rules, its misconceptions, the cases it is judged on and how, and its planted bugs.
STEPS, the artifacts, which student module runs which step and the steps' catalog entries (MESSAGES)
are read from them. Standard library only; importing it never imports student code.
"""
from . import (exercise07_mru, step1_lru, step2_scenario, step3_baseline, step4_gpu_cliff, step5_two_tier,
               step6_offload, step7_cpu_cliff, step8_summarize)
from .base import PUBLIC_SEED, rng_for  # noqa: F401
from .numbers import *  # noqa: F401,F403 (the lab's numbers: lab.GPU, lab.GPU_CAPACITIES, ...)
from .numbers import CONFIGS, CPU, CPU_CAPACITIES, DOCS, FWD_FWD, FWD_FWD_REV, GPU, GPU_CAPACITIES, OFFLOAD_CPU, \
    MEASURED_TOKENS, ORDERS, PASSES, TOKENS  # noqa: F401

MODULES = (step1_lru, step2_scenario, step3_baseline, step4_gpu_cliff, step5_two_tier, step6_offload,
           step7_cpu_cliff, step8_summarize)
EXERCISE_MODULES = (exercise07_mru,)
for _module in (*MODULES, *EXERCISE_MODULES):
    _module.STEP.module = _module

STEPS = {module.STEP.number: module.STEP for module in MODULES}
EXERCISES = {module.STEP.number: module.STEP for module in EXERCISE_MODULES}
NUMBERS = tuple(STEPS)
SCRIPTS = tuple(dict.fromkeys(step.file for step in STEPS.values()))           # kvsim.py, scenario.py, summarize.py
MODULE_NAMES = tuple(name[:-3] for name in SCRIPTS)
ARTIFACTS = {name: number for number, step in STEPS.items() for name in step.artifacts}
NAMES = tuple(ARTIFACTS)  # the six JSON files, in step order
PROCESSES = {name: tuple(number for number, step in STEPS.items() if step.process == name) for name in MODULE_NAMES}
MESSAGES = {key: text for module in (*MODULES, *EXERCISE_MODULES) for key, text in module.MESSAGES.items()}
CLASSES = STEPS[NUMBERS[0]].process  # the module of the classes (kvsim): the commands run on it
COMMANDS = tuple(name for name in PROCESSES if name != CLASSES and any(  # the modules that run on the classes
    number in STEPS[later].runs_on for later in PROCESSES[name] for number in PROCESSES[CLASSES]))
EXERCISE_NAMES = tuple(dict.fromkeys(one.file[:-3] for one in EXERCISES.values()))  # policies


def step(number):
    """A step or the exercise, by its number."""
    return STEPS.get(number) or EXERCISES[number]


def step_of(file, function):
    """The step (or exercise) whose stub is `function` in `file`, else None."""
    name = file.rpartition("/")[2]
    for number, one in {**STEPS, **EXERCISES}.items():
        if one.file == name and function in one.functions:
            return number
    return None


def is_exercise(number):
    return number in EXERCISES


def shown_number(number):
    return str(number)


def notebook_of(number):
    return step(number).notebook


def title(number):
    return step(number).title


def plants_of(file):
    """{misconception: [Plant]} of every step (or exercise) written in `file` (the instructor edition's only)."""
    found = {}
    for one in (*STEPS.values(), *EXERCISES.values()):
        if one.file == file:
            for name, plants in (one.module.plants() or {}).items():
                found.setdefault(name, []).extend(plants)
    return found


def owner(file, misconception):
    """The step whose mistake a misconception is, among the steps written in `file` (None if none names it)."""
    for one in (*STEPS.values(), *EXERCISES.values()):
        if one.file == file and any(known.id == misconception for known in one.misconceptions):
            return one.number
    return None


def pass_names(orders):
    """The lab's pass names for a list of orders: fwd,fwd,rev -> pass1-cold, pass2-replay, pass3-reverse."""
    names = []
    for number, order in enumerate(orders, start=1):
        if order not in ORDERS:
            raise ValueError(f"unknown pass {order!r} (expected fwd or rev)")
        kind = "cold" if number == 1 else "replay" if order == "fwd" else "reverse"
        names.append(f"pass{number}-{kind}")
    return names
