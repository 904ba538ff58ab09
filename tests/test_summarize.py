"""summarize.py (step 8): the statistics on small hand-made inputs, and every bad input.

A bad input must end with one line on stderr (naming the line where there is one), a non-zero
exit, and no output: neither a new file nor a change to an existing one.
"""
import json
import os

import pytest

from helpers import KVLAB, assert_one_line_error, assert_success, python
from kvlab import summarize
from kvlab.summarize import InputError, parse_line, read_records

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


class TestStatistics:
    def test_an_even_count_takes_the_mean_of_the_two_middle_values(self):
        out = summarize.summarize(both("p", [40, 10, 100, 20], [1, 1]))
        assert out["baseline"]["p"] == {"n": 4, "p50_ms": 30.0, "mean_ms": 42.5}

    def test_an_odd_count_takes_the_middle_value_in_any_order(self):
        out = summarize.summarize(both("p", [5, 1, 3], [9, 2, 7, 4, 100]))
        assert out["baseline"]["p"] == {"n": 3, "p50_ms": 3.0, "mean_ms": 3.0}
        assert out["lmcache"]["p"] == {"n": 5, "p50_ms": 7.0, "mean_ms": 24.4}

    def test_a_single_request(self):
        out = summarize.summarize(both("p", [576], [48.6]))
        assert out["lmcache"]["p"] == {"n": 1, "p50_ms": 48.6, "mean_ms": 48.6}

    def test_ms_values_are_rounded_to_one_decimal(self):
        out = summarize.summarize(both("p", [1.26, 1.31, 1.5], [1]))
        assert out["baseline"]["p"] == {"n": 3, "p50_ms": 1.3, "mean_ms": 1.4}

    def test_the_ratio_is_baseline_over_lmcache_rounded_to_two_decimals(self):
        out = summarize.summarize(both("p", [576], [48.6]))
        assert out["ratio"]["p"] == {"p50": 11.85, "mean": 11.85}

    def test_the_ratio_is_computed_before_rounding(self):
        # 1.04 / 0.96 = 1.083...; rounding the statistics first would give 1.0 / 1.0 = 1.0.
        out = summarize.summarize(both("p", [1.04], [0.96]))
        assert out["baseline"]["p"]["p50_ms"] == out["lmcache"]["p"]["p50_ms"] == 1.0
        assert out["ratio"]["p"] == {"p50": 1.08, "mean": 1.08}

    def test_pass_names_are_kept_exactly_in_their_order_of_first_appearance(self):
        names = ["Zeta pass", "pass 10", "pass 2", "warm-up ✓"]
        rows = [record("baseline", name, 10.0) for name in names + names[::-1]]
        rows += [record("lmcache", name, 5.0) for name in names[::-1]]
        out = summarize.summarize(rows)
        assert list(out["baseline"]) == names
        assert list(out["lmcache"]) == names[::-1]
        assert out["baseline"]["pass 10"]["n"] == 2

    def test_a_pass_in_only_one_config_is_summarized_there_and_left_out_of_the_ratio(self):
        rows = both("shared", [10], [5]) + records("baseline", "only-baseline", [7, 9])
        out = summarize.summarize(rows)
        assert out["baseline"]["only-baseline"] == {"n": 2, "p50_ms": 8.0, "mean_ms": 8.0}
        assert "only-baseline" not in out["lmcache"]
        assert list(out["ratio"]) == ["shared"]

    def test_a_config_with_no_records_is_an_empty_object(self):
        out = summarize.summarize(records("lmcache", "p", [5]))
        assert (out["baseline"], out["ratio"]) == ({}, {})

    def test_an_lmcache_statistic_of_0_gives_a_null_ratio(self):
        out = summarize.summarize(both("p", [6, 6, 6], [0, 0, 3]))
        assert out["ratio"]["p"] == {"p50": None, "mean": 6.0}
        assert '"p50": null' in summarize.to_json(out)

    def test_output_shape_and_text(self):
        out = summarize.summarize(both("p", [2], [1]))
        assert list(out) == ["baseline", "lmcache", "ratio"]
        assert summarize.to_json(out) == json.dumps(out, indent=2) + "\n"


class TestReading:
    def test_blank_and_whitespace_only_lines_are_skipped(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_text("\n   \n" + line(ttft=1.0) + "\n\t \n\n" + line(ttft=3.0) + "\n\n")
        assert [row["ttft_ms"] for row in read_records(path)] == [1.0, 3.0]

    def test_windows_line_endings_and_a_missing_final_newline(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_bytes((line(ttft=1.0) + "\r\n\r\n" + line(ttft=3.0)).encode())
        assert [row["ttft_ms"] for row in read_records(path)] == [1.0, 3.0]

    @pytest.mark.parametrize("field", summarize.FIELDS)
    def test_every_field_is_required(self, field):
        row = record("baseline", "p", 1.0)
        del row[field]
        with pytest.raises(InputError, match=f"missing field {field}"):
            parse_line(json.dumps(row))

    @pytest.mark.parametrize("ttft", [0, 0.0, 12, 576.25])
    def test_any_finite_non_negative_number_is_a_ttft(self, ttft):
        assert parse_line(line(ttft=ttft))["ttft_ms"] == ttft

    def test_the_line_number_counts_blank_lines(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_text(line() + "\n\n  \n" + "oops\n")
        with pytest.raises(InputError, match="line 4"):
            read_records(path)


class TestCommandLine:
    def test_writes_the_summary_and_prints_nothing(self, tmp_path):
        source, out = tmp_path / "in.jsonl", tmp_path / "out.json"
        source.write_text("\n".join(json.dumps(row) for row in both("p", [576], [48.6])) + "\n")
        assert_success(result := python(SCRIPT, source, out))
        assert result.stdout == ""
        assert json.loads(out.read_text()) == {
            "baseline": {"p": {"n": 1, "p50_ms": 576.0, "mean_ms": 576.0}},
            "lmcache": {"p": {"n": 1, "p50_ms": 48.6, "mean_ms": 48.6}},
            "ratio": {"p": {"p50": 11.85, "mean": 11.85}}}
        assert sorted(os.listdir(tmp_path)) == ["in.jsonl", "out.json"]  # no temporary file left

    def test_replaces_an_existing_output(self, tmp_path):
        source, out = tmp_path / "in.jsonl", tmp_path / "out.json"
        source.write_text(line() + "\n")
        out.write_bytes(OLD)
        assert_success(python(SCRIPT, source, out))
        assert json.loads(out.read_text())["baseline"]["pass1-cold"]["n"] == 1

    def test_as_a_module(self, tmp_path):
        source, out = tmp_path / "in.jsonl", tmp_path / "out.json"
        source.write_text(line() + "\n")
        result = python("-m", "kvlab.summarize", source, out)
        assert_success(result)
        assert result.stdout == "" and out.exists()

    def test_the_output_gets_ordinary_file_permissions(self, tmp_path):
        # A temporary file is private (0600); the summary must be readable like any file `open` creates.
        source, out, plain = tmp_path / "in.jsonl", tmp_path / "out.json", tmp_path / "plain"
        source.write_text(line() + "\n")
        plain.write_text("")
        summarize.main([str(source), str(out)])
        assert (out.stat().st_mode & 0o777) == (plain.stat().st_mode & 0o777)

    def test_a_failed_write_removes_its_temporary_file_and_keeps_the_old_output(self, tmp_path, monkeypatch):
        out = tmp_path / "out.json"
        out.write_bytes(OLD)

        def refuse(*args):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(summarize.os, "replace", refuse)
        with pytest.raises(OSError):
            summarize.write_atomically(out, "{}\n")
        assert os.listdir(tmp_path) == ["out.json"]
        assert out.read_bytes() == OLD


GOOD = line() + "\n\n"  # the bad line below is line 3: the blank line counts
BAD_LINES = [
    ("not-json", "nope", "not valid JSON"),
    ("truncated-json", '{"config": "baseline", "pass"', "not valid JSON"),
    ("json-array", "[1, 2]", "not a JSON object"),
    ("json-string", '"a line"', "not a JSON object"),
    ("json-number", "576", "not a JSON object"),
    ("missing-field", json.dumps({"config": "baseline", "pass": "p", "doc": 0}), "doc_tokens"),
    ("ttft-string", line(ttft="576"), "ttft_ms"),
    ("ttft-null", line(ttft=None), "ttft_ms"),
    ("ttft-true", line(ttft=True), "ttft_ms"),
    ("ttft-false", line(ttft=False), "ttft_ms"),
    ("ttft-list", line(ttft=[1]), "ttft_ms"),
    ("ttft-negative", line(ttft=-1), "ttft_ms"),
    ("ttft-negative-float", line(ttft=-0.5), "ttft_ms"),
    ("ttft-nan", line(ttft=float("nan")), "ttft_ms"),
    ("ttft-infinity", line(ttft=float("inf")), "ttft_ms"),
    ("ttft-minus-infinity", line(ttft=float("-inf")), "ttft_ms"),
    ("ttft-too-large", line(ttft=0).replace('"ttft_ms": 0', '"ttft_ms": 1' + "0" * 400), "ttft_ms"),
    ("ttft-too-many-digits", line(ttft=0).replace('"ttft_ms": 0', '"ttft_ms": 1' + "0" * 5000), "line 3"),
    ("deeply-nested", "[" * 100_000 + "]" * 100_000, "line 3"),
    ("unknown-config", line(config="vllm"), "vllm"),
    ("config-capitalized", line(config="Baseline"), "Baseline"),
    ("pass-empty", line(name=""), "pass"),
    ("pass-not-a-string", line(name=3), "pass"),
]


@pytest.fixture(params=["new", "existing"])
def output(request, tmp_path):
    """Where the summary would go: a fresh path, or a file holding an earlier summary."""
    path = tmp_path / "out.json"
    if request.param == "existing":
        path.write_bytes(OLD)
    return path


def assert_no_output(output, existed):
    """No new file, an old one byte for byte, and no temporary file left beside it."""
    assert output.exists() == existed
    if existed:
        assert output.read_bytes() == OLD
    leftovers = [name for name in os.listdir(output.parent) if name not in ("in.jsonl", "out.json")]
    assert leftovers == []


class TestBadInput:
    @pytest.mark.parametrize("bad, fragment", [case[1:] for case in BAD_LINES], ids=[case[0] for case in BAD_LINES])
    def test_a_bad_line(self, bad, fragment, output):
        existed = output.exists()
        source = output.parent / "in.jsonl"
        source.write_text(GOOD + bad + "\n" + line() + "\n")
        assert_one_line_error(python(SCRIPT, source, output), "line 3", fragment)
        assert_no_output(output, existed)

    @pytest.mark.parametrize("content, fragment", [
        (b"", "no records"),
        (b"\n \n\t\n\n", "no records"),
        (line().encode() + b"\n\n" + "caf\u00e9".encode("latin-1") + b"\n", "line 3: not UTF-8"),
        (b"\xff\xfe" + "{}".encode("utf-16-le"), "line 1: not UTF-8"),
    ], ids=["empty", "only-blank-lines", "latin-1-line", "utf-16"])
    def test_a_bad_file(self, content, fragment, output):
        existed = output.exists()
        source = output.parent / "in.jsonl"
        source.write_bytes(content)
        assert_one_line_error(python(SCRIPT, source, output), str(source), fragment)
        assert_no_output(output, existed)

    def test_a_missing_input_file(self, output):
        existed = output.exists()
        missing = output.parent / "missing.jsonl"
        assert_one_line_error(python(SCRIPT, missing, output), str(missing))
        assert_no_output(output, existed)

    def test_an_input_that_is_a_folder(self, tmp_path):
        assert_one_line_error(python(SCRIPT, tmp_path, tmp_path / "out.json"), str(tmp_path))
        assert os.listdir(tmp_path) == []

    def test_an_output_in_a_missing_folder(self, tmp_path):
        source = tmp_path / "in.jsonl"
        source.write_text(line() + "\n")
        assert_one_line_error(python(SCRIPT, source, tmp_path / "nowhere" / "out.json"), "nowhere")
        assert os.listdir(tmp_path) == ["in.jsonl"]

    def test_an_output_that_is_a_folder(self, tmp_path):
        source, folder = tmp_path / "in.jsonl", tmp_path / "out.json"
        source.write_text(line() + "\n")
        folder.mkdir()
        assert_one_line_error(python(SCRIPT, source, folder), "folder")
        assert sorted(os.listdir(tmp_path)) == ["in.jsonl", "out.json"] and os.listdir(folder) == []

    @pytest.mark.parametrize("args", [[], ["only-one.jsonl"], ["a", "b", "c"]])
    def test_wrong_number_of_arguments(self, args, tmp_path):
        assert_one_line_error(python(SCRIPT, *args, cwd=tmp_path), "summarize.py")
        assert os.listdir(tmp_path) == []
