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
import statistics
from dataclasses import asdict, dataclass, fields, replace

from . import lab
from .errors import UserError
from .i18n import t

KV_BYTES_PER_TOKEN = 28672   # a Qwen2.5-1.5B-class model: 28 layers x 2 KV heads x 128 dims x K,V x 2 bytes
QUESTION_TOKENS = 16         # an assumption: the lab's file does not record the question's length
OUTPUT_TOKENS = 32           # an assumption: the lab's file does not record the answer's length
GPU, CPU = lab.GPU, lab.OFFLOAD_CPU  # the lab's GPU capacity, and its CPU capacity for the lmcache config
STEP7_CPU = lab.CPU_CAPACITIES
MEASURED_TOKENS = 4864       # the measured documents' KV (19 LMCache chunks of 256 tokens)
OUTCOMES = ("gpu", "cpu", "miss")
# Which parameters each column of the least-squares problem estimates, in order; the first of a pair of
# columns that cannot be told apart is dropped (fixed at 0).
COLUMNS = ("prefill_fixed_ms", "prefill_ms_per_token", "load_fixed_ms", "load_ms_per_byte",
           "write_fixed_ms", "write_ms_per_token")
DROP_FIRST = ("load_fixed_ms", "write_ms_per_token", "prefill_fixed_ms")


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

def pass_names(orders):
    """The lab's pass names for a list of orders: fwd,fwd,rev -> pass1-cold, pass2-replay, pass3-reverse."""
    names = []
    for number, order in enumerate(orders, start=1):
        if order not in ("fwd", "rev"):
            raise ValueError(f"unknown pass {order!r} (expected fwd or rev)")
        kind = "cold" if number == 1 else "replay" if order == "fwd" else "reverse"
        names.append(f"pass{number}-{kind}")
    return names


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


def label(records, gpu=GPU, cpu=CPU):
    """Each record paired with the simulator's outcome: [(record, outcome)], the file's order kept."""
    docs, tokens, orders, names = scenario_of(records)
    found = {}
    for config in dict.fromkeys(record["config"] for record in records):
        for index, (_, doc, outcome) in enumerate(outcomes(*capacities(config, gpu, cpu), docs, tokens, orders)):
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


def least_squares(rows, targets):
    """{column name: value} minimising the squared error; columns that cannot be told apart are fixed at 0."""
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
    if _rank(design(free)) < len(free):
        raise UserError(t("latency.cannot-fit"))
    matrix = design(free)
    normal = [[sum(row[i] * row[j] for row in matrix) for j in range(len(free))] for i in range(len(free))]
    right = [sum(row[i] * y for row, y in zip(matrix, targets)) for i in range(len(free))]
    solved = dict(zip(free, _solve(normal, right)))
    return {name: solved.get(name, 0.0) for name in COLUMNS}, free


def fit(records, gpu=GPU, cpu=CPU, kv_bytes_per_token=KV_BYTES_PER_TOKEN, question_tokens=QUESTION_TOKENS,
        output_tokens=OUTPUT_TOKENS):
    """Fit a LatencyModel to measured records (dicts with the lab's fields): (model, report dict)."""
    return fit_labelled(label(records, gpu, cpu), kv_bytes_per_token, question_tokens, output_tokens)


def fit_labelled(labelled, kv_bytes_per_token=KV_BYTES_PER_TOKEN, question_tokens=QUESTION_TOKENS,
                 output_tokens=OUTPUT_TOKENS):
    """fit() on [(record, outcome)] pairs, from any mix of scenarios and document lengths."""
    rows = [features(outcome, record["doc_tokens"], record["config"] != "baseline", question_tokens,
                     kv_bytes_per_token) for record, outcome in labelled]
    targets = [float(record["ttft_ms"]) for record, _ in labelled]
    values, free = least_squares(rows, targets)
    decode = [(record["total_ms"] - record["ttft_ms"]) / max(output_tokens - 1, 1) for record, _ in labelled
              if isinstance(record.get("total_ms"), (int, float))]
    model = LatencyModel(**values, decode_ms_per_token=statistics.mean(decode) if decode else 0.0,
                         kv_bytes_per_token=kv_bytes_per_token, question_tokens=question_tokens)
    residuals = [model.ttft_ms(outcome, record["doc_tokens"], record["config"] != "baseline") - record["ttft_ms"]
                 for record, outcome in labelled]
    report = {"requests": len(labelled), "fitted": free, "fixed_at_zero": [n for n in COLUMNS if n not in free],
              "rms_ms": math.sqrt(statistics.mean(r * r for r in residuals)),
              "max_abs_ms": max(abs(r) for r in residuals)}
    return model, report


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
    from .summarize import InputError, read_records
    try:
        return read_records(str(path))
    except InputError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(t("latency.cannot-read", path=path, reason=error.strerror)) from None


# --- the command ----------------------------------------------------------------------------------------

def add_arguments(parser):
    parser.add_argument("ttft", nargs="?", help=t("latency.file-help"))
    parser.add_argument("--gpu", type=int, default=GPU, help=t("latency.gpu-help", default=GPU))
    parser.add_argument("--cpu", type=int, default=CPU, help=t("latency.cpu-help", default=CPU))
    parser.add_argument("--kv-bytes-per-token", type=int, default=KV_BYTES_PER_TOKEN,
                        help=t("latency.kv-help", default=KV_BYTES_PER_TOKEN))
    parser.add_argument("--question-tokens", type=int, default=QUESTION_TOKENS,
                        help=t("latency.question-help", default=QUESTION_TOKENS))
    parser.add_argument("--json", action="store_true", help=t("latency.json-help"))


def report(path, gpu=GPU, cpu=CPU, kv_bytes_per_token=KV_BYTES_PER_TOKEN, question_tokens=QUESTION_TOKENS):
    """Everything `kvlab latency` prints, as one JSON-ready dict."""
    from .paths import is_stand_in
    records = _read(path)
    model, quality = fit(records, gpu, cpu, kv_bytes_per_token, question_tokens)
    return {"source": str(path), "stand_in": is_stand_in(path), "model": model.as_dict(), "fit": quality,
            "bandwidth_gb_s": model.bandwidth_gb_s,
            "step7_prediction": predict_cpu_sweep(model, gpu=gpu)}


def run(args):
    from .paths import ttft_source
    path = args.ttft or ttft_source()
    result = report(path, args.gpu, args.cpu, args.kv_bytes_per_token, args.question_tokens)
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    model = LatencyModel.from_dict(result["model"])
    print(t("latency.source-stand-in" if result["stand_in"] else "latency.source", path=path))
    print(t("latency.fit-line", n=result["fit"]["requests"], rms=result["fit"]["rms_ms"]))
    print(t("latency.prefill-line", fixed=model.prefill_fixed_ms, per_token=model.prefill_ms_per_token))
    bandwidth = result["bandwidth_gb_s"]
    print(t("latency.load-line", fixed=model.load_fixed_ms,
            bandwidth="-" if bandwidth is None else f"{bandwidth:.2f}", kv=model.kv_bytes_per_token))
    print(t("latency.write-line", fixed=model.write_fixed_ms, per_token=model.write_ms_per_token))
    if result["fit"]["fixed_at_zero"]:
        print(t("latency.fixed-at-zero", names=", ".join(result["fit"]["fixed_at_zero"])))
    if result["stand_in"]:
        print(t("latency.bandwidth-stand-in"))
    print(t("latency.step7-title", gpu=args.gpu, docs=lab.DOCS, tokens=lab.TOKENS))
    for cpu, row in result["step7_prediction"].items():
        print(t("latency.step7-row", cpu=int(cpu), misses=row["misses"], p50=row["p50_ms"], mean=row["mean_ms"]))
    return 0


def replaced(model, **changes):
    """A copy of `model` with some parameters changed (dataclasses.replace)."""
    return replace(model, **changes)
