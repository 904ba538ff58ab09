"""The instructor's side: `kvlab artifacts`, the scripts as a student hands them in, the stand-in.

The artifacts are the lab's expected results (the lab text), byte for byte what the steps' commands write.
A folder that already holds somebody's different file is never overwritten without --force.
"""
import json
import runpy
import shutil
import statistics

import pytest

from helpers import (BASELINE, CLIFF, CPU_CLIFF, CYCLIC, KVLAB, OFFLOAD, ROOT, STAND_IN, assert_one_line_error,
                     assert_success, python)
from kvlab import lab, paths, scenario, summarize
from kvlab.cli import main
from kvlab.instructor import artifacts

SCRIPTS = ("kvsim.py", "scenario.py", "summarize.py")


def read_json(folder, name):
    return json.loads((folder / name).read_text())


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """`python -m kvlab artifacts --out DIR`, run once in a fresh process."""
    out = tmp_path_factory.mktemp("artifacts")
    result = python("-m", "kvlab", "artifacts", "--out", out)
    assert_success(result)
    return result, out


class TestArtifacts:
    def test_one_line_per_file_and_the_stand_in_named(self, written):
        result, out = written
        assert result.stdout.splitlines()[0] == f"wrote {out / 'cyclic.json'}"
        assert "the generated stand-in, not a measurement" in result.stdout.splitlines()[-1]
        assert sorted(path.name for path in out.iterdir()) == sorted([*lab.NAMES, "ttft.jsonl"])

    @pytest.mark.parametrize("name, expected", [("cyclic.json", CYCLIC), ("baseline.json", BASELINE),
                                                ("cliff.json", CLIFF), ("offload.json", OFFLOAD),
                                                ("cpu_cliff.json", CPU_CLIFF)])
    def test_the_simulator_artifacts_hold_the_expected_results(self, written, name, expected):
        assert read_json(written[1], name) == expected

    @pytest.mark.parametrize("name, argv", [("cyclic.json", ["--passes", "fwd,fwd"]),
                                            ("baseline.json", ["--passes", "fwd,fwd,rev"]),
                                            ("offload.json", ["--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev"])])
    def test_scenario_artifacts_are_the_step_commands_output(self, written, capsys, name, argv):
        scenario.main(argv)
        assert capsys.readouterr().out == (written[1] / name).read_text()

    def test_sweeps_are_the_steps_loop_over_the_script(self, written, capsys):
        for name, option, capacities, count in (("cliff.json", "--gpu", lab.GPU_CAPACITIES, "hits"),
                                                ("cpu_cliff.json", "--cpu", lab.CPU_CAPACITIES, "misses")):
            sweep = {}
            for capacity in capacities:
                scenario.main([option, str(capacity), "--passes", "fwd,fwd"])
                second = json.loads(capsys.readouterr().out)["passes"][1]
                sweep[str(capacity)] = second["gpu_hits"] + second["cpu_hits"] if count == "hits" else second["misses"]
            assert (written[1] / name).read_text() == json.dumps(sweep) + "\n"

    def test_measured_json_is_what_summarize_writes_and_ttft_an_unchanged_copy(self, written, tmp_path):
        summarize.main([str(STAND_IN), str(tmp_path / "m.json")])
        assert (written[1] / "measured.json").read_bytes() == (tmp_path / "m.json").read_bytes()
        assert (written[1] / "ttft.jsonl").read_bytes() == STAND_IN.read_bytes()

    def test_out_beats_kvlab_out_which_beats_the_repository_folder(self, monkeypatch, tmp_path):
        monkeypatch.delenv("KVLAB_OUT", raising=False)
        assert paths.out_dir() == ROOT / "artifacts"
        monkeypatch.setenv("KVLAB_OUT", str(tmp_path))
        assert paths.out_dir() == tmp_path and paths.out_dir(tmp_path / "x") == tmp_path / "x"

    def test_kvlab_ttft_beats_the_course_file_which_beats_the_stand_in(self, monkeypatch, tmp_path):
        monkeypatch.delenv("KVLAB_TTFT", raising=False)
        monkeypatch.setattr(paths, "COURSE_TTFT", tmp_path / "absent.jsonl")
        assert paths.ttft_source() == paths.STAND_IN_TTFT
        (tmp_path / "course.jsonl").write_text("")
        monkeypatch.setattr(paths, "COURSE_TTFT", tmp_path / "course.jsonl")
        assert paths.ttft_source() == tmp_path / "course.jsonl"
        monkeypatch.setenv("KVLAB_TTFT", str(tmp_path / "mine.jsonl"))
        assert paths.ttft_source() == tmp_path / "mine.jsonl"

    def test_a_students_different_file_is_never_overwritten_without_force(self, written, tmp_path, capsys):
        (tmp_path / "cyclic.json").write_text('{"passes": "mine"}\n')
        with pytest.raises(SystemExit) as stop:
            main(["artifacts", "--out", str(tmp_path)])
        assert stop.value.code == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and "cyclic.json with other content" in error and "--force" in error
        assert sorted(path.name for path in tmp_path.iterdir()) == ["cyclic.json"]  # nothing else written either
        main(["artifacts", "--out", str(tmp_path), "--force"])
        assert (tmp_path / "cyclic.json").read_bytes() == (written[1] / "cyclic.json").read_bytes()
        main(["artifacts", "--out", str(tmp_path)])
        assert capsys.readouterr().out.count("unchanged ") == 7

    def test_a_bad_measured_file_is_one_line_and_nothing_is_written(self, tmp_path):
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"config": "baseline"}\n')
        result = python("-m", "kvlab", "artifacts", "--out", tmp_path / "out", env={"KVLAB_TTFT": str(bad),
                                                                                    "PATH": "/usr/bin:/bin"})
        assert_one_line_error(result, "line 1", "missing field")
        assert not (tmp_path / "out").exists()


class TestTheScriptsAlone:
    """Copied alone into an empty folder, with only the standard library (-S), they write the same files."""

    @pytest.fixture
    def folder(self, tmp_path):
        for name in SCRIPTS:
            shutil.copy(KVLAB / name, tmp_path / name)
        shutil.copy(STAND_IN, tmp_path / "ttft.jsonl")
        return tmp_path

    def test_scenario_and_summarize_run_beside_each_other(self, folder, written):
        result = python("scenario.py", "--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev",
                        cwd=folder, flags=("-S",))
        assert_success(result)
        assert result.stdout == (written[1] / "offload.json").read_text()
        assert_success(python("summarize.py", "ttft.jsonl", "measured.json", cwd=folder, flags=("-S",)))
        assert (folder / "measured.json").read_bytes() == (written[1] / "measured.json").read_bytes()

    def test_scenario_without_its_kvsim_fails(self, folder):
        (folder / "kvsim.py").unlink()
        result = python("scenario.py", cwd=folder, flags=("-S",))
        assert result.returncode != 0 and "kvsim" in result.stderr

    def test_the_scripts_import_no_heavy_library(self):
        code = ("import sys; sys.path.insert(0, 'kvlab'); import kvsim, scenario, summarize; "
                "print(sorted(m for m in ('pandas', 'numpy', 'matplotlib', 'kvlab') if m in sys.modules))")
        result = python("-S", "-c", code)
        assert_success(result)
        assert result.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def rows():
    return [json.loads(line) for line in STAND_IN.read_text().splitlines()]


class TestTheStandIn:
    """The lab text, "About the measured file": the facts a stand-in must respect."""

    def ttfts(self, rows, config, name, docs=range(10)):
        return [row["ttft_ms"] for row in rows if row["config"] == config and row["pass"] == name and row["doc"] in docs]

    def test_schema_configs_passes_and_documents(self, rows):
        assert len(rows) == 60 and {row["doc_tokens"] for row in rows} == {4864}
        for config in ("baseline", "lmcache"):
            for name, order in [("pass1-cold", range(10)), ("pass2-replay", range(10)),
                                ("pass3-reverse", range(9, -1, -1))]:
                assert [row["doc"] for row in rows if (row["config"], row["pass"]) == (config, name)] == list(order)

    def test_the_published_figures(self, rows):
        assert statistics.median(self.ttfts(rows, "baseline", "pass2-replay")) == pytest.approx(576, abs=0.05)
        assert statistics.median(self.ttfts(rows, "lmcache", "pass2-replay")) == pytest.approx(48.6, abs=0.05)
        assert statistics.median(self.ttfts(rows, "lmcache", "pass1-cold")) > \
            statistics.median(self.ttfts(rows, "baseline", "pass1-cold"))  # lmcache also writes the KV to CPU
        for config in ("baseline", "lmcache"):
            assert all(t == pytest.approx(30, rel=0.1) for t in self.ttfts(rows, config, "pass3-reverse", {6, 7, 8, 9}))
        assert all(t == pytest.approx(48, rel=0.1) for t in self.ttfts(rows, "lmcache", "pass3-reverse", range(6)))

    def test_the_generator_writes_the_file_byte_for_byte(self):
        make = runpy.run_path(str(ROOT / "fixtures" / "make_ttft.py"))
        assert "".join(json.dumps(row) + "\n" for row in make["rows"]()) == STAND_IN.read_text()


def test_the_scripts_defaults_are_the_labs():
    assert (scenario.GPU, scenario.CPU, scenario.DOCS, scenario.TOKENS, tuple(scenario.PASSES)) == \
        (lab.GPU, lab.CPU, lab.DOCS, lab.TOKENS, lab.PASSES)


def test_artifacts_contents_match_the_files(written):
    assert {name: text.encode() for name, text in artifacts.contents().items()} == \
        {name: (written[1] / name).read_bytes() for name in lab.NAMES}
