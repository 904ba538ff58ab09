"""Judging a step: its code run on generated cases, each rule comparing its own part with the lab's rules.

judge() is a generator. It yields a Request (the jobs of some cases) and is sent back their raw outcomes,
from whatever runs the student's code: a process of kvlab.check.driver (`kvlab check`, the notebooks),
the grader's sandbox, or this process for a class given directly. So one conversation can hold the
public cases of every step, then the hidden ones, and the few runs that make a difference smaller.
It returns {step: Result}; report.py turns a Result into the rows a student reads.

For each step: the public cases (smallest first) run; each rule compares its view of every case with
the expectation's (the reference's answer, or the edition's stored one). A rule that differs takes the
first case that shows it; where the expectation can answer any case (the reference), the case is made
smaller while it still shows the difference (as property-based testing shrinks a failing example).
The step's first failing rule names the root cause: a known misconception whose planted bug does
exactly what the student's code did on that case, or none (the case alone says what differs). Hidden
cases (the course secret) run after every public one; their rows never show a case.
"""
import functools
from dataclasses import dataclass, field
from itertools import islice

from ..i18n import Msg
from ..lab.base import FILES, PUBLIC_SEED, first_difference, rng_for, same
from ..lab.commands import file_view as file_value, stub_stop
from ..lab.outcomes import ENDED

SHRINK_ROUNDS = 25       # rounds of making a case smaller (each one list of candidates in the student's process)
SHRINK_CANDIDATES = 40   # candidates per round
RETRIES = 2              # times cases that were not run (their process stopped) are sent again
TIE_CASES = 12           # failing cases, most of which a misconception's planted bug must do the same on
STOPPED = {"timeout", "flood", "killed"}   # a run stopped from outside: its step's other runs would be too


@dataclass
class Request:
    """What to run next: one job list for the student's process; `hidden`: the course's secret cases."""
    jobs: list
    hidden: bool
    step: object


@dataclass
class Verdict:
    """One rule's result on one step."""
    rule: str
    ok: bool
    applies: bool = True
    case: dict = None          # the smallest public case that shows the difference
    hidden: bool = False       # only hidden cases show it: nothing of them is shown
    got: object = None         # the rule's view of the student's observation on `case`
    want: object = None        # ... and of the lab's (None for a rule that compares the code with itself)
    at: int = None             # where the two views first differ
    stop: dict = None          # how the student's run stopped on `case`, if it did
    note: object = None        # a Msg: why the rule was not judged (it applies=False then)


@dataclass
class Result:
    """A step's verdicts, its root cause, and whether its code is there at all."""
    number: object
    verdicts: list = field(default_factory=list)
    misconception: str = ""
    absent: dict = None        # the step's code is not there: {"stop": ...} (a stub not written, no file, ...)
    shown: str = ""            # the rule whose case (and misconception) the report shows
    excused: object = None     # a later step whose mistake this step's failures come from (paid there)
    quiet: bool = False        # judged beside the reference: nothing the student's code gave is shown
    others: list = field(default_factory=list)  # other steps' misconceptions that do what the code did here

    @property
    def passed(self):
        return self.absent is None and all(verdict.ok for verdict in self.verdicts if verdict.applies)


def family(step, seed, hidden, artifacts=None):
    """The cases of a step: public ones from the public seed, hidden ones from the course secret; with
    `artifacts` ({file name: its text, or None if missing}), the step's saved files too (public)."""
    module = step.module
    cases = list(_generated(module, step.number, seed if hidden else PUBLIC_SEED, hidden))
    if artifacts is not None and not hidden and hasattr(module, "artifact_cases"):
        cases = cases + module.artifact_cases(artifacts)
    return cases


@functools.lru_cache(maxsize=64)  # the same for every hand-in of a batch: made once (cases are never changed)
def _generated(module, number, seed, hidden):
    return tuple(module.cases(rng_for(seed, number, "hidden" if hidden else "public"), hidden))


def _jobs(step, cases):
    """All jobs of `cases`, and the slice of each case among them."""
    jobs, slices = [], []
    for case in cases:
        mine = step.module.jobs(case)
        slices.append(slice(len(jobs), len(jobs) + len(mine)))
        jobs += mine
    return jobs, slices


def run_cases(step, cases, hidden):
    """Generator: the observation of each case (None for a case whose run never happened)."""
    observed = [None] * len(cases)
    todo = [index for index, case in enumerate(cases) if step.module.jobs(case)]
    for index, case in enumerate(cases):
        if index not in todo:  # nothing to run (a saved file with no code to compare it with)
            observed[index] = step.module.observe(case, [])
    for attempt in range(1 + RETRIES):
        if not todo:
            break
        jobs, slices = _jobs(step, [cases[index] for index in todo])
        outcomes = yield Request(jobs, hidden, step.number)
        looped = any(outcome.get("kind") in STOPPED for outcome in outcomes)
        again = []
        for index, part in zip(todo, slices):
            got = outcomes[part]
            if any(outcome.get("kind") == "not-run" for outcome in got) and not looped and attempt < RETRIES:
                again.append(index)  # its process stopped before it (not by this step's code): in a new one
                continue
            observed[index] = step.module.observe(cases[index], got)  # a case never run is a stop: not run
        todo = again
    return observed


def stops(obs):
    """Every stop in an observation: its own, or its runs' (a case of several runs)."""
    if not isinstance(obs, dict):
        return []
    found = [obs["stop"]] if obs.get("stop") else []
    return found + [run["stop"] for run in obs.get("runs") or () if isinstance(run, dict) and run.get("stop")]


def unrun(obs):
    """Did every stop of an observation come from its run not happening (its process stopped before it)?"""
    found = stops(obs)
    return bool(found) and all(stop.get("stop") == "not-run" for stop in found)


def fails(rule, case, got, want):
    """Does the student's observation differ from the lab's for this rule? (None: not judged on this case)"""
    if case["kind"] not in rule.kinds or got is None:
        return None
    if rule.holds is not None:
        return not rule.holds(case, got, want)
    if want is None:
        return None
    return not same(rule.view(case, got), rule.view(case, want))


class StepJudge:
    """The state of one step's judging: its cases, what the student's code did, and the first differences."""

    def __init__(self, step, expect, seed, number_of, owner=None):
        self.step, self.expect, self.seed, self.number_of, self.owner = step, expect, seed, number_of, owner
        self.result = Result(step.number)
        self.first = {}        # rule id -> (case, got, want, hidden)
        self.applies = {rule.id: rule.optional is None for rule in step.rules}
        self.judged = {rule.id: False for rule in step.rules}
        self.failing_cases = []  # (case, got) of every public case some rule fails on
        self.shown = None        # the rule whose case and hint are shown (the first failing one, after shrinking)
        self.stopped = False     # a run of it was stopped from outside (a timeout, a flood, a kill)

    def take(self, cases, observed, hidden):
        """Judge the observations of a family of cases."""
        module = self.step.module
        for case, got in zip(cases, observed):
            if got is None:
                continue
            absent = self.absent(case, got)
            if absent is not None and self.result.absent is None:
                self.result.absent = absent
            own = all(rule.own for rule in self.step.rules if case["kind"] in rule.kinds)
            want = None if own else self.expect.want(self.step, case)
            failing = False
            for rule in self.step.rules:
                if rule.optional is not None and case["kind"] in rule.kinds and rule.optional(got):
                    self.applies[rule.id] = True
                verdict = fails(rule, case, got, want)
                if verdict is None:
                    continue
                self.judged[rule.id] = True
                if verdict:
                    failing = failing or rule.optional is None or rule.optional(got)  # an optional rule: if it applies
                    if rule.id not in self.first or unrun(self.first[rule.id][1]) and not unrun(got):
                        self.first[rule.id] = (case, got, want, hidden)  # a case that ran says more than one that did not
            if failing and not hidden:
                self.failing_cases.append((case, got))
            if any(stop.get("stop") in STOPPED for stop in stops(got)):
                self.stopped = True
        if not hidden and self.result.absent is None and hasattr(module, "missing"):
            self.result.absent = module.missing([(case, got) for case, got in zip(cases, observed) if got is not None])

    def required_kinds(self):
        return {kind for rule in self.step.rules if rule.optional is None for kind in rule.kinds}

    def absent(self, case, got):
        """A stop that says the step's code is not there: its stub not written, its file or name missing."""
        if case["kind"] in FILES:  # a saved file: its step's code is the command that makes it
            return stub_stop(got) if case["kind"] == "artifact" else None
        if case["kind"] not in self.required_kinds():
            return None  # an optional function's stub: a rule's failure, not missing code
        module = self.step.module
        if hasattr(module, "absent"):
            found = module.absent(case, got)
            if found is not None:
                return found
        for stop in stops(got):
            if stop["stop"] in ("missing", "missing-name", "import"):  # no file, no such name, or not importable
                return stop
            if stop.get("type") == "NotImplementedError" and self.number_of(stop) is not None:
                return stop  # a stub not written yet: this step's, or one its code runs through
        return None

    def optional(self):
        """The optional rules that apply to this code (it has the feature): part of its signature."""
        return frozenset(rule.id for rule in self.step.rules if rule.optional is not None and self.applies[rule.id])

    def first_failing(self):
        """The rule to show: the one chosen on the smallest case, else the first failing one that applies (one of
        the lab's own rules before an optional one)."""
        if self.shown is not None:
            return self.step.rule(self.shown)
        failing = [rule for rule in self.step.rules if rule.id in self.first and self.applies[rule.id]]
        failing.sort(key=lambda rule: unrun(self.first[rule.id][1]))  # one whose case ran, first (a stable sort)
        return next((rule for rule in failing if rule.optional is None), failing[0] if failing else None)

    def failing_rules(self, case, got, want, required=False):
        """The rules (that apply) on which `got` differs from `want` for `case`: the lab's own first, then the
        optional ones (an edition's counters); with `required`, the lab's own only."""
        found = [rule for rule in self.step.rules if self.applies[rule.id] and fails(rule, case, got, want)]
        mine = [rule for rule in found if rule.optional is None]
        return mine if required else mine + [rule for rule in found if rule.optional is not None]

    def shrink(self, rule):
        """Generator: make the rule's case smaller while the step still differs on it (the reference answers);
        the rule shown is then the first one that differs on the smallest case."""
        case, got, want, hidden = self.first[rule.id]
        if not self.expect.can_shrink:
            return
        required = rule.optional is None  # smaller while a rule of the lab's own still differs
        seen = set()
        for _ in range(SHRINK_ROUNDS):
            candidates = []
            for candidate in self.step.module.shrink(case):
                key = repr(candidate)
                if key not in seen and candidate["kind"] in rule.kinds:
                    seen.add(key)
                    candidates.append(candidate)
                if len(candidates) >= SHRINK_CANDIDATES:
                    break
            if not candidates:
                break
            observed = yield from run_cases(self.step, candidates, hidden)
            for candidate, seen_obs in zip(candidates, observed):
                if seen_obs is None:
                    continue
                expected = self.expect.want(self.step, candidate)
                if self.failing_rules(candidate, seen_obs, expected, required):
                    case, got, want = candidate, seen_obs, expected
                    break
            else:
                break
        shown = self.failing_rules(case, got, want, required)
        if shown:
            self.first[shown[0].id] = (case, got, want, hidden)
            self.shown = shown[0].id

    def settle(self):
        """The Result: one verdict per rule, and the root cause."""
        result = self.result
        for rule in self.step.rules:
            applies = self.applies[rule.id] and (self.judged[rule.id] or rule.id in self.first)
            if rule.id not in self.first:
                result.verdicts.append(Verdict(rule.id, True, applies))
                continue
            case, got, want, hidden = self.first[rule.id]
            got_view = rule.seen(case, got)
            want_view = rule.expected(case, want) if want is not None else None
            at = first_difference(got_view, want_view) if want is not None else None
            result.verdicts.append(Verdict(rule.id, False, applies, None if hidden else case, hidden,
                                           None if hidden else got_view, None if hidden else want_view,
                                           None if hidden else at, next(iter(stops(got)), None)))
        if result.absent is None:
            rule = self.first_failing()
            if rule is not None:
                result.shown = rule.id
                case, got, want, hidden = self.first[rule.id]
                result.misconception = self.classify(case, got)
        return result

    def explained(self, case, got):
        """The misconceptions whose planted bug does what the student's code did on `case`: this step's, and the
        other steps' written in the same file (one of those may be the cause: that step then pays for it)."""
        return self.expect.explains(self.step, case, got, self.optional())

    def mine(self, names):
        if self.owner is None:
            return list(names)
        return [name for name in names if self.owner(self.step.file, name) in (None, self.step.number)]

    def classify(self, case, got):
        """The misconception whose planted bug did exactly what the student's code did on `case` (else "").
        Another step's misconceptions that do are kept in result.others: if that step fails, it pays."""
        if case["kind"] in FILES and case.get("text") is None:
            return "missing-artifact"
        if case["kind"] == "artifact" and file_value(case) is not None and "unreadable" in (file_value(case) or {}):
            return "not-json"
        found = self.explained(case, got)
        mine = self.mine(found)
        self.result.others = [name for name in found if name not in mine]
        if mine:  # a planted bug that did the same here must do the same on most failing cases: else the
            # student's mistake is another one (a cache that counts entries, not tokens, looks oversized-evicts
            # on one case and not on the others), and the case is shown alone, never a guessed cause
            elsewhere = [set(self.explained(other, seen_obs)) for other, seen_obs in self.failing_cases[:TIE_CASES]]
            score = {name: sum(name in names for names in elsewhere) for name in mine}
            best = max(score.values())
            chosen = [name for name in mine if score[name] == best and 2 * best >= len(elsewhere)]
            return chosen[0] if len(chosen) == 1 else ""  # several alike everywhere: no guess either
        if hasattr(self.step.module, "explain"):
            mine = [name for name in [self.step.module.explain(case, got)] if name]
        if not mine and case["kind"] == "artifact" and not stops(got):
            return "file-not-made"  # read well, the code ran well: the file is not what the code makes now
        return mine[0] if mine else ""


def judge(steps, expect, seed=None, number_of=lambda stop: None, artifacts=None, owner=None, stood_in=()):
    """Generator: judge `steps` (StepSpecs, in the order their cases run) and return {number: Result}.

    Public cases of every step first (with `artifacts`, {file name: text or None}, the saved files too),
    then each failing step's smaller cases, then the hidden ones (with a seed), so that no code that runs on
    a public case has seen a hidden one. `stood_in`: steps whose code a reference stands in for elsewhere when
    they fail (the grader's): a later step that runs on one that failed is judged here on its saved files only.
    """
    judges = [StepJudge(step, expect, seed, number_of, owner) for step in steps]
    judged = {one.step.number: one for one in judges}
    phases = (False, True) if seed is not None else (False,)
    for hidden in phases:
        for one in judges:
            if hidden and (one.result.absent is not None or one.stopped):
                continue  # its code is not there, or it ran out of time: the hidden cases would say the same
            cases = family(one.step, seed, hidden, artifacts)
            if any(number in stood_in and (judged[number].result.absent is not None or judged[number].first)
                   for number in one.step.runs_on if number in judged):
                cases = [case for case in cases if case["kind"] in FILES]  # its code: judged beside the reference
            stalled = [number for number in one.step.runs_on if number in judged and judged[number].stopped]
            if stalled:  # its code runs on code that looped or flooded: not run again (held back behind that step)
                observed = [one.step.module.observe(case, [{"kind": "not-run"}] * len(one.step.module.jobs(case)))
                            for case in cases]
                one.stopped = True
            else:
                observed = yield from run_cases(one.step, cases, hidden)
            one.take(cases, observed, hidden)
        for one in judges:
            rule = one.first_failing()
            if rule is not None and one.result.absent is None and one.first[rule.id][3] == hidden \
                    and not one.stopped:  # a run stopped from outside is no smaller on a smaller case
                yield from one.shrink(rule)
    results = needs({one.step.number: one.settle() for one in judges}, steps)
    return excuse(results, steps, owner) if owner else results


def excuse(results, steps, owner):
    """A step whose failure a later step's mistake explains (its planted bug does what the student's code did,
    and that step fails too) is not charged for it: the mistake is the later step's, paid there."""
    for step in steps:
        result = results[step.number]
        causes = [owner(step.file, name) for name in result.others]
        later = next((number for number in causes if number in results and number != step.number
                      and not results[number].passed), None)
        if later is None or result.passed:
            continue
        for verdict in result.verdicts:
            if not verdict.ok and verdict.applies:
                verdict.applies, verdict.note = False, Msg("check.follows-from-step", step=later)
        result.misconception, result.shown, result.excused = "", "", later
    return results


def needs(results, steps):
    """Rules judged only once other steps pass (step 6's counts are step 2's too): not judged otherwise."""
    for step in steps:
        for rule_id, numbers in getattr(step.module, "NEEDS", {}).items():
            failing = [number for number in numbers if number in results and not results[number].passed]
            if failing:
                for verdict in results[step.number].verdicts:
                    if verdict.rule == rule_id:
                        verdict.applies, verdict.note = False, Msg("check.needs-step", step=failing[0])
    return results


def drive(generator, execute):
    """Run a judge() generator to its end with execute(jobs, hidden) -> outcomes; its return value."""
    try:
        request = next(generator)
        while True:
            request = generator.send(execute(request.jobs, request.hidden))
    except StopIteration as stop:
        return stop.value


def ended(outcomes):
    """Did the process stop (a timeout, a flood, a kill) before every job ran?"""
    return any(outcome.get("kind") in ENDED for outcome in outcomes)


def first(iterable, count):
    return list(islice(iterable, count))
