"""The student's check (`kvlab check`, check.step(n) in the notebooks): one table, one hint per mistake.

End to end, each in a fresh process as `kvlab check` runs: a hand-in written from the lab text alone passes
every step; a student who follows the lab's order (steps 1-4 written, TwoTierCache still a stub) passes
steps 1-4; the edition's untouched stubs say, step by step, which function is not written yet; a step whose
code runs on an earlier failing step's holds its hint back. In this process: what a row shows (the
smallest case, the student's value beside the lab's), a class given directly, the table.
"""
import json

import pytest

from helpers import KVLAB, ROOT
from kvlab import check, lab
from kvlab.check import labsteps
from kvlab.instructor import plants
from kvlab.instructor.reference import planted_source
from planted import copy_scripts, folder_handin, reference_scripts, seed_true

STUB = 'raise NotImplementedError("step {n} is not written yet: {f} in kvlab/{file}")'


def test_a_handin_written_from_the_lab_text_alone_passes_every_step(tmp_path):
    """Plain scripts with argparse at the top, no main(), no run(), no counters, no gpu_cliff: 8 of 8."""
    folder = seed_true(tmp_path / "seed-true")
    reports = check.steps(folder=folder, artifacts=folder)
    assert all(report.passed for report in reports.values()), labsteps.table(reports)
    assert not any(row.rule_id.endswith(".function") or row.rule_id == "lru.counters"
                   for report in reports.values() for row in report.rows)  # what the text does not ask is not asked


def in_order():
    """Steps 1-4 written as the edition has them, run() still on LRUCache (step 2), TwoTierCache a stub."""
    scripts = reference_scripts()
    kvsim = scripts["kvsim.py"]
    start = kvsim.index("        # BEGIN SOLUTION\n        if key in self.gpu:")
    end = kvsim.index("        # END SOLUTION", start)
    scripts["kvsim.py"] = kvsim[:start] + "        " + STUB.format(n=5, f="TwoTierCache.access", file="kvsim.py") + "\n" + kvsim[end:]
    scripts["scenario.py"] = scripts["scenario.py"].replace("    cache = TwoTierCache(gpu, cpu)\n", "    cache = LRUCache(gpu)\n").replace(
        "            tier = cache.access(doc, tokens)\n",
        '            tier = "gpu" if cache.access(doc, tokens) else "miss"\n')
    summarize = scripts["summarize.py"]
    start = summarize.index("    # BEGIN SOLUTION\n    ttfts = ")
    end = summarize.index("    # END SOLUTION", start)
    scripts["summarize.py"] = summarize[:start] + "    " + STUB.format(n=8, f="summarize", file="summarize.py") + "\n" + summarize[end:]
    return scripts


def test_code_right_for_steps_1_to_4_passes_them_whatever_later_steps_change(tmp_path):
    folder = folder_handin(tmp_path / "in-order", in_order())
    (folder / "cpu_cliff.json").unlink()  # step 7's loop is not run yet either
    reports = check.steps(folder=folder, artifacts=folder)
    assert [number for number, report in reports.items() if report.passed] == [1, 2, 3, 4], labsteps.table(reports)
    assert reports[5].rows[0].hint.as_dict()["id"] == "stub.not-written"
    assert reports[6].misconceptions in (["cpu-ignored"], ["not-written"])


def test_the_editions_stubs_each_say_which_function_to_write(tmp_path):
    from kvlab.instructor import release
    folder = tmp_path / "stubs"
    folder.mkdir()
    for name in lab.SCRIPTS:
        (folder / name).write_text(release.stub_source((KVLAB / name).read_text(), f"kvlab/{name}"))
    reports = check.steps(folder=folder, artifacts=folder)
    assert all(not report.passed and report.rows[0].rule_id == "written" for report in reports.values())
    table = labsteps.table(reports)
    assert "step 1 is not written yet: LRUCache." in table and "step 8 is not written yet: main in kvlab/summarize.py" in table
    assert "step 2 is not written yet: main in kvlab/scenario.py" in table  # the command is what the steps run


def test_a_row_shows_the_smallest_case_and_the_students_value_beside_the_labs():
    fifo = next(plant for number, name, index, plant in plants.plants() if name == "fifo")
    namespace = {}
    exec(compile(planted_source(fifo, (KVLAB / "kvsim.py").read_text()), "kvsim.py", "exec"), namespace)
    report = check.lru_cache(namespace["LRUCache"])
    first = report.failures[0]
    assert report.misconceptions == ["fifo"] and all(row.held for row in report.failures[1:])
    text = str(first.hint)
    assert "LRUCache(2): access('a', 1), access('b', 1), access('a', 1)" in text
    assert "yours: ['a', 'b']" in text and "The lab's rules: ['b', 'a']" in text


def edited(folder, name, old, new):
    """The reference scripts in `folder`, with `old` replaced by `new` in the script `name`."""
    folder = copy_scripts(KVLAB, folder)
    text = (folder / name).read_text()
    assert text.count(old) == 1
    (folder / name).write_text(text.replace(old, new))
    return folder


def test_a_crash_names_the_line_and_later_steps_wait_for_the_step_they_run_on(tmp_path):
    folder = edited(tmp_path / "crash", "kvsim.py",
                    "            _, evicted = self._sizes.popitem(last=False)\n            self._used -= evicted",
                    "            _, evicted = self._sizes.popitem(last=False)")
    reports = check.steps((1, 2, 5), folder=folder, artifacts=False)
    assert reports[1].misconceptions == ["used-not-freed"]
    assert "raised KeyError at kvsim.py:" in str(reports[1].failures[0].hint)
    assert all(row.held for number in (2, 5) for row in reports[number].failures)


def test_the_check_command_prints_one_table_and_its_status(tmp_path):
    from helpers import python
    folder = seed_true(tmp_path / "seed-true")
    result = python("-m", "kvlab", "check", "--folder", folder, "--artifacts", folder, "1", "8")
    assert result.returncode == 0 and "2 of 2 steps OK" in result.stdout, result.stdout + result.stderr
    (folder / "measured.json").unlink()
    result = python("-m", "kvlab", "check", "--folder", folder, "--artifacts", folder, "8", "--json")
    assert result.returncode == 1
    rows = json.loads(result.stdout)["8"]["rules"]
    assert [row["misconception"] for row in rows if not row["ok"]] == ["missing-artifact"]


def test_a_step_number_the_table_does_not_have_is_refused():
    with pytest.raises(ValueError):
        check.step(9)
    assert ROOT.is_dir()


def test_a_missing_saved_file_holds_back_nothing_of_the_steps_that_run_on_its_code(tmp_path):
    """Step 2's code is right but cyclic.json is not made yet: step 6's own mistake is shown, not "fix step 2"."""
    folder = edited(tmp_path / "no-files", "scenario.py", '                counts["hit_docs"].append(doc)',
                    '                if tier == "gpu":\n                    counts["hit_docs"].append(doc)')
    reports = check.steps((2, 6), folder=folder, artifacts=folder)
    assert [row.rule_id for row in reports[2].failures] == ["cyclic.file"]
    shown = reports[6].failures[0]
    assert not shown.held and reports[6].misconceptions == ["cpu-hits-not-in-hit-docs"], labsteps.table(reports)
    assert "{'order': 'rev', 'gpu_hits': 0, 'cpu_hits': 1, 'misses': 0, 'hit_docs': []}" in str(shown.hint)  # by name


def test_keys_that_is_not_a_new_list_is_said_in_words(tmp_path):
    """keys() twice is shown as what it gave (a tuple, the cache's own list), not as the raw [type, same] pair."""
    folder = edited(tmp_path / "tuple", "kvsim.py", "return list(self._sizes)", "return tuple(self._sizes)")
    row = check.steps((1,), folder=folder, artifacts=False)[1].failures[0]
    text = str(row.hint)
    assert row.rule_id == "lru.fresh" and "keys() gave an object of type tuple, not a list" in text, text
    assert "keys() gave a new list each time" in text and "[[" not in text


def test_a_commands_fields_are_shown_by_their_names_pass_by_pass(tmp_path):
    folder = edited(tmp_path / "sorted", "scenario.py", '    return {"passes": results}',
                    '    for one in results:\n        one["hit_docs"].sort()\n    return {"passes": results}')
    text = str(check.steps((2,), folder=folder, artifacts=False)[2].failures[0].hint)
    assert "Yours: [{'hit_docs': []}, {'hit_docs': [0, 1]}]. The lab's rules: [{'hit_docs': []}, {'hit_docs': [1, 0]}]" \
        in text, text


def test_a_step_with_nothing_judged_is_not_shown_as_ok(tmp_path):
    """Step 5 on an LRUCache that crashes: its rules follow from step 1's code, so nothing of step 5 is judged here.
    The table says so (–, and why), and does not count it among the steps OK."""
    folder = edited(tmp_path / "crashes", "kvsim.py", "        while self._used + size > self.capacity:\n",
                    "        while self._used + size > self.capacity or True:\n")
    shown = labsteps.table(check.steps((1, 5), folder=folder, artifacts=False))
    assert "\n5 – " in shown and "0 of 2 steps OK" in shown, shown
    assert "Not counted here: this comes from step 1's code" in shown.split("\n5 – ")[1], shown
