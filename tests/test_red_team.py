"""Issue 26: the red team's attacks on a course's grading and the instructor's findings, one test each.

Finding 1 (the Gradescope fallback) is tests/test_autograder.py's: a daemon, planted links, a chmod, a
forged results.json and the network, against the real setup.sh and run_autograder. Here, in this process:
the grade cache's key (2), file times (3), long names (4), the roster (5), lateness (6), the grader's own
reading of source (7), Markdown in feedback (8), similarity (9), practice mode's seed (11), and the
gradebooks; three real gradings without the sandbox (KVLAB_NO_ISOLATION's plain child processes, fast):
nondeterminism (10) and a sleeper (7), and byte-identical feedback with no grader path, numpy named.
"""
import csv
import io
import json
import os
import re
import shutil
import textwrap
import threading
from pathlib import Path

import pytest

from kvlab import handin
from kvlab.check.report import Report, Row
from kvlab.i18n import Msg, t
from kvlab.instructor import (artifacts, autograder, batch, course as courses, coursebook, gradebook, grade, reader,
                              sandbox, scripts, similarity)

SECRET = "cd" * 32
DUE = "due = 2026-12-15T23:59:00+00:00\nlate_penalty_per_day = 0.1\n"


def course_file(path, extra=""):
    Path(path).write_text(f'secret = "{SECRET}"\n{extra}', encoding="utf-8")
    return courses.load(path)


def fake(folder, failing=(), note=None, hint=None):
    """A cheap grade of `folder`: every rule holds but those in `failing` (their hint's seen is `hint`)."""
    from kvlab import lab as steps
    reports = {}
    for number, step in steps.STEPS.items():
        rows = [Row(Msg("rule.written", file=spec.id), spec.id not in failing, "" if spec.id not in failing else "crash",
                    hint if spec.id in failing else None, rule_id=spec.id) for spec in step.rules]
        reports[number] = Report(Msg("step.1.title"), rows, note if number in (2, 3, 4, 6, 7) else None)
    return batch.Grade(str(folder), batch.seed_fingerprint(0), reports)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder, written = tmp_path_factory.mktemp("reference"), tmp_path_factory.mktemp("artifacts")
    artifacts.write(written)
    handin.handin(folder, artifacts=written)
    return folder


# --- 2: the grade cache ----------------------------------------------------------------------------------------

def test_2_a_folder_made_of_a_classmates_files_joined_has_a_key_of_its_own(tmp_path):
    victim, forged = tmp_path / "victim", tmp_path / "forged"
    victim.mkdir(), forged.mkdir()
    (victim / "kvsim.py").write_bytes(b"A = 1\n")
    (victim / "scenario.py").write_bytes(b"B = 2\n")
    (forged / "kvsim.py").write_bytes(b"A = 1\n\0scenario.py\0B = 2\n")  # what `name\0bytes\0...` made of victim
    keys = set()
    for folder in (victim, forged):
        found = sandbox.snapshot(folder, tmp_path / f"copy-{folder.name}")
        keys.add(batch.Batch(batch.Options(isolation=False)).key(tmp_path / f"copy-{folder.name}", found))
    assert len(keys) == 2


# --- 3, 6: file times and lateness -------------------------------------------------------------------------------

def test_3_a_file_time_out_of_range_is_clamped_and_flagged_never_the_end_of_the_batch(tmp_path, monkeypatch):
    course = course_file(tmp_path / "c.toml", DUE)
    monkeypatch.setattr(courses, "newest_mtime", lambda folder: 3e11)  # year 11476: tmpfs keeps it
    rows = list(csv.reader(io.StringIO(gradebook.course_csv(course, [fake(tmp_path / "far")]))))
    assert "file-time-clamped" in rows[1][-1] and "late-from-file-times" in rows[1][-1] and rows[1][10] == "0"
    monkeypatch.setattr(courses, "newest_mtime", lambda folder: float("nan"))
    assert courses.score(course, fake(tmp_path / "nan")).submitted.clamped


def test_6_lateness_comes_from_a_time_the_student_cannot_set_file_times_only_flagged(tmp_path):
    course = course_file(tmp_path / "c.toml", DUE + '[roster]\nalice = "s1"\n'
                         'bob = { id = "s2", submitted_at = 2026-12-17T08:00:00+00:00 }\n')
    for name in ("alice", "bob"):  # both unzipped with their entries' times: before the due date
        (tmp_path / name).mkdir()
        (tmp_path / name / "kvsim.py").write_text("")
        os.utime(tmp_path / name / "kvsim.py", (1_700_000_000, 1_700_000_000))
    alice, bob = (courses.score(course, fake(tmp_path / name)) for name in ("alice", "bob"))
    assert (alice.late, alice.flags(course)) == (0, ["late-from-file-times"])  # the instructor is told
    assert (bob.late, bob.flags(course)) == (2, [])  # the roster's submitted_at wins over the files
    metadata = tmp_path / "submission_metadata.json"  # Gradescope's, in the container
    metadata.write_text(json.dumps({"created_at": "2026-12-16T10:00:00.5-08:00", "users": [{"sid": "s1"}]}))
    given, student = autograder.submitted(metadata)
    document = autograder.results(course, fake(tmp_path / "alice"), given, student)
    assert document["score"] == round(course.max_total * 0.9, 2)  # one day late, from Gradescope's own time


# --- 4, 5: names and the roster ----------------------------------------------------------------------------------

def test_4_a_240_character_folder_name_still_gets_its_feedback(tmp_path):
    course = course_file(tmp_path / "c.toml")
    long = tmp_path / ("x" * 240)
    written = coursebook.write_feedback(tmp_path / "fb", course, [fake(long), fake(tmp_path / "bob")])
    names = sorted(path.name for path in (tmp_path / "fb").iterdir())
    assert len(names) == 4 and all(len(name.encode()) <= 100 for name in names) and written


def test_5_the_roster_matches_exactly_one_row_per_student_zip_either_way_and_missing_ones(tmp_path):
    course = course_file(tmp_path / "c.toml", '[roster]\nalice = "s1001"\ncarol = "s1003"\n'
                                              '"dave.zip" = "s1004"\nerin = "s1005"\n')
    grades = [fake(tmp_path / "a" / "_s1001"), fake(tmp_path / "a" / "alice"), fake(tmp_path / "b" / "alice", ["lru.counts"]),
              fake(tmp_path / "carol.zip"), fake(tmp_path / "dave")]
    rows = list(csv.reader(io.StringIO(gradebook.course_csv(course, grades))))[1:]
    assert [row[:2] for row in rows] == [["", "_s1001"], ["s1001", "alice"], ["s1003", "carol.zip"],
                                         ["s1004", "dave"], ["s1005", ""]]
    flags = {row[0]: row[-1] for row in rows}
    assert "duplicate-hand-ins (alice)" in flags["s1001"] and "not-in-roster" in flags[""]
    assert flags["s1005"] == "missing" and rows[-1][10] == "0"
    entries = gradebook.roll(course, grades)
    names = coursebook.file_names(course, entries)
    assert names[id(entries[1])] == "s1001" and names[id(entries[0])].startswith("unlisted-s1001-")
    files = coursebook.feedback_files(course, grades)
    assert "s1001.md" in files and not any(name.startswith("s1001-") for name in files)


# --- gradebooks: Canvas and Moodle, overrides and extensions -----------------------------------------------------

def test_canvas_and_moodle_csvs_import_as_they_are_with_a_row_per_roster_student(tmp_path):
    course = course_file(tmp_path / "c.toml", '[lms]\nassignment = "KV lab (1234)"\n[roster]\n'
                         'alice = { id = "s1", name = "Alice Liddell", canvas_id = "77", login = "al", section = "A", '
                         'email = "al@example.edu" }\nbob = "s2"\n[extensions]\ns2 = { due = 2026-12-20T00:00:00+00:00, reason = "illness" }\n')
    canvas = list(csv.reader(io.StringIO(gradebook.canvas_csv(course, [fake(tmp_path / "alice")]))))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "KV lab (1234)"]
    assert canvas[1] == ["Points Possible", "", "", "", "", str(course.max_total)]
    assert canvas[2] == ["Alice Liddell", "77", "s1", "al", "A", str(course.max_total)] and canvas[3][-1] == ""
    moodle = list(csv.reader(io.StringIO(gradebook.moodle_csv(course, [fake(tmp_path / "alice")]))))
    assert moodle[0][:3] == ["ID number", "Username", "Email address"] and moodle[1][:3] == ["s1", "al", "al@example.edu"]


def test_an_override_and_an_extension_show_their_reason_in_the_feedback(tmp_path):
    course = course_file(tmp_path / "c.toml", DUE + '[roster]\nalice = { id = "s1", submitted_at = '
                         '2026-12-17T08:00:00+00:00 }\nbob = "s2"\n[extensions]\ns1 = { days = 3, reason = "a '
                         'medical certificate" }\n[overrides]\ns2 = { total = 40, reason = "regraded by hand" }\n')
    files = coursebook.feedback_files(course, [fake(tmp_path / "alice", ["lru.counts"]), fake(tmp_path / "bob")])
    alice, bob = files["s1.md"].decode(), files["s2.md"].decode()
    assert "2026-12-18T23:59:00+00:00: a medical certificate" in alice and t("course.on-time") in alice
    assert t("course.override-line", total=40, max_total=course.max_total, reason="regraded by hand") in bob
    rows = list(csv.reader(io.StringIO(gradebook.course_csv(course, [fake(tmp_path / "bob")]))))
    assert rows[1][10] == "40" and "override" in rows[1][-1]
    for bad in ('[overrides]\ns9 = { total = 1, reason = "x" }\n[roster]\na = "s1"\n',
                '[extensions]\ns1 = { days = 2 }\n'):
        with pytest.raises(courses.UserError):
            course_file(tmp_path / "bad.toml", DUE + bad)


# --- 8: Markdown, notes, paths ---------------------------------------------------------------------------------

def test_8_newlines_in_a_name_or_an_exception_never_make_paragraphs_of_their_own(tmp_path):
    course = course_file(tmp_path / "c.toml")
    forged = "alice\n\nYour total is 62 of 62 (checked by hand).\n- item"
    hint = Msg("seen.raised", op="access", type="Error\n\n# Heading", message="m\r\n1. one", where="kv\u2028sim.py")
    files = coursebook.feedback_files(course, [fake(tmp_path / forged, ["lru.counts"], hint=hint)])
    [markdown] = [data.decode() for name, data in files.items() if name.endswith(".md")]
    lines = markdown.splitlines()
    assert not [line for line in lines if line.startswith(("Your total is 62", "# Heading", "1. one", "- item"))]
    assert sum(line.startswith("# ") for line in lines) == 1 and "\u2028" not in markdown


def test_a_note_of_five_steps_is_said_once_naming_them(tmp_path):
    course = course_file(tmp_path / "c.toml")
    note = Msg("grade.on-reference", step=1, file="kvsim.py")
    files = coursebook.feedback_files(course, [fake(tmp_path / "alice", ["lru.counts"], note=note)])
    markdown = files["alice.md"].decode()
    assert markdown.count(str(note)[:40]) == 1 and "Steps 2, 3, 4, 6, 7:" in markdown


# --- 7: the grader's own reading of source ------------------------------------------------------------------------

def test_7_reading_a_hand_in_is_bounded_in_bytes_and_reads_only_what_the_scripts_import(tmp_path):
    (tmp_path / "kvsim.py").write_text("".join(f"import m{number}\n" for number in range(40)))
    for number in range(40):
        (tmp_path / f"m{number}.py").write_text(f"# {number}\n" + "a<b\n" * 49_000)  # 196 KB: seconds of parsing
    (tmp_path / "unused.py").write_text("x = 1\n")
    sent = []
    ask = scripts.Reader.ask
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scripts.Reader, "ask", lambda self, data, marks, ends: sent.append(len(data)) or
                      (reader.read(data, marks) if data.startswith(b"import") else {"imports": [], "marks": None}))
        found = scripts.read_handin(tmp_path)
    assert sum(sent) <= scripts.READ_BYTES and len(found.unread) == 40 - len(sent) + 1 and ask and len(sent) > 1
    assert "unused.py" not in found.unread  # nothing imports it: never read


def test_7_a_slow_file_is_cut_at_the_hand_ins_time_and_another_hand_in_never_waits(tmp_path, monkeypatch):
    slow, quick = tmp_path / "slow", tmp_path / "quick"
    slow.mkdir(), quick.mkdir()
    (slow / "kvsim.py").write_text("import json\n")
    (quick / "kvsim.py").write_text("import json\n")
    blocked = tmp_path / "blocked.py"  # a reader that takes a file and never answers (until it is killed)
    blocked.write_text("import sys, time\nsys.stdin.buffer.readline()\ntime.sleep(600)\n")
    asked, start = threading.Event(), scripts.Reader.start

    def started(self):
        start(self)
        if threading.current_thread().name == "slow":
            self.process.kill()
            self.process.wait()
            self.process = __import__("subprocess").Popen(["python3", str(blocked)], stdin=-1, stdout=-1)
            asked.set()
    monkeypatch.setattr(scripts.Reader, "start", started)
    result, slow_readers = {}, scripts.Readers()
    thread = threading.Thread(target=lambda: result.update(slow=scripts.read_handin(slow, slow_readers, 600)),
                              name="slow")
    thread.start()
    try:
        assert asked.wait(60)
        found = scripts.read_handin(quick)  # while the slow hand-in's reading waits: nothing is shared
        assert thread.is_alive() and found.imports == {"kvsim": frozenset({"json"})}
    finally:
        slow_readers.close()  # its reader killed: its reading ends
        thread.join(60)
    assert result["slow"].unread == ("kvsim.py",)  # the file is flagged, the batch goes on
    monkeypatch.setattr(scripts, "READ_SECONDS", 0.05)
    (slow / "kvsim.py").write_text("a<b\n" * 49_000)  # 1.5 s of parsing here: far more than 0.05 s
    assert scripts.read_handin(slow).unread == ("kvsim.py",)


# --- 9: similarity ------------------------------------------------------------------------------------------------

KVSIM = (Path(courses.__file__).resolve().parent.parent / "kvsim.py").read_text()


def marks_of(text):
    return {"kvsim.py": tuple(reader.marks(text))}


@pytest.mark.parametrize("disguise", [
    lambda text: text.replace('"""', '"""A docstring of my own.\n\n', 1),
    lambda text: re.sub(r"\bkey\b", "block", text),
    lambda text: text + "\npass\n",
    lambda text: text + "\n\ndef unused(a, b):\n    return [a * b for _ in range(3)]\n",
    lambda text: "# my comment\n" + text.replace("    ", "  "),
])
def test_9_a_disguised_copy_of_the_reference_is_flagged_with_its_score(disguise):
    assert similarity.to_reference(marks_of(disguise(KVSIM))).startswith("kvsim.py ")


def test_9_copies_across_the_class_and_across_batches_are_flagged_a_different_solution_is_not(tmp_path):
    own = textwrap.dedent('''\
        class LRUCache:
            def __init__(self, capacity):
                self.capacity, self.order, self.sizes = capacity, [], {}

            def access(self, key, size=1):
                hit = key in self.sizes
                if hit:
                    self.order.remove(key)
                self.order.append(key)
                self.sizes[key] = size
                while sum(self.sizes.values()) > self.capacity and len(self.order) > 1:
                    del self.sizes[self.order.pop(0)]
                return hit
        ''')
    assert similarity.to_reference(marks_of(own)) == ""
    grades = [fake(tmp_path / name) for name in ("alice", "bob", "carol")]
    grades[0].marks = marks_of(KVSIM)
    grades[1].marks = marks_of(re.sub(r"\bkey\b", "k", KVSIM) + "\npass\n")
    grades[2].marks = marks_of(own)
    similarity.mark(grades)
    assert grades[0].flags["similar-hand-ins"] == "bob (kvsim.py 1.00)" and "similar-hand-ins" not in grades[2].flags
    course = course_file(tmp_path / "c.toml", '[roster]\nalice = "s1"\ncarol = "s3"\n')
    key = lambda result: course.student(result.folder) or Path(result.folder).name  # noqa: E731
    similarity.save_store(course.store, course.fingerprint, {}, grades[:1], key)  # an earlier batch: alice
    later = fake(tmp_path / "dave")
    later.marks = marks_of(KVSIM.replace("    ", "\t"))
    similarity.mark([later], similarity.load_store(course.store, course.fingerprint), key)
    assert later.flags["similar-hand-ins"] == "s1 (earlier) (kvsim.py 1.00)"
    assert course.store.stat().st_mode & 0o077 == 0 and "class LRUCache" not in course.store.read_text()


# --- 11: practice mode's seed ------------------------------------------------------------------------------------

def test_11_practice_modes_seed_has_128_bits_and_an_old_small_one_is_drawn_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("KVLAB_SEED", raising=False)
    (tmp_path / "kvlab").mkdir()
    (tmp_path / "kvlab" / "seed").write_text("123456789\n")  # a seed of kvlab before: found back in seconds
    seed = grade.default_seed()
    assert seed.bit_length() == 128 and grade.default_seed() == seed


# --- real gradings without the sandbox: nondeterminism, a sleeper, feedback bytes, numpy ------------------------

SLEEPER = textwrap.dedent('''
    import signal as _signal, time as _time
    for _name in ("SIGALRM", "SIGPROF", "SIGVTALRM", "SIGXCPU", "SIGTERM"):
        _signal.signal(getattr(_signal, _name), _signal.SIG_IGN)
    _time.sleep(300)
''')


def copy_of(reference, folder, changes):
    shutil.copytree(reference, folder)
    for name, text in changes.items():
        if text is None:
            (folder / name).unlink()
        else:
            (folder / name).write_text(text)
    return folder


def test_10_verdicts_that_differ_between_two_runs_are_flagged_and_never_cached(reference, tmp_path, monkeypatch):
    monkeypatch.setenv(grade.NO_ISOLATION, "1")
    course = course_file(tmp_path / "c.toml")
    folder = copy_of(reference, tmp_path / "random", {})
    real, runs = batch.Batch.judged, []

    def judged(self, copy, texts):  # the second run of the code differs on step 3, as a random hand-in's may
        reports, kinds, over = real(self, copy, texts)
        runs.append(copy)
        if len(runs) == 2:
            row = Row(Msg("rule.baseline.file"), False, "differs", None, rule_id="baseline.file")
            reports = {**reports, 3: type(reports[3])(reports[3].title, [row])}
        return reports, kinds, over
    monkeypatch.setattr(batch.Batch, "judged", judged)
    graded = batch.Batch(batch.Options(course.seed, isolation=False, course=course.fingerprint), cache=tmp_path / "cache",
                         course=course)
    result = graded.grade(folder)
    graded.readers.close()
    assert len(runs) == 2 and result.flags["nondeterministic"] == "steps 3" and result.volatile
    assert not result.steps[3].passed  # the lower of the two is kept
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())


def test_7_a_hand_in_that_ignores_its_signals_and_sleeps_holds_a_worker_only_its_wall_clock_time(reference, tmp_path,
                                                                                                monkeypatch):
    from kvlab.check import run
    monkeypatch.setattr(run, "STARTUP_ALLOWANCE", 0.3)
    monkeypatch.setattr(batch, "HANDIN_RUNS", 1)  # 0.5 s: the first process's own deadline is past it
    folder = copy_of(reference, tmp_path / "sleeper", {"summarize.py": SLEEPER})
    graded = batch.Batch(batch.Options(0, timeout=0.2, isolation=False))
    result = graded.grade(folder)
    graded.readers.close()
    assert result.flags["over-time"] == "0.5 s" and result.volatile
    assert result.steps[8].misconceptions == ["timeout"]  # and what would have run after it, not started


def test_feedback_is_byte_identical_run_after_run_names_no_grader_path_and_names_numpy(reference, tmp_path,
                                                                                       monkeypatch):
    course = courses.practice()  # the same in a course: a course's grading runs the code twice (slower)
    folders = [copy_of(reference, tmp_path / "numpy", {"kvsim.py": "import numpy as np\n" + KVSIM,
                                                       "cliff.json": None, "ttft.jsonl": None})]
    made = []
    for _ in range(2):  # two batches: two scratch folders, two sets of run folders
        grades, _ = batch.grade_all(folders, 7, isolation=False)
        made.append(coursebook.feedback_files(course, grades, practice=True))
    assert made[0] == made[1]
    text = "\n".join(data.decode() for data in made[0].values())
    assert "/dev/shm" not in text and str(tmp_path) not in text and "kvlab-grade" not in text
    numpy = made[0]["numpy.md"].decode()
    assert "kvsim.py imports numpy, which the lab does not allow" in numpy


# --- 1 (the rest is tests/test_autograder.py's): where the fallback cannot hold, no grading ----------------------

def test_1_where_neither_bubblewrap_nor_the_fallback_holds_the_autograder_refuses_and_writes_nothing(tmp_path,
                                                                                                  monkeypatch, capsys):
    from kvlab.instructor import fallback
    source = tmp_path / "source"
    source.mkdir(mode=0o755)
    source.chmod(0o755)  # setup.sh did not make it private
    assert fallback.available([source]) == (False, f"{source} is open to other users (mode 755): setup.sh makes "
                                                   "it private") or os.geteuid() != 0
    for name, data in autograder.bundle_files(course_file(tmp_path / "c.toml").store.parent / "c.toml").items():
        (source / name).write_bytes(data)
    monkeypatch.setattr(sandbox, "available", lambda: (False, "no namespaces here"))
    results = tmp_path / "results" / "results.json"
    assert autograder.main([str(source), str(tmp_path), str(results)]) == 2 and not results.exists()
    assert capsys.readouterr().err.startswith("kvlab autograder: error: not grading here: bubblewrap cannot make")
