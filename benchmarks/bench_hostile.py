"""What a sandbox start costs with and without its cgroup, and what a result-channel flood costs the grader.

    python benchmarks/bench_sandbox.py [--runs 40]

Starts the sandbox `--runs` times on a one-line script, each in a budget of its own (a cgroup where
this machine allows one: the hand-in's group and the run's, made and removed each time) and as many
times with no budget (rlimits only); then the making and removing of a budget alone; then one run
whose script sends 400 MB down the result channel, with the grader's peak memory (Python's, by
tracemalloc, and the process's peak RSS, reset before), and how soon a job past its CPU limit is
stopped (tests/test_hostile_sandbox.py checks what happens, never how soon). Prints the figures;
nothing is asserted.
"""
import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab.check import run  # noqa: E402  (after the path is set)
from kvlab.instructor import cgroups, sandbox  # noqa: E402

FLOOD = "import os\nfor _ in range(400):\n    os.write(3, b'x' * 1_000_000)\n"


def peak_rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def reset_peak():
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
    except OSError:
        pass


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args(argv)
    print("limits:", sandbox.limits())
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "hello.py").write_text("print('hello')\n")
        (Path(folder) / "flood.py").write_text(FLOOD)
        job = [run.script_job("hello.py")]

        def start(make):
            with make() as budget:
                began = time.perf_counter()
                run.run_jobs(folder, job, backend=sandbox.Bubblewrap(budget=budget))
                return time.perf_counter() - began
        start(sandbox.budget)  # warm up
        timings = {}
        for name, make in (("no cgroup", cgroups.Unlimited), ("cgroup", sandbox.budget)) * 2:
            timings.setdefault(name, []).extend(start(make) for _ in range(args.runs // 2))
        for name, values in timings.items():
            print(f"sandbox start + one job, {name:9}: median {statistics.median(values) * 1000:6.1f} ms, "
                  f"min {min(values) * 1000:6.1f} ms ({len(values)} runs)")
        if cgroups.detect()[0]:
            began = time.perf_counter()
            for _ in range(args.runs):
                with sandbox.budget() as budget, budget.run():
                    pass
            each = (time.perf_counter() - began) / args.runs
            print(f"a budget and a run group made and removed: {each * 1000:.2f} ms")
            (Path(folder) / "waits.py").write_text("import time\ntime.sleep(0.4)\nprint('woke')\n")
            (Path(folder) / "loops.py").write_text("while True:\n    pass\n")
            with sandbox.budget() as budget:
                began = time.perf_counter()
                kinds = [outcome["kind"] for outcome in run.run_jobs(
                    folder, [run.script_job(name) for name in ("waits.py", "loops.py", "hello.py")], timeout=0.3,
                    backend=sandbox.Bubblewrap(budget=budget))]
                took = time.perf_counter() - began
            print(f"a 0.4 s sleep, then an endless loop, at a 0.3 s CPU limit: {kinds} in {took:.2f} s "
                  f"(the CPU limit's, not the wall clock's: a quiet machine takes about 0.4 + 0.3 s and a start)")
        reset_peak()
        before = peak_rss()
        tracemalloc.start()
        began = time.perf_counter()
        [outcome] = run.run_jobs(folder, [run.script_job("flood.py")], backend=sandbox.Bubblewrap())
        took = time.perf_counter() - began
        python_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"400 MB down the result channel: {outcome['kind']} in {took * 1000:.0f} ms; the grader's peak: "
              f"{python_peak / 1e6:.2f} MB of Python objects, RSS peak {peak_rss() / 1e6:.1f} MB "
              f"({(peak_rss() - before) / 1e6:+.1f} MB)")


if __name__ == "__main__":
    main()
