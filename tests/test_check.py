"""kvlab.check: the reference passes every rule, and each planted mistake is named by its hint.

Every file in tests/buggy/ is a copy of a reference file with one planted bug (its first line says
which). The tables below say which misconception each one must be diagnosed as; the tests prove the
check names it, and names nothing else beyond the generic "differs from the reference on a long run".
"""
import importlib.util
import json
import shutil
import time
from pathlib import Path

import pytest

from helpers import KVLAB
from kvlab import check, kvsim, summarize
from kvlab.check import HINTS, Report, Row
from kvlab.check.scripts import parse_json_text
from kvlab.check.summaries import CASES, EVEN, RATIO, random_lines, records_of

BUGGY = Path(__file__).resolve().parent / "buggy"
GENERIC = {"lru-reference", "tier-reference", "wrong-result", "crash", "wrong-stat"}

LRU_BUGS = {
    "lru_fifo": {"fifo"},
    "lru_clears_on_oversized": {"oversized-evicts"},
    "lru_evicts_on_oversized": {"oversized-evicts"},
    "lru_stores_oversized": {"oversized-stored", "oversized-evicts"},  # it evicts everything to store it
    "lru_contains_moves": {"in-moves"},
    "lru_keys_moves": {"keys-moves"},
    "lru_used_wrong": {"used-wrong"},
    "lru_used_method": {"used-method"},
}
TIER_BUGS = {
    "tier_touches_cpu_on_gpu_hit": {"tier-touches-cpu"},
    "tier_no_cpu_refresh": {"tier-no-cpu-refresh"},
    "tier_no_copy_to_gpu": {"tier-no-gpu-copy"},
    "tier_miss_only_gpu": {"tier-miss-one-tier"},
    "tier_cpu_zero_fails": {"tier-cpu-zero"},
}
SCENARIO_BUGS = {
    "scenario_clears_between_passes": {"clears-between-passes"},
    "scenario_hit_docs_sorted": {"hit-docs-order"},
    "scenario_prints_text": {"text-on-stdout"},
}
SUMMARIZE_BUGS = {
    "summarize_median_low": {"median-even"},
    "summarize_rounds_before_ratio": {"rounds-before-ratio"},
    "summarize_renames_passes": {"pass-names"},
    "summarize_no_blank_skip": {"blank-lines"},
}
# Used by test_grade.py: code that hangs, floods or does not compile.
ROBUSTNESS = {"scenario_infinite_loop", "scenario_huge_print", "scenario_syntax_error", "kvsim_import_loop"}


def load(name):
    """Import a buggy fixture as a module of its own."""
    spec = importlib.util.spec_from_file_location(f"buggy_{name}", BUGGY / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def named(report):
    """The specific misconceptions a report names (the generic ones left out)."""
    return set(report.misconceptions) - GENERIC


def assert_diagnosed(report, expected):
    assert not report.passed
    assert named(report) == expected, str(report)
    for misconception in expected:
        assert HINTS[misconception] in str(report)


class TestFixtures:
    def test_every_fixture_is_in_a_table(self):
        tables = {**LRU_BUGS, **TIER_BUGS, **SCENARIO_BUGS, **SUMMARIZE_BUGS}
        assert {path.stem for path in BUGGY.glob("*.py")} == set(tables) | ROBUSTNESS

    @pytest.mark.parametrize("path", sorted(BUGGY.glob("*.py")), ids=lambda path: path.stem)
    def test_each_fixture_says_its_bug_on_the_first_line(self, path):
        assert path.read_text().startswith("# BUG: ")


def test_every_misconception_named_in_the_code_has_a_hint():
    import re
    source = "".join(path.read_text() for path in [*(KVLAB / "check").glob("*.py"), KVLAB / "grade.py"])
    used = set(re.findall(r'Wrong\(\s*"([a-z-]+)"', source)) | set(re.findall(r'Rule\(\w+, "([a-z-]+)"', source))
    used |= set(re.findall(r'_(?:lru|tier)_rule\(.*?, "([a-z-]+)"\)', source, flags=re.S))
    assert len(used) > 30 and used <= set(HINTS)


def test_check_grade_and_handin_need_the_standard_library_only():
    from helpers import assert_success, python
    code = ("import sys, kvlab.check, kvlab.grade, kvlab.handin, kvlab.sandbox\n"
            "print(sorted(name for name in ('pandas', 'matplotlib', 'numpy') if name in sys.modules))")
    result = python("-c", code)
    assert_success(result)
    assert result.stdout == "[]\n"


class TestReferencePassesEverything:
    def test_lru_cache(self):
        report = check.lru_cache(kvsim.LRUCache)
        assert report.passed, str(report)
        assert len(report.rows) >= 12

    def test_two_tier_cache(self):
        assert check.two_tier_cache(kvsim.TwoTierCache).passed

    def test_two_tier_cache_with_its_own_tiers(self):
        assert check.two_tier_cache(kvsim.TwoTierCache, lru_cls=kvsim.LRUCache).passed

    def test_summarize_function(self):
        report = check.summarize_function(summarize.summarize)
        assert report.passed, str(report)

    def test_scenario_script(self):
        report = check.scenario_script(KVLAB / "scenario.py")
        assert report.passed, str(report)

    def test_scenario_script_with_its_own_kvsim(self, tmp_path):
        for name in ("kvsim.py", "scenario.py"):
            shutil.copy(KVLAB / name, tmp_path / name)
        assert check.scenario_script(tmp_path / "scenario.py", kvsim="own").passed

    def test_summarize_script(self):
        report = check.summarize_script(KVLAB / "summarize.py")
        assert report.passed, str(report)


class TestLRUCacheMistakes:
    @pytest.mark.parametrize("name", LRU_BUGS)
    def test_the_hint_names_the_mistake(self, name):
        assert_diagnosed(check.lru_cache(load(name).LRUCache), LRU_BUGS[name])

    def test_fifo_is_named_on_the_rule_about_hits(self):
        report = check.lru_cache(load("lru_fifo").LRUCache)
        row = next(row for row in report.failures if row.misconception == "fifo")
        assert "most recent position" in row.rule
        assert "without move_to_end your cache is FIFO, not LRU" in row.hint


class TestTwoTierCacheMistakes:
    @pytest.mark.parametrize("name", TIER_BUGS)
    def test_the_hint_names_the_mistake(self, name):
        module = load(name)
        assert_diagnosed(check.two_tier_cache(module.TwoTierCache), TIER_BUGS[name])
        assert check.lru_cache(module.LRUCache).passed  # the bug is in the two-tier logic only

    @pytest.mark.parametrize("name", TIER_BUGS)
    def test_the_same_with_the_fixtures_own_tiers(self, name):
        module = load(name)
        assert named(check.two_tier_cache(module.TwoTierCache, lru_cls=module.LRUCache)) == TIER_BUGS[name]

    def test_a_wrong_lru_cache_does_not_count_against_the_two_tier_logic(self):
        module = load("lru_fifo")
        report = check.two_tier_cache(module.TwoTierCache)
        assert report.passed, str(report)
        assert "tiers built from the lab's LRUCache" in report.title
        assert module.LRUCache is not kvsim.LRUCache  # the module's own class is back after the check
        assert type(module.TwoTierCache(1, 1).gpu) is module.LRUCache

    def test_with_its_own_fifo_tiers_the_refresh_goes_missing(self):
        module = load("lru_fifo")
        report = check.two_tier_cache(module.TwoTierCache, lru_cls=module.LRUCache)
        assert "tier-no-cpu-refresh" in report.misconceptions


def script_copy(tmp_path, fixture, name):
    shutil.copy(BUGGY / f"{fixture}.py", tmp_path / name)
    return tmp_path / name


class TestScenarioScriptMistakes:
    @pytest.mark.parametrize("name", SCENARIO_BUGS)
    def test_the_hint_names_the_mistake(self, tmp_path, name):
        report = check.scenario_script(script_copy(tmp_path, name, "scenario.py"))
        assert_diagnosed(report, SCENARIO_BUGS[name])

    def test_the_text_on_stdout_is_quoted(self, tmp_path):
        report = check.scenario_script(script_copy(tmp_path, "scenario_prints_text", "scenario.py"), steps=(2,))
        assert "'Simulating 10 documents, passes fwd,fwd,rev' besides the JSON document" in str(report)

    def test_steps_pick_the_rules(self):
        two = check.scenario_script(KVLAB / "scenario.py", steps=(2,))
        all_steps = check.scenario_script(KVLAB / "scenario.py")
        assert two.passed and 0 < len(two.rows) < len(all_steps.rows)

    def test_without_kvsim_beside_it_the_own_mode_says_so(self, tmp_path):
        shutil.copy(KVLAB / "scenario.py", tmp_path / "scenario.py")
        report = check.scenario_script(tmp_path / "scenario.py", steps=(3,), kvsim="own")
        assert report.misconceptions == ["kvsim-missing"]

    def test_a_missing_script_is_one_failed_row(self, tmp_path):
        report = check.scenario_script(tmp_path / "scenario.py")
        assert [row.misconception for row in report.rows] == ["missing-file"]


class TestSummarizeMistakes:
    @pytest.mark.parametrize("name", SUMMARIZE_BUGS)
    def test_the_script_hint_names_the_mistake(self, tmp_path, name):
        report = check.summarize_script(script_copy(tmp_path, name, "summarize.py"))
        assert_diagnosed(report, SUMMARIZE_BUGS[name])

    @pytest.mark.parametrize("name", sorted(set(SUMMARIZE_BUGS) - {"summarize_no_blank_skip"}))
    def test_the_function_hint_names_the_mistake(self, name):
        assert_diagnosed(check.summarize_function(load(name).summarize), SUMMARIZE_BUGS[name])


class TestSummaryJudge:
    """compare_summary judges against the exact statistics, so any correct way of computing passes."""

    @pytest.mark.parametrize("seed", range(40))
    def test_the_reference_passes_on_random_measurements(self, seed):
        import random
        records = records_of(random_lines(random.Random(seed)))
        check.compare_summary(summarize.summarize(records), records)

    def test_a_plain_sum_over_count_mean_passes(self):
        def plain(records):
            summary = summarize.summarize(records)
            for config in ("baseline", "lmcache"):
                for name, stats in summary[config].items():
                    values = [r["ttft_ms"] for r in records if (r["config"], r["pass"]) == (config, name)]
                    stats["mean_ms"] = round(sum(values) / len(values), 1)
            return summary
        assert check.summarize_function(plain).passed

    def mistake(self, lines, change):
        records = records_of(lines)
        summary = summarize.summarize(records)
        change(summary)
        with pytest.raises(check.Wrong) as caught:
            check.compare_summary(summary, records)
        return caught.value.misconception

    def test_an_inverted_ratio(self):
        def invert(summary):
            summary["ratio"]["pass2-replay"]["p50"] = round(1 / summary["ratio"]["pass2-replay"]["p50"], 2)
        assert self.mistake(RATIO, invert) == "ratio-inverted"

    def test_values_not_rounded(self):
        def unround(summary):
            summary["baseline"]["pass2-replay"]["mean_ms"] = 576.04
        assert self.mistake(RATIO, unround) == "not-rounded"

    def test_an_unsorted_median(self):
        def unsorted(summary):
            summary["baseline"]["pass2-replay"]["p50_ms"] = 550.0  # (100 + 1000) / 2, the middle as read
        assert self.mistake(EVEN, unsorted) == "median-unsorted"

    def test_a_wrong_count(self):
        def miscount(summary):
            summary["lmcache"]["pass2-replay"]["n"] = 4
        assert self.mistake(EVEN, miscount) == "n-count"

    def test_every_small_case_has_a_rule(self):
        rules = [row.rule for row in check.summarize_function(summarize.summarize).rows]
        assert all(rule in rules for rule, _ in CASES)


class TestScenarioJudge:
    def mistake(self, params, change):
        from kvlab import scenario
        document = scenario.run(**params)
        change(document)
        with pytest.raises(check.Wrong) as caught:
            check.compare_scenario(document, params)
        return caught.value

    def test_swapped_counts(self):
        def swap(document):
            for one in document["passes"]:
                one["gpu_hits"], one["cpu_hits"] = one["cpu_hits"], one["gpu_hits"]
        assert self.mistake(dict(cpu=56000), swap).misconception == "gpu-cpu-counts"

    def test_a_wrong_order_field(self):
        def rename(document):
            document["passes"][2]["order"] = "reverse"
        assert self.mistake({}, rename).misconception == "order-field"

    def test_an_ignored_option(self):
        from kvlab import scenario
        wrong = self.mistake(dict(docs=4, gpu=60000, passes=("fwd", "fwd")),  # printed what 10 documents give
                             lambda document: document.update(scenario.run(gpu=60000, passes=("fwd", "fwd"))))
        assert wrong.misconception == "option-ignored" and "--docs 4" in str(wrong)

    def test_swapped_capacities(self):
        from kvlab import scenario
        wrong = self.mistake(dict(gpu=5011, cpu=60000, passes=("fwd", "fwd")),
                             lambda document: document.update(scenario.run(gpu=60000, cpu=5011, passes=("fwd", "fwd"))))
        assert wrong.misconception == "gpu-cpu-swapped"

    def test_the_first_difference_is_named(self):
        def miscount(document):
            document["passes"][2]["misses"] = 7
        wrong = self.mistake({}, miscount)
        assert wrong.misconception == "wrong-result" and "pass 3 (rev): misses should be 6, got 7" in str(wrong)


class TestParseJsonText:
    @pytest.mark.parametrize("text, misconception", [
        ("", "no-output"),
        ('Running...\n{"passes": []}\n', "text-on-stdout"),
        ('{"passes": []}\ndone\n', "text-on-stdout"),
        ('{"passes": [1]}\n{"passes": [2]}\n', "several-json"),
        ("{'passes': []}\n", "python-repr"),
        ("passes: none\n", "not-json"),
    ])
    def test_diagnoses(self, text, misconception):
        with pytest.raises(check.Wrong) as caught:
            parse_json_text(text, "stdout")
        assert caught.value.misconception == misconception

    def test_one_document_with_a_newline_is_fine(self):
        assert parse_json_text('{"passes": []}\n', "stdout") == {"passes": []}


class TestRobustness:
    """Student code that raises or never returns fails its rule; nothing escapes the check."""

    def test_an_exception_fails_each_rule_with_its_first_line(self):
        class Explodes:
            def __init__(self, capacity):
                raise RuntimeError("boom\nand a second line")
        report = check.lru_cache(Explodes)
        assert not any(row.ok for row in report.rows)
        assert all("raised RuntimeError: boom;" in row.hint for row in report.rows)
        assert "second line" not in str(report)

    def test_an_endless_loop_fails_each_rule_in_bounded_time(self):
        class Loops:
            def __init__(self, capacity):
                self.capacity = capacity

            def access(self, key, size):
                while True:
                    try:
                        self.capacity = max(self.capacity, 0)  # a call: Python 3.10 checks for signals there
                    except Exception:  # noqa: BLE001 (the time limit must get through this)
                        pass
        started = time.monotonic()
        report = check.lru_cache(Loops, timeout=0.1)
        assert time.monotonic() - started < 5
        assert not report.passed
        assert any("timed out after 0.1 s" in row.hint for row in report.failures)

    def test_a_timed_out_summarize_function(self):
        def forever(records):
            while True:
                pass
        report = check.summarize_function(forever, timeout=0.1)
        assert all("timed out" in row.hint for row in report.rows)


class TestReport:
    def report(self):
        return Report("LRUCache", [Row("a hit moves <the> entry", True),
                                   Row("used & keys", False, "used must be a <property>", "used-method")])

    def test_plain_text(self):
        assert str(self.report()).splitlines() == [
            "LRUCache: 1 of 2 rules pass",
            "  ✓ a hit moves <the> entry",
            "  ✗ used & keys",
            "      used must be a <property>",
        ]

    def test_html_escapes_and_marks(self):
        html = self.report()._repr_html_()
        assert "<table>" in html and "✓" in html and "✗" in html
        assert "<b>LRUCache</b>: 1 of 2 rules pass" in html  # the terminal's headline
        assert "&lt;the&gt;" in html and "used &amp; keys" in html and "<property>" not in html

    def test_pretty_printing_in_ipython(self):
        class Printer:
            text = None

            def text(self, value):  # noqa: F811 (IPython's printer has a text method)
                self.printed = value
        printer = Printer()
        self.report()._repr_pretty_(printer, False)
        assert printer.printed == str(self.report())

    def test_as_data(self):
        report = self.report()
        data = json.loads(json.dumps(report.as_dict()))
        assert data["passed"] is False and data["rules"][1]["misconception"] == "used-method"
        assert Report.from_dict(data).rows == report.rows
        assert report.failures == [report.rows[1]] and report.misconceptions == ["used-method"]
