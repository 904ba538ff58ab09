"""Plain English where a student reads: one idea a sentence (kvlab/readability.py says how it counts).

Two kinds of prose, each per notebook and all together: the student edition's Markdown (release.student_notebook
in-process: answers and instructor cells dropped, nothing run), and the prose the notebooks print, the catalog's
`nb.NN.*` messages of each notebook and the `notebook.*` messages of kvlab.notebook, kvlab.timeline and
kvlab.plots. `pytest -s` prints the figures; a failing notebook's message holds them too, and its longest sentences.
"""
import json

import pytest

from kvlab import nbrun, readability
from kvlab.messages import MESSAGES
from kvlab.readability import LONG, MAX_AVERAGE, MAX_LONG_SHARE, measure

NOTEBOOKS = nbrun.notebook_paths()


def student_markdown(path):
    from kvlab.instructor import release

    nbformat = pytest.importorskip("nbformat")
    student = release.student_notebook(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4), path.name)
    return readability.notebook_markdown(student)


def figures(path):
    return sum((measure(cell) for cell in student_markdown(path)), readability.NONE)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_each_notebook_is_plain_english(path):
    found = figures(path)
    print(f"\n{path.stem:<18} {found}")
    longest = sorted((s for cell in student_markdown(path) for s in readability.long_sentences(cell)), key=len)[-3:]
    assert found.plain, (f"{path.name}: {found}; the lab's limit is {MAX_AVERAGE} words a sentence on average "
                         f"and {MAX_LONG_SHARE:.0%} over {LONG}. Longest: " + " | ".join(longest))


def test_all_notebooks_together_are_plain_english():
    found = sum((figures(path) for path in NOTEBOOKS), readability.NONE)
    lines = [f"{path.stem:<18} {figures(path)}" for path in NOTEBOOKS] + [f"{'all':<18} {found}"]
    print("\n" + "\n".join(lines))
    assert found.plain, "\n".join(lines)


def printed(path):
    """The texts a notebook prints: its nb.NN.* messages."""
    return list(readability.printed_prose(MESSAGES, f"nb.{path.stem[:2]}.").values())


def printed_figures(texts):
    return sum((measure(text) for text in texts), readability.NONE)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_what_each_notebook_prints_is_plain_english(path):
    texts = printed(path)
    found = printed_figures(texts)
    print(f"\n{path.stem:<18} printed: {found}")
    longest = sorted((s for text in texts for s in readability.long_sentences(text)), key=len)[-3:]
    assert found.plain, (f"nb.{path.stem[:2]}.*: {found}; the lab's limit is {MAX_AVERAGE} words a sentence on "
                         f"average and {MAX_LONG_SHARE:.0%} over {LONG}. Longest: " + " | ".join(longest))


def test_all_printed_prose_together_is_plain_english():
    texts = [*readability.printed_prose(MESSAGES, "nb.").values(), *readability.printed_prose(MESSAGES, "notebook.").values()]
    found = printed_figures(texts)
    lines = [f"{path.stem:<18} printed: {printed_figures(printed(path))}" for path in NOTEBOOKS]
    lines.append(f"{'notebook.*':<18} printed: {printed_figures(readability.printed_prose(MESSAGES, 'notebook.').values())}")
    lines.append(f"{'all printed':<18} {found}")
    print("\n" + "\n".join(lines))
    assert found.sentences > 400 and found.plain, "\n".join(lines)  # every notebook's messages are there


CASES = [
    ("One idea. Another one!", 4, 2),
    ("A list:\n\n- first item\n- second item", 6, 3),                   # a list item is a sentence
    ("## A heading\nText under it.", 5, 2),                              # so is a heading
    ("Run `python -m kvlab check 1` now; it checks step 1.", 7, 2),      # inline code is one word; ; ends
    ("Code is not prose:\n\n```python\nx = 1; y = 2. z\n```\n", 4, 1),   # a fenced block is dropped
    ("A model of 1.5B, e.g. Qwen, in kvsim.py works.", 9, 1),            # no split inside 1.5B, e.g., kvsim.py
    ("See [notebook 02](02_cyclic_scan.ipynb) first.", 4, 1),            # a link is its text
    ("| a | b c |\n|---|---|\n| d e f | g |", 7, 4),                     # each table cell is read alone
    ("0 … 9 × 2 = 18", 4, 1),                                            # … × = are not words
]


@pytest.mark.parametrize("markdown, words, sentences", CASES)
def test_words_and_sentences_are_counted_as_the_module_says(markdown, words, sentences):
    found = measure(markdown)
    assert (found.words, found.sentences) == (words, sentences), readability.sentences(markdown)


def test_a_sentence_over_25_words_is_long_and_the_figures_add_up():
    long = " ".join(["word"] * 26) + ". Short one."
    found = measure(long)
    assert (found.long, found.sentences, found.words) == (1, 2, 28)
    assert found.long_share == 0.5 and found.average == 14 and not found.plain
    assert [len(s.split()) for s in readability.long_sentences(long)] == [26]
    assert (measure("One two.") + measure("Three.")) == readability.Figures(3, 2, 0)
    assert readability.notebook_markdown(json.loads(json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["a ", "b"]}, {"cell_type": "code", "source": "x"}]}))) == ["a b"]


def test_a_printed_message_reads_each_placeholder_as_one_word_and_its_plural_form():
    messages = {"nb.09.one": "The GPU holds {resident} of {docs:,} documents.",
                "nb.09.counted": ("{n} hit.", "{n} hits, from {first} to {last}."), "other.x": "Not this one."}
    texts = readability.printed_prose(messages, "nb.09.")
    assert list(texts) == ["nb.09.one", "nb.09.counted"]
    assert [measure(text).words for text in texts.values()] == [7, 6]

