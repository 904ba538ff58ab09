"""Similarity, not identity: each script's marks (kvlab.instructor.reader: MOSS-style winnowing of its tokens,
names, comments, layout, docstrings and `pass` aside) compared with the reference's, with every other hand-in
of the batch, and with the course's earlier batches (a course-level store of marks, never of code).

The student edition's stubs are everyone's starting point: their marks are taken out first (boilerplate,
as MOSS and copydetect do). Two scripts' score is the share of the smaller one's marks that the other
has too (code added to a copy, dead or alive, does not hide it), counted only from MIN_SHARED marks on;
from SIMILAR on a pair is flagged, with its scores, for the instructor to look at: a flag is never a grade.
"""
import functools
import json
import os
from pathlib import Path

from .. import files
from . import reader
from .judge import SCRIPTS

SIMILAR = 0.8          # a pair of scripts is flagged from this score on
MIN_SHARED = 10        # marks two scripts must share before they count as similar at all
MOST_NAMED = 5         # other hand-ins named in a flag (the most similar first)
COMMON_FLOOR = 20      # a mark that more hand-ins than this (and than COMMON_SHARE of them) have is everyone's
COMMON_SHARE = 0.1
STORE_VERSION = 1
MOST_STORED = 20_000   # hand-ins a course's store keeps (its oldest go first)

PACKAGE = Path(__file__).resolve().parent.parent


@functools.cache
def boilerplate():
    """{script: the marks of its student-edition stub}: what every hand-in starts from."""
    from .release import stub_source
    return {name: frozenset(reader.marks(stub_source((PACKAGE / name).read_text(encoding="utf-8"), name)))
            for name in SCRIPTS}


def own(marks):
    """{script: marks less the stubs'} of a hand-in's marks."""
    common = boilerplate()
    return {name: frozenset(found) - common.get(name, frozenset()) for name, found in marks.items()}


@functools.cache
def reference():
    """{script: the reference's own marks}."""
    return own({name: reader.marks((PACKAGE / name).read_text(encoding="utf-8")) for name in SCRIPTS})


def score(mine, other):
    """The share of the smaller set of marks that the other has too; 0 under MIN_SHARED shared marks."""
    shared = len(mine & other)
    if shared < MIN_SHARED:
        return 0.0
    return shared / min(len(mine), len(other))


def scores(mine, other):
    """{script: score} of two hand-ins' own marks, for the scripts at SIMILAR or above."""
    found = {name: score(mine[name], other[name]) for name in SCRIPTS if name in mine and name in other}
    return {name: value for name, value in found.items() if value >= SIMILAR}


def closeness(mine, other, similar):
    """How two hand-ins rank among the similar ones: their best score, then the share of all their marks
    that they share (a copy beats a copy with code added)."""
    union = sum(len(mine[name] | other[name]) for name in similar)
    return max(similar.values()), sum(len(mine[name] & other[name]) for name in similar) / union if union else 0


def shown(found):
    return ", ".join(f"{name} {value:.2f}" for name, value in found.items())


def to_reference(marks):
    """The flag detail of a hand-in like the reference ("kvsim.py 0.97, ..."), or ""."""
    return shown(scores(own(marks), reference()))


def mark(grades, stored=None, key=None):
    """Flag every graded hand-in whose scripts are like another's: "similar-hand-ins" names the others (the
    most similar first, with their scores), those of this batch by folder, the store's as "NAME (earlier)".
    `stored`: {name: marks} of the course's earlier hand-ins; `key(grade)`: a grade's name in the store (a
    stored hand-in of the same name is that student's own earlier one: not compared).

    As MOSS does, a mark that more than common() of the hand-ins have is everyone's (a stub, an idiom, a
    reference they all copied: similar-to-reference says that) and left out, like the stubs: so each
    hand-in is compared only with those it shares rare marks with (an index of marks, not every pair)."""
    names = [key(grade) if key else "" for grade in grades]
    batch = set(names)
    docs = [(grade, Path(grade.folder).name or grade.folder, own(grade.marks)) for grade in grades if grade.marks]
    docs += [(None, f"{name} (earlier)", own(marks)) for name, marks in (stored or {}).items() if name not in batch]
    limit = common(len(docs))
    rare = []
    for script in SCRIPTS:
        index = {}
        for number, (_, _, marks) in enumerate(docs):
            for value in marks.get(script, ()):
                index.setdefault(value, []).append(number)
        rare.append({value: holders for value, holders in index.items() if len(holders) <= limit})
    kept = [{script: frozenset(value for value in marks.get(script, ()) if value in rare[place])
             for place, script in enumerate(SCRIPTS) if script in marks} for _, _, marks in docs]
    for number, (grade, _, _) in enumerate(docs):
        if grade is None:
            continue
        shared = {}
        for place, script in enumerate(SCRIPTS):
            for value in kept[number].get(script, ()):
                for other in rare[place][value]:
                    if other != number:
                        shared[other] = shared.get(other, 0) + 1
        found = []
        for other, count in shared.items():
            if count < MIN_SHARED or (docs[other][0] is not None and docs[other][0].folder == grade.folder):
                continue
            similar = scores(kept[number], kept[other])
            if similar:
                found.append((closeness(kept[number], kept[other], similar), docs[other][1], similar))
        found.sort(key=lambda item: (-item[0][0], -item[0][1], item[1]))
        if found:
            grade.flags["similar-hand-ins"] = "; ".join(f"{name} ({shown(similar)})"
                                                        for _, name, similar in found[:MOST_NAMED])


def common(documents):
    """How many hand-ins may have a mark before it counts as everyone's."""
    return max(COMMON_FLOOR, int(COMMON_SHARE * documents))


def load_store(path, course):
    """{name: {script: marks}} of a course's store (an empty one if there is none yet or it is another course's)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != STORE_VERSION or data.get("course") != course:
        return {}
    found = {}
    for name, marks in (data.get("hand_ins") or {}).items():
        if isinstance(marks, dict):
            found[name] = {script: tuple(value) for script, value in marks.items()
                           if script in SCRIPTS and isinstance(value, list)}
    return found


def save_store(path, course, stored, grades, key):
    """Add this batch's marks to the course's store (each hand-in under its student id, else its folder's
    name; a later batch's replaces an earlier one of the same name) and write it whole."""
    merged = dict(stored)
    for grade in grades:
        if grade.marks and not grade.error:
            merged.pop(key(grade), None)
            merged[key(grade)] = {name: list(marks) for name, marks in grade.marks.items()}
    while len(merged) > MOST_STORED:
        merged.pop(next(iter(merged)))
    document = {"version": STORE_VERSION, "course": course, "hand_ins": merged}
    files.write_atomically(path, json.dumps(document, separators=(",", ":")) + "\n")
    os.chmod(path, 0o600)  # marks are not code, but they are the class's
