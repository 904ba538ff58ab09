"""kvlab autograder: the Gradescope bundle, built, unpacked as /autograder and run for real.

The bundle's setup.sh (apt skipped: KVLAB_SKIP_APT=1; the bundled wheel installed with --no-index) and
run_autograder run as root inside a bubblewrap mount namespace where a temporary folder is /autograder
(source/, submission/, results/). Three hand-ins: the reference (full score), one planted bug (fewer
points) and an empty one (0); then a hand-in that tries to read the course file, without bubblewrap
(the fallback: an unprivileged uid).
"""
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from kvlab import cli
from kvlab.instructor import artifacts, autograder, course as courses, sandbox

ROOT = Path(__file__).resolve().parent.parent
AVAILABLE, WHY = sandbox.available()
SECRET = "5e" * 32
SNOOP = ('try:\n    SEEN = open("/autograder/source/course.toml").read()\nexcept OSError as error:\n'
         '    SEEN = type(error).__name__\nraise ImportError("course file: " + SEEN)\n')


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reference")
    artifacts.write(folder)
    for name in ("kvsim.py", "scenario.py", "summarize.py"):
        shutil.copy(ROOT / "kvlab" / name, folder / name)
    return folder


def test_the_command_writes_a_private_bundle_with_what_gradescope_runs(tmp_path, capsys):
    course = tmp_path / "c.toml"
    course.write_text(f'secret = "{SECRET}"\n')
    assert cli.main(["autograder", "--course", str(course), str(tmp_path / "b.zip")]) is None
    assert courses.load(course).fingerprint in capsys.readouterr().out
    assert (tmp_path / "b.zip").stat().st_mode & 0o077 == 0
    with zipfile.ZipFile(tmp_path / "b.zip") as bundle:
        names = set(bundle.namelist())
        assert {"setup.sh", "run_autograder", "course.toml", "ttft.jsonl", "bundle.json"} <= names
        [wheel] = [name for name in names if name.endswith(".whl")]
        assert bundle.getinfo("run_autograder").external_attr >> 16 & 0o111
    assert autograder.bundle_files(course).keys() == names  # the same bundle again


@pytest.mark.skipif(not AVAILABLE, reason=WHY)
@pytest.mark.skipif(os.geteuid() != 0, reason="binding a folder at /autograder needs root")
def test_setup_and_run_autograder_grade_as_gradescope_would(reference, tmp_path):
    course = tmp_path / "c.toml"
    course.write_text(f'secret = "{SECRET}"\n[points.steps]\n"8" = 4\n')
    loaded = courses.load(course)
    root = tmp_path / "autograder"
    for name in ("source", "submission", "results"):
        (root / name).mkdir(parents=True)
    autograder.build(course, tmp_path / "b.zip")
    with zipfile.ZipFile(tmp_path / "b.zip") as bundle:
        bundle.extractall(root / "source")

    def inside(command, **env):
        bwrap = [shutil.which("bwrap"), "--bind", "/", "/", "--bind", str(root), "/autograder", "--dev", "/dev",
                 "--tmpfs", "/tmp", "--setenv", "KVLAB_SKIP_APT", "1"]
        for name, value in env.items():
            bwrap += ["--setenv", name, value]
        done = subprocess.run([*bwrap, "sh", command], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done

    def graded(files, **env):
        shutil.rmtree(root / "submission")
        (root / "submission").mkdir()
        for name, data in files.items():
            (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "submission" / name).write_bytes(data)
        (root / "results" / "results.json").unlink(missing_ok=True)
        inside("/autograder/source/run_autograder", **env)
        document = json.loads((root / "results" / "results.json").read_text())
        assert [test["max_score"] for test in document["tests"]] == [float(loaded.step_points[n]) for n in range(1, 9)]
        assert all(set(test) == {"name", "score", "max_score", "output", "visibility"} for test in document["tests"])
        assert document["score"] == round(sum(test["score"] for test in document["tests"]), 2)
        assert SECRET not in json.dumps(document) and loaded.seed not in json.dumps(document)
        return document

    inside("/autograder/source/setup.sh")
    assert all((root / name).stat().st_mode & 0o077 == 0 for name in ("source", "venv", "source/course.toml"))
    correct = {path.name: path.read_bytes() for path in reference.iterdir()}
    full = graded({f"handin/{name}": data for name, data in correct.items()})  # one folder down: still graded
    assert full["score"] == loaded.max_total and "layout-one-down: handin" in full["output"]
    assert "bubblewrap sandbox" in full["output"]
    buggy = graded({**correct, "kvsim.py": (ROOT / "tests" / "buggy" / "lru_fifo.py").read_bytes()})
    assert 0 < buggy["score"] < loaded.max_total and buggy["tests"][0]["score"] < buggy["tests"][0]["max_score"]
    assert buggy["tests"][0]["output"] and "Rule:" not in buggy["tests"][2]["output"]  # only fair scoring's note
    assert graded({})["score"] == 0
    snoop = graded({**correct, "kvsim.py": SNOOP.encode()}, KVLAB_NO_ISOLATION="1")  # the fallback: no bwrap
    assert "unprivileged" in snoop["output"] and snoop["tests"][0]["score"] == 0
    assert "PermissionError" in snoop["tests"][0]["output"]  # the student's uid cannot read the course file
