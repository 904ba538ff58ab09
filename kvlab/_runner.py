"""Inside the sandbox: run the jobs of .kvlab-jobs.json and print one JSON line per job.

Executed as a script by kvlab.sandbox, with the temporary copy of the hand-in folder as the working
directory. A script job runs a student's script as `python script argv...` would (runpy, with
__name__ == "__main__"), capturing its stdout and stderr; a probe job imports the student's module
and runs a kvlab.check function on one of its classes. Student code never writes to this process's
real stdout: that carries the results only.
"""
import os
import sys

sys.path[0] = os.getcwd()  # the student's folder, not kvlab's: `import kvsim` must find theirs

import importlib.util  # noqa: E402 (the path had to be fixed first)
import io  # noqa: E402
import json  # noqa: E402
import runpy  # noqa: E402
import signal  # noqa: E402
import traceback  # noqa: E402
from contextlib import contextmanager  # noqa: E402

FALLBACK_ERRORS = (ImportError, AttributeError, TypeError)  # what the lab's kvsim.py may lack


class Stop(BaseException):
    """A time or output limit: a BaseException, so that `except Exception` in student code lets it through."""


class CappedBytes(io.BytesIO):
    def __init__(self, cap, stream):
        super().__init__()
        self.cap, self.stream = cap, stream

    def write(self, data):
        if self.tell() + len(data) > self.cap:
            raise Stop(f"printed more than {self.cap / 1_000_000:g} MB on {self.stream} (stopped)")
        return super().write(data)

    def close(self):
        pass  # a script that closes sys.stdout must not lose what it printed


def capture(cap, stream):
    return io.TextIOWrapper(CappedBytes(cap, stream), encoding="utf-8", errors="replace", write_through=True)


def captured(wrapper):
    return wrapper.buffer.getvalue().decode("utf-8", "replace")


@contextmanager
def time_limit(seconds, what="timed out"):
    def expire(signum, frame):
        raise Stop(f"{what} after {seconds:g} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def describe(error):
    """One line: the exception, and where in the student's files it was raised."""
    here = os.getcwd()
    if isinstance(error, SyntaxError):
        return f"{type(error).__name__}: {error.msg} ({os.path.basename(error.filename or '?')}, line {error.lineno})"
    where = ""
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename.startswith(here):
            where = f" ({os.path.relpath(frame.filename, here)}, line {frame.lineno})"
    message = str(error).strip().splitlines()
    return f"{type(error).__name__}: {message[0] if message else ''}".rstrip(": ") + where


def forget_student_modules():
    """Drop modules imported from the student's folder, so every run starts from their files."""
    here = os.getcwd()
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) or ""
        if name == "kvsim" or path.startswith(here):
            del sys.modules[name]


def load_reference_kvsim(path):
    spec = importlib.util.spec_from_file_location("kvsim", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["kvsim"] = module


def exit_code(stop, stderr):
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    try:
        print(stop.code, file=stderr)  # what Python prints for SystemExit("message")
    except Stop:
        pass
    return 1


def run_script(job, spec):
    """Run the script once, with the lab's kvsim.py if asked; fall back to the student's own if that fails."""
    attempts = ["reference", "own"] if job["kvsim"] == "reference" else ["own"]
    for attempt in attempts:
        result, error = run_script_once(job, spec, attempt)
        if not (attempt == "reference" and isinstance(error, FALLBACK_ERRORS)):
            break
    result["own_kvsim"] = attempt == "own" and job["kvsim"] == "reference"
    return result


def run_script_once(job, spec, kvsim):
    here, script = os.getcwd(), job["script"]
    for name in job["read"]:
        if os.path.exists(name):
            os.remove(name)
    if not os.path.isfile(script):
        return {"code": None, "stdout": "", "stderr": "", "error": f"{script} is missing", "files": {}}, None
    forget_student_modules()
    if kvsim == "reference":
        load_reference_kvsim(spec["reference_kvsim"])
    out, err = capture(spec["cap"], "stdout"), capture(spec["cap"], "stderr")
    saved = sys.stdout, sys.stderr, sys.argv
    sys.stdout, sys.stderr, sys.argv = out, err, [script, *job["argv"]]
    code, message, raised = 0, "", None
    try:
        with time_limit(spec["timeout"]):
            runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        code = exit_code(stop, err)
    except Stop as stop:
        code, message = None, str(stop)
    except BaseException as error:  # noqa: B902 (whatever the student raised becomes a message)
        code, message, raised = 1, describe(error), error
    finally:
        sys.stdout, sys.stderr, sys.argv = saved
        os.chdir(here)
    stdout, stderr = captured(out), captured(err)
    if code and not message:
        lines = [line.strip() for line in stderr.splitlines() if line.strip()]
        message = f"exited with code {code}" + (f": {lines[-1]}" if lines else "")
    files = {}
    for name in job["read"]:
        try:
            with open(name, "rb") as handle:
                files[name] = handle.read(spec["cap"]).decode("utf-8", "replace")
        except OSError:
            files[name] = None
    result = {"code": code, "stdout": stdout if not message.startswith("printed more") else stdout[:200],
              "stderr": stderr[-2000:], "error": message, "files": files}
    return result, raised


def run_probe(job, spec, imported):
    """kvlab.check.<check>(module.attr), as a report dict; student prints go nowhere."""
    module_name = job["module"]
    sys.path.insert(0, spec["library"])
    try:
        from kvlab import check
    finally:
        sys.path.remove(spec["library"])
    out = capture(spec["cap"], "stdout")
    saved, sys.stdout = sys.stdout, out
    try:
        if module_name not in imported:
            imported[module_name] = import_student(module_name, spec["timeout"])
        module = imported[module_name]
        if isinstance(module, str):
            return {"error": module}
        target = getattr(module, job["attr"], None)
        if target is None:
            return {"error": f"{module_name}.py has no {job['attr']}"}
        # A rule takes microseconds: a short limit per rule keeps a looping cache within the run's time.
        report = getattr(check, job["check"])(target, timeout=min(2.0, spec["timeout"]))
        return {"error": "", "report": report.as_dict()}
    except Stop as stop:
        return {"error": str(stop)}
    finally:
        sys.stdout = saved


def import_student(module_name, timeout):
    """The student's module, or a one-line message saying why it cannot be imported."""
    if not os.path.isfile(module_name + ".py"):
        return f"{module_name}.py is missing"
    forget_student_modules()
    try:
        with time_limit(timeout, f"importing {module_name}.py timed out"):
            return importlib.import_module(module_name)
    except Stop as stop:
        return str(stop)
    except BaseException as error:  # noqa: B902
        return f"importing {module_name}.py failed: {describe(error)}"


def limit_resources():
    try:
        import resource
    except ImportError:
        return
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a huge file write fails instead of killing us
    for limit, value in ((resource.RLIMIT_FSIZE, 64_000_000), (resource.RLIMIT_AS, 4_000_000_000)):
        soft, hard = resource.getrlimit(limit)
        if soft == resource.RLIM_INFINITY or soft > value:
            try:
                resource.setrlimit(limit, (value, hard))
            except (ValueError, OSError):
                pass


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    os.remove(sys.argv[1])
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever the student writes to file descriptor 1 lands on stderr
    sys.dont_write_bytecode = True
    limit_resources()
    imported, hung = {}, ""
    for job in spec["jobs"]:
        if hung:  # one endless run is enough: the rest of the batch would most likely hang too
            result = {"code": None, "stdout": "", "stderr": "", "files": {},
                      "error": f"not run: an earlier run timed out ({hung})"}
        elif job["kind"] == "script":
            result = run_script(job, spec)
            if result["error"].startswith("timed out"):
                hung = " ".join([job["script"], *job["argv"]])
        else:
            result = run_probe(job, spec, imported)
        results.write(json.dumps(result) + "\n")
        results.flush()


if __name__ == "__main__":
    main()
