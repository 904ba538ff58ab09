"""Solution markers: the instructor edition's BEGIN SOLUTION / END SOLUTION comment lines, found and replaced.

kvlab release makes the student edition with them (stubs in the .py files, prompts in the notebooks), and
kvlab.instructor.codetext translates the code text around them.
"""
import re

from ..errors import UserError

# Markers are whole comment lines, as in nbgrader and otter: BEGIN SOLUTION opens a region (an
# optional flag "..." makes its stub `...`), END SOLUTION closes it; regions do not nest.
BEGIN = re.compile(r"^#+\s*BEGIN SOLUTION\b(.*)$")
END = re.compile(r"^#+\s*END SOLUTION\b")
ANY_MARKER = re.compile(r"#+\s*(BEGIN|END) SOLUTION")    # how reviewers find markers: anywhere in a line
STEP = re.compile(r"^#+\s*(Step|Exercise)\s+(\d+)\b")


class MarkerError(UserError):
    """Solution markers that do not pair up; the message names the file and the line."""



def regions(lines, filename):
    """[(begin, end, flag)]: the 0-based line numbers of each region's two markers, and the BEGIN flag."""
    found, opened = [], None
    for number, line in enumerate(lines):
        text = line.strip()
        begin, end = BEGIN.match(text), END.match(text)
        if not (begin or end):
            if ANY_MARKER.search(line):
                raise MarkerError(f"{filename}, line {number + 1}: a solution marker must be a comment line "
                                  "of its own")
            continue
        if begin:
            if opened is not None:
                raise MarkerError(f"{filename}, line {number + 1}: BEGIN SOLUTION inside the region opened on "
                                  f"line {opened[0] + 1} (regions do not nest)")
            flag = begin.group(1).strip()
            if flag not in ("", "..."):
                raise MarkerError(f"{filename}, line {number + 1}: unknown flag {flag!r} after BEGIN SOLUTION "
                                  "(the only one is ...)")
            opened = (number, flag)
        else:
            if opened is None:
                raise MarkerError(f"{filename}, line {number + 1}: END SOLUTION without a BEGIN SOLUTION before it")
            found.append((opened[0], number, opened[1]))
            opened = None
    if opened is not None:
        raise MarkerError(f"{filename}, line {opened[0] + 1}: BEGIN SOLUTION is never closed")
    return found


def replace(text, filename, stub):
    """`text` with each region (markers included) replaced by the lines stub(begin, flag) returns, indented."""
    lines = text.splitlines(keepends=True)
    kept, last = [], 0
    for begin, end, flag in regions(lines, filename):
        indent = lines[begin][:len(lines[begin]) - len(lines[begin].lstrip())]
        kept += lines[last:begin] + [indent + line + "\n" for line in stub(begin, flag)]
        last = end + 1
    return "".join(kept + lines[last:])


def tags(cell):
    return list(cell.get("metadata", {}).get("tags", []))


def leading_comments(source):
    """The comment (and blank) lines a code cell starts with."""
    lines = source.splitlines()
    code = next((index for index, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")),
                len(lines))
    return lines[:code]


def directive(line):
    """True for an nbval comment (# NBVAL_CHECK_OUTPUT): instructions to the test runner, not to the student."""
    return line.strip().startswith("# NBVAL_")


def prompt(source):
    """What a solution code cell keeps: its leading comment lines (nbval directives dropped)."""
    kept = [line for line in leading_comments(source) if not directive(line)]
    return "\n".join(kept).strip("\n")
