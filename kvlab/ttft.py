"""Reading the per-request TTFT file for notebook 06 (lab step 8): loading it, checking its layout, and the
statistics the notebook shows.

What the analysis assumes of the file, checked here:

- each pass reads every document once, forward (ascending ids) or backward, the same way in both configs;
- document ids order the documents: the smallest is the simulator's 0, the next its 1, and so on;
- a pass with one of the lab's names reads as the lab's pass of that name did (fwd, fwd, rev): its requests
  are placed by document id, whatever the order of its lines;
- any other pass: within it, the line order is the order of the requests (the file has no timestamps).

The passes' order is never taken from the lines: the lab's names give it (`LAB_PASSES`), and other names
stand where the lab's passes stand (a pass named cold first, then the forward passes, then the backward ones).

A file that breaks an assumption stops the analysis once: BrokenAssumption shows one line, and every later
cell that calls go_on() says it was skipped (kvlab.notebook shows both as one line; the cells count as run).
"""
import json
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .i18n import t
from .lab import ARTIFACTS
from .latency import WARMUP_FACTOR  # noqa: F401 (notebook 06 reads it): a first request this many times its median is a warm-up
from .notebook import Line, NotReady, ParameterError

MEASURED_STEP = ARTIFACTS["measured.json"]  # the step whose code reads the measured file (summarize.py)

CONFIGS = ("baseline", "lmcache")
LAB_PASSES = ("pass1-cold", "pass2-replay", "pass3-reverse")   # the order they ran in
LAB_ORDERS = dict(zip(LAB_PASSES, ("fwd", "fwd", "rev")))      # how each of the lab's passes read the documents
TIERS = ("gpu", "cpu", "miss")   # fastest first: a GPU prefix hit, a load from CPU, a recomputed prefill
TIER_COUNTS = {tier: f"nb.06.tier-count-{tier}" for tier in TIERS}  # message ids: "4 GPU hits", by n
CUT_OFF = 0.05         # decided before looking: a one-sided p-value below it counts as evidence
SAMPLES = 10_000       # bootstrap resamples and random sign flips
EXACT_FLIPS = 16       # up to this many pairs, the permutation test tries every sign pattern (2^n)
SEED = 8               # every random draw is seeded: the same numbers on every run
REFITS = 200           # the latency model's bootstrap: refits on the requests drawn with replacement


class _State:
    """What the notebook's cells share about the file: did it break an assumption, were its tiers computed."""
    stopped = None     # the problem that stopped the analysis, or None
    tiers = False      # True once tiers() has given every request a tier


_state = _State()


class BrokenAssumption(NotReady):
    """The file breaks an assumption of notebook 06: one line, and the analysis stops there (go_on())."""

    def __init__(self, problem):
        super().__init__(Line("nb.06.stopped", failed=True, problem=problem))
        self.problem = problem
        _state.stopped = problem


def go_on(written=MEASURED_STEP, tiers=False):
    """Call first in each cell after the file is read. Stops the cell in one line: "skipped" when the file broke an
    assumption above; when step `written` is not written yet (kvlab.notebook.needs); with `tiers`, when the
    simulator gave the requests no tier above. Returns True."""
    from .notebook import needs
    if _state.stopped is not None:
        raise NotReady(Line("nb.06.skipped"))
    if written is not None:
        needs(written=written)
    if tiers and not _state.tiers:
        raise NotReady(Line("nb.06.no-tiers"))
    return True


def answer_ready():
    """The first line of a solution cell (instructor edition only): go_on(tiers=True), under its own name so that
    the line is the solution cell's own (kvlab release checks that no solution line reaches the student edition)."""
    return go_on(tiers=True)


def given_sizes(text):
    """The notebook's `sizes` parameter, "GPU,CPU" in tokens (empty: not given), as (gpu, cpu) or (None, None)."""
    if not isinstance(text, str):
        raise ParameterError(t("nb.06.param-sizes", got=repr(text)))
    if not text.strip():
        return None, None
    parts = [part.strip().replace("_", "") for part in text.split(",")]
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ParameterError(t("nb.06.param-sizes", got=repr(text)))
    return int(parts[0]), int(parts[1])


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
    placed: list = field(default_factory=list)     # the lab's passes whose lines were not in read order

    @property
    def cold(self):
        """The pass that ran first: nothing was cached yet."""
        return self.passes[0] if self.passes else None

    @property
    def reverse(self):
        """The first pass that reads backwards, or None."""
        return next((name for name in self.passes if self.orders[name] == "rev"), None)

    def stop_if_broken(self):
        """Raise BrokenAssumption, naming the first assumption the file breaks; else return self (and the
        analysis goes on: a file read before may have stopped it)."""
        if self.problems:
            raise BrokenAssumption(self.problems[0])
        _state.stopped = None
        return self

    def ordered(self, frame):
        """`frame` with `run` (its pass's place in the run: 0 is the cold pass) and `read` (its place in its
        config's pass, in read order: by line, or by document id for a pass placed by its lab name)."""
        frame = frame.assign(run=frame["pass"].map(self.passes.index))
        number = frame["doc"].map({doc: index for index, doc in enumerate(self.docs)})
        by_id = number.where(frame["pass"].map(self.orders) == "fwd", -number)
        key = frame["line"].where(~frame["pass"].isin(self.placed), by_id)
        frame["read"] = key.groupby([frame["config"], frame["pass"]]).rank(method="first").astype(int) - 1
        return frame

    def _repr_markdown_(self):
        return self.text

    def __repr__(self):
        return self.text

    @property
    def text(self):
        passes = t("nb.06.list-comma").join(
            t("nb.06.pass-and-order", name=name, order=t("nb.06.order-neither") if self.orders[name] == "neither"
              else self.orders[name]) for name in self.passes)
        if self.docs:
            lines = [t("nb.06.layout", n=len(self.passes), passes=passes, docs=len(self.docs), ids=_first_last(self.docs))]
        else:
            lines = [t("nb.06.layout-no-documents", n=len(self.passes), passes=passes)]
        if self.cold is not None:
            lines.append(t("nb.06.cold-is", name=self.cold))
        if set(self.passes) != set(LAB_PASSES):
            lines.append(t("nb.06.not-the-labs-pass-names", names=", ".join(LAB_PASSES)))
        if self.placed:
            lines.append(t("nb.06.placed-by-name", n=len(self.placed), names=_joined(self.placed)))
        if self.docs and self.docs != list(range(len(self.docs))):
            lines.append(t("nb.06.ids-mapped", last=len(self.docs) - 1))
        return "\n\n".join(lines)  # paragraphs, each a whole message (a problem: stop_if_broken's one line)


def read(path):
    """The file's requests as a DataFrame, in line order (blank lines skipped); column `line` keeps that order.
    Reading a file starts a new analysis: what stopped the last one is forgotten."""
    _state.stopped, _state.tiers = None, False
    records = []
    with open(path, encoding="utf-8") as file:
        for number, text in enumerate(file, start=1):
            if text.strip():
                try:
                    records.append(json.loads(text))
                except json.JSONDecodeError as error:
                    raise BrokenAssumption(t("nb.06.not-json", file=path, line=number, error=error.msg)) from None
    frame = pd.DataFrame.from_records(records)
    missing = [name for name in FIELDS if name not in frame]
    if missing:
        raise BrokenAssumption(t("nb.06.problem-no-field", fields=_joined([f"`{name}`" for name in missing])))
    for name, kind in (("doc", "integer"), ("doc_tokens", "integer"), ("ttft_ms", "number")):
        if not all(_is(kind, value) for value in frame[name].tolist()):
            raise BrokenAssumption(t(f"nb.06.problem-not-{kind}", name=name))
    frame["line"] = range(len(frame))
    return frame


FIELDS = ("config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms")


def _is(kind, value):
    """A whole number (an integer), or a finite number of at least 0 (a number)."""
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int)
    return isinstance(value, (int, float)) and math.isfinite(value) and value >= 0


def run_order(passes, orders):
    """The passes in the order they ran: the lab's names in the lab's order; any other name where the lab's
    passes stand: a name with "cold" in it first, then the forward passes, then the others (ties: as they appear)."""
    def place(name):
        if name in LAB_PASSES:
            return LAB_PASSES.index(name)
        return 0 if "cold" in name.lower() else 1 if orders[name] == "fwd" else 2
    return sorted(passes, key=place)  # stable: ties keep the order in which they first appear


def layout(frame):
    """Passes (in the order they ran), read orders and documents of the file, and every assumption it breaks.

    A pass with one of the lab's names reads as the lab's did (LAB_ORDERS): when its lines are in another
    order, its requests are placed by document id (Layout.placed). Any other pass is read in line order."""
    appear = list(dict.fromkeys(frame["pass"]))
    docs = sorted(frame["doc"].unique().tolist())
    problems, placed = [], []
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
        if name in LAB_ORDERS:  # the lab's pass: its name says how it read
            orders[name] = LAB_ORDERS[name]
            if any(order != orders[name] for order in seen.values()):
                placed.append(name)
            continue
        orders[name] = seen.get("lmcache", seen.get("baseline", "neither"))
        if len(set(seen.values())) > 1:
            problems.append(t("nb.06.problem-different-orders", name=name))
    neither = [name for name in appear if orders[name] == "neither"]
    if neither:
        problems.append(t("nb.06.problem-neither-order", n=len(neither), name=neither[0], names=_joined(neither)))
    return Layout(run_order(appear, orders), orders, docs, problems, [name for name in LAB_PASSES if name in placed])


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
    parts = [str(part) for part in parts]
    if len(parts) == 1:
        return parts[0]
    return t("nb.06.list-and", items=t("nb.06.list-comma").join(parts[:-1]), last=parts[-1])


def _alternatives(parts):
    """`a`, `a or b`, `a, b or c`."""
    parts = [str(part) for part in parts]
    if len(parts) == 1:
        return parts[0]
    return t("nb.06.list-or", items=t("nb.06.list-comma").join(parts[:-1]), last=parts[-1])


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


# --- a file by its own settings: its sizes, each request's tier, the warm-ups -----------------------------------

def sizes(path, gpu=None, cpu=None, frame=None):
    """The sizes `path` was measured with (kvlab.latency.Sizes): each config's (GPU, CPU) capacity in tokens
    (`.of(config)`), the document length to simulate (`.tokens`) and where they come from (`.origin`: "file",
    "lab", "lab-shape" or "given"). From `gpu`/`cpu` where given, else its settings file; the lab's sizes for
    the lab's own file, and for a file of the lab's experiment (both configs, every document of the lab's
    measured 4,864 tokens: "lab-shape"). Any other file that says nothing stops with one line
    (BrokenAssumption). `frame`: the file as read() gave it (else it is read again)."""
    from . import lab
    from .errors import UserError
    from .latency import Sizes, capacities, file_sizes
    if frame is None:
        frame = read(path)
    records = frame[["config", "doc_tokens"]].to_dict("records")
    try:
        return file_sizes(path, records, gpu, cpu)
    except UserError:
        if set(frame["config"]) == set(CONFIGS) and set(frame["doc_tokens"]) == {lab.MEASURED_TOKENS}:
            # the lab's experiment in another layout: its documents hold the lab's measured 4,864 tokens
            return Sizes({config: capacities(config) for config in CONFIGS}, lab.TOKENS, "lab-shape")
        raise BrokenAssumption(t("nb.06.no-sizes", file=getattr(path, "name", path))) from None


SIZES_FROM = {origin: f"nb.06.sizes-{origin}" for origin in ("lab", "lab-shape", "file", "given")}  # message ids


def caches_text(found):
    """Each config's cache at the sizes `found`, as the tier cell says them: baseline `TwoTierCache(21520, 0)`, ..."""
    return t("nb.06.list-comma").join(t("nb.06.cache-of", config=config, gpu=gpu, cpu=cpu)
                                      for config, (gpu, cpu) in found.capacities.items())


def tiers(frame, shape, found, two_tier_cache):
    """The simulator's tier of each request (a Series on frame's index), each config through its own
    two_tier_cache(GPU, CPU) at the file's sizes `found` (from sizes()), in the order the requests ran
    (columns `run` and `read`: Layout.ordered)."""
    _state.tiers = False
    number = {doc: index for index, doc in enumerate(shape.docs)}  # the file's ids -> the simulator's 0, 1, ...
    ordered = frame.sort_values(["config", "run", "read"])
    caches = {config: two_tier_cache(*found.of(config)) for config in ordered["config"].unique()}
    found_tiers = pd.Series([caches[row.config].access(number[row.doc], found.tokens) for row in ordered.itertuples()],
                            index=ordered.index).reindex(frame.index)
    if not found_tiers.isin(TIERS).all():  # a simulator that answers something else: nothing below can use it
        raise NotReady(Line("nb.06.not-a-tier", value=repr(found_tiers[~found_tiers.isin(TIERS)].iloc[0]),
                            tiers=", ".join(map(repr, TIERS))))
    _state.tiers = True
    return found_tiers


def warm_ups(frame):
    """The warm-ups of a frame with a `tier` column: each config's first request (in run order, columns `run`
    and `read`) when it took at least WARMUP_FACTOR times the median of its kind (config, pass, tier). A
    DataFrame of those rows with `times` (its TTFT over its kind's median); leave them out of any statistic."""
    from .latency import warm_ups as found
    ordered = frame.sort_values(["run", "read"]) if "run" in frame else frame.sort_values("line")
    rows = found([({"config": row["config"], "pass": row["pass"], "doc": row["doc"], "ttft_ms": row["ttft_ms"],
                    "index": index}, row["tier"]) for index, row in ordered.iterrows()])
    picked = frame.loc[[record["index"] for record, _, _ in rows]].copy()
    picked["times"] = [times for _, _, times in rows]
    return picked


def statistics(frame):
    """n, p50_ms and mean_ms of each (config, pass), unrounded, in the order they appear; what summarize computes."""
    return frame.groupby(["config", "pass"], sort=False)["ttft_ms"].agg(n="size", p50_ms="median", mean_ms="mean")


def ratios(stats):
    """{pass: {"p50": ratio, "mean": ratio}}: baseline / lmcache of each pass that both configs ran, unrounded."""
    found = {}
    if not set(CONFIGS) <= set(stats.index.get_level_values(0)):
        return found
    for name in stats.loc["baseline"].index.intersection(stats.loc["lmcache"].index):
        base, cached = stats.loc[("baseline", name)], stats.loc[("lmcache", name)]
        found[name] = {stat: base[key] / cached[key] if cached[key] else None
                       for stat, key in (("p50", "p50_ms"), ("mean", "mean_ms"))}
    return found


# --- paired statistics: the same documents under both configs ------------------------------------------------

def differences(frame, passes):
    """Per document (rows: the file's ids) and pass (columns, in run order): baseline's TTFT minus lmcache's.
    Empty where a config has no request of that document in that pass (a warm-up left out, say)."""
    wide = frame.pivot_table(index="doc", columns=["pass", "config"], values="ttft_ms", aggfunc="first")
    table = pd.DataFrame(index=sorted(frame["doc"].unique()))
    for name in passes:
        if (name, "baseline") in wide and (name, "lmcache") in wide:
            table[name] = wide[(name, "baseline")] - wide[(name, "lmcache")]
    table.index.name = "doc"
    return table


@dataclass
class PairedTests:
    """A pass's per-document differences (baseline - lmcache, ms) and what the three tests make of them.

    One-sided in the direction the lab text expects for the cold pass: lmcache slower, a difference below 0."""
    differences: np.ndarray
    baseline_median: float
    slower: int = 0            # documents slower in lmcache (difference below 0)
    faster: int = 0
    ties: int = 0
    sign_p: float = 1.0        # one-sided: at least `slower` of slower + faster, with a fair coin
    sign_p_two: float = 1.0
    resampled: np.ndarray = None   # bootstrap: the mean of each resample, drawn with replacement
    low: float = 0.0               # the middle 95 % of them
    high: float = 0.0
    flipped: np.ndarray = None     # permutation test: the mean under each sign pattern
    exact: bool = True             # every pattern (2^n), or SAMPLES random ones
    permutation_p: float = 1.0     # one-sided: a mean this low or lower
    permutation_p_two: float = 1.0

    @property
    def n(self):
        return len(self.differences)

    @property
    def mean(self):
        return float(self.differences.mean())

    @property
    def verdict(self):
        """"all" when both tests fall below the cut-off, "none" when neither does, else "mixed"."""
        below = [p < CUT_OFF for p in (self.sign_p, self.permutation_p)]
        return "all" if all(below) else "none" if not any(below) else "mixed"


def paired_tests(differences, baseline_median, samples=SAMPLES, seed=SEED):
    """The sign test, the bootstrap and the permutation test of per-document differences (an array, ms)."""
    d = np.asarray(differences, dtype=float)
    found = PairedTests(d, float(baseline_median))
    if len(d) < 2:
        return found
    found.slower, found.faster = int((d < 0).sum()), int((d > 0).sum())
    found.ties = len(d) - found.slower - found.faster
    found.sign_p, found.sign_p_two = sign_test(found.slower, found.faster)
    rng = np.random.default_rng(seed)
    found.resampled = rng.choice(d, (samples, len(d)), replace=True).mean(axis=1)  # WITH replacement
    found.low, found.high = (float(value) for value in np.percentile(found.resampled, [2.5, 97.5]))
    found.flipped, found.exact = sign_flips(d, samples, rng)
    tolerance = 1e-9 * max(1.0, float(np.abs(d).max()))  # the observed pattern is among them: count it
    found.permutation_p = float(np.mean(found.flipped <= d.mean() + tolerance))
    found.permutation_p_two = float(np.mean(np.abs(found.flipped) >= abs(d.mean()) - tolerance))
    return found


def sign_test(slower, faster):
    """(one-sided p, two-sided p) of `slower` of slower + faster documents slower in lmcache (ties left out), if
    each were slower with chance 1/2: the binomial tail P(X >= slower), and twice the smaller tail."""
    n = slower + faster
    if n == 0:
        return 1.0, 1.0
    upper = sum(math.comb(n, k) for k in range(slower, n + 1)) / 2 ** n
    lower = sum(math.comb(n, k) for k in range(0, slower + 1)) / 2 ** n
    return upper, min(1.0, 2 * min(upper, lower))


def sign_flips(differences, samples=SAMPLES, rng=None):
    """(the mean of the differences under each sign pattern, exact): every pattern up to EXACT_FLIPS pairs,
    else `samples` random ones. If neither config were slower, each sign would be as likely as the other."""
    sizes = np.abs(np.asarray(differences, dtype=float))
    n = len(sizes)
    if n <= EXACT_FLIPS:
        patterns = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1) * 2 - 1
        return (patterns * sizes).mean(axis=1), True
    rng = rng if rng is not None else np.random.default_rng(SEED)
    return (rng.choice([-1.0, 1.0], (samples, n)) * sizes).mean(axis=1), False


# --- the reverse pass: why its mean and its median differ -----------------------------------------------------

def middle_tiers(rows):
    """The tiers of the requests a median of `rows` (one config's pass, with `tier`) takes: the middle one, or the
    two middle ones of an even count; sorted fastest tier first."""
    ordered = rows.sort_values("ttft_ms")["tier"].tolist()
    if not ordered:
        return []
    middle = {ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]}
    return [tier for tier in TIERS if tier in middle]


def mean_and_median(frame, name):
    """What notebook 06 says of pass `name` (rows with `tier`, warm-ups left out): (message id, parameters)."""
    rows = {config: frame[(frame["pass"] == name) & (frame["config"] == config)] for config in CONFIGS}
    if any(mine.empty for mine in rows.values()):
        return "nb.06.mean-median-one-config", {"name": name}
    base, cached = rows["baseline"], rows["lmcache"]
    stats = {config: (mine["ttft_ms"].median(), mine["ttft_ms"].mean()) for config, mine in rows.items()}
    params = {"name": name, "n": len(base), "base_median": stats["baseline"][0], "base_mean": stats["baseline"][1],
              "p50": stats["baseline"][0] / stats["lmcache"][0], "mean": stats["baseline"][1] / stats["lmcache"][1]}
    hits = {config: set(mine.loc[mine["tier"] == "gpu", "doc"]) for config, mine in rows.items()}
    shared = hits["baseline"] & hits["lmcache"]
    rest_base, rest_cached = set(base.loc[base["tier"] != "gpu", "tier"]), set(cached.loc[cached["tier"] != "gpu", "tier"])
    if (shared and hits["baseline"] == hits["lmcache"] == shared and rest_base == {"miss"} and rest_cached == {"cpu"}
            and middle_tiers(base) == ["miss"] and middle_tiers(cached) == ["cpu"] and params["mean"] < params["p50"]):
        both = frame[(frame["pass"] == name) & frame["doc"].isin(shared)]
        return "nb.06.mean-median", dict(params, gpu=len(shared), rest=len(base) - len(shared),
                                         gpu_base=both.loc[both["config"] == "baseline", "ttft_ms"].mean(),
                                         gpu_cached=both.loc[both["config"] == "lmcache", "ttft_ms"].mean())
    words = {config: _joined([t(f"nb.06.tier-plural-{tier}") for tier in middle_tiers(mine)])
             for config, mine in rows.items()}
    return "nb.06.mean-median-other", dict(params, base_middle=words["baseline"], cached_middle=words["lmcache"])


# --- the optional sections: the latency model, the block model -------------------------------------------------

def simulator_records(frame, shape):
    """Every request of `frame` as the instructor's models read a file: dicts in run order (config, then pass,
    then read order) with the lab's fields, `doc` the simulator's number (0, 1, ...) and `index` the frame's."""
    number = {doc: index for index, doc in enumerate(shape.docs)}
    ordered = frame.sort_values(["config", "run", "read"])
    return [{"config": row.config, "pass": row[2], "doc": number[row.doc], "doc_tokens": row.doc_tokens,
             "ttft_ms": row.ttft_ms, "total_ms": row.total_ms, "index": row.Index}
            for row in ordered[["config", "pass", "doc", "doc_tokens", "ttft_ms", "total_ms"]].itertuples()]


def block_model(frame, shape, found, kept):
    """Both models side by side on every request (kvlab.blocks.side_by_side), in the file's ids, the requests
    of `kept` (an index: warm-ups left out) only: (DataFrame, None), or (None, the line that says why the block
    model cannot run on this file)."""
    from . import blocks
    from .errors import UserError
    records = simulator_records(frame, shape)
    try:
        rows = blocks.side_by_side(records, {config: found.of(config) for config in frame["config"].unique()},
                                   found.tokens)
    except ValueError:  # blocks.Engine: a request longer than the GPU tier's blocks
        return None, t("nb.06.block-too-small", gpu=min(gpu for gpu, _ in found.capacities.values()))
    except UserError as error:
        return None, str(error)
    side = pd.DataFrame(rows, index=[record["index"] for record in records])
    side["doc"] = [shape.docs[number] for number in side["doc"]]  # the file's own ids again
    return side.loc[side.index.isin(kept)], None


# --- the latency model (optional section): fitted to the requests, with intervals --------------------------------

def latency_fit(frame, found, docs, samples=REFITS):
    """The latency model fitted to the requests of `frame` (warm-ups left out; columns config, doc_tokens,
    ttft_ms, total_ms and the simulator's `tier`), and a bootstrap over requests (with replacement, seeded) of
    every parameter and prediction: (model, quality, predictions, intervals, step 7's {capacity: row}, GPU).
    Predictions of step 7 are at the file's sizes `found` (kvlab.latency.step7_capacities), for `docs` documents."""
    from . import latency
    labelled = [({"config": row.config, "doc_tokens": row.doc_tokens, "ttft_ms": row.ttft_ms,
                  "total_ms": row.total_ms}, row.tier) for row in frame.itertuples()]
    tiered = next((config for config in found.capacities if found.of(config)[1] > 0), next(iter(found.capacities)))
    gpu, capacities = found.of(tiered)[0], latency.step7_capacities(found)
    measured = int(frame["doc_tokens"].max())

    def predictions(model):
        made = {f"ttft_{tier}{'_cpu_tier' if cpu_tier else ''}": model.ttft_ms(tier, found.tokens, cpu_tier)
                for tier in TIERS for cpu_tier in (False, True)}
        made["load_extra_ms"] = load_extra(model, measured)["extra_ms"]
        for capacity, row in latency.predict_cpu_sweep(model, capacities, gpu, docs, found.tokens).items():
            made[f"step7_p50_{capacity}"] = row["p50_ms"]
        return made

    try:
        model, quality = latency.fit_labelled(labelled)
    except latency.UserError as error:
        raise BrokenAssumption(str(error)) from None
    intervals, _ = latency.bootstrap(labelled, predictions, samples)
    sweep = latency.predict_cpu_sweep(model, capacities, gpu, docs, found.tokens)
    return model, quality, predictions(model), intervals, sweep, gpu


def load_extra(model, doc_tokens, link_gb_s=25.0):
    """A load's time beyond a GPU hit for documents of `doc_tokens`, and what a link of `link_gb_s` would take of
    it: {"extra_ms", "megabytes", "link_ms", "rest_ms"}."""
    nbytes = doc_tokens * model.kv_bytes_per_token
    extra = model.ttft_ms("cpu", doc_tokens, True) - model.ttft_ms("gpu", doc_tokens, True)
    link = nbytes / (link_gb_s * 1e9) * 1e3
    return {"extra_ms": extra, "megabytes": nbytes / 1e6, "link_ms": link, "rest_ms": extra - link}


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
