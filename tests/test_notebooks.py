"""The lab's notebooks: stored executed and well-formed, parameterisable, and writing the lab's artifacts.

nbval (pytest's `notebooks` test path) re-runs every stored notebook and compares the checked outputs;
these tests cover what nbval does not: how the notebooks are stored, papermill runs with other
parameters, `kvlab notebooks`, and the helpers in kvlab.notebook.
"""
import ast
import json
import re
import subprocess
import sys

import nbformat
import papermill
import pytest

from kvlab import artifacts, cli, nbrun, notebook
from helpers import ROOT, STAND_IN

NOTEBOOKS = nbrun.notebook_paths()
STEPS = [path for path in NOTEBOOKS if not path.name.startswith("00_")]
FIGURES = ("gpu_cliff.png", "cpu_cliff.png", "ttft_by_request.png", "ttft_summary.png")
CHECK = "# NBVAL_CHECK_OUTPUT"
BARE_REPR = re.compile(r"<(Figure size|Axes|matplotlib\.|[\w.]+ object at 0x)")


def read(path):
    return nbformat.read(path, as_version=4)


def code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.strip()]


def tagged(nb, tag):
    return [cell for cell in nb.cells if tag in cell.metadata.get("tags", [])]


def text_of(output):
    if output.output_type == "stream":
        return output.text
    return "".join(str(value) for value in output.get("data", {}).values())


def test_the_lab_has_an_index_and_one_notebook_per_topic():
    names = [path.name for path in NOTEBOOKS]
    assert names == ["00_index.ipynb", "01_lru_cache.ipynb", "02_cyclic_scan.ipynb", "03_gpu_cliff.ipynb",
                     "04_two_tier.ipynb", "05_cpu_cliff.ipynb", "06_measured_ttft.ipynb"]
    index = "\n".join(cell.source for cell in read(NOTEBOOKS[0]).cells if cell.cell_type == "markdown")
    for name in names[1:]:
        assert f"]({name})" in index, f"the index does not link {name}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_is_stored_executed_top_to_bottom(path):
    nb = read(path)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    cells = code_cells(nb)
    assert [cell.execution_count for cell in cells] == list(range(1, len(cells) + 1)), "not run top to bottom"
    for cell in cells:
        assert all(output.output_type != "error" for output in cell.outputs), cell.source
        if cell.source.startswith(CHECK):
            assert cell.outputs, f"a checked cell without output:\n{cell.source}"
            for output in cell.outputs:
                assert not BARE_REPR.search(text_of(output)), f"a bare object repr in a checked cell:\n{cell.source}"
        if "plots.save(" in cell.source:
            assert any("image/png" in output.get("data", {}) for output in cell.outputs), cell.source
            assert not cell.source.startswith(CHECK), "a figure's cell cannot be checked"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_has_what_you_will_learn_a_setup_cell_and_a_summary(path):
    nb = read(path)
    markdown = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert "## What you will learn" in markdown and "## Summary" in markdown and "## Try it" in markdown
    [setup] = tagged(nb, "setup")
    assert nb.cells.index(setup) < min(nb.cells.index(cell) for cell in code_cells(nb) if cell is not setup)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_no_simulator_logic_is_declared_in_a_notebook(path):
    """The notebooks import kvlab; only a student's exercise cell (tagged `exercise`) writes its own version."""
    for cell in code_cells(read(path)):
        if "exercise" in cell.metadata.get("tags", []):
            continue
        tree = ast.parse(cell.source)
        assert not any(isinstance(node, ast.ClassDef) for node in ast.walk(tree)), cell.source
        assert "OrderedDict" not in cell.source and "statistics" not in cell.source, cell.source


@pytest.mark.parametrize("path", STEPS, ids=lambda path: path.stem)
def test_step_notebook_has_one_parameters_cell_with_the_lab_defaults(path):
    [cell] = tagged(read(path), "parameters")
    values = {}
    for statement in ast.parse(cell.source).body:
        assert isinstance(statement, ast.AnnAssign), "papermill overrides plain `name: type = literal` lines"
        values[statement.target.id] = ast.literal_eval(statement.value)
    assert values
    if "ttft" in values:
        assert values.pop("ttft") == ""  # the lab's measured file
    assert not values or notebook.at_lab_defaults(**values)


def test_the_index_has_no_parameters():
    assert tagged(read(NOTEBOOKS[0]), "parameters") == []


def test_setup_cell_finds_kvlab_without_an_install():
    """`python -S` ignores site-packages, so only the setup cell's search can find the kvlab/ folder."""
    setup = tagged(read(ROOT / "notebooks" / "02_cyclic_scan.ipynb"), "setup")[0].source
    probe = setup + "\nprint(Path(kvlab.__file__).parent.parent)"
    found = subprocess.run([sys.executable, "-S", "-c", probe], cwd=ROOT / "notebooks",
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == str(ROOT)


def test_setup_cell_says_how_to_install_when_kvlab_is_nowhere(tmp_path):
    setup = tagged(read(ROOT / "notebooks" / "01_lru_cache.ipynb"), "setup")[0].source
    lost = subprocess.run([sys.executable, "-S", "-c", setup], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert lost.returncode != 0 and "pip install -e" in lost.stderr


OTHER_PARAMETERS = {
    "02_cyclic_scan.ipynb": {"docs": 12, "tokens": 4000, "gpu": 20000},
    "05_cpu_cliff.ipynb": {"docs": 12, "tokens": 4000, "gpu": 20000, "cpu_capacities": [0, 30000, 47999, 48000]},
}


@pytest.mark.parametrize("name", OTHER_PARAMETERS)
def test_papermill_run_with_other_parameters_passes_and_leaves_the_artifacts_alone(name, tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setenv("KVLAB_OUT", str(out))
    executed = papermill.execute_notebook(ROOT / "notebooks" / name, tmp_path / name,
                                          parameters=OTHER_PARAMETERS[name], kernel_name="python3",
                                          cwd=ROOT / "notebooks", progress_bar=False)
    outputs = "".join(text_of(output) for cell in code_cells(executed) for output in cell.outputs)
    assert "not written: the parameters differ from the lab's" in outputs
    assert not any(out.glob("*.json")), "the lab's artifacts hold the lab's results only"
    if name.startswith("02"):
        assert "hit_docs [11, 10, 9, 8, 7]" in outputs  # 20000 // 4000 = 5 documents stay
    else:
        assert "the first CPU capacity without a second-pass miss: 48,000 tokens = 12 × 4,000" in outputs
        assert (out / "figures" / "cpu_cliff.png").is_file()


def test_kvlab_notebooks_writes_the_lab_artifacts_and_figures(tmp_path, capsys):
    stored = {path: path.read_bytes() for path in NOTEBOOKS}
    cli.main(["notebooks", "--out", str(tmp_path)])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == [path.name for path in NOTEBOOKS]
    assert all(re.fullmatch(r"\S+\.ipynb +\d+\.\d s", line) for line in lines[:-1]), lines
    for name, text in artifacts.contents(STAND_IN).items():
        assert (tmp_path / name).read_text(encoding="utf-8") == text, name
    assert (tmp_path / "ttft.jsonl").read_bytes() == STAND_IN.read_bytes()
    for figure in FIGURES:
        assert (tmp_path / "figures" / figure).read_bytes().startswith(b"\x89PNG"), figure
    assert sorted(path.name for path in (tmp_path / "notebooks").iterdir()) == [path.name for path in NOTEBOOKS]
    assert {path: path.read_bytes() for path in NOTEBOOKS} == stored, "the stored notebooks were rewritten"


def test_kvlab_notebooks_names_the_failing_notebook_and_cell(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# broken"),
                                         nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell("assert x == 2, 'x is not 2'")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "99_broken.ipynb")
    with pytest.raises(SystemExit) as failure:
        cli.main(["notebooks", "--out", str(tmp_path / "out"), str(tmp_path / "99_broken.ipynb")])
    assert str(failure.value) == "kvlab notebooks: error: 99_broken.ipynb: cell 3 failed: AssertionError: x is not 2"


def test_kvlab_notebooks_reports_a_missing_notebook_in_one_line(tmp_path):
    with pytest.raises(SystemExit) as failure:
        cli.main(["notebooks", str(tmp_path / "nowhere.ipynb")])
    assert str(failure.value) == f"kvlab notebooks: error: {tmp_path / 'nowhere.ipynb'}: No such file or directory"


def test_kernel_gets_an_absolute_artifacts_folder_and_inplace_runs_use_the_stand_in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KVLAB_TTFT", "/somewhere/else.jsonl")
    env = nbrun.kernel_env("relative/out", stand_in=True)
    assert env["KVLAB_OUT"] == str(tmp_path / "relative" / "out")
    assert env["KVLAB_TTFT"] == str(artifacts.STAND_IN_TTFT)
    assert nbrun.kernel_env()["KVLAB_TTFT"] == "/somewhere/else.jsonl"


# kvlab.notebook: the helpers the notebooks lean on.


def test_first_capacity_is_a_binary_search_for_the_first_true():
    calls = []

    def holds(capacity):
        calls.append(capacity)
        return capacity >= 50110

    assert notebook.first_capacity(holds, 0, 100220) == 50110
    assert len(calls) < 25
    assert notebook.first_capacity(lambda capacity: True, 0, 10) == 0
    assert notebook.first_capacity(lambda capacity: False, 0, 10) is None


def test_largest_gap_threshold_cuts_between_the_two_groups():
    ttfts = [48.1, 30.2, 47.6, 29.9, 48.9, 30.0, 49.2, 29.8, 47.9, 48.3]
    threshold = notebook.largest_gap_threshold(ttfts)
    assert sorted(t for t in ttfts if t < threshold) == [29.8, 29.9, 30.0, 30.2]
    assert notebook.largest_gap_threshold([30, 576]) == pytest.approx((30 * 576) ** 0.5)
    with pytest.raises(ValueError):
        notebook.largest_gap_threshold([30.0])


def test_dense_capacities_are_sorted_and_include_the_given_ones():
    capacities = notebook.dense_capacities(62637, points=300, include=[50109, 50110, 0])
    assert capacities == sorted(set(capacities)) and {0, 50109, 50110} <= set(capacities)
    assert 300 <= len(capacities) <= 305


def test_at_lab_defaults_compares_lists_with_the_lab_tuples():
    assert notebook.at_lab_defaults(gpu=21520, docs=10, tokens=5011, cpu=56000)
    assert notebook.at_lab_defaults(gpu_capacities=list(artifacts.GPU_CAPACITIES))
    assert not notebook.at_lab_defaults(docs=12)
    assert not notebook.at_lab_defaults(cpu_capacities=[0, 56000])
    with pytest.raises(ValueError):
        notebook.at_lab_defaults(passes="fwd,fwd")


def test_pass_orders_reads_fwd_and_rev_from_the_documents():
    assert notebook.pass_orders({"a": [0, 1, 2], "b": [2, 1, 0]}) == ("fwd", "rev")
    with pytest.raises(ValueError):
        notebook.pass_orders({"shuffled": [1, 0, 2]})


def test_describe_source_says_which_file_is_the_stand_in(tmp_path):
    assert notebook.describe_source(STAND_IN).startswith("fixtures/ttft.jsonl: the generated STAND-IN")
    elsewhere = tmp_path / "ttft.jsonl"
    assert notebook.describe_source(elsewhere) == f"{elsewhere}: a measurement"
    assert notebook.figure_note(STAND_IN) == "data: fixtures/ttft.jsonl, the generated stand-in, not a measurement"


def test_importing_kvlab_and_its_notebook_helpers_stays_light():
    probe = "import sys, kvlab, kvlab.notebook, kvlab.nbrun; print(json.dumps(sorted(m for m in " \
            "('matplotlib', 'pandas', 'numpy', 'nbclient', 'nbformat') if m in sys.modules)))"
    result = subprocess.run([sys.executable, "-c", "import json; " + probe], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
