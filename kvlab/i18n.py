"""Looking up what a student reads: one catalog (kvlab/messages.py), keyed by message id.

    from kvlab.i18n import t, Msg
    t("hint.fifo")                              # the text, in the language in use
    t("check.steps-ok", ok=3, total=8)          # named placeholders, str.format style
    Msg("check.steps-ok", ok=3, total=8)        # the same, kept as data (id + params), rendered when shown

Code decides with ids, never with text: nothing here is ever parsed back. A message whose English
depends on a count is a pair (one, other); `n=` picks the form. The language is `lang=`, else
$KVLAB_LANG, else the edition's language (kvlab/locale/DEFAULT, written by `kvlab release --lang`),
else English.

English is the source. Each other language has one gettext catalog, kvlab/locale/LANG/LC_MESSAGES/kvlab.po:
msgctxt is the message id, msgid (and msgid_plural) the English it was translated from, msgstr the
translation. An entry counts only if it is not fuzzy, its msgstr is not empty and its msgid is still the
English of messages.py. Otherwise t() gives the English with the visible mark UNTRANSLATED in front,
never plain English in silence, and tests/test_i18n.py fails listing the entry. `kvlab i18n update`
brings the catalogs up to date with messages.py; `kvlab i18n status` lists what is left to translate.

Standard library only (a small .po reader, below; polib is needed only to update catalogs); the
student's three scripts never import it.
"""
import os
import re
import string
from functools import lru_cache
from pathlib import Path

from .messages import MESSAGES

LANGS = ("en", "zh", "ja")   # the source language first; each other one has a catalog file
SOURCE = "en"
LOCALE = Path(__file__).resolve().parent / "locale"
UNTRANSLATED = "[EN] "       # in front of the English of a message not (or no longer) translated
NAMES = {"en": "English", "zh": "简体中文", "ja": "日本語"}


class UnknownLanguage(ValueError):
    """A language kvlab has no catalog for."""


def catalog_path(language, locale=None):
    """Where the catalog of `language` lives: locale/LANG/LC_MESSAGES/kvlab.po (as gettext keeps them)."""
    return Path(locale or LOCALE) / language / "LC_MESSAGES" / "kvlab.po"


@lru_cache(maxsize=None)
def _edition_default():
    """The language an edition was released in (kvlab/locale/DEFAULT), else English."""
    try:
        return (LOCALE / "DEFAULT").read_text(encoding="utf-8").strip() or SOURCE
    except OSError:
        return SOURCE


def lang(chosen=None):
    """The language to use: `chosen`, else $KVLAB_LANG, else the edition's, else English.

    A locale name such as zh_CN.UTF-8 or ja-JP counts as its language (zh, ja).
    """
    value = (chosen or os.environ.get("KVLAB_LANG") or _edition_default()).strip().lower()
    value = re.split(r"[._@-]", value)[0] if value not in LANGS else value
    if value not in LANGS:
        raise UnknownLanguage(f"unknown language {value!r} (kvlab has {', '.join(LANGS)})")
    return value


class NotTranslated(ValueError):
    """A part of the lab that has no translation into the language asked for (never silently English).

    kvlab.instructor.documents raises it for a notebook or README entry that is missing, fuzzy or stale."""


def source(message_id):
    """The English text of a message (a str, or a pair (one, other) for a count); KeyError if unknown."""
    return MESSAGES[message_id]


# --- reading a .po file (what polib reads, for the entries kvlab writes) -------------------------------

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(text):
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"not a quoted .po string: {text[:40]!r}")
    return re.sub(r"\\(.)", lambda match: _ESCAPES.get(match.group(1), match.group(1)), text[1:-1])


class Entry:
    """One catalog entry: its id (msgctxt), the English it translates, the translation, and its flags."""

    __slots__ = ("id", "english", "translation", "flags")

    def __init__(self, message_id, english, translation, flags):
        self.id, self.english, self.translation, self.flags = message_id, english, translation, flags

    def state(self, english):
        """"ok", "fuzzy", "stale" (translated from other English), or "untranslated"."""
        if not all(self.translation):
            return "untranslated"
        if "fuzzy" in self.flags:
            return "fuzzy"
        return "ok" if self.english == (english if isinstance(english, tuple) else (english,)) else "stale"


def read_po(text):
    """{message id: Entry} of a .po text (obsolete #~ entries and entries without msgctxt left out)."""
    entries, fields, flags, key = {}, {}, set(), None

    def flush():
        if "msgctxt" in fields and "msgid" in fields:
            english = (fields["msgid"], fields["msgid_plural"]) if "msgid_plural" in fields else (fields["msgid"],)
            plural = sorted(name for name in fields if name.startswith("msgstr["))
            translation = tuple(fields[name] for name in plural) or (fields.get("msgstr", ""),)
            entries[fields["msgctxt"]] = Entry(fields["msgctxt"], english, translation, frozenset(flags))
        fields.clear()
        flags.clear()

    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            if any(name.startswith("msgstr") for name in fields):
                flush()
            if line.startswith("#,"):
                flags.update(flag.strip() for flag in line[2:].split(","))
            continue
        if line.startswith('"'):
            fields[key] += _unquote(line)
            continue
        key, _, rest = line.partition(" ")
        if key in ("msgctxt", "msgid") and any(name.startswith("msgstr") for name in fields):
            flush()
        fields[key] = _unquote(rest)
    flush()
    return entries


@lru_cache(maxsize=None)
def catalog(language, locale=None):
    """{message id: Entry} of a language's catalog in `locale` (default kvlab/locale/); {} for English or no file."""
    if language == SOURCE:
        return {}
    try:
        text = catalog_path(language, locale or LOCALE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return read_po(text)


def state(message_id, language):
    """How the translation of `message_id` into `language` stands: ok, fuzzy, stale or untranslated."""
    if language == SOURCE:
        return "ok"
    entry = catalog(language).get(message_id)
    return "untranslated" if entry is None else entry.state(MESSAGES[message_id])


def text(message_id, language):
    """The unformatted text (a str, or a pair for a count) of a message in `language`.

    Chinese and Japanese have one form for every count: a pair's both forms are the one translation.
    """
    english = MESSAGES[message_id]
    if language == SOURCE:
        return english
    if state(message_id, language) != "ok":
        return tuple(UNTRANSLATED + one for one in english) if isinstance(english, tuple) else UNTRANSLATED + english
    translation = catalog(language)[message_id].translation
    if not isinstance(english, tuple):
        return translation[0]
    return (translation[0], translation[-1])


def t(message_id, /, lang_=None, **params):
    """The text of `message_id` with `params` filled in, in the language in use."""
    chosen = text(message_id, lang(lang_))
    if isinstance(chosen, tuple):
        chosen = chosen[0] if params.get("n") == 1 else chosen[1]
    return chosen.format(**params) if params else chosen


def placeholders(text):
    """The named placeholders of a message text, e.g. {"ok", "total"}."""
    texts = text if isinstance(text, tuple) else (text,)
    return {field for one in texts for _, field, _, _ in string.Formatter().parse(one) if field}


def fields(text):
    """The placeholders of a text with their formats: sorted [(name, conversion, spec)], e.g. [("count", "", ",")]."""
    return sorted({(field, conversion or "", spec or "") for _, field, spec, conversion
                   in string.Formatter().parse(text) if field is not None})


class Msg:
    """A message as data: its id and parameters; str() renders it in the language in use."""

    __slots__ = ("id", "params")

    def __init__(self, message_id, /, **params):
        if message_id not in MESSAGES:
            raise KeyError(f"no message {message_id!r} in kvlab/messages.py")
        self.id, self.params = message_id, params

    def render(self, lang_=None):
        params = {name: value.render(lang_) if isinstance(value, Msg) else value
                  for name, value in self.params.items()}
        return t(self.id, lang_, **params)

    def __str__(self):
        return self.render()

    def __repr__(self):
        return self.render()

    def __eq__(self, other):
        return isinstance(other, Msg) and (self.id, self.params) == (other.id, other.params)

    def __hash__(self):
        return hash(self.id)

    def as_dict(self):
        return {"id": self.id, "params": {name: value.as_dict() if isinstance(value, Msg) else value
                                          for name, value in self.params.items()}}

    @classmethod
    def from_dict(cls, data):
        params = {name: cls.from_dict(value) if isinstance(value, dict) and set(value) == {"id", "params"} else value
                  for name, value in data["params"].items()}
        return cls(data["id"], **params)
