"""notebook.compare_prediction: a prediction cell's value beside what the student's code gives, in one sentence."""
import importlib.util

import pytest

from kvlab import kvsim, notebook

WHAT = "nb.01.what-left"


def said(capsys):
    return capsys.readouterr().out.strip()


def test_a_blank_prediction_shows_no_answer_and_asks_for_the_prediction_first(capsys):
    assert notebook.compare_prediction(..., ["a", "c"], WHAT) is None
    assert said(capsys) == ("Which keys are left: **predict first.** Write your prediction in the cell above and "
                            "run it. Then run this cell again.")
    notebook.compare_prediction(..., lambda: pytest.fail("computed"), WHAT)  # not even computed
    assert "['a', 'c']" not in said(capsys)
    assert not notebook.predicted(["a"], ...) and notebook.predicted(["a"], 0, None, False)


def test_a_right_prediction_agrees_and_a_list_equals_a_tuple(capsys):
    notebook.compare_prediction(("a", "c"), ["a", "c"], WHAT)
    assert said(capsys) == ("Which keys are left: you predicted `('a', 'c')`. Your code gives `['a', 'c']`. "
                            "They agree.")
    notebook.compare_prediction(0.5, 0.52, WHAT, tolerance=0.05)
    assert said(capsys).endswith("They agree.")


def test_a_wrong_prediction_differs_and_asks_which_follows_the_rules(capsys):
    cache = kvsim.LRUCache(10)
    notebook.compare_prediction(["b"], lambda: [cache.access("a", 4), cache.keys()][1], WHAT)
    assert said(capsys) == ("Which keys are left: you predicted `['b']`. Your code gives `['a']`. They differ: "
                            "which one follows the rules?")
    notebook.compare_prediction(0.5, 0.6, WHAT, tolerance=0.05)
    assert "They differ" in said(capsys)


def test_a_crash_in_the_students_code_is_one_line_after_the_prediction(capsys):
    cache = kvsim.LRUCache(10)
    assert notebook.compare_prediction(["a"], lambda: cache.access("a", -1), WHAT) is None
    text = said(capsys)
    assert "\n" not in text and text.startswith("Which keys are left: you predicted `['a']`. Your code stopped: "
                                                "kvlab/kvsim.py, line "), text
    assert "ValueError" in text


def test_a_stub_not_written_yet_is_one_line_after_the_prediction(capsys, tmp_path, monkeypatch):
    stub = tmp_path / "kvsim.py"
    stub.write_text("def access():\n    raise NotImplementedError('step 1 is not written yet: LRUCache.access in "
                    "kvlab/kvsim.py')\n")
    spec = importlib.util.spec_from_file_location("stub_kvsim", stub)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(notebook, "_student_files", lambda: {stub.resolve()})
    assert notebook.compare_prediction(["a"], module.access, WHAT) is None
    assert said(capsys) == ("Which keys are left: you predicted `['a']`. Your code stopped: step 1 is not written "
                            "yet: LRUCache.access in kvlab/kvsim.py")


def test_an_error_outside_the_students_code_is_not_hidden():
    with pytest.raises(ZeroDivisionError):
        notebook.compare_prediction(1, lambda: 1 / 0, WHAT)


def test_a_reveal_waits_in_one_line_until_its_predictions_are_filled_in():
    with pytest.raises(notebook.NotReady) as stopped:
        notebook.after([0, 0], ...)
    assert str(stopped.value).startswith("**Predict first.**")
    assert notebook.after([0, 0], 5)


def test_every_prediction_is_filled_in_the_instructor_edition_and_named_before_the_cells_that_wait_for_it():
    """Each `my_x = ...` cell is followed by an instructor cell that fills it (the stored outputs compare it), and
    every notebook.after(...) names predictions made above it."""
    import json
    import re

    from kvlab import paths
    for path in paths.notebook_paths():
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        made = set()
        for index, cell in enumerate(cells):
            source = "".join(cell["source"])
            blank = re.findall(r"^(my_\w+)\s*=\s*\.\.\.", source, re.M)
            if blank and "instructor" not in cell["metadata"].get("tags", []):
                filled = "".join(cells[index + 1]["source"])
                assert "instructor" in cells[index + 1]["metadata"].get("tags", []), (path.name, index)
                assert all(name in filled for name in blank), (path.name, index)
                made.update(blank)
            for waits in re.findall(r"notebook\.after\(([^)]*)\)", source):
                assert {name.strip() for name in waits.split(",")} <= made, (path.name, index, waits)
