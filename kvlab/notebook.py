"""What the lab's notebooks share: the student's modules (reloaded when their files change), one-line
messages instead of tracebacks, the parameters, the artifacts and figures, and computed prose.

Both editions use it. Standard library only (IPython when there is one), and it imports no student
module when it is imported: a syntax error in kvlab/kvsim.py must not stop a notebook from saying so.
Every sentence it shows comes from the catalog (kvlab/messages.py, ids notebook.* and the notebooks' nb.*).

    kvsim, scenario, summarize = notebook.setup(step=2)  # the first code cell of every notebook
    notebook.require(6)                 # "Finish step 5 first (notebook 04): ..." or True
    notebook.needs(written=8)           # stops the cell in one line until step 8's code is written
    notebook.say("nb.02.resident", resident=4, docs=10, total=50110)   # computed prose, as Markdown

What a student's code can do to a cell, and what the cell then shows (one line, the cell counts as run,
and a later cell that needs a name it did not define says why): a stub not written yet; an exception
raised in a student file (`kvlab/scenario.py, line 42, in run: KeyError: 5`); an exception in the cell's
own code on a value a step's code returned (it names the step and its check); a cell that is not Python;
a student file that does not compile (every use of it raises StudentFileError until it compiles). The
outcomes that are failures carry {"kvlab": {"failed": true}} in their output's metadata, for
`kvlab notebooks` to count.
"""
import ast
import contextlib
import hashlib
import importlib
import io
import json
import linecache
import os
import platform
import sys
import tempfile
import threading
import traceback
from importlib import metadata
from pathlib import Path

from . import lab, paths
from . import lab as lab_table
from .check.driver import within
from .curve import first_capacity  # noqa: F401 (notebooks 03 and 05 call notebook.first_capacity)
from .lab.sweeps import second_pass  # noqa: F401 (the loop of steps 4 and 7 over your run(): the dense sweeps)
from .i18n import t

# The values every notebook's `parameters` cell starts from; the artifacts are defined for these.
LAB = {
    "gpu": lab.GPU,
    "cpu": lab.OFFLOAD_CPU,
    "docs": lab.DOCS,
    "tokens": lab.TOKENS,
    "gpu_capacities": lab.GPU_CAPACITIES,
    "cpu_capacities": lab.CPU_CAPACITIES,
}

# The student's files, in reload order: kvsim first, then the modules that import it.
STUDENT = ("kvsim", "scenario", "summarize", "policies")
KVLAB = Path(__file__).resolve().parent
NOTEBOOK_OF_STEP = {number: step.notebook[:2] for number, step in lab_table.STEPS.items()}
EXERCISE = 7          # the exercise of notebook 07 (policies.py), numbered like a step: "# Exercise 07:"
LOOPS = {"cliff": 4, "cpu_cliff": 7}  # what the student's loop cells of notebooks 03 and 05 define, and their step


class ParameterError(ValueError):
    """A value in a notebook's parameters cell that the notebook cannot use; shown as one line."""

    def _render_traceback_(self):  # IPython shows these lines instead of a traceback; the cell still fails
        return [f"ParameterError: {self}"]  # Python's own form: the type, then the catalog's text


class StudentFileError(Exception):
    """A student file that does not import (a syntax error, say); shown as one line naming file and line."""

    def _render_traceback_(self):
        return [str(self)]


# ---------------------------------------------------------------------------------------------------------
# The student's modules, reloaded when their files change


class StudentModule:
    """Stands for kvlab.NAME: every attribute is looked up in the module as it is now (after a reload).

    While the file does not import (a syntax error saved, say), every use raises StudentFileError: the
    cells never go on quietly with the version before.
    """

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attribute):
        if attribute.startswith(("_repr_", "_ipython_")):  # IPython asking how to display the stand-in itself
            raise AttributeError(attribute)
        return getattr(load(self._name), attribute)

    def __dir__(self):
        return dir(load(self._name))

    def __repr__(self):
        return f"<your kvlab/{self._name}.py>"


_stamps = {}   # module name -> (mtime_ns, size) of the file when it was last loaded (or failed to)
_broken = {}   # module name -> the one line of its file's last failure to import (until it imports again)


def _file(name):
    return KVLAB / f"{name}.py"


def _stamp(name):
    try:
        status = _file(name).stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def load(name):
    """The module kvlab.NAME, imported if it is not yet; a file that does not import raises StudentFileError.

    A file that failed to reload stays failed until it changes and imports: so does each student module
    that imports it (scenario.py runs on kvsim.py's classes).
    """
    qualified = f"kvlab.{name}"
    if name in _broken and _stamp(name) != _stamps.get(name):
        reload_changed(report=lambda text: None)  # a failure is raised below, as one line
    failure = _failure_of(name)
    if failure:
        raise StudentFileError(failure)
    if qualified in sys.modules:
        return sys.modules[qualified]
    stamp = _stamp(name)
    try:
        module = importlib.import_module(qualified)
    except Exception as error:
        _stamps[name] = stamp
        raise StudentFileError(_import_failure(name, error)) from None
    _stamps[name] = stamp
    return module


def _failure_of(name):
    """The line of the failed file that keeps kvlab.NAME from being used: its own, or one it imports."""
    if name in _broken:
        return _broken[name]
    module = sys.modules.get(f"kvlab.{name}")
    for other in STUDENT:
        if other != name and other in _broken and module is not None and _imports(module, other):
            return _broken[other]
    return None


def _import_failure(name, error):
    """One line: which file, which line, what went wrong (never a traceback); the file may be one kvlab.NAME imports."""
    if isinstance(error, SyntaxError) and error.filename:
        return t("notebook.file-does-not-import", file=_student_path(error.filename), line=error.lineno,
                 error=f"{type(error).__name__}: {error.msg}")
    where = None
    for frame, number in traceback.walk_tb(error.__traceback__):
        if Path(frame.f_code.co_filename).resolve() in _student_files():
            where = (_student_path(frame.f_code.co_filename), number)
    if where is None:
        return t("notebook.file-does-not-import-nowhere", file=f"kvlab/{name}.py", error=_error_text(error))
    return t("notebook.file-does-not-import", file=where[0], line=where[1], error=_error_text(error))


def _error_text(error):
    """What raised, as Python shows it: `KeyError: 5` (the first line of the message only)."""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _student_files():
    return {_file(name) for name in STUDENT}


def _student_path(filename):
    path = Path(filename).resolve()
    return f"kvlab/{path.name}" if path in _student_files() else str(filename)


def reload_changed(report=print):
    """Reload each loaded student module whose file changed, and those importing one that was reloaded.

    A file that fails is reported once (not before every cell) and stays failed: load() raises its line
    until the file imports again.
    """
    reloaded = set()
    for name in STUDENT:
        module = sys.modules.get(f"kvlab.{name}")
        if module is None:
            continue
        stamp = _stamp(name)
        if name not in _stamps:
            _stamps[name] = stamp  # loaded by an import in a cell: as it is now
        changed = stamp != _stamps[name]
        if not changed and not any(_imports(module, other) for other in reloaded):
            continue
        _stamps[name] = stamp
        try:
            importlib.reload(module)
        except Exception as error:
            _broken[name] = _import_failure(name, error)
            report(_broken[name])
            continue
        _broken.pop(name, None)
        reloaded.add(name)
    return reloaded


def _imports(module, name):
    """True when `module` holds kvlab.NAME or something defined there (from .kvsim import TwoTierCache)."""
    target = f"kvlab.{name}"
    return any(value is sys.modules.get(target) or getattr(value, "__module__", None) == target
               for value in vars(module).values())


# ---------------------------------------------------------------------------------------------------------
# Which step's code is this? (the step table: each step module of kvlab/lab/ names the functions of its step)


def _definitions(filename):
    """[(first line, last line, qualified name)] of the defs and classes of a file, as it is now."""
    linecache.checkcache(str(filename))
    try:
        tree = ast.parse("".join(linecache.getlines(str(filename))))
    except (SyntaxError, ValueError):
        return []
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.append((child.lineno, child.end_lineno, prefix + child.name))
                visit(child, prefix + child.name + ".")
    visit(tree, "")
    return found


def _table_steps(file, qualname):
    """("step", N) or ("exercise", 7) for the steps whose code `qualname` of `file` is, by the step table:
    the steps that name the function, else those that name a method of its class, else those of the file."""
    chosen = {**lab_table.STEPS, **lab_table.EXERCISES}
    mine = [number for number, step in chosen.items() if step.file == file]
    exact = [number for number in mine if qualname in chosen[number].functions]
    owner = qualname.partition(".")[0] + "."
    of_class = [number for number in mine if any(name.startswith(owner) for name in chosen[number].functions)]
    return [("exercise", int(number)) if lab_table.is_exercise(number) else ("step", number)
            for number in exact or of_class or mine]


def step_at(filename, line):
    """The step whose code holds `line` of a student file: ("step", N), ("exercise", 7), or None.

    The innermost def around the line names it through the step table; a function that two steps share
    (scenario.run: steps 2 and 6) gives the one this notebook is about.
    """
    around = sorted((first, name) for first, last, name in _definitions(filename) if first <= line <= last)
    qualname = around[-1][1] if around else ""
    return _choose(_table_steps(Path(filename).name, qualname))


def steps_of(module_name, attribute):
    """The steps whose code kvlab.MODULE.ATTRIBUTE is (scenario.run: step 2, step 3 and step 6)."""
    return _table_steps(f"{module_name}.py", attribute)


# ---------------------------------------------------------------------------------------------------------
# Setting up a notebook: hooks and one-line messages


class _Session:
    """What the hooks remember between cells."""

    def __init__(self):
        self.cell = ""        # the source of the cell running now
        self.stopped = {}     # name -> Line: why the cell that should have defined it stopped
        self.made_by = {}     # name -> the ("step", N) whose code a cell called to compute it
        self.skipped = set()  # ids of exceptions shown as one line; their cells count as run
        self.step = None      # the notebook's step (setup(step=N)); None outside a step notebook
        self.reported = set() # lines reload_changed showed before this cell ran (not shown twice)
        self.steps = ()       # the steps this notebook covers (notebook 02: 2 and 3)


_session = _Session()


class Line:
    """A message of the catalog shown as one line in a cell's output, with its id kept as data."""

    def __init__(self, message_id, /, failed=False, markdown=False, **params):
        self.id, self.params, self.failed, self.markdown = message_id, params, failed, markdown

    def __str__(self):
        return t(self.id, **self.params)


def setup(*names, step=None):
    """Call in each notebook's first code cell: returns the student modules (kvsim, scenario, summarize).

    In IPython it also registers, once: a reload of the student files that changed before each cell;
    one line instead of a traceback for a step that is not written yet, for an exception raised in a
    student file, for a cell that is not valid Python, and for a cell's own code stopping on a value the
    student's code returned (each such cell counts as run, so Run All goes on); and one line for a name
    that such a cell did not get to define. With `step`, the notebook knows its steps (02: 2 and 3) and
    says which earlier step to finish first, if any (require). A notebook that imported matplotlib before calling
    it gets the language's font for its own figures (kvlab.fonts).
    """
    names = names or ("kvsim", "scenario", "summarize")
    unknown = [name for name in names if name not in STUDENT]
    if unknown:
        raise ValueError(f"not a student file: {', '.join(unknown)}")
    shell = _shell()
    if shell is not None and not getattr(shell, "_kvlab_hooks", False):
        shell.events.register("pre_run_cell", _pre_run_cell)
        shell.events.register("post_run_cell", _post_run_cell)
        shell.set_custom_exc((Exception,), _one_line)
        shell.input_transformers_post.append(_invalid_python)
        shell._kvlab_hooks = True
    if step is not None:
        _session.step = step
        _session.steps = tuple(s for s, nb in NOTEBOOK_OF_STEP.items() if nb == NOTEBOOK_OF_STEP.get(step))
    if "matplotlib" in sys.modules:  # the notebook draws figures of its own (07): in the language's font too
        from . import fonts
        fonts.use()
    failures = []
    for name in names:  # import now, so that a file that does not import says so here, once
        try:
            load(name)
        except StudentFileError as error:
            failures.append(str(error))
    for line in dict.fromkeys(failures):  # scenario.py fails too when kvsim.py does: say it once
        show_line(Line("notebook.student-file", failed=True, failure=line))
    if step is not None:
        require(step)
    return tuple(StudentModule(name) for name in names)


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _pre_run_cell(info):
    _session.cell = info.raw_cell or ""
    _session.reported = set()

    def report(text):
        _session.reported.add(text)
        show_line(Line("notebook.student-file", failed=True, failure=text))

    reload_changed(report=report)


def _post_run_cell(result):
    # ipykernel reads the result after this hook: a cleared error makes the cell count as run.
    if result is not None and id(result.error_in_exec) in _session.skipped:
        result.error_in_exec = None
    elif result is not None and result.success:
        made = _made_by(_session.cell)
        for name in _bound_names(_session.cell):  # defined now: a later NameError is a real one
            _session.stopped.pop(name, None)
            if made:
                _session.made_by[name] = made
            else:
                _session.made_by.pop(name, None)
    _session.skipped.clear()


def show_line(line):
    """Display a Line: its text as plain text (stderr style in JupyterLab), its id in the output's metadata."""
    text = str(line)
    try:
        from IPython.display import display
    except ImportError:
        print(text, file=sys.stderr)
        return
    if _shell() is None:
        print(text, file=sys.stderr)
        return
    if line.markdown:  # a step to finish first: Markdown, as require() shows it
        _display(Text(text, message_id=line.id))
        return
    meta = {"kvlab": {"msg": line.id, **({"failed": True} if line.failed else {})}}
    display({"text/plain": text, "application/vnd.jupyter.stderr": text + "\n"}, raw=True, metadata=meta)


# The exceptions a cell's own code raises when a value it uses is not what a step's code should return.
VALUE_ERRORS = (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError, ZeroDivisionError)


def _one_line(shell, etype, value, tb, tb_offset=None):
    """IPython's handler for every exception: one line where the lab expects one, else the traceback."""
    try:
        line = _line_for(etype, value, tb)
    except Exception:  # a bug here must not hide the student's exception: show it as Python would
        line = None
    if line is None:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
        return None
    if str(line) not in _session.reported:  # a file that failed to reload was just reported: once is enough
        show_line(line)
    reason = line if line.id != "notebook.name-stopped" else _session.stopped[value.name]
    for name in _bound_names(_session.cell):
        _session.stopped[name] = reason
    _session.skipped.add(id(value))
    return None


def current_cell():
    """The source of the cell running now (a widget's callback runs later, after other cells)."""
    return _session.cell


def show_error(error, cell):
    """Show `error`, raised in a widget's callback made by `cell`, as that cell would: one line where the lab
    expects one, else Python's traceback."""
    running, _session.cell = _session.cell, cell
    try:
        line = _line_for(type(error), error, error.__traceback__)
    finally:
        _session.cell = running
    if line is None:
        traceback.print_exception(type(error), error, error.__traceback__)
    else:
        show_line(line)


def _line_for(etype, value, tb):
    """The Line for an exception, or None when it is not one the lab turns into a line."""
    frames = list(traceback.walk_tb(tb))
    innermost = frames[-1] if frames else None
    in_student = innermost is not None and Path(innermost[0].f_code.co_filename).resolve() in _student_files()
    if issubclass(etype, NotImplementedError) and in_student:
        return Line("notebook.not-written", stub=str(value))
    if issubclass(etype, NotReady):
        return value.line
    if issubclass(etype, StudentFileError):
        return Line("notebook.student-file", failure=str(value), failed=True)
    if issubclass(etype, NameError) and getattr(value, "name", None) in _session.stopped:
        reason = _session.stopped[value.name]
        return Line("notebook.name-stopped", name=value.name, reason=str(_short(reason)))
    if issubclass(etype, NameError) and getattr(value, "name", None) in LOOPS:
        return Line("notebook.loop-not-written", name=value.name, step=LOOPS[value.name])
    loop = sorted(LOOPS.keys() & _bound_names(_session.cell))
    if loop and not in_student and issubclass(etype, Exception) and not issubclass(etype, (AssertionError,
                                                                                          ParameterError)):
        return Line("notebook.loop-stopped", failed=True, step=LOOPS[loop[0]], error=_error_text(value))
    if in_student:
        frame, number = innermost
        step = step_at(frame.f_code.co_filename, number)
        return Line("notebook.student-crash", failed=True, file=_student_path(frame.f_code.co_filename),
                    line=number, function=frame.f_code.co_name, error=_error_text(value), step=step)
    if issubclass(etype, VALUE_ERRORS) and not issubclass(etype, (AssertionError, ParameterError)):
        left = sorted(_read_names(_session.cell) & _session.stopped.keys())  # what a stopped cell left half made
        if left:
            return Line("notebook.value-stopped", name=left[0], reason=str(_short(_session.stopped[left[0]])))
    if issubclass(etype, VALUE_ERRORS) and not issubclass(etype, (AssertionError, ParameterError)) \
            and _session.step is not None:
        step = _made_by(_session.cell) or _made_by_names(_session.cell)
        if step is not None:
            kind, number = step
            message = "notebook.bad-value-exercise" if kind == "exercise" else "notebook.bad-value"
            return Line(message, failed=True, error=_error_text(value), step=number)
    return None


def _short(reason):
    """What a later cell says about the cell that stopped: which step to fix."""
    if isinstance(reason, Line) and reason.id == "notebook.student-crash" and reason.params.get("step"):
        kind, number = reason.params["step"]
        message = "notebook.stopped-exercise" if kind == "exercise" else "notebook.stopped-step"
        return Line(message, error=reason.params["error"], step=number)
    if isinstance(reason, Line) and reason.id == "notebook.student-crash":
        return Line("notebook.stopped-code", error=reason.params["error"], file=reason.params["file"])
    if isinstance(reason, Line) and reason.id in ("notebook.bad-value", "notebook.bad-value-exercise"):
        message = "notebook.stopped-value" if reason.id == "notebook.bad-value" else "notebook.stopped-value-exercise"
        return Line(message, error=reason.params["error"], step=reason.params["step"])
    if isinstance(reason, Line) and reason.id == "notebook.not-written":
        return reason.params["stub"]
    if isinstance(reason, Line) and reason.id.startswith("notebook.finish-"):
        return reason.params["stub"]
    return reason


def _student_names():
    """{name in the notebook: student module name} for the stand-ins setup() returned."""
    shell = _shell()
    namespace = shell.user_ns if shell is not None else {}
    return {name: value._name for name, value in list(namespace.items()) if isinstance(value, StudentModule)}


def _made_by(source):
    """The step whose code this cell calls (kvsim.LRUCache, scenario.run, ...), chosen for this notebook."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    modules = _student_names()
    candidates = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            candidates += steps_of(modules[node.value.id], node.attr)
        elif isinstance(node, ast.Attribute) and node.attr == run_scenario.__name__:  # your command: run()'s steps
            candidates += steps_of("scenario", "run")
    return _choose(candidates)


def _read_names(source):
    """The names a cell reads."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def _made_by_names(source):
    """The step that computed a value this cell reads (a name an earlier cell bound from a step's code)."""
    used = _read_names(source)
    return _choose([_session.made_by[name] for name in sorted(used) if name in _session.made_by])


def _choose(candidates):
    """Of the steps a cell's values may come from, the one this notebook is about (else the latest before it)."""
    if not candidates:
        return None
    exercises = [step for step in candidates if step[0] == "exercise"]
    numbered = [step for step in candidates if step[0] == "step"]
    mine = [step for step in numbered if step[1] in _session.steps]
    if mine:
        return max(mine)
    before = [step for step in numbered if _session.step is None or step[1] <= _session.step]
    if before:
        return max(before)
    return exercises[0] if exercises else max(numbered)


def _invalid_python(lines):
    """IPython input transformer: a cell that does not compile becomes code that shows one line and runs."""
    source = "".join(lines)
    try:
        compile(source, "<cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        text = f"{type(error).__name__}: {error.msg}"
        return [f"__import__('kvlab.notebook').notebook._not_python({text!r}, {error.lineno or 0!r})\n"]
    except (ValueError, OverflowError, MemoryError):  # e.g. a null byte: Python's own error shows
        return lines
    return lines


def _not_python(error, line):
    show_line(Line("notebook.not-python", failed=True, error=error, line=line))


def _bound_names(source):
    """The names a cell's top level binds (assignments, loops, imports, defs), which later cells may use."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()

    def visit(node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            return  # their bodies bind local names
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


# ---------------------------------------------------------------------------------------------------------
# Earlier steps: is their code written?


def _probe_lru(kvsim, scenario, summarize):
    cache = kvsim.LRUCache(10)
    cache.access("a", 4), cache.access("a", 4), "a" in cache, cache.keys(), cache.used


def _probe_run(kvsim, scenario, summarize):
    scenario.run(gpu=8, docs=3, tokens=4, passes=("fwd", "rev"))
    with contextlib.redirect_stdout(io.StringIO()):  # the command: it prints its JSON
        scenario.main(["--gpu", "8", "--docs", "3", "--tokens", "4", "--passes", "fwd,rev"])


def _probe_tiers(kvsim, scenario, summarize):
    cache = kvsim.TwoTierCache(4, 8)
    cache.access("a", 4), cache.access("b", 4), cache.access("a", 4), cache.access("a", 4)


def _probe_offload(kvsim, scenario, summarize):
    scenario.run(gpu=4, cpu=12, docs=3, tokens=4, passes=("fwd", "fwd"))


def _probe_summarize(kvsim, scenario, summarize):
    records = [{"config": config, "pass": "p", "doc": 0, "doc_tokens": 1, "ttft_ms": 1.0, "total_ms": 2.0}
               for config in ("baseline", "lmcache")]
    summarize.to_json(summarize.summarize(records))


def _probe_exercise(kvsim, scenario, summarize):
    policies = StudentModule("policies")
    for cache in (policies.FIFOCache(8), policies.MRUCache(8)):  # the shared Cache._admit first
        cache.access("a", 4), cache.access("b", 4), cache.access("c", 4), cache.access("c", 4)


# Steps 4 and 7 are loops the student writes in a cell of notebooks 03 and 05: no file to probe (None).
PROBES = {1: _probe_lru, 2: _probe_run, 3: _probe_run, 4: None, 5: _probe_tiers, 6: _probe_offload, 7: None,
          8: _probe_summarize}
EXERCISE_PROBE = _probe_exercise


PROBE_SECONDS = 2.0  # the probes take microseconds; a student's endless loop must not hang the setup cell


def _probe(probe):
    """The stub message `probe` runs into (str), or None when its code is written (right or wrong) or when there
    is no code to probe (None: a loop in a notebook cell)."""
    if probe is None:
        return None
    modules = [StudentModule(name) for name in ("kvsim", "scenario", "summarize")]
    try:
        within(PROBE_SECONDS, lambda: probe(*modules))  # too slow: written, the checks will say more
    except NotImplementedError as error:
        if _raised_in_student_file(error.__traceback__):
            return str(error)
    except Exception:  # written but wrong (or too slow): that is for the checks to say, not for require()
        pass
    return None


def not_written(step):
    """(earlier step, its stub message) for the first step before `step` whose code is not written yet, or None."""
    for earlier in range(1, step):
        if PROBES[earlier] is None:  # a loop in a notebook cell: later steps do not run on it
            continue
        message = _probe(PROBES[earlier])
        if message is not None:
            return earlier, message
    return None


def _raised_in_student_file(tb):
    """True when the innermost frame is in one of the student's files: a stub that is not written yet."""
    frames = list(traceback.walk_tb(tb))
    if not frames:
        return False
    return Path(frames[-1][0].f_code.co_filename).resolve() in _student_files()


def require(step, exercise=False):
    """True when the steps before `step` are written; else display which step to finish first, and False.

    With `exercise`, the exercise of notebook 07 (policies.py) must be written too.
    """
    found = not_written(step)
    if found is not None:
        earlier, message = found
        say("notebook.finish-step-first", step=earlier, notebook=NOTEBOOK_OF_STEP.get(earlier, "?"), stub=message)
        return False
    if exercise:
        message = _probe(EXERCISE_PROBE)
        if message is not None:
            say("notebook.finish-exercise-first", stub=message)
            return False
    return True


class NotReady(Exception):
    """Raised by needs(): a cell that needs code not written yet; shown as one line, the cell counts as run."""

    def __init__(self, line):
        super().__init__(str(line))
        self.line = line

    def _render_traceback_(self):
        return [str(self.line)]


def needs(step=None, exercise=False, written=None):
    """Stop the cell, in one line, unless its code is there: the steps before `step`, notebook 07's exercise,
    and step `written` itself. A cell that shows a lab result starts with this, so that nothing it would
    show appears before the student's own code computes it. Returns True.
    """
    found = not_written(step) if step is not None else None
    if found is not None:
        earlier, message = found
        raise NotReady(Line("notebook.finish-step-first", step=earlier, notebook=NOTEBOOK_OF_STEP.get(earlier, "?"),
                            stub=message, markdown=True))
    if exercise:
        message = _probe(EXERCISE_PROBE)
        if message is not None:
            raise NotReady(Line("notebook.finish-exercise-first", stub=message, markdown=True))
    if written is not None:
        message = _probe(PROBES[written])
        if message is not None:
            raise NotReady(Line("notebook.finish-this-step", step=written, stub=message, markdown=True))
    return True


def after(*predictions):
    """Stop the cell, in one line, until each of `predictions` is filled in (not `...`): a cell that shows what a
    prediction above asks (a trace, a table, a figure, a slider) starts with this. Returns True."""
    if not predicted(*predictions):
        raise NotReady(Line("notebook.predict-first-above", markdown=True))
    return True


def require_written(step):
    """True when the code of `step` itself is written; else one line saying to finish it, and False.

    For a cell that shows a lab result only once the student's own code computes it.
    """
    message = _probe(PROBES[step])
    if message is None:
        return True
    say("notebook.finish-this-step", step=step, stub=message)
    return False


# ---------------------------------------------------------------------------------------------------------
# Parameters


INTEGERS = {"gpu": 0, "cpu": 0, "docs": 1, "tokens": 1}          # name -> smallest allowed value
LISTS = {"gpu_capacities": 0, "cpu_capacities": 0}                # lists of whole numbers >= the value
STRINGS = {"ttft"}


def check_parameters(**values):
    """Raise ParameterError (one line) for a parameter the notebook cannot use; else True at the lab's defaults.

    The lab's defaults: LAB, and an empty `ttft` (the lab's measured file).
    """
    for name, value in values.items():
        if name in INTEGERS:
            if not _whole(value) or value < INTEGERS[name]:
                raise ParameterError(t("notebook.param-whole", name=name, minimum=INTEGERS[name],
                                       got=_shown_value(value)))
        elif name in LISTS:
            if not isinstance(value, (list, tuple)):
                message = "notebook.param-list-from-text" if isinstance(value, str) else "notebook.param-list"
                raise ParameterError(t(message, name=name, got=_shown_value(value)))
            if not value:
                raise ParameterError(t("notebook.param-empty", name=name))
            for item in value:
                if not _whole(item) or item < LISTS[name]:
                    raise ParameterError(t("notebook.param-items", name=name, minimum=LISTS[name],
                                           got=_shown_value(item)))
        elif name in STRINGS:
            if not isinstance(value, str):
                raise ParameterError(t("notebook.param-string", name=name, got=_shown_value(value)))
        else:
            raise ParameterError(t("notebook.param-unknown", name=name))
    return values.pop("ttft", "") == "" and at_lab_defaults(**values)


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _shown_value(value):
    return t("notebook.param-value-of-type", value=repr(value), kind=type(value).__name__) if not _whole(value) \
        else repr(value)


def at_lab_defaults(**parameters):
    """True when every given parameter has the lab's value (lists compare equal to tuples)."""
    unknown = set(parameters) - set(LAB)
    if unknown:
        raise ValueError(f"no lab default for {', '.join(sorted(unknown))}")
    return all(_same(value, LAB[name]) for name, value in parameters.items())


def _same(value, default):
    if isinstance(default, tuple):
        return isinstance(value, (list, tuple)) and tuple(value) == default
    return value == default


# ---------------------------------------------------------------------------------------------------------
# Artifacts and figures


MANIFEST = ".kvlab-written.json"   # in each folder kvlab writes to: name -> sha256 of what kvlab last wrote there
_manifest_lock = threading.Lock()  # the threads of `kvlab notebooks`; a file lock for kernels writing at once


class NotReplaced(Exception):
    """A file kvlab would write holds something else, not what kvlab last wrote there: left alone."""

    def __init__(self, path, how):
        super().__init__(t("notebook.not-replaced", file=_shown(path), how=how))
        self.path = path


def forced():
    """True when $KVLAB_FORCE=1 (set by `kvlab notebooks --force` for its kernels)."""
    return os.environ.get("KVLAB_FORCE") == "1"


def _digest(data):
    return hashlib.sha256(data).hexdigest()


class _FolderLock:
    """The manifest of a folder, read and written under one lock: a thread lock, and flock on the folder itself
    where there is one (kernels of `kvlab notebooks` write artifacts into one folder at once)."""

    def __init__(self, folder):
        self.folder, self.handle = Path(folder), None

    def __enter__(self):
        _manifest_lock.acquire()
        try:
            import fcntl
            self.handle = os.open(self.folder, os.O_RDONLY)
            fcntl.flock(self.handle, fcntl.LOCK_EX)
        except (ImportError, OSError):  # Windows, or a folder that cannot be locked: the thread lock only
            if self.handle is not None:
                os.close(self.handle)
            self.handle = None
        return self

    def __exit__(self, *exc):
        if self.handle is not None:
            os.close(self.handle)  # closing releases the flock
        _manifest_lock.release()


def _read_manifest(folder):
    try:
        data = json.loads((Path(folder) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_file(path, data, force=False, how=None, manifest=True):
    """Write `data` (text or bytes) at `path`, whole or not at all, unless that would replace a different file.

    A file is replaced freely when it is absent, identical, or still exactly what kvlab last wrote there
    (the folder's .kvlab-written.json); otherwise NotReplaced is raised and the file is left as it is,
    unless `force` (or $KVLAB_FORCE=1). `how` names the way to force, for the message. Without
    `manifest` (the stored notebooks, refreshed in place) no manifest is kept.
    """
    path = Path(path)
    data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _FolderLock(path.parent) if manifest else _manifest_lock:
        known = _read_manifest(path.parent) if manifest else {}
        try:
            existing = path.read_bytes()
        except FileNotFoundError:
            existing = None
        except IsADirectoryError:
            raise NotReplaced(path, how or t("notebook.force-kernel")) from None
        if existing is not None and existing != data and not (force or forced()) \
                and known.get(path.name) != _digest(existing):
            raise NotReplaced(path, how or t("notebook.force-kernel"))
        if existing != data:
            write_atomically(path, data)
        if manifest and known.get(path.name) != _digest(data):
            known[path.name] = _digest(data)
            write_atomically(path.parent / MANIFEST, json.dumps(known, indent=1, sort_keys=True) + "\n")
    return path


def save_artifacts(texts, lab_defaults):
    """Write each {name: text or bytes} into the artifacts folder at the lab's defaults only; say what happened.

    A file that holds something kvlab did not write there is left alone, in one line (KVLAB_FORCE=1 forces).
    """
    if not lab_defaults:
        say("notebook.artifacts-other-parameters", names=list(texts), n=len(texts))
        return
    folder = paths.out_dir()
    written = []
    for name, data in texts.items():
        try:
            write_file(folder / name, data)
        except NotReplaced as refused:
            show_line(Line("notebook.not-replaced", failed=True, file=_shown(refused.path),
                           how=t("notebook.force-kernel")))
            continue
        written.append(name)
    if written:
        say("notebook.artifacts-written", names=written, n=len(written))


def write_atomically(path, data):
    """Write `data` (text or bytes) whole or not at all: a temporary file beside it, then one rename."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's file is private (0600); give it a new file's mode
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def save_figure(fig, name, lab_defaults):
    """Save `fig` as NAME.png in the lab's figures folder, or in figures/other-parameters; say where."""
    folder = paths.figures_dir(lab_defaults)
    buffer = io.BytesIO()
    # No "Software" entry: the bytes do not change with the matplotlib version's name.
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI, bbox_inches="tight", metadata={"Software": None})
    target = folder / f"{name}.png"
    shown = target.relative_to(paths.out_dir()).as_posix()
    try:
        write_file(target, buffer.getvalue())
    except NotReplaced:
        show_line(Line("notebook.not-replaced", failed=True, file=_shown(target), how=t("notebook.force-kernel")))
        return target
    print(t("notebook.figure-saved", file=shown))
    _show_saved(fig, buffer.getvalue(), shown)
    return target


FIGURE_DPI, SCREEN_DPI = 150, 100  # the saved PNG's; the size a notebook shows it at (crisp on a HiDPI screen)


def _show_saved(fig, png, name):
    """In a kernel: show the PNG just saved (the figure is drawn once, not again by plt.show()) and close the
    figure, so that plt.show() after it shows nothing more. Elsewhere the figure stays open, as it was."""
    if _shell() is None:
        return
    import base64

    import matplotlib.pyplot as plt
    from IPython.display import display
    width = int.from_bytes(png[16:20], "big")  # the PNG header's width, in pixels
    display({"image/png": base64.b64encode(png).decode("ascii"), "text/plain": name}, raw=True,
            metadata={"image/png": {"width": round(width * SCREEN_DPI / FIGURE_DPI)}})
    plt.close(fig)


# ---------------------------------------------------------------------------------------------------------
# Computed prose and code


class Text:
    """Markdown in a notebook, the same text in plain form (so nbval compares it); never a bare repr.

    With a message id, the output's metadata names it ({"kvlab": {"msg": id}}).
    """

    def __init__(self, text, markdown=None, message_id=None):
        self.text, self.markdown = text, markdown if markdown is not None else text
        self.message_id = message_id

    def _repr_markdown_(self):
        return self.markdown

    def __repr__(self):
        return self.text


def say(message_id, /, **params):
    """Display the catalog's message `message_id` (kvlab/messages.py) as Markdown, its plain form the same.

    Lists among the parameters are shown as the lab writes them: `[9, 8, 7, 6]` stays a list, names are joined
    with commas.
    """
    text = t(message_id, **{name: _param(value) for name, value in params.items()})
    _display(Text(text, message_id=message_id))


BLANK = ...  # a prediction cell's `my_prediction = ...`: not filled in yet


def compare_prediction(prediction, answer, what, tolerance=None):
    """Say "you predicted X; your code gives Y", the answer computed now from the student's code.

    `answer` is the value, or a function of no arguments that computes it (then a crash or a stub in the
    student's code is one line, after the prediction). `what` is the catalog id of what was predicted.
    A blank prediction (`...`) shows no answer: one line asks for the prediction first, and a function
    `answer` is not even called. `tolerance`: numbers that close agree. Returns None, so that the cell
    shows only the sentence. Whatever else a cell shows of the answer waits for predicted().
    """
    label = t(what)
    if prediction is BLANK:
        say("notebook.prediction-blank", what=label)
        return
    if callable(answer):
        try:
            answer = answer()
        except Exception as error:
            line = _line_for(type(error), error, error.__traceback__)
            if line is None:
                raise
            say("notebook.prediction-stopped", what=label, prediction=_predicted(prediction), line=str(line))
            return
    same = _agree(prediction, answer, tolerance)
    say("notebook.prediction-same" if same else "notebook.prediction-differs", what=label,
        prediction=_predicted(prediction), value=_predicted(answer))


def predicted(*predictions):
    """True when every one of `predictions` is filled in (not `...`): a reveal cell shows the rest of its
    answer (a table, a JSON document, a sentence) only then. compare_prediction has asked for the blanks."""
    return all(prediction is not BLANK for prediction in predictions)


def _agree(prediction, answer, tolerance):
    if tolerance is not None and isinstance(prediction, (int, float)) and isinstance(answer, (int, float)):
        return abs(prediction - answer) <= tolerance
    if isinstance(prediction, (list, tuple)) and isinstance(answer, (list, tuple)):
        return list(prediction) == list(answer)
    return prediction == answer


def _predicted(value):
    """A value as the sentence shows it: `[6, 7, 8, 9]`, `True`, `0.14`."""
    return f"`{value!r}`"


def _param(value):
    if isinstance(value, (list, tuple)) and value and all(isinstance(item, str) for item in value):
        return ", ".join(value)
    return value


def show_source(obj):
    """Display the source of a function, property or class as its file holds it now: yours, or the reference."""
    import inspect

    obj = obj.fget if isinstance(obj, property) else obj
    path = Path(inspect.getsourcefile(obj))
    linecache.checkcache(str(path))  # the file may have changed since it was last read
    lines, start = inspect.getsourcelines(obj)
    source = "".join(lines).rstrip("\n")
    where = t("notebook.source-at", file=_shown(path), line=start)
    _display(Text(f"{where}\n{source}", f"`{where}`\n```python\n{source}\n```"))


def _display(value):
    try:
        from IPython.display import display
    except ImportError:
        print(repr(value))
        return
    if _shell() is None:
        print(repr(value))
        return
    message_id = getattr(value, "message_id", None)
    display(value, metadata={"kvlab": {"msg": message_id}} if message_id else None)


def describe_source(path):
    """Where a TTFT file is (relative to the repository when inside it) and whether it is the stand-in."""
    if paths.is_stand_in(path):
        return t("notebook.ttft-stand-in", file=_shown(path))
    return t("notebook.ttft-measurement", file=_shown(path))


def figure_note(path):
    """The line under a figure of TTFT data: which file, and whether it is the stand-in."""
    if paths.is_stand_in(path):
        return t("notebook.figure-note-stand-in", file=_shown(path))
    return t("notebook.figure-note-measurement", file=_shown(path))


def _shown(path):
    path = Path(path).resolve()
    try:
        return path.relative_to(paths.REPO).as_posix()
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------------------------------------
# The student's command


COMMAND_SECONDS = 30  # the lab's runs take well under a second; an endless loop must not hang the notebook


class Printed(dict):
    """The JSON document a command printed, as a dict; `.text` is its stdout exactly (what a file saves)."""

    def __init__(self, document, text):
        super().__init__(document)
        self.text = text


def run_scenario(**options):
    """Run your command, `python3 kvlab/scenario.py --gpu G ...`, as the grader does: a fresh process that reads
    your files as they are saved. Only the options given are passed (gpu=21520, cpu=0, docs=10, tokens=5011,
    passes="fwd,fwd"), so the command's defaults are its own.

    Returns the JSON document it printed (a Printed dict; `.text` holds stdout exactly). A stub not written
    yet, a crash, a run that takes too long or output that is not exactly one JSON document stops the cell
    with one line (NotReady): it names the command and what went wrong.
    """
    import subprocess

    from .lab import commands

    argv = []
    for name in ("gpu", "cpu", "docs", "tokens", "passes"):
        if name in options:
            value = options.pop(name)
            argv += [f"--{name}", ",".join(value) if isinstance(value, (list, tuple)) else str(value)]
    if options:
        raise TypeError(f"run_scenario() has no option {', '.join(options)}")
    shown = " ".join(["python3 kvlab/scenario.py", *argv])
    try:
        done = subprocess.run([sys.executable, "scenario.py", *argv], cwd=KVLAB, capture_output=True,
                              encoding="utf-8", errors="replace", timeout=COMMAND_SECONDS)
    except subprocess.TimeoutExpired:
        raise NotReady(Line("notebook.command-timeout", failed=True, command=shown, seconds=COMMAND_SECONDS)) from None
    if done.returncode != 0:
        last = next((line.strip() for line in reversed(done.stderr.splitlines()) if line.strip()), "")
        stub = last.partition("NotImplementedError: ")[2] if last.startswith("NotImplementedError: ") else ""
        if stub:  # a stub of the edition, not written yet: what the student's other cells say too
            raise NotReady(Line("notebook.not-written", stub=stub))
        raise NotReady(Line("notebook.command-failed", failed=True, command=shown, code=done.returncode,
                            error=last or t("notebook.command-no-error")))
    document, exact = commands.read_json(done.stdout)
    if not exact or not isinstance(document, dict):
        raise NotReady(Line("notebook.command-not-json", failed=True, command=shown,
                            text=" ".join(done.stdout.split())[:80]))
    return Printed(document, done.stdout)


# ---------------------------------------------------------------------------------------------------------
# Searching over capacities


def dense_capacities(stop, points=300, include=()):
    """About `points` evenly spaced capacities in [0, stop], plus every capacity in `include`, sorted."""
    step = max(1, stop // points)
    return sorted(set(range(0, stop + 1, step)) | {int(c) for c in include})


def environment():
    """{name: version} for what the notebooks use (None when a package is missing)."""
    versions = {"python": platform.python_version()}
    for package in ("kvlab", "matplotlib", "pandas", "numpy", "ipykernel", "nbclient", "papermill", "nbval"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions
