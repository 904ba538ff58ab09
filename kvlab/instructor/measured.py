"""Step 8's files: the measured file hand-ins are compared with (the course's, or the lab's), a hand-in's
own ttft.jsonl, and the rows that say which of ttft.jsonl and measured.json is wrong.
"""
from pathlib import Path
from typing import NamedTuple

from .. import paths, summarize
from ..errors import UserError
from ..i18n import Msg
from .judge import Row, Wrong, file_row, measured_judge, read_text

MEASURED_RULE = Msg("rule.artifact", file="measured.json")
TTFT_RULE = Msg("rule.ttft-unchanged")


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
        records = summarize.read_records(path)
        lines = paths.measured_lines(path)
    except (OSError, summarize.InputError) as error:
        raise UserError(f"the lab's measured file cannot be read: {error}") from None
    compared = bool(course.measurement) if course is not None else not paths.is_stand_in(path)
    name = Msg("grade.course-measurement") if course is not None and compared else Msg("grade.lab-measurement")
    return Measurement(path, lines, records, compared, name)


def own_measurement(copy, refused):
    """(the snapshot's ttft.jsonl as a Measurement, None, "") or (None, misconception, what is wrong with it)."""
    path = Path(copy) / "ttft.jsonl"
    if "ttft.jsonl" in refused:
        return None, "missing-file", Msg("seen.ttft-refused", why=refused["ttft.jsonl"])
    if not path.is_file():
        return None, "missing-file", Msg("seen.no-ttft")
    try:
        records = summarize.read_records(path)
    except summarize.InputError as error:
        reason = str(error).replace(str(path), "ttft.jsonl")
        return None, "ttft-changed", Msg("seen.ttft-unreadable", reason=reason)
    return Measurement(path, paths.measured_lines(path), records, True), None, ""


def measured_rows(copy, own, trouble, lab, oracle, refused):
    """Step 8's rows about ttft.jsonl and measured.json, each naming the file that is wrong.

    `trouble` is (misconception, what is wrong) when the folder's own ttft.jsonl cannot be used.
    """
    def measured(judge):
        if "measured.json" in refused:
            return Row(MEASURED_RULE, False, "missing-file",
                       Msg("seen.refused", files=Msg("seen.file-is", file="measured.json", why=refused["measured.json"])))
        return file_row("artifact.measured.json", MEASURED_RULE, read_text(Path(copy) / "measured.json"),
                        judge, where="the hand-in")

    if own is None:  # the lab's file stands in for the hand-in's
        misconception, problem = trouble
        instead = Msg("seen.ttft-instead", problem=problem, path=lab.name)
        return [Row(TTFT_RULE, False, misconception, instead),
                measured(measured_judge(lab.lines, oracle))]

    def judge(text):
        try:
            measured_judge(own.lines, oracle)(text)
        except Wrong as wrong:
            if own.records == lab.records:
                raise
            try:
                measured_judge(lab.lines, oracle)(text)
            except Wrong:
                raise wrong from None  # it summarizes neither file: the summary itself is wrong
            if lab.real:
                raise Wrong("ttft-changed", Msg("seen.ttft-changed", path=lab.name)) from None
            raise Wrong("measured-other-file", Msg("seen.measured-other", path=lab.name)) from None
    rows = [measured(judge)]
    if lab.real and own.records != lab.records:
        rows.append(Row(TTFT_RULE, False, "ttft-changed", Msg("seen.ttft-differs", path=lab.name)))
    return rows
