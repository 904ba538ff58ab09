"""Write the student edition: a repository of its own, without the reference (`kvlab release OUT`).

The student's files lose their solution regions (each becomes a stub naming its step), the notebooks
lose their answers, their instructor cells and their outputs, and the public checks get their
expectations of their public cases (kvlab/check/expected.json, computed with the reference: what the lab's
rules give on small generated cases, and digests of what each planted mistake gives). kvlab/instructor/,
tests/ and fixtures/make_ttft.py stay here. The edition is built next to OUT and moved there only
once it is whole and holds no solution line, so a failed release leaves OUT as it was.
"""
import ast
import copy
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

from .. import paths
from ..errors import UserError
from ..i18n import LANGS, SOURCE, NotTranslated, t
from . import codetext, documents, markers
from .markers import ANY_MARKER, STEP, MarkerError, regions

REPO = paths.REPO
PACKAGE = REPO / "kvlab"
TEMPLATES = Path(__file__).resolve().parent / "student"   # copied to OUT under the same paths
SKIPPED = {"__pycache__", ".ipynb_checkpoints"}          # never copied, wherever they are
MIN_LEAK = 20           # a solution line this long (normalize()d) must not appear anywhere in the edition
NEVER = {"make_ttft.py", "grade.py", "sandbox.py"}   # instructor-only file names

class Edition(NamedTuple):
    """What build() wrote: the folder, its files (relative paths), the stubbed files, the answers stored."""
    out: Path
    files: list
    stubbed: dict      # relative path -> number of regions replaced
    notebooks: int
    answers: int


# Pure transforms


def _functions(tree):
    """[(first line, last line, qualified name)] for every def in the module, outermost first."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    found.append((child.lineno, child.end_lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)
    visit(tree, "")
    return found


def stub_source(text, filename, lang=SOURCE):
    """A .py file's student edition: each solution region becomes one stub line at its indentation.

    The stub is `raise NotImplementedError("step N is not written yet: QUALNAME in kvlab/FILE")` (the
    catalog's stub.not-written, or stub.exercise-not-written), N taken
    from the nearest `# Step N:` (or `# Exercise NN:`) comment above the region in the same function;
    or `...` when the BEGIN line carries that flag. Everything outside the regions stays as it is.
    """
    regions(text.splitlines(), filename)  # a marker mistake is named before any syntax error it causes
    try:
        functions = _functions(ast.parse(text, filename))
    except SyntaxError as error:
        raise MarkerError(f"{filename}, line {error.lineno}: not valid Python ({error.msg})") from None
    lines = text.splitlines()

    def stub(begin, flag):
        if flag == "...":
            return ["..."]
        around = [(first, qualname) for first, last, qualname in functions if first <= begin + 1 <= last]
        if not around:
            raise MarkerError(f"{filename}, line {begin + 1}: a solution region outside a function needs "
                              "the ... flag (its stub cannot raise)")
        first, qualname = max(around)  # the innermost def holding the region
        for line in reversed(lines[first - 1:begin]):
            step = STEP.match(line.strip())
            if step:
                message = "stub.exercise-not-written" if step.group(1) == "Exercise" else "stub.not-written"
                text = t(message, lang, step=step.group(2), function=qualname, file=Path(filename).name)
                return [f"raise NotImplementedError({json.dumps(text, ensure_ascii=False)})"]
        raise MarkerError(f"{filename}, line {begin + 1}: no `# Step N:` comment above this region in {qualname}")

    return markers.replace(text, filename, stub)


def answer_cell(lang=SOURCE):
    """The Markdown where a student writes an answer: **Your answer:** in the edition's language."""
    return t("stub.your-answer", lang) + "\n\n"


def student_notebook(nb, filename="notebook", lang=SOURCE):
    """A notebook's student edition (a new nbformat v4 notebook; `nb` is left as it was).

    Cells tagged `instructor` are dropped, and so is a `solution` cell right after a markdown cell tagged
    `answer` (the student's answer cell, kept). Any other markdown cell tagged `solution` becomes an empty
    "Your answer" cell; a code cell tagged `solution` keeps only its leading comment lines (the prompt).
    Regions between markers become `...` in code and a "Your answer" line in markdown. Every output and
    execution count goes; the two tags go, other tags (parameters, setup) stay.
    """
    import nbformat

    student = copy.deepcopy(nbformat.from_dict(nb))
    cells = []
    for index, cell in enumerate(student.cells):
        tags = markers.tags(cell)
        if "instructor" in tags:
            continue
        if "solution" in tags and index and "answer" in markers.tags(student.cells[index - 1]):
            continue  # the `answer` cell before it is where the student writes (it is kept as it is)
        where = f"{filename}, cell {index + 1}"
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        if cell.cell_type == "code":
            source = markers.prompt(source) if "solution" in tags else \
                markers.replace(source, where, lambda begin, flag: ["..."])
            source = "\n".join(line for line in source.split("\n")
                               if not markers.directive(line))  # nbval's, not the student's
            cell.outputs, cell.execution_count = [], None
        elif "solution" in tags:
            source = answer_cell(lang)
            cell.pop("attachments", None)
        else:
            source = markers.replace(source, where, lambda begin, flag: answer_cell(lang).splitlines())
        cell.source = source
        cell.metadata.pop("execution", None)  # timing of the instructor's run
        rest = [tag for tag in tags if tag not in ("solution", "instructor")]
        if rest:
            cell.metadata["tags"] = rest
        else:
            cell.metadata.pop("tags", None)
        cells.append(cell)
    student.cells = cells
    nbformat.validate(student)
    return student


def solution_lines(text, min_length=MIN_LEAK):
    """The stripped lines of at least `min_length` characters inside the regions of `text`.

    Markers are found as the reviewers' leak check finds them (anywhere in a line), so this set is never
    smaller than theirs.
    """
    found, inside = set(), False
    for line in text.splitlines():
        marker = ANY_MARKER.search(line)
        if marker:
            inside = marker.group(1) == "BEGIN"
        elif inside and len(line.strip()) >= min_length:
            found.add(line.strip())
    return found


def notebook_solution_lines(nb, min_length=MIN_LEAK):
    """Solution lines of a notebook: its regions, and what solution cells hold besides their prompt."""
    found = set()
    for cell in nb["cells"]:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        found |= solution_lines(source, min_length)
        if "solution" in markers.tags(cell):
            start = len(markers.leading_comments(source)) if cell["cell_type"] == "code" else 0
            found |= {line.strip() for line in source.splitlines()[start:]
                      if len(line.strip()) >= min_length and not markers.directive(line)}
    return found


# The edition


def notebook_paths(repo=REPO):
    return sorted((repo / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def all_solution_lines(repo=REPO):
    """Every solution line of the instructor's kvlab/ and notebooks: none may reach the student edition."""
    found = set()
    for path in sorted((repo / "kvlab").rglob("*.py")):
        found |= solution_lines(path.read_text(encoding="utf-8", errors="replace"))
    for path in notebook_paths(repo):
        found |= notebook_solution_lines(json.loads(path.read_text(encoding="utf-8")))
    return found


def _package_files(package=PACKAGE):
    """The kvlab/ files the edition gets: all but kvlab/instructor/, caches and a stale expected.json."""
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if (not path.is_file() or relative.parts[0] == "instructor" or path.suffix == ".pyc"
                or SKIPPED & set(relative.parts) or any(part.startswith(".") for part in relative.parts)
                or relative.as_posix() in ("check/expected.json", "check/digests.json", "locale/DEFAULT")):
            continue
        yield relative


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)


def _copy_package(out, repo=REPO, lang=SOURCE):
    """kvlab/ with the student's files stubbed (stubs, comments and docstrings in `lang`); {relative path: regions
    replaced}.

    Every file must compile. An edition in another language than English gets kvlab/locale/DEFAULT, so that
    its messages are in that language unless $KVLAB_LANG says otherwise.
    """
    stubbed = {}
    for relative in _package_files(repo / "kvlab"):
        source, target = repo / "kvlab" / relative, out / "kvlab" / relative
        shown = f"kvlab/{relative.as_posix()}"
        if source.suffix == ".po":  # the messages only: the documents' entries hold the answer cells
            _write(target, documents.messages_only(source.read_text(encoding="utf-8")))
            continue
        if source.suffix != ".py":
            _write(target, source.read_bytes())
            continue
        text = source.read_text(encoding="utf-8")
        count = len(regions(text.splitlines(), shown))
        student = stub_source(text, shown, lang) if count else text
        if lang != SOURCE and relative.name in codetext.FILES and len(relative.parts) == 1:
            student = documents.translate_file(student, relative.name, lang)  # comments and docstrings
        try:
            compile(student, shown, "exec")  # what py_compile checks, without writing a .pyc
        except SyntaxError as error:
            raise UserError(f"the student edition of {shown} does not compile: line {error.lineno}: "
                            f"{error.msg}") from None
        if count:
            stubbed[shown] = count
        _write(target, student)
    if lang != SOURCE:
        _write(out / "kvlab" / "locale" / "DEFAULT", f"{lang}\n")
    return stubbed


def _copy_notebooks(out, repo=REPO, lang=SOURCE):
    try:
        import nbformat
    except ImportError:
        raise UserError("kvlab release needs nbformat to write the notebooks: pip install -e '.[notebooks]'") from None

    written = notebook_paths(repo)
    for path in written:
        nb = nbformat.from_dict(documents.translate_notebook(nbformat.read(path, as_version=4), path.stem, lang))
        _write(out / "notebooks" / path.name,
               nbformat.writes(student_notebook(nb, f"notebooks/{path.name}", lang)) + "\n")
    return len(written)


def _copy_fixtures(out, repo=REPO):
    """The stand-in measurement and the traces; not make_ttft.py, which names the answers it builds in."""
    fixtures = repo / "fixtures"
    _write(out / "fixtures" / "ttft.jsonl", (fixtures / "ttft.jsonl").read_bytes())
    traces = fixtures / "traces"
    if traces.is_dir():
        for path in sorted(traces.rglob("*")):
            if path.is_file() and not path.name.startswith(".") and not SKIPPED & set(path.parts):
                _write(out / "fixtures" / path.relative_to(fixtures), path.read_bytes())


def _copy_templates(out, lang=SOURCE):
    """Everything under kvlab/instructor/student/ at the same path in OUT (`gitignore` becomes `.gitignore`);
    README.md in the edition's language."""
    for path in sorted(TEMPLATES.rglob("*")):
        relative = path.relative_to(TEMPLATES)
        if path.is_file() and not SKIPPED & set(relative.parts) and path.suffix != ".pyc":
            name = ".gitignore" if relative.as_posix() == "gitignore" else relative.as_posix()
            if name == "README.md":
                _write(out / name, documents.translate_readme(path.read_text(encoding="utf-8"), lang).encode())
            else:
                _write(out / name, path.read_bytes())


_EXPECTED = {}  # the stored expectations, by what they are computed from: building three editions asks once


def expectations(reference=PACKAGE):
    """{"want", "signs"}: what the student edition stores for its public cases (kvlab/check/expected.json).

    The reference must pass its own public check first (on its files and the artifacts it writes): a
    reference that fails would ship wrong expectations. Remembered for the same reference files (their
    bytes), so that an edition in each language costs one computation.
    """
    import hashlib
    sources = [*sorted(Path(reference).glob("*.py")), *sorted((Path(reference) / "lab").glob("*.py"))]
    key = tuple((str(path), hashlib.sha256(path.read_bytes()).hexdigest()) for path in sources)
    if key not in _EXPECTED:
        shared = os.environ.get(SHARED_EXPECTATIONS)
        _EXPECTED[key] = _shared(Path(shared), key, reference) if shared else _expectations(reference)
    return _EXPECTED[key]


SHARED_EXPECTATIONS = "KVLAB_EXPECTATIONS_DIR"  # a folder where processes of one test run share them


def _shared(folder, key, reference):
    """The expectations from `folder`, computed by the first process that asks (the others wait for it)."""
    import fcntl
    import hashlib
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (hashlib.sha256(repr(key).encode()).hexdigest()[:20] + ".json")
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))
        found = _expectations(reference)
        _write(path, expected_file(found))
        return found


def _expectations(reference):
    from .. import check, lab
    from . import artifacts
    from .reference import Reference, stored

    expect = Reference()
    with tempfile.TemporaryDirectory(prefix="kvlab-release-") as folder:
        artifacts.write_files(folder, artifacts.planned(paths.ttft_source()))
        reports = check.steps(folder=reference, artifacts=folder, expect=expect)
    reports["07"] = check.mru_cache(folder=reference, expect=expect)
    for number, report in reports.items():
        if not report.passed:
            rule = next(row for row in report.rows if not row.ok)
            raise UserError(f"the reference fails its own public check of step {number}: {rule.rule}; the release "
                            "would ship wrong expectations, so nothing was written")
    return stored([*lab.STEPS.values(), *lab.EXERCISES.values()], expect)


def expected_file(data):
    """The text of kvlab/check/expected.json."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"


_SPACE = re.compile(r"[ \t\r\f\v]+")
_ESCAPE = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})')


def normalize(text):
    """`text` as the leak scan compares it: comment markers (#) gone, each line's whitespace collapsed."""
    return "\n".join(_SPACE.sub(" ", line).strip() for line in text.replace("#", " ").splitlines())


def _unescape(match):
    """One JSON string escape decoded (a notebook's cell sources are JSON strings)."""
    code = match.group(1)
    if code[0] == "u":
        return chr(int(code[1:], 16))
    return {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}.get(code, code)


def _texts(path, text):
    """The texts a file shows: itself, with its JSON string escapes decoded, and each string of a JSON file."""
    texts = [text, _ESCAPE.sub(_unescape, text)]
    if path.suffix in (".json", ".ipynb"):
        try:
            data = json.loads(text)
        except ValueError:
            return texts
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                texts.append(item)
            elif isinstance(item, dict):
                stack += item.values()
            elif isinstance(item, list):
                if item and all(isinstance(part, str) for part in item):
                    texts.append("".join(item))  # a cell's source, stored as a list of lines
                stack += item
    return texts


def leaks(out, solutions, min_length=MIN_LEAK):
    """["path: line"] for each file of `out` that holds a solution line anywhere in its text.

    Each line of `solutions` (and the code and the comment of a line `code  # comment` apart) is
    compared as normalize() leaves it, and found as a substring: commented out, inside a comment, a
    docstring or a longer line, or in a JSON string (a notebook cell) all count.
    """
    wanted = {}  # line: the texts that give it away, the whole line and its code and its comment apart
    for line in sorted(solutions):
        parts = {normalize(part).replace("\n", " ") for part in (line, *line.split("#"))}
        if any(len(part) >= min_length for part in parts):
            wanted[line] = [part for part in parts if len(part) >= min_length]
    found = []
    for path in sorted(Path(out).rglob("*")):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary (the gzipped traces)
        haystack = "\n".join(normalize(one) for one in _texts(path, text))
        found += [f"{path.relative_to(out).as_posix()}: {line[:70]}"
                  for line, parts in wanted.items() if any(part in haystack for part in parts)]
    return found


def forbidden(out):
    """The files of `out` that are instructor-only, or notebooks that kept outputs."""
    found = []
    for path in sorted(Path(out).rglob("*")):
        relative = path.relative_to(out)
        parts = relative.parts
        if "instructor" in parts or parts[:2] == ("tests", "buggy") or path.name in NEVER:
            found.append(f"{relative.as_posix()}: instructor only")
        elif path.suffix == ".ipynb" and path.is_file():
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            if any(cell.get("outputs") or cell.get("execution_count") is not None
                   for cell in cells if cell["cell_type"] == "code"):
                found.append(f"{relative.as_posix()}: stored outputs")
    return found


def _check_out(out):
    """Refuse an OUT that would overwrite or hold the instructor's own files."""
    out = out.resolve()
    if out.exists() and not out.is_dir():
        raise UserError(f"{out} is a file, not a folder")
    if out == REPO or REPO.is_relative_to(out):
        raise UserError(f"{out} holds this repository; choose a folder outside it")
    for source in ("kvlab", "notebooks", "fixtures", "tests"):
        if out.is_relative_to(REPO / source):
            raise UserError(f"{out} is inside {source}/, which the release reads; choose another folder")
    return out


def build(out, force=False, lang=SOURCE):
    """Write the student edition at `out`; return an Edition. Refuses a non-empty `out` unless `force`.

    `lang`: the edition's language: its notebooks' Markdown and README (kvlab/instructor/documents.py), its
    stubs, and kvlab/locale/DEFAULT for every message it shows. A language whose catalog lacks an entry of
    these (missing, fuzzy or stale) is refused, listing them; the code is the same in every language.

    The edition is built in a temporary folder next to `out` and checked there (it compiles, it holds no
    solution line and nothing instructor-only); only then does it replace `out`.
    """
    if lang not in LANGS:
        raise UserError(f"unknown language {lang!r} (kvlab has {', '.join(LANGS)})")
    try:
        documents.require(lang)
    except NotTranslated as error:
        raise UserError(f"{error}; nothing was written") from None
    out = _check_out(Path(out))
    if out.is_dir() and any(out.iterdir()) and not force:
        raise UserError(f"{out} is not empty; nothing was written (--force replaces it)")
    out.parent.mkdir(parents=True, exist_ok=True)
    built = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.release-"))
    try:
        stubbed = _copy_package(built, lang=lang)
        notebooks = _copy_notebooks(built, lang=lang)
        _copy_fixtures(built)
        _copy_templates(built, lang=lang)
        answers = expectations()
        _write(built / "kvlab" / "check" / "expected.json", expected_file(answers))
        problems = forbidden(built) + leaks(built, all_solution_lines())
        if problems:
            more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
            raise UserError(f"the student edition would hold what it must not, so nothing was written: "
                            f"{'; '.join(problems[:3])}{more}")
        files = sorted(path.relative_to(built).as_posix() for path in built.rglob("*") if path.is_file())
        built.chmod(0o755)  # mkdtemp's folder is private; the edition is for others
        _swap(built, out)
    except BaseException:
        shutil.rmtree(built, ignore_errors=True)
        raise
    return Edition(out, files, stubbed, notebooks, len(answers["want"]))


def _swap(built, out):
    """Put the finished folder at `out`, replacing all but its .git; a failure leaves `out` as it was."""
    if not out.exists() or not any(out.iterdir()):
        os.replace(built, out)  # an empty folder is replaced in one step
        return
    old = out.parent / f".{out.name}.replaced-{os.getpid()}"
    os.replace(out, old)
    try:
        if (old / ".git").exists():  # the edition may be a repository that the instructor pushes
            os.replace(old / ".git", built / ".git")
        os.replace(built, out)
    except OSError:
        if (built / ".git").exists():
            os.replace(built / ".git", old / ".git")
        os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def add_arguments(parser):
    parser.add_argument("out", metavar="OUT", help="the folder to write the student edition to (new or empty)")
    parser.add_argument("--force", action="store_true",
                        help="replace OUT even if it is not empty (a .git folder in it is kept)")
    parser.add_argument("--lang", choices=LANGS, default=SOURCE,
                        help="the edition's language: notebooks, README, stubs, check table, hints and messages "
                             "(default: en)")


def run(args):
    language = getattr(args, "lang", SOURCE)
    edition = build(args.out, args.force, lang=language)
    stubs = ", ".join(f"{path} ({count})" for path, count in edition.stubbed.items())
    print(f"wrote the student edition to {edition.out}: {len(edition.files)} files")
    print(f"  stubs (solution regions): {stubs}")
    print(f"  {edition.notebooks} notebooks without answers or outputs; "
          f"the expectations of {edition.answers} public cases in kvlab/check/expected.json")
    if language != SOURCE:
        print(f"  language {language}: notebooks, README, the student's files' comments and docstrings, stubs, "
              f"check table, hints and messages (kvlab/locale/DEFAULT); names in the code stay as they are")
    print(f"next: cd {edition.out} && python3 -m kvlab check")
