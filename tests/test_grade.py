"""kvlab grade: a hand-in written by `kvlab handin` passes; one planted bug fails exactly its steps.

Folders are graded with the stand-in measurement (conftest sets KVLAB_TTFT). Code that hangs, floods
stdout or does not compile is graded with a short time limit, and must cost only bounded time.
"""
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from helpers import assert_one_line_error, clean_env, python
from kvlab import grade, handin, sandbox, scenario
from kvlab.check import HINTS
from kvlab.check.scenarios import step_probes

BUGGY = Path(__file__).resolve().parent / "buggy"
ALL_STEPS = list(range(1, 9))

# fixture -> (file it replaces, the steps it must fail, the misconception each of those steps names)
PLANTED = {
    "lru_fifo": ("kvsim.py", [1], "fifo"),
    "lru_clears_on_oversized": ("kvsim.py", [1], "oversized-evicts"),
    "lru_evicts_on_oversized": ("kvsim.py", [1], "oversized-evicts"),
    "lru_stores_oversized": ("kvsim.py", [1], "oversized-stored"),
    "lru_contains_moves": ("kvsim.py", [1], "in-moves"),
    "lru_keys_moves": ("kvsim.py", [1], "keys-moves"),
    "lru_used_wrong": ("kvsim.py", [1], "used-wrong"),
    "lru_used_method": ("kvsim.py", [1], "used-method"),
    "tier_touches_cpu_on_gpu_hit": ("kvsim.py", [5], "tier-touches-cpu"),
    "tier_no_cpu_refresh": ("kvsim.py", [5], "tier-no-cpu-refresh"),
    "tier_no_copy_to_gpu": ("kvsim.py", [5], "tier-no-gpu-copy"),
    "tier_miss_only_gpu": ("kvsim.py", [5], "tier-miss-one-tier"),
    "tier_cpu_zero_fails": ("kvsim.py", [5], "tier-cpu-zero"),
    "scenario_clears_between_passes": ("scenario.py", [2, 3, 4, 6, 7], "clears-between-passes"),
    "scenario_hit_docs_sorted": ("scenario.py", [2, 3, 6], "hit-docs-order"),  # 4 and 7 only count
    "scenario_prints_text": ("scenario.py", [2, 3, 4, 6, 7], "text-on-stdout"),
    "summarize_median_low": ("summarize.py", [8], "median-even"),
    "summarize_rounds_before_ratio": ("summarize.py", [8], "rounds-before-ratio"),
    "summarize_renames_passes": ("summarize.py", [8], "pass-names"),
    "summarize_no_blank_skip": ("summarize.py", [8], "blank-lines"),
}


@pytest.fixture(scope="module")
def handed_in(tmp_path_factory):
    """A folder written by `kvlab handin`: the reference scripts and their results."""
    folder = tmp_path_factory.mktemp("handin") / "kvlab"
    handin.handin(folder)
    return folder


@pytest.fixture
def student(handed_in, tmp_path):
    """A copy of the hand-in folder, for a test to plant a bug in."""
    folder = tmp_path / "student"
    shutil.copytree(handed_in, folder)
    return folder


def snapshot(folder):
    return {path.name: (path.read_bytes(), path.stat().st_mtime_ns) for path in sorted(Path(folder).iterdir())}


def diagnosis(result, step):
    return {row.misconception for row in result.steps[step - 1].failures}


class TestAHandInPasses:
    def test_every_step_passes_quickly_and_the_folder_is_not_modified(self, handed_in):
        before = snapshot(handed_in)
        started = time.monotonic()
        result = grade.grade(handed_in)
        assert time.monotonic() - started < 5
        assert result.passed, str(result)
        assert [step.number for step in result.steps] == ALL_STEPS
        assert all(step.rows for step in result.steps)
        assert snapshot(handed_in) == before

    def test_without_ttft_jsonl_the_labs_measurement_is_used(self, student):
        (student / "ttft.jsonl").unlink()
        assert grade.grade(student).passed

    def test_the_seed_changes_the_random_scenarios_and_nothing_else(self, handed_in):
        def arguments(seed):
            return [job["argv"] for probes in step_probes(seed).values() for probe in probes for job in probe.jobs]
        assert arguments(0) == arguments(0)
        assert arguments(0) != arguments(1)
        assert len(arguments(0)) == len(arguments(1))
        assert grade.grade(handed_in, seed=1).passed


class TestOnePlantedBug:
    @pytest.mark.parametrize("fixture", PLANTED)
    def test_fails_exactly_the_affected_steps_with_the_right_hint(self, student, fixture):
        target, steps, misconception = PLANTED[fixture]
        shutil.copy(BUGGY / f"{fixture}.py", student / target)
        result = grade.grade(student)
        assert result.failed_steps() == steps, str(result)
        for step in steps:
            assert misconception in diagnosis(result, step), str(result)
        assert HINTS[misconception] in str(result)

    def test_a_cliff_of_misses_instead_of_hits(self, student):
        (student / "cliff.json").write_text(json.dumps({"21520": 10, "30000": 10, "40000": 10, "45000": 10,
                                                        "50109": 10, "50110": 0}))
        result = grade.grade(student)
        assert result.failed_steps() == [4]
        assert diagnosis(result, 4) == {"sweep-hits-not-misses"}

    def test_text_saved_into_a_json_file(self, student):
        text = (student / "cyclic.json").read_text()
        (student / "cyclic.json").write_text("Simulating 10 documents\n" + text)
        result = grade.grade(student)
        assert result.failed_steps() == [2]
        assert diagnosis(result, 2) == {"text-on-stdout"}

    def test_an_offload_file_from_a_cache_cleared_between_passes(self, student):
        cleared = {"passes": [scenario.run(cpu=56000, passes=(order,))["passes"][0] for order in ("fwd", "fwd", "rev")]}
        (student / "offload.json").write_text(json.dumps(cleared))
        result = grade.grade(student)
        assert result.failed_steps() == [6]
        assert diagnosis(result, 6) == {"clears-between-passes"}

    def test_a_measured_json_with_the_low_median(self, student):
        from test_check import load
        buggy = load("summarize_median_low")
        records = buggy.read_records(student / "ttft.jsonl")
        (student / "measured.json").write_text(buggy.to_json(buggy.summarize(records)))
        result = grade.grade(student)
        assert result.failed_steps() == [8]
        assert diagnosis(result, 8) == {"median-even"}

    def test_a_broken_measured_json(self, student):
        (student / "measured.json").write_text(
            (student / "measured.json").read_text().replace('"p50_ms": ', '"p50_ms": 1 + ', 1))
        result = grade.grade(student)
        assert result.failed_steps() == [8]
        assert diagnosis(result, 8) == {"not-json"}

    def test_a_measured_json_for_another_measurement(self, student):
        lines = (student / "ttft.jsonl").read_text().splitlines()
        (student / "ttft.jsonl").write_text("\n".join(lines[:-1]) + "\n")  # one record fewer
        result = grade.grade(student)
        assert result.failed_steps() == [8]
        assert diagnosis(result, 8) == {"n-count"}

    @pytest.mark.parametrize("name, steps", [
        ("kvsim.py", [1, 5]),
        ("scenario.py", [2, 3, 4, 6, 7]),
        ("cpu_cliff.json", [7]),
    ])
    def test_a_missing_file(self, student, name, steps):
        (student / name).unlink()
        result = grade.grade(student)
        assert result.failed_steps() == steps
        assert all(diagnosis(result, step) == {"missing-file"} for step in steps)


    def test_a_kvsim_without_two_tier_cache(self, student):
        text = (student / "kvsim.py").read_text()
        (student / "kvsim.py").write_text(text[:text.index("class TwoTierCache")])
        result = grade.grade(student)
        assert result.failed_steps() == [5]  # scenario.py runs with the lab's kvsim.py
        assert diagnosis(result, 5) == {"missing-class"}

    def test_a_changed_copy_of_the_course_measurement(self, student, tmp_path, monkeypatch):
        course = tmp_path / "course-ttft.jsonl"  # stands for /opt/fixtures/kvoffload/ttft.jsonl
        course.write_bytes((student / "ttft.jsonl").read_bytes())
        monkeypatch.setenv("KVLAB_TTFT", str(course))
        assert grade.grade(student).passed
        with open(student / "ttft.jsonl", "a") as copy:
            copy.write("\n")  # a blank line more: the same records, but not the file as measured
        result = grade.grade(student)
        assert result.failed_steps() == [8]
        assert diagnosis(result, 8) == {"ttft-changed"}


class TestUntrustedCode:
    """Endless loops, floods of output and syntax errors cost bounded time and say what happened."""

    def graded(self, student, fixture, target, timeout=1.0):
        shutil.copy(BUGGY / f"{fixture}.py", student / target)
        before = snapshot(student)
        started = time.monotonic()
        result = grade.grade(student, timeout=timeout)
        elapsed = time.monotonic() - started
        assert snapshot(student) == before
        return result, elapsed

    def test_an_endless_loop_in_rev_passes(self, student):
        result, elapsed = self.graded(student, "scenario_infinite_loop", "scenario.py")
        assert elapsed < 8
        assert result.failed_steps() == [2, 3, 6]  # the steps whose runs read backwards
        assert all("timeout" in diagnosis(result, step) for step in (2, 3, 6))
        assert "timed out after 1 s" in str(result)

    def test_an_endless_loop_at_import(self, student):
        result, elapsed = self.graded(student, "kvsim_import_loop", "kvsim.py")
        assert elapsed < 8
        assert result.failed_steps() == [1, 5]
        assert diagnosis(result, 1) == {"timeout"} and "importing kvsim.py timed out" in str(result)

    def test_a_print_that_never_stops(self, student):
        result, elapsed = self.graded(student, "scenario_huge_print", "scenario.py", timeout=5.0)
        assert elapsed < 8
        assert result.failed_steps() == [2, 3, 4, 6, 7]
        assert diagnosis(result, 2) == {"output-flood"}
        assert "printed more than 1 MB on stdout" in str(result)

    def test_a_syntax_error(self, student):
        result, _ = self.graded(student, "scenario_syntax_error", "scenario.py")
        assert result.failed_steps() == [2, 3, 4, 6, 7]
        assert "SyntaxError: expected ':' (scenario.py, line 23)" in str(result)

    def test_a_script_that_writes_files_writes_them_in_the_copy(self, student):
        text = (student / "summarize.py").read_text()
        (student / "summarize.py").write_text(
            text + "\nopen('scribble.txt', 'w').write('x')\nopen(__file__, 'a').write('# changed')\n")
        result, _ = self.graded(student, "summarize_median_low", "other.py")
        assert result.passed
        assert not (student / "scribble.txt").exists()


class TestSandbox:
    def test_a_loop_that_swallows_the_time_limit_is_killed(self, tmp_path):
        (tmp_path / "stubborn.py").write_text(
            "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n")
        started = time.monotonic()
        results = sandbox.run_jobs(tmp_path, [sandbox.script_job("stubborn.py", kvsim="own")] * 2, timeout=0.5)
        assert time.monotonic() - started < 5
        assert "timed out" in results[0]["error"] and results[1]["error"].startswith("not run")

    def test_the_whole_process_group_is_killed(self, tmp_path):
        marker = tmp_path / "alive"
        (tmp_path / "child.py").write_text(f"import time\ntime.sleep(1)\nopen({str(marker)!r}, 'w')\n")
        (tmp_path / "spawn.py").write_text(
            "import subprocess, sys, time\nsubprocess.Popen([sys.executable, 'child.py'])\ntime.sleep(60)\n")
        run = sandbox.run(tmp_path, ["spawn.py"], timeout=0.5)
        assert run.code is None and "timed out" in run.message
        time.sleep(1.2)
        assert not marker.exists()

    def test_stdin_is_closed(self, tmp_path):
        (tmp_path / "asks.py").write_text("input('your name? ')\n")
        run = sandbox.run(tmp_path, ["asks.py"], timeout=5)
        assert run.code == 1 and "EOFError" in run.message

    def test_stderr_is_capped_too(self, tmp_path):
        (tmp_path / "noisy.py").write_text("import os\nwhile True:\n    os.write(2, b'x' * 65536)\n")
        run = sandbox.run(tmp_path, ["noisy.py"], timeout=5, cap=100_000)
        assert run.code is None and "on stderr" in run.message and len(run.stderr) <= 4096

    def test_an_exit_code_and_its_message(self, tmp_path):
        (tmp_path / "fails.py").write_text("raise SystemExit('summarize.py: error: no such file')\n")
        result = sandbox.run_jobs(tmp_path, [sandbox.script_job("fails.py", kvsim="own")])[0]
        assert result["code"] == 1
        assert result["error"] == "exited with code 1: summarize.py: error: no such file"


class TestCommandLine:
    def test_a_passing_folder(self, handed_in):
        result = python("-m", "kvlab", "grade", handed_in)
        assert result.returncode == 0, result.stdout
        assert result.stderr == ""
        assert result.stdout.splitlines()[0] == f"{handed_in} (seed 0)"
        assert "8 of 8 steps pass" in result.stdout

    def test_json(self, handed_in):
        result = python("-m", "kvlab", "grade", handed_in, "--json", "--seed", "7")
        data = json.loads(result.stdout)
        assert (result.returncode, data["seed"], data["passed"]) == (0, 7, True)
        assert [step["step"] for step in data["folders"][0]["steps"]] == ALL_STEPS

    def test_several_folders_give_one_table_and_fail_if_one_fails(self, handed_in, student):
        shutil.copy(BUGGY / "lru_fifo.py", student / "kvsim.py")
        result = python("-m", "kvlab", "grade", handed_in, student)
        assert result.returncode == 1
        lines = result.stdout.splitlines()
        assert lines[0].split() == ["folder", *map(str, ALL_STEPS), "steps"]
        assert lines[1].split() == [str(handed_in), *"✓" * 8, "8/8"]
        assert lines[2].split() == [str(student), "✗", *"✓" * 7, "7/8"]

    def test_a_failing_folder_exits_1_with_the_hint(self, student):
        shutil.copy(BUGGY / "scenario_clears_between_passes.py", student / "scenario.py")
        result = python("-m", "kvlab", "grade", student)
        assert result.returncode == 1
        assert HINTS["clears-between-passes"] in result.stdout

    def test_a_missing_folder_is_one_line_on_stderr(self, tmp_path):
        result = python("-m", "kvlab", "grade", tmp_path / "nobody")
        assert_one_line_error(result, "no such folder", "nobody")
        assert result.returncode == 2

    @pytest.mark.parametrize("timeout", ["0", "-1", "nan"])
    def test_a_bad_timeout_is_one_line_on_stderr(self, handed_in, timeout):
        result = python("-m", "kvlab", "grade", handed_in, "--timeout", timeout)
        assert_one_line_error(result, "--timeout must be")
        assert result.returncode == 2

    def test_the_grade_runs_without_the_test_environment(self, handed_in):
        env = clean_env(HOME=os.environ.get("HOME", "/tmp"))
        result = python("-m", "kvlab", "grade", handed_in, env=env)
        assert result.returncode == 0
