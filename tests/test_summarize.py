"""summarize.py (step 8): the statistics on small hand-made inputs, every bad input, every output.

A bad input or a refused output must end with one line on stderr (naming the line where there is
one), a non-zero exit, and no output: neither a new file nor a change to an existing one. Most of
this runs main() in-process; one run in a fresh process per kind of outcome proves it end to end.
"""
import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys

import pytest

from helpers import KVLAB, assert_one_line_error, assert_success, call_main, clean_env, python
from kvlab import summarize
from kvlab.summarize import InputError, iter_records, parse_line, read_records

SCRIPT = KVLAB / "summarize.py"
OLD = b"the previous summary\n"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


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


@contextlib.contextmanager
def deadline(seconds=5):
    """Fail the test instead of hanging it when an open() or a read() blocks."""
    def expire(signum, frame):
        pytest.fail(f"still blocked after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
    """No new file, an old one byte for byte, and no temporary file left beside it."""
    assert output.exists() == existed
    if existed:
        assert output.read_bytes() == OLD
    assert [name for name in os.listdir(output.parent) if name.startswith(".summarize-")] == []


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
        assert summarize.to_json(out) == json.dumps(out, indent=2) + "\n"


class TestNoInfinity:
    """JSON has no Infinity: huge or near-zero statistics give a finite number or null, never inf."""

    def test_a_ratio_over_a_zero_or_near_zero_lmcache_statistic_is_null(self):
        out = summarize.summarize(both("p", [6, 6, 6], [0, 0, 3]) + both("q", [1e308], [5e-324]))
        assert out["ratio"] == {"p": {"p50": None, "mean": 6.0}, "q": {"p50": None, "mean": None}}
        assert "Infinity" not in summarize.to_json(out)

    def test_the_median_of_two_huge_values_stays_finite(self):
        out = summarize.summarize(both("p", [1e308, 1.5e308], [1.0]))  # (a + b) / 2 would overflow
        assert out["baseline"]["p"]["p50_ms"] == 1.25e308
        assert "Infinity" not in summarize.to_json(out)

    def test_to_json_refuses_what_json_cannot_hold(self):
        with pytest.raises(InputError, match="JSON"):
            summarize.to_json({"ratio": {"p": {"p50": float("inf")}}})


class TestReading:
    def test_blank_lines_windows_endings_a_bom_and_no_final_newline(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_bytes(summarize.BOM + ("\n   \n" + line(ttft=1.0) + "\r\n\t \r\n\n" + line(ttft=3.0)).encode())
        assert [row["ttft_ms"] for row in read_records(path)] == [1.0, 3.0]

    def test_records_stream_one_at_a_time(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_text(line(ttft=1.0) + "\noops\n")
        rows = iter_records(path)
        assert next(rows)["ttft_ms"] == 1.0  # the bad line 2 is not read yet
        with pytest.raises(InputError, match="line 2"):
            next(rows)

    @pytest.mark.parametrize("field", summarize.FIELDS)
    def test_every_field_is_required(self, field):
        row = record("baseline", "p", 1.0)
        del row[field]
        with pytest.raises(InputError, match=f"missing field {field}"):
            parse_line(json.dumps(row))

    @pytest.mark.parametrize("ttft", [0, 0.0, 12, 576.25, 1.7e308])
    def test_any_finite_non_negative_number_is_a_ttft(self, ttft):
        assert parse_line(line(ttft=ttft))["ttft_ms"] == ttft

    @pytest.mark.parametrize("bad, fragment", [
        ("nope", "not valid JSON"),
        ('{"config": "baseline", "pass"', "not valid JSON: the object is cut off"),
        (line() + " {}", "more text after the value"),
        ("[1, 2]", "not a JSON object"),
        ('"a line"', "not a JSON object"),
        (line(ttft="576"), "ttft_ms must be a number"),
        (line(ttft=None), "ttft_ms must be a number"),
        (line(ttft=True), "ttft_ms must be a number"),
        (line(ttft=[1]), "ttft_ms must be a number"),
        (line(ttft=-0.5), "ttft_ms must be a finite number >= 0"),
        (line(ttft=float("nan")), "ttft_ms must be a finite number >= 0"),
        (line(ttft=float("inf")), "ttft_ms must be a finite number >= 0"),
        (line(ttft=0).replace('"ttft_ms": 0', '"ttft_ms": 1' + "0" * 400), "ttft_ms must be a finite number"),
        (line(ttft=0).replace('"ttft_ms": 0', '"ttft_ms": 1' + "0" * 5000), "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
        (line(config="Baseline"), "unknown config 'Baseline'"),
        (line(name=""), "pass must be a non-empty string"),
        (line(name=3), "pass must be a non-empty string"),
    ], ids=["not-json", "cut-off", "extra-data", "array", "string", "ttft-string", "ttft-null", "ttft-true",
            "ttft-list", "ttft-negative", "ttft-nan", "ttft-infinity", "ttft-too-large", "ttft-too-many-digits",
            "deeply-nested", "config-capitalized", "pass-empty", "pass-not-a-string"])
    def test_a_bad_line(self, bad, fragment):
        with pytest.raises(InputError, match=fragment.replace("(", r"\(")) as error:
            parse_line(bad)
        assert "\n" not in str(error.value)

    @pytest.mark.parametrize("content, fragment", [
        (line().encode() + b"\n\n  \noops\n", "line 4: not valid JSON"),  # blank lines count
        (line().encode() + b"\n" + line().encode()[:40], "line 2: not valid JSON: the object is cut off"),
        (line().encode() + b"\n\n" + "caf\u00e9".encode("latin-1") + b"\n", "line 3: not UTF-8"),
        (b"\xff\xfe" + "{}".encode("utf-16-le"), "line 1: not UTF-8"),
        (b"", "no records"),
        (b"\n \n\t\n\n", "no records"),
    ], ids=["line-number", "cut-off-last-line", "latin-1", "utf-16", "empty", "only-blank-lines"])
    def test_a_bad_file_names_itself_and_the_line(self, content, fragment, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_bytes(content)
        with pytest.raises(InputError, match=fragment) as error:
            read_records(path)
        assert str(error.value).startswith(str(path))

    @needs_fifo
    def test_a_pipe_that_nobody_writes_to_reads_as_empty(self, tmp_path):
        fifo = tmp_path / "in.fifo"
        os.mkfifo(fifo)
        with deadline(), pytest.raises(InputError, match="no records"):
            read_records(fifo)


class TestOutput:
    def test_writes_the_summary_whole_with_ordinary_permissions_and_prints_nothing(self, source, output, capsys):
        assert_success(result := run(capsys, source, output))
        assert result.stdout == ""
        assert json.loads(output.read_text()) == EXPECTED
        plain = output.parent / "plain"
        plain.write_text("")  # what open() gives a new file; mkstemp's would be 0600
        assert stat.S_IMODE(output.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
        assert sorted(os.listdir(output.parent)) == ["in.jsonl", "out.json", "plain"]  # no temporary file

    def test_a_dash_writes_to_stdout(self, source, capsys):
        assert_success(result := run(capsys, source, "-"))
        assert json.loads(result.stdout) == EXPECTED
        assert sorted(os.listdir(source.parent)) == ["in.jsonl"]

    def test_a_symbolic_link_is_written_through_and_stays_a_link(self, source, output, capsys):
        link = output.parent / "link.json"
        link.symlink_to(output.name)
        assert_success(run(capsys, source, link))
        assert link.is_symlink() and os.readlink(link) == output.name
        assert json.loads(output.read_text()) == EXPECTED

    def test_a_character_device_stays_a_device(self, source, tmp_path, capsys):
        null = tmp_path / "null"
        try:
            os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is on Linux
        except (AttributeError, PermissionError, OSError) as error:
            pytest.skip(f"cannot make a device here: {error}")
        assert_success(run(capsys, source, null))
        assert stat.S_ISCHR(null.stat().st_mode)

    @needs_fifo
    def test_a_pipe_that_nobody_reads_is_refused(self, source, tmp_path, capsys):
        fifo = tmp_path / "out.fifo"
        os.mkfifo(fifo)
        with deadline():
            assert_one_line_error(run(capsys, source, fifo), "out.fifo: no program is reading from this pipe")

    def test_a_full_device_is_one_line(self, source, capsys):
        if not os.path.exists("/dev/full"):
            pytest.skip("no /dev/full here")
        assert_one_line_error(run(capsys, source, "/dev/full"), "/dev/full: No space left on device")

    def test_a_read_only_file_is_refused_even_for_root(self, source, tmp_path, capsys):
        output = tmp_path / "out.json"
        output.write_bytes(OLD)
        output.chmod(0o444)
        assert_one_line_error(run(capsys, source, output), "out.json: is read-only")
        assert output.read_bytes() == OLD

    @pytest.mark.parametrize("spelling", ["same", "other-spelling", "symlink", "hard-link"])
    def test_the_input_itself_is_refused(self, spelling, source, capsys):
        target = {"same": source, "other-spelling": source.parent / "." / source.name}.get(spelling)
        if target is None:
            target = source.parent / "out.jsonl"
            target.symlink_to(source) if spelling == "symlink" else os.link(source, target)
        before = source.read_bytes()
        assert_one_line_error(run(capsys, source, target), "is the input file")
        assert source.read_bytes() == before

    def test_an_output_folder_that_does_not_exist_or_is_a_file(self, source, tmp_path, capsys):
        assert_one_line_error(run(capsys, source, tmp_path / "nowhere" / "out.json"), "nowhere")
        (tmp_path / "folder").mkdir()
        assert_one_line_error(run(capsys, source, tmp_path / "folder"), "is a folder")
        assert sorted(os.listdir(tmp_path)) == ["folder", "in.jsonl"] and os.listdir(tmp_path / "folder") == []

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


class TestBadInput:
    def test_a_bad_line_writes_nothing(self, output, capsys):
        existed = output.exists()
        source = output.parent / "in.jsonl"
        source.write_text(line() + "\n\n" + line(config="vllm") + "\n")
        assert_one_line_error(run(capsys, source, output), "in.jsonl, line 3: unknown config 'vllm'")
        assert_untouched(output, existed)

    def test_a_missing_input_or_a_folder(self, output, capsys):
        existed = output.exists()
        missing = output.parent / "missing.jsonl"
        assert_one_line_error(run(capsys, missing, output), f"{missing}: No such file or directory")
        assert_one_line_error(run(capsys, output.parent, output), "is a folder, not a file")
        assert_untouched(output, existed)

    @pytest.mark.parametrize("args", [[], ["only-one.jsonl"], ["a", "b", "c"]])
    def test_wrong_number_of_arguments(self, args, capsys):
        result = run(capsys, *args)
        assert_one_line_error(result, "summarize.py: error:")
        assert result.returncode == 2


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
        source.write_text(line() + "\n" + line(ttft=-1) + "\n")
        output.write_bytes(OLD)
        assert_one_line_error(python(SCRIPT, source, output), "line 2: ttft_ms must be a finite number >= 0")
        assert_untouched(output, existed=True)

    def test_a_refused_output(self, source, tmp_path):
        output = tmp_path / "out.json"
        output.write_bytes(OLD)
        output.chmod(0o444)
        assert_one_line_error(python(SCRIPT, source, output), "is read-only")
        assert output.read_bytes() == OLD

    def test_bad_arguments(self, tmp_path):
        result = python(SCRIPT, "only-one.jsonl", cwd=tmp_path)
        assert_one_line_error(result, "summarize.py: error:")
        assert result.returncode == 2 and os.listdir(tmp_path) == []

    @pytest.mark.skipif(not os.path.exists("/proc/self/fd/1"), reason="no /proc here")
    @pytest.mark.parametrize("stdout", ["pipe", "file-appended-to"])
    def test_a_link_to_stdout_like_dev_stdout_writes_to_stdout(self, stdout, source, tmp_path):
        link = tmp_path / "stdout"
        link.symlink_to("/proc/self/fd/1")  # what /dev/stdout is; replacing it would break the machine
        log = tmp_path / "log"
        log.write_text("an earlier line\n")
        with open(log, "a") as appended:
            result = subprocess.run([sys.executable, SCRIPT, source, link], env=clean_env(), encoding="utf-8",
                                    stdout=subprocess.PIPE if stdout == "pipe" else appended, stderr=subprocess.PIPE)
        assert result.returncode == 0 and result.stderr == "", result.stderr
        if stdout == "pipe":
            assert json.loads(result.stdout) == EXPECTED
        else:  # appended to, as any program's stdout would be; not replaced by a new file
            earlier, printed = log.read_text().split("\n", 1)
            assert (earlier, json.loads(printed)) == ("an earlier line", EXPECTED)
        assert os.readlink(link) == "/proc/self/fd/1"
