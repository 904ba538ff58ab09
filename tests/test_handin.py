"""kvlab handin: the lab's layout, filled with the reference scripts and their results.

It never overwrites a file the student wrote unless told to, and then says which ones.
"""
import pytest

from helpers import KVLAB, STAND_IN, assert_one_line_error, assert_success, clean_env, python
from kvlab import artifacts, handin

LAYOUT = ["kvsim.py", "scenario.py", "summarize.py", "cyclic.json", "baseline.json", "cliff.json",
          "offload.json", "cpu_cliff.json", "measured.json", "ttft.jsonl"]


def files(folder):
    return {path.name: path.read_bytes() for path in folder.iterdir()}


class TestFilling:
    def test_the_seeds_layout(self, tmp_path):
        done = handin.handin(tmp_path / "kvlab")
        assert [path.name for path, _ in done] == LAYOUT
        assert {status for _, status in done} == {"wrote"}
        assert sorted(files(tmp_path / "kvlab")) == sorted(LAYOUT)

    def test_the_scripts_are_the_references_and_the_json_their_results(self, tmp_path):
        handin.handin(tmp_path)
        written = files(tmp_path)
        for name in ("kvsim.py", "scenario.py", "summarize.py"):
            assert written[name] == (KVLAB / name).read_bytes()
        for name, text in artifacts.contents(STAND_IN).items():
            assert written[name] == text.encode("utf-8")
        assert written["ttft.jsonl"] == STAND_IN.read_bytes()
        assert set(artifacts.NAMES) < set(written)

    def test_missing_parents_are_created(self, tmp_path):
        handin.handin(tmp_path / "a" / "b")
        assert (tmp_path / "a" / "b" / "kvsim.py").is_file()

    def test_another_measured_file(self, tmp_path):
        measured = tmp_path / "other.jsonl"
        measured.write_text("\n".join(STAND_IN.read_text().splitlines()[:-2]) + "\n")
        handin.handin(tmp_path / "out", ttft=measured)
        assert (tmp_path / "out" / "ttft.jsonl").read_bytes() == measured.read_bytes()
        assert (tmp_path / "out" / "measured.json").read_text() == artifacts.contents(measured)["measured.json"]


class TestStudentsWork:
    def test_running_it_again_changes_nothing(self, tmp_path):
        handin.handin(tmp_path)
        before = {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
        done = handin.handin(tmp_path)
        assert {status for _, status in done} == {"unchanged"}
        assert {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()} == before

    def test_a_different_file_stops_everything(self, tmp_path):
        (tmp_path / "kvsim.py").write_text("# my own cache\n")
        (tmp_path / "cliff.json").write_text("{}\n")
        with pytest.raises(handin.HandinError) as caught:
            handin.handin(tmp_path)
        assert "kvsim.py, cliff.json" in str(caught.value) and "--force" in str(caught.value)
        assert sorted(files(tmp_path)) == ["cliff.json", "kvsim.py"]  # nothing was written
        assert (tmp_path / "kvsim.py").read_text() == "# my own cache\n"

    def test_force_overwrites(self, tmp_path):
        (tmp_path / "kvsim.py").write_text("# my own cache\n")
        (tmp_path / "notes.txt").write_text("mine\n")
        done = dict(handin.handin(tmp_path, force=True))
        assert done[tmp_path / "kvsim.py"] == "wrote"
        assert (tmp_path / "kvsim.py").read_bytes() == (KVLAB / "kvsim.py").read_bytes()
        assert (tmp_path / "notes.txt").read_text() == "mine\n"  # files outside the layout are left alone

    def test_a_file_where_the_folder_should_be(self, tmp_path):
        (tmp_path / "kvlab").write_text("")
        with pytest.raises(handin.HandinError, match="is a file, not a folder"):
            handin.handin(tmp_path / "kvlab")

    def test_a_folder_where_a_file_should_be(self, tmp_path):
        (tmp_path / "measured.json").mkdir()
        with pytest.raises(handin.HandinError, match="measured.json"):
            handin.handin(tmp_path, force=True)
        assert [path.name for path in tmp_path.iterdir()] == ["measured.json"]


class TestCommandLine:
    def test_fills_the_folder_and_says_so(self, tmp_path):
        result = python("-m", "kvlab", "handin", tmp_path / "kvlab")
        assert_success(result)
        assert result.stdout.splitlines() == [f"wrote {tmp_path / 'kvlab' / name}" for name in LAYOUT]

    def test_again_on_its_own_output(self, tmp_path):
        python("-m", "kvlab", "handin", tmp_path)
        result = python("-m", "kvlab", "handin", tmp_path)
        assert_success(result)
        assert all(line.startswith("unchanged ") for line in result.stdout.splitlines())

    def test_refuses_in_one_line_and_force_overwrites(self, tmp_path):
        (tmp_path / "summarize.py").write_text("print('mine')\n")
        result = python("-m", "kvlab", "handin", tmp_path)
        assert_one_line_error(result, "kvlab handin: error:", "summarize.py", "--force")
        assert [path.name for path in tmp_path.iterdir()] == ["summarize.py"]
        assert_success(python("-m", "kvlab", "handin", tmp_path, "--force"))
        assert (tmp_path / "summarize.py").read_bytes() == (KVLAB / "summarize.py").read_bytes()

    def test_a_bad_measured_file_is_one_line(self, tmp_path):
        bad = tmp_path / "bad.jsonl"
        bad.write_text("not json\n")
        result = python("-m", "kvlab", "handin", tmp_path / "out", env=clean_env(KVLAB_TTFT=bad))
        assert_one_line_error(result, "kvlab handin: error:", "line 1")
        assert not (tmp_path / "out").exists()
