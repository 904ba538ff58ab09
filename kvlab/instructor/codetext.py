"""The text inside code that a student reads: comments, docstrings, and the sentences of notebook code cells.

Code is the same in every language; its text is the catalog's. Each piece of text is one catalog entry, tied to
its English as gettext ties a message (msgctxt an id, msgid the English):

- the student's files (FILES: kvlab/kvsim.py, scenario.py, summarize.py, policies.py): each comment block (the
  comment lines that follow each other at one indentation), each comment after code, and each docstring:
  `code.<file>.<qualified name>.<n>` (e.g. code.kvsim.LRUCache.access.2; `code.<file>.<n>` at module level);
- each notebook code cell: its comment blocks, comments after code, docstrings and the sentences in its string
  literals (an error message, a label; not a key such as "upper left"): `code.<notebook>.<cell id>.<n>`.

n counts the pieces of one function or cell, in order. Only what the student edition holds is an entry: a
solution region's text and an instructor cell are the instructor's (they stay English in `kvlab notebooks
--lang`). Tool comments keep their words (nbval's NBVAL_CHECK_OUTPUT, the solution markers; the `noqa: F401`
of a comment after code stays in front of its translation).

translate() puts each translation in place of its English, at the same indentation, and changes nothing else:
skeleton() (the tokens without the text) is the same before and after (tests/test_i18n.py, test_release.py).
A comment block's translation may have its own number of lines; a comment after code stays one line.
"""
import ast
import inspect
import io
import re
import tokenize
from pathlib import Path
from typing import NamedTuple

from .. import lab
from . import markers

FILES = (*lab.SCRIPTS, *(f"{name}.py" for name in lab.EXERCISE_NAMES))   # the student's files, in kvlab/
PREFIX = "code."
DIRECTIVE = re.compile(r"^(?:NBVAL_\w+|BEGIN SOLUTION\b.*|END SOLUTION\b.*|!.*|-\*-.*)$")
TOOL = re.compile(r"^(?:noqa(?::\s*[A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*)?|type:\s*ignore\S*|pragma:\s*no cover)\s*")
WORDS = re.compile(r"[A-Za-z]{2,}")
LETTER = re.compile(r"[^\W\d_]")  # a letter of any script: a comment of only signs or numbers is not text


class Piece(NamedTuple):
    """One piece of text in a source: where it is (character offsets), its English, and how to write it back."""
    kind: str      # "block" (full-line comments), "comment" (after code), "docstring", "string"
    start: int
    end: int
    english: str
    scope: str     # the qualified name of the def or class around it ("" at module level)
    form: dict     # what rendering needs: indent, directive, quotes, prefix, closing line


def _offsets(source):
    starts, total = [], 0
    for line in source.splitlines(keepends=True):
        starts.append(total)
        total += len(line)
    starts.append(total)
    return lambda row, col: starts[row - 1] + col


def _scopes(tree, lines):
    """[(first row, last row, qualified name)] of every def and class, outermost first."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                first = min([child.lineno, *(decorator.lineno for decorator in child.decorator_list)])
                found.append((first, child.end_lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)
    visit(tree, "")
    return found


def _docstrings(tree, lines):
    """{(row, column in characters): value} of every docstring's string literal."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                line = lines[first.value.lineno - 1]
                column = len(line.encode("utf-8")[:first.value.col_offset].decode("utf-8"))
                found[(first.value.lineno, column)] = first.value.value
    return found


def _string_form(text):
    """(prefix, quote, body) of a plain string literal; None for f-strings, bytes and implicit concatenations."""
    match = re.fullmatch(r"([rRuU]?)('''|\"\"\"|'|\")(.*)\2", text, re.DOTALL)
    return match.groups() if match else None


def pieces(source, strings=False):
    """The pieces of text of a Python source, in order. `strings`: sentences in string literals count too."""
    lines = source.splitlines()
    tree = ast.parse(source)
    scopes, docstrings = _scopes(tree, lines), _docstrings(tree, lines)
    at = _offsets(source)

    def scope_of(row):
        around = [(first, name) for first, last, name in scopes if first <= row <= last]
        return max(around)[1] if around else ""

    found, block = [], None
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for index, token in enumerate(tokens):
        (row, col), (end_row, end_col) = token.start, token.end
        if token.type == tokenize.COMMENT:
            text = token.string[1:]
            text = text[1:] if text.startswith(" ") else text
            whole_line = not token.line[:col].strip()
            if DIRECTIVE.match(text.strip()) or not LETTER.search(text):
                block = None
                continue
            if whole_line:
                if block is not None and block["row"] == row - 1 and block["col"] == col:
                    block.update(row=row, end=at(end_row, end_col), lines=[*block["lines"], text])
                    found[-1] = found[-1]._replace(end=block["end"], english="\n".join(block["lines"]))
                else:
                    block = {"row": row, "col": col, "end": at(end_row, end_col), "lines": [text]}
                    found.append(Piece("block", at(row, col), block["end"], text, scope_of(row),
                                       {"indent": token.line[:col]}))
                continue
            tool = TOOL.match(text)
            directive, rest = (text[:tool.end()], text[tool.end():]) if tool else ("", text)
            if LETTER.search(rest):
                found.append(Piece("comment", at(row, col), at(end_row, end_col), rest, scope_of(row),
                                   {"directive": directive}))
            continue
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            block = None
        if token.type != tokenize.STRING:
            continue
        form = _string_form(token.string)
        if form is None:
            continue
        prefix, quote, body = form
        if (row, col) in docstrings:
            english = inspect.cleandoc(docstrings[(row, col)])
            found.append(Piece("docstring", at(row, col), at(end_row, end_col), english, scope_of(row + 1),
                               {"indent": token.line[:col], "prefix": prefix, "quote": quote,
                                "closing_line": bool(re.search(r"\n[ \t]*$", body))}))
        elif strings and not _next_is_string(tokens, index):
            value = ast.literal_eval(token.string)
            if isinstance(value, str) and " " in value and len(WORDS.findall(value)) >= 3:
                found.append(Piece("string", at(row, col), at(end_row, end_col), value, scope_of(row),
                                   {"prefix": prefix, "quote": quote}))
    return found


def _next_is_string(tokens, index):
    """True for a part of an implicit concatenation ("a" "b"): those are left as they are."""
    around = [token for token in (tokens[index - 1] if index else None, tokens[index + 1] if index + 1 < len(tokens)
                                  else None) if token is not None and token.type not in (tokenize.NL,)]
    return any(token.type == tokenize.STRING for token in around)


def render(piece, translation):
    """The source text that stands for `piece` in its translation."""
    form = piece.form
    if piece.kind == "block":
        return ("\n" + form["indent"]).join(f"# {line}" if line else "#" for line in translation.split("\n"))
    if piece.kind == "comment":
        if "\n" in translation:
            raise ValueError(f"a comment after code is one line: {translation!r}")
        return f"# {form['directive']}{translation}"
    quote, prefix = form["quote"], form["prefix"]
    if piece.kind == "docstring":
        lines = translation.split("\n")
        body = lines[0] + "".join("\n" + (form["indent"] + line if line.strip() else "") for line in lines[1:])
        body += "\n" + form["indent"] if form["closing_line"] else ""
    else:
        body = translation
    if prefix.lower() != "r":
        body = body.replace("\\", "\\\\")
        if len(quote) == 1:
            body = body.replace(quote, "\\" + quote).replace("\n", "\\n")
    text = f"{prefix}{quote}{body}{quote}"
    value = ast.literal_eval(text)
    if (inspect.cleandoc(value) if piece.kind == "docstring" else value) != translation:
        raise ValueError(f"cannot write {translation!r} as the literal {text!r}")
    return text


def translate(source, lookup, strings=False):
    """`source` with each piece that `lookup(piece)` translates (a str; None: keep the English) replaced."""
    parts, last = [], 0
    for piece in pieces(source, strings):
        translation = lookup(piece)
        if translation is None or translation == piece.english:
            continue
        parts += [source[last:piece.start], render(piece, translation)]
        last = piece.end
    return "".join(parts + [source[last:]])


def skeleton(source, strings=False):
    """The tokens of `source` but its text: comments gone, each piece of text a placeholder. Two sources with the
    same skeleton are the same code."""
    text_at = {piece.start for piece in pieces(source, strings) if piece.kind in ("docstring", "string")}
    at = _offsets(source)
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL):
            continue
        if token.type == tokenize.STRING and at(*token.start) in text_at:
            kept.append((tokenize.STRING, "<text>"))
        else:
            kept.append((token.type, token.string if token.type != tokenize.NEWLINE else "\n"))
    return kept


# --- the entries --------------------------------------------------------------------------------------------


def numbered(found, prefix):
    """{entry id: English} of `found` pieces, numbered within each scope: prefix.SCOPE.n (prefix.n at module level)."""
    counts, entries = {}, {}
    for piece in found:
        scope = f"{prefix}.{piece.scope}" if piece.scope else prefix
        counts[scope] = counts.get(scope, 0) + 1
        entries[f"{scope}.{counts[scope]}"] = piece.english
    return entries


def student_file(text, filename):
    """What the student edition holds of one of FILES: each solution region is `...` (its text is the answer's)."""
    return markers.replace(text, filename, lambda begin, flag: ["..."])


def file_entries(package):
    """{entry id: English} of the student's files (FILES in the folder `package`)."""
    entries = {}
    for name in FILES:
        path = Path(package) / name
        if path.exists():
            view = student_file(path.read_text(encoding="utf-8"), f"kvlab/{name}")
            entries.update(numbered(pieces(view), f"{PREFIX}{Path(name).stem}"))
    return entries


def _cell_source(cell):
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def student_cell(cell, where="cell"):
    """What the student edition holds of a code cell, or None (an instructor cell)."""
    tags = markers.tags(cell)
    if "instructor" in tags:
        return None
    source = _cell_source(cell)
    source = markers.prompt(source) if "solution" in tags else markers.replace(source, where, lambda begin, flag: ["..."])
    return "\n".join(line for line in source.split("\n") if not markers.directive(line))


def cell_entries(stem, cell):
    view = student_cell(cell, f"notebooks/{stem}.ipynb, cell {cell.get('id')}")
    if view is None or not view.strip():
        return {}
    return numbered(pieces(view, strings=True), f"{PREFIX}{stem}.{cell['id']}")


def translate_cell(source, stem, cell_id, translations):
    """A code cell's source with the pieces that `translations` ({(scope id, English): text}) has translated."""
    def lookup(piece):
        scope = f"{PREFIX}{stem}.{cell_id}" + (f".{piece.scope}" if piece.scope else "")
        return translations.get((scope, piece.english))
    return translate(source, lookup, strings=True)


def translate_file(text, name, translations):
    """A student file's text with its comments and docstrings in the language of `translations`."""
    stem = Path(name).stem

    def lookup(piece):
        scope = f"{PREFIX}{stem}.{piece.scope}" if piece.scope else f"{PREFIX}{stem}"
        return translations.get((scope, piece.english))
    return translate(text, lookup)


def by_english(found):
    """{(scope id, English): translation} of the code entries of `found` ({entry id: translation}), for lookup."""
    return {(entry_id.rsplit(".", 1)[0], english): translation for entry_id, (english, translation) in found.items()}

