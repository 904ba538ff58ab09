"""The lab's documents in the catalogs: each notebook's Markdown cells and the student README's sections.

English is the source. Each Markdown cell of notebooks/*.ipynb is one catalog entry, `md.<notebook>.<cell
id>` (e.g. md.01_lru_cache.nb01-02), whose English is the cell's whole source; each section of the student
README (kvlab/instructor/student/README.md, split before every heading) is one entry, `readme.<slug>`. They
sit in the same catalog file as the messages (kvlab/locale/LANG/LC_MESSAGES/kvlab.po), so that `kvlab i18n
update` marks a changed cell fuzzy and `kvlab i18n status` lists it, as for a message.

A translated notebook is the English notebook with each Markdown cell's source replaced by its translation:
code cells, their outputs, metadata and cell ids are the English ones, byte for byte. What is missing, fuzzy
or stale is refused (NotTranslated, listing the entries), never filled in with English.
"""
import copy
import json
import re
from pathlib import Path

from ..i18n import SOURCE, NotTranslated, catalog
from ..nbrun import NOTEBOOKS, notebook_paths

README = Path(__file__).resolve().parent / "student" / "README.md"
MARKERS = re.compile(r"^\s*(?:<!--\s*)?#\s*(?:BEGIN|END) SOLUTION\b.*$", re.MULTILINE)  # kept as they are


def _source(cell):
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def cell_id(stem, cell):
    return f"md.{stem}.{cell['id']}"


def notebook_entries(folder=None):
    """{entry id: English} of every Markdown cell of the notebooks, in notebook and cell order."""
    entries = {}
    for path in notebook_paths(folder or NOTEBOOKS):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown" and _source(cell).strip():
                entries[cell_id(path.stem, cell)] = _source(cell)
    return entries


def _slug(heading):
    words = re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")
    return words or "top"


def readme_sections(text):
    """[(entry id, section text)]: the README cut before each heading (outside code fences)."""
    sections, current, fenced = [], [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#") and current:
            sections.append("".join(current))
            current = []
        current.append(line)
    if current:
        sections.append("".join(current))
    named, seen = [], {}
    for section in sections:
        first = section.splitlines()[0]
        slug = _slug(first.lstrip("#")) if first.startswith("#") else "top"
        seen[slug] = seen.get(slug, 0) + 1
        named.append((f"readme.{slug}" + (f"-{seen[slug]}" if seen[slug] > 1 else ""), section))
    return named


def readme_entries(path=None):
    return dict(readme_sections(Path(path or README).read_text(encoding="utf-8")))


def entries():
    """{entry id: English} of every document entry: the notebooks' Markdown, then the student README."""
    return {**notebook_entries(), **readme_entries()}


def _translated(entry_id, english, language, missing):
    entry = catalog(language).get(entry_id)
    if entry is None or entry.state(english) != "ok":
        missing.append(entry_id)
        return english
    return entry.translation[0]


def _refuse(language, missing, what):
    """NotTranslated naming the first entries of `missing` (what is left of `what`), if any."""
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise NotTranslated(f"{what}: not all translated into {language} ({len(missing)} entries: "
                            f"{', '.join(missing[:5])}{more}); `python -m kvlab i18n status --lang {language}` "
                            f"lists them")


def translate_notebook(nb, stem, language):
    """A copy of the notebook (a dict, as nbformat or json reads it) with its Markdown in `language`."""
    translated = copy.deepcopy(nb)
    if language == SOURCE:
        return translated
    missing = []
    for cell in translated["cells"]:
        if cell["cell_type"] == "markdown" and _source(cell).strip():
            cell["source"] = _translated(cell_id(stem, cell), _source(cell), language, missing)
    _refuse(language, missing, f"notebooks/{stem}.ipynb")
    return translated


def translate_readme(text, language):
    if language == SOURCE:
        return text
    missing = []
    parts = [_translated(entry_id, section, language, missing) for entry_id, section in readme_sections(text)]
    _refuse(language, missing, "the student README")
    return "".join(parts)


def untranslated(language):
    """The document entries of `language` to work on (missing, fuzzy or stale), in order."""
    found = catalog(language)
    return [entry_id for entry_id, english in entries().items()
            if entry_id not in found or found[entry_id].state(english) != "ok"]


def require(language, what="the notebooks and the student README", prefixes=("md.", "readme.")):
    """Refuse (NotTranslated, one line naming them) a language with document entries left to translate."""
    if language != SOURCE:
        _refuse(language, [entry for entry in untranslated(language) if entry.startswith(prefixes)], what)


def markers(text):
    """The solution marker lines of a text, which a translation keeps as they are."""
    return [line.strip() for line in MARKERS.findall(text)]


def messages_only(po_text):
    """A catalog's text without the documents' entries (obsolete ones included), for the student edition: the
    English of an answer cell is the answer, and the edition's notebooks and README are translated already."""
    blocks = re.split(r"\n\s*\n", po_text.strip("\n"))
    kept = [block for block in blocks if not re.search(r'^(?:#~ )?msgctxt "(?:md|readme)\.', block, re.MULTILINE)]
    return "\n\n".join(kept) + "\n"
