"""What a step module is made of: the step, its rules, its misconceptions, and the cases it is judged on.

A step is judged by running its code on generated cases and comparing, rule by rule, one part of what
the code did (an observable the lab text names: a return value, keys(), used, a JSON field) with what
the lab's rules give. Cases are data (JSON), drawn from (seed, step, kind): the public seed for
everyone, the course secret for the grader's hidden cases. Each step module (kvlab/lab/step*.py) says
how to turn a case into jobs for the student's process (kvlab/check/driver.py), how to read the
outcomes back as an observation, how to make a case smaller, and how to show it. Standard library only;
importing a step module never imports student code.
"""
import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Callable

PUBLIC_SEED = "public"
FILES = ("artifact", "ttft")   # the kinds of case that are a saved file: what they show is not the code's doing


@dataclass(frozen=True)
class Rule:
    """One row of a step's report: one observable, compared on the cases of `kinds`.

    view(case, obs) is the part of an observation the rule compares (JSON); holds(case, got, want), if
    given, replaces plain equality of the two views (tolerances; a relation between two runs of the
    student's own code, where `want` is not used). `points` is the rule's weight inside its step.
    `optional(obs)`: the rule applies only to code that has the feature (hit counters, gpu_cliff); an
    observation it does not apply to leaves the rule out of the step (and of its points).
    `own`: the rule compares the student's code with itself (a relation, an artifact): it needs no answer.
    """
    id: str
    kinds: tuple
    view: Callable
    points: int = 1
    holds: Callable = None
    optional: Callable = None
    own: bool = False
    shows: Callable = None   # shows(case, want): the lab's value to show beside the student's (default: view)
    display: Callable = None  # display(case, obs): what a student reads of an observation (default: the view)

    def expected(self, case, want):
        return (self.display or self.shows or self.view)(case, want)

    def seen(self, case, got):
        return (self.display or self.view)(case, got)

    @property
    def text(self):
        return f"rule.{self.id}"


@dataclass(frozen=True)
class Plant:
    """A planted bug: in the reference file `file`, inside the function `qualname`, `old` becomes `new`."""
    file: str
    qualname: str
    old: object       # a piece of text, or a tuple of pieces (each found once)
    new: object
    fresh: bool = False   # the planted module keeps state between caches: made anew for every job


@dataclass(frozen=True)
class Misconception:
    """A known mistake: its hint (catalog message hint.<id>) and the step whose mistake it is."""
    id: str
    step: object


@dataclass
class StepSpec:
    """A step: what it asks for, where, and how it is judged (each step module makes one)."""
    number: object                  # 1..8, or "07" for notebook 07's exercise
    file: str                       # the student's file
    functions: tuple                # where its code is written (a stub in one of them names this step)
    artifacts: tuple                # the JSON files it makes
    notebook: str
    process: str                    # the student module its cases run: kvsim, scenario, summarize, policies
    runs_on: tuple = ()             # the steps whose code its code runs on (the student check holds hints back)
    rules: tuple = ()
    misconceptions: tuple = ()      # Misconception ids, likeliest first
    messages: dict = field(default_factory=dict)   # its catalog entries, English
    module: object = None           # the step module: cases(), jobs(), observe(), shrink(), show(), plants()

    @property
    def title(self):
        return f"step.{self.number}.title"

    @property
    def points(self):
        return sum(rule.points for rule in self.rules)

    def rule(self, rule_id):
        return next(rule for rule in self.rules if rule.id == rule_id)


def rng_for(seed, step, name):
    """The random generator of one family of cases: from (seed, step, name), independent of every other."""
    return random.Random(hashlib.sha256(f"{seed}|{step}|{name}".encode()).digest())


_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode


def canonical(value):
    """The JSON text two equal values share: sorted keys, 3.0 written as 3 (bools stay bools)."""
    return _ENCODE(_tidy(value))


def _tidy(item):
    if isinstance(item, float):
        return int(item) if item.is_integer() and abs(item) < 2 ** 53 else item
    if isinstance(item, (list, tuple)):
        return [_tidy(one) for one in item]
    if isinstance(item, dict):
        return {str(key): _tidy(one) for key, one in item.items()}
    return item


def key_of(step, case):
    """A case's key in the stored expectations: a digest of the step and the case's canonical JSON."""
    return hashlib.sha256(canonical([str(step), case]).encode()).hexdigest()[:20]


def by_size(cases, size):
    """The cases without repeats, smallest first (the first failing one is then the one to show)."""
    unique = {canonical(case): case for case in cases}
    return sorted(unique.values(), key=lambda case: (size(case), canonical(case)))


def same(got, want):
    """Two views are equal as JSON (1 and 1.0 alike, True and 1 not, a tuple and a list alike)."""
    if got is want:
        return True
    kind, other = type(got), type(want)
    if kind is bool or other is bool:
        return kind is other and got == want
    if kind in (int, float) and other in (int, float):
        return got == want
    if kind in (list, tuple) and other in (list, tuple):
        return len(got) == len(want) and all(same(one, two) for one, two in zip(got, want))
    if kind is dict and other is dict:
        return got.keys() == want.keys() and all(same(value, want[key]) for key, value in got.items())
    return kind is other and got == want


def first_difference(got, want):
    """The index of the first item where two list views differ (len of the shorter if one is a prefix), or None."""
    if not isinstance(got, list) or not isinstance(want, list):
        return None if same(got, want) else 0
    for index, (one, other) in enumerate(zip(got, want)):
        if not same(one, other):
            return index
    return None if len(got) == len(want) else min(len(got), len(want))


def signature(step, case, obs, optional=frozenset()):
    """What two codes share when they behave the same on `case`: the view of every rule the lab requires, and
    of the `optional` rules (the ones this code has the feature of)."""
    return canonical([rule.view(case, obs) for rule in step.rules if (rule.optional is None or rule.id in optional)
                      and case["kind"] in rule.kinds and case["kind"] not in FILES])


def digest(text):
    """A short digest of a signature (kvlab/check/expected.json keeps these, not what a planted bug gives)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]
