"""What the lab's notebooks share: the student's modules (reloaded when their files change), one-line
messages instead of tracebacks, the parameters, the artifacts and figures, and computed prose.

Both editions use it. Standard library only (IPython when there is one), and it imports no student
module when it is imported: a syntax error in kvlab/kvsim.py must not stop a notebook from saying so.

    kvsim, scenario, summarize = notebook.setup()   # the first code cell of every notebook
    notebook.require(6)                             # "Finish step 5 first (notebook 04): ..." or True
"""
import ast
import importlib
import linecache
import os
import platform
import re
import sys
import tempfile
import traceback
from importlib import metadata
from pathlib import Path

from . import lab, paths
from .check.driver import within

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
NOTEBOOK_OF_STEP = {1: "01", 2: "02", 3: "02", 4: "03", 5: "04", 6: "04", 7: "05", 8: "06"}
NOT_WRITTEN = re.compile(r"step (\d+) is not written yet: (.+)")  # the stub's message (kvlab release)


class ParameterError(ValueError):
    """A value in a notebook's parameters cell that the notebook cannot use; shown as one line."""

    def _render_traceback_(self):  # IPython shows these lines instead of a traceback; the cell still fails
        return [f"ParameterError: {self}"]


class StudentFileError(Exception):
    """A student file that does not import (a syntax error, say); shown as one line naming file and line."""

    def _render_traceback_(self):
        return [str(self)]


# ---------------------------------------------------------------------------------------------------------
# The student's modules, reloaded when their files change


class StudentModule:
    """Stands for kvlab.NAME: every attribute is looked up in the module as it is now (after a reload)."""

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


def _file(name):
    return KVLAB / f"{name}.py"


def _stamp(name):
    try:
        status = _file(name).stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def load(name):
    """The module kvlab.NAME, imported if it is not yet; a file that does not import raises StudentFileError."""
    qualified = f"kvlab.{name}"
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


def _import_failure(name, error):
    """One line: which file, which line, what went wrong (never a traceback); the file may be one kvlab.NAME imports."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{_student_path(error.filename)}, line {error.lineno}: {type(error).__name__}: {error.msg}"
    where = None
    for frame, number in traceback.walk_tb(error.__traceback__):
        if Path(frame.f_code.co_filename).resolve() in _student_files():
            where = f"{_student_path(frame.f_code.co_filename)}, line {number}"
    return f"{where or f'kvlab/{name}.py'}: {type(error).__name__}: {error}"


def _student_files():
    return {_file(name) for name in STUDENT}


def _student_path(filename):
    path = Path(filename).resolve()
    return f"kvlab/{path.name}" if path in _student_files() else str(filename)


def reload_changed(report=print):
    """Reload each loaded student module whose file changed, and those importing one that was reloaded."""
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
        _stamps[name] = stamp  # a file that fails is reported once, not before every cell
        try:
            importlib.reload(module)
        except Exception as error:
            report(f"{_import_failure(name, error)} (not reloaded: the cells still use the version before)")
            continue
        reloaded.add(name)
    return reloaded


def _imports(module, name):
    """True when `module` holds kvlab.NAME or something defined there (from .kvsim import TwoTierCache)."""
    target = f"kvlab.{name}"
    return any(value is sys.modules.get(target) or getattr(value, "__module__", None) == target
               for value in vars(module).values())


# ---------------------------------------------------------------------------------------------------------
# Setting up a notebook: hooks and one-line messages


class _Session:
    """What the hooks remember between cells."""

    def __init__(self):
        self.cell = ""        # the source of the cell running now
        self.stopped = {}     # name -> the message of the not-written step that kept a cell from defining it
        self.skipped = set()  # ids of exceptions shown as one line; their cells count as run


_session = _Session()


def setup(*names, step=None):
    """Call in each notebook's first code cell: returns the student modules (kvsim, scenario, summarize).

    In IPython it also registers, once: a reload of the student files that changed before each cell, and
    one line instead of a traceback for a step that is not written yet (the cell counts as run, so Run All
    goes on) or for a name that such a cell did not get to define. With `step`, it says which earlier step
    to finish first, if any (require).
    """
    names = names or ("kvsim", "scenario", "summarize")
    unknown = [name for name in names if name not in STUDENT]
    if unknown:
        raise ValueError(f"not a student file: {', '.join(unknown)}")
    shell = _shell()
    if shell is not None and not getattr(shell, "_kvlab_hooks", False):
        shell.events.register("pre_run_cell", _pre_run_cell)
        shell.events.register("post_run_cell", _post_run_cell)
        shell.set_custom_exc((NotImplementedError, NameError), _one_line)
        shell._kvlab_hooks = True
    failures = []
    for name in names:  # import now, so that a file that does not import says so here, once
        try:
            load(name)
        except StudentFileError as error:
            failures.append(str(error))
    for line in dict.fromkeys(failures):  # scenario.py fails too when kvsim.py does: say it once
        print(line, file=sys.stderr)
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
    reload_changed(report=lambda line: print(line, file=sys.stderr))


def _post_run_cell(result):
    # ipykernel reads the result after this hook: a cleared error makes the cell count as run.
    if result is not None and id(result.error_in_exec) in _session.skipped:
        result.error_in_exec = None
    elif result is not None and result.success:
        for name in _bound_names(_session.cell):  # defined now: a later NameError is a real one
            _session.stopped.pop(name, None)
    _session.skipped.clear()


def _one_line(shell, etype, value, tb, tb_offset=None):
    """IPython's handler for NotImplementedError and NameError: one line where the lab expects them."""
    message = None
    if issubclass(etype, NotImplementedError) and _raised_in_student_file(tb):
        message = str(value)
    elif issubclass(etype, NameError) and getattr(value, "name", None) in _session.stopped:
        message = f"{value.name} is not defined: an earlier cell stopped ({_session.stopped[value.name]})"
    if message is None:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
        return None
    print(message, file=sys.stderr)
    step = str(value) if issubclass(etype, NotImplementedError) else _session.stopped[value.name]
    for name in _bound_names(_session.cell):
        _session.stopped[name] = step
    _session.skipped.add(id(value))
    return None


def _raised_in_student_file(tb):
    """True when the innermost frame is in one of the student's files: a stub that is not written yet."""
    frames = list(traceback.walk_tb(tb))
    if not frames:
        return False
    return Path(frames[-1][0].f_code.co_filename).resolve() in _student_files()


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


def _probe_gpu_cliff(kvsim, scenario, summarize):
    scenario.gpu_cliff([8, 12], docs=3, tokens=4)


def _probe_tiers(kvsim, scenario, summarize):
    cache = kvsim.TwoTierCache(4, 8)
    cache.access("a", 4), cache.access("b", 4), cache.access("a", 4), cache.access("a", 4)


def _probe_offload(kvsim, scenario, summarize):
    scenario.run(gpu=4, cpu=12, docs=3, tokens=4, passes=("fwd", "fwd"))


def _probe_cpu_cliff(kvsim, scenario, summarize):
    scenario.cpu_cliff([0, 12], gpu=4, docs=3, tokens=4)


def _probe_summarize(kvsim, scenario, summarize):
    line = '{"config": "%s", "pass": "p", "doc": 0, "doc_tokens": 1, "ttft_ms": 1.0, "total_ms": 2.0}'
    summarize.summarize([summarize.parse_line(line % config) for config in ("baseline", "lmcache")])


PROBES = {1: _probe_lru, 2: _probe_run, 3: _probe_run, 4: _probe_gpu_cliff, 5: _probe_tiers,
          6: _probe_offload, 7: _probe_cpu_cliff, 8: _probe_summarize}


PROBE_SECONDS = 2.0  # the probes take microseconds; a student's endless loop must not hang the setup cell


def not_written(step):
    """The stub message of the first step before `step` whose code is not written yet, or None."""
    modules = [StudentModule(name) for name in ("kvsim", "scenario", "summarize")]
    for earlier in range(1, step):
        try:
            within(PROBE_SECONDS, lambda: PROBES[earlier](*modules))  # too slow: written, the checks will say more
        except NotImplementedError as error:
            if _raised_in_student_file(error.__traceback__):
                return str(error)
        except Exception:  # written but wrong (or too slow): that is for the checks to say, not for require()
            continue
    return None


def require(step):
    """True when the steps before `step` are written; else display which step to finish first, and False."""
    message = not_written(step)
    if message is None:
        return True
    found = NOT_WRITTEN.fullmatch(message)
    if found:
        earlier, what = int(found.group(1)), found.group(2)
        md(f"**Finish step {earlier} first** (notebook {NOTEBOOK_OF_STEP.get(earlier, '?')}): "
           f"{what} is not written yet.")
    else:
        md(f"**Finish an earlier step first**: {message}")
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
                raise ParameterError(f"{name} must be a whole number >= {INTEGERS[name]}, got {_shown_value(value)}")
        elif name in LISTS:
            if not isinstance(value, (list, tuple)):
                hint = f' (pass a list with papermill -y "{name}: [21520, 50110]")' if isinstance(value, str) else ""
                raise ParameterError(f"{name} must be a list of whole numbers, got {_shown_value(value)}{hint}")
            if not value:
                raise ParameterError(f"{name} must hold at least one capacity, got []")
            for item in value:
                if not _whole(item) or item < LISTS[name]:
                    raise ParameterError(f"{name} must hold whole numbers >= {LISTS[name]}, got {_shown_value(item)}")
        elif name in STRINGS:
            if not isinstance(value, str):
                raise ParameterError(f"{name} must be a string (a path, or empty), got {_shown_value(value)}")
        else:
            raise ParameterError(f"unknown parameter {name}")
    return values.pop("ttft", "") == "" and at_lab_defaults(**values)


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _shown_value(value):
    kind = type(value).__name__
    return f"{value!r} (a {kind})" if not _whole(value) else repr(value)


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


OTHER_PARAMETERS = ("not written: these parameters are not the lab's, and {names} {verb} the lab's results "
                    "(run with the default parameters to write {them})")


def save_artifacts(texts, lab_defaults):
    """Write each {name: text or bytes} into the artifacts folder at the lab's defaults only; say what happened."""
    names = " and ".join(texts)
    if not lab_defaults:
        one = len(texts) == 1
        md(OTHER_PARAMETERS.format(names=names, verb="holds" if one else "hold", them="it" if one else "them"))
        return
    folder = paths.out_dir()
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in texts.items():
        write_atomically(folder / name, data)
    md(f"wrote {names} in the artifacts folder")


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
    """Save `fig` as NAME.png in the lab's figures folder, or in figures/other-parameters; print where."""
    folder = paths.figures_dir(lab_defaults)
    folder.mkdir(parents=True, exist_ok=True)
    # No "Software" entry: the bytes do not change with the matplotlib version's name.
    fig.savefig(folder / f"{name}.png", dpi=150, bbox_inches="tight", metadata={"Software": None})
    shown = (folder / f"{name}.png").relative_to(paths.out_dir()).as_posix()
    print(f"saved {shown} in the artifacts folder")
    return folder / f"{name}.png"


# ---------------------------------------------------------------------------------------------------------
# Computed prose and code


class Text:
    """Markdown in a notebook, the same text in plain form (so nbval compares it); never a bare repr."""

    def __init__(self, text, markdown=None):
        self.text, self.markdown = text, markdown if markdown is not None else text

    def _repr_markdown_(self):
        return self.markdown

    def __repr__(self):
        return self.text


def md(text):
    """Display `text` as Markdown (its plain form is the same text)."""
    _display(Text(text))


def show_source(obj):
    """Display the source of a function, property or class as its file holds it now: yours, or the reference."""
    import inspect

    obj = obj.fget if isinstance(obj, property) else obj
    path = Path(inspect.getsourcefile(obj))
    linecache.checkcache(str(path))  # the file may have changed since it was last read
    lines, start = inspect.getsourcelines(obj)
    source = "".join(lines).rstrip("\n")
    where = f"{_shown(path)}, line {start}"
    _display(Text(f"{where}\n{source}", f"`{where}`\n```python\n{source}\n```"))


def _display(value):
    try:
        from IPython.display import display
    except ImportError:
        print(repr(value))
        return
    display(value)


def describe_source(path):
    """Where a TTFT file is (relative to the repository when inside it) and whether it is the stand-in."""
    if paths.is_stand_in(path):
        return (f"{_shown(path)}: the generated STAND-IN, not a measurement "
                "(it reproduces the published figures by construction)")
    return f"{_shown(path)}: a measurement"


def figure_note(path):
    """The line under a figure of TTFT data: which file, and whether it is the stand-in."""
    kind = "the generated stand-in, not a measurement" if paths.is_stand_in(path) else "a measurement"
    return f"data: {_shown(path)}, {kind}"


def _shown(path):
    path = Path(path).resolve()
    try:
        return path.relative_to(paths.REPO).as_posix()
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------------------------------------
# Searching over capacities


def dense_capacities(stop, points=300, include=()):
    """About `points` evenly spaced capacities in [0, stop], plus every capacity in `include`, sorted."""
    step = max(1, stop // points)
    return sorted(set(range(0, stop + 1, step)) | {int(c) for c in include})


def first_capacity(holds, low, high):
    """The smallest capacity in [low, high] for which `holds(capacity)` is true, by binary search.

    `holds` must be monotone (false, ..., false, true, ..., true); None if it never holds.
    """
    if not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def environment():
    """{name: version} for what the notebooks use (None when a package is missing)."""
    versions = {"python": platform.python_version()}
    for package in ("kvlab", "matplotlib", "pandas", "numpy", "ipykernel", "nbclient", "papermill", "nbval"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions
