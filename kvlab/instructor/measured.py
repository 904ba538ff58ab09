"""Step 8's measured file: the one hand-ins are compared with (the course's, or the lab's).

A hand-in's own ttft.jsonl and measured.json are judged by step 8's module (kvlab/lab/step8_summarize.py):
ttft.jsonl must hold the records of this measured file, measured.json what the hand-in's summarize.py
writes for its ttft.jsonl.
"""
import json
from pathlib import Path
from typing import NamedTuple

from .. import paths, records
from ..errors import UserError
from ..i18n import Msg


class Measurement(NamedTuple):
    """A measured file: where it is, its lines, its records; `real` unless it is the repository's stand-in;
    `name`: how a report names it (a catalog message: never a path of the grader's machine)."""
    path: Path
    lines: list
    records: list
    real: bool
    name: object = Msg("grade.lab-measurement")


def lab_measurement(course=None):
    """The measured file hand-ins are compared with; UserError if it cannot be read.

    In practice mode: paths.ttft_source() (compared unless it is the stand-in). With a course: the
    course's measurement, always compared; if the course names none, the stand-in, never compared (a
    grade depends on the hand-in and the course file only, never on $KVLAB_TTFT or this machine's file).
    """
    if course is not None:
        path = course.measurement or paths.STAND_IN_TTFT
    else:
        path = paths.ttft_source()
    try:
        found = records.read_records(path)
        lines = paths.measured_lines(path)
    except (OSError, records.InputError) as error:
        raise UserError(f"the lab's measured file cannot be read: {error}") from None
    compared = bool(course.measurement) if course is not None else not paths.is_stand_in(path)
    name = Msg("grade.course-measurement") if course is not None and compared else Msg("grade.lab-measurement")
    return Measurement(path, lines, found, compared, name)


def own_records(text):
    """The records of a hand-in's ttft.jsonl text (a byte order mark and blank lines ignored); None if unreadable."""
    found = []
    for line in text.lstrip("\ufeff").splitlines():
        if line.strip():
            try:
                found.append(json.loads(line))
            except ValueError:
                return None
    return found
