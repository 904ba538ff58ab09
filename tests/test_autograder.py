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
import socket
import subprocess
import textwrap
import zipfile
from pathlib import Path

import pytest

from kvlab import cli
from kvlab.instructor import artifacts, autograder, course as courses, fallback, sandbox

ROOT = Path(__file__).resolve().parent.parent
AVAILABLE, WHY = sandbox.available()
SECRET = "5e" * 32
ATTACK = textwrap.dedent("""\
    import json, os, socket, time
    LOOT = "/loot"

    def daemon():  # leaves its session (setsid): no process group kill reaches it
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                found, ends = {{}}, time.time() + 30
                while time.time() < ends:
                    for target in ("/autograder/source/course.toml", "/autograder/source/ttft.jsonl"):
                        try:
                            found[target] = open(target).read()[:300]
                        except OSError as error:
                            found[target] = type(error).__name__
                    for root in ("/tmp", "/dev/shm"):
                        for name in os.listdir(root):
                            folder = os.path.join(root, name)
                            try:  # a link planted (in its own run's folder it may: nothing follows it there)
                                os.symlink("/autograder/source", os.path.join(folder, "planted"))
                                if os.stat(folder).st_uid != os.getuid():
                                    found["planted " + folder] = "done"
                            except OSError:
                                pass
                            for inner in ("kvsim.py", "handin/kvsim.py"):
                                try:
                                    found[os.path.join(folder, inner)] = open(os.path.join(folder, inner)).read()
                                except OSError:
                                    pass
                    for label, action in (("chmod", lambda: os.chmod("/autograder/source", 0o777)),
                                          ("results", lambda: open("/autograder/results/results.json", "w")),
                                          ("rename", lambda: os.rename(LOOT + "/forged.json",
                                                                       "/autograder/results/forged.json"))):
                        try:
                            action()
                            found[label] = "done"
                        except OSError as error:
                            found[label] = type(error).__name__
                    with open(f"{{LOOT}}/daemon-{{os.getpid()}}.json", "w") as out:
                        json.dump(found, out)
                    time.sleep(0.01)
                os._exit(0)
            os._exit(0)
        os.wait()

    if not os.path.exists(LOOT + "/forged.json"):
        with open(LOOT + "/forged.json", "w") as out:
            json.dump({{"score": 999, "tests": []}}, out)
        daemon()
        time.sleep(0.5)  # the daemon tries while this run goes on
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=1)
        NET = "connected"
    except OSError as error:
        NET = type(error).__name__
    try:
        SEEN = open("/autograder/source/course.toml").read()
    except OSError as error:
        SEEN = type(error).__name__
    raise ImportError(f"attack: net {{NET}}, course file {{SEEN}}")
""")


def fallback_processes():
    """Pids of living processes run by a uid the fallback gives out."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            status = dict(line.split(":", 1) for line in Path(entry.path, "status").read_text().splitlines())
        except (OSError, ValueError):
            continue
        uid = int(status["Uid"].split()[0])
        if fallback.FIRST_UID <= uid < sandbox.OUTSIDE_UID_BASE and not status["State"].strip().startswith("Z"):
            found.append(entry.name)
    return found


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

    loot = tmp_path / "loot"  # a folder every user may write: what the attack manages to read, it puts there
    loot.mkdir(mode=0o1777)
    loot.chmod(0o1777)

    def inside(command, **env):
        bwrap = [shutil.which("bwrap"), "--bind", "/", "/", "--bind", str(root), "/autograder", "--dev", "/dev",
                 "--tmpfs", "/tmp", "--bind", str(loot), "/loot", "--setenv", "KVLAB_SKIP_APT", "1"]
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
        steps = [test for test in document["tests"] if test["visibility"] == "visible"]
        assert [test["max_score"] for test in steps] == [float(loaded.step_points[n]) for n in range(1, 9)]
        assert all(set(test) == {"name", "score", "max_score", "output", "visibility"} for test in document["tests"])
        assert document["score"] == round(sum(test["score"] for test in steps), 2)
        assert all(test["visibility"] == "hidden" for test in document["tests"][8:])  # the staff's flags only
        assert SECRET not in json.dumps(document) and loaded.seed not in json.dumps(document)
        return document

    inside("/autograder/source/setup.sh")
    assert all((root / name).stat().st_mode & 0o077 == 0 for name in ("source", "venv", "source/course.toml"))
    correct = {path.name: path.read_bytes() for path in reference.iterdir()}
    full = graded({f"handin/{name}": data for name, data in correct.items()})  # one folder down: still graded
    assert full["score"] == loaded.max_total and "layout-one-down: handin" in full["output"]
    assert "bubblewrap sandbox" in full["output"]
    assert "similar-to-reference: kvsim.py 1.00" in full["tests"][8]["output"]  # for the course staff: hidden
    buggy = graded({**correct, "kvsim.py": (ROOT / "tests" / "buggy" / "lru_fifo.py").read_bytes()})
    assert 0 < buggy["score"] < loaded.max_total and buggy["tests"][0]["score"] < buggy["tests"][0]["max_score"]
    assert buggy["tests"][0]["output"] and "Rule:" not in buggy["tests"][2]["output"]  # only fair scoring's note
    assert graded({})["score"] == 0
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    modes = {name: (root / name).stat().st_mode for name in ("source", "venv", "source/course.toml", "results")}
    try:  # the fallback (no bubblewrap): a daemon, links planted, a chmod, a forged results.json, the network
        attack = graded({**correct, "kvsim.py": ATTACK.format(port=listener.getsockname()[1]).encode()},
                        KVLAB_NO_ISOLATION="1")
        try:
            listener.accept()
            connected = True
        except BlockingIOError:
            connected = False
    finally:
        listener.close()
    assert "unprivileged" in attack["output"] and attack["tests"][0]["score"] == 0
    assert attack["score"] < loaded.max_total and attack["score"] != 999  # the grader's results, not the forged ones
    assert "net PermissionError, course file PermissionError" in attack["tests"][0]["output"] and not connected
    seen = [json.loads(path.read_text()) for path in loot.glob("daemon-*.json")]
    assert seen, "the daemon never ran"
    reference = (ROOT / "kvlab" / "kvsim.py").read_text()
    for found in seen:
        assert found["/autograder/source/course.toml"] == "PermissionError" and SECRET not in json.dumps(found)
        assert found["chmod"] == found["results"] == "PermissionError" and found["rename"] != "done"
        assert not [key for key in found if key.startswith("planted")], found
        assert not [value for value in found.values() if "move_to_end" in value or value in reference], found
    assert {name: (root / name).stat().st_mode for name in modes} == modes
    assert fallback_processes() == []  # the daemon ended with its run
