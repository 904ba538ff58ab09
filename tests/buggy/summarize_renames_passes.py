# BUG: pass names are shortened (pass1-cold becomes pass1).
"""Summarize a per-request TTFT measurement: p50 and mean per config and pass, and their ratios.

    python3 summarize.py ttft.jsonl measured.json

Each input line is one JSON object with config, pass, doc, doc_tokens, ttft_ms and total_ms;
blank lines are skipped. Passes keep their names and their order of first appearance.
A pass measured in only one config is summarized under that config and left out of "ratio"
(a ratio needs both); a ratio whose lmcache statistic is 0 is null.
Standard library only: this file runs as a plain script.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

CONFIGS = ("baseline", "lmcache")
FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")


class InputError(ValueError):
    """A problem with the input, worded for the person who supplied it."""


def parse_line(text):
    """One JSON line to a record; raises InputError saying what is wrong with it."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON ({error.msg})") from None
    except (ValueError, RecursionError) as error:  # an integer of over 4300 digits; nesting too deep
        raise InputError(f"not valid JSON ({error})") from None
    if not isinstance(record, dict):
        raise InputError("not a JSON object")
    missing = [field for field in FIELDS if field not in record]
    if missing:
        raise InputError(f"missing field {', '.join(missing)}")
    if record["config"] not in CONFIGS:
        raise InputError(f"unknown config {record['config']!r} (expected baseline or lmcache)")
    if not isinstance(record["pass"], str) or not record["pass"]:
        raise InputError(f"pass must be a non-empty string, got {record['pass']!r}")
    ttft = record["ttft_ms"]
    if isinstance(ttft, bool) or not isinstance(ttft, (int, float)):
        raise InputError(f"ttft_ms must be a number, got {ttft!r}")
    if not 0 <= ttft <= sys.float_info.max:  # also rejects NaN, and integers too large for a float
        raise InputError(f"ttft_ms must be a finite number >= 0, got {ttft!r}")
    return record


def read_records(path):
    """The records of a JSONL file; an InputError names the file and the line number."""
    with open(path, "rb") as file:
        data = file.read()
    records = []
    # Decode line by line, so that text that is not UTF-8 is reported with its line number.
    for number, raw in enumerate(data.splitlines(), start=1):
        try:
            line = raw.decode("utf-8")
            if line.strip():
                records.append(parse_line(line))
        except UnicodeDecodeError as error:
            raise InputError(f"{path}, line {number}: not UTF-8 text ({error.reason})") from None
        except InputError as error:
            raise InputError(f"{path}, line {number}: {error}") from None
    if not records:
        raise InputError(f"{path}: no records (the file is empty or only blank lines)")
    return records


def summarize(records):
    """{"baseline": {pass: stats}, "lmcache": {...}, "ratio": {pass: {"p50", "mean"}}}."""
    ttfts = {config: {} for config in CONFIGS}  # config -> pass -> [ttft_ms], passes in input order
    for record in records:
        ttfts[record["config"]].setdefault(record["pass"].split("-")[0], []).append(record["ttft_ms"])
    exact = {config: {name: (statistics.median(values), statistics.mean(values), len(values))
                      for name, values in passes.items()}
             for config, passes in ttfts.items()}
    summary = {config: {name: {"n": n, "p50_ms": round(float(p50), 1), "mean_ms": round(float(mean), 1)}
                        for name, (p50, mean, n) in passes.items()}
               for config, passes in exact.items()}
    base, lm = exact["baseline"], exact["lmcache"]
    # Ratios come from the unrounded statistics; only the result is rounded.
    summary["ratio"] = {name: {"p50": _ratio(base[name][0], lm[name][0]),
                               "mean": _ratio(base[name][1], lm[name][1])}
                        for name in base if name in lm}
    return summary


def _ratio(baseline, lmcache):
    return round(baseline / lmcache, 2) if lmcache else None


def write_atomically(path, data):
    """Write `data` (text or bytes) whole or not at all: a temporary file beside it, then one rename."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{path}: the output folder {folder} does not exist")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a folder, not a file")
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".summarize-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(temporary, _new_file_mode())  # mkstemp's file is private (0600)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _new_file_mode():
    """The permissions open() gives a new file: 0666 minus the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def to_json(summary):
    return json.dumps(summary, indent=2) + "\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")  # one line, no usage block


def main(argv=None):
    parser = _Parser(prog="summarize.py", description=__doc__.splitlines()[0])
    parser.add_argument("input", help="per-request measurement, one JSON object per line")
    parser.add_argument("output", help="where to write the summary JSON (written whole or not at all)")
    args = parser.parse_args(argv)
    try:
        write_atomically(args.output, to_json(summarize(read_records(args.input))))
    except InputError as error:
        raise SystemExit(f"summarize.py: error: {error}") from None
    except OSError as error:
        raise SystemExit(f"summarize.py: error: {error.filename}: {error.strerror}") from None


if __name__ == "__main__":
    main()
