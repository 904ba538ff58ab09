"""The lab's documents in the catalogs: the notebooks' Markdown cells and code text, the student's files' comments
and docstrings, and the student README's sections.

English is the source. Each Markdown cell of notebooks/*.ipynb is one catalog entry, `md.<notebook>.<cell
id>` (e.g. md.01_lru_cache.nb01-02), whose English is the cell's whole source; each section of the student
README (kvlab/instructor/student/README.md, split before every heading) is one entry, `readme.<slug>`; the text
in code (comments, docstrings, a notebook cell's sentences) is one entry per piece, `code.<file or notebook>.<...>.<n>`
(kvlab/instructor/codetext.py). They sit in the same catalog file as the messages (kvlab/locale/LANG/LC_MESSAGES/kvlab.po), so that `kvlab i18n
update` marks a changed cell fuzzy and `kvlab i18n status` lists it, as for a message.

A translated notebook is the English notebook with each Markdown cell's source replaced by its translation and
the text of its code cells by theirs: the code (codetext.skeleton), the outputs, metadata and cell ids are the
English ones. What is missing, fuzzy or stale is refused (NotTranslated, listing the entries), never filled in
with English. Translated Markdown is written with its CJK lines joined (join_cjk_lines): a line break between
two Chinese or Japanese characters would show as a space.
"""
import copy
import json
import re
from pathlib import Path

from ..i18n import SOURCE, NotTranslated, catalog
from ..paths import NOTEBOOKS, notebook_paths
from ..paths import REPO
from . import codetext

README = Path(__file__).resolve().parent / "student" / "README.md"
PACKAGE = REPO / "kvlab"
PREFIXES = ("md.", "readme.", codetext.PREFIX)
SETUP = "pip install -e '.[lab,test]'"  # the student README's setup command
MARKERS = re.compile(r"^\s*(?:<!--\s*)?#\s*(?:BEGIN|END) SOLUTION\b.*$", re.MULTILINE)  # kept as they are


def _source(cell):
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def cell_id(stem, cell):
    return f"md.{stem}.{cell['id']}"


def notebook_entries(folder=None, code=True):
    """{entry id: English} of every Markdown cell of the notebooks and (`code`) of the text of their code cells, in
    notebook and cell order."""
    entries = {}
    for path in notebook_paths(folder or NOTEBOOKS):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown" and _source(cell).strip():
                entries[cell_id(path.stem, cell)] = _source(cell)
            elif cell["cell_type"] == "code" and code:
                entries.update(codetext.cell_entries(path.stem, cell))
    return entries


def file_entries(package=None):
    """{entry id: English} of the comments and docstrings of the student's files (codetext.FILES)."""
    return codetext.file_entries(package or PACKAGE)


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
    """{entry id: English} of every document entry: the notebooks' Markdown and code text, the student's files'
    comments and docstrings, then the student README."""
    return {**notebook_entries(), **file_entries(), **readme_entries()}


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


def _code_translations(wanted, language, missing):
    """{(scope id, English): translation} for the code entries `wanted` ({id: English}); the ids not translated
    (missing, fuzzy, stale) are added to `missing`."""
    found = {}
    for entry_id, english in wanted.items():
        translation = _translated(entry_id, english, language, missing)
        found[(entry_id.rsplit(".", 1)[0], english)] = translation
    return found


def translate_notebook(nb, stem, language):
    """A copy of the notebook (a dict, as nbformat or json reads it) with its Markdown and the text of its code cells
    in `language` (the text the student edition holds; an instructor cell's and a solution's stays English)."""
    translated = copy.deepcopy(nb)
    if language == SOURCE:
        return translated
    missing = []
    for cell in translated["cells"]:
        if cell["cell_type"] == "markdown" and _source(cell).strip():
            cell["source"] = join_cjk_lines(_translated(cell_id(stem, cell), _source(cell), language, missing))
        elif cell["cell_type"] == "code":
            wanted = codetext.cell_entries(stem, cell)
            if wanted:
                translations = _code_translations(wanted, language, missing)
                cell["source"] = codetext.translate_cell(_source(cell), stem, cell["id"], translations)
    _refuse(language, missing, f"notebooks/{stem}.ipynb")
    return translated


def translate_file(text, name, language, package=None):
    """The text of a student file (kvlab/NAME, its student edition) with its comments and docstrings in `language`."""
    if language == SOURCE:
        return text
    stem = Path(name).stem
    wanted = {entry_id: english for entry_id, english in file_entries(package).items()
              if entry_id.startswith(f"{codetext.PREFIX}{stem}.")}
    missing = []
    translations = _code_translations(wanted, language, missing)
    _refuse(language, missing, f"kvlab/{name}")
    return codetext.translate_file(text, name, translations)


def translate_readme(text, language):
    if language == SOURCE:
        return text
    missing = []
    parts = [_translated(entry_id, section, language, missing) for entry_id, section in readme_sections(text)]
    _refuse(language, missing, "the student README")
    # the edition's setup command installs its language extra too (JupyterLab's language pack)
    return join_cjk_lines("".join(parts)).replace(SETUP, SETUP.replace("test]", f"test,{language}]"))


_CJK = "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_ENDS_CJK = re.compile(f"[{_CJK}](?:\\*{{1,2}}|_{{1,2}})?$")     # a CJK character, perhaps closing bold
_STARTS_CJK = re.compile(f"^(?:\\*{{1,2}}|_{{1,2}})?[{_CJK}]")   # a CJK character, perhaps opening bold
_ENDS_CJK_PUNCTUATION = re.compile("[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]$")  # 。，：（） after which a space shows
_SINGLE_LINE = re.compile(r"^\s*(?:#|\|)")  # a heading, a table row
_BLOCK = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#|>|\||```|~~~|<|\$\$|[-=*_]{3,}\s*$)")


def join_cjk_lines(text):
    """Markdown whose soft line breaks between two CJK characters, or after CJK punctuation, are gone: CommonMark
    renders such a break as a space ("写出答案。 很多请求", "保留哪些。 GPU"). A line that starts a block (list item, heading, table row, quote, fence, HTML) is
    never joined to the line before, a heading or a table row never takes the next line, nothing inside a code
    fence is touched, and a hard break (two spaces or a backslash at the end of a line) stays."""
    kept, fenced = [], False
    for line in text.split("\n"):
        fence = line.lstrip().startswith(("```", "~~~"))
        previous = kept[-1] if kept else None
        if (not fenced and not fence and previous and _ENDS_CJK.search(previous)
                and not previous.endswith(("  ", "\\")) and not _SINGLE_LINE.match(previous)
                and (_STARTS_CJK.search(line.lstrip()) or _ENDS_CJK_PUNCTUATION.search(previous))
                and line.strip() and not _BLOCK.match(line)
                and not _emphasis_at_punctuation(previous, line.lstrip())):
            kept[-1] = previous + line.lstrip()
        else:
            kept.append(line)
        fenced ^= fence
    return "\n".join(kept)


def _emphasis_at_punctuation(before, after):
    """True where joining would put `**` between punctuation and a character (CommonMark would show it)."""
    import unicodedata

    def punctuation(char):
        return unicodedata.category(char)[0] in "PS"
    closing = re.search(r"(.)(?:\*{1,2}|_{1,2})$", before)
    opening = re.match(r"(?:\*{1,2}|_{1,2})(.)", after)
    return bool(closing and punctuation(closing.group(1)) or opening and punctuation(opening.group(1)))


def untranslated(language):
    """The document entries of `language` to work on (missing, fuzzy or stale), in order."""
    found = catalog(language)
    return [entry_id for entry_id, english in entries().items()
            if entry_id not in found or found[entry_id].state(english) != "ok"]


def require(language, what="the notebooks, the student's files and the student README", prefixes=PREFIXES):
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
    kept = [block for block in blocks if not re.search(r'^(?:#~ )?msgctxt "(?:md|readme|code)\.', block, re.MULTILINE)]
    return "\n\n".join(kept) + "\n"
