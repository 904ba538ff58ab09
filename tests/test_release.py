"""kvlab release: the student edition holds no solution, its stubs fail the checks by name, and with the
reference copied back in it passes them and its notebooks write the lab's six files.

The edition is built once for the module (about 1 s); the tests that change it work on a copy.
"""
import ast
import json
import re
import shutil
import sys
from argparse import Namespace
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")  # the notebook stack: absent from the fast test path

from helpers import KVLAB, ROOT, STAND_IN, assert_one_line_error, clean_env, python
from kvlab import check, lab, notebook
from kvlab.check import expected
from kvlab.errors import UserError
from kvlab.instructor import artifacts, codetext, markers, release
from kvlab.instructor import english as englishtext

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

STUDENT_FILES = ("kvsim.py", "scenario.py", "summarize.py", "policies.py")
MARKER = re.compile(r"#+\s*(BEGIN|END) SOLUTION")


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    return release.build(tmp_path_factory.mktemp("release") / "student")


@pytest.fixture(scope="module")
def translated(tmp_path_factory):
    """The Chinese and the Japanese editions."""
    return {language: release.build(tmp_path_factory.mktemp(f"release-{language}") / "student", lang=language)
            for language in ("zh", "ja")}


def out_env(out, **extra):
    """The environment for a command run in the edition: its kvlab first on the path, its stand-in measurement."""
    return clean_env(PYTHONPATH=out, KVLAB_TTFT=Path(out) / "fixtures" / "ttft.jsonl", **extra)


def reference_solution_lines():
    """Every solution line of 20 characters or more, computed here as the reviewers compute it."""
    found, texts = set(), [path.read_text() for path in KVLAB.rglob("*.py")]
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            texts.append(source)
            if "solution" in cell["metadata"].get("tags", []):
                code = [line for line in source.splitlines() if not line.lstrip().startswith("#")]
                found |= {line.strip() for line in code if len(line.strip()) >= 20}
    for text in texts:
        inside = False
        for line in text.splitlines():
            marker = MARKER.search(line)
            if marker:
                inside = marker.group(1) == "BEGIN"
            elif inside and len(line.strip()) >= 20:
                found.add(line.strip())
    return found


# What the edition holds


def test_the_edition_has_the_students_files_and_nothing_instructor_only(edition):
    out, files = edition.out, set(edition.files)
    assert {"README.md", "pyproject.toml", "environment.yml", ".gitignore", "fixtures/README.md",
            "fixtures/ttft.jsonl", "tests/test_lab.py", "kvlab/check/expected.json", "kvlab/check/driver.py",
            "kvlab/plots.py", "kvlab/notebook.py", "kvlab/nbrun.py", "kvlab/handin.py", "kvlab/files.py"} <= files
    assert {f"kvlab/{name}" for name in STUDENT_FILES} <= files
    assert sorted(path.name for path in (out / "notebooks").iterdir()) == \
        sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert (out / "fixtures" / "ttft.jsonl").read_bytes() == STAND_IN.read_bytes()
    for path in files:
        parts = Path(path).parts
        assert "instructor" not in parts and "buggy" not in parts and "__pycache__" not in parts, path
        assert Path(path).name not in {"make_ttft.py", "grade.py", "sandbox.py"}, path
    assert release.forbidden(out) == []
    assert "fixtures/make_ttft.py" not in (out / "fixtures" / "README.md").read_text()


def test_no_solution_line_appears_in_any_file(edition):
    def flat(text):  # comment markers gone, whitespace collapsed (line ends too)
        return " ".join(text.replace("#", " ").split())

    solutions = reference_solution_lines()
    assert len(solutions) > 20  # the scripts' regions at least
    for path in edition.out.rglob("*"):
        if path.is_file() and path.suffix != ".gz":
            text = path.read_text(errors="replace")
            texts = [text]
            if path.suffix == ".ipynb":  # the cells' sources, unescaped
                texts += ["".join(cell["source"]) for cell in json.loads(text)["cells"]]
            shown = "\n".join(flat(one) for one in texts)
            assert [line for line in solutions if flat(line) in shown] == [], path


def outside_regions(text):
    """The lines of `text` outside its solution regions, markers left out."""
    kept, inside = [], False
    for line in text.splitlines():
        marker = MARKER.search(line)
        if marker:
            inside = marker.group(1) == "BEGIN"
        elif not inside:
            kept.append(line)
    return kept


def test_stubs_keep_every_signature_docstring_and_comment(edition):
    def signatures(text):
        return [(node.name, ast.dump(node.args), ast.get_docstring(node)) for node in ast.walk(ast.parse(text))
                if isinstance(node, ast.FunctionDef)]

    for name in STUDENT_FILES:
        reference, student = (KVLAB / name).read_text(), (edition.out / "kvlab" / name).read_text()
        assert signatures(student) == signatures(reference), name
        stubs = [line for line in student.splitlines() if line.strip() == "..." or "NotImplementedError(" in line]
        assert [line for line in student.splitlines() if line not in stubs] == outside_regions(reference), name
    kvsim = (edition.out / "kvlab" / "kvsim.py").read_text()
    assert 'raise NotImplementedError("step 1 is not written yet: LRUCache.access in kvlab/kvsim.py")' in kvsim
    assert 'raise NotImplementedError("step 5 is not written yet: TwoTierCache.access in kvlab/kvsim.py")' in kvsim


def test_notebooks_are_valid_unexecuted_and_without_answers(edition):
    for path in sorted((edition.out / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.kernelspec.name == "python3"
        for cell in nb.cells:
            assert not {"solution", "instructor"} & set(cell.metadata.get("tags", [])), path.name
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, path.name


def test_the_stored_expectations_hold_small_cases_only_and_no_planted_code(edition):
    """What the lab's rules give on small generated cases (never the lab's own numbers, whose answers are the
    lab's results), and digests of what each planted mistake gives; the plants themselves stay here."""
    data = json.loads((edition.out / "kvlab" / "check" / "expected.json").read_text())
    assert set(data) == {"want", "signs"} and len(data["want"]) > 200
    assert all(len(key) == 20 for key in data["want"]) and all(
        len(one) == 16 for signs in data["signs"].values() for values in signs.values() for one in values)
    text = json.dumps(data["want"])
    assert not [result for result in LAB_RESULTS if result in text]  # the lab's results are nowhere in it
    step1 = (edition.out / "kvlab" / "lab" / "step1_lru.py").read_text()
    assert "move_to_end" not in step1 and "def plants():" in step1


def test_the_student_readme_sets_up_for_root_too_installs_its_tests_and_says_how_to_hand_in(edition):
    readme = (edition.out / "README.md").read_text()
    commands = re.findall(r"```bash\n(.*?)```", readme, re.DOTALL)
    setup = commands[0]
    assert "pip install -e '.[lab,test]'" in setup  # the test extra has pytest: `python -m pytest` runs
    assert "jupyter lab --allow-root " in setup     # the course machine's students are root
    assert any("python -m pytest" in block and "python -m kvlab check" in block for block in commands)
    assert "**Hand in**" in readme and any("python -m kvlab handin" in block for block in commands)


def _stubbed(source):
    """The qualified names of the functions of `source` that hold a stub (`raise NotImplementedError(...)` or `...`)."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef):
                stub = any(isinstance(statement, ast.Raise) and "NotImplementedError" in ast.unparse(statement)
                           or isinstance(statement, ast.Expr) and getattr(statement.value, "value", None) is Ellipsis
                           for statement in child.body)
                if stub:
                    found.append(f"{prefix}{child.name}")
    visit(ast.parse(source), "")
    return found


def test_the_readme_names_every_place_to_write_and_only_names_that_exist(edition):
    """The table "Where you write code" names each stubbed function of each file, and no function that the
    file does not have (a renamed function left in the table sends a student looking for it)."""
    readme = (edition.out / "README.md").read_text()
    table = readme.split("## Where you write code", 1)[1].split("\n\n", 2)[1]
    rows = {re.match(r"\| `kvlab/(\w+\.py)`", row).group(1): row for row in table.splitlines()
            if re.match(r"\| `kvlab/\w+\.py`", row)}
    for name in (*lab.SCRIPTS, *(f"{stem}.py" for stem in lab.EXERCISE_NAMES)):
        source = (edition.out / "kvlab" / name).read_text()
        defined = {node.name for node in ast.walk(ast.parse(source))
                   if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        for qualname in _stubbed(source):
            owner, _, function = qualname.rpartition(".")
            function = "in" if function == "__contains__" else function  # the table says `in`, as the lab text does
            assert f"`{function}" in rows[name] or f"`{qualname}`" in rows[name] or \
                owner and f"`{owner}`" in rows[name] and f"`{function}`" in rows[name], (name, qualname)
        for written in re.findall(r"`(?:\w+\.)?(\w+)\(\)`", rows[name]):
            assert written in defined, (name, written)
    notebooks = next(row for row in table.splitlines() if "notebooks/03_gpu_cliff.ipynb" in row)
    assert "step 4" in notebooks and "step 7" in notebooks


def test_the_student_pyproject_installs_what_the_instructor_one_does():
    instructor = tomllib.loads((ROOT / "pyproject.toml").read_text())
    student = tomllib.loads((release.TEMPLATES / "pyproject.toml").read_text())
    extras = student["project"].pop("optional-dependencies")
    assert {"notebooks", "lab", "test"} <= set(extras)  # not necessarily all: benchmarks/ is not shipped
    assert extras == {name: instructor["project"]["optional-dependencies"][name] for name in extras}
    assert student["project"] == {key: value for key, value in instructor["project"].items()
                                  if key != "optional-dependencies"}
    assert student["build-system"] == instructor["build-system"]
    assert student["tool"]["pytest"]["ini_options"]["testpaths"] == ["tests"]
    assert student["tool"]["setuptools"]["package-data"] == {
        "kvlab": ["check/expected.json", *instructor["tool"]["setuptools"]["package-data"]["kvlab"]]}


# The stubs: the checks say which steps are not written, and nothing breaks


def test_check_in_the_edition_names_each_unwritten_step_without_a_traceback(edition):
    out = edition.out
    where = python("-S", "-c", "import kvlab; print(kvlab.__file__)", cwd=out, env=out_env(out))
    assert where.stdout.strip() == str(out / "kvlab" / "__init__.py")
    result = python("-S", "-m", "kvlab", "check", cwd=out, env=out_env(out))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stdout + result.stderr and result.stderr == ""
    for number in range(1, 9):
        assert re.search(rf"^{number} ✗ ", result.stdout, re.MULTILINE), result.stdout
    for named in ("step 1 is not written yet: LRUCache", "step 2 is not written yet: main in kvlab/scenario.py",
                  "step 5 is not written yet: TwoTierCache.access", "step 8 is not written yet: main in"):
        assert named in result.stdout, result.stdout
    assert result.stdout.rstrip().endswith("0 of 8 steps OK")


# Building: refusals, replacing, and the self-check


def test_a_non_empty_out_is_refused_and_left_as_it_was(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty; nothing was written"):
        release.build(tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]


def test_the_command_refuses_in_one_line(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    assert_one_line_error(python("-m", "kvlab", "release", tmp_path), "not empty", "--force")


@pytest.mark.parametrize("inside", ["", "kvlab/x", "notebooks/x"])
def test_out_may_not_overlap_the_repository(inside):
    with pytest.raises(UserError, match="repository|release reads"):
        release._check_out(ROOT / inside)  # never build() here: with force it would replace the repository


def test_force_replaces_out_but_its_git_and_a_failed_build_leaves_it_as_it_was(tmp_path, monkeypatch):
    out = tmp_path / "student"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (out / "old.txt").write_text("old")
    monkeypatch.setattr(release, "expectations", lambda: {"want": {}, "signs": {}})  # tested above

    monkeypatch.setattr(release, "all_solution_lines", lambda: {"## Where you write code"})
    with pytest.raises(UserError, match="README.md: ## Where you write code"):
        release.build(out, force=True)
    assert [path.name for path in tmp_path.iterdir()] == ["student"] and (out / "old.txt").exists()

    monkeypatch.setattr(release, "all_solution_lines", set)
    release.build(out, force=True)
    assert not (out / "old.txt").exists() and (out / "kvlab" / "kvsim.py").exists()
    assert (out / ".git" / "HEAD").exists()  # a repository stays one
    assert [path.name for path in tmp_path.iterdir()] == ["student"]  # no temporary folder left behind


def test_the_command_says_what_it_wrote(tmp_path, monkeypatch, capsys):
    written = release.Edition(tmp_path, ["a", "b"], {"kvlab/kvsim.py": 6}, 7, 255)
    monkeypatch.setattr(release, "build", lambda out, force, lang: written)
    release.run(Namespace(out=str(tmp_path), force=False))
    assert capsys.readouterr().out == (
        f"wrote the student edition to {tmp_path}: 2 files\n"
        "  stubs (solution regions): kvlab/kvsim.py (6)\n"
        "  7 notebooks without answers or outputs; the expectations of 255 public cases in kvlab/check/expected.json\n"
        f"next: cd {tmp_path} && python3 -m kvlab check\n")


LINE = "self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO"   # a line of kvsim.py's solution


@pytest.mark.parametrize("text", [
    "        self._sizes.move_to_end(key)  # forgetting this turns LRU into FIFO\n",   # the line itself
    "        # self._sizes.move_to_end(key)\n",                                       # commented out
    "    # hint: call self._sizes.move_to_end(key) here\n",                           # inside a comment
    "x = 1; self._sizes.move_to_end(key); y = 2\n",                                   # inside a longer line
    '"""Call\n   self._sizes.move_to_end(key)   on a hit."""\n',                      # a docstring, other spacing
    "## forgetting this turns LRU into FIFO!\n",                                     # its comment alone
])
def test_leaks_finds_a_solution_line_anywhere_in_a_line(tmp_path, text):
    (tmp_path / "a.py").write_text("x = 1\n" + text)
    assert release.leaks(tmp_path, {LINE}) == [f"a.py: {LINE}"]


def test_leaks_reads_notebook_cells_and_markdown_through_their_json_escaping(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell('Hint: "call `self._sizes.move_to_end(key)`"\tthen return.'),
        nbformat.v4.new_code_cell('print("a \\"quoted\\" answer, long enough")')])
    (tmp_path / "n.ipynb").write_text(nbformat.writes(nb))
    (tmp_path / "m.json").write_text(json.dumps({"hint": 'say "a \\"quoted\\" answer, long enough" now'}))
    (tmp_path / "c.gz").write_bytes(b"\x1f\x8b\xff")
    quoted = 'print("a \\"quoted\\" answer, long enough")'
    assert release.leaks(tmp_path, {LINE, quoted, 'a \\"quoted\\" answer, long enough'}) == [
        'm.json: a \\"quoted\\" answer, long enough',
        'n.ipynb: a \\"quoted\\" answer, long enough', f"n.ipynb: {quoted}", f"n.ipynb: {LINE}"]


def test_leaks_ignores_lines_shorter_than_twenty_characters_and_what_only_resembles_one(tmp_path):
    (tmp_path / "a.py").write_text("return self.used\n# self._sizes.move_to_end(other)\n")
    assert release.leaks(tmp_path, {"return self.used", "   #  return self.used   #", LINE}) == []


def test_the_real_edition_has_no_leak_and_a_planted_one_is_caught(edition, tmp_path):
    solutions = release.all_solution_lines()
    assert release.leaks(edition.out, solutions) == []
    out = tmp_path / "student"
    shutil.copytree(edition.out, out)
    kvsim = out / "kvlab" / "kvsim.py"
    kvsim.write_text(kvsim.read_text().replace('raise NotImplementedError("step 1 is not written yet: LRUCache.access',
                                               '# self._sizes.move_to_end(key)\n        raise NotImplementedError('
                                               '"step 1 is not written yet: LRUCache.access', 1))
    path = out / "notebooks" / "01_lru_cache.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("*Hint:* call `self._sizes.move_to_end(key)` on a hit."))
    nbformat.write(nb, path)
    assert [problem.split(":")[0] for problem in release.leaks(out, solutions)] == \
        ["kvlab/kvsim.py", "notebooks/01_lru_cache.ipynb"]


# The transforms, on small inputs

SOURCE = '''\
class Cache:
    def __init__(self):
        # Step 1: make the store.
        # BEGIN SOLUTION ...
        self.store = {}
        # END SOLUTION

    def get(self, key):
        """The value of `key`."""
        # Step 3: look it up.
        ## BEGIN SOLUTION
        return self.store[key]
        ## END SOLUTION


def policy():
    # Exercise 07: pick one.
    # BEGIN SOLUTION
    return "lru"
    # END SOLUTION
'''


def test_stub_source_replaces_each_region_by_one_line_naming_its_step():
    assert release.stub_source(SOURCE, "kvlab/cache.py") == '''\
class Cache:
    def __init__(self):
        # Step 1: make the store.
        ...

    def get(self, key):
        """The value of `key`."""
        # Step 3: look it up.
        raise NotImplementedError("step 3 is not written yet: Cache.get in kvlab/cache.py")


def policy():
    # Exercise 07: pick one.
    raise NotImplementedError("exercise 07 is not written yet: policy in kvlab/cache.py")
'''
    assert release.stub_source("x = 1\n", "a.py") == "x = 1\n"


def test_the_stub_text_is_the_catalogs(monkeypatch):
    from kvlab.messages import MESSAGES
    monkeypatch.setitem(MESSAGES, "stub.not-written", 'étape {step} : "{function}" dans kvlab/{file}')
    monkeypatch.setitem(MESSAGES, "stub.exercise-not-written", "exercice {step} : {function}")
    student = release.stub_source(SOURCE, "kvlab/cache.py")
    assert 'raise NotImplementedError("étape 3 : \\"Cache.get\\" dans kvlab/cache.py")' in student
    assert 'raise NotImplementedError("exercice 07 : policy")' in student
    compile(student, "cache.py", "exec")


@pytest.mark.parametrize("text, message", [
    ("def f():\n    # Step 1\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n",
     "a.py, line 4: BEGIN SOLUTION inside the region opened on line 3"),
    ("def f():\n    # Step 1\n    # BEGIN SOLUTION\n    pass\n", "a.py, line 3: BEGIN SOLUTION is never closed"),
    ("x = 1\n# END SOLUTION\n", "a.py, line 2: END SOLUTION without a BEGIN SOLUTION"),
    ("def f():\n    # BEGIN SOLUTION\n    pass\n    # END SOLUTION\n",
     "a.py, line 2: no `# Step N:` comment above this region in f"),
    ("# BEGIN SOLUTION\nx = 1\n# END SOLUTION\n", "a.py, line 1: a solution region outside a function needs the ..."),
    ("x = 1  # BEGIN SOLUTION\n", "a.py, line 1: a solution marker must be a comment line of its own"),
    ("# BEGIN SOLUTION later\n# END SOLUTION\n", "a.py, line 1: unknown flag 'later'"),
])
def test_marker_mistakes_name_the_file_and_line(text, message):
    with pytest.raises(release.MarkerError) as error:
        release.stub_source(text, "a.py")
    assert str(error.value).startswith(message)


def test_student_notebook_keeps_questions_and_prompts_and_drops_answers():
    new = nbformat.v4
    question = new.new_markdown_cell("Which key is evicted?")
    answer = new.new_markdown_cell("**Answer.** `b`, the least recently used.", metadata={"tags": ["solution"]})
    hidden = new.new_code_cell("assert evicted == 'b'", metadata={"tags": ["instructor"]})
    code = new.new_code_cell("# NBVAL_CHECK_OUTPUT\n# Answer: which one, and why?\nprint('b, the oldest')",
                             metadata={"tags": ["solution", "exercise"]}, execution_count=3,
                             outputs=[new.new_output("stream", name="stdout", text="b, the oldest\n")])
    marked = new.new_code_cell("def f():\n    # Your code:\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION\n"
                               "f()", metadata={"tags": ["parameters"]})
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb = new.new_notebook(cells=[question, answer, hidden, code, marked], metadata={"kernelspec": kernelspec})
    before = json.dumps(nb, sort_keys=True)

    student = release.student_notebook(nb)
    assert json.dumps(nb, sort_keys=True) == before  # the instructor's notebook is left as it was
    assert [(cell.cell_type, cell.source, cell.metadata.get("tags")) for cell in student.cells] == [
        ("markdown", "Which key is evicted?", None),
        ("markdown", "**Your answer:**\n\n", None),
        ("code", "# Answer: which one, and why?", ["exercise"]),
        ("code", "def f():\n    # Your code:\n    ...\nf()", ["parameters"]),
    ]
    assert student.cells[2].outputs == [] and student.cells[2].execution_count is None
    assert student.metadata.kernelspec.name == "python3"
    nbformat.validate(student)
    assert release.notebook_solution_lines(nb) == {"**Answer.** `b`, the least recently used.",
                                                   "print('b, the oldest')"}


# The round trip: the reference in the student edition passes its checks and writes the lab's files


@pytest.fixture(scope="module")
def completed(edition, tmp_path_factory):
    """A copy of the edition with the reference scripts copied in, as a student who finished would have it."""
    out = tmp_path_factory.mktemp("completed") / "student"
    shutil.copytree(edition.out, out)
    for name in STUDENT_FILES:
        shutil.copy(KVLAB / name, out / "kvlab" / name)
    return out


def test_with_the_reference_the_editions_tests_pass(completed, tmp_path):
    """The edition's pytest, one test per step (its `kvlab check`, with `python -S`, runs in the hand-in test)."""
    artifacts.write(tmp_path, STAND_IN)  # so that the artifact rules run too, on the stored answers
    result = python("-m", "pytest", "-q", "-p", "no:nbval", cwd=completed,  # (nbval's import is a second)
                    env=out_env(completed, KVLAB_OUT=tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 passed" in result.stdout


def test_the_editions_handin_copies_the_students_files_and_checks_them(completed, tmp_path):
    artifacts.write(tmp_path / "artifacts", STAND_IN)  # as the notebooks write them
    env = out_env(completed, KVLAB_OUT=tmp_path / "artifacts")
    result = python("-S", "-m", "kvlab", "handin", tmp_path / "handin", cwd=completed, env=env)
    assert result.returncode == 0 and result.stderr == "", result.stdout + result.stderr
    assert "8 of 8 steps OK" in result.stdout
    assert (tmp_path / "handin" / "kvsim.py").read_bytes() == (KVLAB / "kvsim.py").read_bytes()
    assert (tmp_path / "handin" / "ttft.jsonl").read_bytes() == STAND_IN.read_bytes()


def test_the_stored_expectations_cover_every_public_case(completed, tmp_path, monkeypatch):
    """Every public case has its stored expectation: with the reference, every rule of every step is judged
    and holds (a case without one would be skipped, unjudged)."""
    artifacts.write(tmp_path, STAND_IN)
    monkeypatch.setenv("KVLAB_TTFT", str(STAND_IN))
    folder = completed / "kvlab"
    stored = expected.Stored(folder / "check" / "expected.json")
    reports = [*check.steps(folder=folder, artifacts=tmp_path, expect=stored).values(),
               check.mru_cache(folder=folder, expect=stored)]
    assert [row.rule for report in reports for row in report.rows if row.skipped or not row.ok] == []


def notebooks(out, tmp_path, *names):
    env = out_env(out, KVLAB_OUT=tmp_path / "artifacts")  # the session's matplotlib and IPython folders
    return python("-m", "kvlab", "notebooks", *names, cwd=out, env=env)


def test_with_the_reference_an_editions_notebook_writes_its_artifact(completed, tmp_path):
    """End to end once: the edition's 04, with the reference copied back in, writes offload.json as the lab's.

    The other notebooks need no run of their own here: the next test shows that an edition's notebooks are the
    instructor's but for cells that nothing later reads, the edition's modules are the instructor's, and nbval
    runs the instructor's notebooks, whose check.step(N) cells check each artifact they write."""
    writer = f"notebooks/{lab.notebook_of(6)}.ipynb"
    result = notebooks(completed, tmp_path, writer)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "artifacts" / "offload.json").read_text() == artifacts.contents(STAND_IN)["offload.json"]


def _bound(tree):
    """Names a cell binds: assignments, imports, defs, loop and with targets."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    return names


def _read(tree):
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def test_an_editions_notebooks_are_the_instructors_but_for_cells_nothing_later_reads(edition):
    """What the edition drops (instructor and solution cells, solution regions) binds no name that a later cell of
    the edition reads before binding it itself, unless a cell the edition keeps bound it before (the instructor's
    filled-in prediction after the student's `my_hits = ...`); every other code cell is the instructor's; and every
    module of the edition but the student's files is the instructor's, byte for byte."""
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        instructor = json.loads(path.read_text())
        student = {cell["id"]: cell for cell in json.loads((edition.out / "notebooks" / path.name).read_text())["cells"]}
        dropped, kept_bound = set(), set()
        for cell in instructor["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "\n".join(line for line in "".join(cell["source"]).split("\n")
                                if not markers.directive(line))  # nbval's directives are not the student's
            kept = student.get(cell["id"])
            kept_source = "".join(kept["source"]) if kept else ""
            if kept_source != source:  # dropped, or its solution stubbed: what it bound may be missing later
                lines = [line for line in source.splitlines() if not line.lstrip().startswith("%")]
                kept_here = _bound(ast.parse(kept_source or "pass"))
                written = set(notebook.LOOPS)  # what the student's own loop binds (a later cell says so if not)
                dropped |= _bound(ast.parse("\n".join(lines))) - kept_here - kept_bound - written
                kept_bound |= kept_here
                assert kept is None or "solution" in cell["metadata"].get("tags", []) or "SOLUTION" in source, \
                    (path.name, cell["id"])
                continue
            tree = ast.parse(source)
            missing = (_read(tree) - _bound(tree)) & dropped  # (a name the cell binds itself, e.g. a loop's, is its own)
            assert not missing, (path.name, cell["id"], missing)
            dropped -= _bound(tree)
            kept_bound |= _bound(tree)
    for relative in edition.files:
        if relative.startswith("kvlab/") and relative.endswith(".py") and Path(relative).name not in STUDENT_FILES \
                and relative not in edition.stubbed:  # (a step module's planted mistakes are the instructor's)
            assert (edition.out / relative).read_bytes() == (ROOT / relative).read_bytes(), relative


BLANK = {"zh": "06_measured_ttft", "ja": "07_beyond_lru"}  # (the English edition's code is theirs: tested below)
LAB_RESULTS = ('"50110": 10', '"0": 10, "20000": 10', "9, 8, 7, 6", "[9, 8, 7, 6]", "576.0", "11.85", "0.98",
               "  MRU    4", "12.0 ms", "29.8")  # none may show on blank stubs
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _outputs(path):
    nb = nbformat.read(path, as_version=4)
    outputs = [output for cell in nb.cells if cell.cell_type == "code" for output in cell.outputs]
    text = "".join(output.get("text", "") if output.output_type == "stream" else
                   output.get("data", {}).get("text/plain", "") for output in outputs)
    markdown = "".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    return outputs, text, markdown


def test_each_editions_notebooks_run_to_the_end_on_its_stubs_in_its_language(translated, tmp_path):
    """The Chinese 06 and the Japanese 07, each on its edition's blank stubs, at once: every cell runs, no lab
    result and no figure shows, and what the stubs say is in the edition's language. The English edition has
    the same code cells and modules (test_an_edition_in_another_language_is_the_english_one_but_for_its_text)."""
    from concurrent.futures import ThreadPoolExecutor

    from kvlab.i18n import UNTRANSLATED, t
    outs = {language: built.out for language, built in translated.items()}
    with ThreadPoolExecutor(len(BLANK)) as pool:
        results = dict(zip(BLANK, pool.map(lambda language: notebooks(
            outs[language], tmp_path / language, f"notebooks/{BLANK[language]}.ipynb"), BLANK)))
    shown = {}
    for language, name in BLANK.items():
        assert results[language].returncode == 0, results[language].stderr
        outputs, text, markdown = _outputs(tmp_path / language / "artifacts" / "notebooks" / f"{name}.ipynb")
        assert not [output for output in outputs if output.output_type == "error"], (language, name)
        assert not [output for output in outputs if "image/png" in output.get("data", {})], (language, name)
        for result in LAB_RESULTS:
            assert result not in text, f"{name} ({language}) shows {result!r} on blank stubs"
        assert UNTRANSLATED not in text + markdown
        assert englishtext.executed(tmp_path / language / "artifacts" / "notebooks") == {}, (language, name)
        shown[language] = text, markdown
    assert t("notebook.finish-this-step", "zh", step=8, stub="").strip() in shown["zh"][0]
    assert t("notebook.finish-exercise-first", "ja", stub="").strip() in shown["ja"][0]
    assert t("stub.exercise-not-written", "ja", step="07", function="Cache._admit", file="policies.py") \
        in shown["ja"][0]
    for language in ("zh", "ja"):  # the notebook's own text is in the edition's language too
        assert len(CJK.findall(shown[language][1])) > 500 and CJK.search(shown[language][0])


@pytest.mark.parametrize("language", ["zh", "ja"])
def test_an_edition_in_another_language_is_the_english_one_but_for_its_text(edition, translated, language):
    """Same files; the same code in every notebook cell and every module; only the Markdown, the README, the text in
    code (the student's files' comments, docstrings and stubs, the cells' comments) and kvlab/locale/DEFAULT differ,
    no catalog holds a notebook's text (answers are there), and no English phrase is left where a student reads."""
    other = translated[language]
    assert set(other.files) == set(edition.files) | {"kvlab/locale/DEFAULT"}
    assert (other.out / "kvlab" / "locale" / "DEFAULT").read_text() == f"{language}\n"
    students = {f"kvlab/{student}" for student in STUDENT_FILES}
    for name in edition.files:
        english, translation = (edition.out / name).read_bytes(), (other.out / name).read_bytes()
        if name.endswith(".ipynb"):
            one, two = (json.loads(text) for text in (english, translation))
            assert [cell["cell_type"] for cell in one["cells"]] == [cell["cell_type"] for cell in two["cells"]]
            for a, b in zip(one["cells"], two["cells"]):
                if a["cell_type"] == "code":  # the same code, outputs, metadata and id; its comments translated
                    assert {**a, "source": None} == {**b, "source": None}, name
                    assert codetext.skeleton("".join(a["source"]), strings=True) == \
                        codetext.skeleton("".join(b["source"]), strings=True), (name, a["id"])
                elif CJK.search("".join(a["source"])) is None and re.search("[a-z]{4}", "".join(a["source"])):
                    assert CJK.search("".join(b["source"])), (name, a["id"])  # every cell of prose translated
        elif name in students:  # the same code; stubs, comments and docstrings in the edition's language
            assert english != translation, name
            assert codetext.skeleton(english.decode(), strings=True) == \
                codetext.skeleton(translation.decode(), strings=True), name
        elif name == "README.md":
            assert CJK.search(translation.decode()) and "```bash" in translation.decode()
        elif name == "kvlab/check/expected.json":  # the same expectations in every language
            assert translation == english
        else:
            assert translation == english, name
        if name.endswith(".po"):
            assert not re.search(rb'msgctxt "(?:md|readme|code)\.', translation), name
    # what a student reads holds no English phrase (of four words or more); the English edition has a thousand
    assert englishtext.edition(other.out) == {}
    assert sum(map(len, englishtext.edition(edition.out).values())) > 500


def test_a_translated_edition_with_the_reference_hands_in_and_passes_in_its_language(translated, tmp_path):
    """The round trip in Chinese: the zh edition with the reference copied in hands in and passes every step,
    its table in Chinese (the Japanese edition's code is the same: the test above)."""
    from kvlab.i18n import t
    out = tmp_path / "student"
    shutil.copytree(translated["zh"].out, out)
    for name in STUDENT_FILES:
        shutil.copy(KVLAB / name, out / "kvlab" / name)
    artifacts.write(tmp_path / "artifacts", STAND_IN)
    result = python("-S", "-m", "kvlab", "handin", tmp_path / "handin", cwd=out,
                    env=out_env(out, KVLAB_OUT=tmp_path / "artifacts"))
    assert result.returncode == 0 and result.stderr == "", result.stdout + result.stderr
    assert t("check.steps-ok", "zh", ok=8, total=8) in result.stdout and t("step.1.title", "zh") in result.stdout
