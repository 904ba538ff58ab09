"""Run a student's code on the jobs of a spec and report raw outcomes: what it returned, printed, raised.

Run as `python -I -S driver.py` in a scratch copy of the student's folder. Its stdin brings lists of
jobs, one JSON line each: {"timeout": seconds per job, "cap": bytes, "jobs": [job, ...], "files":
{name: text} written before the jobs run}; the parent sends the next list only once it has every
result of the one before (so the code of one list never sees the jobs of a later one), and closes
stdin to end. One JSON line per job goes to the stdout this driver keeps for itself, numbered across
the lists; the student's prints go to stderr. Nothing is judged here: the
student's code runs in this process and could forge any verdict, so the parent compares outcomes
with what they should be. The jobs and the outcomes: kvlab/check/run.py and the functions below.
Standard library only, Python >= 3.10. kvlab.check.run imports it too, to run ops on objects of its
own process (run_ops).
"""
import sys

AT_START = set(sys.modules)  # what the interpreter had loaded before this driver imported anything

import builtins  # noqa: E402 (AT_START must come first)
import io  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

# What site loads when a student runs `python script.py` (a hand-in's os.py cannot shadow these).
SITE_MODULES = {"os", "os.path", "posixpath", "genericpath", "stat", "_stat", "_collections_abc",
                "_sitebuiltins", "site"}
STDERR_TAIL = 2_000      # characters of a script's stderr kept in its outcome (the end shows the error)
LONGEST_LIST = 10_000    # items of a returned list (or dict) kept in an outcome
MOST_ITEMS = 100_000     # items of one returned value in all (a list of lists stays small)
DEEPEST = 20             # nesting of a returned value; deeper containers are named, not copied
BIG_INT = 2 ** 63        # JSON readers lose precision beyond this
HUGE_INT_BITS = 4_000    # Python refuses to print an int of more than 4,300 digits (about 14,000 bits)
UTF8_WIDEST = 4          # bytes a character may take
WALL = None              # with a CPU-time limit per job (the spec's "wall"): the seconds of wall time per job
DRIVER_FILE = os.path.abspath(__file__)
STDLIB = os.path.dirname(os.__file__)


class Expired(BaseException):
    """The job's time is up: a BaseException, so that `except Exception` in student code lets it through."""


class Flooded(BaseException):
    """A script printed more than the cap."""


class Missing(Exception):
    """The student's module or object lacks a name an op asks for."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


def within(seconds, work, wall=None):
    """Run work() with at most `seconds` of wall time; True if the time ran out.

    With `wall`, `seconds` is this process's CPU time instead (ITIMER_PROF: a machine busy with
    others' code does not make it expire) and `wall` seconds of wall time a backstop (a sleep).
    One SIGALRM (or SIGPROF) raises Expired in whatever runs then. Code that catches it and carries on still counts
    as timed out; code that swallows it and loops forever is killed by the parent at its deadline.
    Best effort: only in the main thread (elsewhere there is no limit), and Python checks for signals
    only between bytecodes.
    """
    if not seconds or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        work()
        return False
    rang = []

    def ring(signum, frame):
        rang.append(True)
        raise Expired()

    started, outer = time.monotonic(), 0.0
    previous = signal.signal(signal.SIGALRM, ring)
    profiling = signal.signal(signal.SIGPROF, ring) if wall else None
    try:
        try:
            if wall:
                signal.setitimer(signal.ITIMER_PROF, seconds)
            outer, _ = signal.setitimer(signal.ITIMER_REAL, wall or seconds)
            work()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if wall:
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.signal(signal.SIGPROF, profiling)
            signal.signal(signal.SIGALRM, previous)
            if outer:  # someone else's alarm was pending: give it back what is left of it
                signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 0.001))
    except Expired:
        pass
    return bool(rang)


# What happened: exceptions and values, as JSON-safe data.


def raised(error, folder):
    """{"type", "message" (its first line), "where" (file:line in the student's files), "name"}."""
    try:
        lines = str(error).strip().splitlines()
    except Exception:  # noqa: BLE001 (a student's __str__ may fail too)
        lines = []
    name = getattr(error, "name", None) if isinstance(error, ImportError) else None
    return {"type": type(error).__name__, "message": lines[0] if lines else "",
            "where": where(error, folder), "name": name if isinstance(name, str) else None,
            "function": function(error, folder)}


def function(error, folder):
    """The qualified name of the innermost function of `error` in the student's files (LRUCache.access), or None.

    A stub not written yet is found by it: the step table says which step writes which function.
    """
    found = None
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_students(frame.f_code.co_filename, folder):
            found = getattr(frame.f_code, "co_qualname", None)
            if found is None:  # Python 3.10: the class comes from `self`
                owner = frame.f_locals.get("self")
                found = f"{type(owner).__name__}.{frame.f_code.co_name}" if owner is not None else frame.f_code.co_name
        tb = tb.tb_next
    return found


def where(error, folder):
    """file:line of the innermost frame of `error` in the student's files, or None if none ran."""
    found = None
    tb = error.__traceback__
    while tb is not None:
        if is_students(tb.tb_frame.f_code.co_filename, folder):
            found = tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
    if isinstance(error, SyntaxError) and is_students(error.filename or "", folder):
        found = error.filename, error.lineno  # the compiler's frames are not the student's
    if found is None:
        return None
    path, line = found
    shown = os.path.relpath(path, folder) if folder else os.path.basename(path)
    return f"{shown}:{line}"


_judged = {}  # (absolute path, folder) -> is_students(): a pure function of the two, asked for every module each job


def is_students(path, folder):
    """Is `path` one of the student's files: inside `folder`, or (with no folder) anything but the stdlib?"""
    if not path or path == DRIVER_FILE or path.startswith("<frozen"):
        return False
    known = _judged.get((path, folder))
    if known is not None:
        return known
    if folder:
        found = os.path.abspath(path).startswith(folder.rstrip(os.sep) + os.sep)
    else:
        found = not os.path.abspath(path).startswith(STDLIB + os.sep)
    if os.path.isabs(path):  # a relative one depends on the current folder too
        _judged[path, folder] = found
    return found


class Values:
    """Turns returned values into JSON; other objects become {"$type", "$id"}, the id stable within a job."""

    def __init__(self):
        self.ids = {}
        self.kept = []  # the objects named so far: alive, so that their id() is not reused
        self.left = MOST_ITEMS

    def __call__(self, value, depth=0):
        kind = type(value)
        if value is None or kind in (bool, str):
            return value
        if kind is int:
            return value if -BIG_INT <= value < BIG_INT else self.odd(value)
        if kind is float:
            return value if math.isfinite(value) else self.odd(value)
        if depth < DEEPEST and isinstance(value, (list, tuple)):
            return [self(item, depth + 1) for item in self.some(value)]
        if depth < DEEPEST and isinstance(value, dict) and all(type(key) is str for key in value):
            return {key: self(item, depth + 1) for key, item in self.some(value.items())}
        if depth < DEEPEST and type(value) is dict:  # other keys (21520, not "21520"): kept as pairs
            return {"$dict": [[self(key, depth + 1), self(item, depth + 1)] for key, item in self.some(value.items())]}
        if id(value) not in self.ids:
            self.ids[id(value)] = len(self.ids) + 1
            self.kept.append(value)
        return {"$type": kind.__name__, "$id": self.ids[id(value)]}

    def some(self, items):
        """The first items of a container, within what is left of the budget."""
        kept = []
        for item in items:
            if len(kept) >= min(LONGEST_LIST, self.left):
                break
            kept.append(item)
        self.left -= len(kept)
        return kept

    @staticmethod
    def odd(number):
        """A number JSON cannot carry exactly: its type and repr."""
        text = repr(number) if type(number) is float or number.bit_length() < HUGE_INT_BITS else "a huge int"
        return {"$type": type(number).__name__, "$repr": text}


# Ops: calls on objects of the student's module.


def run_ops(namespace, ops, timeout, folder=None, load=None):
    """The outcome of an "ops" job on `namespace` (a module, or a dict name -> object).

    `load`, if given, is called first (within the time limit) and returns the namespace: the import.
    """
    results, found = [], {}

    def work():
        source = namespace
        if load is not None:
            try:
                source = load()
            except Expired:
                raise
            except BaseException as error:  # noqa: B902 (whatever the import raised is the outcome)
                found["import"] = raised(error, folder)
                return
        found["missing"] = run_each(source, ops, folder, results)

    if within(timeout, work, WALL):
        return {"kind": "timeout", "results": results}
    if "import" in found:
        return {"kind": "import", "raised": found["import"]}
    if found["missing"] is not None:
        return {"kind": "missing-attr", "name": found["missing"], "results": results}
    return {"kind": "ok", "results": results}


def run_each(namespace, ops, folder, results):
    """Append one result per op until one raises; the name that was missing, if one was.

    An op's target is "" (the object the last "new" made), "#N" (the object op N made: two caches at once),
    or an attribute of the current object ("gpu").
    """
    values, made = Values(), {}
    for number, op in enumerate(ops):
        try:
            value, extra = one_op(op, namespace, made, folder)
            if op[0] == "new":
                made[""] = made[f"#{number}"] = value
            results.append({"v": values(value), **extra})
        except Missing as missing:
            return missing.name
        except Expired:
            raise
        except BaseException as error:  # noqa: B902 (SystemExit from the student's code is an outcome too)
            results.append({"raised": raised(error, folder)})
            return None
    return None


MISSING = {"$missing": True}  # what "attr?" reports for an attribute the object does not have


def one_op(op, namespace, made, folder):
    """(value, extra result fields) of one op."""
    kind, args = op[0], op[1:]
    if kind in ("new", "fn"):  # a class of the module (the new current object), or a function
        rest, named = list(args[1:]), {}
        if rest and isinstance(rest[-1], dict) and set(rest[-1]) == {"$kwargs"}:
            named = rest.pop()["$kwargs"]
        return member(namespace, args[0], folder)(*rest, **named), {}
    current = made.get("")
    target = made[args[0]] if args[0] in made else attribute(current, args[0], folder)
    if kind == "attr?":  # an optional attribute (hit and miss counters): absent is an answer, not a failure
        try:
            return getattr(target, args[1]), {}
        except AttributeError as error:
            if where(error, folder) is None:
                return MISSING, {}
            raise
    if kind == "fresh":  # keys() twice: a new list each time, or the cache's own list (or a view)?
        first, second = attribute(target, "keys", folder)(), attribute(target, "keys", folder)()
        return [type(first).__name__, first is second], {}
    if kind == "access":
        return attribute(target, "access", folder)(*args[1:]), {}
    if kind == "keys":
        keys = attribute(target, "keys", folder)()
        if isinstance(keys, (list, tuple, str, bytes, dict)) or not hasattr(keys, "__iter__"):
            return keys, {}
        return list(keys), {"listed": type(keys).__name__}  # a view or an iterator: what it lists
    if kind == "used":
        used = attribute(target, "used", folder)
        return (used(), {"callable": True}) if callable(used) else (used, {})
    if kind == "in":
        return args[1] in target, {}
    if kind == "attr":
        return attribute(target, args[1], folder), {}
    if kind == "call":
        return attribute(target, args[1], folder)(*args[2:]), {}
    raise ValueError(f"unknown op {kind!r}")


def member(namespace, name, folder):
    """A class or function of the student's module."""
    if isinstance(namespace, dict):
        if name not in namespace:
            raise Missing(name)
        return namespace[name]
    return attribute(namespace, name, folder)


def attribute(obj, name, folder):
    """getattr(obj, name); Missing if obj simply lacks it (no student code raised the AttributeError)."""
    try:
        return getattr(obj, name)
    except AttributeError as error:
        if where(error, folder) is None:
            raise Missing(name) from None
        raise


def ops_job(job, timeout, folder):
    """An "ops" job on the student's module, imported afresh."""
    name = job["module"]
    if not os.path.isfile(os.path.join(folder, name + ".py")):
        return {"kind": "missing"}
    forget_students_modules(folder)

    def load():
        __import__(name)
        module = sys.modules[name]
        for attribute_name, (source, member_name) in job.get("patch", {}).items():  # a stand-in for a name
            __import__(source)
            setattr(module, attribute_name, getattr(sys.modules[source], member_name))
        return module
    return run_ops(None, job["ops"], timeout, folder, load)


# Scripts: `python script argv...`, as the student would run it.


class Capped(io.RawIOBase):
    """Keeps the first `cap` bytes written; raises Flooded (and remembers it) beyond them."""

    def __init__(self, cap):
        super().__init__()
        self.cap, self.data, self.flooded = cap, bytearray(), False

    def writable(self):
        return True

    def write(self, data):
        room = self.cap - len(self.data)
        self.data += bytes(data[:max(room, 0)])
        if len(data) > room:
            self.flooded = True
            raise Flooded()
        return len(data)

    def text(self):
        return self.data.decode("utf-8", "replace")


class Tail(io.RawIOBase):
    """Keeps the end of what is written."""

    def __init__(self, keep):
        super().__init__()
        self.keep, self.data = keep, bytearray()

    def writable(self):
        return True

    def write(self, data):
        self.data = (self.data + bytes(data))[-self.keep:]
        return len(data)

    def text(self):
        return self.data.decode("utf-8", "replace")[-STDERR_TAIL:]


def stream(raw, errors):
    """A text stream like sys.stdout, writing straight through to `raw`."""
    return io.TextIOWrapper(raw, encoding="utf-8", errors=errors, write_through=True)


def script_job(job, timeout, cap, folder):
    """A "script" job: run the script as __main__ with its argv, capturing what it prints."""
    for name in job.get("read", []):
        if os.path.lexists(name):
            os.remove(name)  # an old copy must not pass for the script's output
    for name, text in job.get("files", {}).items():
        with open(name, "w", encoding="utf-8") as handle:
            handle.write(text)
    if not os.path.isfile(job["script"]):
        return {"kind": "missing", "stdout": "", "stderr": "", "files": {}}
    forget_students_modules(folder)
    out, err = Capped(cap), Tail(UTF8_WIDEST * STDERR_TAIL)
    outcome = {"kind": "ok"}
    saved = sys.stdout, sys.stderr, sys.argv, sys.path[:], sys.modules["__main__"]
    sys.stdout, sys.stderr = stream(out, "strict"), stream(err, "backslashreplace")
    sys.argv = [job["script"], *job.get("argv", [])]

    def work():
        try:
            execute(os.path.join(folder, job["script"]))
        except SystemExit as stop:
            code = exit_status(stop)
            if code:
                outcome.update(kind="exit", code=code)
        except Expired:
            raise
        except BaseException as error:  # noqa: B902 (what the script raised is its outcome)
            outcome.update(kind="crash", raised=raised(error, folder))
            print_traceback(error)

    try:
        expired = within(timeout, work, WALL)
    finally:
        sys.stdout, sys.stderr, sys.argv, sys.path[:], sys.modules["__main__"] = saved
        os.chdir(folder)
    if expired:
        outcome = {"kind": "timeout"}
    elif out.flooded:
        outcome = {"kind": "flood"}
    outcome.update(stdout=out.text(), stderr=err.text(), files=read_back(job.get("read", []), cap))
    return outcome


_compiled = {}  # (path, source) -> code: a script run by many jobs is compiled once, a changed one again


def execute(path):
    """What `python path` does with the file: compile it and run it as the module __main__."""
    with open(path, "rb") as handle:
        source = handle.read()
    code = _compiled.get((path, source))
    if code is None:
        code = _compiled[path, source] = compile(source, path, "exec")
    main = type(sys)("__main__")
    main.__file__, main.__builtins__, main.__cached__ = path, builtins, None
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def exit_status(stop):
    """The exit status Python gives SystemExit(code); a message goes to stderr, as Python prints it."""
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    print(stop.code, file=sys.stderr)
    return 1


def print_traceback(error):
    """The traceback Python would print, without this driver's frames."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == DRIVER_FILE:
        tb = tb.tb_next
    try:
        traceback.print_exception(type(error), error, tb, file=sys.stderr)
    except Exception:  # noqa: BLE001 (a broken __str__ or a flooded stderr: the outcome says enough)
        pass


def read_back(names, cap):
    """{name: the first `cap` bytes of the file as text, or None if the script did not write it}."""
    files = {}
    for name in names:
        try:
            with open(name, "rb") as handle:
                files[name] = handle.read(cap).decode("utf-8", "replace")
        except OSError:
            files[name] = None
    return files


# The process.


def forget_students_modules(folder):
    """Drop the modules imported from the student's folder, so that each job imports their files afresh.

    A module that was there after the last time, the same object under the same name, was judged then
    not to be the student's: only the others are looked at (a hundred modules, before every job)."""
    global _kept
    for name, module in list(sys.modules.items()):
        if _kept.get(name) is module:
            continue
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and is_students(path, folder):  # a module may set __file__ to anything
            del sys.modules[name]
    _kept = dict(sys.modules)


_kept = {}  # sys.modules as forget_students_modules() left it


def memoised_imports(folder):
    """Import the modules of `folder` as Python does, but compile each (path, source) once per process.

    Every job imports the student's modules afresh (forget_students_modules); without the bytecode
    cache (sys.dont_write_bytecode), each import would compile kvsim.py again. The finder of `folder`
    is the one Python makes for a sys.path folder, with a source loader that keeps the code it compiled.
    """
    from importlib import machinery

    class Loader(machinery.SourceFileLoader):
        def source_to_code(self, data, path, *, _optimize=-1):
            key = (path, bytes(data), _optimize)
            code = _compiled.get(key)
            if code is None:
                code = _compiled[key] = super().source_to_code(data, path, _optimize=_optimize)
            return code

    details = [(Loader if loader is machinery.SourceFileLoader else loader, suffixes)
               for loader, suffixes in _supported_loaders()]
    sys.path_importer_cache[folder] = machinery.FileFinder(folder, *details)


def _supported_loaders():
    """(loader, suffixes) as Python's own path hook for folders has them."""
    from importlib import _bootstrap_external
    return _bootstrap_external._get_supported_file_loaders()


def unshadow(folder):
    """Forget the modules this driver imported that a .py file of `folder` shadows (a hand-in's json.py).

    Their code sees those names as they would with `python script.py`: the student's file, not ours.
    """
    names = {name[:-3] for name in os.listdir(folder) if name.endswith(".py")}
    for name in list(sys.modules):
        top = name.partition(".")[0]
        if top in names and name not in AT_START and name not in SITE_MODULES:
            del sys.modules[name]


def next_list(channel, pending):
    """(the next line the parent sent on `channel`, what was read past it); b"" once the parent closed it."""
    while b"\n" not in pending:
        chunk = os.read(channel, 65_536)
        if not chunk:
            return pending, b""
        pending += chunk
    line, _, rest = pending.partition(b"\n")
    return line, rest


def main():
    global WALL
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")  # not inherited by the student's subprocesses
    channel = os.dup(0)  # the parent's lists of jobs (not inherited either)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # a script that reads stdin sees it empty
    os.close(null)
    os.dup2(2, 1)  # whatever the student writes to stdout lands on stderr, never among the results
    folder = os.getcwd()
    sys.path.insert(0, folder)
    sys.dont_write_bytecode = True
    memoised_imports(folder)
    unshadow(folder)
    number, pending = 0, b""
    while True:  # one list of jobs at a time: the parent sends the next once it has every result of this one
        line, pending = next_list(channel, pending)
        if not line.strip():
            break
        spec = json.loads(line)
        WALL = spec.get("wall")  # the parent has a CPU clock for this process: job limits are CPU time too
        for name, text in spec.get("files", {}).items():  # this list's input files (plain names: the parent's)
            with open(os.path.join(folder, name), "w", encoding="utf-8") as file:
                file.write(text)
        for job in spec["jobs"]:
            if job["kind"] == "ops":
                outcome = ops_job(job, spec["timeout"], folder)
            else:
                outcome = script_job(job, spec["timeout"], spec["cap"], folder)
            results.write(json.dumps({"job": number, **outcome}) + "\n")  # ASCII: a lone surrogate is safe
            results.flush()
            number += 1
            if outcome["kind"] in ("timeout", "flood"):
                os._exit(0)  # the rest would most likely hang or flood too: the parent reports them as not run
    os._exit(0)  # no waiting for the student's threads, no atexit handlers of theirs


if __name__ == "__main__":
    main()
