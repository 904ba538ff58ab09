"""Where the checks' expectations come from, without a reference implementation in the student's hands.

An oracle answers the questions a judge asks: what a cache following the lab's rules returns on a run
of accesses, what a scenario prints, what the exact statistics of a measurement are. In the student
edition the answers are data, expected.json, written by `kvlab release` from the reference; the
instructor edition computes them with the reference (kvlab.instructor.oracle). Every answer is JSON.

    lru(capacity, accesses)        -> [[returned, keys, used], ...] after each (key, size) access
    tiers(gpu, cpu, accesses)      -> [[returned, gpu keys, cpu keys], ...]
    mru(capacity, accesses)        -> like lru, for notebook 07's MRU cache
    scenario(params)               -> the document scenario.py prints for these run() parameters
    summary(lines)                 -> {"baseline": {pass: [n, median, mean]}, "lmcache": {...}}, unrounded
"""
import json
from contextlib import contextmanager
from pathlib import Path

EXPECTED = Path(__file__).resolve().parent / "expected.json"
QUESTIONS = ("lru", "tiers", "mru", "scenario", "summary")


class NoAnswer(LookupError):
    """The stored expectations do not cover this question (not the student's fault).

    For `summary` that is a measured file the edition was not released with (the course machine's,
    when the lab was released elsewhere): the rule is skipped. For any other question the edition is
    out of date: the rule fails and says so, rather than passing unchecked.
    """

    def __init__(self, question, message):
        super().__init__(message)
        self.question = question


def key(question, *args):
    """The canonical text of a question, as expected.json stores it."""
    return json.dumps([question, *args], sort_keys=True, separators=(",", ":"))


class Stored:
    """Answers from expected.json (the student edition)."""

    def __init__(self, path=EXPECTED):
        with open(path, encoding="utf-8") as file:
            self.answers = json.load(file)

    def ask(self, question, *args):
        try:
            return self.answers[key(question, *args)]
        except KeyError:
            raise NoAnswer(question, f"the stored expectations have no answer for {question}{tuple(args)!r:.120}") from None

    def __getattr__(self, question):
        if question not in QUESTIONS:
            raise AttributeError(question)
        return lambda *args: self.ask(question, *args)


_chosen = []  # oracles put in place by using(), innermost last


@contextmanager
def using(oracle):
    """Within the block, the checks ask `oracle` (kvlab release records what they ask this way)."""
    _chosen.append(oracle)
    try:
        yield oracle
    finally:
        _chosen.pop()


def default():
    """The oracle in use: one given to using(), else the reference's answers where this edition has the
    reference, else the stored ones."""
    if _chosen:
        return _chosen[-1]
    try:
        from ..instructor.oracle import Live
    except ModuleNotFoundError:
        return Stored()
    return Live()
