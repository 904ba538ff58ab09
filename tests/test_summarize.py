"""summarize.py (step 8): the lab text's contract, on small hand-made inputs.

The statistics, the blank lines, the output file, and one line for a bad input or bad arguments, with
no output written. Most of this runs main() in-process; one run in a fresh process per kind of outcome
proves it end to end. The robustness that only kvlab's own tools need (any file, pipes, links,
read-only files) is kvlab.records' and kvlab.files' (tests/test_records.py).
"""
import json
import os
import shutil

import pytest

from helpers import KVLAB, assert_one_line_error, assert_success, call_main, python
from kvlab import summarize
from kvlab.summarize import InputError, read_records

SCRIPT = KVLAB / "summarize.py"
OLD = b"the previous summary\n"


def record(config, name, ttft, doc=0, **changes):
    row = {"config": config, "pass": name, "doc": doc, "doc_tokens": 4864,
           "ttft_ms": ttft, "total_ms": 756.0}
    row.update(changes)
    return row


def records(config, name, ttfts):
    return [record(config, name, ttft, doc) for doc, ttft in enumerate(ttfts)]


def line(config="baseline", name="pass1-cold", ttft=576.0, **changes):
    return json.dumps(record(config, name, ttft, **changes))


def both(name, baseline, lmcache):
    return records("baseline", name, baseline) + records("lmcache", name, lmcache)


def run(capsys, *args):
    return call_main(summarize.main, args, capsys)


@pytest.fixture
def source(tmp_path):
    """A small valid measurement."""
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in both("p", [576], [48.6])) + "\n")
    return path


@pytest.fixture(params=["new", "existing"])
def output(request, tmp_path):
    """Where the summary would go: a fresh path, or a file holding an earlier summary."""
    path = tmp_path / "out.json"
    if request.param == "existing":
        path.write_bytes(OLD)
    return path


def assert_untouched(output, existed):
    """No new file, or the old one byte for byte."""
    assert output.exists() == existed
    if existed:
        assert output.read_bytes() == OLD


EXPECTED = {"baseline": {"p": {"n": 1, "p50_ms": 576.0, "mean_ms": 576.0}},
            "lmcache": {"p": {"n": 1, "p50_ms": 48.6, "mean_ms": 48.6}},
            "ratio": {"p": {"p50": 11.85, "mean": 11.85}}}


class TestStatistics:
    def test_an_even_count_takes_the_mean_of_the_two_middle_values(self):
        out = summarize.summarize(both("p", [40, 10, 100, 20], [1, 1]))
        assert out["baseline"]["p"] == {"n": 4, "p50_ms": 30.0, "mean_ms": 42.5}

    def test_an_odd_count_takes_the_middle_value_in_any_order(self):
        out = summarize.summarize(both("p", [5, 1, 3], [9, 2, 7, 4, 100]))
        assert out["baseline"]["p"] == {"n": 3, "p50_ms": 3.0, "mean_ms": 3.0}
        assert out["lmcache"]["p"] == {"n": 5, "p50_ms": 7.0, "mean_ms": 24.4}

    def test_ms_values_are_rounded_to_one_decimal_and_ratios_to_two(self):
        out = summarize.summarize(both("p", [1.26, 1.31, 1.5], [48.6]))
        assert out["baseline"]["p"] == {"n": 3, "p50_ms": 1.3, "mean_ms": 1.4}
        assert summarize.summarize(both("p", [576], [48.6]))["ratio"]["p"] == {"p50": 11.85, "mean": 11.85}

    def test_the_ratio_is_computed_before_rounding(self):
        # 1.04 / 0.96 = 1.083...; rounding the statistics first would give 1.0 / 1.0 = 1.0.
        out = summarize.summarize(both("p", [1.04], [0.96]))
        assert out["baseline"]["p"]["p50_ms"] == out["lmcache"]["p"]["p50_ms"] == 1.0
        assert out["ratio"]["p"] == {"p50": 1.08, "mean": 1.08}

    def test_pass_names_are_kept_exactly_in_their_order_of_first_appearance(self):
        names = ["Zeta pass", "pass 10", "pass 2", "warm-up ✓"]
        rows = [record("baseline", name, 10.0) for name in names + names[::-1]]
        rows += [record("lmcache", name, 5.0) for name in names[::-1]]
        out = summarize.summarize(iter(rows))  # any iterable, read once
        assert list(out["baseline"]) == names
        assert list(out["lmcache"]) == names[::-1]
        assert out["baseline"]["pass 10"]["n"] == 2

    def test_a_pass_in_only_one_config_is_summarized_there_and_left_out_of_the_ratio(self):
        out = summarize.summarize(both("shared", [10], [5]) + records("baseline", "only-baseline", [7, 9]))
        assert out["baseline"]["only-baseline"] == {"n": 2, "p50_ms": 8.0, "mean_ms": 8.0}
        assert "only-baseline" not in out["lmcache"]
        assert list(out["ratio"]) == ["shared"]
        assert summarize.summarize(records("lmcache", "p", [5]))["baseline"] == {}

    def test_output_shape_and_text(self):
        out = summarize.summarize(both("p", [576], [48.6]))
        assert out == EXPECTED and list(out) == ["baseline", "lmcache", "ratio"]
        assert json.loads(summarize.to_json(out)) == out and summarize.to_json(out).endswith("}\n")

    def test_a_ratio_over_a_zero_lmcache_statistic_is_null(self):
        out = summarize.summarize(both("p", [6, 6, 6], [0, 0, 3]))
        assert out["ratio"] == {"p": {"p50": None, "mean": 6.0}}


class TestReading:
    def test_blank_lines_windows_endings_and_a_byte_order_mark_are_no_records(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + ("\n   \n" + line(ttft=1.0) + "\r\n\t \r\n\n" + line(ttft=3.0)).encode())
        assert [row["ttft_ms"] for row in read_records(path)] == [1.0, 3.0]

    @pytest.mark.parametrize("content, fragment", [
        (line() + "\n\n  \noops\n", "line 4: not valid JSON"),  # blank lines count
        (line() + "\n[1, 2]\n", "line 2: not an object"),
        (line() + "\n" + json.dumps({"config": "baseline"}) + "\n", "line 2: not an object with the fields"),
        (line(config="vllm") + "\n", "line 1: config 'vllm'"),
    ], ids=["not-json", "not-an-object", "missing-fields", "unknown-config"])
    def test_a_bad_line_is_an_input_error_naming_the_file_and_the_line(self, content, fragment, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_text(content)
        with pytest.raises(InputError, match=fragment) as error:
            read_records(path)
        assert str(error.value).startswith(str(path)) and "\n" not in str(error.value)


class TestTheCommand:
    def test_writes_the_summary_and_prints_nothing(self, source, output, capsys):
        assert_success(result := run(capsys, source, output))
        assert result.stdout == ""
        assert json.loads(output.read_text()) == EXPECTED

    def test_a_bad_line_writes_nothing(self, output, capsys):
        existed = output.exists()
        source = output.parent / "in.jsonl"
        source.write_text(line() + "\n\n" + line(config="vllm") + "\n")
        assert_one_line_error(run(capsys, source, output), "in.jsonl, line 3: config 'vllm'")
        assert_untouched(output, existed)

    def test_a_missing_input_writes_nothing(self, output, capsys):
        existed = output.exists()
        missing = output.parent / "missing.jsonl"
        assert_one_line_error(run(capsys, missing, output), f"{missing}: No such file or directory")
        assert_untouched(output, existed)

    def test_an_output_folder_that_does_not_exist(self, source, tmp_path, capsys):
        assert_one_line_error(run(capsys, source, tmp_path / "nowhere" / "out.json"), "nowhere")

    @pytest.mark.parametrize("args", [[], ["only-one.jsonl"], ["a", "b", "c"]])
    def test_wrong_number_of_arguments(self, args, capsys):
        result = run(capsys, *args)
        assert_one_line_error(result, "usage: python3 summarize.py")
        assert result.returncode != 0


class TestEndToEnd:
    """One run in a fresh process per kind of outcome."""

    def test_copied_alone_it_writes_the_summary_and_prints_nothing(self, source, tmp_path):
        shutil.copy(SCRIPT, tmp_path / "summarize.py")
        result = python("summarize.py", "in.jsonl", "measured.json", cwd=tmp_path)
        assert_success(result)
        assert result.stdout == ""
        assert json.loads((tmp_path / "measured.json").read_text()) == EXPECTED

    def test_a_bad_line(self, tmp_path):
        source, output = tmp_path / "in.jsonl", tmp_path / "out.json"
        source.write_text(line() + "\nnot json\n")
        output.write_bytes(OLD)
        assert_one_line_error(python(SCRIPT, source, output), "line 2: not valid JSON")
        assert_untouched(output, existed=True)

    def test_bad_arguments(self, tmp_path):
        result = python(SCRIPT, "only-one.jsonl", cwd=tmp_path)
        assert_one_line_error(result, "usage: python3 summarize.py")
        assert result.returncode != 0 and os.listdir(tmp_path) == []
