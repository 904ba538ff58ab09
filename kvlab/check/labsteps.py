"""The steps' reports: a Result of kvlab.check.engine as rows a student reads, and the points they earn.

A step whose code is not there (its stub not written, its file or class missing, step 6's --cpu refused
or changing nothing) is one row saying so, and earns 0. Otherwise each rule that applies is a row. The
step's root cause comes first: the rule chosen on the smallest case shows that case, the student's value
beside the lab's, and the hint of the misconception it recognises (or none: the case says what differs);
every other failing row holds its hint back. A hidden case is never shown. A step whose code runs on
an earlier step's failing code (in the student's own check, which has no reference to stand in for it)
holds its hints back and names that step.
"""
from ..i18n import Msg, t
from .. import lab
from ..lab.base import FILES
from ..lab.outcomes import compared
from .report import Report, Row, hold_back, printable

TITLES = {number: step.title for number, step in lab.STEPS.items()}
SHOWN = 240    # characters of a value shown beside the lab's (a pass shown by its fields takes about 75)


def title(number):
    kind = "check.exercise-title" if lab.is_exercise(number) else "check.step-title"
    return Msg(kind, number=lab.shown_number(number), title=Msg(lab.step(number).title))


def value_text(value, stop=None):
    """A view's item as a student reads it: the value, or how the run stopped (an exception, no JSON, ...)."""
    if isinstance(value, list):  # several runs, one of which stopped: how it stopped is what to read
        stopped = next((item for item in value if isinstance(item, dict) and set(item) == {"stop"}), None)
        if stopped is not None:
            return value_text(stopped, stop)
    if isinstance(value, dict) and set(value) == {"stop"}:
        value = value["stop"]
    if isinstance(value, dict) and "stop" in value and set(value) <= {"stop", "type", "at"}:
        return stop_text(stop if stop and compared(stop) == value else value)
    if isinstance(value, dict) and "$method" in value:
        return Msg("seen.a-method")
    if isinstance(value, dict) and set(value) == {"$keys"}:  # keys() twice, per cache (step 1's lru.fresh)
        return keys_text(value["$keys"])
    if isinstance(value, dict) and "$type" in value and "items" in value:
        return Msg("seen.a-view", type=printable(value["$type"], 40), items=printable(repr(value["items"]), SHOWN))
    return printable(repr(value), SHOWN)


def keys_text(answers):
    """What keys() gave when called twice, for the first cache whose answer is not a new list (else the first)."""
    if not answers or not isinstance(answers, list) or not all(
            isinstance(answer, list) and len(answer) == 2 and isinstance(answer[0], str) for answer in answers):
        return printable(repr(answers), SHOWN)
    kind, same = next((answer for answer in answers if answer != ["list", False]), answers[0])
    if kind != "list":
        return Msg("seen.keys-type", type=printable(kind, 40))
    return Msg("seen.keys-same", type="list") if same else Msg("seen.keys-fresh")


def stop_text(stop):
    kind = stop.get("stop")
    if kind in ("raised", "import"):
        return Msg("seen.stopped-raised", type=printable(stop.get("type"), 60),
                   where=printable(stop.get("where") or "?", 80), message=printable(stop.get("message") or "", 160))
    if kind == "exit":
        return Msg("seen.stopped-exit", code=stop.get("code"))
    if kind == "no-json":
        return Msg("seen.stopped-no-json", start=printable(repr(stop.get("text") or ""), 80))
    return Msg(f"seen.stopped-{kind}") if kind in STOPS else Msg("seen.stopped-other", kind=printable(kind, 40))


STOPS = ("timeout", "flood", "killed", "protocol", "not-run", "missing", "missing-name", "no-output-file")
HINTS = {"raised": "crash", "import": "import-failed", "exit": "crash", "timeout": "timeout", "flood": "output-flood",
         "killed": "killed", "protocol": "protocol", "not-run": "timeout", "no-json": "not-json",
         "missing-name": "missing-method", "missing": "missing-file", "no-output-file": "no-output-file"}


def stop_hint(stop):
    """The hint of a run that stopped, by how it stopped (decided where it happened, never read from a message)."""
    if stop.get("stop") in ("raised", "import") and stop.get("type") == "ModuleNotFoundError" and \
            stop.get("name") == lab.STEPS[lab.NUMBERS[0]].file[:-3]:  # the module the driver saw missing: kvsim
        return "kvsim-missing"
    return HINTS.get(stop.get("stop"), "crash")


def difference(step, verdict):
    """What the row shows of its case: the case, then the student's value beside the lab's."""
    module = step.module
    own = module.difference(verdict.case) if hasattr(module, "difference") else None
    if own is not None:  # a case whose difference the step's module says itself (a changed measured file)
        message, values = own
        return Msg(message, **{name: Msg("seen.no-line") if value is None else
                               printable(value, 160) if isinstance(value, str) else value for name, value in values.items()})
    case = printable(module.show(verdict.case), 600)
    got, want, at = verdict.got, verdict.want, verdict.at
    if want is None:
        return Msg("seen.case", case=case, difference=Msg("seen.yours", got=value_text(got, verdict.stop)))
    if isinstance(got, list) and isinstance(want, list) and at is not None:
        mine = got[at] if at < len(got) else None
        theirs = want[at] if at < len(want) else None
        where = module.label(verdict.case, at) if hasattr(module, "label") else ""
        if where:
            return Msg("seen.case", case=case, difference=Msg("seen.differs-at", at=where, got=value_text(mine, verdict.stop),
                                                              want=value_text(theirs)))
        if isinstance(mine, dict) and "stop" in mine:  # it stopped before the case's first read
            return Msg("seen.case", case=case, difference=Msg("seen.yours", got=value_text(mine, verdict.stop)))
    return Msg("seen.case", case=case, difference=Msg("seen.differs", got=value_text(got, verdict.stop),
                                                      want=value_text(want)))


def absent_row(step, stop):
    """The one row of a step whose code is not there."""
    kind, text = stop.get("stop"), Msg("rule.written", file=step.file)
    if stop.get("type") == "NotImplementedError":  # the stub's own step: the one whose function it is
        where = (stop.get("where") or step.file).rpartition(":")[0] or step.file
        number = lab.step_of(where, stop.get("function") or "") or step.number
        return Row(text, False, "not-written", Msg("stub.not-written", step=lab.shown_number(number),
                                                   function=printable(stop.get("function") or "?", 80),
                                                   file=printable(where.rpartition("/")[2], 80)),
                   rule_id="written")
    if kind == "missing":
        return Row(text, False, "missing-file", Msg("seen.file-missing", file=step.file), rule_id="written")
    if kind == "missing-name":
        return Row(text, False, "missing-class", Msg("seen.no-name", name=printable(stop.get("name"), 80)),
                   rule_id="written")
    if kind == "import":
        return Row(text, False, "import-failed", stop_text(stop), rule_id="written")
    return Row(text, False, kind, rule_id="written")


def report_of(step, result):
    """A step's Report from its engine Result."""
    if result.absent is not None:
        return Report(title(step.number), [absent_row(step, result.absent)])
    rows = []
    failing = [verdict.rule for verdict in result.verdicts if verdict.applies and not verdict.ok]
    shown_rule = result.shown if result.shown in failing else next(iter(failing), "")  # a failure always has a hint
    for verdict in result.verdicts:
        if not verdict.applies:
            if verdict.note is not None:  # not charged here: another step pays for it, or it waits for one
                rows.append(Row(Msg(step.rule(verdict.rule).text), True, held=verdict.note, skipped=True,
                                rule_id=verdict.rule))
            continue
        text = Msg(step.rule(verdict.rule).text)
        if verdict.ok:
            rows.append(Row(text, True, rule_id=verdict.rule))
            continue
        shown = verdict.rule == shown_rule
        seen = Msg("seen.case-hidden") if verdict.hidden else difference(step, verdict)
        cause = result.misconception if shown_rule == result.shown else ""
        misconception = (cause or (stop_hint(verdict.stop) if verdict.stop else "differs")) if shown else ""
        if misconception == "missing-artifact":
            seen = None  # the file is not there: no case to show, only where it comes from
        rows.append(Row(text, False, misconception, seen if shown else None, rule_id=verdict.rule))
    if not rows:  # nothing of it was judged: a step judged on a saved file, with no folder of saved files given
        rows.append(Row(Msg("check.not-judged"), False, skipped=True, held=Msg("check.not-judged-why"), rule_id=""))
    first = next((index for index, row in enumerate(rows) if not row.ok and row.rule_id == shown_rule), None)
    if first is not None:  # the root cause first among the failures: the others hold their hints back
        rows.insert(next(index for index, row in enumerate(rows) if not row.ok), rows.pop(first))
    return Report(title(step.number), hold_back(rows))


def points(step, result, weights=None):
    """(points earned, points possible) of a step: each rule's weight where it holds; 0 when its code is absent."""
    weights = weights or {}
    applies = [verdict for verdict in result.verdicts if verdict.applies]
    possible = sum(weights.get(verdict.rule, step.rule(verdict.rule).points) for verdict in applies)
    if result.absent is not None or not possible:
        return 0.0, possible
    earned = sum(weights.get(verdict.rule, step.rule(verdict.rule).points) for verdict in applies if verdict.ok)
    return float(earned), possible


def hold_after_earlier(reports, replaced=()):
    """Hold back the hints of a failing step whose code runs on an earlier failing step's code.

    `replaced`: steps whose code the later steps did not run on (the grader put the reference's there).
    """
    def failing(number):
        """Does the step's code fail? (a saved file that is missing or not its code's output holds nothing back:
        the later steps run on the code, not on the file)"""
        report, step = reports.get(number), lab.STEPS[number]
        rules = {rule.id: rule for rule in step.rules}
        return report is not None and any(
            not row.ok and not row.skipped and not (row.rule_id in rules and set(rules[row.rule_id].kinds) <= set(FILES))
            for row in report.rows)
    for number, step in lab.STEPS.items():
        cause = next((earlier for earlier in step.runs_on if earlier not in replaced and failing(earlier)), None)
        written = number in reports and not any(row.rule_id == "written" for row in reports[number].rows)  # absent
        # code names itself (a stub not written, --cpu that changes nothing): it is not held back
        if cause and written and not reports[number].passed:
            reports[number] = reports[number].held_back(Msg("check.held-by-step", step=cause, file=lab.STEPS[cause].file))
    return reports


def settled(reports):
    """The reports with hints held back where an earlier failing step is the cause, in the steps' order."""
    reports = hold_after_earlier(reports)
    return {number: reports[number] for number in lab.NUMBERS if number in reports}


def padded(text, width):
    """`text` padded with spaces to `width` columns, a Chinese or Japanese character counting two."""
    import unicodedata
    columns = sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)
    return text + " " * max(0, width - columns)


def table(reports, folder=None):
    """One line per step: ✓, ✗ or – (nothing of it judged here), its title, rules OK, and the root cause of a
    failing step (or why nothing was judged)."""
    lines = [t("check.checked", folder=printable(folder))] if folder else []
    ok = 0
    for number, report in reports.items():
        judged = [row for row in report.rows if not row.skipped]
        good = sum(row.ok for row in judged)
        mark = "✗" if not report.passed else "✓" if judged else "–"  # nothing judged here: not an OK
        ok += mark == "✓"
        lines.append(f"{number} {mark} {padded(t(TITLES[number]), 38)} {good}/{len(judged)}")
        failure = next((row for row in report.rows if not row.ok), None) or (None if judged else next(
            (row for row in report.rows if row.skipped and row.hint is not None), None))
        if failure:
            hint = printable(failure.hint, 1000).replace("\n", "\n        ")
            lines += [f"    {'–' if failure.ok else '✗'} {printable(failure.rule)}", f"        {hint}"]
    lines.append(t("check.steps-ok", ok=ok, total=len(reports)))
    return "\n".join(lines)


def read_text(path, limit=1_000_000):
    """A file's text (at most `limit` bytes), or None if it is missing or unreadable."""
    try:
        with open(path, "rb") as file:
            return file.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
