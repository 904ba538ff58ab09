"""What a hand-in's scripts are, read without running them: normalized (comments and layout gone) to
compare with the reference and with each other, the modules they import, and the steps a refused file
or a module that shadows the standard library explains.
"""
import ast
import hashlib
import threading
from pathlib import Path

from ..i18n import Msg
from . import sandbox
from .judge import SCRIPTS, STEP_SCRIPT, Report, read_text

PARSE_LIMIT = 200_000     # bytes of a .py file the grader parses (to fingerprint or follow imports); larger: bytes
_AST = threading.Lock()   # ast work is serialised: CPython 3.11's parser is not safe in threads (SystemError)


def normalized(text):
    """Python source without comments or layout: two files that differ only in those compare equal.

    The parsed syntax tree says exactly that (quotes and parentheses aside); a file that does not
    parse is compared by its words.
    """
    if len(text) > PARSE_LIMIT:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    with _AST:
        known = _normalized.get(text)
        if known is None:
            try:
                known = ast.dump(ast.parse(text))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                known = " ".join(text.split())
            _remember(_normalized, text, known)
        return known


_normalized, _imported = {}, {}   # source -> normalized(), source -> imported names: a class shares most files
REMEMBERED = 2_000                # sources each keeps (at most PARSE_LIMIT bytes each)


def _remember(memo, key, value):
    if len(memo) >= REMEMBERED:
        memo.clear()
    memo[key] = value


def reference_scripts():
    """{script: normalized text} of the reference (its solution markers are comments, so they vanish)."""
    package = Path(__file__).resolve().parent.parent
    return {name: normalized((package / name).read_text(encoding="utf-8")) for name in SCRIPTS}


def script_texts(copy):
    """{script: normalized text, or None if the snapshot has no such file}."""
    texts = {}
    for name in SCRIPTS:
        text = read_text(Path(copy) / name, limit=sandbox.LARGEST_FILE)
        texts[name] = None if text is None else normalized(text)
    return texts


def fingerprint(texts):
    """A hash of the normalized scripts, equal for hand-ins that differ only in comments and layout; "" if none."""
    if not any(texts.values()):
        return ""
    digest = hashlib.sha256()
    for name, text in texts.items():
        digest.update(name.encode() + b"\0" + (text or "").encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def imports(copy):
    """{module: names it imports} for the snapshot's .py files, as far as reading them tells (no code runs)."""
    found = {}
    for path in Path(copy).glob("*.py"):
        try:
            source = path.read_bytes()
        except OSError:
            source = None
        found[path.stem] = set(imported_names(source))
    return found


def imported_names(source):
    """The top-level module names a file's source imports (none if it does not parse, or is too large)."""
    if source is None or len(source) > PARSE_LIMIT:
        return frozenset()  # a 5 MB file nothing imports must not cost the batch
    with _AST:
        known = _imported.get(source)
        if known is not None:
            return known
        names = set()
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None  # it cannot run either: its step says why
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                names.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module.partition(".")[0])  # `from .kvsim import` too: the lab's scripts do both
        known = frozenset(names)
        _remember(_imported, source, known)
        return known


def reached(module, imported):
    """The module names `module` imports, directly or through the hand-in's other files, itself included."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(imported.get(name, ()))
    return seen


REFUSED = (  # snapshot() field -> why a file was not taken, as the hint says it (a catalog message)
    ("symlinks", Msg("seen.refused-symlink")),
    ("too_big", Msg("seen.refused-too-big", size=sandbox.LARGEST_FILE)),
    ("unreadable", Msg("seen.refused-unreadable")),
)


def _joined(parts):
    """Messages one after the other, "; " between them, as one message (rendered when shown)."""
    return parts[0] if len(parts) == 1 else Msg("seen.list-semicolon", first=parts[0], rest=_joined(parts[1:]))


def refusals(found):
    """{file name: why snapshot() did not take it}."""
    return {name: why for attribute, why in REFUSED for name in getattr(found, attribute)}


def causes(copy, found):
    """{step: (hint, misconception)} for steps whose code a refused file or a shadowing module explains."""
    refused, imported = refusals(found), imports(copy)
    shadowing = {name[:-3]: name for name in found.shadows_stdlib}
    explained = {}
    for number, script in STEP_SCRIPT.items():
        modules = reached(script, imported)
        bad = [Msg("seen.file-is", file=f"{name}.py", why=refused[f"{name}.py"])
               for name in sorted(modules) if f"{name}.py" in refused]
        shadows = [shadowing[name] for name in sorted(modules) if name in shadowing]
        if bad:
            explained[number] = ("missing-file", Msg("seen.refused", files=_joined(bad)))
        elif shadows:
            statements = ", ".join(f"`import {name[:-3]}`" for name in shadows)
            explained[number] = ("shadows-stdlib", Msg("seen.shadows", files=", ".join(shadows), imports=statements,
                                                       script=f"{script}.py"))
    return explained


def explain(report, cause):
    """The report with its first failure naming `cause` (misconception, seen) and the later ones held back."""
    rows, first = [], True
    for row in report.rows:
        if not row.ok:
            misconception, seen = cause
            if first and row.held is None and row.misconception not in ("", misconception) and row.seen is not None:
                seen = Msg("seen.and-then", cause=seen, happened=row.seen)
            row = (row._replace(misconception=misconception, seen=seen, held=None) if first
                   else row._replace(misconception="", held=Msg("check.held")))
            first = False
        rows.append(row)
    return Report(report.title, rows, report.note)
