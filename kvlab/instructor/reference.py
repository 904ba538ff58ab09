"""The lab's answers, computed with the reference (the instructor edition): what a case should give, and
what each planted mistake gives.

Reference().want(step, case) runs the case's jobs on the reference modules in this process and reads the
outcomes as the student's are read. explains(step, case, got) names the misconceptions whose planted bug
(the step module's plants(): a piece of one reference function replaced) gives exactly the student's
observation. `kvlab release` stores both for the public cases (kvlab/check/expected.json), so that the
student edition can judge and name mistakes without the reference.
"""
import ast
import atexit
import contextlib
import io
import json
import os
import shutil
import tempfile
import threading
import types
from pathlib import Path

from .. import lab
from ..check import driver
from ..lab.base import digest, key_of, signature

PACKAGE = Path(__file__).resolve().parent.parent
TIMEOUT = 5.0
_LOCK = threading.RLock()   # sys.stdout is this process's: one reference script at a time


def planted_source(plant, source):
    """The reference file's text with the plant's one change inside its function (or class)."""
    tree = ast.parse(source)
    node = _find(tree, plant.qualname.split("."))
    if node is None:
        raise ValueError(f"{plant.file} has no {plant.qualname}")
    lines = source.splitlines(keepends=True)
    start, end = node.lineno - 1, node.end_lineno
    if node.decorator_list:
        start = node.decorator_list[0].lineno - 1
    segment = "".join(lines[start:end])
    olds, news = ((plant.old,), (plant.new,)) if isinstance(plant.old, str) else (plant.old, plant.new)
    for old, new in zip(olds, news):
        if segment.count(old) != 1:
            raise ValueError(f"{plant.file}, {plant.qualname}: the piece to replace is found "
                             f"{segment.count(old)} times, not once: {old!r}")
        segment = segment.replace(old, new)
    return "".join(lines[:start]) + segment + "".join(lines[end:])


def _find(tree, names):
    body = tree.body
    node = None
    for name in names:
        node = next((child for child in body if isinstance(child, (ast.ClassDef, ast.FunctionDef))
                     and child.name == name), None)
        if node is None:
            return None
        body = node.body
    return node


_CODE = {}  # (name, source) -> code object: a planted module is compiled once, run afresh for every job


def load_module(name, source, package="kvlab"):
    """A module made from `source`, whose relative imports (from .kvsim import ...) reach kvlab's own."""
    module = types.ModuleType(name)
    module.__package__ = package
    module.__file__ = str(PACKAGE / f"{name.rpartition('.')[2]}.py")
    code = _CODE.get((name, source))
    if code is None:
        code = _CODE[name, source] = compile(source, module.__file__, "exec")
    module.__source__ = source
    exec(code, module.__dict__)
    return module


class Fresh:
    """A planted module made anew for each job, as the student's process imports their file afresh per job."""

    def __init__(self, name, source, package="kvlab", kvsim=None):
        self.name, self.source, self.package, self.kvsim = name, source, package, kvsim

    def __call__(self):
        if self.kvsim is not None:  # a scenario.py over a kvsim.py made anew: it imports the new one
            import sys
            sys.modules[f"{self.package}.{lab.CLASSES}"] = self.kvsim()
        return load_module(self.name, self.source, self.package)


def reference_modules():
    """{student module name: the reference module}: kvsim, scenario, summarize, policies."""
    import importlib
    return {name: importlib.import_module(f"kvlab.{name}") for name in (*lab.MODULE_NAMES, *lab.EXERCISE_NAMES)}


def run_here(jobs, modules, timeout=TIMEOUT):
    """The outcomes of `jobs` run on `modules` ({name: module, or a Fresh one}) in this process, as the driver
    reports them."""
    outcomes = []
    for job in jobs:
        now = {name: module() if isinstance(module, Fresh) else module for name, module in modules.items()}
        outcomes.append(_ops(job, now, timeout) if job["kind"] == "ops" else _script(job, now))
    return outcomes


def _ops(job, modules, timeout):
    module = modules.get(job["module"])
    if module is None:
        return {"kind": "missing"}
    if job.get("patch"):  # a stand-in for a name (the reference LRUCache under a student's TwoTierCache)
        module = load_module(f"_patched_{job['module']}", getattr(module, "__source__", None)
                             or Path(module.__file__).read_text(encoding="utf-8"))
        for name, (source, member) in job["patch"].items():
            setattr(module, name, getattr(modules[source], member))
    return driver.run_ops(module, job["ops"], timeout, str(PACKAGE))


_SCRATCH = threading.local()  # one scratch folder per thread, for the files a reference script reads and writes


def _scratch():
    folder = getattr(_SCRATCH, "folder", None)
    if folder is None or not os.path.isdir(folder):
        memory = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        folder = _SCRATCH.folder = tempfile.mkdtemp(prefix="kvlab-reference-", dir=memory)  # files in memory
        atexit.register(shutil.rmtree, folder, True)
    return folder


def _script(job, modules):
    """`python script argv` on a reference module: its main(argv), stdout captured, files in a scratch folder."""
    module = modules.get(job["script"][:-3])
    if module is None:
        return {"kind": "missing", "stdout": "", "stderr": "", "files": {}}
    scratch = _scratch()
    names = {*job.get("files", {}), *job.get("read", [])}
    for name in job.get("read", []):
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(scratch, name))
    for name, text in job.get("files", {}).items():
        Path(scratch, name).write_text(text, encoding="utf-8")
    argv = [os.path.join(scratch, arg) if arg in names else arg for arg in job.get("argv", [])]
    out, err = io.StringIO(), io.StringIO()
    outcome = {"kind": "ok"}
    with _LOCK, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            module.main(argv)
        except SystemExit as stop:
            code = driver.exit_status(stop)
            if code:
                outcome = {"kind": "exit", "code": code}
        except Exception as error:  # noqa: BLE001 (a planted bug may raise: that is its outcome)
            outcome = {"kind": "crash", "raised": driver.raised(error, None)}
    files = {}
    for name in job.get("read", []):
        path = Path(scratch, name)
        files[name] = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    return {**outcome, "stdout": out.getvalue(), "stderr": err.getvalue()[-2000:], "files": files}


class Reference:
    """Answers computed now with the reference, and the planted bugs' outcomes; both remembered per case."""

    can_shrink = True

    def __init__(self, modules=None):
        self.modules = modules or reference_modules()
        self.memo, self.planted, self.lock = {}, {}, threading.Lock()

    def want(self, step, case):
        """What the lab's rules give for `case`: the reference's observation (or, for a step that computes its
        answer, such as step 8's statistics with every right rounding, that answer)."""
        if hasattr(step.module, "expect"):
            return self._memo(("expect", key_of(step.number, case)), lambda: step.module.expect(case))
        return self.observed(step, case)

    def observed(self, step, case):
        """What the reference does on `case`, read as a student's run is read."""
        module = step.module
        return self._memo(("run", key_of(step.number, case)),
                          lambda: module.observe(case, run_here(module.jobs(case), self.modules)))

    def _memo(self, key, compute):
        with self.lock:
            if key in self.memo:
                return self.memo[key]
        found = json.loads(json.dumps(compute()))  # as the student's arrive: JSON
        with self.lock:
            self.memo[key] = found
        return found

    def plant_modules(self, step):
        """[(misconception, {module name: planted module})] for every plant of the steps written in the step's
        file (a later step's mistake can show in an earlier step's cases: it is then that step's to pay)."""
        with self.lock:
            if step.number in self.planted:
                return self.planted[step.number]
        found = []
        for name, plants in lab.plants_of(step.file).items():
            for number, plant in enumerate(plants):
                stem = plant.file[:-3]
                source = planted_source(plant, Path(self.modules[stem].__file__).read_text(encoding="utf-8"))
                modules = dict(self.modules)
                made = Fresh(f"_plant_{stem}_{name.replace('-', '_')}_{number}", source)
                modules[stem] = made if plant.fresh else made()  # a module made anew per job where state matters
                found.append((name, modules))
        with self.lock:
            self.planted[step.number] = found
        return found

    def planted_observations(self, step, case):
        """[(misconception, what its plant gives on `case`)], each plant of the step (remembered)."""
        key = key_of(step.number, case)
        found = []
        for number, (name, modules) in enumerate(self.plant_modules(step)):
            found.append((name, self._memo(("plant", number, key), lambda: step.module.observe(
                case, run_here(step.module.jobs(case), modules)))))
        return found

    def explains(self, step, case, got, optional=frozenset()):
        mine = signature(step, case, got, optional)
        if mine == signature(step, case, self.observed(step, case), optional):
            return []  # it does what the lab's rules do here: nothing to explain
        found = []
        for name, obs in self.planted_observations(step, case):
            if name not in found and signature(step, case, obs, optional) == mine:
                found.append(name)
        return found


def stored(steps, expect=None):
    """What the student edition keeps for its public cases: {"want": {case key: observation}, "signs": {case key:
    {misconception: [digests]}}} (kvlab/check/expected.json)."""
    from ..check.engine import family
    expect = expect or Reference()
    wants, signs = {}, {}
    for step in steps:
        for case in family(step, None, False):
            key = key_of(step.number, case)
            if not all(rule.own for rule in step.rules if case["kind"] in rule.kinds):
                wants[key] = expect.want(step, case)
            planted = {}
            every = frozenset(rule.id for rule in step.rules if rule.optional is not None)
            for optional in (frozenset(), every):  # code without the optional features, and with them
                right = signature(step, case, expect.observed(step, case), optional)
                for name, obs in expect.planted_observations(step, case):
                    mine = signature(step, case, obs, optional)
                    if mine != right:
                        planted.setdefault(name, set()).add(digest(mine))
            if planted:
                signs[key] = {name: sorted(values) for name, values in planted.items()}
    return {"want": wants, "signs": signs}


def _package(name, kvsim):
    """A package of this process whose kvsim module is `kvsim`: where a hand-in's scenario.py is loaded."""
    import sys
    holder = types.ModuleType(name)
    holder.__path__ = []
    sys.modules.setdefault(name, holder)
    sys.modules[f"{name}.{lab.CLASSES}"] = kvsim
    return name


def on_kvsim(modules, kvsim):
    """The hand-in's modules with its commands (scenario.py) loaded anew on `kvsim` (the reference's standing in)."""
    modules = {**modules, lab.CLASSES: kvsim}
    for name in lab.COMMANDS:
        command = modules[name]
        source = command.source if isinstance(command, Fresh) else getattr(command, "__source__", None) \
            or Path(command.__file__).read_text(encoding="utf-8")
        package = _package(f"_kvlab_on_{abs(hash((source, id(kvsim))))}", kvsim)
        modules[name] = load_module(f"{package}.{name}", source, package=package)
    return modules


def handin_modules(plant=None):
    """{module name: module} of a whole hand-in made of the reference and, if given, one planted mistake:
    its scenario.py runs on its own kvsim.py (planted or not), as a student's does. For this process only
    (the tests and the table of what each mistake costs): trusted code, never a student's."""
    modules = dict(reference_modules())
    if plant is None:
        return modules
    import sys
    stem = plant.file[:-3]
    source = planted_source(plant, Path(modules[stem].__file__).read_text(encoding="utf-8"))
    package = _package(f"_kvlab_handin_{abs(hash((plant.file, plant.qualname, str(plant.old))))}",
                       modules[lab.CLASSES])
    planted = load_module(f"{package}.{stem}", source, package=package)
    sys.modules[f"{package}.{stem}"] = planted
    modules[stem] = Fresh(f"{package}.{stem}", source, package) if plant.fresh else planted
    if stem == lab.CLASSES:  # scenario.py imports the hand-in's own kvsim.py
        fresh = modules[stem]
        modules = on_kvsim(modules, planted)
        if plant.fresh:  # both made anew for every job, as a student's process imports them
            for name in lab.COMMANDS:
                command = modules[name]
                modules[name] = Fresh(command.__name__, command.__source__, command.__package__, kvsim=fresh)
        modules[stem] = fresh
    return modules
