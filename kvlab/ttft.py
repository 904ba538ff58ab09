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

from .i18n import t

CONFIGS = ("baseline", "lmcache")
LAB_PASSES = ("pass1-cold", "pass2-replay", "pass3-reverse")
TIERS = ("gpu", "cpu", "miss")   # fastest first: a GPU prefix hit, a load from CPU, a recomputed prefill
TIER_NAMES = {tier: f"nb.06.tiers-{tier}" for tier in TIERS}       # message ids: "GPU hits", ...
TIER_COUNTS = {tier: f"nb.06.tier-count-{tier}" for tier in TIERS}  # "4 GPU hits", by n
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
        passes = ", ".join(t("nb.06.pass-and-order", name=name, order=self.orders[name]) for name in self.passes)
        if self.docs:
            lines = [t("nb.06.layout", n=len(self.passes), passes=passes, docs=len(self.docs), ids=_first_last(self.docs))]
        else:
            lines = [t("nb.06.layout-no-documents", n=len(self.passes), passes=passes)]
        if self.passes != list(LAB_PASSES):
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


def layout(frame):
    """Passes, read orders and documents of the file, and every assumption above that it breaks."""
    passes = list(dict.fromkeys(frame["pass"]))
    docs = sorted(frame["doc"].unique().tolist())
    problems = []
    missing = [config for config in CONFIGS if config not in set(frame["config"])]
    if missing:
        problems.append(t("nb.06.problem-no-config", configs=_alternatives(missing)))
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
                problems.append(t("nb.06.problem-repeated", config=config, doc=repeated[0], name=name))
            elif sorted(read_docs) != docs:
                problems.append(t("nb.06.problem-some-documents", config=config, name=name, read=len(read_docs),
                                  docs=len(docs)))
        orders[name] = seen.get("lmcache", seen.get("baseline", "neither"))
        if len(set(seen.values())) > 1:
            problems.append(t("nb.06.problem-different-orders", name=name))
    neither = [name for name in passes if orders[name] == "neither"]
    if neither:
        problems.append(t("nb.06.problem-neither-order", n=len(neither), name=neither[0], names=_joined(neither)))
    return Layout(passes, orders, docs, problems)


def _direction(docs):
    if docs == sorted(docs):
        return "fwd"
    if docs == sorted(docs, reverse=True):
        return "rev"
    return "neither"


def _first_last(values):
    return t("nb.06.id-range", first=values[0], last=values[-1]) if len(values) > 1 else f"{values[0]}"


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
    text = t("nb.06.warm-up", config=first["config"], name=first["pass"], doc=first["doc"], ms=first["ttft_ms"],
             times=first["ttft_ms"] / median, median=median)
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
    if len(shape.problems) > 1:
        return Finding(False, t("nb.06.does-not-apply-more", problem=shape.problems[0], more=len(shape.problems) - 1))
    return Finding(False, t("nb.06.does-not-apply", problem=shape.problems[0]))


def overlaps(groups):
    """Where a faster tier's slowest request was not faster than the next tier's fastest, one sentence each."""
    found = []
    for (config, name), tiers in groups.groupby(["config", "pass"], sort=False):
        ordered = tiers.set_index("tier").loc[[tier for tier in TIERS if tier in set(tiers["tier"])]]
        for (fast, faster), (slow, slower) in zip(ordered.iterrows(), list(ordered.iterrows())[1:]):
            if faster["max_ms"] >= slower["min_ms"]:
                found.append(t("nb.06.overlap", config=config, name=name, fast=t(TIER_NAMES[fast]),
                               up_to=faster["max_ms"], slow=t(TIER_NAMES[slow]), start=slower["min_ms"]))
    return found


def reverse_split(predicted, shape, skip=None, config="lmcache"):
    """Step 6's question: does the reverse pass split as the simulator's GPU hits and loads from CPU do?"""
    if shape.problems:
        return _not_applicable(shape)
    if shape.reverse is None:
        return Finding(None, t("nb.06.no-reverse-pass"))
    groups = tier_groups(predicted, skip)
    mine = groups[(groups["config"] == config) & (groups["pass"] == shape.reverse)]
    parts = [t("nb.06.tier-group", count=t(TIER_COUNTS[row.tier], n=row.requests), docs=_listed(row.docs),
               low=row.min_ms, high=row.max_ms) for row in mine.itertuples()]
    said = t("nb.06.reverse-predicted", config=config, name=shape.reverse, groups=_joined(parts))
    wrong = overlaps(mine)
    if wrong:
        return Finding(False, t("nb.06.reverse-overlaps", predicted=said, overlaps="; ".join(wrong)), mine)
    if len(mine) < 2:
        return Finding(True, t("nb.06.reverse-one-kind", predicted=said), mine)
    counts = " + ".join(str(row.requests) for row in mine.itertuples())
    return Finding(True, t("nb.06.reverse-splits", predicted=said, counts=counts), mine)


def cold_pass(predicted, shape, skip=None):
    """The cold pass: lmcache minus baseline (medians), set against the per-request spread."""
    if shape.problems:
        return _not_applicable(shape)
    cold = shape.passes[0]
    kept = _without(predicted, skip)
    requests = kept[kept["pass"] == cold]
    hits = int((requests["tier"] != "miss").sum())
    if hits:
        return Finding(False, t("nb.06.not-cold", name=cold, hits=hits, n=hits))
    ttft = {config: requests.loc[requests["config"] == config, "ttft_ms"] for config in CONFIGS}
    difference = ttft["lmcache"].median() - ttft["baseline"].median()
    spread = math.sqrt((ttft["baseline"].var() + ttft["lmcache"].var()) / 2)  # pooled per-request std
    noise = math.sqrt(2) * spread   # the typical difference between two requests of the same kind
    measured = t("nb.06.cold-slower" if difference > 0 else "nb.06.cold-faster", name=cold, ms=abs(difference),
                 share=difference / ttft["baseline"].median(), spread=spread, noise=noise)
    if abs(difference) <= noise:
        return Finding(None, t("nb.06.cold-within-noise", measured=measured))
    verdict = "nb.06.cold-slower-than-noise" if difference > 0 else "nb.06.cold-faster-than-noise"
    return Finding(bool(difference > 0), t(verdict, measured=measured))


def _listed(docs):
    return ", ".join(str(doc) for doc in docs)


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
    return Finding(True, t("nb.06.reverse-ratios", reverse_mean=ratio[reverse]["mean"], replay_mean=ratio[replay]["mean"],
                           hits=hits, requests=int((lm["pass"] == reverse).sum()), reverse_p50=ratio[reverse]["p50"],
                           replay_p50=ratio[replay]["p50"]))
