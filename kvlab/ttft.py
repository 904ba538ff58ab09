"""Reading the per-request TTFT file for notebook 06 (lab step 8): loading it and checking its layout.

The analysis itself (tiers, the cold pass, the reverse pass) is short code in the notebook. What it assumes
of the file, checked here:

- within a pass, the line order is the order of the requests (the file has no timestamps);
- each pass reads every document once, forward (ascending ids) or backward, the same way in both configs;
- document ids order the documents: the smallest is the simulator's 0, the next its 1, and so on.

The passes' order is never taken from the lines: the lab's names give it (`LAB_PASSES`), and other names
stand where the lab's passes stand (a pass named cold first, then the forward passes, then the backward ones).
"""
import json
from dataclasses import dataclass, field

import pandas as pd

from .i18n import t

CONFIGS = ("baseline", "lmcache")
LAB_PASSES = ("pass1-cold", "pass2-replay", "pass3-reverse")   # the order they ran in
TIERS = ("gpu", "cpu", "miss")   # fastest first: a GPU prefix hit, a load from CPU, a recomputed prefill
TIER_COUNTS = {tier: f"nb.06.tier-count-{tier}" for tier in TIERS}  # message ids: "4 GPU hits", by n
from .latency import WARMUP_FACTOR  # an engine's first request this many times its kind's median is a warm-up


class BrokenAssumption(Exception):
    """The file breaks an assumption of notebook 06: one line, and the notebook stops there."""

    def _render_traceback_(self):
        return [f"BrokenAssumption: {self}"]


@dataclass
class Finding:
    """A claim about the file: holds (True), broken by the file (False) or not applicable (None), in words."""
    holds: object
    text: str

    def _repr_markdown_(self):
        return self.text

    def __repr__(self):
        return self.text


@dataclass
class Layout:
    """How the file is laid out: passes in the order they ran, each one's read order, the documents."""
    passes: list                                   # the order they ran: see run_order
    orders: dict                                   # pass -> "fwd", "rev" or "neither"
    docs: list                                     # the file's document ids, ascending
    problems: list = field(default_factory=list)   # one sentence per assumption the file breaks

    @property
    def cold(self):
        """The pass that ran first: nothing was cached yet."""
        return self.passes[0] if self.passes else None

    @property
    def reverse(self):
        """The first pass that reads backwards, or None."""
        return next((name for name in self.passes if self.orders[name] == "rev"), None)

    def stop_if_broken(self):
        """Raise BrokenAssumption, naming the first assumption the file breaks; else return self."""
        if self.problems:
            raise BrokenAssumption(self.problems[0])
        return self

    def _repr_markdown_(self):
        return self.text

    def __repr__(self):
        return self.text

    @property
    def text(self):
        passes = ", ".join(t("nb.06.pass-and-order", name=name, order=self.orders[name]) for name in self.passes)
        if self.docs:
            lines = [t("nb.06.layout", n=len(self.passes), passes=passes, docs=len(self.docs), ids=_first_last(self.docs))]
        else:
            lines = [t("nb.06.layout-no-documents", n=len(self.passes), passes=passes)]
        if self.cold is not None:
            lines.append(t("nb.06.cold-is", name=self.cold))
        if set(self.passes) != set(LAB_PASSES):
            lines.append(t("nb.06.not-the-labs-pass-names", names=", ".join(LAB_PASSES)))
        if self.docs and self.docs != list(range(len(self.docs))):
            lines.append(t("nb.06.ids-mapped", last=len(self.docs) - 1))
        lines += [t("nb.06.assumption-broken", problem=problem) for problem in self.problems]
        return "\n\n".join(lines)  # paragraphs, each a whole message


def read(path):
    """The file's requests as a DataFrame, in line order (blank lines skipped); column `line` keeps that order."""
    records = []
    with open(path, encoding="utf-8") as file:
        for number, text in enumerate(file, start=1):
            if text.strip():
                try:
                    records.append(json.loads(text))
                except json.JSONDecodeError as error:
                    raise ValueError(t("nb.06.not-json", file=path, line=number, error=error.msg)) from None
    frame = pd.DataFrame.from_records(records)
    frame["line"] = range(len(frame))
    return frame


def run_order(passes, orders):
    """The passes in the order they ran: the lab's names in the lab's order; any other name where the lab's
    passes stand: a name with "cold" in it first, then the forward passes, then the others (ties: as they appear)."""
    def place(name):
        if name in LAB_PASSES:
            return LAB_PASSES.index(name)
        return 0 if "cold" in name.lower() else 1 if orders[name] == "fwd" else 2
    return sorted(passes, key=place)  # stable: ties keep the order in which they first appear


def layout(frame):
    """Passes (in the order they ran), read orders and documents of the file, and every assumption it breaks."""
    appear = list(dict.fromkeys(frame["pass"]))
    docs = sorted(frame["doc"].unique().tolist())
    problems = []
    missing = [config for config in CONFIGS if config not in set(frame["config"])]
    if missing:
        problems.append(t("nb.06.problem-no-config", configs=_alternatives(missing)))
    orders = {}
    for name in appear:
        seen = {}
        for config in CONFIGS:
            read_docs = frame[(frame["pass"] == name) & (frame["config"] == config)].sort_values("line")["doc"].tolist()
            if not read_docs:
                continue
            seen[config] = _direction(read_docs)
            repeated = sorted({doc for doc in read_docs if read_docs.count(doc) > 1})
            if repeated:
                problems.append(t("nb.06.problem-repeated", config=config, doc=repeated[0], name=name))
            elif sorted(read_docs) != docs:
                problems.append(t("nb.06.problem-some-documents", config=config, name=name, read=len(read_docs),
                                  docs=len(docs)))
        orders[name] = seen.get("lmcache", seen.get("baseline", "neither"))
        if len(set(seen.values())) > 1:
            problems.append(t("nb.06.problem-different-orders", name=name))
    neither = [name for name in appear if orders[name] == "neither"]
    if neither:
        problems.append(t("nb.06.problem-neither-order", n=len(neither), name=neither[0], names=_joined(neither)))
    return Layout(run_order(appear, orders), orders, docs, problems)


def _direction(docs):
    if docs == sorted(docs):
        return "fwd"
    if docs == sorted(docs, reverse=True):
        return "rev"
    return "neither"


def _first_last(values):
    return t("nb.06.id-range", first=values[0], last=values[-1]) if len(values) > 1 else f"{values[0]}"


def _joined(parts):
    """`a`, `a and b`, `a, b and c`: the catalog's list pattern."""
    if len(parts) == 1:
        return parts[0]
    return t("nb.06.list-and", items=t("nb.06.list-comma").join(str(part) for part in parts[:-1]), last=parts[-1])


def _alternatives(parts):
    """`a`, `a or b`, `a, b or c`."""
    if len(parts) == 1:
        return parts[0]
    return t("nb.06.list-or", items=t("nb.06.list-comma").join(str(part) for part in parts[:-1]), last=parts[-1])


def compare_summary(stats, summary):
    """pandas' statistics (n, p50_ms, mean_ms per config and pass, unrounded) against a summarize() result."""
    differences, groups = [], 0
    for (config, name), row in stats.iterrows():
        groups += 1
        expected = {"n": int(row["n"]), "p50_ms": round(float(row["p50_ms"]), 1), "mean_ms": round(float(row["mean_ms"]), 1)}
        got = summary.get(config, {}).get(name)
        if got != expected:
            differences.append(t("nb.06.summary-differs", config=config, name=name, yours=got, pandas=expected))
    ratios = 0
    if {"baseline", "lmcache"} <= set(stats.index.get_level_values(0)):
        both = stats.loc["baseline"].index.intersection(stats.loc["lmcache"].index)
        for name in both:
            ratios += 1
            base, lm = stats.loc[("baseline", name)], stats.loc[("lmcache", name)]
            expected = {stat: round(float(base[key] / lm[key]), 2) if lm[key] else None
                        for stat, key in (("p50", "p50_ms"), ("mean", "mean_ms"))}
            got = summary.get("ratio", {}).get(name)
            if got != expected:
                differences.append(t("nb.06.ratio-differs", name=name, yours=got, pandas=expected))
    if differences:
        if len(differences) > 3:
            return Finding(False, t("nb.06.pandas-differs-more", differences="; ".join(differences[:3]),
                                    more=len(differences) - 3))
        return Finding(False, t("nb.06.pandas-differs", differences="; ".join(differences)))
    return Finding(True, t("nb.06.pandas-agrees", groups=groups, ratios=ratios))


# --- a file by its own settings: what notebook 06 needs beyond the lab's file ----------------------------------

def sizes(path, gpu=None, cpu=None):
    """The sizes `path` was measured with (kvlab.latency.Sizes): each config's (GPU, CPU) capacity in tokens
    (`.of(config)`), the document length to simulate (`.tokens`) and where they come from (`.origin`: "file",
    "lab" or "given"). From its settings file; the lab's sizes for the lab's own file only; else `gpu`/`cpu`.
    A file that says nothing and was not given sizes stops with one line (BrokenAssumption)."""
    from .errors import UserError
    from .latency import file_sizes
    from .summarize import read_records
    try:
        return file_sizes(path, read_records(str(path)), gpu, cpu)
    except UserError as error:
        raise BrokenAssumption(str(error)) from None


def tiers(frame, shape, found, two_tier_cache):
    """The simulator's tier of each request (a Series on frame's index), each config through its own
    two_tier_cache(GPU, CPU) at the file's sizes `found` (from sizes()), in the order the passes ran."""
    number = {doc: index for index, doc in enumerate(shape.docs)}  # the file's ids -> the simulator's 0, 1, ...
    run = frame["pass"].map(shape.passes.index)
    ordered = frame.assign(run=run).sort_values(["config", "run", "line"])
    caches = {config: two_tier_cache(*found.of(config)) for config in ordered["config"].unique()}
    return pd.Series([caches[row.config].access(number[row.doc], found.tokens) for row in ordered.itertuples()],
                     index=ordered.index).reindex(frame.index)


def warm_ups(frame):
    """The warm-ups of a frame with a `tier` column: each config's first request (in run order, column `run`)
    when it took at least WARMUP_FACTOR times the median of its kind (config, pass, tier). A DataFrame of those
    rows with `times` (its TTFT over its kind's median); leave them out of any statistic."""
    from .latency import warm_ups as found
    ordered = frame.sort_values(["run", "line"]) if "run" in frame else frame.sort_values("line")
    rows = found([({"config": row["config"], "pass": row["pass"], "doc": row["doc"], "ttft_ms": row["ttft_ms"],
                    "index": index}, row["tier"]) for index, row in ordered.iterrows()])
    picked = frame.loc[[record["index"] for record, _, _ in rows]].copy()
    picked["times"] = [times for _, _, times in rows]
    return picked


def latency_report(path, gpu=None, cpu=None, samples=1000):
    """kvlab latency's whole report for `path` (a dict): the file's sizes, its warm-ups (left out), the bounded
    fit (no cost below 0), each prediction and a bootstrap interval (over requests) of every parameter and
    prediction. Same as `python -m kvlab latency PATH --json`."""
    from .errors import UserError
    from .latency import report
    try:
        return report(path, gpu, cpu, samples=samples)
    except UserError as error:
        raise BrokenAssumption(str(error)) from None
