"""kvlab grade: hostile and batch-breaking hand-ins, each graded exactly, changing nothing outside.

Every folder is the reference hand-in (`kvlab handin`) with one change, built here in a temporary
folder. The hostile folders are graded in one sandboxed batch and the broken ones in another
(grade_all, two at a time, a 2 s time limit); the assertions read the grades those two calls
return. The rest runs in this process without the sandbox: the cache, Ctrl-C, the measured file,
and the command's output formats.
"""
import csv
import hashlib
import importlib.machinery
import io
import json
import os
import re
import socket
import sys
import textwrap
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest

from helpers import summary_of
from kvlab import cli, handin, lab, paths, records, summarize
from kvlab.check import conversation, engine, labsteps
from kvlab.check.report import Row
from kvlab.i18n import Msg
from kvlab.instructor import artifacts, batch, grade, gradebook, judge, layout, sandbox
from kvlab.instructor.reference import Reference as Live

KVLAB = Path(grade.__file__).resolve().parent.parent
AVAILABLE, WHY = sandbox.available()
needs_bwrap = pytest.mark.skipif(not AVAILABLE, reason=WHY)
TIMEOUT = batch.DEFAULT_TIMEOUT  # the grader's own limit: a CPU second per run
EXTENSION = "kvsim" + importlib.machinery.EXTENSION_SUFFIXES[0]  # what `import kvsim` would load before kvsim.py
EMPTY_CLASSES = "class LRUCache:\n    pass\n\n\nclass TwoTierCache:\n    pass\n"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """{file name: bytes} of a correct hand-in."""
    folder, written = tmp_path_factory.mktemp("reference"), tmp_path_factory.mktemp("artifacts")
    artifacts.write(written)
    handin.handin(folder, artifacts=written)  # `kvlab artifacts`, then `kvlab handin`: the reference hand-in
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def build(root, name, reference, changes=None):
    """The reference hand-in in root/name, marked with its name (so no two folders are alike), then `changes`.

    A change maps a file name to its new text, to a function of its old text, or to None (delete it).
    """
    folder = Path(root) / name
    folder.mkdir()
    for file, data in reference.items():
        (folder / file).write_bytes(data)
    with open(folder / "kvsim.py", "a") as kvsim:
        kvsim.write(f"\nHANDED_IN_BY = {name!r}\n")
    for file, change in (changes or {}).items():
        path = folder / file
        if change is None:
            path.unlink()
        else:
            text = change(path.read_text()) if callable(change) else change
            path.write_bytes(text if isinstance(text, bytes) else textwrap.dedent(text).encode())
    return folder


def replaced(old, new):
    """A change that replaces `old` (which must be there) by `new`."""
    def change(text):
        assert old in text, old
        return text.replace(old, new)
    return change


def tree(folder):
    """{relative path: content hash or link target} of everything under `folder`, links not followed."""
    found = {}
    for place, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if name != "__pycache__"]
        for name in files:
            path = Path(place, name)
            found[str(path.relative_to(folder))] = (os.readlink(path) if path.is_symlink()
                                                    else hashlib.sha256(path.read_bytes()).hexdigest())
    return found


def living(marker):
    """Processes (zombies aside) with `marker` in their command line, or run by this grader's sandbox uids."""
    lowest = sandbox.OUTSIDE_UID_BASE + (os.getpid() % sandbox.HIGHEST_PID) * sandbox.WORKERS
    found = []
    for entry in os.scandir("/proc"):
        try:
            if not entry.name.isdigit() or Path(entry.path, "stat").read_text().rpartition(")")[2].split()[0] == "Z":
                continue
            mine = os.geteuid() == 0 and lowest <= entry.stat().st_uid < lowest + sandbox.WORKERS
            if mine or marker.encode() in Path(entry.path, "cmdline").read_bytes():
                found.append(entry.name)
        except OSError:
            pass  # it has just ended
    return found


def outputs(grades):
    """Everything the grader can print or write about these grades: text, table, JSON and CSV."""
    return "\n".join([*map(str, grades), gradebook.table(grades), json.dumps([g.as_dict() for g in grades]),
                      gradebook.csv_text(grades)])


def first_failure(result, step):
    return result.steps[step].failures[0]


# --- hostile hand-ins ----------------------------------------------------------------------------------

FORGE_JUDGE = textwrap.dedent("""
    import sys
    sys.path[:0] = [{repo!r}]
    try:  # the judge is not in this process any more: there is nothing to rewrite
        from kvlab.check import judging
        from kvlab.check.report import Row
        judging.judge = lambda rule, outcome, oracle: Row(rule.text, True)
    except ImportError:
        pass
""")

FORGE_PIPE = textwrap.dedent("""
    import json, os, sys
    frame, stream, spec = sys._getframe(), None, None
    while frame:  # up to the driver's main(): its result stream and the jobs
        if "results" in frame.f_locals and "spec" in frame.f_locals:
            stream, spec = frame.f_locals["results"], frame.f_locals["spec"]
        frame = frame.f_back
    if stream is not None:
        answers = {{"new": {{"$type": "LRUCache", "$id": 1}}, "access": False, "keys": [], "used": 0, "in": False}}
        for number, job in enumerate(spec["jobs"]):
            if job["kind"] == "ops":
                line = {{"kind": "ok", "results": [{{"v": answers.get(op[0])}} for op in job["ops"]]}}
            else:
                line = {{"kind": "ok", "stdout": '{{"passes": []}}', "stderr": "", "files": {{}}}}
            stream.write(json.dumps({{"job": number, **line}}) + "\\n")
        stream.flush()
        os._exit(0)
""")

PEEKS = textwrap.dedent("""\
    import sys as _sys
    _frame, _jobs = _sys._getframe(), None
    while _frame:  # up to the driver's main(): the jobs it holds now
        _spec = _frame.f_locals.get("spec")
        _jobs = _spec["jobs"] if isinstance(_spec, dict) else _jobs
        _frame = _frame.f_back
    if _jobs is not None:
        raise ValueError(f"peeks {len(_jobs)} jobs")
""")

FORGE_JSON = textwrap.dedent("""
    '''json.py: takes the place of the driver's json module, so that every result line is forged.'''
    import sys

    def dumps(value, *args, **kwargs):
        if isinstance(value, dict) and "job" in value and "kind" in value:
            if "stdout" in value:
                return '{{"job": %d, "kind": "ok", "stdout": "{{}}", "stderr": "", "files": {{}}}}' % value["job"]
            return '{{"job": %d, "kind": "ok", "results": []}}' % value["job"]
        return "{{}}"

    def loads(text, *args, **kwargs):
        return {{}}

    frame = sys._getframe()
    while frame:
        if frame.f_globals.get("__file__", "").endswith("driver.py"):
            frame.f_globals["json"] = sys.modules[__name__]
        frame = frame.f_back
""")

ESCAPE = textwrap.dedent("""
    import json, os, resource, socket, sys, time
    STATUS = "escape-status.json"

    def attempt(action):  # what happened, short: a report shows the first 160 characters of a message
        try:
            return action() or "done"
        except BaseException as error:
            return "".join(char for char in type(error).__name__ if char.isupper())

    def write(path):
        with open(path, "a") as handle:
            handle.write("# escaped: always pass\\n")

    def connect():
        socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
        return "connected"

    def daemon():
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, 4096)
                os.execv(sys.executable, [sys.executable, "-c", "import time\\nopen('alive', 'w').close()\\n"
                                          "while True: time.sleep(0.05)", {marker!r}])
            os._exit(0)
        os.wait()
        for _ in range(200):
            if os.path.exists("alive"):
                return "running"
            time.sleep(0.01)
        return "not seen"

    def big():
        written = 0
        try:
            with open("big.bin", "wb") as handle:
                for _ in range(300):
                    handle.write(b"x" * 1_000_000)
                    handle.flush()
                    written += 1_000_000
        except OSError:
            pass
        os.remove("big.bin")
        return written

    def secrets():
        found = [value for value in os.environ.values() if "kvlab-secret" in value]
        for path in ["/etc/shadow", *("/proc/%s/environ" % pid for pid in os.listdir("/proc") if pid.isdigit())]:
            try:
                with open(path, "rb") as handle:
                    found += [part.decode() for part in handle.read().split(b"\\0") if b"kvlab-secret" in part]
            except OSError:
                pass
        return found

    if not os.path.exists(STATUS):  # once per process
        status = {{label: attempt(lambda path=path: write(path)) for label, path in {targets!r}.items()}}
        status.update(net=attempt(connect), daemon=attempt(daemon), secret=len(secrets()), big=big(),
                      limit=attempt(lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (-1, -1))))
        with open(STATUS, "w") as handle:
            json.dump(status, handle)
    with open(STATUS) as handle:
        status = json.load(handle)
    raise RuntimeError("escape " + " ".join(f"{{label}}={{value}}" for label, value in status.items()))
""")


def unchecked_pyc(source):
    """A __pycache__ entry of `source` that Python loads for kvsim.py whatever kvsim.py holds (never checked)."""
    import importlib._bootstrap_external as external  # how py_compile writes one
    return external._code_to_hash_pyc(compile(source, "kvsim.py", "exec"), b"\0" * 8, checked=False)


def halved(data):
    lines = []
    for line in data.decode().splitlines():
        record = json.loads(line) if line.strip() else None
        if record:
            record["ttft_ms"] = round(record["ttft_ms"] / 2, 1)
        lines.append(json.dumps(record) if record else line)
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def hostile(reference, tmp_path_factory):
    """The hostile batch graded: the grades, and what changed or still runs outside the scratch copies."""
    root = tmp_path_factory.mktemp("hostile")
    marker = f"kvlab-escape-{uuid.uuid4().hex}"
    secret = f"kvlab-secret-{uuid.uuid4().hex}"
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    sibling = build(root, "sibling", reference)
    outside = {"sibling": sibling / "scenario.py", "home": Path.home() / marker, "tmp": Path("/tmp") / marker,
               "judge": KVLAB / "check" / "judging.py", "package": KVLAB / marker, "own": root / "escape" / "kvsim.py"}
    compiled = unchecked_pyc(reference["kvsim.py"])  # the reference, in forge-so's __pycache__
    folders = {
        "forge-judge": build(root, "forge-judge", reference,
                             {"kvsim.py": FORGE_JUDGE.format(repo=str(KVLAB.parent)) + EMPTY_CLASSES}),
        "forge-pipe": build(root, "forge-pipe", reference, {"kvsim.py": FORGE_PIPE.format() + EMPTY_CLASSES}),
        "forge-json": build(root, "forge-json", reference,
                            {"kvsim.py": "import json\n" + EMPTY_CLASSES, "json.py": FORGE_JSON.format()}),
        "forge-so": build(root, "forge-so", reference, {
            "kvsim.py": EMPTY_CLASSES, EXTENSION: b"\x7fELF\x02\x01\x01" + bytes(57)}),
        "imports-reference": build(root, "imports-reference", reference, {
            "kvsim.py": f"import sys\nsys.path[:0] = [{str(KVLAB.parent)!r}]\nfrom kvlab.kvsim import *\n",
            "scenario.py": f"import runpy\nrunpy.run_path({str(KVLAB / 'scenario.py')!r}, run_name='__main__')\n",
            "summarize.py": f"exec(open({str(KVLAB / 'summarize.py')!r}).read())\n"}),
        "escape": build(root, "escape", reference, {"summarize.py": ESCAPE.format(
            port=listener.getsockname()[1], marker=marker, targets={k: str(v) for k, v in outside.items()})}),
        "sibling": sibling,
        # attack 2: a large .py file that nothing imports (the grader must not parse it)
        "big-extra": build(root, "big-extra", reference, {"extra.py": "x = 1\n" * 400_000}),
        # attack 8: an exception whose message carries the case it ran on (hidden cases must not reach a report)
        "leaky": build(root, "leaky", reference, {"kvsim.py": lambda text: text.replace(
            "        if key in self._sizes:\n            self._sizes.move_to_end(key)",
            "        if isinstance(key, int) and key > 6:\n            raise ValueError(f'leak-{key}-{size}')\n"
            "        if key in self._sizes:\n            self._sizes.move_to_end(key)")}),
        # attack 8 again: a public run that looks for the jobs its process holds, and says how many it saw
        "peeks": build(root, "peeks", reference, {"scenario.py": lambda text: PEEKS + text}),
        # attack 7: halved TTFTs with their own matching summary, while no course measurement is set
        "halved": build(root, "halved", reference, {"ttft.jsonl": halved(reference["ttft.jsonl"])}),
        # honest but chatty and slow: they keep full marks beside the attacks
        "chatty": build(root, "chatty", reference, {"scenario.py": lambda text: text.replace(
            "    args = parser.parse_args(argv)\n",
            "    args = parser.parse_args(argv)\n    print('progress ' * 20_000, file=sys.stderr)\n")}),
        "slow": build(root, "slow", reference, {"summarize.py": lambda text: text.replace(
            "    args = parser.parse_args(argv)\n", "    args = parser.parse_args(argv)\n    import time\n"
            "    time.sleep(0.05)\n")}),
        # attack 12: two names that print alike
        "twin?": build(root, "twin?", reference),
        "twin\n": build(root, "twin\n", reference),
    }
    folders["halved"].joinpath("measured.json").write_text(summary_of(folders["halved"] / "ttft.jsonl"))
    (folders["forge-so"] / "__pycache__").mkdir()
    (folders["forge-so"] / "__pycache__" / f"kvsim.{sys.implementation.cache_tag}.pyc").write_bytes(compiled)
    before = {name: tree(folder) for name, folder in folders.items()}
    package = tree(KVLAB)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("KVLAB_TEST_SECRET", secret)
            grades, interrupted = batch.grade_all(list(folders.values()), timeout=TIMEOUT, jobs=2)
        try:
            listener.accept()
            connected = True
        except BlockingIOError:
            connected = False
        return SimpleNamespace(
            grades=dict(zip(folders, grades)), interrupted=interrupted, secret=secret, connected=connected,
            changed=[name for name, folder in folders.items() if tree(folder) != before[name]],
            package_changed=tree(KVLAB) != package, living=living(marker), output=outputs(grades),
            escaped=[str(outside[label]) for label in ("home", "tmp", "package") if outside[label].exists()])
    finally:
        listener.close()
        for label in ("home", "tmp", "package"):
            if outside[label].exists():
                outside[label].unlink()


@needs_bwrap
class TestHostileHandIns:
    def test_honest_hand_ins_beside_the_attacks_keep_full_marks(self, hostile):
        for name in ("sibling", "chatty", "slow", "big-extra", "twin?"):
            assert hostile.grades[name].score == 8, str(hostile.grades[name])

    def test_a_large_file_nothing_imports_costs_nothing_and_changes_nothing(self, hostile):
        assert hostile.grades["big-extra"].score == 8, str(hostile.grades["big-extra"])

    def test_a_public_run_never_holds_a_hidden_case_it_could_print(self, hostile):
        step = lab.STEPS[2]
        public, secret = (len(engine._jobs(step, engine.family(step, 0, hidden, {}))[0]) for hidden in (False, True))
        said = {int(count) for count in re.findall(r"peeks (\d+) jobs", str(hostile.grades["peeks"]))}
        assert said and secret and all(count <= public for count in said)  # public jobs only: never a hidden one

    def test_a_hidden_cases_exception_message_never_reaches_a_report(self, hostile):
        leaky = hostile.grades["leaky"]
        assert [number for number, report in leaky.steps.items() if not report.passed] == [1]
        hidden = [row for row in leaky.steps[1].rows if not row.ok]
        assert str(hidden[0].hint).endswith(str(Msg("seen.case-hidden")))  # it fails where nothing is shown
        assert "leak-" not in "".join(str(row.hint) for row in hidden)
        assert "seed" not in hostile.output

    def test_a_measurement_not_compared_with_the_courses_says_so(self, hostile):
        halved = hostile.grades["halved"]
        assert halved.steps[8].note is not None and halved.steps[8].note.id == "grade.ttft-not-compared"
        assert "not compared" in str(halved)

    def test_names_that_print_alike_are_told_apart(self, hostile):
        table = gradebook.table([hostile.grades["twin?"], hostile.grades["twin\n"]])
        assert "twin?" in table and "twin\\n" in table and "\ntwin" not in table.replace("\n", "", 1)

    def test_forgeries_fail_steps_1_and_5(self, hostile):
        for name in ("forge-judge", "forge-pipe", "forge-json", "forge-so"):
            result = hostile.grades[name]
            assert not result.error, name
            assert not result.steps[1].passed and not result.steps[5].passed, (name, str(result))
            assert result.score <= 6, (name, str(result))  # scenario.py and summarize.py are the reference's: fair scoring

    def test_a_forged_result_stream_is_judged_as_data_and_fails(self, hostile):
        forged = hostile.grades["forge-pipe"]
        assert forged.steps[1].misconceptions == ["protocol"]  # the forged lines were read as data, and refused
        assert forged.steps[8].passed  # summarize.py does not import kvsim: its process was not forged

    def test_a_json_py_and_compiled_modules_do_not_reach_the_driver(self, hostile):
        forged = hostile.grades["forge-json"]
        assert forged.flags["shadows-stdlib"] == "json.py"
        assert {number: report.passed for number, report in forged.steps.items()} == {
            number: number in (3, 4, 7) for number in lab.NUMBERS}  # every script fails; its saved files hold
        assert all(report.misconceptions == ["shadows-stdlib"] for number, report in forged.steps.items()
                   if number in (1, 2, 5, 8))
        so = hostile.grades["forge-so"]
        assert so.flags["compiled"] == f"__pycache__, {EXTENSION}"
        assert "import-failed" not in so.steps[1].misconceptions  # the .so was never loaded: kvsim.py was
        assert so.steps[8].passed

    def test_importing_or_copying_the_reference_fails(self, hostile):
        result = hostile.grades["imports-reference"]
        # every step of code fails; baseline.json, a saved file alone, is what the lab's command makes
        assert [number for number, report in result.steps.items() if report.passed] == [3], str(result)
        assert result.steps[1].misconceptions == ["not-allowed-import"]  # kvlab is no module of the lab's
        assert "ModuleNotFoundError" in str(first_failure(result, 1).hint) and "kvlab" in str(first_failure(result, 1).hint)
        assert "FileNotFoundError" in str(first_failure(result, 8).hint)

    def test_escapes_fail_inside_and_change_nothing_outside(self, hostile):
        escape = hostile.grades["escape"]
        assert [number for number, report in escape.steps.items() if not report.passed] == [8]
        said = re.search(r"escape ((?:\w+=\w+ ?)+)", str(first_failure(escape, 8).hint)).group(1)
        status = dict(part.split("=") for part in said.split())
        assert status["tmp"] == "done"  # its private /tmp
        assert all(status[label] in ("FNFE", "PE", "OSE")  # FileNotFoundError, PermissionError, OSError
                   for label in ("sibling", "home", "judge", "package", "own")), status
        assert status["net"] == "CRE" and status["daemon"] == "running"  # ConnectionRefusedError
        assert status["secret"] == "0" and status["limit"] == "VE"  # ValueError
        assert int(status["big"]) <= sandbox.FILE_SIZE_LIMIT
        assert hostile.changed == [] and not hostile.package_changed and hostile.escaped == []
        assert not hostile.connected
        assert hostile.living == []

    def test_the_sibling_folder_still_passes_and_the_secret_is_nowhere(self, hostile):
        assert hostile.grades["sibling"].score == 8, str(hostile.grades["sibling"])
        assert not hostile.interrupted
        assert hostile.secret not in hostile.output
        assert "kvlab-secret" not in hostile.output


# --- inputs that used to break the batch ---------------------------------------------------------------

LOOP = replaced("    if docs < 1:\n", "    while True:\n        pass\n    if docs < 1:\n")
JSON_HELPER = textwrap.dedent('''
    """My helpers for the lab."""


    def load_lines(path):
        with open(path) as handle:
            return [line for line in handle if line.strip()]


    def fmt(value):
        return f"{value:.1f}"
''')
ESCAPES = replaced('        return "miss"\n',
                   '        import sys\n        print("\\x1b[2J\\x1b[31mred", file=sys.stderr)\n'
                   '        raise ValueError("\\x1b[31mred\\u202e\\x07\\rdone")\n')


@pytest.fixture(scope="module")
def broken(reference, tmp_path_factory):
    """{folder name: Grade} for one batch of every broken input, and the batch's grades in order."""
    root = tmp_path_factory.mktemp("broken")
    ttft = reference["ttft.jsonl"]
    huge = "1" + "0" * 5000
    changes = {
        "endless": {"scenario.py": LOOP},  # first: its time limit passes while the others are graded
        "bom": {"ttft.jsonl": b"\xef\xbb\xbf" + ttft},
        "truncated": {"ttft.jsonl": ttft.rstrip()[:-10]},
        "huge": {"cliff.json": f'{{"21520": {huge}}}\n',
                 "ttft.jsonl": re.sub(rb'"ttft_ms": [0-9.]+', f'"ttft_ms": {huge}'.encode(), ttft, count=1)},
        "deep": {"baseline.json": "[" * 100_000 + "]" * 100_000,
                 "measured.json": '{"a": ' * 50_000 + "1" + "}" * 50_000},
        "moving": {},
        "symlinks": {"kvsim.py": None, "measured.json": None},
        "many-files": {},
        "json-helper": {"json.py": JSON_HELPER},
        "escape-codes": {"kvsim.py": ESCAPES},
        "attribute-error": {"kvsim.py": replaced("        self._sizes[key] = size\n",
                                                 "        self._store[key] = size\n")},
        "own-timeout": {"kvsim.py": replaced("            return False  # evicting",
                                             "            raise TimeoutError('took too long')  # evicting")},
        "correct-a": {},
    }
    folders = [build(root, name, reference, change) for name, change in changes.items()]
    folders.append(root / "correct-b")
    folders[-1].mkdir()
    for path in folders[-2].iterdir():  # the same scripts as correct-a
        (folders[-1] / path.name).write_bytes(path.read_bytes())
    (root / "symlinks" / "kvsim.py").symlink_to(KVLAB / "kvsim.py")  # the reference, outside the folder
    (root / "symlinks" / "measured.json").symlink_to("/etc/passwd")
    (root / "one.py").touch()
    for number in range(10_000):
        os.link(root / "one.py", root / "many-files" / f"a{number:05}.py")  # far quicker than new files
    read_one, snapshot = sandbox._read_one, sandbox.snapshot

    def vanishing(entry, flags):  # summarize.py is deleted while the folder is being copied
        if entry.path == str(root / "moving" / "summarize.py"):
            os.unlink(entry.path)
        return read_one(entry, flags)

    def then_appearing(folder, dest):  # and once it is copied, files appear and change
        found = snapshot(folder, dest)
        if Path(folder) == root / "moving":
            (root / "moving" / "json.py").write_text("dumps = None\n")
            (root / "moving" / "kvsim.py").write_text("raise SystemExit('changed too late')\n")
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sandbox, "_read_one", vanishing)
        patch.setattr(sandbox, "snapshot", then_appearing)
        grades, interrupted = batch.grade_all(folders, timeout=TIMEOUT, jobs=2)
    assert not interrupted
    return {folder.name: result for folder, result in zip(folders, grades)}, grades


# A kvsim.py that fails costs its own steps only: scenario.py is graded on the reference kvsim.py, and a saved
# file holds if it is what the student's command makes on it (fair scoring); json.py costs every script's steps.
SCORES = {"endless": 4, "bom": 8, "truncated": 7, "huge": 6, "deep": 6, "moving": 7, "symlinks": 5, "many-files": 8,
          "json-helper": 5, "escape-codes": 7, "attribute-error": 7, "own-timeout": 7, "correct-a": 8, "correct-b": 8}


@needs_bwrap
class TestBrokenInputs:
    def test_every_folder_has_its_row_and_score(self, broken):
        by_name, grades = broken
        assert [result.folder for result in grades] == [str(Path(grades[0].folder).parent / name) for name in SCORES]
        assert {name: result.score for name, result in by_name.items()} == SCORES, \
            "\n\n".join(str(result) for result in grades)
        assert not any(result.error for result in grades)

    def test_the_measured_file_with_a_bom_is_read_and_a_cut_one_is_named(self, broken):
        by_name, _ = broken
        cut = first_failure(by_name["truncated"], 8)
        assert cut.rule_id == "ttft.file" and cut.misconception == "ttft-changed"
        assert "Line 60 of your ttft.jsonl" in str(cut.hint)  # the line cut off, beside the measured file's
        assert by_name["truncated"].steps[8].misconceptions == ["ttft-changed"]

    def test_huge_numbers_and_deep_nesting_are_not_json(self, broken):
        by_name, _ = broken
        assert by_name["huge"].steps[4].misconceptions == ["not-json"]
        unread = first_failure(by_name["huge"], 8)  # its ttft.jsonl is not the measured file either
        assert unread.rule_id == "ttft.file" and "Line 1 of your ttft.jsonl" in str(unread.hint)
        assert by_name["deep"].steps[3].misconceptions == ["not-json"]
        assert by_name["deep"].steps[8].misconceptions == ["not-json"]

    def test_the_snapshot_is_what_is_graded(self, broken):
        by_name, _ = broken
        moving = by_name["moving"]
        assert [number for number, report in moving.steps.items() if not report.passed] == [8]
        assert moving.steps[8].misconceptions == ["missing-file"] and "shadows-stdlib" not in moving.flags

    def test_links_are_refused_and_named(self, broken):
        by_name, _ = broken
        links = by_name["symlinks"]
        assert links.flags["symlinks"] == "kvsim.py, measured.json"
        assert [number for number, report in links.steps.items() if not report.passed] == [1, 5, 8]
        for step in (1, 8):  # scenario.py ran on the reference kvsim.py (fair scoring): its steps pass
            row = next(row for row in links.steps[step].failures if row.misconception)
            assert "symbolic link" in str(row.hint) and row.misconception == "missing-file", (step, row)

    def test_ten_thousand_extra_files(self, broken):
        by_name, _ = broken
        assert by_name["many-files"].flags["left-out"] == str(10_000 + 10 - sandbox.MOST_FILES)

    def test_a_json_py_helper_is_named_as_the_cause(self, broken):
        by_name, _ = broken
        helper = by_name["json-helper"]
        assert helper.flags["shadows-stdlib"] == "json.py"
        # scenario.py's run() and summarize.py stop on it; its saved files hold (the lab's command stands in) and
        # the sweep functions never call json
        assert [number for number, report in helper.steps.items() if report.passed] == [1, 3, 4, 5, 7]
        for number in (2, 6, 8):
            assert helper.steps[number].misconceptions == ["shadows-stdlib"], number
        row = first_failure(helper, 2)
        assert "json.py" in str(row.hint) and "has no attribute 'dumps'" in str(row.hint) and "in time" not in str(row.hint)

    def test_control_characters_never_reach_the_report(self, broken):
        by_name, grades = broken
        text = outputs(grades)
        assert not any(char in text for char in "\x1b\r\x07\u202e")
        assert "?[31mred" in str(by_name["escape-codes"])

    def test_failures_are_told_apart_by_their_kind(self, broken):
        by_name, _ = broken
        attribute = by_name["attribute-error"].steps[1]
        assert attribute.misconceptions == ["crash"] and "AttributeError" in str(attribute.failures[0].hint)
        own = by_name["own-timeout"].steps[1]
        assert "timeout" not in own.misconceptions and "TimeoutError" in str(own.failures[0].hint)
        endless = by_name["endless"]
        assert endless.steps[2].misconceptions == ["timeout"]
        assert "did not finish in time" in str(endless.steps[2].failures[0].hint)  # the case that ran, not one after it
        assert endless.steps[3].passed  # baseline.json is what the lab's command makes: step 2's loop is paid there
        assert "over-time" not in endless.flags  # one time limit per step that loops: no shrinking, no hidden cases

    def test_similar_hand_ins_are_flagged_with_their_scores(self, broken):
        by_name, _ = broken
        correct = by_name["correct-a"].flags
        named = correct["similar-hand-ins"].split("; ")  # every folder is the reference with a change or two
        assert len(named) == 5 and all(name.endswith(" (kvsim.py 1.00, scenario.py 1.00, summarize.py 1.00)")
                                       for name in named), named
        assert correct["similar-to-reference"] == "kvsim.py 1.00, scenario.py 1.00, summarize.py 1.00"

    def test_the_gradebook_has_a_row_per_folder(self, broken):
        _, grades = broken
        rows = list(csv.reader(io.StringIO(gradebook.csv_text(grades))))
        assert rows[0] == ["folder", *(f"step{number}" for number in range(1, 9)), "score", "max", "flags"]
        assert [row[9] for row in rows[1:]] == [str(score) for score in SCORES.values()]
        endless = rows[1 + list(SCORES).index("endless")]
        assert endless[1:9] == ["pass", "fail", "pass", "fail", "pass", "fail", "fail", "pass"] and endless[10] == "8"


# --- in this process: the measured file, the cache, Ctrl-C, the command ---------------------------------

def summary_text(lines):
    return json.dumps(summarize.summarize(records.parse_line(line) for line in lines if line.strip()))


class TestMeasuredFile:
    """Step 8 names the file that is wrong: ttft.jsonl, or measured.json (judged here in this process)."""

    @pytest.fixture
    def lab_lines(self, reference):
        return [line for line in reference["ttft.jsonl"].decode().splitlines() if line.strip()]

    @staticmethod
    def failing(lab_lines, ttft_lines, measured):
        """{rule id: its hint} of step 8's failing rules for a folder's ttft.jsonl and measured.json."""
        from kvlab.instructor.reference import handin_modules, run_here
        modules = handin_modules(None)
        texts = {name: None for name in lab.NAMES} | {
            "ttft.jsonl": None if ttft_lines is None else "\n".join(ttft_lines) + "\n", "measured.json": measured,
            "$lab": "\n".join(lab_lines) + "\n"}
        generator = engine.judge([lab.STEPS[8]], Live(), artifacts=texts, owner=lab.owner)
        result = conversation.here(generator, lambda jobs: run_here(jobs, modules))[8]
        report = labsteps.report_of(lab.STEPS[8], result)
        return {row.rule_id: (row.misconception, str(row.hint)) for row in report.rows if not row.ok}

    def test_a_changed_ttft_jsonl_is_named_not_the_summary(self, lab_lines):
        changed = [line.replace('"ttft_ms": ', '"ttft_ms": 1', 1) for line in lab_lines]
        failing = self.failing(lab_lines, changed, summary_text(lab_lines))
        assert list(failing) == ["ttft.file"] and failing["ttft.file"][0] == "ttft-changed"
        assert "Line 1 of your ttft.jsonl" in failing["ttft.file"][1]

    def test_a_summary_of_neither_file_is_the_summarys_fault(self, lab_lines):
        document = json.loads(summary_text(lab_lines))
        document["baseline"][next(iter(document["baseline"]))]["mean_ms"] += 5
        failing = self.failing(lab_lines, lab_lines, json.dumps(document))
        assert list(failing) == ["measured.file"] and failing["measured.file"][0] == "file-not-made"

    def test_a_summary_of_the_own_changed_file_passes_and_the_copy_is_named(self, lab_lines):
        changed = lab_lines[:-3]
        assert list(self.failing(lab_lines, changed, summary_text(changed))) == ["ttft.file"]

    def test_without_ttft_jsonl_the_summary_of_the_measured_file_holds(self, lab_lines):
        failing = self.failing(lab_lines, None, summary_text(lab_lines))
        assert list(failing) == ["ttft.file"] and failing["ttft.file"][0] == "missing-artifact"


def fake(folder):
    """A grade that costs nothing to make."""
    report = judge.Report(Msg("step.1.title"), [Row(Msg("rule.lru.counters"), True)])
    return batch.Grade(str(folder), batch.seed_fingerprint(0), {number: report for number in range(1, 9)})


@pytest.fixture
def folders(tmp_path):
    made = []
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "kvsim.py").write_text(f"# {name}\n")
        made.append(tmp_path / name)
    return made


class TestBatch:
    def test_the_cache_grades_a_folder_again_only_when_its_snapshot_changed(self, folders, tmp_path, monkeypatch):
        graded = []
        monkeypatch.setattr(batch.Batch, "grade_copy",
                            lambda self, folder, copy, found: graded.append(Path(folder).name) or fake(folder))
        cache = tmp_path / "cache"
        batch.grade_all(folders, isolation=False, cache=cache)
        assert sorted(graded) == ["a", "b", "c"]
        batch.grade_all(folders, isolation=False, cache=cache)
        assert len(graded) == 3
        (folders[0] / "kvsim.py").write_text("# fixed\n")
        (folders[1] / "scenario.py").symlink_to("/etc/hostname")  # not copied, but it changes the grade
        grades, _ = batch.grade_all(folders, isolation=False, cache=cache)
        assert sorted(graded[3:]) == ["a", "b"]
        assert [result.folder for result in grades] == list(map(str, folders))
        batch.grade_all(folders, seed=1, isolation=False, cache=cache)
        assert len(graded) == 8

    def test_ctrl_c_keeps_the_grades_so_far(self, folders, monkeypatch):
        def copy_grade(self, folder, copy, found):
            if Path(folder).name == "b":
                raise KeyboardInterrupt
            return fake(folder)
        monkeypatch.setattr(batch.Batch, "grade_copy", copy_grade)
        grades, interrupted = batch.grade_all(folders, isolation=False, jobs=1)
        assert interrupted
        assert [result.error for result in grades] == ["", batch.INTERRUPTED, batch.INTERRUPTED]
        assert "interrupted" in gradebook.table(grades).splitlines()[2]

    def test_a_folder_that_cannot_be_read_is_a_row(self, folders, monkeypatch):
        monkeypatch.setattr(batch.Batch, "grade_copy", lambda self, folder, copy, found: fake(folder))
        grades, _ = batch.grade_all([folders[0], folders[0] / "kvsim.py"], isolation=False)
        assert grades[0].score == 8 and grades[1].error.startswith("the folder cannot be read")


class TestCommand:
    def test_json_csv_and_not_isolated_end_to_end(self, reference, tmp_path, capsys, monkeypatch):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        good = build(tmp_path, "good", reference)
        bad = build(tmp_path, "bad", reference, {"summarize.py": None})
        gradebook = tmp_path / "grades.csv"
        monkeypatch.setenv(grade.NO_ISOLATION, "1")
        with pytest.raises(SystemExit) as stop:
            cli.main(["grade", "--json", "--csv", str(gradebook), str(good), str(bad)])
        out, err = capsys.readouterr()
        assert stop.value.code == 1 and err.count("\n") == 1 and grade.NO_ISOLATION in err
        document = json.loads(out)
        assert (document["isolated"], document["interrupted"], document["passed"]) == (False, False, False)
        assert [(folder["score"], folder["isolated"]) for folder in document["folders"]] == [(8, False), (7, False)]
        assert set(document["folders"][1]["steps"]["8"]) == {"title", "title_text", "passed", "note", "rules"}
        rows = list(csv.reader(gradebook.open()))
        assert [row[9:11] for row in rows[1:]] == [["8", "8"], ["7", "8"]]
        assert all(row[11].endswith("NOT ISOLATED") for row in rows[1:])
        assert not (tmp_path / "cache").exists()  # without the sandbox, no cache and no secret are read or written
        assert "seed" not in out and "hidden_cases" in document["folders"][0] and "hidden_cases" in document

    def test_a_terminal_sees_progress_for_many_folders(self, tmp_path, capsys, monkeypatch):
        folders = [tmp_path / f"f{number}" for number in range(grade.PROGRESS_FROM)]
        for folder in folders:
            folder.mkdir()
        monkeypatch.setattr(batch.Batch, "grade_copy", lambda self, folder, copy, found: fake(folder))
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
        monkeypatch.setenv(grade.NO_ISOLATION, "1")
        assert cli.main(["grade", "--no-cache", *map(str, folders)]) is None
        err = capsys.readouterr().err
        assert err.endswith(f"\rgraded {len(folders)}/{len(folders)} folders\n")

    def test_without_bwrap_one_line_and_status_2(self, tmp_path, capsys, monkeypatch):
        monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
        sandbox.available.cache_clear()
        try:
            with pytest.raises(SystemExit) as stop:
                cli.main(["grade", str(tmp_path)])
        finally:
            sandbox.available.cache_clear()
        out, err = capsys.readouterr()
        assert (stop.value.code, out) == (2, "")
        assert err == f"kvlab grade: error: {sandbox.NOT_INSTALLED}\n"

    @pytest.mark.parametrize("options, fragment", [(["--jobs", "999"], "--jobs"), (["--timeout", "0"], "--timeout"),
                                                   (["--csv", "/nonexistent/grades.csv"], "--csv")])
    def test_bad_options_are_one_line(self, tmp_path, capsys, monkeypatch, options, fragment):
        monkeypatch.setenv(grade.NO_ISOLATION, "1")
        with pytest.raises(SystemExit) as stop:
            cli.main(["grade", *options, str(tmp_path)])
        out, err = capsys.readouterr()
        assert stop.value.code == 2 and out == "" and err.count("\n") == 1 and fragment in err


def test_the_default_seed_is_a_secret_kept_for_the_next_run(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("KVLAB_SEED", raising=False)
    first = grade.default_seed()
    assert grade.default_seed() == first == int((tmp_path / "kvlab" / "seed").read_text())
    monkeypatch.setenv("KVLAB_SEED", "7")
    assert grade.default_seed() == 7


class TestFolderNamesAreNeverOptions:
    """Attack 1: `cd handins && kvlab grade *` with folders named like options."""

    @pytest.mark.parametrize("name", ["--no-i", "--seed=1", "--timeout=600", "--no-cache"])
    def test_a_folder_named_like_an_option_is_refused_unless_after_the_double_dash(self, tmp_path, capsys,
                                                                                  monkeypatch, name):
        (tmp_path / name).mkdir()
        (tmp_path / "honest").mkdir()
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(grade, "grade_all", lambda *args, **kwargs: pytest.fail("graded"))
        with pytest.raises(SystemExit) as stop:
            cli.main(["grade", *sorted([name, "honest"])])
        out, err = capsys.readouterr()
        assert stop.value.code == 2 and out == "" and err.count("\n") == 1 and "--" in err, err

    def test_after_the_double_dash_every_argument_is_a_folder(self, tmp_path, capsys, monkeypatch):
        (tmp_path / "--json").mkdir()
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv(grade.NO_ISOLATION, "1")
        seen = []
        monkeypatch.setattr(grade, "grade_all", lambda folders, *args, **kwargs: (seen.extend(folders), ([], False))[1])
        cli.main(["grade", "--", "--json"])
        assert seen == ["--json"]

    def test_isolation_is_not_an_option_and_control_characters_never_reach_the_terminal(self, tmp_path, capsys,
                                                                                     monkeypatch):
        monkeypatch.chdir(tmp_path)
        with pytest.raises(SystemExit):
            cli.main(["grade", "--no-isolation", "x"])
        with pytest.raises(SystemExit):
            cli.main(["grade", "-\x1b]0;owned\x07\x1b[2J", "x"])
        err = capsys.readouterr().err
        assert "\x1b" not in err and "\x07" not in err and "\\x1b" in err and err.count("\n") == 2


def test_names_that_differ_are_shown_apart():
    assert batch.shown("twin?") != batch.shown("twin\n") and "\n" not in batch.shown("twin\n")


def test_a_folder_that_is_a_link_to_a_classmates_is_refused_and_flagged(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / "bob").symlink_to(tmp_path / "alice")
    result = batch.Batch(batch.Options(isolation=False)).grade(tmp_path / "bob")
    assert result.error and result.score == 0 and "folder-is-link" in result.flags


def test_reports_show_a_fingerprint_of_the_hidden_cases_never_the_seed():
    result = fake("f")
    assert batch.seed_fingerprint(5242) != batch.seed_fingerprint(5243)
    assert "5242" not in batch.seed_fingerprint(5242) and "seed" not in result.as_dict()


def test_a_grade_with_a_timeout_is_never_cached(tmp_path):
    graded = batch.Batch(batch.Options(isolation=False), cache=tmp_path)
    result = fake("f")
    result.volatile = True
    graded.store("entry", result)
    assert not (tmp_path / "entry.json").exists()
    result.volatile = False
    graded.store("entry", result)
    assert (tmp_path / "entry.json").exists()


def test_the_gradebook_is_written_as_folders_finish_and_whole_at_the_end(tmp_path):
    book = gradebook.Gradebook(tmp_path / "grades.csv")
    book.add(fake("a"))
    rows = list(csv.reader((tmp_path / "grades.csv.partial").open()))
    assert rows[0] == gradebook.CSV_HEADER and rows[1][0] == "a"  # a crash now keeps the first folder's row
    book.close([fake("a"), fake("b")])
    assert [row[0] for row in csv.reader((tmp_path / "grades.csv").open())][1:] == ["a", "b"]
    assert not (tmp_path / "grades.csv.partial").exists()


def test_a_forged_missing_file_line_is_a_protocol_error(tmp_path):
    (tmp_path / "kvsim.py").write_text("x = 1\n")
    jobs = [{"kind": "ops", "module": "kvsim", "ops": []}, {"kind": "script", "script": "scenario.py", "argv": []}]
    outcomes = [{"kind": "missing"}, {"kind": "missing"}]
    assert [outcome["kind"] for outcome in conversation.verified(outcomes, jobs, tmp_path)] == ["protocol", "missing"]
    assert conversation.verified(outcomes, jobs, tmp_path, {"scenario.py": ""})[1]["kind"] == "protocol"  # staged


def test_the_grader_splits_ttft_jsonl_as_the_labs_reader_does(tmp_path):
    path = tmp_path / "ttft.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n{"b": "x\ry"}\n')
    assert paths.measured_lines(path) == ['{"a": 1}', '{"b": "x\ry"}']  # a carriage return splits nothing


class TestFairScoring:
    """One LRUCache bug costs only step 1: TwoTierCache and scenario.py are graded again beside the reference's."""

    def test_a_one_bug_lru_cache_loses_only_step_1(self, reference, tmp_path):
        from planted import planted_text
        folder = build(tmp_path, "fifo", reference, {"kvsim.py": planted_text("fifo")[1]})
        result = batch.Batch(batch.Options(seed=3, isolation=False)).grade(folder)
        assert [number for number, report in result.steps.items() if not report.passed] == [1], str(result)
        assert result.steps[2].note.id == "grade.on-reference" and result.steps[5].note.id == "grade.on-reference"

    def test_a_scenario_that_prints_the_reference_beside_it_shows_nothing_of_it(self, reference, tmp_path):
        from planted import planted_text
        leak = ("    args = parser.parse_args(argv)\n",
                "    args = parser.parse_args(argv)\n    import os\n    here = os.path.dirname(os.path.abspath(__file__))\n"
                "    print(open(os.path.join(here, 'kvsim.py')).read())\n    raise SystemExit(open(os.path.join(here, "
                "'kvsim.py')).read()[-400:])\n")
        folder = build(tmp_path, "leak", reference, {"kvsim.py": planted_text("fifo")[1],
                                                     "scenario.py": lambda text: text.replace(*leak)})
        result = batch.Batch(batch.Options(seed=3, isolation=False)).grade(folder)
        text = outputs([result])
        for piece in ("move_to_end(key)  # forgetting this", "popitem(last=False)", "_used -= evicted"):
            assert piece not in text


class TestLayouts:
    """The common wrong layouts are graded as the student meant, and flagged; other sub-folders are flagged."""

    @pytest.fixture
    def copied(self, monkeypatch):
        seen = {}

        def grade_copy(self, folder, copy, found):
            seen[str(folder)] = {path.name: path.read_text() for path in Path(copy).iterdir()}
            result = fake(folder)
            result.flags = {name: ", ".join(items) for name, items in sandbox.flag_items(found) if items}
            return result
        monkeypatch.setattr(batch.Batch, "grade_copy", grade_copy)
        return seen

    def graded(self, folder):
        return batch.Batch(batch.Options(isolation=False)).grade(folder)

    def test_files_one_folder_down_are_graded_and_flagged(self, tmp_path, copied):
        (tmp_path / "h" / "my-lab").mkdir(parents=True)
        for name in ("kvsim.py", "ttft.jsonl"):
            (tmp_path / "h" / "my-lab" / name).write_text(name)
        (tmp_path / "h" / ".git").mkdir()  # hidden folders are no layout
        result = self.graded(tmp_path / "h")
        assert copied[str(tmp_path / "h")] == {"kvsim.py": "kvsim.py", "ttft.jsonl": "ttft.jsonl"}
        assert result.flags["layout-one-down"] == "my-lab" and result.score == 8

    def test_the_student_editions_tree_takes_the_scripts_and_the_artifacts_only(self, tmp_path, copied):
        lab = tmp_path / "kvlab-student"
        (lab / "kvlab" / "check").mkdir(parents=True)
        (lab / "artifacts" / "figures").mkdir(parents=True)
        for name in ("kvsim.py", "scenario.py", "summarize.py", "paths.py", "__init__.py"):
            (lab / "kvlab" / name).write_text(name)
        for name in ("cyclic.json", "ttft.jsonl"):
            (lab / "artifacts" / name).write_text(name)
        (lab / "pyproject.toml").write_text("")
        result = self.graded(lab)
        assert sorted(copied[str(lab)]) == ["cyclic.json", "kvsim.py", "scenario.py", "summarize.py", "ttft.jsonl"]
        assert result.flags == {"layout-edition": "kvlab/, artifacts/"}

    def test_a_zip_is_unpacked_safely_and_graded(self, tmp_path, copied):
        import stat
        import zipfile
        archive = tmp_path / "alice.zip"
        with zipfile.ZipFile(archive, "w") as package:
            package.writestr("lab/kvsim.py", "kvsim")
            package.writestr("lab/cyclic.json", "{}")
            package.writestr("../escaped.py", "x")
            package.writestr("/absolute.py", "x")
            link = zipfile.ZipInfo("lab/scenario.py")
            link.external_attr = (stat.S_IFLNK | 0o777) << 16
            package.writestr(link, "/etc/hostname")
            package.writestr("__MACOSX/lab/._kvsim.py", "junk")
        result = self.graded(archive)
        assert copied[str(archive)] == {"kvsim.py": "kvsim", "cyclic.json": "{}"}
        assert result.flags["layout-zip"] == "alice.zip (3 unsafe entries not unpacked)"
        assert result.flags["layout-one-down"] == "lab" and not (tmp_path.parent / "escaped.py").exists()

    @pytest.mark.parametrize("bound, value, detail", [("MOST_ZIP_BYTES", 1000, "too large"),
                                                      ("MOST_ZIP_ENTRIES", 3, "too many entries")])
    def test_a_zip_over_its_bounds_is_not_graded(self, tmp_path, copied, monkeypatch, bound, value, detail):
        import zipfile
        monkeypatch.setattr(layout, bound, value)
        archive = tmp_path / "bomb.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as package:
            for number in range(5):
                package.writestr(f"f{number}.json", "0" * 10_000)
        result = self.graded(archive)
        assert result.error and result.score == 0 and result.flags["layout-zip"] == detail and not copied

    def test_a_broken_zip_is_a_row(self, tmp_path, copied):
        (tmp_path / "broken.zip").write_bytes(b"PK not really")
        result = self.graded(tmp_path / "broken.zip")
        assert "cannot be unpacked" in result.error and result.flags["layout-zip"] == "not a readable zip"

    def test_other_sub_folders_are_refused_and_flagged(self, tmp_path, copied):
        (tmp_path / "h" / "helpers").mkdir(parents=True)
        (tmp_path / "h" / "kvsim.py").write_text("x")
        (tmp_path / "h" / "helpers" / "util.py").write_text("y")
        result = self.graded(tmp_path / "h")
        assert copied[str(tmp_path / "h")] == {"kvsim.py": "x"} and result.flags == {"sub-folders": "helpers"}

    def test_the_command_takes_a_zip(self, tmp_path, copied, capsys, monkeypatch):
        import zipfile
        with zipfile.ZipFile(tmp_path / "bob.zip", "w") as package:
            package.writestr("kvsim.py", "kvsim")
        monkeypatch.setenv(grade.NO_ISOLATION, "1")
        assert cli.main(["grade", "--", str(tmp_path / "bob.zip")]) is None
        assert "layout-zip: bob.zip" in capsys.readouterr().out
