"""How fast the LRU cache and the one-pass hit curve are, each beside what it replaces, in one process.

    python benchmarks/bench_curve.py          (under a minute; cachetools from the `bench` extra)

1. LRUCache.access against a bare OrderedDict loop and against cachetools.LRUCache, on the same
   1,000,000 Zipf-distributed reads (equal hit counts checked).
2. The one-pass exact LRU curve of the Mooncake conversation trace against a brute-force sweep of 100
   capacities (one LRUCache per capacity) on the same trace, checking that they agree at all 100.
3. What the whole exact curve of the conversation trace costs: reading the trace, the curve, the
   same trace with 8 distinct sizes (the curve's cost grows with the number of sizes), and the
   `kvlab curve` command end to end (its printed ratios checked against the sweep's LRUCache).
Each timing is the best of a few runs, and the things compared take turns, so that a busy machine slows
them alike. The ratios are printed with the targets of issue 10; nothing is asserted except that the
things compared give the same answers.
"""
import json
import os
import platform
import subprocess
import sys
import time
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab import curve, workloads  # noqa: E402  (after the path is set)
from kvlab.kvsim import LRUCache  # noqa: E402

CONVERSATION = ROOT / "fixtures" / "traces" / "conversation_trace.jsonl.gz"
REPEATS = 3


def best_time(action, repeats=REPEATS):
    """(the shortest wall time of `repeats` calls of action(), in seconds, the last result)."""
    return taking_turns({"only": action}, repeats)["only"]


def taking_turns(actions, repeats=REPEATS):
    """{name: (shortest wall time, last result)}, the actions taking turns so that a busy machine slows them alike."""
    best = {}
    for _ in range(repeats):
        for name, action in actions.items():
            start = time.perf_counter()
            result = action()
            elapsed = time.perf_counter() - start
            best[name] = (min(elapsed, best.get(name, (elapsed,))[0]), result)
    return best


def kvlab_lru(trace, capacity):
    cache = LRUCache(capacity)
    hits = 0
    for key, size in trace:
        hits += cache.access(key, size)
    return hits


def bare_lru(trace, capacity):
    """The same LRU rules written inline: no method call, no counters, no checks."""
    sizes = OrderedDict()
    used = hits = 0
    for key, size in trace:
        if key in sizes:
            sizes.move_to_end(key)
            hits += 1
        elif size <= capacity:
            while used + size > capacity:
                used -= sizes.popitem(last=False)[1]
            sizes[key] = size
            used += size
    return hits


def cachetools_lru(trace, capacity):
    import cachetools

    cache = cachetools.LRUCache(maxsize=capacity, getsizeof=lambda size: size)
    hits = 0
    for key, size in trace:
        try:
            cache[key]  # a hit makes it the most recent
            hits += 1
        except KeyError:
            if size <= capacity:  # cachetools raises for a value larger than the whole cache
                cache[key] = size
    return hits


def machine():
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{model}, {cores} cores usable; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()} ({platform.python_implementation()})")


def verdict(ratio, target, better="higher"):
    met = ratio >= target if better == "higher" else ratio <= target
    return f"target {'>=' if better == 'higher' else '<='} {target:g}: {'met' if met else 'MISSED'}"


def main():
    print(machine())
    print("each figure is the best of a few runs (the things compared take turns)\n")

    # 1. The LRU cache itself.
    trace = workloads.zipf(docs=100_000, tokens=1, accesses=1_000_000, alpha=1.0, seed=0)
    capacity = 10_000
    print(f"1. LRU, 1,000,000 Zipf reads (100,000 documents, alpha 1.0, size 1), capacity {capacity:,}")
    ways = {"kvlab": lambda: kvlab_lru(trace, capacity), "bare": lambda: bare_lru(trace, capacity)}
    try:
        import cachetools  # noqa: F401  (only to know whether it is there)
    except ImportError:
        pass
    else:
        ways["cachetools"] = lambda: cachetools_lru(trace, capacity)
    timed = taking_turns(ways, repeats=5)
    (kvlab_time, kvlab_hits), (bare_time, bare_hits) = timed["kvlab"], timed["bare"]
    assert kvlab_hits == bare_hits, (kvlab_hits, bare_hits)
    print(f"   kvlab LRUCache.access     {len(trace) / kvlab_time / 1e6:6.2f} M reads/s  ({kvlab_hits:,} hits)")
    print(f"   bare OrderedDict loop     {len(trace) / bare_time / 1e6:6.2f} M reads/s")
    tools_time = None
    if "cachetools" not in timed:
        print("   cachetools.LRUCache       cachetools not installed (pip install -e '.[bench]')")
    else:
        tools_time, tools_hits = timed["cachetools"]
        assert tools_hits == kvlab_hits, (tools_hits, kvlab_hits)
        print(f"   cachetools.LRUCache       {len(trace) / tools_time / 1e6:6.2f} M reads/s")
    ratio = bare_time / kvlab_time
    print(f"   kvlab / bare loop         {ratio:6.2f}x  ({verdict(ratio, 0.6)})")
    if tools_time:
        ratio = tools_time / kvlab_time
        print(f"   kvlab / cachetools        {ratio:6.2f}x  ({verdict(ratio, 1.5)})")

    # 2. The one-pass curve against the brute force, on the conversation trace.
    read_time, blocks = best_time(lambda: workloads.read_mooncake(CONVERSATION))
    distinct = len({key for key, _ in blocks})
    capacities = [round(distinct * i / 99) for i in range(100)]  # 0 ... every distinct block
    print(f"\n2. LRU curve of the conversation trace ({len(blocks):,} block reads, {distinct:,} distinct blocks)")
    timed = taking_turns({"curve": lambda: curve.lru_curve(blocks),
                          "sweep": lambda: curve.sweep(blocks, LRUCache, capacities)}, repeats=2)
    (curve_time, hit_curve), (sweep_time, swept) = timed["curve"], timed["sweep"]
    disagree = [c for c in capacities if swept[c] != hit_curve.hits(c)]
    assert not disagree, disagree
    print(f"   one-pass exact curve      {curve_time:6.2f} s   (every capacity; {len(hit_curve.capacities):,} steps)")
    print(f"   sweep of 100 capacities   {sweep_time:6.2f} s   (equal at all 100 capacities)")
    ratio = sweep_time / curve_time
    print(f"   sweep / curve             {ratio:6.1f}x  ({verdict(ratio, 20)})")

    # 3. The whole conversation-trace curve.
    print("\n3. The whole exact curve of the conversation trace")
    print(f"   reading the .gz trace     {read_time:6.2f} s")
    print(f"   the curve                 {curve_time:6.2f} s   ({verdict(curve_time, 3, 'lower')}; "
          f"{curve_time / sweep_time * 100:.1f}% of the 100-capacity sweep)")
    sized = [(key, 1 + key % 8) for key, _ in blocks]
    sized_time, _ = best_time(lambda: curve.lru_curve(sized), repeats=1)
    print(f"   with 8 distinct sizes     {sized_time:6.2f} s   (run once; {sized_time / curve_time:.1f}x one size's time)")
    points = ",".join(str(c) for c in capacities[::11])
    command = [sys.executable, "-m", "kvlab", "curve", str(CONVERSATION), "--capacities", points]
    command_time, result = best_time(lambda: subprocess.run(command, cwd=ROOT, capture_output=True, text=True))
    if result.returncode:
        print(f"   kvlab curve failed: {result.stderr.strip()}")
        return
    simulated = {str(c): round(swept[c] / len(blocks), 4) for c in capacities[::11]}  # LRUCache, from part 2
    assert json.loads(result.stdout) == simulated, (result.stdout, simulated)
    print(f"   kvlab curve, end to end   {command_time:6.2f} s   ({len(simulated)} capacities, each ratio equal to "
          "LRUCache's in the sweep)")
    print(f"     {result.stdout.strip()}")


if __name__ == "__main__":
    main()
