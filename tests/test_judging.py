"""Judging by the lab text's contract, one step at a time (issue 25).

Each step is judged on generated cases, each rule comparing one part of what the code did with the lab's
rules. Shown here, in this process (the reference with one mistake planted is trusted code):
- every planted mistake fails its own step with its own hint, under the reference's expectations and under
  the student edition's stored ones (no reference code), and the case it shows is small;
- graded as `kvlab grade` grades (stand-ins, hidden cases), a mistake costs its own step once, and an
  inverted ratio keeps most of step 8;
- correct alternatives pass every step.
The sandboxed end-to-end grading of a class is test_grade.py's; a hand-in written from the lab text alone
and the edition's untouched stubs are test_check.py's.
"""
import json

import pytest

from kvlab import lab
from kvlab.check import conversation, engine, expected, labsteps, number_of
from kvlab.check.engine import Verdict
from kvlab.instructor import judge, plants, release
from kvlab.instructor.reference import Reference, handin_modules, run_here
from kvlab.lab import commands
from kvlab.lab.base import Misconception, first_difference, same
from planted import ALTERNATIVES, KVLAB

PLANTS = plants.plants()
EXPECT = Reference()


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """The student edition's expectations, as `kvlab release` stores them."""
    path = tmp_path_factory.mktemp("edition") / "expected.json"
    path.write_text(release.expected_file(release.expectations()))
    return expected.Stored(path)


def own_file_steps(plant):
    """The steps written in the plant's file (its mistake may show in any of them)."""
    return [step for step in lab.STEPS.values() if step.file == plant.file]


def judged(plant, expect, numbers=None):
    """{step: Result} of the plant's file's steps on the public cases, in this process."""
    modules = handin_modules(plant)
    steps = [lab.STEPS[number] for number in numbers] if numbers else own_file_steps(plant)
    generator = engine.judge(steps, expect, number_of=number_of, owner=lab.owner)
    return conversation.here(generator, lambda jobs: run_here(jobs, modules))


@pytest.mark.parametrize("number,name,index,plant", PLANTS, ids=[f"{p[1]}-{p[2]}" for p in PLANTS])
def test_a_planted_mistake_fails_its_own_step_with_its_own_hint(number, name, index, plant, stored):
    """On the public cases, as the student edition's `kvlab check` judges it: with its stored expectations
    (the reference's expectations, and their smaller cases, are the graded tests' below)."""
    result = judged(plant, stored, [number])[number]
    if result.absent is not None:  # a mistake that leaves the step undone (--cpu changes nothing): 0 points
        assert result.absent["stop"] == name
    else:
        assert not result.passed and result.misconception == name, (result.misconception, result.shown)


def test_the_case_shown_is_small_enough_to_trace_by_hand():
    """FIFO: three reads in a cache of two; a >= in the eviction loop: two reads."""
    shown = {}
    for name in ("fifo", "evicts-when-full", "rev-order", "median-even"):
        number, _, _, plant = next(one for one in PLANTS if one[1] == name and one[2] == 0)
        result = judged(plant, EXPECT)[number]
        verdict = next(verdict for verdict in result.verdicts if verdict.rule == result.shown)
        shown[name] = verdict.case
    assert shown["fifo"] == {"kind": "seq", "cls": "LRUCache", "caps": [2], "ops": [[0, "a", 1], [0, "b", 1], [0, "a", 1]]}
    assert len(shown["evicts-when-full"]["ops"]) == 2
    assert shown["rev-order"]["docs"] <= 2 and len(shown["rev-order"]["passes"]) <= 2
    assert len(shown["median-even"]["lines"]) <= 3


@pytest.mark.parametrize("name", ALTERNATIVES)
def test_a_correct_alternative_passes_every_step_of_its_file(name):
    results = judged(ALTERNATIVES[name], EXPECT)
    assert all(result.passed for result in results.values()), {key: result.misconception for key, result in results.items()}


GRADED = ("fifo", "used-not-freed", "tier-no-gpu-copy", "clears-between-passes", "gpu-cpu-swapped", "ratio-inverted",
          "text-on-stdout")


@pytest.mark.parametrize("name", GRADED)
def test_graded_with_stand_ins_and_hidden_cases_a_mistake_costs_its_own_step_once(name):
    number, _, _, plant = next(one for one in PLANTS if one[1] == name and one[2] == 0)
    results, replaced = plants.grade_here(handin_modules(plant), seed="course secret", expect=EXPECT)
    failing = [key for key, result in results.items() if not result.passed]
    assert failing == [number] and results[number].misconception == name
    reports = judge.reports(results, replaced)
    assert all(report.passed for key, report in reports.items() if key != number)


def test_an_inverted_ratio_keeps_most_of_step_8_and_a_stub_earns_nothing():
    from kvlab.instructor.course import default_points
    steps, rules = default_points()

    class Course:
        step_points, rule_points, partial = steps, rules, True
    number, _, _, plant = next(one for one in PLANTS if one[1] == "ratio-inverted")
    results, replaced = plants.grade_here(handin_modules(plant), expect=EXPECT)
    earned = judge.step_points(Course, 8, judge.reports(results, replaced)[8])
    assert steps[8] * 0.75 <= earned < steps[8]
    stub = engine.Result(8, [Verdict("summary.n", True)], absent={"stop": "raised", "type": "NotImplementedError"})
    assert judge.step_points(Course, 8, labsteps.report_of(lab.STEPS[8], stub)) == 0


def test_the_reference_passes_every_step_graded_with_hidden_cases():
    results, replaced = plants.grade_here(handin_modules(None), seed="course secret", expect=EXPECT)
    assert all(result.passed for result in results.values()) and replaced == ()


def test_a_hidden_difference_shows_no_case():
    step = lab.STEPS[1]
    result = engine.Result(1, [Verdict("lru.keys", False, case=None, hidden=True)], shown="lru.keys")
    report = labsteps.report_of(step, result)
    assert "hidden" in str(report.rows[0].hint) and "access(" not in str(report)


def test_two_misconceptions_alike_everywhere_give_no_guessed_cause():
    class Alike:
        can_shrink = False

        def want(self, step, case):
            return None

        def explains(self, step, case, got, optional=frozenset()):
            return ["fifo", "in-moves"]
    judged_step = engine.StepJudge(lab.STEPS[1], Alike(), None, lambda stop: None)
    judged_step.failing_cases = [({"kind": "seq"}, {})]
    assert judged_step.classify({"kind": "seq"}, {}) == ""


def test_a_saved_file_is_read_as_the_values_it_holds():
    document = {"passes": [{"order": "fwd", "gpu_hits": 0, "cpu_hits": 0, "misses": 1, "hit_docs": []}]}
    printed = {"doc": document, "stop": None, "stdout": json.dumps(document)}
    for text in (json.dumps(document), "\ufeff" + json.dumps(document, indent=2).replace("\n", "\r\n")):
        assert commands.holds_what_it_printed({"text": text}, printed)
    assert not commands.holds_what_it_printed({"text": None}, printed)
    crashed = {"doc": None, "stop": {"stop": "raised"}, "stdout": ""}
    assert commands.holds_what_it_printed({"text": "\n"}, crashed)  # what the code made, saved as it was


def test_views_differ_at_their_first_different_item():
    assert first_difference([1, 2, 3], [1, 2, 4]) == 2
    assert first_difference([1, 2], [1, 2, 3]) == 2
    assert first_difference([1.0], [1]) is None and not same([True], [1])


def test_every_misconception_has_a_hint_in_the_catalog():
    from kvlab.messages import MESSAGES
    names = {known.id for step in (*lab.STEPS.values(), *lab.EXERCISES.values()) for known in step.misconceptions}
    assert all(f"hint.{name}" in MESSAGES for name in names), sorted(n for n in names if f"hint.{n}" not in MESSAGES)
    assert all(isinstance(known, Misconception) for step in lab.STEPS.values() for known in step.misconceptions)


def test_every_rule_has_its_text_and_every_plant_is_found_once_in_its_function():
    from kvlab.messages import MESSAGES
    from kvlab.instructor.reference import planted_source
    for step in (*lab.STEPS.values(), *lab.EXERCISES.values()):
        for rule in step.rules:
            assert rule.text in MESSAGES, rule.id
        for planted in (step.module.plants() or {}).values():
            for plant in planted:
                source = (KVLAB / plant.file).read_text()
                assert planted_source(plant, source) != source
