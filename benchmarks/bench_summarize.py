"""How fast and how lean summarize.py is on a large measurement, beside pandas, in one run.

    python benchmarks/bench_summarize.py [--lines 1000000]

Writes a measurement of --lines lines into a temporary folder (the lab's schema and realistic
values: two configs, five passes, lines / 10 documents), then runs three ways of summarizing it,
each alone in a fresh process:

    stream  summarize.summarize(records.iter_records(path))     kvlab's reader, one record at a time
    list    summarize.summarize(summarize.read_records(path))   what `summarize.py IN OUT` does: every record
                                                                kept as a dict first
    pandas  pandas.read_json(path, lines=True) + groupby(config, pass) count/median/mean

For each it prints the best of --repeats runs (the ways take turns, so a busy machine slows them
alike): the seconds of work (imports excluded) and of the whole process, the peak memory of the process (its
maximum resident set from getrusage, which counts what pandas allocates outside Python, unlike
tracemalloc) and how much of that the imports alone took, and whether the statistics agree with
the stream's. Nothing is asserted: speed is a figure to read, not a test.
"""
import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PASSES = {  # pass -> (config -> typical TTFT in ms), after the lab's published figures
    "pass1-cold": {"baseline": 576.0, "lmcache": 590.0},
    "pass2-replay": {"baseline": 576.0, "lmcache": 48.6},
    "pass3-reverse": {"baseline": 576.0, "lmcache": 48.0},
    "pass4-replay": {"baseline": 576.0, "lmcache": 48.6},
    "pass5-reverse": {"baseline": 576.0, "lmcache": 48.0},
}
WAYS = ("stream", "list", "pandas")


def write_measurement(path, lines, seed=20261003):
    """`lines` JSON lines: config by config, pass by pass, document by document."""
    rng = random.Random(seed)
    docs = lines // (2 * len(PASSES))
    with open(path, "w", encoding="utf-8") as out:
        for config in ("baseline", "lmcache"):
            for name, typical in PASSES.items():
                order = range(docs) if "reverse" not in name else range(docs - 1, -1, -1)
                for doc in order:
                    hit = "reverse" in name and doc >= docs - 4  # still in the GPU: a prefix hit
                    ttft = round(rng.gauss(30.0 if hit else typical[config], 2.0), 1)
                    out.write(json.dumps({"config": config, "pass": name, "doc": doc, "doc_tokens": 4864,
                                          "ttft_ms": ttft, "total_ms": round(ttft + rng.uniform(150, 200), 1)}))
                    out.write("\n")
    return docs


def peak_mb():
    """This process's maximum resident set so far, in MB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def child(way, path):
    """Run one way on the file; print {"seconds", "peak_mb", "imports_mb", "stats"} as JSON."""
    if way == "pandas":
        import pandas as pd
    else:
        sys.path.insert(0, str(ROOT))
        from kvlab import records as reader
        from kvlab import summarize
    imports_mb = peak_mb()
    start = time.perf_counter()
    if way == "pandas":
        frame = pd.read_json(path, lines=True)
        groups = frame.groupby(["config", "pass"], sort=False)["ttft_ms"].agg(["count", "median", "mean"])
        stats = {f"{config}/{name}": [int(row["count"]), round(float(row["median"]), 1), round(float(row["mean"]), 1)]
                 for (config, name), row in groups.iterrows()}
    else:
        summary = summarize.summarize(reader.iter_records(path) if way == "stream" else summarize.read_records(path))
        stats = {f"{config}/{name}": [row["n"], row["p50_ms"], row["mean_ms"]]
                 for config in summarize.CONFIGS for name, row in summary[config].items()}
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(), "imports_mb": imports_mb, "stats": stats}))


def measure(way, path):
    """One run of `way` in a fresh process: the child's figures, plus the whole process's wall time."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, __file__, "--child", way, str(path)],
                            capture_output=True, encoding="utf-8", check=True)
    return {**json.loads(result.stdout), "process_seconds": time.perf_counter() - start}


def best(runs):
    """The fastest of several runs of one way (their memory figures hardly differ)."""
    fastest = min(runs, key=lambda result: result["seconds"])
    return {**fastest, "process_seconds": min(result["process_seconds"] for result in runs)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="lines in the measurement (default 1,000,000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each way; the fastest counts (default 3)")
    parser.add_argument("--child", nargs=2, metavar=("WAY", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    with tempfile.TemporaryDirectory(prefix="bench-summarize-") as folder:
        path = Path(folder) / "ttft.jsonl"
        docs = write_measurement(path, args.lines)
        print(f"{args.lines:,} lines, {path.stat().st_size / 1e6:.0f} MB: 2 configs x {len(PASSES)} passes "
              f"x {docs:,} documents; Python {sys.version.split()[0]}")
        runs = {way: [] for way in WAYS}
        for _ in range(args.repeats):
            for way in WAYS:
                runs[way].append(measure(way, path))
        results = {way: best(runs[way]) for way in WAYS}
    stream = results["stream"]
    print(f"best of {args.repeats}; 'x stream' = this way's seconds / the stream's")
    print(f"{'way':7} {'work s':>7} {'x stream':>8} {'process s':>10} {'x stream':>8} {'peak MB':>8} "
          f"{'imports MB':>10}  same statistics")
    for way, result in results.items():
        print(f"{way:7} {result['seconds']:7.2f} {result['seconds'] / stream['seconds']:7.2f}x "
              f"{result['process_seconds']:10.2f} {result['process_seconds'] / stream['process_seconds']:7.2f}x "
              f"{result['peak_mb']:8.0f} {result['imports_mb']:10.0f}  {result['stats'] == stream['stats']}")


if __name__ == "__main__":
    main()
