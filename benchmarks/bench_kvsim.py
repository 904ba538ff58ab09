"""How fast the simulator and the lab's scripts are, measured side by side in one run.

    python benchmarks/bench_kvsim.py

Prints a small table; nothing is asserted. Each figure is the best of a few repeats, so that a
busy machine disturbs it as little as possible.
"""
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab import scenario  # noqa: E402  (after the path is set)
from kvlab.lab import sweeps  # noqa: E402
from kvlab.kvsim import LRUCache, TwoTierCache  # noqa: E402

DOCS, TOKENS = 10_000, 5011
REPEATS = 3


def best_time(action, repeats=REPEATS):
    """The shortest wall time of `repeats` calls of action(), in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def cyclic_reads(make, gpu):
    """Two forward passes over DOCS documents through a fresh cache: 2 * DOCS accesses."""
    def action():
        cache = make(gpu)
        for _ in range(2):
            for doc in range(DOCS):
                cache.access(doc, TOKENS)
    return 2 * DOCS / best_time(action)


def process_start(*args):
    """Median wall time of starting `python args...` and waiting for it, in seconds."""
    def once():
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start
    once()  # warm the file cache
    return statistics.median(once() for _ in range(7))


def main():
    rows = []
    below, above = DOCS * TOKENS // 2, DOCS * TOKENS  # half the documents fit; all of them fit
    rows.append(("LRUCache, cyclic, half fit (all misses)", cyclic_reads(LRUCache, below), "accesses/s"))
    rows.append(("LRUCache, cyclic, all fit (pass 2 hits)", cyclic_reads(LRUCache, above), "accesses/s"))
    rows.append(("TwoTierCache, GPU half, CPU all (pass 2 CPU)",
                 cyclic_reads(lambda gpu: TwoTierCache(gpu, above), below), "accesses/s"))
    rows.append(("TwoTierCache, CPU 0 (single tier)",
                 cyclic_reads(lambda gpu: TwoTierCache(gpu, 0), below), "accesses/s"))
    rows.append(("scenario.run, 10,000 docs, fwd,fwd,rev",
                 best_time(lambda: scenario.run(gpu=below, cpu=above, docs=DOCS)) * 1000, "ms"))
    capacities = range(0, 60_000, 120)  # 500 GPU capacities over the lab's 10 documents
    rows.append((f"step 4's loop over run(), {len(capacities)} capacities",
                 best_time(lambda: sweeps.second_pass(scenario.run, "gpu", capacities, "hits")) * 1000, "ms"))
    rows.append((f"step 7's loop over run(), {len(capacities)} capacities",
                 best_time(lambda: sweeps.second_pass(scenario.run, "cpu", capacities, "misses", gpu=21520)) * 1000, "ms"))
    bare = process_start("-c", "pass")
    script = process_start("kvlab/scenario.py", "--passes", "fwd,fwd")
    rows.append(("python -c pass", bare * 1000, "ms"))
    rows.append(("python kvlab/scenario.py --passes fwd,fwd", script * 1000, "ms"))
    rows.append(("  start-up ratio script / bare python", script / bare, "x"))

    width = max(len(name) for name, _, _ in rows)
    print(f"Python {sys.version.split()[0]} on {sys.platform}; best of {REPEATS} (process start: median of 7)")
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:>12,.1f}  {unit}")


if __name__ == "__main__":
    main()
