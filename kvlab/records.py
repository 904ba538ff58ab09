"""Reading a measured file (JSONL, one request a line) for kvlab's own tools, whatever the file holds.

summarize.py is the student's script and stays plain. The instructor's tools (`kvlab artifacts`, the
grader's check of a hand-in's ttft.jsonl, the course file's measured file) and the notebooks' analysis
read files that nobody has checked: this reader streams them line by line, so a huge file costs no
memory; a UTF-8 byte order mark at the start is ignored; a pipe that no program writes to reads as
empty instead of waiting for ever; and every problem is one InputError naming the file and the line.
A record is a JSON object with the six fields of the lab text, config baseline or lmcache, a non-empty
pass name, and a finite ttft_ms >= 0 (json's NaN and Infinity, and integers too large for a float, are
refused). Standard library only, and no student code.
"""
import json
import os
import sys

CONFIGS = ("baseline", "lmcache")
FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")
BOM = b"\xef\xbb\xbf"  # what Windows editors put before UTF-8 text
_REQUIRED = frozenset(FIELDS)
_DECODER = json.JSONDecoder()


class InputError(ValueError):
    """A problem with the input, worded for the person who supplied it (one line)."""


def parse_line(text):
    """One JSON line to a record; raises InputError saying what is wrong with it."""
    text = text.strip()
    try:
        record, end = _DECODER.raw_decode(text)  # json.loads, without its two scans for spaces around
    except json.JSONDecodeError as error:
        if text.startswith("{") and not text.endswith("}"):
            raise InputError(f"not valid JSON: the object is cut off ({error.msg})") from None
        raise InputError(f"not valid JSON ({error.msg})") from None
    except (ValueError, RecursionError) as error:  # an integer of over 4300 digits; nesting too deep
        raise InputError(f"not valid JSON ({error})") from None
    if end != len(text):
        raise InputError("not valid JSON (more text after the value)")
    if not isinstance(record, dict):
        raise InputError("not a JSON object")
    if not record.keys() >= _REQUIRED:
        missing = [field for field in FIELDS if field not in record]
        raise InputError(f"missing field {', '.join(missing)}")
    if record["config"] not in CONFIGS:
        raise InputError(f"unknown config {record['config']!r} (expected baseline or lmcache)")
    if not isinstance(record["pass"], str) or not record["pass"]:
        raise InputError(f"pass must be a non-empty string, got {record['pass']!r}")
    ttft = record["ttft_ms"]
    if type(ttft) not in (int, float):  # what json makes of a number; true and false are not numbers here
        raise InputError(f"ttft_ms must be a number, got {ttft!r}")
    if not 0 <= ttft <= sys.float_info.max:  # also rejects NaN, and integers too large for a float
        raise InputError(f"ttft_ms must be a finite number >= 0, got {ttft!r}")
    return record


def iter_records(path):
    """The records of a JSONL file, one at a time; an InputError names the file and the line number."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder, not a file")
    found = False
    with _open_for_reading(path) as file:
        for number, raw in enumerate(file, start=1):
            if number == 1:
                raw = raw.removeprefix(BOM)
            try:
                line = raw.decode("utf-8")  # line by line, so that bad text gets its line number
            except UnicodeDecodeError as error:
                raise InputError(f"{path}, line {number}: not UTF-8 text ({error.reason})") from None
            if not line.strip():  # empty, or only spaces and tabs
                continue
            try:
                record = parse_line(line)
            except InputError as error:
                raise InputError(f"{path}, line {number}: {error}") from None
            found = True
            yield record
    if not found:
        raise InputError(f"{path}: no records (the file is empty or only blank lines)")


def read_records(path):
    """All the records of a JSONL file as a list (iter_records reads them one at a time)."""
    return list(iter_records(path))


def _open_for_reading(path):
    """open(path, "rb"), except that a pipe with no writer reads as empty instead of waiting for ever."""
    if not hasattr(os, "O_NONBLOCK"):  # Windows: no named pipes in the file system
        return open(path, "rb")
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO waits for a writer otherwise
    os.set_blocking(descriptor, True)  # reading waits for data as usual
    return open(descriptor, "rb")
