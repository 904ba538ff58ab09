"""Parity: every planted bug fails the same steps with the same hint under `kvlab check` and `kvlab grade`.

This module holds the comparison; test_parity_caches.py and test_parity_scripts.py each run it on half of
the plants (kvsim.py's, and the others'), so that the two halves run at once on two workers.

Each plant of tests/planted.py (and each artifact plant) becomes a whole hand-in: the reference scripts with
the plant's one bug, the reference's artifacts and the lab's ttft.jsonl. The class is graded once, as
`kvlab grade` grades it (hidden cases from a course seed, plain child processes: the sandbox is proven in
test_grade.py and test_hostile_sandbox.py; each of the groups that the grader sends one process in turn
runs in one process of its own, so that the memo below serves them), and each folder is checked once as `kvlab check` checks it (the
student edition's digests, public rules, every step; for a hand-in whose kvsim.py fails, which the grader
grades on the reference kvsim.py, its kvsim steps and step 8: its scenario steps wait for kvsim.py). Both run their jobs through one memo: a job on
the same Python files, with the same files written beside them, is run once and its outcome reused (the
driver imports the student's files afresh for every job, so a job's outcome depends on nothing else).
The public rules' jobs are the same in both, and hand-ins that share a script share its jobs: the class
costs about half its processes. A run that timed out, flooded or was stopped is never reused. Then, for
every plant:
- the first step with a hint, and that hint, are the same under both, and they are the plant's own (for a
  plant that leaves a file out: "missing-file", at the first step written in that file);
- the grader fails no step that the check passes;
- a step that the check fails and the grader passes was graded on the reference kvsim.py (fair scoring),
  and says so.
"""
import copy
import hashlib
import json
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kvlab import check, steps as lab_table
from kvlab.check import oracle, run
from kvlab.i18n import Msg
from kvlab.instructor import artifacts, batch, judge, release, scripts
from planted import DELETED, PLANTS, ROOT, folder_with, planted_text

FAST = 0.25          # CPU seconds a run may take before it counts as endless (the lab's runs take milliseconds)
COURSE_SEED = "5eed" * 16
FAIR = Msg("grade.on-reference-kvsim")
KVSIM_STEPS = lab_table.PROCESSES["kvsim"]  # a course's keyed seed: the hidden cases are drawn as `--course` draws them


REUSED = ("ok", "crash", "exit", "missing")  # the outcomes a job gives every time it runs on the same files


def together(run_jobs):
    """run_together(...) as the grader calls it, each group run through `run_jobs` (the memo) in turn: the
    same outcomes for these plants, which do not depend on sharing a process (tested in test_driver.py)."""
    def run_together(folder, groups, *, wanted=None, **options):
        results, done = [None] * len(groups), {}
        for index, (jobs, files) in enumerate(groups):
            if not jobs:
                results[index] = []
            elif wanted is None or wanted(index, done.get):
                results[index] = done[index] = run_jobs(folder, jobs, files=files, **options)
                if any(outcome.get("kind") in (*batch.ENDS_PROCESS, "not-run") for outcome in done[index]):
                    break  # the process ended: the later groups were not run
        return results
    return run_together


def memoized(real):
    """run_jobs(...) that runs each distinct job once: keyed by the job, the files given, and the Python files of
    the folder that the job's file imports (as scripts.imports() reads them), itself included."""
    memo, lock = {}, threading.Lock()

    def sources(folder, start, imported):
        todo, seen = [start], set()
        while todo:
            name = todo.pop()
            if name not in seen and name in imported:
                seen.add(name)
                todo += imported[name]
        digest = hashlib.sha256()
        for name in sorted(seen):
            digest.update(name.encode() + b"\0" + (Path(folder) / f"{name}.py").read_bytes() + b"\0")
        return digest.hexdigest()

    def run_jobs(folder, jobs, *, files=None, **options):
        given = hashlib.sha256(json.dumps([files or {}, options.get("timeout")], sort_keys=True).encode()).hexdigest()
        imported = scripts.imports(folder)  # it remembers each source it parsed
        starts = [job.get("script") or job["module"] + ".py" for job in jobs]  # the file each job runs
        read = {start: sources(folder, start[:-3], imported) for start in set(starts)}  # each read once a call
        keys = [json.dumps([read[start], given, job], sort_keys=True) for start, job in zip(starts, jobs)]
        with lock:
            missing = [number for number, key in enumerate(keys) if key not in memo]
        fresh = dict(zip(missing, real(folder, [jobs[number] for number in missing], files=files, **options)
                         if missing else ()))
        with lock:
            memo.update((keys[number], outcome) for number, outcome in fresh.items()
                        if outcome.get("kind") in REUSED)
            return [fresh[number] if number in fresh else copy.deepcopy(memo[key]) for number, key in enumerate(keys)]
    return run_jobs


def first_hint(reports):
    """(step, [its misconceptions]) of the first step that gives a hint, or (None, [])."""
    return next(((number, report.misconceptions) for number, report in reports.items() if report.misconceptions),
                (None, []))


def graded_and_checked(root, plants, artifact_plants=()):
    """{plant name: (the check's reports, the grader's Grade, the plant's first step, its hint)}."""
    digests = root / "digests.json"
    digests.write_text(release.digests_file(release.expectations(), salt="parity-salt"))
    written = root / "artifacts"
    artifacts.write(written)

    def handin(plant_folder):
        for path in written.iterdir():
            shutil.copy(path, plant_folder / path.name)
        shutil.copy(ROOT / "fixtures" / "ttft.jsonl", plant_folder / "ttft.jsonl")
        return plant_folder

    cases = {}
    reference = root / "reference"
    folder_with(PLANTS[0]._replace(pieces=()), reference)
    shutil.copy(ROOT / "kvlab" / PLANTS[0].script, reference / PLANTS[0].script)  # the reference: no bug
    handin(reference)
    for plant in plants:
        folder = folder_with(plant, root / "class" / plant.name)
        step, hint = plant.steps[0], plant.misconception
        if planted_text(plant) == DELETED:  # a file left out: the whole table names it first, at its first step
            step, hint = next(number for number, s in lab_table.STEPS.items() if s.file == plant.script), "missing-file"
        cases[plant.name] = (handin(folder), step, hint)
    for plant in artifact_plants:
        folder = root / "class" / plant.name
        shutil.copytree(reference, folder)
        plant.change(folder)
        cases[plant.name] = (folder, plant.step, plant.misconception)
    folders = [folder for folder, _, _ in cases.values()]
    shared, student_oracle = memoized(run.run_jobs), oracle.Digests(digests)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run, "run_jobs", shared)  # what kvlab check's executor calls
        patch.setattr(judge, "run_jobs", shared)
        patch.setattr(judge, "run_together", together(shared))
        grades, interrupted = batch.grade_all(folders, seed=COURSE_SEED, timeout=FAST, isolation=False, jobs=2)
        def checked_steps(folder, graded):
            # graded on the reference kvsim.py: the check's scenario steps wait for the failing kvsim.py
            # (test_a_failing_kvsim_holds_every_scenario_step_back), so only its kvsim steps and step 8 tell
            fair = any(report.note == FAIR for report in graded.steps.values())
            return check.steps(KVSIM_STEPS + (8,) if fair else lab_table.NUMBERS, folder=folder, artifacts=folder,
                               timeout=FAST, oracle=student_oracle)
        with ThreadPoolExecutor(2) as pool:
            checked = list(pool.map(checked_steps, folders, grades))
    assert not interrupted
    return {name: (reports, graded, step, hint)
            for (name, (_, step, hint)), reports, graded in zip(cases.items(), checked, grades)}


def assert_parity(checked, graded, step, hint, name):
    assert not graded.error, graded.error
    expected = (step, [hint]) if hint else (step,)
    for reports in (checked, graded.steps):
        found = first_hint(reports)
        assert found[:len(expected)] == expected, (name, found)
    failing_in_check = {number for number, report in checked.items() if not report.passed}
    failing_in_grade = {number for number, report in graded.steps.items() if not report.passed}
    assert failing_in_grade <= failing_in_check, (name, failing_in_grade - failing_in_check)
    for number in failing_in_check - failing_in_grade:
        assert graded.steps[number].note == FAIR, (name, number)
    for number in set(graded.steps) - set(checked):  # steps the check did not run: graded on the reference
        assert graded.steps[number].note == FAIR, (name, number)

