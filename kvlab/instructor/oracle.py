"""The checks' answers computed with the reference (the instructor edition), and recorded for release.

Reference answers kvlab.check.oracle's questions with the lab's own kvsim, scenario and policies, and
with the classic mistakes played on purpose (a "variant"), so that a judge can name the one a student
made by matching it. Recording(Reference()) keeps every question and answer, so that `kvlab release`
stores their digests (kvlab/check/digests.json) and the grader asks each question once per batch.

    lru(capacity, accesses)            [[returned, keys, used], ...] after each [key, size]
    tiers(gpu, cpu, accesses)          [[returned, gpu keys, cpu keys], ...]
    mru(capacity, accesses)            like lru, for notebook 07's MRU cache
    scenario(params, variant)          the document scenario.py prints ("" = right; see VARIANTS)
    sweep(option, capacities, fixed, variant)   {str(capacity): count} of a step 4 or 7 sweep
    summary(lines)                     per config and pass: n, the right p50_ms / mean_ms (OneOf the
                                       correct roundings) and the values of the classic mistakes
"""
import json
import statistics

from .. import kvsim, lab, scenario
from ..check.oracle import Answer, OneOf, canonical, plain, question_key

DEFAULTS = {"gpu": lab.GPU, "cpu": lab.CPU, "docs": lab.DOCS, "tokens": lab.TOKENS, "passes": list(lab.PASSES)}
TOLERANCE = 1e-9


def _trace(cache, accesses, tiered=False):
    answers = []
    for key, size in accesses:
        returned = cache.access(key, size)
        state = [cache.gpu.keys(), cache.cpu.keys()] if tiered else [cache.keys(), cache.used]
        answers.append([returned, *state])
    return answers


def run(params):
    return scenario.run(**{name: tuple(value) if name == "passes" else value for name, value in params.items()})


def scenario_variant(params, variant=""):
    """What scenario.py prints for `params`, right ("") or with one classic mistake played."""
    passes = list(params.get("passes", DEFAULTS["passes"]))
    if variant == "":
        return run(params)
    if variant == "cleared":  # a new cache for every pass
        return {"passes": [run({**params, "passes": [order]})["passes"][0] for order in passes]}
    if variant.startswith("ignored:"):  # an option's value never used: its default is
        option = variant.partition(":")[2]
        return run({**params, option: DEFAULTS[option]})
    if variant == "swapped":  # TwoTierCache(cpu, gpu)
        return run({**params, "gpu": params.get("cpu", lab.CPU), "cpu": params.get("gpu", lab.GPU)})
    document = run(params)
    for number, counts in enumerate(document["passes"]):
        if variant == "cpu-as-gpu":  # loads from CPU counted as GPU hits
            counts.update(gpu_hits=counts["gpu_hits"] + counts["cpu_hits"], cpu_hits=0)
        elif variant == "truthy-miss":  # `if cache.access(...)`: "miss" is a true string too
            order = scenario.read_order(passes[number], params.get("docs", lab.DOCS))
            counts.update(gpu_hits=len(order), cpu_hits=0, misses=0, hit_docs=order)
        elif variant == "hit-docs-sorted":
            counts["hit_docs"] = sorted(counts["hit_docs"])
        else:
            raise ValueError(f"unknown scenario variant {variant!r}")
    return document


def sweep_variant(option, capacities, fixed, variant=""):
    """{str(capacity): count} for a sweep over `option` ("gpu": hits, step 4; "cpu": misses, step 7)."""
    fixed = dict(fixed)
    fixed.setdefault("passes", list(lab.FWD_FWD))
    counted = "hits" if option == "gpu" else "misses"
    if variant == "other-count":
        counted = "misses" if counted == "hits" else "hits"
    swept, which = option, 1
    if variant == "first-pass":
        which = 0
    elif variant == "drops-scenario":  # only the capacity (and for step 7 the GPU) reaches run()
        fixed = {name: value for name, value in fixed.items() if name == "gpu" and option == "cpu"}
    elif variant == "cpu-sweeps-gpu":  # step 7 written as a copy of step 4's loop
        swept, fixed = "gpu", {name: value for name, value in fixed.items() if name != "gpu"}
    elif variant == "cpu-default-gpu":  # step 7 never passes gpu
        fixed = {name: value for name, value in fixed.items() if name != "gpu"}
    elif variant not in ("", "other-count", "gpu-hits-only"):
        raise ValueError(f"unknown sweep variant {variant!r}")
    result = {}
    for capacity in capacities:
        counts = run({**fixed, swept: capacity})["passes"][which]
        if counted == "misses":
            result[str(capacity)] = counts["misses"]
        else:
            result[str(capacity)] = counts["gpu_hits"] + (0 if variant == "gpu-hits-only" else counts["cpu_hits"])
    return result


def _grid(exact, places):
    """The values a right answer may hold: `exact` rounded, and its neighbour when it lies on a half step."""
    step = 10 ** -places
    return sorted({round(value, places) for value in (exact - TOLERANCE, exact, exact + TOLERANCE)
                   if abs(round(value, places) - exact) <= step / 2 + TOLERANCE})


def _ratio(baseline, lmcache):
    return baseline / lmcache if lmcache else None


def summary_answer(lines):
    """Per config and pass: n, the right rounded p50_ms and mean_ms, and what the classic mistakes give."""
    groups = {"baseline": {}, "lmcache": {}}
    for line in lines:
        if line.strip():
            record = json.loads(line)
            groups[record["config"]].setdefault(record["pass"], []).append(record["ttft_ms"])
    answer = {"passes": {config: sorted(passes) for config, passes in groups.items()}}
    exact = {}
    for config, passes in groups.items():
        for name, values in passes.items():
            ordered, half = sorted(values), len(values) // 2
            median, mean = statistics.median(values), statistics.mean(values)
            exact[config, name] = (median, mean)
            entry = {"n": len(values), "p50_ms": OneOf(_grid(median, 1)), "mean_ms": OneOf(_grid(mean, 1))}
            if len(values) % 2 == 0:  # one of the two middle values instead of their mean
                entry["p50_ms:middle"] = OneOf(sorted({round(value, 1) for value in ordered[half - 1:half + 1]}))
            unsorted = [values[half]] if len(values) % 2 else [values[half], (values[half - 1] + values[half]) / 2]
            entry["p50_ms:unsorted"] = OneOf(sorted({round(value, 1) for value in unsorted}))
            answer.setdefault(config, {})[name] = entry
    answer["ratio"] = {}
    answer["passes"]["ratio"] = sorted(name for name in groups["baseline"] if name in groups["lmcache"])
    for name in groups["baseline"]:
        if name not in groups["lmcache"]:
            continue
        (base_p50, base_mean), (lm_p50, lm_mean) = exact["baseline", name], exact["lmcache", name]
        entry = {}
        for stat, base, lm in (("p50", base_p50, lm_p50), ("mean", base_mean, lm_mean)):
            right = _ratio(base, lm)
            if right is None:
                entry[stat] = None
                continue
            # Both readings of the lab text are right: the ratio of the exact statistics, or of the rounded ones.
            rounded = _ratio(round(base, 1), round(lm, 1))
            entry[stat] = OneOf(sorted(set(_grid(right, 2)) | (set(_grid(rounded, 2)) if rounded else set())))
            if base:
                entry[f"{stat}:inverted"] = OneOf(_grid(lm / base, 2))
        answer["ratio"][name] = entry
    return answer


class _Known(Answer):
    """An answer to match against; `expected` ({path: the canonical texts that match there}) may be shared
    by every _Known of one question, so that each part of an answer is made canonical once."""
    __slots__ = ("value", "expected")

    def __init__(self, value, expected=None):
        self.value, self.expected = value, {} if expected is None else expected

    def matches(self, value, path=()):
        where = tuple((type(key), key) for key in path)  # 1 and 1.0 (or True) are not the same step of a path
        wanted = self.expected.get(where)
        if wanted is None:
            wanted = self.expected[where] = self._wanted(path)
        return bool(wanted) and canonical(value) in wanted

    def _wanted(self, path):
        """The canonical texts a value at `path` matches (none where the path leads nowhere)."""
        part = self.value
        for key in path:
            if isinstance(part, OneOf):
                return frozenset()
            try:
                part = part[key]
            except (KeyError, IndexError, TypeError):
                return frozenset()
        if isinstance(part, OneOf):
            return frozenset(canonical(one) for one in part.values)
        return frozenset((canonical(plain(part)),))


class Reference:
    """Answers computed now, with the reference modules."""

    def answer(self, question, *args):
        if question == "lru":
            return _trace(kvsim.LRUCache(args[0]), args[1])
        if question == "tiers":
            return _trace(kvsim.TwoTierCache(args[0], args[1]), args[2], tiered=True)
        if question == "mru":
            from .. import policies  # notebook 07's policies: loaded only when asked about
            return _trace(policies.MRUCache(args[0]), args[1])
        if question == "scenario":
            return scenario_variant(*args)
        if question == "sweep":
            return sweep_variant(*args)
        if question == "summary":
            return summary_answer(args[0])
        raise ValueError(f"unknown question {question!r}")

    def ask(self, question, *args):
        return _Known(self.answer(question, *args))


class Recording:
    """An oracle that asks another once per question and keeps every answer, keyed as Digests looks them up:
    `kvlab release` stores their digests, and the grader asks each question once per batch."""

    def __init__(self, oracle):
        self.oracle, self.answers, self.expected, self.keys = oracle, {}, {}, {}

    def ask(self, question, *args):
        """The answer, shared by every asker (a _Known only reads it) with what its parts match."""
        asked = json.dumps([question, args])  # the key is a function of this text: made once per text
        key = self.keys.get(asked)
        if key is None:
            key = self.keys[asked] = question_key(question, list(json.loads(json.dumps(args))))
        if key not in self.answers:
            self.answers[key] = self.oracle.answer(question, *args)
        return _Known(self.answers[key], self.expected.setdefault(key, {}))
