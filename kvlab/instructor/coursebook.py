"""What `kvlab grade --course` writes: the course gradebook (--csv), one feedback file per student
(--feedback DIR, Markdown and HTML) and the class at a glance (--report DIR, Markdown and a PNG).

Feedback is what a student reads: every sentence comes from the catalog (kvlab/messages.py, the
"course." ids), each failing rule with its hint as the report renders it. A hidden rule's row has no
`seen` (kvlab.check.engine: a hidden case is never kept in a Verdict), so no hidden case can reach a feedback file. Files are written
whole (kvlab.files.write_files), and a different file already there is replaced only with --force.
"""
import hashlib
import html
import io
import re

from .. import files
from ..i18n import t
from . import gradebook
from .judge import TITLES, printable

SAFE = re.compile(r"[^A-Za-z0-9._-]+")
MOST_NAME = 80              # characters of a feedback file's base name (a 240-character folder name is cut, with a hash)
LINE_BREAKS = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # what Markdown (or an editor) takes for a new line
number = gradebook.number


def csv_text(course, grades, header=True, given=None, practice=False):
    """The course gradebook (kvlab.instructor.gradebook.course_csv)."""
    return gradebook.course_csv(course, grades, header, given, practice)


# --- feedback ------------------------------------------------------------------------------------------------

def _safe(text):
    """`text` as a file's base name: letters, digits, ".", "_", "-" only, at most MOST_NAME characters (a longer
    or changed one ends in a hash of the whole, so that two names stay apart)."""
    base = SAFE.sub("_", text).strip("._")
    if base != text or len(base) > MOST_NAME:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        base = f"{base[:MOST_NAME - 9]}-{digest}" if base else digest
    return base


def file_names(course, entries):
    """{id(entry): safe base name} for the entries with a hand-in: a roster student's id, else the folder's name
    (after "unlisted-" when there is a roster: never a roster student's file), each unique."""
    names, taken = {}, set()
    for entry in entries:
        if entry.missing:
            continue
        folder = _safe(entry.folder() or "handin")
        base = _safe(entry.student) if entry.student else f"unlisted-{folder}" if course.roster else folder
        name, count = base, 1
        while name.lower() in taken:
            count += 1
            name = f"{base}-{count}"
        taken.add(name.lower())
        names[id(entry)] = name
    return names


def one_line(text, limit=2000):
    """A student's text for a line of feedback: no control character, no line break (shown as ⏎), bounded."""
    return printable(LINE_BREAKS.sub("⏎", str(text)), limit)


def feedback_parts(course, entry, practice=False):
    """The feedback as data: [(kind, text, ...)], rendered to Markdown and HTML alike. Every text of a
    student (a folder name, an exception's name or message, a file name) is on one line (one_line())."""
    grade, score = entry.grade, entry.score
    who = entry.student or entry.folder()
    parts = [("title", t("course.feedback-title", who=one_line(who, 300)))]
    parts.append(("para", t("course.practice-line") if practice
                  else t("course.course-line", course=course.fingerprint, cases=grade.cases)))
    total = number(course.max_total)
    if grade.error:
        parts.append(("para", t("course.not-graded", reason=one_line(grade.error).rstrip("."))))
    else:
        rows = [(str(step), one_line(t(TITLES[step])),
                 t("course.passed") if grade.steps[step].passed else t("course.failed"),
                 f"{number(score.steps[step])} / {number(course.step_points[step])}") for step in TITLES]
        parts.append(("table", [t("course.column-step"), "", t("course.column-result"), t("course.column-points")],
                      rows))
    parts.append(("para", t("course.points-line", raw=number(score.raw), max_total=total)))
    if score.extension is not None:
        parts.append(("para", t("course.extension-line", due=score.extension.due.isoformat(),
                                reason=one_line(score.extension.reason, 500))))
    if score.too_late:
        parts.append(("para", t("course.too-late", days=score.late, n=score.late, most=course.max_late_days,
                                max_total=total)))
    elif score.late:
        parts.append(("para", t("course.late-line", days=score.late, n=score.late,
                                percent=number(round(score.penalty * 100, 2)),
                                total=number(round(score.raw * (1 - score.penalty), 2)), max_total=total)))
    elif course.due is not None:
        parts.append(("para", t("course.on-time")))
    if score.override is not None:
        parts.append(("para", t("course.override-line", total=number(score.total), max_total=total,
                                reason=one_line(score.override.reason, 500))))
    elif not score.late:
        parts.append(("para", t("course.total-line", total=number(score.total), max_total=total)))
    failing = [step for step in TITLES if not grade.error and not grade.steps[step].passed]
    if failing:
        parts.append(("heading", t("course.failing-title")))
        for step in failing:
            parts.append(("subheading", t("course.failing-step", number=step, title=t(TITLES[step]))))
            items = []
            for row in grade.steps[step].failures:
                hint = row.hint
                rule = t("course.rule-line", rule=one_line(row.rule, 1000))
                items.append(rule if hint is None else
                             t("course.rule-and-hint", rule=rule, hint=t("course.hint-line", hint=one_line(hint))))
            parts.append(("list", items))
        parts.append(("para", t("course.hidden-note")))
    parts.append(("heading", t("course.not-checked-title")))
    unchecked, notes = [], {}
    for step in TITLES:
        report = grade.steps.get(step)
        if report is None:
            continue
        skipped = sum(row.skipped for row in report.rows)
        if skipped:
            unchecked.append(t("course.skipped-rules", number=step, count=skipped, n=skipped))
        if report.note:
            notes.setdefault(one_line(report.note), []).append(str(step))
    for note, steps in notes.items():  # a note of several steps once, naming them
        unchecked.append(t("course.note-steps", steps=", ".join(steps), note=note, n=len(steps)))
    if unchecked:
        parts.append(("list", unchecked))
    elif not grade.error:
        parts.append(("para", t("course.all-checked")))
    else:
        parts.pop()  # nothing was checked: the not-graded line says so
    return parts


def markdown(parts):
    def escape(text):  # one line (a student's text is already: one_line()), every Markdown sign taken literally
        return re.sub(r"([\\`*_\[\]<>|#~])", r"\\\1", LINE_BREAKS.sub("⏎", text))
    lines = []
    for part in parts:
        kind = part[0]
        if kind == "title":
            lines += [f"# {escape(part[1])}", ""]
        elif kind == "heading":
            lines += [f"## {escape(part[1])}", ""]
        elif kind == "subheading":
            lines += [f"### {escape(part[1])}", ""]
        elif kind == "para":
            lines += [escape(part[1]), ""]
        elif kind == "list":
            lines += [f"- {escape(item)}" for item in part[1]] + [""]
        elif kind == "table":
            header, rows = part[1], part[2]
            lines += ["| " + " | ".join(map(escape, header)) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(map(escape, row)) + " |" for row in rows] + [""]
    return "\n".join(lines)


def html_page(parts):
    body, title = [], ""
    for part in parts:
        kind = part[0]
        if kind == "title":
            title = part[1]
            body.append(f"<h1>{html.escape(part[1])}</h1>")
        elif kind == "heading":
            body.append(f"<h2>{html.escape(part[1])}</h2>")
        elif kind == "subheading":
            body.append(f"<h3>{html.escape(part[1])}</h3>")
        elif kind == "para":
            body.append(f"<p>{html.escape(part[1])}</p>")
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{html.escape(item)}</li>" for item in part[1]) + "</ul>")
        elif kind == "table":
            head = "".join(f"<th>{html.escape(cell)}</th>" for cell in part[1])
            rows = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
                           for row in part[2])
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>\n'
            f"<body>\n" + "\n".join(body) + "\n</body></html>\n")


def feedback_files(course, grades, practice=False, given=None):
    """{file name: bytes}: NAME.md and NAME.html per student with a hand-in (the one that counts)."""
    entries = gradebook.roll(course, grades, given)
    written, names = {}, file_names(course, entries)
    for entry in entries:
        if entry.missing:
            continue
        parts = feedback_parts(course, entry, practice)
        written[f"{names[id(entry)]}.md"] = markdown(parts).encode()
        written[f"{names[id(entry)]}.html"] = html_page(parts).encode()
    return written


def write_feedback(folder, course, grades, force=False, practice=False, given=None):
    return files.write_files(folder, feedback_files(course, grades, practice, given), force=force)


# --- the class at a glance --------------------------------------------------------------------------------

def class_counts(grades):
    """({step: students who passed it}, {misconception: students whose first failure of a step names it})."""
    passed = {step: sum(1 for grade in grades if not grade.error and grade.steps[step].passed) for step in TITLES}
    misconceptions = {}
    for grade in grades:
        named = set()
        for step in TITLES:
            report = grade.steps.get(step)
            if report is None or report.passed:
                continue
            first = next((row.misconception for row in report.failures if row.misconception), "")
            if first:
                named.add(first)
        for name in named:
            misconceptions[name] = misconceptions.get(name, 0) + 1
    return passed, dict(sorted(misconceptions.items(), key=lambda item: (-item[1], item[0])))


def chart(passed, misconceptions, students):
    """The bar chart as PNG bytes: students passing each step, and the misconceptions named."""
    try:
        import matplotlib
    except ImportError:
        from ..errors import UserError
        raise UserError("--report draws its chart with matplotlib: pip install -e '.[grading]'") from None
    matplotlib.use("Agg", force=True)
    from .. import fonts
    fonts.use()  # the language's CJK font, or one line saying how to install it
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI
    from matplotlib.ticker import MaxNLocator
    figure = Figure(figsize=(10, 4.5 + 0.25 * len(misconceptions)), layout="constrained")
    left, right = figure.subplots(1, 2)
    steps = list(passed)
    left.bar([str(step) for step in steps], [passed[step] for step in steps], color="#1a7f37")
    left.set(title=t("report.chart-passed", students=students), xlabel=t("report.column-step"),
             ylabel=t("report.column-students"), ylim=(0, max(1, students)))
    names = list(misconceptions)[::-1]
    right.barh(names or [t("report.chart-none")], [misconceptions[name] for name in names] or [0], color="#cf222e")
    right.set(title=t("report.chart-misconceptions"), xlabel=t("report.column-students"))
    left.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=100, metadata={"Software": None})
    return out.getvalue()


def summary_markdown(course, grades, passed, misconceptions, practice=False):
    failed = sum(1 for grade in grades if grade.error)
    head = t("report.practice") if practice else t("report.course", fingerprint=course.fingerprint)
    lines = [f"# {t('report.title')}", "", t("report.two-sentences", first=head,
                                                          second=t("report.handins", n=len(grades), count=len(grades),
                                                                   failed=failed)),
             "", f"![{t('report.chart-alt')}](class.png)", "", f"## {t('report.steps-title')}", "",
             f"| {t('report.column-step')} | {t('report.column-title')} | {t('report.column-passed')} |", "|---|---|---|"]
    lines += [f"| {step} | {t(TITLES[step])} | {t('report.passed-of', passed=passed[step], total=len(grades))} |"
              for step in TITLES]
    lines += ["", f"## {t('report.misconceptions-title')}", "", t("report.misconceptions-how"), ""]
    if misconceptions:
        lines += [f"| {t('report.column-misconception')} | {t('report.column-students')} | {t('report.column-hint')} |",
                  "|---|---|---|"]
        lines += [f"| {name} | {count} | {hint_text(name)} |" for name, count in misconceptions.items()]
    else:
        lines.append(t("report.no-misconception"))
    return "\n".join(lines) + "\n"


def hint_text(name):
    try:
        return t(f"hint.{name}").replace("|", "\\|").replace("\n", " ")
    except (KeyError, IndexError):
        return ""


def write_report(folder, course, grades, force=False, practice=False):
    passed, misconceptions = class_counts(grades)
    made = {"class.md": summary_markdown(course, grades, passed, misconceptions, practice).encode(),
            "class.png": chart(passed, misconceptions, len(grades))}
    return files.write_files(folder, made, force=force)
