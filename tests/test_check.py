"""The public checks: one planted mistake gets exactly one hint, the one that names its root cause.

The caches' plants are checked here in this process (check.lru_cache(cls)), under both oracles; every
plant, scripts' plants included, is checked the real way (the whole table, through the driver in a fresh
process, as `kvlab check` runs it) beside `kvlab grade` in test_parity.py. tests/planted.py is the
table of plants: every hint of the catalog is given by one of them, and every correct alternative
passes. The student edition's oracle (keyed digests) is exercised here too, on the same plants.
"""
import importlib.util
import json

import pytest

from helpers import KVLAB
from kvlab import check, messages, steps
from kvlab.check import caches, judging, labsteps, oracle
from kvlab.check.report import Report, Row, hold_back
from kvlab.i18n import Msg
from kvlab.instructor import release
from kvlab.instructor.oracle import Reference
from planted import ALTERNATIVES, ARTIFACT_PLANTS, ELSEWHERE, PLANTS, folder_with, planted_text

FAST = 0.5  # seconds a planted run may take before it counts as endless (the lab's runs take milliseconds)
CACHES = [p for p in PLANTS if p.script == "kvsim.py" and p.pieces and p.name not in
          ("kvsim_import_loop", "kvsim_import_error", "kvsim_renames_class", "lru_not_written")]


@pytest.fixture(scope="module")
def digests(tmp_path_factory):
    """The student edition's oracle, recorded from the reference as `kvlab release` records it."""
    path = tmp_path_factory.mktemp("digests") / "digests.json"
    path.write_text(release.digests_file(release.expectations(), salt="test-salt"))
    return oracle.Digests(path)


def module_of(plant, tmp_path):
    path = tmp_path / f"{plant.name}.py"
    path.write_text(planted_text(plant))
    spec = importlib.util.spec_from_file_location(plant.name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("plant", CACHES, ids=lambda plant: plant.name)
def test_a_planted_cache_bug_gets_its_one_hint(plant, tmp_path, digests):
    module = module_of(plant, tmp_path)
    for chosen in (None, digests):
        report = (check.lru_cache(module.LRUCache, oracle=chosen) if plant.steps == (1,)
                  else check.two_tier_cache(module.TwoTierCache, oracle=chosen))
        assert report.misconceptions == [plant.misconception], report
        assert all(row.held for row in report.failures[1:])


@pytest.mark.parametrize("plant", ALTERNATIVES, ids=lambda plant: plant.name)
def test_a_correct_alternative_passes(plant, tmp_path, digests):
    reports = check.steps(plant.steps, folder=folder_with(plant, tmp_path), artifacts=False, oracle=digests)
    assert all(report.passed for report in reports.values()), labsteps.table(reports)


@pytest.mark.parametrize("plant", ARTIFACT_PLANTS, ids=lambda plant: plant.name)
def test_a_wrong_or_missing_artifact_fails_its_step_saying_where_it_looked(plant, tmp_path, digests):
    from kvlab.instructor import artifacts
    artifacts.write(tmp_path)
    plant.change(tmp_path)
    report = check.step(plant.step, folder=KVLAB, artifacts=tmp_path, oracle=digests)
    assert report.misconceptions == [plant.misconception], report
    if plant.misconception == "missing-artifact":
        assert str(tmp_path) in str(report)


def test_every_hint_of_the_catalog_is_given_by_a_plant():
    hints = {key[len("hint."):] for key in messages.MESSAGES if key.startswith("hint.")}
    given = {plant.misconception for plant in PLANTS} | {plant.misconception for plant in ARTIFACT_PLANTS}
    assert hints - given - set(ELSEWHERE) == set(), "hints no plant gives: add a plant"
    assert given | set(ELSEWHERE) <= hints, "plants naming a hint the catalog does not have"


def test_no_hint_shows_the_labs_answer(tmp_path, digests):
    """A wrong cliff.json and a wrong sweep: the report shows the student's values, never the lab's."""
    from kvlab.instructor import artifacts
    artifacts.write(tmp_path)
    (tmp_path / "cliff.json").write_text('{"21520": 1, "30000": 1, "40000": 1, "45000": 1, "50109": 1, "50110": 1}\n')
    plant = next(p for p in PLANTS if p.name == "gpu_cliff_first_pass")
    text = str(check.steps((4,), folder=folder_with(plant, tmp_path / "code"), artifacts=tmp_path, oracle=digests)[4])
    for answer in ('"50110": 10', "'50110': 10", "[9, 8, 7, 6]"):
        assert answer not in text, text


def test_the_reference_passes_every_public_check_under_both_oracles(digests):
    for chosen in (None, digests):
        reports = check.steps(folder=KVLAB, artifacts=False, oracle=chosen)
        assert all(report.passed for report in reports.values()), labsteps.table(reports)


def test_the_digests_hold_no_answer(digests):
    text = digests.path.read_text()
    assert '"50110":10' not in text and "[9,8,7,6]" not in text and "576." not in text and "48.6" not in text
    assert set(json.loads(text)) == {"salt", "digests"}


def test_a_stale_edition_fails_and_an_unknown_measured_file_is_skipped(tmp_path):
    path = tmp_path / "digests.json"
    path.write_text('{"salt": "s", "digests": []}')
    stale = oracle.Digests(path)
    lru = check.lru_cache(oracle=stale)
    summary = check.summarize_function(oracle=stale)
    assert lru.misconceptions == ["stale-expectations"]
    assert summary.passed and all(row.skipped for row in summary.rows) and "–" in str(summary)


def test_a_cache_bug_is_named_once_in_the_whole_table_and_the_steps_on_it_wait(tmp_path):
    reports = check.steps(folder=folder_with(next(p for p in PLANTS if p.name == "lru_evicts_newest"), tmp_path),
                          artifacts=False)
    named = {number: report.misconceptions for number, report in reports.items() if report.misconceptions}
    assert named == {1: ["evicts-newest"]}
    assert reports[8].passed
    waiting = [reports[number].failures[0].held for number in (2, 5) if not reports[number].passed]
    assert waiting and all(held.id == "check.held-by-step" and held.params["step"] == 1 for held in waiting)


def test_a_stub_names_its_step_from_the_table_not_from_its_message(tmp_path):
    plant = next(p for p in PLANTS if p.name == "lru_not_written")
    reports = check.steps((1, 2), folder=folder_with(plant, tmp_path), artifacts=False)
    for report in reports.values():
        seen = report.failures[0].seen
        assert (seen.id, seen.params["step"], seen.params["function"]) == ("stub.not-written", "1", "LRUCache.access")
        assert "Traceback" not in str(report)


def test_random_cases_come_from_seed_step_and_rule_alone():
    first = steps.rng_for("s", 2, "scenario.random").random()
    assert first == steps.rng_for("s", 2, "scenario.random").random()
    assert first != steps.rng_for("s", 3, "scenario.random").random() != steps.rng_for("t", 2, "scenario.random").random()


def test_every_rule_of_the_table_has_a_text_and_a_builder():
    from kvlab.check import caches, scenarios, summaries
    for number, step in {**steps.STEPS, **steps.EXERCISES}.items():
        for spec in step.rules:
            assert f"rule.{spec.id}" in messages.MESSAGES, spec.id
            rng = steps.rng_for("x", number, spec.id)
            if step.process == "kvsim":
                assert caches.BUILDERS[spec.id](caches.CLASS_OF[number], rng).id == spec.id
            elif step.process == "scenario":
                assert scenarios.build(spec.id, rng).id == spec.id
            else:
                assert summaries.build(spec.id, rng, [], summaries.Names()).id == spec.id


def test_hidden_rules_never_say_what_they_saw(tmp_path):
    plant = next(p for p in PLANTS if p.name == "lru_fifo_for_numbers")
    plan = labsteps.Plan(execute=check._execute(folder_with(plant, tmp_path)), oracle=Reference(), seed="secret")
    report = labsteps.class_reports(plan, (1,))[1]
    hidden = [row for row in report.rows if row.rule_id == "lru.hidden-random"]
    assert hidden and not hidden[0].ok and hidden[0].seen is None


class TestInProcess:
    """The notebooks' demos: a class or a function given directly, checked in this process."""

    def test_a_fifo_subclass_of_the_labs_cache(self):
        from kvlab.kvsim import LRUCache

        class FIFOCache(LRUCache):
            def access(self, key, size):
                return True if key in self else super().access(key, size)
        report = check.lru_cache(FIFOCache)
        assert report.misconceptions == ["fifo"] and str(report.title) == "Step 1: LRUCache in kvsim.py (FIFOCache)"

    def test_the_mru_exercise_names_its_two_mistakes(self):
        from kvlab import policies
        from kvlab.kvsim import LRUCache

        class MRUForNumbers(policies.MRUCache):
            def access(self, key, size):
                if isinstance(key, int) and key in self:
                    return True  # a hit on a number key is not made the most recent
                return super().access(key, size)
        assert check.mru_cache(LRUCache).misconceptions == ["mru-evicts-oldest"]
        assert check.mru_cache(MRUForNumbers).misconceptions == ["mru-reference"]
        assert check.mru_cache(policies.MRUCache).passed

    def test_summaries_of_either_reading_of_the_ratio_pass(self):
        from kvlab import summarize

        def rounded_first(records):
            result = summarize.summarize(records)
            for name, ratio in result["ratio"].items():
                base, lm = result["baseline"][name], result["lmcache"][name]
                ratio["p50"] = round(base["p50_ms"] / lm["p50_ms"], 2)
                ratio["mean"] = round(base["mean_ms"] / lm["mean_ms"], 2)
            return result
        assert check.summarize_function(rounded_first).passed
        assert check.summarize_function(summarize.summarize).passed


class TestFailuresAreKindsNotSentences:
    """What stopped the student's code is the outcome's kind and exception type, never its message."""

    def row(self, outcome, crash="eviction"):
        rule = judging.Rule("r", Msg("rule.lru.starts-empty"), [["new", "LRUCache", 9], ["keys", ""]],
                            lambda t, o: t[1], crash)
        return judging.judge(rule, outcome, None)

    def test_an_attribute_error_inside_the_students_method_is_a_crash_not_a_missing_class(self):
        raised = {"type": "AttributeError", "message": "'LRUCache' object has no attribute '_sizes'",
                  "where": "kvsim.py:40", "function": "LRUCache.keys"}
        row = self.row({"kind": "ok", "results": [{"v": None}, {"raised": raised}]})
        assert row.misconception == "eviction" and "AttributeError" in str(row.hint)
        assert judging.job_failure({"kind": "missing-attr", "name": "LRUCache"}, "kvsim", "LRUCache").misconception \
            == "missing-class"

    def test_the_students_own_timeout_error_is_a_crash_and_ours_a_timeout(self):
        raised = {"type": "TimeoutError", "message": "timed out", "where": "kvsim.py:12", "function": "LRUCache.keys"}
        assert self.row({"kind": "ok", "results": [{"v": None}, {"raised": raised}]}).misconception == "eviction"
        assert self.row({"kind": "timeout", "results": [{"v": None}]}).misconception == "timeout"

    def test_a_not_implemented_error_outside_a_stub_is_a_crash(self):
        raised = {"type": "NotImplementedError", "message": "step 1 is not written yet", "where": "kvsim.py:3",
                  "function": "helper"}
        assert self.row({"kind": "ok", "results": [{"v": None}, {"raised": raised}]}).misconception == "eviction"


class TestReport:
    def test_only_the_first_failure_gives_its_hint(self):
        rule = Msg("rule.lru.counts")
        rows = hold_back([Row(rule, True), Row(rule, False, "fifo"), Row(rule, False, "eviction")])
        assert [row.misconception for row in rows] == ["", "fifo", ""] and rows[2].hint.id == "check.held"

    def test_text_and_html_strip_control_characters(self):
        seen = Msg("seen.value", where="x", value="bell\x07 and \x1b]0;title\x07")
        report = Report(Msg("check.scenario-title"), [Row(Msg("rule.lru.counts"), False, "crash", seen)])
        assert "\x1b" not in str(report) and "\x07" not in str(report)
        assert "\x1b" not in report._repr_html_() and "✗" in report._repr_html_()

    def test_as_dict_round_trips(self):
        report = check.lru_cache()
        assert Report.from_dict(report.as_dict()).as_dict() == report.as_dict()


def test_the_check_command_prints_one_table_and_its_status(capsys):
    from kvlab.cli import main
    main(["check", "1", "5", "--folder", str(KVLAB)])  # status 0: returns
    out = capsys.readouterr().out
    assert "1 ✓ LRUCache in kvsim.py" in out and out.rstrip().endswith("2 of 2 steps OK")


def test_a_check_that_reads_artifacts_says_when_one_is_missing_and_where(tmp_path, capsys):
    from kvlab.cli import main
    with pytest.raises(SystemExit) as stop:
        main(["check", "2", "3", "--folder", str(KVLAB), "--artifacts", str(tmp_path)])
    out = capsys.readouterr().out
    assert stop.value.code == 1 and "baseline.json" in out and str(tmp_path) in out, out


def test_canonical_text_is_json_with_sorted_keys_and_whole_floats_as_ints():
    def expected(value):  # the definition, written plainly
        def tidy(item):
            if isinstance(item, float) and item.is_integer() and abs(item) < 2 ** 53:
                return int(item)
            if isinstance(item, list):
                return [tidy(one) for one in item]
            if isinstance(item, dict):
                return {key: tidy(one) for key, one in item.items()}
            return item
        return json.dumps(tidy(value), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    values = [3.0, -0.0, 2.0 ** 60, 0.1, True, None, "é", [1, 2, "a"], [1, [2.0]], [False, [], 0],
              {"b": [1.0, {"c": 2.5}], "a": True}, [[1, 2], {"x": 3.0}], 7]
    assert [oracle.canonical(value) for value in values] == [expected(value) for value in values]


class TestRunsMatchedWhole:
    """A long random run is matched whole first: the same verdict, and the same first step, as step by step."""

    class Answer:
        def __init__(self, steps):
            self.steps, self.asked = steps, []

        def matches(self, value, path=()):
            self.asked.append(path)
            return value == (self.steps if path == () else self.steps[path[0]])

    STATES, ACCESSES = [[0], [1], [2]], [["a", 1], ["b", 2], ["c", 3]]

    class Results:  # a trace: what each op gave, or what it raised
        def __init__(self, *values):
            self.values = values

        def __getitem__(self, index):
            if isinstance(self.values[index], Exception):
                raise self.values[index]
            return self.values[index]

    def test_a_run_that_matches_is_one_match(self):
        answer = self.Answer([[1], [2], [3]])
        assert caches._first_unmatched(answer, self.STATES, self.Results(1, 2, 3), self.ACCESSES) is None
        assert answer.asked == [()]

    def test_the_first_step_that_differs_is_named(self):
        answer = self.Answer([[1], [2], [3]])
        assert caches._first_unmatched(answer, self.STATES, self.Results(1, 9, 9), self.ACCESSES) == \
            (1, [9], "a:1 b:2")

    def test_a_step_that_raises_after_a_wrong_one_is_not_reached(self):
        raised = judging.Raised({"type": "KeyError", "message": "'k'"}, ["access", "", "k", 1])
        answer = self.Answer([[1], [2], [3]])
        assert caches._first_unmatched(answer, self.STATES, self.Results(1, 9, raised), self.ACCESSES) == \
            (1, [9], "a:1 b:2")
        with pytest.raises(judging.Raised):  # ... and one before any wrong step raises, as step by step
            caches._first_unmatched(answer, self.STATES, self.Results(raised, 9, 9), self.ACCESSES)
