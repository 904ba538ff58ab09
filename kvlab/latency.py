"""Fit a latency model to a TTFT file and the simulator's outcome for each request; print its report.

    python -m kvlab latency [TTFT.jsonl] [--json]

The model turns the simulator's tiers into milliseconds. For a request whose document has D tokens,
followed by a question of q tokens:

    GPU hit   TTFT = prefill_fixed_ms + prefill_ms_per_token * q             (the question only)
    CPU load  TTFT = GPU hit + load_fixed_ms + D * kv_bytes_per_token / load bandwidth
    miss      TTFT = prefill_fixed_ms + prefill_ms_per_token * (D + q)
              + (write_fixed_ms + write_ms_per_token * D, when the config has a CPU tier)

Each request's outcome ("gpu", "cpu" or "miss") comes from running the file's own scenario through
kvlab.kvsim.TwoTierCache, one cache per config: baseline = the GPU alone, lmcache = the GPU and a CPU
tier. The fit is ordinary least squares (standard library only). When every document has the same
length, a fixed cost cannot be told from a per-token one: the load's and the write's fixed costs are
then fixed at 0 and the whole extra time is read as bandwidth (so the bandwidth is a lower bound).
"""
import json
import math
import random
import statistics
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

from . import lab
from .errors import UserError
from .i18n import t

KV_BYTES_PER_TOKEN = 28672   # a Qwen2.5-1.5B-class model: 28 layers x 2 KV heads x 128 dims x K,V x 2 bytes
QUESTION_TOKENS = 16         # an assumption: the lab's file does not record the question's length
OUTPUT_TOKENS = 32           # an assumption: the lab's file does not record the answer's length
GPU, CPU = lab.GPU, lab.OFFLOAD_CPU  # the lab's GPU capacity, and its CPU capacity for the lmcache config
STEP7_CPU = lab.CPU_CAPACITIES
MEASURED_TOKENS = lab.MEASURED_TOKENS  # the measured documents' KV (19 LMCache chunks of 256 tokens)
OUTCOMES = ("gpu", "cpu", "miss")
# Which parameters each column of the least-squares problem estimates, in order; the first of a pair of
# columns that cannot be told apart is dropped (fixed at 0).
COLUMNS = ("prefill_fixed_ms", "prefill_ms_per_token", "load_fixed_ms", "load_ms_per_byte",
           "write_fixed_ms", "write_ms_per_token")
DROP_FIRST = ("load_fixed_ms", "write_ms_per_token", "prefill_fixed_ms")
WARMUP_FACTOR = 1.5          # a config's first request this many times its kind's median is a warm-up
BOOTSTRAP = 1000             # resamples for the intervals


@dataclass(frozen=True)
class LatencyModel:
    """TTFT in milliseconds from where a document's KV cache is found."""

    prefill_fixed_ms: float = 0.0
    prefill_ms_per_token: float = 0.0
    load_fixed_ms: float = 0.0
    load_ms_per_byte: float = 0.0          # 1 / bandwidth; bandwidth_gb_s reads it in GB/s
    write_fixed_ms: float = 0.0
    write_ms_per_token: float = 0.0
    decode_ms_per_token: float = 0.0       # the pace of the answer's tokens after the first
    kv_bytes_per_token: int = KV_BYTES_PER_TOKEN
    question_tokens: int = QUESTION_TOKENS

    @property
    def bandwidth_gb_s(self):
        """The CPU->GPU bandwidth the load cost implies, in GB/s (10^9 bytes a second); None if not positive."""
        return 1.0 / (self.load_ms_per_byte * 1e6) if self.load_ms_per_byte > 0 else None

    def ttft_ms(self, outcome, doc_tokens, cpu_tier, question_tokens=None):
        """The predicted TTFT of one request: outcome "gpu", "cpu" or "miss"; cpu_tier: does its config have one."""
        question = self.question_tokens if question_tokens is None else question_tokens
        return sum(c * x for c, x in zip(self.vector(), features(outcome, doc_tokens, cpu_tier, question,
                                                                 self.kv_bytes_per_token)))

    def total_ms(self, outcome, doc_tokens, cpu_tier, output_tokens=OUTPUT_TOKENS):
        """TTFT, then the answer's other tokens at the decode pace."""
        return self.ttft_ms(outcome, doc_tokens, cpu_tier) + self.decode_ms_per_token * max(output_tokens - 1, 0)

    def vector(self):
        return [getattr(self, name) for name in COLUMNS]

    def as_dict(self):
        return asdict(self)

    @classmethod
    def from_dict(cls, data):
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown latency parameter {', '.join(unknown)}")
        return cls(**data)


def features(outcome, doc_tokens, cpu_tier, question_tokens=QUESTION_TOKENS, kv_bytes_per_token=KV_BYTES_PER_TOKEN):
    """The row of the least-squares problem for one request, in the order of COLUMNS."""
    if outcome not in OUTCOMES:
        raise ValueError(f"unknown outcome {outcome!r} (expected gpu, cpu or miss)")
    miss, load, write = outcome == "miss", outcome == "cpu", outcome == "miss" and cpu_tier
    prefilled = question_tokens + (doc_tokens if miss else 0)
    return [1.0, float(prefilled), float(load), float(doc_tokens * kv_bytes_per_token) if load else 0.0,
            float(write), float(doc_tokens) if write else 0.0]


# --- the scenario behind a file: which pass read which document, and where the simulator found it ------

pass_names = lab.pass_names


def outcomes(gpu, cpu, docs, tokens, orders):
    """[(pass name, doc, outcome)] in read order: the lab's scenario through kvsim.TwoTierCache(gpu, cpu)."""
    from .kvsim import TwoTierCache  # the student's own simulator in their edition

    cache, read = TwoTierCache(gpu, cpu), []
    try:
        for name, order in zip(pass_names(orders), orders):
            ids = range(docs) if order == "fwd" else range(docs - 1, -1, -1)
            read.extend((name, doc, cache.access(doc, tokens)) for doc in ids)
    except NotImplementedError as error:  # the student edition, before steps 1 and 5 are written
        raise UserError(t("latency.no-simulator", reason=error)) from None
    return read


def capacities(config, gpu=GPU, cpu=CPU):
    """(GPU, CPU) capacities of a config: baseline is the GPU alone, any other config has the CPU tier."""
    return (gpu, 0) if config == "baseline" else (gpu, cpu)


def scenario_of(records):
    """(docs, tokens, orders) of a measured file: its passes in order of first appearance, each fwd or rev."""
    passes = {}
    for line in records:
        passes.setdefault(line["pass"], []).append(line["doc"])
    docs = 1 + max(record["doc"] for record in records)
    tokens = max(record["doc_tokens"] for record in records)
    orders = []
    for name, read in passes.items():
        firsts = list(dict.fromkeys(read))
        orders.append("rev" if len(firsts) > 1 and firsts[0] > firsts[-1] else "fwd")
    return docs, tokens, orders, list(passes)


def label(records, gpu=GPU, cpu=CPU, sizes=None):
    """Each record paired with the simulator's outcome: [(record, outcome)], the file's order kept. `sizes`
    (a Sizes) gives each config's capacities and the document length to read them with."""
    docs, tokens, orders, names = scenario_of(records)
    if sizes is not None:
        tokens = sizes.tokens
    found = {}
    for config in dict.fromkeys(record["config"] for record in records):
        caps = sizes.of(config) if sizes is not None else capacities(config, gpu, cpu)
        for index, (_, doc, outcome) in enumerate(outcomes(*caps, docs, tokens, orders)):
            found[(config, names[index // docs], doc)] = outcome
    try:
        return [(record, found[(record["config"], record["pass"], record["doc"])]) for record in records]
    except KeyError as error:
        raise UserError(t("latency.not-the-lab-scenario", key=" ".join(map(str, error.args[0])))) from None


# --- fitting --------------------------------------------------------------------------------------------

def _solve(matrix, vector):
    """Solve the square system matrix . x = vector (Gaussian elimination, partial pivoting)."""
    n = len(vector)
    rows = [list(map(float, row)) + [float(value)] for row, value in zip(matrix, vector)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(n):
            if r != column:
                factor = rows[r][column] / rows[column][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column])]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _rank(matrix, tolerance=1e-9):
    """The rank of a list of rows (columns scaled to unit size first, so that bytes and tokens compare)."""
    columns = list(zip(*matrix))
    scales = [math.sqrt(sum(x * x for x in column)) or 1.0 for column in columns]
    rows = [[x / s for x, s in zip(row, scales)] for row in matrix]
    rank, width = 0, len(scales)
    for column in range(width):
        pivot = max(range(rank, len(rows)), key=lambda r: abs(rows[r][column]), default=None)
        if pivot is None or abs(rows[pivot][column]) < tolerance:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(len(rows)):
            if r != rank:
                factor = rows[r][column] / rows[rank][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[rank])]
        rank += 1
    return rank


def _nonnegative(normal, right, tolerance=1e-10):
    """Lawson and Hanson's non-negative least squares on the normal equations (normal = A'A, right = A'y):
    the x >= 0 that minimises |Ax - y|; a cost or a time is never negative. Standard library only."""
    n = len(right)
    x, passive = [0.0] * n, []

    def gradient():
        return [right[i] - sum(normal[i][j] * x[j] for j in range(n)) for i in range(n)]

    def solve_on(chosen):
        values = _solve([[normal[i][j] for j in chosen] for i in chosen], [right[i] for i in chosen])
        z = [0.0] * n
        for index, value in zip(chosen, values):
            z[index] = value
        return z

    scale = max([abs(value) for value in right] + [1.0])
    for _ in range(3 * n + 10):
        w = gradient()
        candidates = [i for i in range(n) if i not in passive and w[i] > tolerance * scale]
        if not candidates:
            break
        passive.append(max(candidates, key=lambda i: w[i]))
        while True:
            z = solve_on(sorted(passive))
            if all(z[i] > 0 for i in passive):
                x = z
                break
            steps = [x[i] / (x[i] - z[i]) for i in passive if z[i] <= 0 and x[i] - z[i] != 0]
            alpha = min(steps) if steps else 0.0
            x = [x[i] + alpha * (z[i] - x[i]) for i in range(n)]
            passive = [i for i in passive if x[i] > tolerance]
            if not passive:
                break
    return x


def least_squares(rows, targets):
    """({column name: value}, free columns, columns held at 0 by the bound): the squared error minimised with
    every parameter >= 0. Columns that nothing informs, or that cannot be told apart, are fixed at 0 first."""
    free = list(COLUMNS)

    def design(names):
        return [[row[COLUMNS.index(name)] for name in names] for row in rows]

    for name in [name for name in COLUMNS if not any(row[COLUMNS.index(name)] for row in rows)]:
        free.remove(name)  # nothing in the file informs it (no CPU loads, no writes): 0
    for name in DROP_FIRST:
        if _rank(design(free)) == len(free):
            break
        if name in free:
            free.remove(name)
    if not free or _rank(design(free)) < len(free):
        raise UserError(t("latency.cannot-fit"))
    matrix = design(free)
    scales = [math.sqrt(sum(row[i] ** 2 for row in matrix)) or 1.0 for i in range(len(free))]
    matrix = [[value / scale for value, scale in zip(row, scales)] for row in matrix]  # bytes and tokens compare
    normal = [[sum(row[i] * row[j] for row in matrix) for j in range(len(free))] for i in range(len(free))]
    right = [sum(row[i] * y for row, y in zip(matrix, targets)) for i in range(len(free))]
    solved = {name: value / scale for name, value, scale in zip(free, _nonnegative(normal, right), scales)}
    if not any(solved.values()):
        raise UserError(t("latency.cannot-fit"))
    bounded = [name for name in free if solved[name] == 0.0]
    return {name: solved.get(name, 0.0) for name in COLUMNS}, free, bounded


# --- the file's own settings: its sizes, its warm-ups --------------------------------------------------------

@dataclass(frozen=True)
class Sizes:
    """The sizes a file was measured with: each config's (GPU, CPU) capacity in tokens, the document length
    the simulator reads them with, and where they come from: "file" (its settings file), "lab" (the lab's
    own file: the lab's sizes) or "given" (--gpu/--cpu)."""
    capacities: dict
    tokens: int
    origin: str
    settings: object = None

    def of(self, config):
        return self.capacities[config]

    @property
    def warmup(self):
        return self.settings.get("warmup") if isinstance(self.settings, dict) else None


def is_labs_file(path):
    """The lab's own measured file (the stand-in or the course machine's, or a byte-for-byte copy of either)."""
    from .paths import COURSE_TTFT, STAND_IN_TTFT
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False
    for lab_file in (STAND_IN_TTFT, COURSE_TTFT):
        try:
            if Path(path).resolve() == lab_file.resolve() or (lab_file.is_file() and lab_file.read_bytes() == data):
                return True
        except OSError:
            continue
    return False


def file_sizes(path, records, gpu=None, cpu=None):
    """Sizes of a recorded file: --gpu/--cpu where given, else its settings file (kvlab measure's, kvlab engine's),
    else the lab's sizes for the lab's own file; otherwise a one-line refusal that asks for them."""
    from .measure import load_settings
    settings = load_settings(path)
    configs = list(dict.fromkeys(record["config"] for record in records))
    measured = max(record["doc_tokens"] for record in records)
    found = {}
    for config in configs:
        mine = ((settings or {}).get("configs") or {}).get(config) or {}
        file_gpu, file_cpu = mine.get("gpu_tokens"), mine.get("cpu_tokens")
        if file_gpu is None and isinstance((settings or {}).get("cache_docs"), int):  # the first engine files
            file_gpu = settings["doc_tokens"]
            file_cpu = 0 if config == "baseline" else settings["cache_docs"] * settings["doc_tokens"]
        if config == "baseline":  # the GPU alone, whatever --cpu says
            file_cpu = 0
        found[config] = [gpu if gpu is not None else file_gpu, cpu if cpu is not None and config != "baseline" else file_cpu]
    if any(None in pair for pair in found.values()):
        if is_labs_file(path) and gpu is None and cpu is None:
            return Sizes({config: capacities(config) for config in configs}, lab.TOKENS, "lab", settings)
        missing = [option for option, index in (("--gpu", 0), ("--cpu", 1))
                   if any(pair[index] is None for pair in found.values())]
        raise UserError(t("latency.no-sizes", path=path, options=" ".join(missing)))
    origin = "given" if gpu is not None or cpu is not None else "file"
    return Sizes({config: tuple(pair) for config, pair in found.items()}, measured, origin, settings)


def warm_ups(labelled):
    """The warm-ups among [(record, outcome)]: each config's first request when it took at least WARMUP_FACTOR
    times the median of its kind (config, pass, outcome). [(record, outcome, times its kind's median)]."""
    kinds = {}
    for record, outcome in labelled:
        kinds.setdefault((record["config"], record["pass"], outcome), []).append(record["ttft_ms"])
    found, seen = [], set()
    for record, outcome in labelled:
        if record["config"] in seen:
            continue
        seen.add(record["config"])
        others = kinds[(record["config"], record["pass"], outcome)]
        median = statistics.median(others)
        if len(others) > 1 and median > 0 and record["ttft_ms"] >= WARMUP_FACTOR * median:
            found.append((record, outcome, record["ttft_ms"] / median))
    return found


def fit(records, gpu=GPU, cpu=CPU, kv_bytes_per_token=KV_BYTES_PER_TOKEN, question_tokens=QUESTION_TOKENS,
        output_tokens=OUTPUT_TOKENS, sizes=None):
    """Fit a LatencyModel to measured records (dicts with the lab's fields): (model, report dict). `sizes` (a
    Sizes) gives each config's capacities; without it, the lab's (gpu, cpu). Warm-ups are left out (named in
    the report)."""
    labelled = label(records, gpu, cpu, sizes)
    warm = warm_ups(labelled)
    kept = [pair for pair in labelled if not any(pair[0] is record for record, _, _ in warm)]
    model, report = fit_labelled(kept, kv_bytes_per_token, question_tokens, output_tokens)
    report["warm_ups"] = [{"config": record["config"], "pass": record["pass"], "doc": record["doc"],
                           "ttft_ms": record["ttft_ms"], "times": round(times, 2)} for record, _, times in warm]
    return model, report


def fit_labelled(labelled, kv_bytes_per_token=KV_BYTES_PER_TOKEN, question_tokens=QUESTION_TOKENS,
                 output_tokens=OUTPUT_TOKENS):
    """fit() on [(record, outcome)] pairs, from any mix of scenarios and document lengths: every parameter >= 0."""
    rows = [features(outcome, record["doc_tokens"], record["config"] != "baseline", question_tokens,
                     kv_bytes_per_token) for record, outcome in labelled]
    targets = [float(record["ttft_ms"]) for record, _ in labelled]
    values, free, bounded = least_squares(rows, targets)
    decode = [(record["total_ms"] - record["ttft_ms"]) / max(output_tokens - 1, 1) for record, _ in labelled
              if isinstance(record.get("total_ms"), (int, float))]
    model = LatencyModel(**values, decode_ms_per_token=max(statistics.mean(decode), 0.0) if decode else 0.0,
                         kv_bytes_per_token=kv_bytes_per_token, question_tokens=question_tokens)
    residuals = [model.ttft_ms(outcome, record["doc_tokens"], record["config"] != "baseline") - record["ttft_ms"]
                 for record, outcome in labelled]
    report = {"requests": len(labelled), "fitted": [n for n in free if n not in bounded],
              "fixed_at_zero": [n for n in COLUMNS if n not in free], "held_at_zero": bounded,
              "rms_ms": math.sqrt(statistics.mean(r * r for r in residuals)),
              "max_abs_ms": max(abs(r) for r in residuals)}
    return model, report


def bootstrap(labelled, predictions, samples=BOOTSTRAP, seed=8, level=0.95, **options):
    """Intervals over requests: refit on `samples` resamples (with replacement, seeded) of `labelled` and take
    the central `level` of each parameter and of each prediction. predictions(model) -> {name: value}.
    ({name: (low, high)}, how many resamples could not be fitted: they are left out)."""
    rng = random.Random(seed)
    drawn, failed = {}, 0
    for _ in range(samples):
        resample = [labelled[rng.randrange(len(labelled))] for _ in labelled]
        try:
            model, _ = fit_labelled(resample, **options)
        except UserError:
            failed += 1
            continue
        values = {name: getattr(model, name) for name in COLUMNS}
        values["bandwidth_gb_s"] = model.bandwidth_gb_s
        values.update(predictions(model))
        for name, value in values.items():
            if value is not None:
                drawn.setdefault(name, []).append(value)
    cut = (1 - level) / 2
    intervals = {}
    for name, values in drawn.items():
        values.sort()
        intervals[name] = (values[int(cut * (len(values) - 1))], values[int(math.ceil((1 - cut) * (len(values) - 1)))])
    return intervals, failed


def predict(model, config, gpu=GPU, cpu=CPU, docs=lab.DOCS, tokens=MEASURED_TOKENS, orders=lab.FWD_FWD_REV,
            output_tokens=OUTPUT_TOKENS):
    """A whole predicted file for one config: records with the lab's fields, in read order."""
    gpu, cpu = capacities(config, gpu, cpu)
    cpu_tier = cpu > 0
    return [{"config": config, "pass": name, "doc": doc, "doc_tokens": tokens,
             "ttft_ms": round(model.ttft_ms(outcome, tokens, cpu_tier), 1),
             "total_ms": round(model.total_ms(outcome, tokens, cpu_tier, output_tokens), 1)}
            for name, doc, outcome in outcomes(gpu, cpu, docs, tokens, orders)]


def predict_cpu_sweep(model, capacities_=STEP7_CPU, gpu=GPU, docs=lab.DOCS, tokens=lab.TOKENS):
    """Step 7 in milliseconds, a prediction: {str(CPU capacity): {"misses", "p50_ms", "mean_ms"}} of pass 2 (fwd,fwd)."""
    sweep = {}
    for cpu in capacities_:
        second = [outcome for name, _, outcome in outcomes(gpu, cpu, docs, tokens, lab.FWD_FWD)
                  if name == "pass2-replay"]
        ttfts = [model.ttft_ms(outcome, tokens, cpu > 0) for outcome in second]
        sweep[str(cpu)] = {"misses": second.count("miss"), "p50_ms": round(statistics.median(ttfts), 1),
                           "mean_ms": round(statistics.mean(ttfts), 1)}
    return sweep


def load_model(path):
    """A LatencyModel from a JSON file: its parameters, or the "model" object of `kvlab latency --json`."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        return LatencyModel.from_dict(data.get("model", data))
    except OSError as error:
        raise UserError(t("latency.cannot-read", path=path, reason=error.strerror)) from None
    except (ValueError, TypeError, AttributeError) as error:
        raise UserError(t("latency.bad-model", path=path, reason=error)) from None


_STAND_IN = None


def stand_in_model():
    """The model fitted to the generated stand-in fixtures/ttft.jsonl (cached); kvlab serve's default."""
    global _STAND_IN
    if _STAND_IN is None:
        from .paths import STAND_IN_TTFT
        _STAND_IN = fit(_read(STAND_IN_TTFT))[0]
    return _STAND_IN


def _read(path):
    from .records import InputError, read_records
    try:
        return read_records(str(path))
    except InputError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(t("latency.cannot-read", path=path, reason=error.strerror)) from None


# --- the command ----------------------------------------------------------------------------------------

def add_arguments(parser):
    parser.add_argument("ttft", nargs="?", help=t("latency.file-help"))
    parser.add_argument("--gpu", type=int, help=t("latency.gpu-help"))
    parser.add_argument("--cpu", type=int, help=t("latency.cpu-help"))
    parser.add_argument("--kv-bytes-per-token", type=int, help=t("latency.kv-help", default=KV_BYTES_PER_TOKEN))
    parser.add_argument("--question-tokens", type=int, default=QUESTION_TOKENS,
                        help=t("latency.question-help", default=QUESTION_TOKENS))
    parser.add_argument("--samples", type=int, default=BOOTSTRAP, help=t("latency.samples-help", default=BOOTSTRAP))
    parser.add_argument("--json", action="store_true", help=t("latency.json-help"))


def step7_capacities(sizes):
    """Step 7's CPU capacities for a file: the lab's for the lab's file, else the lab's scaled to the file's
    document length (rounded down, so that 50,109 stays one token short of ten documents)."""
    if sizes.origin == "lab":
        return list(STEP7_CPU)
    return [cpu * sizes.tokens // lab.TOKENS for cpu in STEP7_CPU]


def report(path, gpu=None, cpu=None, kv_bytes_per_token=None, question_tokens=QUESTION_TOKENS, samples=BOOTSTRAP):
    """Everything `kvlab latency` prints, as one JSON-ready dict: the file's sizes (from its settings, the
    lab's for the lab's file, or --gpu/--cpu), its warm-ups (left out), the bounded fit, each prediction of a
    request kind and of step 7, and a bootstrap interval (over requests) of every parameter and prediction."""
    from .paths import is_stand_in
    records = _read(path)
    sizes = file_sizes(path, records, gpu, cpu)
    if kv_bytes_per_token is None:  # the file's own (kvlab engine records its model's), else the lab's assumption
        said = (sizes.settings or {}).get("kv_bytes_per_token")
        kv_bytes_per_token = said if isinstance(said, int) and said > 0 else KV_BYTES_PER_TOKEN
    model, quality = fit(records, kv_bytes_per_token=kv_bytes_per_token, question_tokens=question_tokens, sizes=sizes)
    labelled = [pair for pair in label(records, sizes=sizes)
                if not any(pair[0]["config"] == w["config"] and pair[0]["pass"] == w["pass"]
                           and pair[0]["doc"] == w["doc"] for w in quality["warm_ups"])]
    configs = list(dict.fromkeys(record["config"] for record in records))
    tiered = next((config for config in configs if sizes.of(config)[1] > 0), configs[-1])
    step_gpu, capacities_ = sizes.of(tiered)[0], step7_capacities(sizes)
    docs = scenario_of(records)[0]
    kinds = sorted({(outcome, record["config"] != "baseline") for record, outcome in labelled})

    def predictions(model):
        found = {f"ttft_{outcome}{'_cpu_tier' if tier else ''}": model.ttft_ms(outcome, sizes.tokens, tier)
                 for outcome, tier in kinds}
        for capacity, row in predict_cpu_sweep(model, capacities_, step_gpu, docs, sizes.tokens).items():
            found[f"step7_p50_{capacity}"] = row["p50_ms"]
        return found

    intervals, failed = bootstrap(labelled, predictions, samples, kv_bytes_per_token=kv_bytes_per_token,
                                  question_tokens=question_tokens)
    return {"source": str(path), "stand_in": is_stand_in(path), "sizes": {
                "origin": sizes.origin, "doc_tokens": sizes.tokens, "gpu_cpu": {c: list(sizes.of(c)) for c in configs}},
            "model": model.as_dict(), "fit": quality, "bandwidth_gb_s": model.bandwidth_gb_s,
            "predictions": predictions(model), "intervals": {name: list(pair) for name, pair in intervals.items()},
            "bootstrap": {"samples": samples, "unfitted": failed, "level": 0.95},
            "step7_gpu": step_gpu, "step7_docs": docs, "step7_tokens": sizes.tokens,
            "step7_prediction": predict_cpu_sweep(model, capacities_, step_gpu, docs, sizes.tokens)}


def ratio_intervals(records, samples=BOOTSTRAP, seed=8, level=0.95):
    """{pass: {"p50": (low, high), "mean": (low, high)}}: the baseline / lmcache ratio of each pass, resampling
    each config's requests of that pass (with replacement, seeded) `samples` times; the central `level`."""
    rng = random.Random(seed)
    groups = {}
    for request in records:
        groups.setdefault(request["pass"], {}).setdefault(request["config"], []).append(float(request["ttft_ms"]))
    found, cut = {}, (1 - level) / 2
    for name, configs in groups.items():
        if not {"baseline", "lmcache"} <= set(configs):
            continue
        drawn = {"p50": [], "mean": []}
        for _ in range(samples):
            base = [rng.choice(configs["baseline"]) for _ in configs["baseline"]]
            cached = [rng.choice(configs["lmcache"]) for _ in configs["lmcache"]]
            for stat, of in (("p50", statistics.median), ("mean", statistics.mean)):
                if of(cached) > 0:
                    drawn[stat].append(of(base) / of(cached))
        found[name] = {}
        for stat, values in drawn.items():
            values.sort()
            found[name][stat] = (values[int(cut * (len(values) - 1))], values[int(math.ceil((1 - cut) * (len(values) - 1)))])
    return found


def _span(result, name, digits=1):
    low, high = result["intervals"].get(name, (None, None))
    return "-" if low is None else f"{low:,.{digits}f}-{high:,.{digits}f}"


def run(args):
    from .paths import ttft_source
    path = args.ttft or ttft_source()
    if args.samples < 10:
        raise UserError(t("latency.bad-samples"))
    result = report(path, args.gpu, args.cpu, args.kv_bytes_per_token, args.question_tokens, args.samples)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    model = LatencyModel.from_dict(result["model"])
    sizes = result["sizes"]
    print(t("latency.source-stand-in" if result["stand_in"] else "latency.source", path=path))
    pairs = ", ".join(f"{config} {gpu:,}/{cpu:,}" for config, (gpu, cpu) in sizes["gpu_cpu"].items())
    print(t(f"latency.sizes-{sizes['origin']}", sizes=pairs, tokens=sizes["doc_tokens"]))
    for warm in result["fit"]["warm_ups"]:
        print(t("latency.warm-up", **warm))
    print(t("latency.fit-line", n=result["fit"]["requests"], rms=result["fit"]["rms_ms"]))
    print(t("latency.intervals", samples=result["bootstrap"]["samples"], unfitted=result["bootstrap"]["unfitted"]))
    print(t("latency.prefill-line", fixed=model.prefill_fixed_ms, per_token=model.prefill_ms_per_token))
    print(t("latency.prefill-spans", fixed=_span(result, "prefill_fixed_ms"),
            per_token=_span(result, "prefill_ms_per_token", 4)))
    bandwidth = result["bandwidth_gb_s"]
    print(t("latency.load-line", fixed=model.load_fixed_ms,
            bandwidth="-" if bandwidth is None else f"{bandwidth:.2f}", kv=model.kv_bytes_per_token))
    print(t("latency.load-spans", fixed=_span(result, "load_fixed_ms"), bandwidth=_span(result, "bandwidth_gb_s", 2)))
    print(t("latency.write-line", fixed=model.write_fixed_ms, per_token=model.write_ms_per_token))
    print(t("latency.write-spans", fixed=_span(result, "write_fixed_ms"),
            per_token=_span(result, "write_ms_per_token", 4)))
    if result["fit"]["fixed_at_zero"]:
        print(t("latency.fixed-at-zero", names=", ".join(result["fit"]["fixed_at_zero"])))
    if result["fit"]["held_at_zero"]:
        print(t("latency.held-at-zero", names=", ".join(result["fit"]["held_at_zero"])))
    if result["stand_in"]:
        print(t("latency.bandwidth-stand-in"))
    for name, value in result["predictions"].items():
        if name.startswith("ttft_"):
            print(t("latency.kind-row", kind=t(f"latency.kind-{name.removeprefix('ttft_')}"), ms=value,
                    span=_span(result, name), tokens=sizes["doc_tokens"]))
    print(t("latency.step7-title", gpu=result["step7_gpu"], docs=result["step7_docs"], tokens=result["step7_tokens"]))
    for cpu, row in result["step7_prediction"].items():
        print(t("latency.step7-row", cpu=int(cpu), misses=row["misses"], p50=row["p50_ms"], mean=row["mean_ms"],
                span=_span(result, f"step7_p50_{cpu}")))
    return 0


def replaced(model, **changes):
    """A copy of `model` with some parameters changed (dataclasses.replace)."""
    return replace(model, **changes)
