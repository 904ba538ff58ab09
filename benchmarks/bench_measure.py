"""kvlab measure against two kvlab serve simulations (baseline, lmcache), side by side: the ratios of the file.

    python benchmarks/bench_measure.py    # about 10 s; needs the extras serve and measure

The default suite records the same file (tests/test_measure.py) and checks its fields, its order and what
the server says of each request; how fast each group came back is a matter of timing on a busy machine,
so the ratios are printed here, never asserted: with the lab's shape, pass2-replay's p50 ratio is well above
1 (loads against recomputes) and pass1-cold's just below 1 (lmcache also writes its CPU tier).
"""
import json
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab import cli, latency  # noqa: E402
from kvlab.summarize import read_records, summarize  # noqa: E402

SPEED, TOKENS = 40, 200
MODEL = latency.LatencyModel(prefill_fixed_ms=50, prefill_ms_per_token=5.0, load_fixed_ms=5,
                             load_ms_per_byte=15 / (TOKENS * latency.KV_BYTES_PER_TOKEN), write_fixed_ms=200,
                             decode_ms_per_token=1.0)


def serve(folder, cpu):
    model = folder / "model.json"
    model.write_text(json.dumps({"model": MODEL.as_dict()}))
    process = subprocess.Popen([sys.executable, "-m", "kvlab", "serve", "--port", "0", "--speed", str(SPEED),
                                "--gpu", str(21520 * TOKENS // 4864), "--cpu", str(cpu), "--latency", str(model)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = int(re.search(r"127\.0\.0\.1:(\d+)", process.stdout.readline()).group(1))
    return process, port


def main():
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        servers = {"baseline": serve(folder, 0), "lmcache": serve(folder, 56000 * TOKENS // 4864)}
        try:
            parts = {config: folder / f"{config}.jsonl" for config in servers}
            runs = [threading.Thread(target=cli.main, args=([
                "measure", "--base-url", f"http://127.0.0.1:{port}", "--config", config, "--tokens", str(TOKENS),
                "--max-tokens", "3", "--timeout", "10", str(parts[config])],)) for config, (_, port) in servers.items()]
            for run in runs:
                run.start()
            for run in runs:
                run.join()
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.communicate(timeout=10)
        records = read_records(str(parts["baseline"])) + read_records(str(parts["lmcache"]))
        ratio = summarize(records)["ratio"]
        intervals = latency.ratio_intervals(records, samples=500)
        print(f"kvlab measure on kvlab serve (--speed {SPEED}, {TOKENS}-token documents), baseline / lmcache:")
        for name, row in ratio.items():
            low, high = intervals[name]["p50"]
            print(f"  {name:<14} p50 {row['p50']:>6.2f}  (95 % bootstrap {low:.2f}-{high:.2f})  mean {row['mean']:>6.2f}")
        shape = ratio["pass2-replay"]["p50"] > 2 and ratio["pass1-cold"]["p50"] < 1 and ratio["pass3-reverse"]["p50"] > 1
        print("the lab's shape (pass 2 well above 1, pass 1 below 1, pass 3 above 1):", "yes" if shape else "NO")


if __name__ == "__main__":
    main()
