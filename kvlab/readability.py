"""How plain the notebooks' English is: words per sentence, and the share of long sentences.

The lab's students read Chinese or Japanese first, so its prose aims at one idea a sentence: at most
14 words a sentence on average, and at most 5 % of sentences over 25 words. Two kinds of prose are
measured (tests/test_readability.py): the Markdown of the student edition's notebooks, and the prose
that the notebooks print, the catalog's `nb.*` and `notebook.*` messages (printed_prose()). Standard
library only.

What is measured, and why:

- **Dropped:** fenced code blocks (```), HTML comments and tags, images, link targets (the link's
  text stays), table separator rows (|---|). Code is not prose; a URL is not read word by word.
- **Inline code** (`kvlab/kvsim.py`, `access(key, size)`) is one word: a reader takes a name in at once.
- **Units:** every heading, list item, table cell and paragraph is read on its own, so each ends a
  sentence even without a full stop ("## Your task" is a sentence of two words).
- **Sentences** end at `.`, `!`, `?` or `;` followed by a space (or at the end of a unit). A
  semicolon joins two sentences that could stand alone, so it ends one here. A colon does not: what
  follows it is most often a list, a value or a fragment that belongs to the sentence before. A full
  stop inside a number (1.5B) or a name (kvsim.py) is not followed by a space, so it splits nothing;
  nor do the abbreviations e.g., i.e., vs., etc. and cf.
- **Words** are the whitespace-separated pieces that hold a letter or a digit ("…", "×", "=" and "→"
  are not words; "two-tier" and "21,520" are one each).

- **A printed message** is read as Markdown (notebook.say shows it so). Each placeholder (`{gpu:,}`,
  `{keys}`) is one word, as a value is; a message with a singular and a plural form is read in its
  plural form, the one with the most words.

A notebook's average is its words over its sentences, so a long notebook weighs more than a short one.
"""
import re
from typing import NamedTuple

MAX_AVERAGE = 14      # words a sentence, on average
LONG = 25             # a sentence of more words than this is long
MAX_LONG_SHARE = 0.05

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
FENCE = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.S | re.M)
COMMENT = re.compile(r"<!--.*?-->", re.S)
TAG = re.compile(r"</?[A-Za-z][^>]*>")
IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
CODE = re.compile(r"`[^`\n]+`")
SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
HEADING = re.compile(r"^\s*#{1,6}\s+")
ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|vs|etc|cf)\.", re.I)
END = re.compile(r"(?<=[.!?;])[\"')\]*_]*\s+")
WORD = re.compile(r"[^\W_]", re.U)


class Figures(NamedTuple):
    """The words and sentences of some Markdown, and what the test compares."""
    words: int
    sentences: int
    long: int              # sentences of more than LONG words

    @property
    def average(self):
        return self.words / self.sentences if self.sentences else 0.0

    @property
    def long_share(self):
        return self.long / self.sentences if self.sentences else 0.0

    @property
    def plain(self):
        return self.average <= MAX_AVERAGE and self.long_share <= MAX_LONG_SHARE

    def __add__(self, other):
        return Figures(self.words + other.words, self.sentences + other.sentences, self.long + other.long)

    def __str__(self):
        return (f"{self.average:4.1f} words a sentence, {self.long_share:5.1%} over {LONG} words "
                f"({self.sentences} sentences, {self.words} words)")


NONE = Figures(0, 0, 0)


def units(markdown):
    """The pieces of Markdown read on their own: headings, list items, table cells and paragraphs."""
    text = COMMENT.sub(" ", FENCE.sub("\n\n", markdown))
    text = IMAGE.sub(" ", text)
    text = LINK.sub(r"\1", text)
    text = CODE.sub("CODE", text)  # one word, and its dots and colons split nothing
    text = TAG.sub(" ", text)
    found, paragraph = [], []

    def close():
        if paragraph:
            found.append(" ".join(paragraph))
            paragraph.clear()

    for line in text.splitlines():
        if not line.strip() or SEPARATOR.match(line):
            close()
        elif line.lstrip().startswith("|"):
            close()
            found += [cell for cell in line.strip().strip("|").split("|") if cell.strip()]
        elif HEADING.match(line):
            close()
            found.append(HEADING.sub("", line))
        elif ITEM.match(line):
            close()
            paragraph.append(ITEM.sub("", line))
        else:
            paragraph.append(line.strip())
    close()
    return found


def sentences(markdown):
    """The sentences of some Markdown, each as its list of words."""
    found = []
    for unit in units(markdown):
        for sentence in END.split(ABBREVIATIONS.sub(lambda match: match.group(1).replace(".", ""), unit)):
            words = [word for word in sentence.split() if WORD.search(word)]
            if words:
                found.append(words)
    return found


def measure(markdown):
    """The Figures of some Markdown (one cell, or several joined by blank lines)."""
    counts = [len(words) for words in sentences(markdown)]
    return Figures(sum(counts), len(counts), sum(count > LONG for count in counts))


def long_sentences(markdown):
    """The sentences of more than LONG words, as text: what to rewrite first."""
    return [" ".join(words) for words in sentences(markdown) if len(words) > LONG]


def notebook_markdown(nb):
    """The Markdown of a notebook (an nbformat notebook or its dict), cell by cell."""
    return ["".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            for cell in nb["cells"] if cell["cell_type"] == "markdown"]


def message_text(value):
    """A catalog message as it reads when printed: each placeholder one word; of (one, other), the other."""
    if isinstance(value, tuple):
        value = value[-1]
    return PLACEHOLDER.sub("VALUE", value)


def printed_prose(messages, prefix):
    """{message id: its text as printed} of the catalog `messages` whose ids start with `prefix` ("nb.03.")."""
    return {key: message_text(value) for key, value in messages.items() if key.startswith(prefix)}

