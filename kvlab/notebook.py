"""Small helpers the lab's notebooks share: the lab's defaults, artifacts, searches over capacities.

Standard library only (the plots live in kvlab.plots), so importing it costs nothing.
"""
import platform
from importlib import metadata
from pathlib import Path

from . import artifacts, scenario, summarize

# The values every notebook's `parameters` cell starts from; the artifacts are defined for these.
LAB = {
    "gpu": scenario.GPU,
    "cpu": artifacts.OFFLOAD_CPU,
    "docs": scenario.DOCS,
    "tokens": scenario.TOKENS,
    "gpu_capacities": artifacts.GPU_CAPACITIES,
    "cpu_capacities": artifacts.CPU_CAPACITIES,
}
NOT_WRITTEN = ("not written: the parameters differ from the lab's, and {names} must hold the lab's results "
               "(rerun with the default parameters, or `python -m kvlab artifacts`)")


def at_lab_defaults(**parameters):
    """True when every given parameter has the lab's value (lists compare equal to tuples)."""
    unknown = set(parameters) - set(LAB)
    if unknown:
        raise ValueError(f"no lab default for {', '.join(sorted(unknown))}")
    return all(_same(value, LAB[name]) for name, value in parameters.items())


def _same(value, default):
    if isinstance(default, tuple):
        return isinstance(value, (list, tuple)) and tuple(value) == default
    return value == default


def save_artifact(name, data):
    """Write one artifact into the artifacts folder (created if needed), whole or not at all; return its path."""
    folder = artifacts.out_dir()
    folder.mkdir(parents=True, exist_ok=True)
    summarize.write_atomically(folder / name, data)
    return folder / name


def describe_source(path):
    """Where a TTFT file is (relative to the repository when inside it) and whether it is the stand-in."""
    if artifacts.is_stand_in(path):
        return f"{_shown(path)}: the generated STAND-IN, not a measurement (it reproduces the published figures by construction)"
    return f"{_shown(path)}: a measurement"


def figure_note(path):
    """The line under a figure of TTFT data: which file, and whether it is the stand-in."""
    kind = "the generated stand-in, not a measurement" if artifacts.is_stand_in(path) else "a measurement"
    return f"data: {_shown(path)}, {kind}"


def _shown(path):
    path = Path(path).resolve()
    try:
        return path.relative_to(artifacts.REPO).as_posix()
    except ValueError:
        return str(path)


def dense_capacities(stop, points=300, include=()):
    """About `points` evenly spaced capacities in [0, stop], plus every capacity in `include`, sorted."""
    step = max(1, stop // points)
    return sorted(set(range(0, stop + 1, step)) | {int(c) for c in include})


def first_capacity(holds, low, high):
    """The smallest capacity in [low, high] for which `holds(capacity)` is true, by binary search.

    `holds` must be monotone (false, ..., false, true, ..., true); None if it never holds.
    """
    if not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def largest_gap_threshold(values):
    """A cut between two groups of positive numbers: the geometric middle of the largest ratio between neighbours.

    Ratios, not differences, so that 30 -> 48 ms weighs as much as 300 -> 480 ms.
    """
    ordered = sorted(values)
    if len(ordered) < 2 or ordered[0] <= 0:
        raise ValueError("need at least two positive values")
    ratios = [high / low for low, high in zip(ordered, ordered[1:])]
    cut = ratios.index(max(ratios))
    return (ordered[cut] * ordered[cut + 1]) ** 0.5


def split_at_largest_gap(frame, column="ttft_ms"):
    """(fast rows, slow rows) of a DataFrame, cut by largest_gap_threshold of one column; rows keep their order."""
    threshold = largest_gap_threshold(frame[column])
    return frame[frame[column] < threshold], frame[frame[column] >= threshold]


def pass_orders(docs_by_pass):
    """("fwd" or "rev", ...) for each pass's documents in read order, as scenario.run takes them."""
    orders = []
    for name, docs in docs_by_pass.items():
        docs = list(docs)
        if docs == sorted(docs):
            orders.append("fwd")
        elif docs == sorted(docs, reverse=True):
            orders.append("rev")
        else:
            raise ValueError(f"pass {name!r} reads documents in neither order: {docs}")
    return tuple(orders)


def environment():
    """{name: version} for what the notebooks use (None when a package is missing)."""
    versions = {"python": platform.python_version()}
    for package in ("kvlab", "matplotlib", "pandas", "numpy", "ipykernel", "nbclient", "papermill", "nbval"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions
