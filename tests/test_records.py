"""kvlab's own reading of measured files (kvlab.records) and writing of files (kvlab.files.write_atomically).

What summarize.py, the student's plain script, need not do: read any file a tool is given (a byte order
mark, bad text, a huge number, a pipe nobody writes to) with one InputError naming the file and the line,
and write a file whole or not at all, through a symbolic link, never over a read-only file.
"""
import contextlib
import json
import os
import signal
import stat

import pytest

from kvlab import files, records
from kvlab.records import InputError, iter_records, parse_line, read_records

OLD = b"the previous content\n"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def line(config="baseline", name="pass1-cold", ttft=576.0):
    return json.dumps({"config": config, "pass": name, "doc": 0, "doc_tokens": 4864, "ttft_ms": ttft,
                       "total_ms": 756.0})


@contextlib.contextmanager
def deadline(seconds=5):
    """Fail the test instead of hanging it when an open() or a read() blocks."""
    def expire(signum, frame):
        pytest.fail(f"still blocked after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class TestReading:
    def test_blank_lines_windows_endings_a_bom_and_no_final_newline(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_bytes(records.BOM + ("\n   \n" + line(ttft=1.0) + "\r\n\t \r\n\n" + line(ttft=3.0)).encode())
        assert [row["ttft_ms"] for row in read_records(path)] == [1.0, 3.0]

    def test_records_stream_one_at_a_time(self, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_text(line(ttft=1.0) + "\noops\n")
        rows = iter_records(path)
        assert next(rows)["ttft_ms"] == 1.0  # the bad line 2 is not read yet
        with pytest.raises(InputError, match="line 2"):
            next(rows)

    @pytest.mark.parametrize("field", records.FIELDS)
    def test_every_field_is_required(self, field):
        row = json.loads(line())
        del row[field]
        with pytest.raises(InputError, match=f"missing field {field}"):
            parse_line(json.dumps(row))

    @pytest.mark.parametrize("ttft", [0, 0.0, 12, 576.25, 1.7e308])
    def test_any_finite_non_negative_number_is_a_ttft(self, ttft):
        assert parse_line(line(ttft=ttft))["ttft_ms"] == ttft

    @pytest.mark.parametrize("bad, fragment", [
        ("nope", "not valid JSON"),
        ('{"config": "baseline", "pass"', "not valid JSON: the object is cut off"),
        (line() + " {}", "more text after the value"),
        ("[1, 2]", "not a JSON object"),
        ('"a line"', "not a JSON object"),
        (line(ttft="576"), "ttft_ms must be a number"),
        (line(ttft=None), "ttft_ms must be a number"),
        (line(ttft=True), "ttft_ms must be a number"),
        (line(ttft=[1]), "ttft_ms must be a number"),
        (line(ttft=-0.5), "ttft_ms must be a finite number >= 0"),
        (line(ttft=float("nan")), "ttft_ms must be a finite number >= 0"),
        (line(ttft=float("inf")), "ttft_ms must be a finite number >= 0"),
        (line(ttft=0).replace('"ttft_ms": 0', '"ttft_ms": 1' + "0" * 400), "ttft_ms must be a finite number"),
        (line(ttft=0).replace('"ttft_ms": 0', '"ttft_ms": 1' + "0" * 5000), "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
        (line(config="Baseline"), "unknown config 'Baseline'"),
        (line(name=""), "pass must be a non-empty string"),
        (line(name=3), "pass must be a non-empty string"),
    ], ids=["not-json", "cut-off", "extra-data", "array", "string", "ttft-string", "ttft-null", "ttft-true",
            "ttft-list", "ttft-negative", "ttft-nan", "ttft-infinity", "ttft-too-large", "ttft-too-many-digits",
            "deeply-nested", "config-capitalized", "pass-empty", "pass-not-a-string"])
    def test_a_bad_line(self, bad, fragment):
        with pytest.raises(InputError, match=fragment.replace("(", r"\(")) as error:
            parse_line(bad)
        assert "\n" not in str(error.value)

    @pytest.mark.parametrize("content, fragment", [
        (line().encode() + b"\n\n  \noops\n", "line 4: not valid JSON"),  # blank lines count
        (line().encode() + b"\n" + line().encode()[:40], "line 2: not valid JSON: the object is cut off"),
        (line().encode() + b"\n\n" + "caf\u00e9".encode("latin-1") + b"\n", "line 3: not UTF-8"),
        (b"\xff\xfe" + "{}".encode("utf-16-le"), "line 1: not UTF-8"),
        (b"", "no records"),
        (b"\n \n\t\n\n", "no records"),
    ], ids=["line-number", "cut-off-last-line", "latin-1", "utf-16", "empty", "only-blank-lines"])
    def test_a_bad_file_names_itself_and_the_line(self, content, fragment, tmp_path):
        path = tmp_path / "in.jsonl"
        path.write_bytes(content)
        with pytest.raises(InputError, match=fragment) as error:
            read_records(path)
        assert str(error.value).startswith(str(path))

    def test_a_folder_is_one_line(self, tmp_path):
        with pytest.raises(InputError, match="is a folder, not a file"):
            read_records(tmp_path)

    @needs_fifo
    def test_a_pipe_that_nobody_writes_to_reads_as_empty(self, tmp_path):
        fifo = tmp_path / "in.fifo"
        os.mkfifo(fifo)
        with deadline(), pytest.raises(InputError, match="no records"):
            read_records(fifo)


class TestWritingAFileWholeOrNotAtAll:
    def test_new_and_replaced_files_get_ordinary_permissions_and_no_temporary_file_stays(self, tmp_path):
        target = tmp_path / "out.json"
        files.write_atomically(target, "{}\n")
        target.write_bytes(OLD)
        files.write_atomically(target, b"[]\n")
        assert target.read_bytes() == b"[]\n"
        plain = tmp_path / "plain"
        plain.write_text("")  # what open() gives a new file; mkstemp's would be 0600
        assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
        assert sorted(os.listdir(tmp_path)) == ["out.json", "plain"]

    def test_a_symbolic_link_is_written_through_and_stays_a_link(self, tmp_path):
        target, link = tmp_path / "out.json", tmp_path / "link.json"
        target.write_bytes(OLD)
        link.symlink_to(target.name)
        files.write_atomically(link, b"{}\n")
        assert link.is_symlink() and os.readlink(link) == target.name and target.read_bytes() == b"{}\n"

    @pytest.mark.parametrize("kind, fragment", [("read-only", "is read-only"), ("folder", "is a folder"),
                                                ("no-folder", "does not exist"), ("loop", "leads nowhere")])
    def test_what_is_refused_is_one_oserror_naming_the_path_and_nothing_changes(self, kind, fragment, tmp_path):
        target = tmp_path / "out.json"
        if kind == "read-only":
            target.write_bytes(OLD)
            target.chmod(0o444)  # refused even for root, who could write it
        elif kind == "folder":
            target.mkdir()
        elif kind == "no-folder":
            target = tmp_path / "nowhere" / "out.json"
        else:
            target.symlink_to(target.name)
        with pytest.raises(files.Refused, match=fragment) as error:
            files.write_atomically(target, b"{}\n")
        assert isinstance(error.value, OSError) and str(error.value).startswith(str(target))
        assert kind != "read-only" or target.read_bytes() == OLD
        assert [name for name in os.listdir(tmp_path) if name.endswith(".tmp")] == []

    def test_a_failed_write_removes_its_temporary_file_and_keeps_the_old_file(self, tmp_path, monkeypatch):
        target = tmp_path / "out.json"
        target.write_bytes(OLD)

        def refuse(*args):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(files.os, "replace", refuse)
        with pytest.raises(OSError):
            files.write_atomically(target, "{}\n")
        assert os.listdir(tmp_path) == ["out.json"] and target.read_bytes() == OLD
