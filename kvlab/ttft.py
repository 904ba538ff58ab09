"""The per-request TTFT file read against the simulator (notebook 06, lab step 8).

Each function returns a Finding: the evidence when the file bears a claim out, or the assumption the
file breaks. The assumptions, where they are used:

- the file's line order is the order the requests were made (it has no timestamps);
- each pass reads every document once, forward (ascending ids) or backward, the same way in both configs;
- the first pass to appear is the cold one (the simulator then predicts only misses for it);
- document ids order the documents: the smallest is the simulator's 0, the next its 1, and so on.

pandas does the reading and grouping; the simulator's caches are given, never imported here.
"""
import json
import math
from dataclasses import dataclass, field

import pandas as pd

CONFIGS = ("baseline", "lmcache")
LAB_PASSES = ("pass1-cold", "pass2-replay", "pass3-reverse")
TIERS = ("gpu", "cpu", "miss")   # fastest first: a GPU prefix hit, a load from CPU, a recomputed prefill
TIER_NAMES = {"gpu": "GPU hits", "cpu": "loads from CPU", "miss": "recomputes"}
WARMUP_FACTOR = 1.5              # a first request this many times its kind's median is a warm-up


@dataclass
class Finding:
    """A claim about the file: holds (True), broken by the file (False) or not applicable (None), in words."""
    holds: object
    text: str
    table: object = None

    def _repr_markdown_(self):
        return self.text

    def __repr__(self):
        return self.text


@dataclass
class Layout:
    """How the file is laid out: passes in order of first appearance, each one's read order, the documents."""
    passes: list
    orders: dict                                   # pass -> "fwd", "rev" or "neither"
    docs: list                                     # the file's document ids, ascending
    problems: list = field(default_factory=list)   # one sentence per assumption the file breaks

    @property
    def reverse(self):
        """The first pass that reads backwards, or None."""
        return next((name for name in self.passes if self.orders[name] == "rev"), None)

    def _repr_markdown_(self):
        return self.text

    def __repr__(self):
        return self.text

    @property
    def text(self):
        passes = ", ".join(f"{name} ({self.orders[name]})" for name in self.passes)
        ids = f"{_first_last(self.docs)}" if self.docs else "none"
        lines = [f"{len(self.passes)} passes, in the order they appear: {passes}; "
                 f"{len(self.docs)} documents, ids {ids}."]
        if self.passes != list(LAB_PASSES):
            lines.append(f"These are not the lab's pass names ({', '.join(LAB_PASSES)}): this analysis goes by "
                         "the passes' order and direction, never by their names.")
        if self.docs and self.docs != list(range(len(self.docs))):
            lines.append(f"The simulator numbers documents 0…{len(self.docs) - 1}: the file's ids map to those "
                         "in ascending order.")
        lines += [f"**Assumption broken:** {problem}" for problem in self.problems]
        return "\n\n".join(lines)


def read(path):
    """The file's requests as a DataFrame, in line order (blank lines skipped); column `line` keeps that order."""
    records = []
    with open(path, encoding="utf-8") as file:
        for number, text in enumerate(file, start=1):
            if text.strip():
                try:
                    records.append(json.loads(text))
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}, line {number}: not JSON ({error.msg})") from None
    frame = pd.DataFrame.from_records(records)
    frame["line"] = range(len(frame))
    return frame


def layout(frame):
    """Passes, read orders and documents of the file, and every assumption above that it breaks."""
    passes = list(dict.fromkeys(frame["pass"]))
    docs = sorted(frame["doc"].unique().tolist())
    problems = []
    missing = [config for config in CONFIGS if config not in set(frame["config"])]
    if missing:
        problems.append(f"the file has no {' or '.join(missing)} requests, so nothing compares the two configs.")
    orders = {}
    for name in passes:
        seen = {}
        for config in CONFIGS:
            read_docs = frame[(frame["pass"] == name) & (frame["config"] == config)].sort_values("line")["doc"].tolist()
            if not read_docs:
                continue
            seen[config] = _direction(read_docs)
            repeated = sorted({doc for doc in read_docs if read_docs.count(doc) > 1})
            if repeated:
                problems.append(f"{config} reads document {repeated[0]} more than once in pass {name}.")
            elif sorted(read_docs) != docs:
                problems.append(f"{config} pass {name} reads {len(read_docs)} of the {len(docs)} documents.")
        orders[name] = seen.get("lmcache", seen.get("baseline", "neither"))
        if len(set(seen.values())) > 1:
            problems.append(f"baseline and lmcache read pass {name} in different orders.")
    neither = [name for name in passes if orders[name] == "neither"]
    if neither:
        problems.append(f"{_passes(neither)} {'reads its' if len(neither) == 1 else 'read their'} documents in "
                        "neither order: the lines may be shuffled. This analysis takes the line order as the read "
                        "order (the file has no timestamps), so it cannot tell which documents a cache still held.")
    return Layout(passes, orders, docs, problems)


def _passes(names):
    return f"pass {names[0]}" if len(names) == 1 else "passes " + _joined(names)


def _direction(docs):
    if docs == sorted(docs):
        return "fwd"
    if docs == sorted(docs, reverse=True):
        return "rev"
    return "neither"


def _first_last(values):
    return f"{values[0]}…{values[-1]}" if len(values) > 1 else f"{values[0]}"


def predict(frame, caches, tokens):
    """Each request with the tier the simulator says served it: `caches` maps config -> a fresh TwoTierCache.

    Each config's requests are read through its own cache in line order, every document `tokens` in size,
    with the file's ids mapped to the simulator's 0, 1, ... in ascending order.
    """
    index = {doc: number for number, doc in enumerate(sorted(frame["doc"].unique().tolist()))}
    tiers = pd.Series(index=frame.index, dtype=object)
    for config, cache in caches.items():
        for row in frame[frame["config"] == config].sort_values("line").itertuples():
            tiers[row.Index] = cache.access(index[row.doc], tokens)
    return frame.assign(tier=tiers)


def warmup(predicted, shape):
    """A Finding about the file's first request when it is far slower than the others of its kind, else None.

    Its kind: the same config, pass and predicted tier. It is then left out of the comparisons. A file that
    breaks an assumption has no kinds to compare with.
    """
    if shape.problems:
        return None
    first = predicted.sort_values("line").iloc[0]
    kind = predicted[(predicted["config"] == first["config"]) & (predicted["pass"] == first["pass"])
                     & (predicted["tier"] == first["tier"]) & (predicted["line"] != first["line"])]
    if kind.empty:
        return None
    median = kind["ttft_ms"].median()
    if first["ttft_ms"] < WARMUP_FACTOR * median:
        return None
    text = (f"The file's first request ({first['config']}, pass {first['pass']}, document {first['doc']}) took "
            f"{first['ttft_ms']:,.1f} ms, {first['ttft_ms'] / median:.2f}× the median of the other requests of "
            f"its kind ({median:,.1f} ms): a warm-up, not a group. The comparisons below leave it out; "
            "summarize.py keeps it, as it summarizes the file as it is (its mean moves, its median hardly).")
    return Finding(True, text, first.to_frame().T)


def _without(predicted, skip):
    return predicted if skip is None else predicted[predicted["line"] != skip.table["line"].iloc[0]]


def tier_groups(predicted, skip=None):
    """Per config, pass and predicted tier: how many requests, which documents (read order), their TTFT range."""
    rows = []
    kept = _without(predicted, skip).sort_values("line")
    for (config, name), requests in kept.groupby(["config", "pass"], sort=False):
        for tier in TIERS:
            group = requests[requests["tier"] == tier]
            if len(group):
                rows.append({"config": config, "pass": name, "tier": tier, "requests": len(group),
                             "docs": group["doc"].tolist(), "median_ms": group["ttft_ms"].median(),
                             "min_ms": group["ttft_ms"].min(), "max_ms": group["ttft_ms"].max()})
    return pd.DataFrame(rows)


def tier_table(predicted, shape, skip=None):
    """tier_groups, or a Finding saying why the file has none worth showing."""
    if shape.problems:
        return _not_applicable(shape)
    groups = tier_groups(predicted, skip)
    return groups.assign(docs=groups["docs"].map(_listed)).set_index(["config", "pass", "tier"])


def _not_applicable(shape):
    more = f" (and {len(shape.problems) - 1} more, listed above)" if len(shape.problems) > 1 else ""
    return Finding(False, f"This does not apply: the file breaks an assumption of this analysis. "
                          f"{shape.problems[0][0].upper()}{shape.problems[0][1:]}{more}")


def overlaps(groups):
    """Where a faster tier's slowest request was not faster than the next tier's fastest, one sentence each."""
    found = []
    for (config, name), tiers in groups.groupby(["config", "pass"], sort=False):
        ordered = tiers.set_index("tier").loc[[tier for tier in TIERS if tier in set(tiers["tier"])]]
        for (fast, faster), (slow, slower) in zip(ordered.iterrows(), list(ordered.iterrows())[1:]):
            if faster["max_ms"] >= slower["min_ms"]:
                found.append(f"in {config}, pass {name}, the simulator's {TIER_NAMES[fast]} (up to "
                             f"{faster['max_ms']:.1f} ms) overlap its {TIER_NAMES[slow]} (from {slower['min_ms']:.1f} ms)")
    return found


def reverse_split(predicted, shape, skip=None, config="lmcache"):
    """Step 6's question: does the reverse pass split as the simulator's GPU hits and loads from CPU do?"""
    if shape.problems:
        return _not_applicable(shape)
    if shape.reverse is None:
        return Finding(None, "The file has no pass that reads the documents backwards, so step 6's comparison "
                             "(GPU hits and loads from CPU in the reverse pass) does not apply to it.")
    groups = tier_groups(predicted, skip)
    mine = groups[(groups["config"] == config) & (groups["pass"] == shape.reverse)]
    parts = [f"{row.requests} {TIER_NAMES[row.tier]} (documents {_listed(row.docs)}: {row.min_ms:.1f}–{row.max_ms:.1f} ms)"
             for row in mine.itertuples()]
    said = f"In {config}'s reverse pass ({shape.reverse}) the simulator predicts " + _joined(parts) + "."
    wrong = overlaps(mine)
    if wrong:
        return Finding(False, said + " The measurement does not split that way: " + "; ".join(wrong) + ".", mine)
    if len(mine) < 2:
        return Finding(True, said + " One kind of request only: there is no split to compare.", mine)
    counts = " + ".join(str(row.requests) for row in mine.itertuples())
    return Finding(True, said + f" Every request of a faster kind was faster than every request of a slower "
                                f"one: the measurement splits {counts}, document for document.", mine)


def cold_pass(predicted, shape, skip=None):
    """The cold pass: lmcache minus baseline (medians), set against the per-request spread."""
    if shape.problems:
        return _not_applicable(shape)
    cold = shape.passes[0]
    kept = _without(predicted, skip)
    requests = kept[kept["pass"] == cold]
    hits = int((requests["tier"] != "miss").sum())
    if hits:
        return Finding(False, f"The first pass ({cold}) is not cold: the simulator predicts {hits} hits in it, "
                              "so it cannot show what a pass with nothing to reuse costs.")
    ttft = {config: requests.loc[requests["config"] == config, "ttft_ms"] for config in CONFIGS}
    difference = ttft["lmcache"].median() - ttft["baseline"].median()
    spread = math.sqrt((ttft["baseline"].var() + ttft["lmcache"].var()) / 2)  # pooled per-request std
    noise = math.sqrt(2) * spread   # the typical difference between two requests of the same kind
    slower = "slower" if difference > 0 else "faster"
    text = (f"In the cold pass ({cold}) the simulator predicts only misses: nothing to reuse in either config. "
            f"lmcache's median is {abs(difference):.1f} ms {slower} than the baseline's "
            f"({difference / ttft['baseline'].median():+.1%}). One request varies by about σ = {spread:.1f} ms, "
            f"so two requests of the same kind differ by about √2 σ = {noise:.1f} ms. ")
    if abs(difference) <= noise:
        text += ("The difference is within that per-request noise: this file alone does not show that lmcache "
                 "is slower cold, nor why.")
        return Finding(None, text)
    text += (f"The difference is larger than that noise: lmcache is {slower} cold. "
             + ("The lab's explanation: it also writes each document's KV to the CPU tier." if difference > 0
                else "That is not what the lab's measurement found."))
    return Finding(bool(difference > 0), text)


def _listed(docs):
    return ", ".join(str(doc) for doc in docs)


def _joined(parts):
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def compare_summary(stats, summary):
    """pandas' statistics (n, p50_ms, mean_ms per config and pass, unrounded) against a summarize() result."""
    differences, groups = [], 0
    for (config, name), row in stats.iterrows():
        groups += 1
        expected = {"n": int(row["n"]), "p50_ms": round(float(row["p50_ms"]), 1), "mean_ms": round(float(row["mean_ms"]), 1)}
        got = summary.get(config, {}).get(name)
        if got != expected:
            differences.append(f"{config} {name}: yours {got}, pandas {expected}")
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
                differences.append(f"ratio {name}: yours {got}, pandas {expected}")
    if differences:
        shown = "; ".join(differences[:3]) + (f"; and {len(differences) - 3} more" if len(differences) > 3 else "")
        return Finding(False, f"pandas and your summarize differ: {shown}.")
    return Finding(True, f"pandas agrees with your summarize on all {groups} (config, pass) groups and {ratios} ratios.")


def reverse_ratios(predicted, shape, summary):
    """Why the reverse pass's mean ratio is below the replay's while its median ratio is not; None unless
    the file is shaped like the lab's (a replay lmcache serves from CPU, a reverse pass with no recompute)."""
    if shape.problems or shape.reverse is None or len(shape.passes) < 3:
        return None
    replay, reverse = shape.passes[1], shape.reverse
    lm = predicted[predicted["config"] == "lmcache"]
    if set(lm[lm["pass"] == replay]["tier"]) != {"cpu"} or "miss" in set(lm[lm["pass"] == reverse]["tier"]):
        return None
    hits = int((lm[lm["pass"] == reverse]["tier"] == "gpu").sum())
    ratio = summary["ratio"]
    return Finding(True, f"Why the reverse pass's mean ratio ({ratio[reverse]['mean']:.2f}) is below the replay's "
                         f"({ratio[replay]['mean']:.2f}): {hits} of its {int((lm['pass'] == reverse).sum())} requests "
                         "are GPU hits in both configs and gain nothing from the CPU tier. Its median ratio "
                         f"({ratio[reverse]['p50']:.2f}) stays near the replay's ({ratio[replay]['p50']:.2f}) as long "
                         "as the median request is one of the others.")
