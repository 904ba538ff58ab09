"""The checks' expectations computed with the reference (the instructor edition), and recorded for release.

Live answers kvlab.check.oracle's questions with the lab's own kvsim, scenario, summarize and policies.
Recording(Live()) also keeps every question and answer, so that `kvlab release` can store exactly what
the public checks ask as data (kvlab/check/expected.json) in the student edition.
"""
import copy
import json
import statistics

from .. import kvsim, scenario
from ..check.oracle import key


def _trace(cache, accesses, tiered=False):
    answers = []
    for key_, size in accesses:
        returned = cache.access(key_, size)
        state = [cache.gpu.keys(), cache.cpu.keys()] if tiered else [cache.keys(), cache.used]
        answers.append([returned, *state])
    return answers


class Live:
    """Answers computed now, with the reference modules."""

    def lru(self, capacity, accesses):
        return _trace(kvsim.LRUCache(capacity), accesses)

    def tiers(self, gpu, cpu, accesses):
        return _trace(kvsim.TwoTierCache(gpu, cpu), accesses, tiered=True)

    def mru(self, capacity, accesses):
        from .. import policies  # notebook 07's policies: loaded only when asked about

        return _trace(policies.MRUCache(capacity), accesses)

    def scenario(self, params):
        return scenario.run(**{name: tuple(value) if name == "passes" else value for name, value in params.items()})

    def summary(self, lines):
        groups = {"baseline": {}, "lmcache": {}}
        for line in lines:
            if line.strip():
                record = json.loads(line)
                groups[record["config"]].setdefault(record["pass"], []).append(record["ttft_ms"])
        return {config: {name: [len(values), statistics.median(values), statistics.mean(values)]
                         for name, values in passes.items()}
                for config, passes in groups.items()}


class Recording:
    """An oracle that asks another once per question and keeps every answer, keyed as kvlab.check.oracle.Stored
    reads them: `kvlab release` stores them, and the grader asks each question once per batch."""

    def __init__(self, oracle):
        self.oracle, self.answers = oracle, {}

    def __getattr__(self, question):
        ask = getattr(self.oracle, question)

        def record(*args):
            asked = key(question, *args)
            if asked not in self.answers:
                self.answers[asked] = json.loads(json.dumps(ask(*args)))  # exactly what the stored file gives back
            return copy.deepcopy(self.answers[asked])  # a copy of its own for each judge
        return record
