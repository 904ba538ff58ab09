"""kvlab.check.driver and kvlab.check.run: student code reports raw outcomes, typed where they happen.

Most behaviour is shown in-process (run_ops on a module loaded from a temporary folder); each outcome
kind that needs a real process is shown once end to end, most of them in one batch.
"""
import ast
import importlib.util
import json
import math
import textwrap

import pytest

from kvlab import kvsim
from kvlab.check import driver, run

LRU = textwrap.dedent('''\
    class LRUCache:
        def __init__(self, capacity):
            self.capacity, self.order = capacity, {}

        def access(self, key, size):
            if key == "boom":
                return self.missing_field          # line 7: an AttributeError inside the method
            if key == "late":
                raise TimeoutError("my own timeout")
            if key == "todo":
                raise NotImplementedError("step 1 is not written yet: LRUCache.access in kvlab/kvsim.py")
            hit = key in self.order
            self.order[key] = size
            return hit

        @property
        def used(self):
            return sum(self.order.values())

        def keys(self):
            return self.order.keys()               # a view, not a list


    class NoAccess:
        def __init__(self, capacity):
            pass
    ''')


def student(folder, name="student", source=LRU):
    """A module loaded from `folder`/`name`.py, as a notebook would hold the student's file."""
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TestOpsInProcess:
    def test_the_reference_cache_reports_what_it_returned(self):
        ops = [["new", "LRUCache", 9], ["access", "", "a", 3], ["access", "", "a", 3], ["keys", ""],
               ["used", ""], ["in", "", "b"], ["attr", "", "capacity"], ["call", "", "cache_info"]]
        outcome = run.run_ops_here(kvsim, ops)
        assert outcome == {"kind": "ok", "results": [
            {"v": {"$type": "LRUCache", "$id": 1}}, {"v": False}, {"v": True}, {"v": ["a"]}, {"v": 3},
            {"v": False}, {"v": 9}, {"v": [1, 1, 9, 3]}]}  # cache_info() is a named tuple: a list

    def test_two_caches_at_once_optional_counters_and_a_fresh_list(self, tmp_path):
        """"#N" is the object op N made; attr? says an attribute is absent; fresh asks keys() twice."""
        ops = [["new", "LRUCache", 9], ["new", "LRUCache", 9], ["access", "#0", "a", 3], ["keys", "#1"],
               ["attr?", "#0", "hits"], ["attr?", "#0", "nothing"], ["fresh", "#0"]]
        results = run.run_ops_here(kvsim, ops)["results"]
        assert [result["v"] for result in results[2:]] == [False, [], 0, {"$missing": True}, ["list", False]]
        view = run.run_ops_here(student(tmp_path), [["new", "LRUCache", 9], ["fresh", ""]])["results"][-1]
        assert view["v"] == ["dict_keys", False]

    def test_a_job_can_put_a_stand_in_in_place_of_a_name(self, tmp_path):
        (tmp_path / "kvsim.py").write_text("class LRUCache:\n    pass\n\n\ndef make():\n    return LRUCache()\n")
        (tmp_path / "other.py").write_text("class Better:\n    pass\n")
        job = {"kind": "ops", "module": "kvsim", "patch": {"LRUCache": ["other", "Better"]}, "ops": [["fn", "make"]]}
        assert run.run_jobs(tmp_path, [job])[0]["results"][0]["v"]["$type"] == "Better"

    def test_a_keys_view_is_listed_and_its_type_kept(self, tmp_path):
        outcome = run.run_ops_here(student(tmp_path), [["new", "LRUCache", 9], ["access", "", "a", 3], ["keys", ""]])
        assert outcome["results"][-1] == {"v": ["a"], "listed": "dict_keys"}

    def test_a_used_method_is_called_and_flagged(self):
        class Cache:
            def used(self):
                return 4
        outcome = run.run_ops_here({"Cache": Cache}, [["new", "Cache"], ["used", ""]])
        assert outcome["results"][-1] == {"v": 4, "callable": True}

    def test_an_exception_has_its_type_message_and_place_and_stops_the_ops(self, tmp_path):
        ops = [["new", "LRUCache", 9], ["access", "", "boom", 1], ["access", "", "a", 1]]
        outcome = run.run_ops_here(student(tmp_path), ops)
        assert outcome == {"kind": "ok", "results": [
            {"v": {"$type": "LRUCache", "$id": 1}},
            {"raised": {"type": "AttributeError", "message": "'LRUCache' object has no attribute 'missing_field'",
                        "where": "student.py:7", "name": None, "function": "LRUCache.access"}}]}

    def test_a_missing_method_or_class_is_missing_attr_not_an_exception(self, tmp_path):
        module = student(tmp_path)
        no_method = run.run_ops_here(module, [["new", "NoAccess", 9], ["access", "", "a", 1]])
        assert no_method == {"kind": "missing-attr", "name": "access",
                             "results": [{"v": {"$type": "NoAccess", "$id": 1}}]}
        assert run.run_ops_here(module, [["new", "TwoTierCache", 9, 0]]) == \
            {"kind": "missing-attr", "name": "TwoTierCache", "results": []}

    def test_a_wrong_call_is_raised_where_no_student_code_ran(self, tmp_path):
        outcome = run.run_ops_here(student(tmp_path), [["new", "LRUCache"]])
        raised = outcome["results"][0]["raised"]
        assert (raised["type"], raised["where"]) == ("TypeError", None)

    def test_the_students_own_timeout_error_and_a_stub_are_just_exceptions(self, tmp_path):
        module = student(tmp_path)
        late = run.run_ops_here(module, [["new", "LRUCache", 9], ["access", "", "late", 1]])
        todo = run.run_ops_here(module, [["new", "LRUCache", 9], ["access", "", "todo", 1]])
        assert late["kind"] == "ok" and late["results"][1]["raised"]["type"] == "TimeoutError"
        assert todo["results"][1]["raised"] == {
            "type": "NotImplementedError", "where": "student.py:11", "name": None, "function": "LRUCache.access",
            "message": "step 1 is not written yet: LRUCache.access in kvlab/kvsim.py"}

    def test_an_endless_loop_is_a_timeout_with_the_results_so_far(self, tmp_path):
        module = student(tmp_path, "loops", "def forever(x):\n    while True:\n        sum(range(10))\n")
        outcome = run.run_ops_here(module, [["fn", "forever", 1]], timeout=0.05)
        assert outcome == {"kind": "timeout", "results": []}

    def test_values_are_made_json_safe(self):
        values, thing = driver.Values(), object()
        assert values([True, None, "s", 3, 2.5, (1, 2), {"a": [1]}]) == [True, None, "s", 3, 2.5, [1, 2], {"a": [1]}]
        assert values(2 ** 64) == {"$type": "int", "$repr": str(2 ** 64)}
        assert values(math.inf) == {"$type": "float", "$repr": "inf"}
        assert values({1: 2}) == {"$dict": [[1, 2]]}  # not str keys: kept as pairs, so a judge can name them
        assert values([thing, thing, object()]) == [{"$type": "object", "$id": 1}] * 2 + [{"$type": "object", "$id": 2}]
        assert len(values(list(range(driver.LONGEST_LIST + 5)))) == driver.LONGEST_LIST
        loop = []
        loop.append(loop)
        json.dumps(values(loop))  # a list holding itself ends in a name, at DEEPEST


# End to end: one process per kind that ends (or kills) the driver, the others in one batch.

SCRIPTS = {
    "hello.py": "import sys\nprint('hello', sys.argv[1:])\nopen('out.txt', 'w').write(open('in.txt').read())\n",
    "fails.py": "import sys\nprint('bad input', file=sys.stderr)\nsys.exit(2)\n",
    "crashes.py": "def f():\n    return {}['k']\nf()\n",
    "gives_up.py": "raise TimeoutError('the server did not answer')\n",
    "floods.py": "while True:\n    print('x' * 1000)\n",
    "json.py": "def dumps(value):\n    return 'the student json'\n",
    "uses_json.py": "import json\nprint(json.dumps(1))\n",
    "kvsim.py": LRU,
    "broken.py": "def f(:\n",
    "loops.py": "while True:\n    sum(range(10))\n",
    "swallows.py": "while True:\n    try:\n        while True:\n            sum(range(10))\n"
                   "    except BaseException:\n        pass\n",
    "spills.py": "import os\nos.write(1, b'x' * 3_000_000)\n",
    "dies.py": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
    "quits.py": "import os\nos._exit(0)\n",
    "forges.py": "import os\nos.write(3, b'not json\\n')\n",
    "looks.py": textwrap.dedent("""\
        import os, sys  # (json is the folder's own json.py here)
        frame, jobs = sys._getframe(), None
        while frame:  # up to the driver's main(): the jobs it holds
            spec = frame.f_locals.get("spec")
            jobs = spec["jobs"] if isinstance(spec, dict) else jobs
            frame = frame.f_back
        print(repr([os.getpid(), len(jobs), sorted(os.listdir("."))]))
        """),
}


@pytest.fixture
def folder(tmp_path):
    for name, text in SCRIPTS.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_one_process_reports_each_kind_of_job_outcome(folder):
    jobs = [run.script_job("hello.py", ["--gpu", 1], files={"in.txt": "data"}, read=["out.txt", "none.txt"]),
            run.script_job("fails.py"), run.script_job("crashes.py"), run.script_job("gives_up.py"),
            run.script_job("uses_json.py"), run.script_job("absent.py"),
            run.ops_job("kvsim", [["new", "LRUCache", 2], ["access", "", "a", 1]]),
            run.ops_job("kvsim", [["new", "TwoTierCache", 2, 0]]),
            run.ops_job("broken", []), run.ops_job("absent", []),
            run.script_job("floods.py"), run.script_job("hello.py")]
    hello, fails, crashes, gives_up, uses_json, absent, ops, no_class, broken, no_module, floods, after_flood = \
        run.run_jobs(folder, jobs, cap=10_000)
    assert hello == {"kind": "ok", "stdout": "hello ['--gpu', '1']\n", "stderr": "",
                     "files": {"out.txt": "data", "none.txt": None}}
    assert (fails["kind"], fails["code"], fails["stderr"]) == ("exit", 2, "bad input\n")
    assert crashes["kind"] == "crash" and crashes["raised"] == {
        "type": "KeyError", "message": "'k'", "where": "crashes.py:2", "name": None, "function": "f"}
    assert crashes["stderr"].startswith("Traceback") and "driver.py" not in crashes["stderr"]
    assert gives_up["kind"] == "crash" and gives_up["raised"]["type"] == "TimeoutError"  # not our timeout
    assert floods["kind"] == "flood" and len(floods["stdout"]) == 10_000
    assert after_flood["kind"] == "not-run"  # one flood is enough: the rest would flood too
    assert uses_json["stdout"] == "the student json\n"  # their json.py, as `python uses_json.py` would
    assert absent == {"kind": "missing", "stdout": "", "stderr": "", "files": {}}
    assert ops == {"kind": "ok", "results": [{"v": {"$type": "LRUCache", "$id": 1}}, {"v": False}]}
    assert no_class == {"kind": "missing-attr", "name": "TwoTierCache", "results": []}
    assert broken["kind"] == "import" and broken["raised"]["type"] == "SyntaxError"
    assert broken["raised"]["where"] == "broken.py:1"
    assert no_module == {"kind": "missing"}


def test_a_job_past_its_time_is_a_timeout_and_the_rest_not_run(folder):
    outcomes = run.run_jobs(folder, [run.script_job("loops.py"), run.script_job("hello.py")], timeout=0.2)
    assert [outcome["kind"] for outcome in outcomes] == ["timeout", "not-run"]


def test_code_that_swallows_the_time_limit_is_killed_at_the_deadline(folder, monkeypatch):
    monkeypatch.setattr(run, "STARTUP_ALLOWANCE", 0.3)  # keeps the test short: the deadline is ~0.6 s
    outcomes = run.run_jobs(folder, [run.script_job("swallows.py"), run.script_job("hello.py")], timeout=0.2)
    assert [outcome["kind"] for outcome in outcomes] == ["timeout", "not-run"]


@pytest.mark.parametrize("script, kind", [("spills.py", "flood"), ("dies.py", "killed"),
                                          ("quits.py", "protocol"), ("forges.py", "protocol")])
def test_what_ends_the_process_is_the_kind_of_the_job_that_was_running(folder, script, kind):
    first, second = run.run_jobs(folder, [run.script_job(script), run.script_job("hello.py")])
    assert (first["kind"], second["kind"]) == (kind, "not-run")
    if kind == "killed":
        assert first["signal"] == 9


def test_groups_share_one_process_and_none_sees_a_later_ones_jobs_or_files(folder):
    looks = run.script_job("looks.py")
    groups = [([looks], {"first.txt": "1"}), ([], {"never.txt": "0"}), ([looks, looks], {"second.txt": "2"}),
              ([run.script_job("hello.py")], {"in.txt": "3"}), ([looks], {"last.txt": "4"})]
    asked = []

    def wanted(index, outcomes_of):
        asked.append((index, outcomes_of(0) and outcomes_of(0)[0]["kind"]))
        return index != 3  # a group not wanted is not sent
    first, empty, second, skipped, last = run.run_together(folder, groups, wanted=wanted)
    seen = [ast.literal_eval(outcome["stdout"]) for outcome in [*first, *second, *last]]
    assert len({pid for pid, _, _ in seen}) == 1  # one process
    assert [count for _, count, _ in seen] == [1, 2, 2, 1]  # each job saw only its own group's jobs
    assert [{"first.txt", "second.txt", "last.txt"} & set(names) for _, _, names in seen] == \
        [{"first.txt"}, {"first.txt", "second.txt"}, {"first.txt", "second.txt"}, {"first.txt", "second.txt", "last.txt"}]
    assert (empty, skipped) == ([], None) and asked == [(0, None), (2, "ok"), (3, "ok"), (4, "ok")]


def test_a_group_that_ends_the_process_is_kept_if_the_driver_ended_it_else_run_alone(folder):
    hello = ([run.script_job("hello.py")], {"in.txt": "x"})
    timed_out, after = run.run_together(folder, [([run.script_job("loops.py"), run.script_job("hello.py")], {}), hello],
                                        timeout=0.2)
    assert [outcome["kind"] for outcome in timed_out] == ["timeout", "not-run"] and after is None  # as alone
    assert run.run_together(folder, [hello, ([run.script_job("quits.py")], {}), hello]) == \
        [run.run_jobs(folder, hello[0], files=hello[1]), None, None]  # a process that broke off: nothing to trust


class TestResultLines:
    JOBS = [run.ops_job("kvsim", []), run.ops_job("kvsim", [])]

    def outcomes(self, *lines, returncode=0, stopped=""):
        seen = run.Seen(b"".join(lines), "", returncode, stopped)
        return [outcome["kind"] for outcome in run.outcomes(self.JOBS, seen, None)]

    def test_every_job_answered_in_order(self):
        assert self.outcomes(b'{"job": 0, "kind": "ok", "results": []}\n',
                             b'{"job": 1, "kind": "missing"}\n') == ["ok", "missing"]

    def test_out_of_order_malformed_or_extra_lines_break_the_protocol(self):
        good = b'{"job": 0, "kind": "ok", "results": []}\n'
        assert self.outcomes(b'{"job": 1, "kind": "missing"}\n') == ["protocol", "not-run"]
        assert self.outcomes(good, b'{"job": 1, "kind": "flood"}\n') == ["ok", "protocol"]  # not an ops kind
        assert self.outcomes(good, b'{"job": 1, "kind": "missing"}\n', b'{"job": 2}\n') == ["ok", "protocol"]

    def test_a_line_cut_short_by_our_kill_is_the_kill(self):
        assert self.outcomes(b'{"job": 0, "kind": "ok", "res', stopped="timeout") == ["timeout", "not-run"]


def test_bad_jobs_are_the_callers_bug(tmp_path):
    with pytest.raises(ValueError):
        run.run_jobs(tmp_path, [run.ops_job("kvsim", [["fly", ""]])])
    with pytest.raises(ValueError):
        run.run_jobs(tmp_path, [run.script_job("../x.py")])

