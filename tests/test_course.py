"""kvlab course init and kvlab grade --course: the same grade on every machine, scores as the README says,
practice mode marked, hidden cases never shown, the course CSV, feedback files and the class report.

Most tests fake the grading (batch.Batch.grade_copy) as tests/test_grade.py does; one grades two real
hand-ins, without the sandbox (KVLAB_NO_ISOLATION=1), end to end.
"""
import csv
import datetime
import json
import re
from pathlib import Path

import pytest

from helpers import summary_of
from kvlab import cli, handin
from kvlab.check.report import Report, Row
from kvlab.i18n import Msg, t
from kvlab.instructor import artifacts, batch, course as courses, coursebook, grade, gradebook, sandbox
from kvlab.instructor.measured import lab_measurement

AVAILABLE, WHY = sandbox.available()
SECRET = "ab" * 32


def course_file(path, extra="", secret=SECRET):
    Path(path).write_text(f'secret = "{secret}"\n{extra}', encoding="utf-8")
    return Path(path)


def rows_of(step, failing=()):
    """The rows of a step's rules, the ones in `failing` ✗ (a hidden rule's row has no `seen`, as graded)."""
    from kvlab import lab as steps
    made = []
    for spec in steps.STEPS[step].rules:
        ok = spec.id not in failing
        made.append(Row(Msg("rule.written", file=spec.id), ok,
                        "" if ok else "fifo", None if ok else Msg("seen.refused", files="x"),
                        rule_id=spec.id))
    return made


def fake_grade(folder, seed=0, failing=()):
    """A cheap grade: every rule of every step holds, but those in `failing`."""
    reports = {number: Report(Msg("step.1.title"), rows_of(number, failing)) for number in range(1, 9)}
    return batch.Grade(str(folder), batch.seed_fingerprint(seed), reports)


def hand_ins(root, names=("alice", "bob")):
    made = []
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "kvsim.py").write_text(f"# {name}\n")
        made.append(root / name)
    return made


def run_cli(argv, capsys):
    try:
        code = cli.main(argv) or 0
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_init_writes_a_valid_file_with_a_fresh_secret_and_never_overwrites(tmp_path, capsys):
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    assert run_cli(["course", "init", str(first)], capsys)[0] == 0
    run_cli(["course", "init", str(second)], capsys)
    loaded = courses.load(first)
    assert re.fullmatch(r"[0-9a-f]{64}", loaded.secret) and loaded.secret != courses.load(second).secret
    assert loaded.max_total == sum(spec.points for step in courses.lab_table.STEPS.values() for spec in step.rules)
    text = first.read_text()
    code, out, err = run_cli(["course", "init", str(first)], capsys)
    assert (code, out, first.read_text()) == (2, "", text) and err.count("\n") == 1 and "exists" in err
    assert loaded.secret not in repr(loaded)


def test_the_readmes_course_file_and_the_examples_of_init_are_valid(tmp_path, capsys):
    """The README's example course file loads as it is written (its placeholders filled), and every rule that
    `kvlab course init` shows as an example is a rule of the lab."""
    import hashlib
    from helpers import ROOT, STAND_IN
    readme = (ROOT / "README.md").read_text()
    example = next(block for block in re.findall(r"```toml\n(.*?)```", readme, re.DOTALL) if "secret =" in block)
    (tmp_path / "ttft.jsonl").write_bytes(STAND_IN.read_bytes())
    example = example.replace('"…64 hex digits…"', f'"{"ab" * 32}"').replace(
        '"…"', f'"{hashlib.sha256(STAND_IN.read_bytes()).hexdigest()}"')
    (tmp_path / "course.toml").write_text(example)
    loaded = courses.load(tmp_path / "course.toml")
    assert loaded.rule_points and set(loaded.rule_points) <= {rule.id for step in courses.lab_table.STEPS.values()
                                                               for rule in step.rules}
    assert run_cli(["course", "init", str(tmp_path / "new.toml")], capsys)[0] == 0
    shown = re.findall(r'^# "([\w.-]+)" = ', (tmp_path / "new.toml").read_text(), re.MULTILINE)
    rules = {rule.id for step in courses.lab_table.STEPS.values() for rule in step.rules}
    assert [name for name in shown if not name.isdigit() and name not in rules] == []


@pytest.mark.parametrize("extra, fragment", [
    ("secret2 = 1\n", "unknown setting"),
    ("[points.rules]\n\"lru.nope\" = 2\n", "lru.nope"),
    ("[points.steps]\n\"9\" = 2\n", "step 1 to 8"),
    ("due = 2026-12-15T23:59:00\n", "time zone"),
    ("due = 2026-12-15T23:59:00Z\nlate_penalty_per_day = 2\n", "late_penalty_per_day"),
    ("late_penalty_per_day = 0.1\n", "due date"),
    ("[roster]\na = \"s1\"\nb = \"s1\"\n", "one student id"),
    ("= broken\n", "not valid TOML"),
    ("[points]\nrules = 3\n", "[points.rules]"),
])
def test_a_bad_course_file_is_one_line_and_status_2(tmp_path, capsys, monkeypatch, extra, fragment):
    path = course_file(tmp_path / "c.toml", extra)
    monkeypatch.setenv(grade.NO_ISOLATION, "1")
    monkeypatch.setattr(grade, "grade_all", lambda *args, **kwargs: pytest.fail("graded"))
    code, out, err = run_cli(["grade", "--course", str(path), "--", str(tmp_path)], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1 and fragment in err, err
    assert SECRET not in err


def test_partial_credit_per_rule_and_the_late_penalty_compute_as_documented(tmp_path):
    path = course_file(tmp_path / "c.toml", 'due = 2026-12-15T23:59:00+00:00\nlate_penalty_per_day = 0.1\n'
                       'max_late_days = 3\n[points.steps]\n"8" = 4\n[points.rules]\n"lru.fresh" = 3\n'
                       '[roster]\nlate = { id = "s2", submitted_at = 2026-12-17T00:30:00+00:00 }\n'
                       'later = { id = "s3", submitted_at = 2026-12-19T00:30:00+00:00 }\nontime = "s1"\n')
    course = courses.load(path)
    lru = courses.lab_table.STEPS[1].points  # its rules' points; lru.fresh weighs 3 instead of 1
    assert course.step_points[1] == lru + 2 and course.step_points[8] == 4
    failing = ("lru.fresh", "summary.n")
    report = fake_grade("x", failing=failing).steps
    assert courses.step_points(course, 1, report[1]) == round((lru + 2) * (lru - 1) / (lru + 2), 2)
    rules8 = courses.lab_table.STEPS[8].points  # summary.n weighs 1 of them
    assert courses.step_points(course, 8, report[8]) == round(4 * (rules8 - 1) / rules8, 2)
    (tmp_path / "ontime").mkdir()
    (tmp_path / "ontime" / "kvsim.py").write_text("")
    on_time = courses.score(course, fake_grade(tmp_path / "ontime"))  # its file's mtime is now: before the due date
    late = courses.score(course, fake_grade(tmp_path / "late", failing=failing))
    later = courses.score(course, fake_grade(tmp_path / "later"))
    assert (on_time.late, on_time.total) == (0, course.max_total)
    assert late.late == 2 and late.total == round(late.raw * 0.8, 2) and late.raw < course.max_total
    assert (later.late, later.too_late, later.total) == (4, True, 0)
    strict = courses.Course(SECRET, course.step_points, course.rule_points, partial=False)
    assert courses.step_points(strict, 1, report[1]) == 0


@pytest.mark.skipif(not AVAILABLE, reason=WHY)
def test_one_course_file_gives_byte_identical_outputs_on_two_machines(tmp_path, capsys, monkeypatch):
    folders = hand_ins(tmp_path / "handins")
    path = course_file(tmp_path / "c.toml", '[roster]\nalice = "s1001"\n')
    seeds = []

    def grade_copy(self, folder, copy, found):
        seeds.append(self.options.seed)
        return fake_grade(folder, self.options.seed, failing=("lru.fresh", "lru.keys"))
    monkeypatch.setattr(batch.Batch, "grade_copy", grade_copy)
    outputs = []
    for machine in ("one", "two"):
        home = tmp_path / machine
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
        out_dir = tmp_path / f"out-{machine}"
        out_dir.mkdir()
        code, out, _ = run_cli(["grade", "--course", str(path), "--json", "--csv", str(out_dir / "g.csv"),
                                "--feedback", str(out_dir / "feedback"), "--", *map(str, folders)], capsys)
        assert code == 1 and (home / "cache" / "kvlab" / "grades").is_dir()  # a fresh cache on each machine
        files = {p.relative_to(out_dir): p.read_bytes() for p in sorted(out_dir.rglob("*")) if p.is_file()}
        outputs.append((out, files))
    assert outputs[0] == outputs[1] and len(seeds) == 4 and len(set(seeds)) == 1
    out, files = outputs[0]
    assert sorted(map(str, files)) == ["feedback/s1001.html", "feedback/s1001.md", "feedback/unlisted-bob.html",
                                       "feedback/unlisted-bob.md", "g.csv"]
    for text in [out, *(data.decode() for data in files.values())]:
        assert SECRET not in text and seeds[0] not in text  # neither the secret nor the seed it keys
    assert json.loads(out)["course"] == courses.load(path).fingerprint
    other = courses.load(course_file(tmp_path / "d.toml", secret="cd" * 32))
    assert other.seed != seeds[0] and other.fingerprint != courses.load(path).fingerprint
    draws = {seed: courses.lab_table.rng_for(seed, 1, "hidden").random() for seed in (seeds[0], other.seed)}
    assert len(set(draws.values())) == 2  # another secret, other hidden cases
    rows = list(csv.reader(io_text(files[Path("g.csv")])))
    assert rows[0] == gradebook.COURSE_HEADER and [row[:2] for row in rows[1:]] == [["s1001", "alice"], ["", "bob"]]
    feedback = files[Path("feedback/s1001.html")].decode()  # the Markdown escapes move_to_end's underscores
    assert t("hint.fifo") in feedback and "lru.keys" in feedback


def io_text(data):
    import io
    return io.StringIO(data.decode())


def test_the_cache_key_holds_the_course(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kvsim.py").write_text("x = 1\n")
    found = sandbox.snapshot(tmp_path / "src", tmp_path / "copy")
    keys = {batch.Batch(batch.Options(seed=1, isolation=False, course=name)).key(tmp_path / "copy", found)
            for name in ("aaa", "bbb")}
    assert len(keys) == 2


def test_practice_mode_is_marked_everywhere_and_feedback_is_never_replaced_without_force(tmp_path, capsys,
                                                                                       monkeypatch):
    pytest.importorskip("matplotlib")  # the class report's chart: absent from the fast test path
    folders = hand_ins(tmp_path / "handins")
    monkeypatch.setenv(grade.NO_ISOLATION, "1")
    monkeypatch.setattr(batch.Batch, "grade_copy", lambda self, folder, copy, found: fake_grade(folder))
    argv = ["grade", "--json", "--csv", str(tmp_path / "g.csv"), "--feedback", str(tmp_path / "fb"), "--report",
            str(tmp_path / "report"), "--", *map(str, folders)]
    code, out, err = run_cli(argv, capsys)
    document = json.loads(out)
    assert code == 0 and document["mode"] == "practice" and all(f["practice"] for f in document["folders"])
    assert all("practice" in row[-1] for row in list(csv.reader((tmp_path / "g.csv").open()))[1:])
    assert t("course.practice-line") in (tmp_path / "fb" / "alice.md").read_text()
    assert (tmp_path / "report" / "class.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Practice" in (tmp_path / "report" / "class.md").read_text()
    (tmp_path / "fb" / "alice.md").write_text("my notes\n")
    code, out, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 2 and "--force" in err  # the NO_ISOLATION warning, then the refusal
    assert (tmp_path / "fb" / "alice.md").read_text() == "my notes\n"
    code, _, _ = run_cli(argv[:1] + ["--force"] + argv[1:], capsys)
    assert code == 0 and (tmp_path / "fb" / "alice.md").read_text() != "my notes\n"
    code, out, _ = run_cli(["grade", "--", str(folders[0])], capsys)
    assert "PRACTICE" in out


def test_the_course_names_its_measurement_and_nothing_else_is_compared(tmp_path, capsys, monkeypatch):
    from kvlab import paths
    measured = tmp_path / "data" / "ttft.jsonl"
    measured.parent.mkdir()
    measured.write_bytes(paths.STAND_IN_TTFT.read_bytes())
    code, out, _ = run_cli(["course", "init", str(tmp_path / "c.toml"), "--measurement", str(measured)], capsys)
    course = courses.load(tmp_path / "c.toml")
    assert code == 0 and course.measurement == measured and 'measurement = "data/ttft.jsonl"' in \
        (tmp_path / "c.toml").read_text()
    monkeypatch.setenv("KVLAB_TTFT", str(tmp_path / "elsewhere.jsonl"))  # never read with a course
    assert lab_measurement(course).path == measured and lab_measurement(course).real
    plain = courses.load(course_file(tmp_path / "plain.toml"))
    assert lab_measurement(plain).path == paths.STAND_IN_TTFT and not lab_measurement(plain).real
    measured.write_text(measured.read_text()[:-1])  # another TA's copy differs by one character
    with pytest.raises(courses.UserError, match="SHA-256 differs"):
        courses.load(tmp_path / "c.toml")
    code, _, err = run_cli(["course", "init", str(tmp_path / "d.toml"), "--measurement", str(tmp_path / "no")],
                           capsys)
    assert code == 2 and err.count("\n") == 1 and "no such file" in err and not (tmp_path / "d.toml").exists()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    folder, written = tmp_path_factory.mktemp("reference"), tmp_path_factory.mktemp("artifacts")
    artifacts.write(written)
    handin.handin(folder, artifacts=written)
    return folder


def test_three_real_hand_ins_graded_for_a_course_end_to_end(reference, tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")  # the class report's chart: absent from the fast test path
    import shutil
    good, bad = tmp_path / "good", tmp_path / "bad"
    shutil.copytree(reference, good)
    shutil.copytree(reference, bad)
    (bad / "summarize.py").unlink()
    dropped = tmp_path / "dropped"  # one line of its ttft.jsonl left out, and measured.json made from what is left
    shutil.copytree(reference, dropped)
    (dropped / "ttft.jsonl").write_text("".join((reference / "ttft.jsonl").read_text().splitlines(True)[1:]))
    (dropped / "measured.json").write_text(summary_of(dropped / "ttft.jsonl"))
    shutil.copy(reference / "ttft.jsonl", tmp_path / "course-ttft.jsonl")
    measured = f'measurement = "course-ttft.jsonl"\nmeasurement_sha256 = "{courses.sha256(tmp_path / "course-ttft.jsonl")}"\n'
    path = course_file(tmp_path / "c.toml", measured + 'due = 2026-12-15T23:59:00+00:00\nlate_penalty_per_day = 0.25\n'
                       '[roster]\ngood = "s1"\nbad = { id = "s2", submitted_at = 2026-12-16T12:00:00+00:00 }\n')
    monkeypatch.setenv("KVLAB_TTFT", str(dropped / "ttft.jsonl"))  # ignored with a course: its measurement counts
    monkeypatch.setenv(grade.NO_ISOLATION, "1")
    monkeypatch.setattr(courses, "newest_mtime", lambda folder: datetime.datetime(2026, 12, 1).timestamp())
    code, out, err = run_cli(["grade", "--course", str(path), "--csv", str(tmp_path / "g.csv"), "--canvas",
                              str(tmp_path / "canvas.csv"), "--feedback", str(tmp_path / "fb"), "--report",
                              str(tmp_path / "report"), "--", str(good), str(bad), str(dropped)], capsys)
    assert code == 1 and courses.load(path).fingerprint in out
    course = courses.load(path)
    canvas = list(csv.reader((tmp_path / "canvas.csv").open()))
    assert canvas[0][-1] == "kvlab" and canvas[1][0] == "Points Possible" and [row[2] for row in canvas[2:]] == \
        ["s1", "s2", ""]  # the roster's two students, then the folder it does not name
    rows = list(csv.reader((tmp_path / "g.csv").open()))
    assert rows[1][:10] == ["s1", "good", *(coursebook.number(course.step_points[n]) for n in range(1, 9))]
    assert rows[1][10:13] == [str(course.max_total)] * 2 + ["0"] and "similar-to-reference" in rows[1][13]
    assert rows[2][9] != str(course.step_points[8]) and rows[2][12] == "1"
    assert float(rows[2][10]) == round(sum(map(float, rows[2][2:10])) * 0.75, 2)
    assert rows[3][1] == "dropped" and rows[3][9] != str(course.step_points[8]) and "ttft-changed" in rows[3][13]
    feedback = (tmp_path / "fb" / "s2.md").read_text()
    assert t("course.failing-step", number=8, title=t("step.8.title")) in feedback
    assert "25%" in feedback and (tmp_path / "fb" / "s2.html").read_text().startswith("<!DOCTYPE html>")
    summary = (tmp_path / "report" / "class.md").read_text()
    assert "| 8 | summarize.py and measured.json | 1 of 3 |" in summary and "missing-file" in summary
    assert (tmp_path / "report" / "class.png").stat().st_size > 5000
    for output in [out, err, *(p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*")
                               if p.is_file() and p.parent.name in ("fb", "report") or p.name == "g.csv")]:
        assert course.secret not in output and course.seed not in output
    monkeypatch.setenv("KVLAB_LANG", "en")  # --lang sets it for the process: restored after the test
    code, _, _ = run_cli(["grade", "--lang", "ja", "--course", str(path), "--feedback", str(tmp_path / "fb-ja"),
                          "--report", str(tmp_path / "report-ja"), "--", str(good), str(bad), str(dropped)], capsys)
    assert code == 1  # the same grades (from the cache), their feedback and report in Japanese
    assert t("course.failing-step", "ja", number=8, title=t("step.8.title", "ja")) in \
        (tmp_path / "fb-ja" / "s2.md").read_text()
    report = (tmp_path / "report-ja" / "class.md").read_text()
    assert report.startswith(f"# {t('report.title', 'ja')}\n") and t("report.passed-of", "ja", passed=1, total=3) in report


def test_lateness_reads_the_files_of_a_wrong_layout_and_a_zips_own_time(tmp_path):
    import os
    import zipfile
    (tmp_path / "down" / "lab").mkdir(parents=True)
    (tmp_path / "down" / "lab" / "kvsim.py").write_text("")
    os.utime(tmp_path / "down" / "lab" / "kvsim.py", (1_000_000, 1_000_000))
    assert courses.newest_mtime(tmp_path / "down") == 1_000_000
    with zipfile.ZipFile(tmp_path / "h.zip", "w") as package:
        package.writestr("kvsim.py", "")
    os.utime(tmp_path / "h.zip", (2_000_000, 2_000_000))
    assert courses.newest_mtime(tmp_path / "h.zip") == 2_000_000
