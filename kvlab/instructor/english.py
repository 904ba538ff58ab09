"""English left where a student of the Chinese or Japanese edition reads: phrases of four English words or more.

    python -m kvlab.instructor.english OUT          # an edition (kvlab release OUT --lang zh): exit 1 if any is found
    python -m kvlab.instructor.english --outputs OUT/artifacts/notebooks     # executed notebooks' outputs

What is read: the notebooks' Markdown and the text of their code cells (comments, docstrings, sentences in
strings), the README (its prose, and the comments of its code blocks), and the comments, docstrings and string
literals (f-strings too: an error message) of the student's files (kvlab/kvsim.py, scenario.py, summarize.py,
policies.py). With --outputs, what executed notebooks
printed. What is not prose is left out first: code (but its comments), inline code spans, URLs and link targets,
file names and paths, options, identifiers (a word with `_`, a dot or a digit), placeholders and quoted strings;
in outputs, the names of the lab's fields (a table's columns: config, pass, tier, ...).
A phrase is a run of words (Latin letters) separated by spaces only; four such words are English a student reads.
"""
import io
import json
import re
import sys
import tokenize
from pathlib import Path

from . import codetext

MIN_WORDS = 4
_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_NOT_PROSE = re.compile(r"`[^`\n]*`"                      # inline code
                        r"|https?://\S+|\]\([^)]*\)"      # URLs, link targets
                        r"|<[^>\n]+>"                     # HTML tags
                        r"|\"[^\"\n]*\""                  # quoted strings (a JSON key, a value)
                        r"|\{[^{}\n]*\}"                  # placeholders, dicts
                        r"|[\w./\\=@$:+~-]*[/\\_.=\d@$][\w./\\=@$:+~-]*"  # paths, file names, identifiers, numbers
                        r"|--?[A-Za-z][\w-]*")            # options
_PHRASE = re.compile(r"(?<![\w'’-])[A-Za-z][A-Za-z'’-]*(?:[ \t]+[A-Za-z][A-Za-z'’-]*)+(?![\w'’-])")


# The fields of the lab's files, as a table of them (pandas) shows its columns: names, not English.
FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms", "run", "tier", "line")


def phrases(text, minimum=MIN_WORDS, names=()):
    """The English phrases of `minimum` words or more in a text of prose (Markdown or a comment); the words `names`
    are identifiers, not words."""
    prose = _NOT_PROSE.sub(" | ", text)
    if names:
        prose = re.sub(r"(?<![\w'’-])(?:%s)(?![\w'’-])" % "|".join(map(re.escape, names)), " | ", prose)
    return [found.group(0) for found in _PHRASE.finditer(prose) if len(found.group(0).split()) >= minimum]


def markdown(text):
    """What a reader reads of Markdown: its prose, and the comments of its code blocks."""
    comments = [re.sub(r"^.*?(?:^|\s)#\s", "", line) for block in _FENCED.findall(text)
                for line in block.splitlines() if re.search(r"(?:^|\s)#\s", line)]
    return "\n".join([_FENCED.sub("\n", text), *comments])


def python(source, strings=False):
    """What a reader reads of Python source: its comments and docstrings (and with `strings`, its sentences)."""
    return "\n".join(piece.english for piece in codetext.pieces(source, strings))


_QUOTES = re.compile(r"^[A-Za-z]*(\"\"\"|'''|\"|')|(\"\"\"|'''|\"|')$")


def literals(source):
    """The text of every string literal of a Python source, f-strings' too (an error message a student may read)."""
    texts = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING:
            texts.append(_QUOTES.sub("", token.string))
        elif token.type == getattr(tokenize, "FSTRING_MIDDLE", None):  # Python 3.12 and later
            texts.append(token.string)
    return "\n".join(texts)


def identifiers(source):
    """The names a Python source uses: words of code, not English (a namedtuple's "hits misses capacity used")."""
    return sorted({token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
                   if token.type == tokenize.NAME})


def notebook(nb):
    """What a reader reads of a notebook (a dict): its Markdown, and the text of its code cells."""
    texts = []
    for cell in nb["cells"]:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        texts.append(markdown(source) if cell["cell_type"] == "markdown" else
                     python(source, strings=True) if cell["cell_type"] == "code" else "")
    return "\n".join(texts)


def outputs(nb):
    """What executed code cells show: their streams, plain text, Markdown and errors."""
    texts = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                texts.append("".join(output.get("text", "")))
            elif output.get("output_type") == "error":
                texts.append(f"{output.get('ename')}: {output.get('evalue')}")
            else:
                data = output.get("data", {})
                for kind in ("text/markdown", "text/plain"):
                    if kind in data:
                        texts.append(markdown("".join(data[kind])) if kind == "text/markdown" else "".join(data[kind]))
                        break
    return "\n".join(texts)


def edition(out):
    """{relative path: [English phrases]} of what a student reads in the edition at `out` (only paths with some)."""
    out = Path(out)
    found = {}
    readme = out / "README.md"
    if readme.exists():
        found["README.md"] = phrases(markdown(readme.read_text(encoding="utf-8")))
    for path in sorted((out / "notebooks").glob("*.ipynb")):
        found[f"notebooks/{path.name}"] = phrases(notebook(json.loads(path.read_text(encoding="utf-8"))))
    for name in codetext.FILES:
        path = out / "kvlab" / name
        if path.exists():
            source = path.read_text(encoding="utf-8")
            found[f"kvlab/{name}"] = phrases(python(source)) + phrases(literals(source), names=identifiers(source))
    return {path: found_here for path, found_here in found.items() if found_here}


def executed(folder):
    """{notebook: [English phrases]} of the outputs of the executed notebooks in `folder` (only those with some)."""
    found = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        here = phrases(outputs(json.loads(path.read_text(encoding="utf-8"))), names=FIELDS)
        if here:
            found[path.name] = here
    return found


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    found = executed(args[1]) if args[:1] == ["--outputs"] else edition(args[0])
    for path, here in found.items():
        for phrase in dict.fromkeys(here):
            print(f"{path}: {phrase}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
