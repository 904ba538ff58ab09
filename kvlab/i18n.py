"""Looking up what a student reads: one catalog (kvlab/messages.py), keyed by message id.

    from kvlab.i18n import t, Msg
    t("hint.fifo")                              # the text, in the language in use
    t("check.steps-ok", ok=3, total=8)          # named placeholders, str.format style
    Msg("check.steps-ok", ok=3, total=8)        # the same, kept as data (id + params), rendered when shown

Code decides with ids, never with text: nothing here is ever parsed back. A message whose English
depends on a count is a pair (one, other); `n=` picks the form. The language is `lang=`, else
$KVLAB_LANG, else English. Standard library only; the student's three scripts never import it.
"""
import os
import string

from .messages import MESSAGES

LANGS = ("en",)          # the source language first; translations are added by catalog files
DEFAULT = "en"


class UnknownLanguage(ValueError):
    """A language kvlab has no catalog for."""


def lang(chosen=None):
    """The language to use: `chosen`, else $KVLAB_LANG, else English."""
    value = (chosen or os.environ.get("KVLAB_LANG") or DEFAULT).strip().lower()
    if value not in LANGS:
        raise UnknownLanguage(f"unknown language {value!r} (kvlab has {', '.join(LANGS)})")
    return value


def source(message_id):
    """The English text of a message (a str, or a pair (one, other) for a count); KeyError if unknown."""
    return MESSAGES[message_id]


def t(message_id, /, lang_=None, **params):
    """The text of `message_id` with `params` filled in, in the language in use."""
    lang(lang_)  # only English so far: an unknown language is refused, never silently English
    text = MESSAGES[message_id]
    if isinstance(text, tuple):
        text = text[0] if params.get("n") == 1 else text[1]
    return text.format(**params) if params else text


def placeholders(text):
    """The named placeholders of a message text, e.g. {"ok", "total"}."""
    texts = text if isinstance(text, tuple) else (text,)
    return {field for one in texts for _, field, _, _ in string.Formatter().parse(one) if field}


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
