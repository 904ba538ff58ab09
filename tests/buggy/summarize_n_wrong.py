# BUG: n counts the distinct values.
"""Summarize a per-request TTFT measurement: p50 and mean per config and pass, and their ratios.

    python3 summarize.py ttft.jsonl measured.json

Each input line is one JSON object with config, pass, doc, doc_tokens, ttft_ms and total_ms;
blank lines are skipped, and a UTF-8 byte order mark at the start is ignored. Passes keep their
names and their order of first appearance. A pass measured in only one config is summarized under
that config and left out of "ratio" (a ratio needs both). A ratio whose lmcache statistic is 0, or
so close to 0 that the quotient is too large for a float, is null: the output never holds Infinity.

The input is read line by line, keeping only the TTFT values; a pipe that no program writes to
reads as empty. The output is written whole or not at all: a file is replaced by one rename (an
output that is a symbolic link is written through: the file it points to is replaced, the link
stays). "-" means stdout; a device or a pipe (/dev/null, /dev/stdout) is written to directly.
It refuses to write over its own input, over a read-only file, or into a pipe that nobody reads.
Standard library only: this file runs as a plain script.
"""
import argparse
import errno
import json
import math
import os
import stat
import statistics
import sys
import tempfile

CONFIGS = ("baseline", "lmcache")
FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")
BOM = b"\xef\xbb\xbf"  # what Windows editors put before UTF-8 text
_REQUIRED = frozenset(FIELDS)
_DECODER = json.JSONDecoder()


class InputError(ValueError):
    """A problem with the input, worded for the person who supplied it."""


def parse_line(text):
    """One JSON line to a record; raises InputError saying what is wrong with it."""
    text = text.strip()
    try:
        record, end = _DECODER.raw_decode(text)  # json.loads, without its two scans for spaces around
    except json.JSONDecodeError as error:
        if text.startswith("{") and not text.endswith("}"):
            raise InputError(f"not valid JSON: the object is cut off ({error.msg})") from None
        raise InputError(f"not valid JSON ({error.msg})") from None
    except (ValueError, RecursionError) as error:  # an integer of over 4300 digits; nesting too deep
        raise InputError(f"not valid JSON ({error})") from None
    if end != len(text):
        raise InputError("not valid JSON (more text after the value)")
    if not isinstance(record, dict):
        raise InputError("not a JSON object")
    if not record.keys() >= _REQUIRED:
        missing = [field for field in FIELDS if field not in record]
        raise InputError(f"missing field {', '.join(missing)}")
    if record["config"] not in CONFIGS:
        raise InputError(f"unknown config {record['config']!r} (expected baseline or lmcache)")
    if not isinstance(record["pass"], str) or not record["pass"]:
        raise InputError(f"pass must be a non-empty string, got {record['pass']!r}")
    ttft = record["ttft_ms"]
    if type(ttft) not in (int, float):  # what json makes of a number; true and false are not numbers here
        raise InputError(f"ttft_ms must be a number, got {ttft!r}")
    if not 0 <= ttft <= sys.float_info.max:  # also rejects NaN, and integers too large for a float
        raise InputError(f"ttft_ms must be a finite number >= 0, got {ttft!r}")
    return record


def iter_records(path):
    """The records of a JSONL file, one at a time; an InputError names the file and the line number."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder, not a file")
    found = False
    with _open_for_reading(path) as file:
        for number, raw in enumerate(file, start=1):
            if number == 1:
                raw = raw.removeprefix(BOM)
            try:
                line = raw.decode("utf-8")  # line by line, so that bad text gets its line number
            except UnicodeDecodeError as error:
                raise InputError(f"{path}, line {number}: not UTF-8 text ({error.reason})") from None
            # Step 8: skip a line that is empty or holds only whitespace; the lab's files have some.
            # BEGIN SOLUTION ...
            if line.strip() == "":  # empty, or only spaces and tabs
                continue
            # END SOLUTION
            try:
                record = parse_line(line)
            except InputError as error:
                raise InputError(f"{path}, line {number}: {error}") from None
            found = True
            yield record
    if not found:
        raise InputError(f"{path}: no records (the file is empty or only blank lines)")


def read_records(path):
    """All the records of a JSONL file as a list (iter_records reads them one at a time)."""
    return list(iter_records(path))


def _open_for_reading(path):
    """open(path, "rb"), except that a pipe with no writer reads as empty instead of waiting for ever."""
    if not hasattr(os, "O_NONBLOCK"):  # Windows: no named pipes in the file system
        return open(path, "rb")
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # opening a FIFO waits for a writer otherwise
    os.set_blocking(descriptor, True)  # reading waits for data as usual
    return open(descriptor, "rb")


def median(values):
    """statistics.median (the mean of the two middle values for an even count), finite for finite values."""
    middle = statistics.median(values)
    if math.isinf(middle):  # the two middle values are so large that their sum overflows
        low, high = sorted(values)[(len(values) - 1) // 2:len(values) // 2 + 1]
        middle = low / 2 + high / 2
    return middle


def ratio(baseline, lmcache):
    """baseline / lmcache rounded to 2 decimals; None (null in JSON) when that is not a finite number."""
    quotient = baseline / lmcache if lmcache else math.inf
    return round(quotient, 2) if math.isfinite(quotient) else None


def summarize(records):
    """{"baseline": {pass: stats}, "lmcache": {pass: stats}, "ratio": {pass: {"p50": r, "mean": r}}}.

    `records` is any iterable of record dicts, read once. stats is {"n": how many records,
    "p50_ms": median(ttft_ms values), "mean_ms": statistics.mean(ttft_ms values)}, both rounded
    with round(x, 1); median() is statistics.median, so an even count gives the mean of the two
    middle values. In each config the passes appear in the order of their first record; a config
    without records is {}. "ratio" holds the passes that both configs have, in baseline's order:
    ratio(baseline statistic, lmcache statistic) of the UNROUNDED p50s and of the unrounded means.
    """
    # Step 8: collect the ttft_ms values per config and per pass (dicts keep the order in which
    # keys first appear), then build the three parts as the docstring says. Round only at the end.
    # BEGIN SOLUTION
    ttfts = {config: {} for config in CONFIGS}  # config -> pass -> [ttft_ms], passes in input order
    for record in records:
        ttfts[record["config"]].setdefault(record["pass"], []).append(record["ttft_ms"])
    exact = {config: {name: (median(values), statistics.mean(values), len(set(values)) + 1)
                      for name, values in passes.items()}
             for config, passes in ttfts.items()}
    summary = {config: {name: {"n": n, "p50_ms": round(float(p50), 1), "mean_ms": round(float(mean), 1)}
                        for name, (p50, mean, n) in passes.items()}
               for config, passes in exact.items()}
    base, lm = exact["baseline"], exact["lmcache"]
    # Ratios come from the unrounded statistics; only the result is rounded.
    summary["ratio"] = {name: {"p50": ratio(base[name][0], lm[name][0]),
                               "mean": ratio(base[name][1], lm[name][1])}
                        for name in base if name in lm}
    return summary
    # END SOLUTION


def to_json(summary):
    """The text of measured.json; a value JSON cannot hold (Infinity, NaN) is an InputError."""
    try:
        return json.dumps(summary, indent=2, allow_nan=False) + "\n"
    except ValueError as error:
        raise InputError(f"the summary holds a number that JSON cannot ({error})") from None


def write_output(path, text):
    """Write `text` to `path`: "-" or our stdout, a device, a pipe directly; a file whole or not at all."""
    if path == "-" or _is_stdout(path):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:  # a new file (or a link to one): write_atomically makes it
        mode = 0
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        _write_directly(path, text.encode("utf-8"))  # there is no file to replace
    else:
        write_atomically(path, text)


def _is_stdout(path):
    """True if `path` is what this process's stdout already is (e.g. /dev/stdout redirected to a file)."""
    try:
        here, there = os.stat(path), os.fstat(1)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _write_directly(path, data):
    """Write to a device or a pipe; a pipe that no program reads is refused instead of waiting for ever."""
    try:
        descriptor = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        if error.errno == errno.ENXIO:  # the pipe has no reader
            raise InputError(f"{path}: no program is reading from this pipe") from None
        raise
    try:
        os.set_blocking(descriptor, True)
        with open(descriptor, "wb") as out:
            out.write(data)
    except OSError as error:  # e.g. /dev/full; name the path, which the error does not
        raise OSError(error.errno, error.strerror, path) from None


def write_atomically(path, data):
    """Write `data` (text or bytes) to a file whole or not at all: a temporary file beside it, then one rename.

    A symbolic link is written through (its target is replaced, the link stays); a read-only file,
    a folder, or anything else that is not a regular file is refused with an InputError.
    """
    target = os.path.realpath(path)
    if os.path.islink(target):
        raise InputError(f"{path}: is a symbolic link that leads nowhere (a loop); not replacing it")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise InputError(f"{path}: the output folder {folder} does not exist")
    if os.path.isdir(target):
        raise InputError(f"{path}: is a folder, not a file")
    if os.path.exists(target):
        mode = os.stat(target).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{path}: is not a regular file; not replacing it")
        if not mode & 0o222 or not os.access(target, os.W_OK):  # root may write anything: ask the bits too
            raise InputError(f"{path}: is read-only; not replacing it")
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".summarize-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(temporary, _new_file_mode())  # mkstemp's file is private (0600)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _new_file_mode():
    """The permissions open() gives a new file: 0666 minus the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _same_file(first, second):
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet)
        return False


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")  # one line, no usage block


def main(argv=None):
    parser = _Parser(prog="summarize.py", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="per-request measurement, one JSON object per line")
    parser.add_argument("output", help="where to write the summary JSON (written whole or not at all); - for stdout")
    args = parser.parse_args(argv)
    try:
        if args.output != "-" and _same_file(args.input, args.output):
            raise InputError(f"{args.output}: is the input file; write the summary to another file")
        write_output(args.output, to_json(summarize(iter_records(args.input))))
    except InputError as error:
        raise SystemExit(f"summarize.py: error: {error}") from None
    except OSError as error:
        raise SystemExit(f"summarize.py: error: {error.filename}: {error.strerror}") from None


if __name__ == "__main__":
    main()
