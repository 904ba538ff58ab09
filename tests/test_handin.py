"""`kvlab handin [DIR]`, the student's command (both editions): copy the three scripts, the six JSON files and
ttft.jsonl into DIR, all or nothing, then check DIR. After `kvlab artifacts` it is the reference hand-in."""
import shutil

import pytest

from helpers import KVLAB, STAND_IN, assert_one_line_error, call_main, clean_env, python
from kvlab import cli, handin, lab
from kvlab.instructor import artifacts

SCRIPTS = ("kvsim.py", "scenario.py", "summarize.py")
HANDED_IN = [*SCRIPTS, *lab.NAMES, "ttft.jsonl"]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """An artifacts folder as `kvlab artifacts` leaves it (the reference's files)."""
    out = tmp_path_factory.mktemp("artifacts")
    artifacts.write(out, STAND_IN)
    return out


def run_handin(*args, out):
    return python("-m", "kvlab", "handin", *args, env=clean_env(KVLAB_OUT=out, KVLAB_TTFT=STAND_IN))


@pytest.fixture
def refused(monkeypatch, capsys):
    """refused(*args, out=...): `kvlab handin ARGS` in this process, for what it refuses (no check runs)."""
    def run(*args, out):
        monkeypatch.setenv("KVLAB_OUT", str(out))
        return call_main(cli.main, ["handin", *args], capsys)
    return run


def test_after_kvlab_artifacts_it_writes_the_reference_hand_in_and_it_passes(made, tmp_path):
    folder = tmp_path / "kvlab"
    result = run_handin(folder, out=made)
    assert result.returncode == 0 and result.stderr == "", result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[:len(HANDED_IN)] == [f"wrote {folder / name}" for name in HANDED_IN]
    assert "8 of 8 steps OK" in result.stdout and lines[-1] == f"Every step of your hand-in in {folder} is OK."
    assert sorted(path.name for path in folder.iterdir()) == sorted(HANDED_IN)
    for name in SCRIPTS:
        assert (folder / name).read_bytes() == (KVLAB / name).read_bytes()
    for name in (*lab.NAMES, "ttft.jsonl"):
        assert (folder / name).read_bytes() == (made / name).read_bytes()
    assert {status for _, status in handin.handin(folder, artifacts=made)} == {"unchanged"}


@pytest.mark.parametrize("name, notebook", [("cliff.json", "03"), ("ttft.jsonl", "06")])
def test_a_missing_input_writes_nothing_and_says_which_and_where(made, tmp_path, refused, name, notebook):
    out = tmp_path / "artifacts"
    shutil.copytree(made, out)
    (out / name).unlink()
    result = refused(tmp_path / "handin", out=out)
    assert_one_line_error(result, f"{name} is not in {out}: run notebook {notebook} first", "nothing was written")
    assert not (tmp_path / "handin").exists()


def test_a_different_file_there_is_refused_without_force(made, tmp_path, refused):
    folder = tmp_path / "handin"
    folder.mkdir()
    (folder / "cyclic.json").write_text('{"passes": "mine"}\n')
    result = refused(folder, out=made)
    assert_one_line_error(result, f"{folder} already has cyclic.json with other content", "--force overwrites it")
    assert [path.name for path in folder.iterdir()] == ["cyclic.json"]  # nothing else written either
    result = run_handin(folder, "--force", out=made)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (folder / "cyclic.json").read_bytes() == (made / "cyclic.json").read_bytes()


def test_a_failing_step_is_shown_and_exits_non_zero(made, tmp_path, monkeypatch, capsys):
    scripts = tmp_path / "mine"
    scripts.mkdir()
    for name in SCRIPTS:
        shutil.copy(KVLAB / name, scripts / name)
    from kvlab.instructor import plants
    from kvlab.instructor.reference import planted_source
    fifo = next(plant for number, name, index, plant in plants.plants() if name == "fifo")  # a hit that does not move
    (scripts / "kvsim.py").write_text(planted_source(fifo, (KVLAB / "kvsim.py").read_text()))
    monkeypatch.setattr(handin, "PACKAGE", scripts)
    monkeypatch.setenv("KVLAB_OUT", str(made))
    monkeypatch.setenv("KVLAB_TTFT", str(STAND_IN))
    with pytest.raises(SystemExit) as stop:
        cli.main(["handin", str(tmp_path / "handin")])
    assert stop.value.code == 1
    out = capsys.readouterr().out
    assert "1 ✗ LRUCache" in out and out.splitlines()[-1].startswith(f"Your hand-in in {tmp_path / 'handin'} is "
                                                                      "written, but a step fails")
    assert (tmp_path / "handin" / "kvsim.py").read_bytes() == (scripts / "kvsim.py").read_bytes()


def test_the_default_folder_is_the_lab_texts_and_a_file_there_is_one_line(tmp_path, made, refused):
    assert cli.build_parser().parse_args(["handin"]).folder == "/root/kvlab"
    (tmp_path / "f").write_text("x")
    assert_one_line_error(refused(tmp_path / "f", out=made), f"{tmp_path / 'f'} is a file, not a folder")


def test_the_writer_refuses_before_writing_anything(tmp_path):
    from kvlab.errors import UserError
    from kvlab.files import write_files

    (tmp_path / "b.json").mkdir()
    with pytest.raises(UserError, match=r"has a folder named b.json; nothing was written"):
        write_files(tmp_path, {"a.json": b"1", "b.json": b"2"})
    (tmp_path / "b.json").rmdir()
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_bytes(b"mine")
    with pytest.raises(UserError, match=r"already has a.json, b.json with other content; .*--force overwrites them"):
        write_files(tmp_path, {"a.json": b"1", "b.json": b"2", "c.json": b"3"})
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.json", "b.json"]
    assert write_files(tmp_path, {"a.json": b"1", "c.json": b"3"}, force=True) == \
        [(tmp_path / "a.json", "wrote"), (tmp_path / "c.json", "wrote")]
    assert (tmp_path / "a.json").read_bytes() == b"1"


def test_a_missing_script_is_named_with_its_folder(made, tmp_path):
    from kvlab.errors import UserError

    with pytest.raises(UserError, match=rf"kvsim.py is not in {tmp_path}: .*nothing was written"):
        handin.handin(tmp_path / "handin", artifacts=made, scripts=tmp_path)
    assert not (tmp_path / "handin").exists()
