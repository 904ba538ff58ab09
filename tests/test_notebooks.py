"""The lab's notebooks: how they are stored and tagged, parameters, and the one-line messages of kvlab.notebook.

nbval (pytest's `notebooks` test path) re-runs every stored notebook and compares its checked outputs;
these tests cover what nbval does not. A kernel costs a second or more, so there are five: papermill with
other parameters, papermill with a bad one, notebook 06 on a file unlike the lab's, a scratch copy of kvlab
whose kvsim.py is a stub (the student edition's "not written yet" and the reload on save), and a broken
notebook under `kvlab notebooks`.
"""
import ast
import json
import re
import shutil

import pytest

nbformat = pytest.importorskip("nbformat")  # the notebook stack: absent from the fast test path
papermill = pytest.importorskip("papermill")

from kvlab import lab, nbrun, notebook, paths  # noqa: E402 (after the importorskip)
from kvlab.instructor import markers
from helpers import ROOT, STAND_IN

LAB = ["00_index.ipynb", "01_lru_cache.ipynb", "02_cyclic_scan.ipynb", "03_gpu_cliff.ipynb",
       "04_two_tier.ipynb", "05_cpu_cliff.ipynb", "06_measured_ttft.ipynb",
       "07_beyond_lru.ipynb"]  # the lab's steps, then beyond the lab
NOTEBOOKS = nbrun.notebook_paths()
STEPS = NOTEBOOKS[1:]
CHECK = "# NBVAL_CHECK_OUTPUT"
BARE_REPR = re.compile(r"<(Figure size|Axes|matplotlib\.|[\w.]+ object at 0x)|PosixPath\(")


def read(path):
    return nbformat.read(path, as_version=4)


def tags(cell):
    return cell.metadata.get("tags", [])


def code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.strip()]


def text_of(output):
    """What a reader of the plain text sees (computed Markdown has the same text/plain)."""
    if output.output_type == "stream":
        return output.text
    return output.get("data", {}).get("text/plain", "")


def checked(cell):
    return CHECK in cell.source.splitlines()


def outputs_of(nb):
    return "".join(text_of(output) for cell in code_cells(nb) for output in cell.outputs)


def test_notebooks_are_stored_executed_in_order_with_python3_and_no_bare_reprs():
    assert [path.name for path in NOTEBOOKS] == LAB
    for path in NOTEBOOKS:
        nb = read(path)
        nbformat.validate(nb)
        assert nb.metadata["kernelspec"]["name"] == "python3", path.name
        cells = code_cells(nb)
        assert "setup" in tags(cells[0]) and "notebook.setup(" in cells[0].source, f"{path.name}: setup comes first"
        assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1)), f"{path.name}: not run in order"
        for cell in cells:
            assert all(output.output_type != "error" for output in cell.outputs), cell.source
            if checked(cell):
                assert cell.outputs, f"{path.name}: a checked cell without output:\n{cell.source}"
                assert not any(BARE_REPR.search(text_of(output)) for output in cell.outputs), cell.source
            if "save_figure(" in cell.source:
                assert any("image/png" in output.get("data", {}) for output in cell.outputs), cell.source
                assert not checked(cell), "a figure's cell cannot be checked"


@pytest.mark.parametrize("path", STEPS, ids=lambda path: path.stem)
def test_step_notebook_has_one_parameters_cell_at_the_lab_defaults_checked_next(path):
    nb = read(path)
    [cell] = [cell for cell in nb.cells if "parameters" in tags(cell)]
    values = {}
    for statement in ast.parse(cell.source).body:
        assert isinstance(statement, ast.AnnAssign), "papermill overrides plain `name: type = literal` lines"
        values[statement.target.id] = ast.literal_eval(statement.value)
    assert values.pop("sizes", "") == "", "06's sizes: empty, the file's own"  # (kvlab.ttft.given_sizes checks it)
    assert notebook.check_parameters(**values) is True, "the stored values are the lab's"
    after = code_cells(nb)[code_cells(nb).index(cell) + 1]
    assert "notebook.check_parameters(" in after.source, "bad parameters are turned into one line right away"


PREDICTION = "# Your prediction:"  # a code cell of `name = ...` lines; the next cell compares each one
STEP_TASK = re.compile(r"# Step \d+: ")  # a solution code cell that is a step's code, written in the notebook
EVIDENCE = re.compile(r'\(evidence: the output under "([^"]+)"(?: and "([^"]+)")?')


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_tags_make_a_student_edition_that_predicts_before_it_sees(path):
    """solution/instructor only on answer and assert cells; a prediction before each answer; asserts only for instructors.

    Each solution follows a Markdown cell tagged `answer`: a sentence to finish that names the heading of the
    output holding the evidence. No code cell asks for prose (`# Answer:`).
    """
    nb = read(path)
    headings = [line.lstrip("#").strip() for cell in nb.cells if cell.cell_type == "markdown"
                for line in cell.source.splitlines() if line.startswith("#")]
    waiting = False  # a "Your prediction" cell not yet answered
    for index, cell in enumerate(nb.cells):
        marks = set(tags(cell))
        assert not marks & {"solution", "instructor"} or not marks & {"setup", "parameters"}, cell.source
        if cell.cell_type == "markdown" and cell.source.strip() == "**Your prediction:**":
            assert not marks
            waiting = True
        if cell.cell_type == "code" and cell.source.startswith(PREDICTION):
            assert not marks, cell.source
            predicted = {node.targets[0].id for node in ast.parse(cell.source).body
                         if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                         and node.value.value is Ellipsis}
            assert predicted, f"{path.name}: a prediction cell with no `name = ...` to fill in:\n{cell.source}"
            later = [other for other in code_cells(nb)[code_cells(nb).index(cell) + 1:]
                     if not {"instructor", "solution"} & set(tags(other))]  # the student's own loop may come between
            assert any(f"compare_prediction({name}," in later[0].source for name in predicted), (
                f"{path.name}: the cell after a prediction compares it (notebook.compare_prediction):\n{later[0].source}")
            for name in predicted:  # each one, before anything else uses it, and only its reveal shows the answer
                first = next(other.source for other in later if name in other.source)
                assert f"compare_prediction({name}," in first or re.search(rf"predicted\([^)]*\b{name}\b", first), (
                    f"{path.name}: {name} is used before it is compared, or before a reveal waits for it")
            waiting = True
        if "answer" in marks:
            assert cell.cell_type == "markdown" and marks == {"answer"}, cell.source
            assert cell.source.startswith("**Your answer:** ") and "…" in cell.source, cell.source
            named = EVIDENCE.search(cell.source)
            assert named, f"{path.name}: the answer cell names no evidence:\n{cell.source}"
            for heading in filter(None, named.groups()):
                assert any(found.startswith(heading) for found in headings), f"{path.name}: no heading {heading!r}"
            assert "solution" in set(tags(nb.cells[index + 1])), f"{path.name}: an answer cell without its solution"
        if "solution" in marks and cell.cell_type == "code" and STEP_TASK.match(cell.source):
            pass  # a step the student writes in the notebook (the loops of steps 4 and 7): its prompt stays
        elif "solution" in marks:
            assert waiting, f"{path.name}: an answer without a prediction before it:\n{cell.source}"
            assert "answer" in tags(nb.cells[index - 1]), f"{path.name}: a solution without an answer cell before it"
            waiting = False
        if cell.cell_type == "code":
            assert not cell.source.startswith("# Answer"), f"{path.name}: a code cell for prose:\n{cell.source}"
        if "instructor" in marks:
            assert cell.cell_type == "code" and not checked(cell), cell.source
        elif cell.cell_type == "code":
            asserts = [node for node in ast.walk(ast.parse(cell.source)) if isinstance(node, ast.Assert)]
            assert not asserts, f"{path.name}: an assert outside an instructor cell:\n{cell.source}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_student_edition_keeps_the_answer_cells_and_drops_the_solutions(path):
    from kvlab.instructor import release

    nb = read(path)
    student = release.student_notebook(nb, path.name)
    answers = [cell.source for cell in nb.cells if "answer" in tags(cell)]
    assert [cell.source for cell in student.cells if "answer" in tags(cell)] == answers
    assert not any("solution" in tags(cell) or cell.source.startswith(("# Answer", "# The computed answer"))
                   for cell in student.cells)
    tasks = [cell for cell in nb.cells if "solution" in tags(cell) and STEP_TASK.match(cell.source)]
    assert len(student.cells) == len([cell for cell in nb.cells if not {"solution", "instructor"} & set(tags(cell))]) \
        + len(tasks)
    prompts = [cell.source for cell in student.cells if STEP_TASK.match(cell.source)]
    assert prompts == [markers.prompt(cell.source) for cell in tasks]  # the comments only: the student writes the loop
    assert all(line.startswith("#") for prompt in prompts for line in prompt.splitlines())


# Prose a student can see comes from the catalog: no words in a string handed to notebook.md or print in a cell
# (a row of numbers is layout, not prose).
PRINTED = re.compile(r"""(?:notebook\.md|print)\(f?("[^"]*"|'[^']*')""")


def prose(literal):
    return re.search(r"[A-Za-z]{2,}", re.sub(r"\{[^}]*\}", "", literal))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_computed_prose_comes_from_the_catalog(path):
    from kvlab.i18n import source

    for cell in code_cells(read(path)):
        assert "notebook.md(" not in cell.source, f"{path.name}: computed prose goes through notebook.say:\n{cell.source}"
        words = [literal for literal in PRINTED.findall(cell.source) if prose(literal)]
        assert not words, f"{path.name}: prose not from the catalog: {words}"
        for message_id in re.findall(r'notebook\.(?:say|t)\("([\w.-]+)"', cell.source):
            source(message_id)  # KeyError: not in kvlab/messages.py


def test_the_notebooks_messages_are_whole_and_in_their_section():
    from kvlab.i18n import placeholders
    from kvlab.messages import MESSAGES

    text = (ROOT / "kvlab" / "messages.py").read_text()
    section = text[text.index("# --- notebooks:"):text.index("# --- the student's commands")]
    used = set()
    for path in NOTEBOOKS:
        used |= set(re.findall(r'"((?:nb|notebook)\.[\w.-]+)"', "".join(cell.source for cell in read(path).cells)))
    used |= set(re.findall(r'"(notebook\.[\w.-]+)"', (ROOT / "kvlab" / "notebook.py").read_text()))
    used |= set(re.findall(r'"(notebook\.[\w.-]+)"', (ROOT / "kvlab" / "nbrun.py").read_text()))
    for module in ("ttft.py", "ttftplots.py"):
        used |= set(re.findall(r'"(nb\.06\.[\w.-]+)"', (ROOT / "kvlab" / module).read_text()))
    used |= set(re.findall(r'"(notebook\.plot-[\w.-]+)"', (ROOT / "kvlab" / "plots.py").read_text()))
    used |= set(re.findall(r'"(notebook\.timeline-[\w.-]+)"', (ROOT / "kvlab" / "timeline.py").read_text()))
    ours = {message_id for message_id in MESSAGES if message_id.startswith(("nb.", "notebook."))}
    assert used - {"notebook.finish-"} <= ours, used - ours  # (a prefix the code tests for)
    for message_id in ours:
        assert f'"{message_id}":' in section, f"{message_id} is outside the notebooks' section"
        value = MESSAGES[message_id]
        if isinstance(value, tuple):  # (one, other), chosen by n
            assert len(value) == 2 and all(isinstance(text, str) for text in value), message_id
        assert all(field.isidentifier() for field in placeholders(value)), message_id  # named, never {0} or {}


def run_papermill(name, tmp_path, monkeypatch, **parameters):
    monkeypatch.setenv("KVLAB_OUT", str(tmp_path / "out"))
    return papermill.execute_notebook(ROOT / "notebooks" / name, tmp_path / name, parameters=parameters,
                                      kernel_name="python3", cwd=ROOT / "notebooks", progress_bar=False)


def test_other_parameters_move_the_computed_prose_and_leave_the_labs_files_alone(tmp_path, monkeypatch):
    outputs = outputs_of(run_papermill("03_gpu_cliff.ipynb", tmp_path, monkeypatch, docs=12))
    assert "The first GPU capacity with a second-pass hit: **60,132 tokens** = 12 × 5,011" in outputs
    assert "50,110 tokens hold 10 of the 12 documents and still get no hit" in outputs
    assert "not written: these parameters are not the lab's, and cliff.json holds the lab's results" in outputs
    out = tmp_path / "out"
    assert not list(out.glob("*.json")) and not (out / "figures" / "gpu_cliff.png").exists()
    assert (out / "figures" / paths.OTHER_PARAMETERS / "gpu_cliff.png").read_bytes().startswith(b"\x89PNG")


def test_a_bad_parameter_stops_the_notebook_with_one_line(tmp_path, monkeypatch):
    with pytest.raises(papermill.PapermillExecutionError) as failure:
        run_papermill("03_gpu_cliff.ipynb", tmp_path, monkeypatch, gpu_capacities="21520,50110")
    assert failure.value.ename == "ParameterError"
    assert failure.value.traceback == ["ParameterError: gpu_capacities must be a list of whole numbers, got "
                                       "'21520,50110' (a str) (pass a list with papermill -y \"gpu_capacities: "
                                       "[21520, 50110]\")"]


def variant_file(folder):
    """The lab's file as a real one may come: its lines shuffled, ids from 1, and a first request 2.5x the others
    (a warm-up: the engine's first request, baseline's cold document 1)."""
    import random
    rows = [json.loads(line) for line in STAND_IN.read_text().splitlines() if line.strip()]
    rows[0] = dict(rows[0], ttft_ms=round(2.5 * rows[0]["ttft_ms"], 1))  # 1,498.0 ms
    rows = [dict(row, doc=row["doc"] + 1) for row in rows]
    random.Random(6).shuffle(rows)
    path = folder / "ttft.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_notebook_06_reads_a_real_shaped_file_as_the_labs_own_and_its_instructor_cells_pass(tmp_path, monkeypatch):
    """The course machine's file may have shuffled lines, other ids and a warm-up: notebook 06 runs through on it,
    its instructor cells included (they read the statistics without the warm-up). Other shapes, and the files that
    stop the analysis once, are tested in-process (tests/test_ttft.py)."""
    monkeypatch.setenv("KVLAB_TTFT", str(variant_file(tmp_path)))  # the lab's file, for this run
    copy = tmp_path / "06_measured_ttft.ipynb"
    lab_part = read(ROOT / "notebooks" / "06_measured_ttft.ipynb")
    summary = next(index for index, cell in enumerate(lab_part.cells) if cell.source.startswith("## Summary"))
    lab_part.cells = lab_part.cells[:summary + 1]  # the lab; its optional sections run under nbval
    nbformat.write(lab_part, copy)
    nbrun.run_notebooks([copy], out=tmp_path / "out", report=lambda line: None)  # raises if a cell failed
    other = outputs_of(read(tmp_path / "out" / "notebooks" / copy.name))
    assert "This file is not the stand-in" in other and "broke an assumption" not in other and "not defined" not in other
    assert "The lines of pass1-cold, pass2-replay and pass3-reverse are not in read order" in other
    assert "ids 1…10" in other and "The cold pass, the one that ran first: **pass1-cold**." in other
    assert "baseline's first request (pass1-cold, document 1) took 1,498.0 ms, 2.6× the median of its kind" in other
    assert "Left in, the warm-up would move the mean of baseline pass1-cold by +92.5 ms, but the median by only +2.2 ms" in other
    assert "pass1-cold: 9 documents in pairs. lmcache was slower on 8 of them and faster on 1." in other
    assert "**Both tests find lmcache slower in pass1-cold** (sign test p = 0.020, permutation test p = 0.006" in other
    assert "lmcache, pass3-reverse: 4 GPU hits (documents 10, 9, 8, 7" in other
    assert "The measurement splits 4 + 6, document for document" in other
    assert "So the p50 ratio, 11.85, compares a recompute with a load from CPU." in other
    assert (tmp_path / "out" / "measured.json").is_file()  # the lab's file: its artifacts are written


STUB = '        raise NotImplementedError("step 1 is not written yet: LRUCache.access in kvlab/kvsim.py")\n'


def stubbed_kvlab(folder):
    """A copy of the kvlab package whose LRUCache.access is the student edition's stub; returns kvsim.py's text."""
    shutil.copytree(ROOT / "kvlab", folder / "kvlab", ignore=shutil.ignore_patterns("__pycache__", "instructor"))
    kvsim = folder / "kvlab" / "kvsim.py"
    reference = kvsim.read_text()
    start = reference.index("# BEGIN SOLUTION\n", reference.index("def access"))
    end = reference.index("# END SOLUTION\n", start) + len("# END SOLUTION\n")
    kvsim.write_text(reference[:reference.rindex("\n", 0, start) + 1] + STUB + reference[end:])
    return reference


def test_a_students_stub_crash_bad_value_prose_and_broken_file_are_each_one_line_and_run_all_goes_on(tmp_path):
    """One kernel, a scratch copy of kvlab: every way a student's code stops a cell is one line, never an error output."""
    reference = stubbed_kvlab(tmp_path)
    kvsim, scenario = tmp_path / "kvlab" / "kvsim.py", tmp_path / "kvlab" / "scenario.py"
    run_source = scenario.read_text()
    crash_line = run_source[:run_source.index("results.append(counts)")].count("\n") + 1
    crashing = run_source.replace("results.append(counts)", "results.append(counts[5])")
    as_text = run_source.replace('return {"passes": results}', 'return json.dumps({"passes": results})')
    no_property = reference.replace("    @property\n    def used", "    def used")
    repr_line = no_property[:no_property.index('return f"LRUCache(capacity=')].count("\n") + 1
    run = "result = scenario.run(gpu=8, docs=2, tokens=4, passes=('fwd', 'fwd'))"
    from kvlab.instructor import release
    stubbed_scenario = release.stub_source(run_source, "kvlab/scenario.py")
    cells = [
        "from pathlib import Path\nfrom kvlab import notebook\nkvsim, scenario, summarize = notebook.setup(step=2)",
        "cache = kvsim.LRUCache(10)\nhit = cache.access('a', 4)",                        # 2: the stub
        "print(hit)",                                                                    # 3: what it did not define
        f"Path({str(kvsim)!r}).write_text({reference!r})",
        "cache = kvsim.LRUCache(10)\nprint(cache.access('a', 4), cache.access('a', 4))",  # 5: reloaded on save
        f"Path({str(scenario)!r}).write_text({crashing!r})",
        run,                                                                             # 7: a crash in run()
        "print(result)",                                                                 # 8: which step to fix
        f"Path({str(scenario)!r}).write_text({as_text!r})",
        run,                                                                             # 10: JSON text, no error
        "gpu_hits = result['passes'][1]['gpu_hits']",                                    # 11: the bad value
        "The third pass hits 9, 8, 7 and 6 because they were read last.",                # 12: prose in a code cell
        "print(gpu_hits)",                                                               # 13: which step to fix
        f"Path({str(kvsim)!r}).write_text('def broken(:\\n')",
        run,                                                                             # 15: kvsim.py does not compile
        "cache = kvsim.LRUCache(3)",                                                     # 16: still broken
        f"Path({str(kvsim)!r}).write_text({no_property!r})",
        "print(kvsim.LRUCache(3))",                                                      # 18: `used` a method
        "notebook.compare_prediction(..., 5, 'nb.02.what-second-pass')",                 # 19: a blank prediction
        "print(cliff)",                                                                  # 20: a loop not written
        "printed = notebook.run_scenario(passes='fwd,fwd')",                             # 21: not one JSON document
        f"Path({str(scenario)!r}).write_text({stubbed_scenario!r})",
        "printed = notebook.run_scenario(passes='fwd,fwd')",                             # 23: the command's stub
        f"Path({str(scenario)!r}).write_text({run_source!r})",
        "cliff = {}\nfor capacity in [8]:\n    cliff[str(capacity)] = notebook.run_scenario(gpu=capacity, docs=2, "
        "tokens=4, passes='fwd,fwd')['passes'][1]['gpu_hit']",                          # 25: the student's loop
        "print(cliff['8'])",                                                             # 26: which loop to fix
        "print('Run All went on')",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "t.ipynb")
    env = nbrun.kernel_env()
    env["PYTHONPATH"] = str(tmp_path)  # this copy of kvlab, not the repository's
    done = nbrun.execute(tmp_path / "t.ipynb", env)
    shown = {index + 1: [text_of(output).strip() for output in cell.outputs] for index, cell in enumerate(done.notebook.cells)}
    assert not any(output.output_type == "error" for cell in done.notebook.cells for output in cell.outputs)
    stub = "step 1 is not written yet: LRUCache.access in kvlab/kvsim.py"
    assert shown[1] == [f"**Finish step 1 first** (notebook 01): {stub}"]
    assert shown[2] == [stub]
    assert shown[3] == [f"hit is not defined: an earlier cell stopped ({stub})"]
    assert shown[5] == ["False True"]
    assert shown[7] == [f"kvlab/scenario.py, line {crash_line}, in run: KeyError: 5"]
    assert shown[8] == ["result is not defined: an earlier cell stopped (your step 2 code raised KeyError: 5; "
                        "fix step 2 and run check.step(2))"]
    assert shown[10] == []
    assert len(shown[11]) == 1 and shown[11][0].startswith("this cell stopped (TypeError: string indices must be ")
    assert shown[11][0].endswith("): it uses what your step 2 code returned; run check.step(2)")
    assert shown[13] == ["gpu_hits is not defined: an earlier cell stopped (it raised TypeError: string indices must "
                         "be integers, not 'str' on what your step 2 code returned; run check.step(2))"]
    assert shown[12] == ["this cell is not valid Python (SyntaxError: invalid syntax, line 1), so it did not run; "
                         "an answer in words belongs in a Markdown cell"]
    broken = "kvlab/kvsim.py, line 1: SyntaxError: invalid syntax (the cells cannot use this file until it imports)"
    assert shown[15] == [broken] and shown[16] == [broken]  # never quietly the version before
    assert len(shown[18]) == 1 and shown[18][0].startswith(f"kvlab/kvsim.py, line {repr_line}, in __repr__: RecursionError")
    assert shown[19] == ["The second pass's hits: **predict first.** Write your prediction in the cell above and run "
                         "it. Then run this cell again."]  # and not the answer
    assert shown[20] == ['cliff is not defined yet. Write the loop of step 4 in the cell under "Your task (step 4)", '
                         'then run it.']
    assert len(shown[21]) == 1 and shown[21][0].startswith(
        "`python3 kvlab/scenario.py --passes fwd,fwd` did not print exactly one JSON document. It printed: \"{")
    assert shown[23] == ["step 2 is not written yet: main in kvlab/scenario.py"]
    assert shown[25] == ["Your loop of step 4 stopped: KeyError: 'gpu_hit'"]
    assert shown[26] == ["cliff is not complete: an earlier cell stopped (Your loop of step 4 stopped: KeyError: 'gpu_hit')"]
    assert shown[27] == ["Run All went on"]
    ids = [output.get("metadata", {}).get("kvlab", {}).get("msg") for output in done.notebook.cells[6].outputs]
    assert ids == ["notebook.student-crash"]
    assert [line.split(": ")[1] for line in done.failures] == [  # what kvlab notebooks counts as failed
        f"cell {number} failed" for number in (7, 11, 12, 15, 16, 18, 21, 25)]
    assert done.failures[0] == f"t.ipynb: cell 7 failed: kvlab/scenario.py, line {crash_line}, in run: KeyError: 5"


def test_check_parameters_turns_each_bad_value_into_one_line():
    assert notebook.check_parameters(gpu=lab.GPU, docs=lab.DOCS, gpu_capacities=list(lab.GPU_CAPACITIES), ttft="")
    assert notebook.check_parameters(docs=12) is False
    assert notebook.check_parameters(ttft="/elsewhere.jsonl") is False
    bad = {"tokens": 0, "docs": 2.5, "gpu": True, "cpu_capacities": [0, -1], "gpu_capacities": [], "ttft": 3}
    messages = {"tokens": "tokens must be a whole number >= 1, got 0",
                "docs": "docs must be a whole number >= 1, got 2.5 (a float)",
                "gpu": "gpu must be a whole number >= 0, got True (a bool)",
                "cpu_capacities": "cpu_capacities must hold whole numbers >= 0, got -1",
                "gpu_capacities": "gpu_capacities must hold at least one capacity, got []",
                "ttft": "ttft must be a string (a path, or empty), got 3"}
    for name, value in bad.items():
        with pytest.raises(notebook.ParameterError) as error:
            notebook.check_parameters(**{name: value})
        assert str(error.value) == messages[name]
        assert error.value._render_traceback_() == [f"ParameterError: {messages[name]}"]


def test_artifacts_are_written_whole_at_the_lab_defaults_only_and_never_over_a_students_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KVLAB_OUT", str(tmp_path))
    monkeypatch.delenv("KVLAB_FORCE", raising=False)
    notebook.save_artifacts({"cliff.json": "{}\n"}, lab_defaults=False)
    assert list(tmp_path.iterdir()) == []
    notebook.save_artifacts({"cliff.json": "{}\n", "ttft.jsonl": b"x\n"}, lab_defaults=True)
    assert (tmp_path / "cliff.json").read_text() == "{}\n" and (tmp_path / "ttft.jsonl").read_bytes() == b"x\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == [".kvlab-written.json", "cliff.json", "ttft.jsonl"]
    (tmp_path / "cliff.json").write_text('{"21520": 0}\n')  # the student's own file
    notebook.save_artifacts({"cliff.json": "{}\n", "ttft.jsonl": b"y\n"}, lab_defaults=True)
    assert (tmp_path / "cliff.json").read_text() == '{"21520": 0}\n' and (tmp_path / "ttft.jsonl").read_bytes() == b"y\n"
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        "not written: these parameters are not the lab's, and cliff.json holds the lab's results "
        "(run with the default parameters to write it)",
        "wrote cliff.json, ttft.jsonl in the artifacts folder",
        "wrote ttft.jsonl in the artifacts folder"]
    assert captured.err.splitlines() == [
        f"not written: {tmp_path / 'cliff.json'} holds something else than what kvlab last wrote there, so it was "
        "left alone (KVLAB_FORCE=1, or `kvlab notebooks --force`, replaces it)"]


def test_computed_prose_has_the_same_plain_text_and_the_bound_names_of_a_cell_are_found():
    text = notebook.Text("**Answer.** 4 hits")
    assert repr(text) == text._repr_markdown_() == "**Answer.** 4 hits"
    source = "import os.path as p, sys\nfor i, (a, b) in x: c = [z for z in y]\ndef f(k):\n    inner = 1\nclass C: pass"
    assert notebook._bound_names(source) == {"p", "sys", "i", "a", "b", "c", "f", "C"}


def test_capacity_helpers():
    calls = []

    def holds(capacity):
        calls.append(capacity)
        return capacity >= 50110

    assert notebook.first_capacity(holds, 0, 100220) == 50110 and len(calls) < 25
    assert notebook.first_capacity(lambda capacity: False, 0, 10) is None
    capacities = notebook.dense_capacities(62637, points=300, include=[50109, 50110, 0])
    assert capacities == sorted(set(capacities)) and {0, 50109, 50110} <= set(capacities)


def test_kvlab_notebooks_runs_every_cell_writes_the_copy_and_names_each_failing_cell(tmp_path, capsys):
    from kvlab import cli
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# broken"),
                                         nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell("assert x == 2, 'x is not 2'"),
                                         nbformat.v4.new_code_cell("print('after', x)"),
                                         nbformat.v4.new_code_cell("1 / 0")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "99_broken.ipynb")
    with pytest.raises(SystemExit) as failure:
        cli.main(["notebooks", "--out", str(tmp_path / "out"), str(tmp_path / "99_broken.ipynb")])
    assert failure.value.code == 2
    copies = tmp_path / "out" / "notebooks"
    out, err = capsys.readouterr()
    assert out.splitlines()[1:] == ["99_broken.ipynb: cell 3 failed: AssertionError: x is not 2",
                                    "99_broken.ipynb: cell 5 failed: ZeroDivisionError: division by zero"]
    assert err == f"kvlab notebooks: error: 2 cells failed; the executed copies, failing cells included, are in {copies}\n"
    executed = read(copies / "99_broken.ipynb")  # written, failing cells included
    assert [output.output_type for output in executed.cells[2].outputs] == ["error"]
    assert text_of(executed.cells[3].outputs[0]) == "after 1\n"


class FakeRun:
    """nbrun.execute without a kernel: a notebook whose one cell printed `text`."""

    def __init__(self, text, failures=()):
        self.text, self.failures = text, list(failures)

    def __call__(self, path, env=None, timeout=300, translate=None):
        cell = nbformat.v4.new_code_cell("print(1)", outputs=[nbformat.v4.new_output("stream", name="stdout", text=self.text)])
        return nbrun.Run(nbformat.v4.new_notebook(cells=[cell]), self.failures, 0.1)


def test_kvlab_notebooks_never_replaces_a_different_copy_unless_forced(tmp_path, monkeypatch):
    source = tmp_path / "01_x.ipynb"
    source.write_text("{}")
    copy = tmp_path / "out" / "notebooks" / "01_x.ipynb"
    lines = []
    monkeypatch.setattr(nbrun, "execute", FakeRun("first\n"))
    nbrun.run_notebooks([source], out=tmp_path / "out", report=lines.append, jobs=1)
    monkeypatch.setattr(nbrun, "execute", FakeRun("second\n"))  # what kvlab wrote last: replaced freely
    nbrun.run_notebooks([source], out=tmp_path / "out", report=lines.append, jobs=1)
    assert "second" in copy.read_text()
    copy.write_text("my own notes")  # no longer what kvlab wrote: left alone, in one line
    with pytest.raises(nbrun.NotebookError, match="1 cell failed"):
        nbrun.run_notebooks([source], out=tmp_path / "out", report=lines.append, jobs=1)
    assert copy.read_text() == "my own notes"
    assert lines[-1] == (f"not written: {copy} holds something else than what kvlab last wrote there, so it was "
                         "left alone (--force replaces it)")
    nbrun.run_notebooks([source], out=tmp_path / "out", report=lines.append, jobs=1, force=True)
    assert "second" in copy.read_text()
    assert sorted(path.name for path in copy.parent.iterdir()) == [".kvlab-written.json", "01_x.ipynb"]
    monkeypatch.setattr(nbrun, "execute", FakeRun("x\n", ["01_x.ipynb: cell 1 failed: KeyError: 5"]))
    with pytest.raises(nbrun.NotebookError, match="1 cell failed"):  # a failing notebook is still written
        nbrun.run_notebooks([source], out=tmp_path / "out", report=lines.append, jobs=1)
    assert '"x\\n"' in copy.read_text() and lines[-1] == "01_x.ipynb: cell 1 failed: KeyError: 5"
    assert nbrun.kernel_env(tmp_path, force=True)["KVLAB_FORCE"] == "1"


def test_write_file_replaces_only_what_kvlab_wrote(tmp_path, monkeypatch):
    monkeypatch.delenv("KVLAB_FORCE", raising=False)
    target = tmp_path / "cyclic.json"
    notebook.write_file(target, "a")              # absent
    notebook.write_file(target, "b")              # what kvlab wrote
    notebook.write_file(target, "b")              # identical
    target.write_text("the student's own")
    notebook.write_file(tmp_path / "other.json", b"\x00")
    with pytest.raises(notebook.NotReplaced) as refused:
        notebook.write_file(target, "c")
    assert str(refused.value) == (f"not written: {target} holds something else than what kvlab last wrote there, so "
                                  "it was left alone (KVLAB_FORCE=1, or `kvlab notebooks --force`, replaces it)")
    notebook.write_file(target, "the student's own")  # identical: fine, and kvlab's from now on
    notebook.write_file(target, "d")
    target.write_text("edited again")
    monkeypatch.setenv("KVLAB_FORCE", "1")
    notebook.write_file(target, "e")
    assert target.read_text() == "e"
    assert sorted(path.name for path in tmp_path.iterdir()) == [".kvlab-written.json", "cyclic.json", "other.json"]


def test_an_endless_loop_in_an_earlier_step_does_not_hang_the_setup_cell(monkeypatch):
    def endless(*modules):
        while True:
            pass

    monkeypatch.setattr(notebook, "PROBE_SECONDS", 0.05)
    monkeypatch.setitem(notebook.PROBES, 1, endless)
    assert notebook.not_written(2) is None  # written (but wrong): the checks say how


def test_the_setup_cell_finds_kvlab_without_an_install():
    """`python -S` ignores site-packages (and IPython), so only the setup cell's search finds the kvlab/ folder."""
    import subprocess
    import sys
    setup = next(cell for cell in read(STEPS[1]).cells if "setup" in tags(cell)).source
    found = subprocess.run([sys.executable, "-S", "-c", setup + "\nprint(Path(kvlab.__file__).parent.parent)"],
                           cwd=ROOT / "notebooks", capture_output=True, text=True, timeout=60)
    assert (found.returncode, found.stderr, found.stdout.strip()) == (0, "", str(ROOT))


def test_the_step_of_a_line_of_a_students_file_comes_from_the_step_table(monkeypatch):
    def line_of(name, text):
        lines = (ROOT / "kvlab" / name).read_text().splitlines()
        return next(number for number, line in enumerate(lines, start=1) if text in line)

    files = {name: ROOT / "kvlab" / name for name in ("kvsim.py", "scenario.py", "policies.py")}
    monkeypatch.setattr(notebook._session, "steps", (2, 3))
    monkeypatch.setattr(notebook._session, "step", 2)
    in_run = line_of("scenario.py", "results.append(counts)")
    assert notebook.step_at(files["scenario.py"], in_run) == ("step", 2)  # run is step 2 and step 6: notebook 02 is about step 2
    assert notebook.step_at(files["kvsim.py"], line_of("kvsim.py", 'return f"LRUCache(capacity=')) == ("step", 1)
    assert notebook.step_at(files["kvsim.py"], line_of("kvsim.py", 'return "cpu"')) == ("step", 5)
    assert notebook.step_at(files["policies.py"], line_of("policies.py", "self._remove(evict())")) == ("exercise", 7)
    assert notebook.steps_of("scenario", "read_order") == [("step", 2)]
    assert notebook._made_by('cyclic = notebook.run_scenario(passes="fwd,fwd")') == ("step", 2)  # your command
    monkeypatch.setattr(notebook._session, "steps", (5, 6))
    monkeypatch.setattr(notebook._session, "step", 5)
    assert notebook.step_at(files["scenario.py"], in_run) == ("step", 6)
    # a cell that is not Python becomes one line of code that runs
    assert notebook._invalid_python(["x = 1\n"]) == ["x = 1\n"]
    [replaced] = notebook._invalid_python(["The answer is 4 hits\n"])
    assert "_not_python('SyntaxError: invalid syntax', 1)" in replaced
    assert notebook._invalid_python(["await thing()\n"]) == ["await thing()\n"]  # top-level await is IPython's
