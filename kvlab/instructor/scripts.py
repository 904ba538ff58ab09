"""What a hand-in's scripts are, read without running them: the modules they import (so that a refused file,
a module that shadows the standard library or one the lab does not allow is named as a step's cause),
and their marks for similarity (kvlab.instructor.reader), compared with the reference, with the class
and with the course's earlier batches (kvlab.instructor.similarity).

A hand-in is read by a child process of its grading thread (Reader): at most PARSE_LIMIT bytes a file and
READ_BYTES a hand-in (the three scripts first, then the modules they import, nothing else), within
READ_SECONDS of wall-clock time a hand-in, after which the child is killed and the files not read are
flagged (not-read); no lock is shared across hand-ins.
"""
import hashlib
import json
import os
import resource
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple

from ..i18n import Msg
from . import reader, sandbox
from .judge import SCRIPTS, STEP_SCRIPT, Report

PARSE_LIMIT = 200_000     # bytes of a .py file the grader reads (a larger one is not read, and flagged)
READ_BYTES = 1_000_000    # bytes the grader reads of one hand-in, its files together
READ_SECONDS = 10.0       # wall-clock seconds the grader's reading of one hand-in may take (honest ones: milliseconds)
READER_MEMORY = 1_000_000_000  # bytes of address space of a reader process
READER = Path(reader.__file__).resolve()
REMEMBERED = 2_000        # distinct files a batch remembers what reading found in


class Reading(NamedTuple):
    """What reading a hand-in found: {module: the names it imports}, {script: its marks}, the files not read."""
    imports: dict
    marks: dict
    unread: tuple = ()


class Reader:
    """A child process that reads source for one grading thread at a time (reader.py's protocol): killed, and
    started again for the next hand-in, when one hand-in's reading passes its time."""

    def __init__(self):
        self.process = None

    def start(self):
        python = os.path.realpath(sys.executable)
        self.process = subprocess.Popen([python, "-I", "-S", str(READER)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            resource.prlimit(self.process.pid, resource.RLIMIT_AS, (READER_MEMORY, READER_MEMORY))
        except (OSError, ValueError):
            pass  # it stays bounded in time

    def ask(self, data, with_marks, ends):
        """{"imports", "marks"} of one file's bytes; None if the hand-in's time (`ends`, monotonic) ran out."""
        if self.process is None or self.process.poll() is not None:
            self.start()
        process = self.process  # (Readers.close() may end it from another thread: then this file is not read)
        try:
            process.stdin.write(f"{len(data)} {int(with_marks)}\n".encode() + data)
            process.stdin.flush()
            answer = self._line(process.stdout, ends)
        except (OSError, ValueError):
            answer = None
        if answer is None:
            self.close()  # killed mid-file: the next hand-in gets a new reader
            return None
        try:
            return json.loads(answer)
        except ValueError:
            self.close()
            return None

    @staticmethod
    def _line(stdout, ends):
        line = b""
        while not line.endswith(b"\n"):
            left = ends - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                return None
            chunk = os.read(stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            line += chunk
        return line

    def close(self):
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            process.wait()
            for pipe in (process.stdin, process.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass


class Readers:
    """One Reader per grading thread (nothing shared across hand-ins), all closed at the end of a batch."""

    def __init__(self):
        self.local, self.all, self.lock = threading.local(), [], threading.Lock()
        self.known = {}  # (the file's SHA-256, with marks) -> what reading it found: a class shares most files

    def read(self, data, with_marks, ends):
        """What reading `data` finds (once per distinct content and batch), or None if the time ran out."""
        key = (hashlib.sha256(data).digest(), with_marks)
        with self.lock:  # held for a look-up only, never while a file is read
            found = self.known.get(key)
        if found is None:
            found = self.mine().ask(data, with_marks, ends)
            if found is not None:
                with self.lock:
                    if len(self.known) >= REMEMBERED:
                        self.known.clear()
                    self.known[key] = found
        return found

    def mine(self):
        found = getattr(self.local, "reader", None)
        if found is None:
            found = self.local.reader = Reader()
            with self.lock:
                self.all.append(found)
        return found

    def close(self):
        with self.lock:
            for each in self.all:
                each.close()
            self.all.clear()


def read_handin(copy, readers=None, seconds=None):
    """The Reading of a snapshot: its three scripts (marks and imports), then the modules they import that it
    holds, breadth first, while READ_BYTES and `seconds` last. A file over PARSE_LIMIT bytes, or beyond
    either bound, is not read (listed in `unread`)."""
    own = readers is None
    readers = readers or Readers()
    ends, left = time.monotonic() + (READ_SECONDS if seconds is None else seconds), READ_BYTES
    imports, marks, unread, todo, seen = {}, {}, [], [name[:-3] for name in SCRIPTS], set()
    try:
        while todo:
            module = todo.pop(0)
            if module in seen:
                continue
            seen.add(module)
            path = Path(copy) / f"{module}.py"
            if not path.is_file() or path.is_symlink():
                continue
            data = path.read_bytes()
            if len(data) > min(PARSE_LIMIT, left) or time.monotonic() >= ends:
                unread.append(path.name)
                continue
            left -= len(data)
            found = readers.read(data, f"{module}.py" in SCRIPTS, ends)
            if found is None:
                unread.append(path.name)
                continue
            imports[module] = frozenset(found["imports"])
            if found["marks"] is not None:
                marks[f"{module}.py"] = tuple(found["marks"])
            todo += sorted(found["imports"])
    finally:
        if own:
            readers.close()
    return Reading(imports, marks, tuple(unread))


_READERS = Readers()  # imports(): one reader per thread that asks, kept for the process's life


def imports(copy):
    """{module: names it imports} of a snapshot, as the grader reads it."""
    return read_handin(copy, _READERS).imports


def reached(module, imported):
    """The module names `module` imports, directly or through the hand-in's other files, itself included."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imported.get(name, ()))
    return seen


REFUSED = (  # snapshot() field -> why a file was not taken, as the hint says it (a catalog message)
    ("symlinks", Msg("seen.refused-symlink")),
    ("too_big", Msg("seen.refused-too-big", size=sandbox.LARGEST_FILE)),
    ("unreadable", Msg("seen.refused-unreadable")),
)


def _joined(parts):
    """Messages one after the other, "; " between them, as one message (rendered when shown)."""
    return parts[0] if len(parts) == 1 else Msg("seen.list-semicolon", first=parts[0], rest=_joined(parts[1:]))


def refusals(found):
    """{file name: why snapshot() did not take it}."""
    return {name: why for attribute, why in REFUSED for name in getattr(found, attribute)}


def causes(reading, found, holds=()):
    """{step: (misconception, seen)} for steps whose code a refused file, a module that shadows the standard
    library, or a module the lab does not allow (numpy: the lab's scripts are standard library only)
    explains. `holds`: the hand-in's module names (its .py files)."""
    refused, imported = refusals(found), reading.imports
    shadowing = {name[:-3]: name for name in found.shadows_stdlib}
    explained = {}
    for number, script in STEP_SCRIPT.items():
        modules = reached(script, imported)
        bad = [Msg("seen.file-is", file=f"{name}.py", why=refused[f"{name}.py"])
               for name in sorted(modules) if f"{name}.py" in refused]
        shadows = [shadowing[name] for name in sorted(modules) if name in shadowing]
        foreign = sorted({(name, f"{module}.py") for module in modules for name in imported.get(module, ())
                          if name not in sys.stdlib_module_names and name not in holds and name != "__future__"})
        if bad:
            explained[number] = ("missing-file", Msg("seen.refused", files=_joined(bad)))
        elif shadows:
            statements = ", ".join(f"`import {name[:-3]}`" for name in shadows)
            explained[number] = ("shadows-stdlib", Msg("seen.shadows", files=", ".join(shadows), imports=statements,
                                                       script=f"{script}.py"))
        elif foreign:
            name, file = foreign[0]
            explained[number] = ("not-allowed-import", Msg("seen.not-allowed-import", module=name, file=file))
    return explained


def explain(report, cause):
    """The report with its first failure naming `cause` (misconception, seen) and the later ones held back."""
    rows, first = [], True
    for row in report.rows:
        if not row.ok:
            misconception, seen = cause
            if first and row.held is None and row.misconception not in ("", misconception) and row.seen is not None:
                seen = Msg("seen.and-then", cause=seen, happened=row.seen)
            row = (row._replace(misconception=misconception, seen=seen, held=None) if first
                   else row._replace(misconception="", held=Msg("check.held")))
            first = False
        rows.append(row)
    return Report(report.title, rows, report.note)
