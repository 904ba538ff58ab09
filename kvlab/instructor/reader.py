"""How the grader reads a hand-in's Python source without running it: the modules a file imports, and its
marks for similarity (MOSS-style winnowing). Standard library only.

The grader runs this file as a child process of its own (kvlab.instructor.scripts.Reader), one per
grading thread, so that parsing a hostile file (a 200 KB file of `a<b` lines takes seconds) is bounded in
time per hand-in by killing the child, and no lock is shared across hand-ins (CPython 3.11's parser is
not safe in threads). The protocol on stdin: a line "SIZE MARKS\\n" then SIZE bytes of source; on
stdout one JSON line: {"imports": [names], "marks": [ints] or null}.

Marks (Schleimer, Wilkerson and Aiken, "Winnowing", SIGMOD 2003; what MOSS and copydetect do): the
source as tokens, with every name (not a keyword) as V, every string as S, comments, layout, docstrings
and other lone strings and `pass` statements dropped; hashes of every K consecutive tokens; of each
WINDOW consecutive hashes the smallest is kept. Two files that differ in names, comments, layout or a
docstring have the same marks; code added to a copy (dead or not) adds marks and takes none away.
"""
import ast
import hashlib
import io
import json
import keyword
import sys
import tokenize

K = 10            # tokens per hashed run
WINDOW = 6        # hashes per window: every run of K + WINDOW - 1 tokens shared by two files is found
LONE = {"STRING", "FSTRING"}   # a statement of these tokens only is a docstring or dead text


def imported(tree):
    """The top-level module names a module imports (`from .kvsim import` too: the lab's scripts do both)."""
    names = set()
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.partition(".")[0])
    return sorted(names)


def tokens(text):
    """The source's tokens as similarity sees them: statements of kept tokens, each ended by ";"."""
    kept, statement = [], []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = tokenize.tok_name[token.type]
            if kind in ("COMMENT", "NL", "ENCODING", "ENDMARKER"):
                continue
            if kind in ("NEWLINE", "INDENT", "DEDENT"):
                if statement and not (all(word in LONE for word in statement) or statement == ["pass"]):
                    kept += statement + [";"]
                statement = []
                kept += {"INDENT": ["{"], "DEDENT": ["}"]}.get(kind, [])
            elif kind == "NAME":
                statement.append(token.string if keyword.iskeyword(token.string) else "V")
            elif kind == "STRING" or kind.startswith("FSTRING"):
                statement.append("STRING" if kind == "STRING" else "FSTRING")
            else:
                statement.append(token.string)
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return text.split()  # not Python: its words
    kept += statement
    return ["S" if word in LONE else word for word in kept]


def marks(text):
    """The winnowed hashes of the source's token runs, sorted, without repeats."""
    words = tokens(text)
    hashes = [int.from_bytes(hashlib.blake2b("\x1f".join(words[start:start + K]).encode("utf-8", "surrogatepass"),
                                             digest_size=8).digest(), "big")
              for start in range(max(0, len(words) - K + 1))]
    chosen = set()
    for start in range(max(1, len(hashes) - WINDOW + 1)):
        window = hashes[start:start + WINDOW]
        if window:
            chosen.add(min(window))
    return sorted(chosen)


def read(data, with_marks):
    """{"imports": the names `data` (a module's bytes) imports, "marks": its marks or None}."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None  # it cannot run either: its step says why
    text = data.decode("utf-8", "replace")
    return {"imports": imported(tree), "marks": marks(text) if with_marks else None}


def main():
    source, out = sys.stdin.buffer, sys.stdout
    while True:
        line = source.readline()
        if not line:
            return
        size, with_marks = line.split()
        data = source.read(int(size))
        out.write(json.dumps(read(data, with_marks == b"1")) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
