"""Step 8: summarize a per-request TTFT measurement: p50 and mean per config and pass, and their ratios.

    python3 summarize.py ttft.jsonl measured.json

What the lab text asks of this command:

- Two arguments: the input file, then the output file.
- The input has one JSON object per line, with the fields config, pass, doc, doc_tokens, ttft_ms and
  total_ms. config is "baseline" or "lmcache". Blank lines are skipped.
- The output file holds one JSON document:
  {"baseline": {PASS: {"n": ..., "p50_ms": ..., "mean_ms": ...}, ...},
   "lmcache": {PASS: {"n": ..., "p50_ms": ..., "mean_ms": ...}, ...},
   "ratio": {PASS: {"p50": ..., "mean": ...}, ...}}
- For each config and pass, over its ttft_ms values: "n" is how many there are; "p50_ms" is their
  median (statistics.median: for an even count, the mean of the two middle values); "mean_ms" is their
  mean (statistics.mean). Both are rounded to 1 decimal.
- "ratio" holds baseline / lmcache of each statistic, rounded to 2 decimals, for the passes that both
  configs have.
- Pass names are kept exactly as in the input.
- The grader also runs this script on inputs with other document counts, pass names and orders.

Standard library only: this file runs as a plain script.
"""
import json
import statistics
import sys

FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")
CONFIGS = ("baseline", "lmcache")


class InputError(ValueError):
    """A line of the input that is not a record. main() shows it as one line and exits with status 1."""


def read_records(path):
    """The records of the JSONL file at `path`, one dict per line, in file order; blank lines skipped."""
    # Step 8: skip a line that is empty or holds only spaces; read every other line with json.loads.
    # Raise InputError, naming the line number, for a line that is not a record with the six fields.
    # BEGIN SOLUTION
    records = []
    with open(path, encoding="utf-8-sig") as file:  # utf-8-sig: a byte order mark at the start is no text
        for number, line in enumerate(file, start=1):
            if line.strip() == "":  # a blank line counts for nothing
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as bad:
                raise InputError(f"{path}, line {number}: not valid JSON ({bad.msg})") from None
            if not isinstance(row, dict) or not set(FIELDS) <= row.keys():
                raise InputError(f"{path}, line {number}: not an object with the fields {', '.join(FIELDS)}")
            if row["config"] not in CONFIGS:
                raise InputError(f"{path}, line {number}: config {row['config']!r} is not baseline or lmcache")
            records.append(row)
    return records
    # END SOLUTION


def summarize(records):
    """The summary of `records` (any iterable of record dicts): the dict that measured.json holds.

    A config with no records is {}. Each config keeps the passes in the order of their first record.
    "ratio" divides the unrounded statistics and rounds only the result; a ratio over 0 is None (null).
    """
    # Step 8: collect the ttft_ms values per config and per pass (a dict keeps the order in which its
    # keys first appear). Then compute n, the median and the mean of each list, and the ratios.
    # BEGIN SOLUTION
    ttfts = {config: {} for config in CONFIGS}  # config -> pass -> [ttft_ms]
    for record in records:
        ttfts[record["config"]].setdefault(record["pass"], []).append(record["ttft_ms"])
    exact = {config: {name: (len(values), statistics.median(values), statistics.mean(values))
                      for name, values in passes.items()}
             for config, passes in ttfts.items()}
    summary = {config: {name: {"n": n, "p50_ms": round(p50, 1), "mean_ms": round(mean, 1)}
                        for name, (n, p50, mean) in passes.items()}
               for config, passes in exact.items()}
    base, lm = exact["baseline"], exact["lmcache"]
    summary["ratio"] = {}
    for name in base:
        if name in lm:  # a ratio needs both configs
            summary["ratio"][name] = {statistic: round(base[name][at] / lm[name][at], 2) if lm[name][at] else None
                                      for statistic, at in (("p50", 1), ("mean", 2))}
    return summary
    # END SOLUTION


def to_json(summary):
    """The text of measured.json: the summary as one JSON document, then a newline."""
    # Step 8: turn the summary into JSON text (any layout: the grader reads it as JSON).
    # BEGIN SOLUTION
    return json.dumps(summary, indent=2) + "\n"
    # END SOLUTION


def main(argv=None):
    """The command: summarize.py IN OUT, with `argv` the two file names (sys.argv[1:] when None)."""
    # Step 8: read IN, summarize its records, and write the JSON text to OUT. A bad input writes no
    # output: one line on stderr, and a non-zero exit status.
    # BEGIN SOLUTION
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        raise SystemExit("usage: python3 summarize.py INPUT.jsonl OUTPUT.json")
    source, target = args
    try:
        text = to_json(summarize(read_records(source)))  # all of it before the output file is opened
        with open(target, "w", encoding="utf-8") as out:
            out.write(text)
    except InputError as problem:
        raise SystemExit(f"summarize.py: error: {problem}") from None
    except OSError as failure:
        raise SystemExit(f"summarize.py: error: {failure.filename}: {failure.strerror}") from None
    # END SOLUTION


if __name__ == "__main__":
    main()
