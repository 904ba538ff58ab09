"""Where the checks' expectations come from, without an answer anyone can read.

A judge asks an oracle a question ("what does a cache following the lab's rules return on these
accesses?") and gets an Answer it can only match against a student's value: answer.matches(value)
or answer.matches(value, path) for a part of it (("passes", 2, "hit_docs")). It never sees the
expected value, so no hint can print it. Two oracles answer:

- kvlab.instructor.oracle.Reference (the instructor edition) computes answers with the reference;
- Digests (the student edition) holds keyed digests of them, written by `kvlab release`
  (kvlab/check/digests.json): a digest says whether a value is right, not what the right value is.

A part of an answer may be OneOf(values): any of them matches (two correct roundings of a ratio).
The questions, their arguments and the answers are JSON. Who asks which oracle is the caller's
choice: every check takes an `oracle` argument; default() picks one for `kvlab check`.
"""
import hashlib
import hmac
import json
from pathlib import Path

DIGESTS = Path(__file__).resolve().parent / "digests.json"
DIGEST_HEX = 24   # 96 bits of each HMAC-SHA256: no accidental match in a lab's worth of questions


class NoAnswer(LookupError):
    """The stored digests do not cover this question (not the student's fault).

    For "summary" that is a measured file the edition was not released with (the course machine's
    file, when the lab was released elsewhere): the rule is skipped. For any other question the
    edition is out of date: the rule fails and says so, rather than passing unchecked.
    """

    def __init__(self, question):
        super().__init__(question)
        self.question = question


_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode


FLOAT_MARKS = (".", "e+", "e-", "Infinity", "NaN")  # one of them is in the JSON of every float


def canonical(value):
    """The JSON text two equal values share: sorted keys, and 3.0 written as 3 (bools stay bools)."""
    text = _ENCODE(value)
    if not any(mark in text for mark in FLOAT_MARKS):
        return text  # no float in it (a string may have a mark too: then the long way)
    return _ENCODE(_tidy(value))


def _tidy(item):
    if isinstance(item, float):
        return int(item) if item.is_integer() and abs(item) < 2 ** 53 else item
    if isinstance(item, list):
        for one in item:  # (a loop: faster than any() on the lab's small lists)
            if isinstance(one, (float, list, dict)):
                return [_tidy(one) for one in item]
        return item  # nothing in it to change: the list itself
    if isinstance(item, dict):
        return {key: _tidy(one) for key, one in item.items()}
    return item


def question_key(question, args):
    return canonical([question, args])


def digest(salt, key, path, value):
    message = f"{key}\0{canonical(list(path))}\0{canonical(value)}".encode()
    return hmac.new(salt.encode(), message, hashlib.sha256).hexdigest()[:DIGEST_HEX]


class OneOf:
    """A part of an answer that any of several values matches."""

    def __init__(self, values):
        self.values = list(values)

    def as_json(self):
        return {"$one_of": self.values}


def leaves(answer, path=()):
    """(path, value) for the answer and every part of it; a OneOf gives each of its values."""
    if isinstance(answer, OneOf):
        for value in answer.values:
            yield path, value
        return
    yield path, plain(answer)
    if isinstance(answer, dict):
        for key, value in answer.items():
            yield from leaves(value, (*path, key))
    elif isinstance(answer, list):
        for index, value in enumerate(answer):
            yield from leaves(value, (*path, index))


def plain(answer):
    """The answer with each OneOf as its first value: what a whole-answer match compares with."""
    if isinstance(answer, OneOf):
        return plain(answer.values[0])
    if isinstance(answer, dict):
        return {key: plain(value) for key, value in answer.items()}
    if isinstance(answer, list):
        return [plain(value) for value in answer]
    return answer


class Answer:
    """What a judge gets: matches(value, path) -> bool, and nothing that reveals the expected value."""

    def matches(self, value, path=()):
        raise NotImplementedError


class Digests:
    """The student edition's oracle: keyed digests of every part of every answer the public checks ask."""

    def __init__(self, path=DIGESTS):
        self.path = Path(path)
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        self.salt, self.known = data["salt"], set(data["digests"])

    def ask(self, question, *args):
        key = question_key(question, list(args))
        return _Digested(self, question, key)


class _Digested(Answer):
    __slots__ = ("oracle", "question", "key")

    def __init__(self, oracle, question, key):
        self.oracle, self.question, self.key = oracle, question, key

    def matches(self, value, path=()):
        if digest(self.oracle.salt, self.key, (), "$asked") not in self.oracle.known:
            raise NoAnswer(self.question)
        return digest(self.oracle.salt, self.key, path, value) in self.oracle.known


def stored_digests(answers, salt):
    """{"salt", "digests"}: what digests.json holds for {question key: answer} (kvlab release writes it)."""
    found = set()
    for key, answer in answers.items():
        found.add(digest(salt, key, (), "$asked"))
        for path, value in leaves(answer):
            found.add(digest(salt, key, path, value))
    return {"salt": salt, "digests": sorted(found)}


def default():
    """The oracle `kvlab check` and the notebooks use: this edition's digests, else the reference's answers."""
    if DIGESTS.exists():
        return Digests()
    import importlib

    return importlib.import_module("kvlab.instructor.oracle").Reference()
