"""`python -m kvlab artifacts`: the six files, byte for byte what each step's command writes.

Also the stand-in measurement itself: it must respect every fact LAB.md lists about the real file,
and regenerate byte for byte from its script.
"""
import json
import runpy
import statistics

import pytest

from helpers import (BASELINE, CLIFF, CPU_CLIFF, CYCLIC, KVLAB, OFFLOAD, ROOT, STAND_IN,
                     assert_one_line_error, assert_success, clean_env, python)
from kvlab import artifacts, scenario

NAMES = ["cyclic.json", "baseline.json", "cliff.json", "offload.json", "cpu_cliff.json", "measured.json"]


def kvlab_artifacts(*args, ttft=STAND_IN, **env):
    return python("-m", "kvlab", "artifacts", *args, env=clean_env(KVLAB_TTFT=ttft, **env))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """One run of the command into a fresh folder: (its result, the folder)."""
    out = tmp_path_factory.mktemp("artifacts")
    return kvlab_artifacts("--out", out), out


def json_file(folder, name):
    return json.loads((folder / name).read_text())


class TestTheCommand:
    def test_prints_one_line_per_file_written_and_nothing_on_stderr(self, written):
        result, out = written
        assert_success(result)
        lines = result.stdout.splitlines()
        assert lines[:6] == [f"wrote {out / name}" for name in NAMES]
        assert lines[6].startswith(f"wrote {out / 'ttft.jsonl'} (copied from {STAND_IN}")
        assert "not a measurement" in lines[6]  # the stand-in is never passed off as a measurement
        assert len(lines) == 7

    def test_writes_exactly_the_six_artifacts_and_the_measured_file(self, written):
        _, out = written
        assert sorted(path.name for path in out.iterdir()) == sorted(NAMES + ["ttft.jsonl"])

    @pytest.mark.parametrize("name, expected", [
        ("cyclic.json", CYCLIC), ("baseline.json", BASELINE), ("cliff.json", CLIFF),
        ("offload.json", OFFLOAD), ("cpu_cliff.json", CPU_CLIFF)])
    def test_the_simulator_artifacts_hold_the_expected_results(self, written, name, expected):
        assert json_file(written[1], name) == expected

    @pytest.mark.parametrize("name, args", [
        ("cyclic.json", ["--passes", "fwd,fwd"]),
        ("baseline.json", ["--passes", "fwd,fwd,rev"]),
        ("offload.json", ["--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev"])])
    def test_scenario_artifacts_are_byte_for_byte_the_step_commands_output(self, written, name, args):
        step = python(KVLAB / "scenario.py", *args)  # python3 kvlab/scenario.py ... > name
        assert_success(step)
        assert (written[1] / name).read_bytes() == step.stdout.encode()

    @pytest.mark.parametrize("name, flag, capacities, field", [
        ("cliff.json", "--gpu", [21520, 30000, 40000, 45000, 50109, 50110], "hits"),
        ("cpu_cliff.json", "--cpu", [0, 20000, 30000, 40000, 50109, 50110, 56000], "misses")])
    def test_sweep_artifacts_are_the_steps_loop_over_the_script(self, written, capsys, name, flag, capacities, field):
        sweep = {}
        for capacity in capacities:  # steps 4 and 7: a loop over the step-2 command
            scenario.main([flag, str(capacity), "--passes", "fwd,fwd"])
            second = json.loads(capsys.readouterr().out)["passes"][1]
            sweep[str(capacity)] = second["gpu_hits"] + second["cpu_hits"] if field == "hits" else second["misses"]
        assert (written[1] / name).read_text() == json.dumps(sweep) + "\n"

    def test_measured_json_is_what_summarize_writes_for_the_copied_file(self, written, tmp_path):
        _, out = written
        step = python(KVLAB / "summarize.py", out / "ttft.jsonl", tmp_path / "measured.json")
        assert_success(step)
        assert (out / "measured.json").read_bytes() == (tmp_path / "measured.json").read_bytes()

    def test_the_measured_file_is_copied_byte_for_byte(self, written):
        assert (written[1] / "ttft.jsonl").read_bytes() == STAND_IN.read_bytes()

    def test_kvlab_out_is_the_default_folder(self, tmp_path):
        out = tmp_path / "from-env"
        result = kvlab_artifacts(KVLAB_OUT=out)
        assert_success(result)
        assert result.stdout.splitlines()[0] == f"wrote {out / 'cyclic.json'}"
        assert sorted(path.name for path in out.iterdir()) == sorted(NAMES + ["ttft.jsonl"])

    def test_a_run_again_replaces_the_files_with_the_same_bytes(self, written):
        _, out = written
        before = {name: (out / name).read_bytes() for name in NAMES}
        assert_success(kvlab_artifacts("--out", out))
        assert {name: (out / name).read_bytes() for name in NAMES} == before


class TestWhereFilesComeFromAndGo:
    def test_out_beats_kvlab_out_which_beats_the_repository_folder(self, monkeypatch, tmp_path):
        monkeypatch.delenv("KVLAB_OUT", raising=False)
        assert artifacts.out_dir() == ROOT / "artifacts"
        monkeypatch.setenv("KVLAB_OUT", str(tmp_path / "env"))
        assert artifacts.out_dir() == tmp_path / "env"
        assert artifacts.out_dir(tmp_path / "flag") == tmp_path / "flag"

    def test_kvlab_ttft_beats_the_course_file_which_beats_the_stand_in(self, monkeypatch, tmp_path):
        course = tmp_path / "course.jsonl"
        monkeypatch.setattr(artifacts, "COURSE_TTFT", course)
        monkeypatch.delenv("KVLAB_TTFT", raising=False)
        assert artifacts.ttft_source() == STAND_IN  # no course file on this machine
        course.write_text("")
        assert artifacts.ttft_source() == course
        monkeypatch.setenv("KVLAB_TTFT", str(tmp_path / "mine.jsonl"))
        assert artifacts.ttft_source() == tmp_path / "mine.jsonl"

    def test_another_measured_file_is_summarized_and_copied_without_the_stand_in_note(self, tmp_path):
        mine, out = tmp_path / "mine.jsonl", tmp_path / "out"
        rows = [{"config": config, "pass": "only", "doc": 0, "doc_tokens": 1, "ttft_ms": ms, "total_ms": ms}
                for config, ms in [("baseline", 100), ("lmcache", 25)]]
        mine.write_text("".join(json.dumps(row) + "\n" for row in rows))
        result = kvlab_artifacts("--out", out, ttft=mine)
        assert_success(result)
        assert json_file(out, "measured.json")["ratio"] == {"only": {"p50": 4.0, "mean": 4.0}}
        assert (out / "ttft.jsonl").read_bytes() == mine.read_bytes()
        assert result.stdout.splitlines()[-1] == f"wrote {out / 'ttft.jsonl'} (copied from {mine})"


class TestABadMeasuredFile:
    @pytest.mark.parametrize("content, fragment", [
        (None, "No such file"),
        (b"{}\n", "line 1"),
        (b'{"config": "baseline"}\n\n\xff\n', "line 1"),
        (b"\n\n\xe9t\xe9\n", "line 3"),
        (b"", "no records"),
    ], ids=["missing", "bad-line", "first-bad-line", "not-utf-8", "empty"])
    def test_one_line_on_stderr_and_nothing_written(self, tmp_path, content, fragment):
        ttft, out = tmp_path / "ttft.jsonl", tmp_path / "out"
        if content is not None:
            ttft.write_bytes(content)
        assert_one_line_error(kvlab_artifacts("--out", out, ttft=ttft), str(ttft), fragment)
        assert not out.exists()

    def test_earlier_artifacts_are_left_untouched(self, tmp_path):
        ttft, out = tmp_path / "ttft.jsonl", tmp_path / "out"
        ttft.write_text("not json\n")
        out.mkdir()
        for name in NAMES + ["ttft.jsonl"]:
            (out / name).write_text(f"earlier {name}\n")
        assert_one_line_error(kvlab_artifacts("--out", out, ttft=ttft), "line 1")
        assert {path.name: path.read_text() for path in out.iterdir()} == \
            {name: f"earlier {name}\n" for name in NAMES + ["ttft.jsonl"]}

    def test_kvlab_without_a_command(self):
        assert_one_line_error(python("-m", "kvlab"), "kvlab")


def stand_in_rows():
    return [json.loads(line) for line in STAND_IN.read_text().splitlines() if line.strip()]


def ttfts(rows, config, name, docs=None):
    return [row["ttft_ms"] for row in rows
            if row["config"] == config and row["pass"] == name and (docs is None or row["doc"] in docs)]


class TestTheStandIn:
    """LAB.md, "About the measured file": the facts a stand-in must respect."""

    def test_measured_json_reproduces_the_published_pass_2_figures(self, written):
        measured = json_file(written[1], "measured.json")
        assert measured["baseline"]["pass2-replay"]["p50_ms"] == pytest.approx(576, abs=1)
        assert measured["lmcache"]["pass2-replay"]["p50_ms"] == pytest.approx(48.6, abs=0.1)
        assert list(measured["ratio"]) == ["pass1-cold", "pass2-replay", "pass3-reverse"]

    def test_pass_1_ratios_are_below_1(self, written):
        ratio = json_file(written[1], "measured.json")["ratio"]["pass1-cold"]
        assert ratio["p50"] < 1 and ratio["mean"] < 1  # lmcache also writes the KV to CPU

    def test_schema_configs_passes_documents(self):
        rows = stand_in_rows()
        assert all(set(row) == {"config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms"} for row in rows)
        assert {row["doc_tokens"] for row in rows} == {4864}
        for config in ("baseline", "lmcache"):
            for name, order in [("pass1-cold", range(10)), ("pass2-replay", range(10)),
                                ("pass3-reverse", range(9, -1, -1))]:
                assert [row["doc"] for row in rows if (row["config"], row["pass"]) == (config, name)] == list(order)
        assert len(rows) == 60

    def test_pass_3_gpu_hits_take_about_30_ms_and_the_rest_recompute_or_load(self):
        rows = stand_in_rows()
        for config in ("baseline", "lmcache"):
            for ttft in ttfts(rows, config, "pass3-reverse", docs={9, 8, 7, 6}):
                assert ttft == pytest.approx(30, rel=0.1)
        for ttft in ttfts(rows, "baseline", "pass3-reverse", docs=set(range(6))):
            assert ttft == pytest.approx(576, rel=0.1)
        for ttft in ttfts(rows, "lmcache", "pass3-reverse", docs=set(range(6))):
            assert ttft == pytest.approx(48, rel=0.1)

    def test_requests_spread_and_total_time_adds_a_decode(self):
        rows = stand_in_rows()
        assert statistics.pstdev(ttfts(rows, "baseline", "pass2-replay")) > 0
        assert all(100 < row["total_ms"] - row["ttft_ms"] < 300 for row in rows)

    def test_the_script_regenerates_the_file_byte_for_byte(self):
        make = runpy.run_path(str(ROOT / "fixtures" / "make_ttft.py"))
        assert "".join(json.dumps(row) + "\n" for row in make["rows"]()) == STAND_IN.read_text()
