"""The three lab scripts as a student hands them in: copied alone into an empty folder.

There, scenario.py must import the kvsim.py beside it, and nothing may need the kvlab package or
anything outside the standard library. With `-S` Python does not even add site-packages (where
kvlab is installed) to the path, so only the standard library and the folder itself are there.
(`-I` would be stricter still, but it also drops the script's own folder from the path, which
is exactly what a hand-in relies on.)
"""
import json
import shutil

import pytest

from helpers import KVLAB, ROOT, STAND_IN, assert_success, python

SCRIPTS = ("kvsim.py", "scenario.py", "summarize.py")
RUNS = {
    "baseline": [],
    "cyclic": ["--passes", "fwd,fwd"],
    "offload": ["--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev"],
}


@pytest.fixture
def handin(tmp_path):
    """An empty folder holding the three scripts and the copied measured file, nothing else."""
    for name in SCRIPTS:
        shutil.copy(KVLAB / name, tmp_path / name)
    shutil.copy(STAND_IN, tmp_path / "ttft.jsonl")
    return tmp_path


@pytest.fixture(scope="module")
def in_repo(tmp_path_factory):
    """What the scripts print and write when run from the repository root."""
    outputs = {}
    for name, args in RUNS.items():
        result = python("kvlab/scenario.py", *args, cwd=ROOT)
        assert_success(result)
        outputs[name] = result.stdout
    measured = tmp_path_factory.mktemp("in-repo") / "measured.json"
    assert_success(python("kvlab/summarize.py", "fixtures/ttft.jsonl", measured, cwd=ROOT))
    outputs["measured"] = measured.read_bytes()
    return outputs


@pytest.mark.parametrize("flags", [(), ("-S",)], ids=["plain", "stdlib-only"])
def test_scenario_runs_in_the_handin_folder_and_prints_what_it_prints_in_the_repo(handin, in_repo, flags):
    for name, args in RUNS.items():
        result = python("scenario.py", *args, cwd=handin, flags=flags)
        assert_success(result)
        assert result.stdout == in_repo[name], name


@pytest.mark.parametrize("flags", [(), ("-S",)], ids=["plain", "stdlib-only"])
def test_summarize_runs_in_the_handin_folder_and_writes_what_it_writes_in_the_repo(handin, in_repo, flags):
    result = python("summarize.py", "ttft.jsonl", "measured.json", cwd=handin, flags=flags)
    assert_success(result)
    assert result.stdout == ""
    assert (handin / "measured.json").read_bytes() == in_repo["measured"]


def test_scenario_uses_the_kvsim_beside_it(handin):
    # A kvsim.py whose cache never evicts: if scenario.py imports it, every second pass hits.
    (handin / "kvsim.py").write_text(
        "class TwoTierCache:\n"
        "    def __init__(self, gpu, cpu):\n"
        "        self.seen = set()\n"
        "    def access(self, key, size):\n"
        "        hit = key in self.seen\n"
        "        self.seen.add(key)\n"
        "        return 'gpu' if hit else 'miss'\n")
    result = python("scenario.py", "--passes", "fwd,fwd", cwd=handin, flags=("-S",))
    assert_success(result)
    assert json.loads(result.stdout)["passes"][1]["gpu_hits"] == 10


def test_scenario_alone_without_kvsim_fails(handin):
    (handin / "kvsim.py").unlink()
    result = python("scenario.py", cwd=handin, flags=("-S",))
    assert result.returncode != 0 and "kvsim" in result.stderr


def test_the_scripts_run_from_the_repository_root(in_repo):
    assert json.loads(in_repo["cyclic"])["passes"][1]["misses"] == 10
    assert json.loads(in_repo["measured"])["lmcache"]["pass2-replay"]["p50_ms"] == pytest.approx(48.6)


def test_the_scripts_import_no_heavy_library():
    # Scripts must start fast: no pandas, matplotlib or numpy on the scripts' import paths.
    probe = (
        "import json, sys\n"
        "sys.path.insert(0, 'kvlab')\n"
        "import scenario, summarize, kvsim\n"      # as plain scripts see each other
        "import kvlab.scenario, kvlab.summarize\n"  # as modules, through the package
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'matplotlib', 'numpy'))))\n")
    result = python("-c", probe, cwd=ROOT)
    assert_success(result)
    assert json.loads(result.stdout) == []
