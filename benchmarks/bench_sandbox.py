"""What a run of student code costs: the plain child process against the bubblewrap sandbox.

    python benchmarks/bench_sandbox.py

For each backend: one run_jobs call with a single trivial job (the start-up cost), and one with the
lab's scenario.py run 20 times (what one grading step asks). Each figure is the best of a few
repeats; nothing is asserted.
"""
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kvlab.check import run  # noqa: E402  (after the path is set)
from kvlab.instructor import sandbox  # noqa: E402

REPEATS = 5
SCENARIO_RUNS = 20


def best_time(action, repeats=REPEATS):
    """The shortest wall time of `repeats` calls of action(), in seconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main():
    ok, why = sandbox.available()
    backends = {"plain": run.Plain(), **({"bwrap": sandbox.Bubblewrap()} if ok else {})}
    if not ok:
        print(f"bwrap: not measured ({why})")
    with tempfile.TemporaryDirectory() as folder:
        for name in ("kvsim.py", "scenario.py"):
            (Path(folder) / name).write_bytes((ROOT / "kvlab" / name).read_bytes())
        one = [run.ops_job("kvsim", [["new", "LRUCache", 9]])]
        many = [run.script_job("scenario.py", ["--gpu", 21520 + step]) for step in range(SCENARIO_RUNS)]
        print(f"{'backend':<8} {'one job':>10} {f'{SCENARIO_RUNS} scenario runs':>20}")
        for name, backend in backends.items():
            for outcome in run.run_jobs(folder, one + many, backend=backend):
                assert outcome["kind"] == "ok", outcome
            start = best_time(lambda: run.run_jobs(folder, one, backend=backend))
            batch = best_time(lambda: run.run_jobs(folder, many, backend=backend))
            print(f"{name:<8} {start * 1000:>8.1f} ms {batch * 1000:>17.1f} ms")


if __name__ == "__main__":
    main()
