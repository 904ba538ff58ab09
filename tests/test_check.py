"""The public checks: one planted mistake gets exactly one hint, the one that names its root cause.

The caches' plants are checked in this process (check.lru_cache(cls)); the scripts' plants run the
real way, through the driver in a fresh process, as `kvlab check` runs them. tests/planted.py is the
table of plants.
"""
import importlib.util
import re
from pathlib import Path

import pytest

from helpers import KVLAB
from kvlab import check
from kvlab.check import judging, labsteps, oracle
from kvlab.check.hints import HINTS
from kvlab.check.report import HELD, Report, Row, hold_back
from kvlab.instructor.oracle import Live, Recording
from planted import PLANTS, folder_with, planted_text

FAST = 0.5  # seconds a planted run may take before it counts as endless (the lab's runs take milliseconds)


def module_of(plant, tmp_path):
    path = tmp_path / f"{plant.name}.py"
    path.write_text(planted_text(plant))
    spec = importlib.util.spec_from_file_location(plant.name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("plant", [p for p in PLANTS if p.script == "kvsim.py" and p.name != "kvsim_import_loop"],
                         ids=lambda plant: plant.name)
def test_a_planted_cache_bug_gets_its_one_hint(plant, tmp_path):
    module = module_of(plant, tmp_path)
    report = check.lru_cache(module.LRUCache) if plant.steps == (1,) else check.two_tier_cache(module.TwoTierCache)
    assert report.misconceptions == [plant.misconception], report
    assert all(row.held for row in report.failures[1:])


@pytest.mark.parametrize("plant", [p for p in PLANTS if p.script != "kvsim.py"], ids=lambda plant: plant.name)
def test_a_planted_script_bug_gets_its_one_hint_from_the_first_step_it_breaks(plant, tmp_path):
    reports = check.steps(plant.steps, folder=folder_with(plant, tmp_path), artifacts=False, timeout=FAST)
    first = reports[plant.steps[0]]
    assert first.misconceptions == [plant.misconception], first
    assert not any(reports[number].passed for number in plant.steps)


def test_a_cache_bug_is_named_once_in_the_whole_table_and_the_steps_on_it_wait(tmp_path):
    reports = check.steps(folder=folder_with(next(p for p in PLANTS if p.name == "lru_evicts_newest"), tmp_path),
                          artifacts=False)
    named = {number: report.misconceptions for number, report in reports.items() if report.misconceptions}
    assert named == {1: ["evicts-newest"]}
    assert reports[8].passed
    waiting = [reports[number].failures[0].hint for number in (2, 5) if not reports[number].passed]
    assert waiting and all(hint.startswith("held back: step 1 fails above") for hint in waiting)


def test_an_endless_import_is_a_timeout_of_the_whole_file(tmp_path):
    plant = next(p for p in PLANTS if p.name == "kvsim_import_loop")
    report = check.lru_cache(folder=folder_with(plant, tmp_path), timeout=FAST)
    assert report.misconceptions == ["timeout"] and len(report.rows) == 1


def test_the_reference_passes_every_public_check():
    reports = check.steps(folder=KVLAB, artifacts=False)
    assert all(report.passed for report in reports.values()), labsteps.table(reports)


def test_a_stub_names_its_step_instead_of_a_traceback(tmp_path):
    for name in ("kvsim.py", "scenario.py", "summarize.py"):
        (tmp_path / name).write_bytes((KVLAB / name).read_bytes())
    text = (tmp_path / "kvsim.py").read_text()
    start, end = text.index("        # BEGIN SOLUTION\n        if key in self._sizes:"), text.index("        # END SOLUTION\n", text.index("if key in self._sizes:"))
    stub = '        raise NotImplementedError("step 1 is not written yet: LRUCache.access in kvlab/kvsim.py")\n'
    (tmp_path / "kvsim.py").write_text(text[:start] + stub + text[end:])
    reports = check.steps((1, 2), folder=tmp_path, artifacts=False)
    for report in reports.values():
        assert report.failures[0].hint == "step 1 is not written yet: LRUCache.access in kvlab/kvsim.py"
        assert "Traceback" not in str(report)


class TestInProcess:
    """The notebooks' demos: a class or a function given directly, checked in this process."""

    def test_a_fifo_subclass_of_the_labs_cache(self):
        from kvlab.kvsim import LRUCache

        class FIFOCache(LRUCache):
            def access(self, key, size):
                return True if key in self else super().access(key, size)
        report = check.lru_cache(FIFOCache)
        assert report.misconceptions == ["fifo"] and report.title == "LRUCache (FIFOCache)"

    def test_a_summary_that_rounds_before_dividing(self):
        from kvlab import summarize

        def rounded_first(records):
            result = summarize.summarize(records)
            for name, ratio in result["ratio"].items():
                base, lm = result["baseline"][name], result["lmcache"][name]
                ratio["p50"] = round(base["p50_ms"] / lm["p50_ms"], 2)
                ratio["mean"] = round(base["mean_ms"] / lm["mean_ms"], 2)
            return result
        assert check.summarize_function(rounded_first).misconceptions == ["rounds-before-ratio"]
        assert check.summarize_function(summarize.summarize).passed


class TestFailuresAreKindsNotSentences:
    """What stopped the student's code is the outcome's kind and exception type, never its message."""

    def row(self, outcome, crash="eviction"):
        rule = judging.Rule("rule", [["new", "LRUCache", 9], ["keys", ""]], lambda t, o: t[1], crash)
        return judging.judge(rule, outcome, None)

    def test_an_attribute_error_inside_the_students_method_is_a_crash_not_a_missing_class(self):
        raised = {"type": "AttributeError", "message": "'LRUCache' object has no attribute '_sizes'",
                  "where": "kvsim.py:40"}
        row = self.row({"kind": "ok", "results": [{"v": None}, {"raised": raised}]})
        assert row.misconception == "eviction" and "AttributeError" in row.hint
        assert judging.job_failure({"kind": "missing-attr", "name": "LRUCache"}, "kvsim", "LRUCache").misconception \
            == "missing-class"

    def test_the_students_own_timeout_error_is_a_crash_and_ours_a_timeout(self):
        raised = {"type": "TimeoutError", "message": "timed out", "where": "kvsim.py:12"}
        assert self.row({"kind": "ok", "results": [{"v": None}, {"raised": raised}]}).misconception == "eviction"
        assert self.row({"kind": "timeout", "results": [{"v": None}]}).misconception == "timeout"

    def test_a_stub_is_not_written_whatever_its_rule_expects(self):
        raised = {"type": "NotImplementedError", "message": "step 1 is not written yet: LRUCache.keys in kvlab/kvsim.py"}
        row = self.row({"kind": "ok", "results": [{"v": None}, {"raised": raised}]})
        assert (row.misconception, row.hint) == ("not-written", raised["message"])


class TestReport:
    def test_only_the_first_failure_gives_its_hint(self):
        rows = hold_back([Row("a", True), Row("b", False, "hint b", "fifo"), Row("c", False, "hint c", "eviction")])
        assert [row.misconception for row in rows] == ["", "fifo", ""] and rows[2].hint == HELD

    def test_an_earlier_step_can_hold_back_every_failure(self):
        report = Report("t", [Row("a", False, "x", "fifo"), Row("b", False, "y", "eviction")]).held_back("fix 1")
        assert report.misconceptions == [] and [row.hint for row in report.rows] == ["fix 1", HELD]

    def test_text_and_html_strip_control_characters(self):
        report = Report("t", [Row("\x1b[31mred\r", False, "bell\x07 and \x1b]0;title\x07", "crash")])
        assert "\x1b" not in str(report) and "\x07" not in str(report) and "\r" not in str(report)
        assert "\x1b" not in report._repr_html_() and "✗" in report._repr_html_()

    def test_as_dict_round_trips(self):
        report = check.lru_cache()
        assert Report.from_dict(report.as_dict()).as_dict() == report.as_dict()


class TestStoredExpectations:
    def test_what_the_checks_ask_is_recorded_and_answered_from_the_record(self, tmp_path):
        recording = Recording(Live())
        with oracle.using(recording):
            assert check.lru_cache().passed
        path = tmp_path / "expected.json"
        path.write_text(__import__("json").dumps(recording.answers))
        with oracle.using(oracle.Stored(path)):
            assert check.lru_cache().passed

    def test_an_unknown_measured_file_is_skipped_and_any_other_gap_fails(self, tmp_path):
        path = tmp_path / "expected.json"
        path.write_text("{}")
        with oracle.using(oracle.Stored(path)):
            lru = check.lru_cache()
            summary = check.summarize_function()
        assert lru.misconceptions == ["stale-expectations"] and lru.rows[-1].hint == HINTS["stale-expectations"]
        assert summary.passed and all(row.skipped for row in summary.rows) and "–" in str(summary)


def test_every_hint_is_used():
    sources = "".join(path.read_text() for folder in ("check", "instructor") for path in (KVLAB / folder).glob("*.py")
                      if path.name != "hints.py")
    unused = [key for key in HINTS if not re.search(rf"[\"']{re.escape(key)}[\"']", sources)]
    assert not unused, unused


def test_the_check_command_prints_one_table_and_its_status(capsys):
    from kvlab.cli import main
    main(["check", "1", "5", "--folder", str(KVLAB), "--artifacts", str(Path("/nonexistent"))])  # status 0: returns
    out = capsys.readouterr().out
    assert "1 ✓ LRUCache in kvsim.py" in out and out.rstrip().endswith("2 of 2 steps pass")
