"""A real engine on this machine's CPU: llama.cpp serving a tiny random-weight model, measured as the lab measures.

    python -m kvlab engine                   # OUT/ttft-cpu.jsonl: baseline, then lmcache, written whole
    python -m kvlab engine --tokens 5011     # the lab's document length (about 2.5x as long)

Nothing is downloaded. The model is written here (kvlab/engine.py's write_model: a Llama-architecture GGUF of
4 layers, 512 wide, random weights, one token per ASCII character), once, into the cache folder. TTFT does
not depend on what the model says, only on how much of the prompt it must compute. Then llama.cpp's
OpenAI-compatible server (llama-cpp-python's `llama_cpp.server`) runs twice on 127.0.0.1:

- **baseline**: no RAM cache. Only the live context is kept: the document just read, reused when the next
  prompt starts with it. That is a GPU tier of one document.
- **lmcache**: with llama.cpp's RAM cache (`--cache true --cache_type ram`) sized in documents: the
  offload tier. By default it holds 4 of the 10 documents (--cache-docs), fewer than the documents, as
  the lab's GPU holds 4 of 10: the replay pass recomputes every document (a cyclic scan defeats an LRU)
  and the reverse pass splits, 1 reuse + 3 restores + 6 recomputes. Its lookup accepts any shared prefix, even the first token alone, and then promotes an
  unrelated entry; and each request adds an entry keyed by prompt + completion. StrictRAMCache (below)
  requires 256 shared tokens and keeps one entry per document, which makes it an exact LRU.

`kvlab measure` records each run (its documents, questions and passes), and each request is compared with
the simulator: kvsim.TwoTierCache with a GPU tier of one document (the live context) and a CPU tier of the
RAM cache's documents (none for the baseline). That agreement tests slow against fast only: whether a
reuse of the live context and a restore from the RAM cache also stand apart is said separately (on this
CPU they overlap: the engine shows recompute against reuse, not a GPU tier against a CPU tier). The
figure, OUT's name with .png, shows every request coloured by the simulator's outcome (needs matplotlib). A miss is a recompute (seconds); a hit restores a saved
state or reuses the live one (milliseconds). Beside OUT, OUT's name with .settings.json (ttft-cpu.settings.json)
says how it was recorded: documents, tokens (and that they are shorter than the lab's), the RAM cache in
documents, threads, llama.cpp's version and the model; notebook 06 reads both.
Needs the extra `engine` (llama-cpp-python with its server, built from source: cmake and a C/C++ compiler).
"""
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from . import lab
from .errors import UserError
from .i18n import t

LAYERS, WIDTH, HEADS, FFN, CONTEXT = 4, 512, 8, 1376, 8192
MIN_SHARED = 256          # tokens a RAM-cache entry must share with a prompt to be its document's
TOKENS = 2000             # the default document length: the lab's 5,011 takes about 2.5x as long on a CPU
MAX_TOKENS = 4            # output tokens per request: TTFT is what is measured
CACHE_DOCS = 4            # the RAM cache's documents by default: fewer than the documents, as the lab's GPU (4 of 10)
STATE_BYTES_PER_TOKEN = 2 * LAYERS * WIDTH * 2 + 12   # one saved state: K and V in f16, per token, and a little
MODEL_NAME = "kvlab-tiny-random.gguf"
START_SECONDS = 120.0


def vocabulary():
    """One token per printable ASCII character (SentencePiece's ▁ for the space), and newline: exact counts."""
    return ["<unk>", "<s>", "</s>", "\u2581"] + [chr(code) for code in range(33, 127)] + ["\n"]


def write_model(path, seed=0):
    """Write the tiny random-weight Llama GGUF at `path` (whole or not at all); its size in bytes."""
    import numpy as np
    from gguf import GGUFWriter

    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    vocab = vocabulary()
    writer = GGUFWriter(str(partial), "llama")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(WIDTH)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(vocab)
    writer.add_token_scores([0.0] * len(vocab))
    writer.add_token_types([2, 3, 3] + [1] * (len(vocab) - 3))  # unknown, control (BOS, EOS), normal
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    rng = np.random.default_rng(seed)

    def weights(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float16)

    writer.add_tensor("token_embd.weight", weights(len(vocab), WIDTH))  # the output reuses it (tied)
    writer.add_tensor("output_norm.weight", np.ones(WIDTH, np.float32))
    for layer in range(LAYERS):
        block = f"blk.{layer}."
        writer.add_tensor(block + "attn_norm.weight", np.ones(WIDTH, np.float32))
        for name in ("q", "k", "v", "output"):
            writer.add_tensor(block + f"attn_{name}.weight", weights(WIDTH, WIDTH))
        writer.add_tensor(block + "ffn_norm.weight", np.ones(WIDTH, np.float32))
        writer.add_tensor(block + "ffn_gate.weight", weights(FFN, WIDTH))
        writer.add_tensor(block + "ffn_up.weight", weights(FFN, WIDTH))
        writer.add_tensor(block + "ffn_down.weight", weights(WIDTH, FFN))
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path.stat().st_size


def parameters():
    per_layer = 4 * WIDTH * WIDTH + 3 * WIDTH * FFN + 2 * WIDTH
    return len(vocabulary()) * WIDTH + WIDTH + LAYERS * per_layer


def model_path(folder=None):
    """The model file, written if it is not there yet (in $XDG_CACHE_HOME/kvlab, else ~/.cache/kvlab)."""
    folder = Path(folder or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kvlab"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MODEL_NAME
    if not path.is_file():
        write_model(path)
    return path


def strict_cache_class():
    """llama_cpp.LlamaRAMCache made an exact LRU of documents (see the module docstring)."""
    import llama_cpp

    class StrictRAMCache(llama_cpp.LlamaRAMCache):
        def _find_longest_prefix_key(self, key):
            best, longest = None, MIN_SHARED - 1
            for stored in self.cache_state:
                shared = llama_cpp.Llama.longest_token_prefix(stored, key)
                if shared > longest:
                    best, longest = stored, shared
            return best

        def __setitem__(self, key, value):
            key = tuple(key)
            for stored in [stored for stored in self.cache_state
                           if llama_cpp.Llama.longest_token_prefix(stored, key) >= MIN_SHARED]:
                del self.cache_state[stored]  # the same document's older entry: one entry per document
            self.cache_state[key] = value
            while self.cache_size > self.capacity_bytes and self.cache_state:
                self.cache_state.popitem(last=False)  # the least recently used document
    return StrictRAMCache


def serve_main(argv):
    """`python -m kvlab.engine SERVER-ARGS`: llama_cpp.server with the strict RAM cache."""
    import llama_cpp
    llama_cpp.LlamaRAMCache = strict_cache_class()  # what llama_cpp.server's --cache_type ram builds
    from llama_cpp.server.__main__ import main
    sys.argv = ["llama_cpp.server", *argv]
    main()


def free_port():
    """A free port of 127.0.0.1, chosen by the system (used at once, never retried)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cache_bytes(cache_docs, tokens):
    """The RAM cache's size for `cache_docs` documents of `tokens` (question and answer included), plus half a
    document: room for exactly that many entries, never one more."""
    return int((cache_docs + 0.5) * STATE_BYTES_PER_TOKEN * (tokens + 100))


class Server:
    """llama.cpp's server in a child process, on a free port of 127.0.0.1, until close()."""

    def __init__(self, model, threads, cache_docs, tokens, log):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = ["--model", str(model), "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(CONTEXT),
                "--n_threads", str(threads), "--n_threads_batch", str(threads), "--verbose", "false"]
        if cache_docs:
            args += ["--cache", "true", "--cache_type", "ram", "--cache_size", str(cache_bytes(cache_docs, tokens))]
        self.process = subprocess.Popen([sys.executable, "-m", "kvlab.engine", *args], stdout=log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._wait_ready()

    def _wait_ready(self):
        import httpx
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise UserError(t("engine.server-died", code=self.process.returncode))
            try:
                if httpx.get(f"{self.url}/v1/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.close()
        raise UserError(t("engine.server-slow", seconds=START_SECONDS))

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def predicted(config, cache_docs, docs, tokens, orders):
    """The simulator's outcome of each request: GPU = the live context (one document), CPU = the RAM cache."""
    from .latency import outcomes
    cpu = cache_docs * tokens if config != "baseline" else 0
    return [outcome for _, _, outcome in outcomes(tokens, cpu, docs, tokens, orders)]


def recompute_split(ttfts):
    """The TTFT between the fast and the slow group: where the sorted values jump the most (as a ratio)."""
    ordered = sorted(ttfts)
    if len(ordered) < 2:
        return None
    jump, where = max((ordered[index + 1] / max(ordered[index], 1e-9), index) for index in range(len(ordered) - 1))
    return (ordered[where] * ordered[where + 1]) ** 0.5 if jump >= 4 else None


def compare(records, cache_docs, docs, tokens, orders):
    """{config: (agree, total, groups)}: each request's measured group against the simulator's outcome.

    groups: {outcome: (least, most) ms} of the requests the simulator names so (recompute = miss; restore =
    cpu; reuse = gpu). A request agrees when it is in the slow group exactly when the simulator says miss."""
    split = recompute_split([record["ttft_ms"] for record in records])
    found = {}
    for config in dict.fromkeys(record["config"] for record in records):
        mine = [record for record in records if record["config"] == config]
        outcomes = predicted(config, cache_docs, docs, tokens, orders)
        agree = sum(1 for record, outcome in zip(mine, outcomes)
                    if split is not None and (record["ttft_ms"] > split) == (outcome == "miss"))
        groups = {}
        for record, outcome in zip(mine, outcomes):
            low, high = groups.get(outcome, (record["ttft_ms"], record["ttft_ms"]))
            groups[outcome] = (min(low, record["ttft_ms"]), max(high, record["ttft_ms"]))
        found[config] = (agree, len(mine), groups)
    return found


FILE = "ttft-cpu.jsonl"    # in the output folder ($KVLAB_OUT, else artifacts/), where notebook 06 looks


def default_out():
    from .paths import out_dir
    return out_dir() / FILE


def settings_path(out):
    """The settings file beside a recorded file: ttft-cpu.jsonl -> ttft-cpu.settings.json."""
    from .measure import settings_path as beside
    return beside(out)


def summary(records, cache_docs, docs, tokens, orders):
    """[{config, agree, total, groups}] of compare(), each config's groups as one phrase (its catalog's words)."""
    found = []
    for config, (agree, total, groups) in compare(records, cache_docs, docs, tokens, orders).items():
        counts = predicted(config, cache_docs, docs, tokens, orders)
        phrases = [t(f"engine.group-{outcome}", low=low, high=high, n=counts.count(outcome))
                   for outcome, (low, high) in sorted(groups.items(), key=lambda item: -item[1][1])]
        found.append({"config": config, "agree": agree, "total": total, "groups": t("nb.06.list-comma").join(phrases),
                      "tells": tells(groups)})
    return found


def tells(groups):
    """What a config's groups can tell apart, in words: the agreement above only tests slow against fast."""
    fast = {outcome: span for outcome, span in groups.items() if outcome != "miss"}
    if "miss" not in groups or not fast:
        return t("engine.tells-one-group")
    if set(fast) == {"gpu", "cpu"}:
        (gpu_low, gpu_high), (cpu_low, cpu_high) = fast["gpu"], fast["cpu"]
        if gpu_high < cpu_low or cpu_high < gpu_low:
            return t("engine.tells-all", gpu_low=gpu_low, gpu_high=gpu_high, cpu_low=cpu_low, cpu_high=cpu_high)
        return t("engine.tells-overlap", gpu_low=gpu_low, gpu_high=gpu_high, cpu_low=cpu_low, cpu_high=cpu_high)
    return t("engine.tells-recompute", kind=t(f"engine.kind-{next(iter(fast))}"))


def figure_path(out):
    """The engine's figure beside its file: ttft-cpu.jsonl -> ttft-cpu.png."""
    out = Path(out)
    return out.with_name(f"{out.name.removesuffix('.jsonl')}.png")


def draw(records, cache_docs, docs, tokens, orders, path):
    """Every request's TTFT in read order, one panel per config, log scale, coloured by the simulator's outcome
    (recompute, restore, reuse); saved whole at `path`. Needs matplotlib (ModuleNotFoundError without it)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from . import fonts, plots
    fonts.use()
    configs = list(dict.fromkeys(record["config"] for record in records))
    fig, axes = plt.subplots(1, len(configs), figsize=(5.2 * len(configs), 4.2), sharey=True, squeeze=False)
    names = [name for name in dict.fromkeys(record["pass"] for record in records)]
    for ax, config in zip(axes[0], configs):
        mine = [record for record in records if record["config"] == config]
        outcomes = predicted(config, cache_docs, docs, tokens, orders)
        xs = [index + names.index(record["pass"]) for index, record in enumerate(mine)]  # a gap between passes
        ax.scatter(xs, [record["ttft_ms"] for record in mine], c=[plots.TIER_COLORS[o] for o in outcomes], s=40,
                   marker=plots.MARKERS.get(config, "o"), edgecolors="black", linewidths=0.4, zorder=3)
        for number, name in enumerate(names):
            first = next(x for x, record in zip(xs, mine) if record["pass"] == name)
            ax.text(first, 1.01, name, transform=ax.get_xaxis_transform(), fontsize=8, va="bottom")
            if number:
                ax.axvline(first - 1, color="0.6", linewidth=1)
        cache = t("engine.cache-none") if config == "baseline" else t("engine.cache-docs", docs=cache_docs)
        ax.set_title(f"{config}: {cache}", fontsize=9, pad=16)
        ax.set(yscale="log", xlabel=t("engine.figure-x"))
        ax.set_xticks([])
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel(t("notebook.plot-request-y"))
    handles = [Line2D([], [], marker="o", linestyle="", markerfacecolor=plots.TIER_COLORS[outcome],
                      markeredgecolor="black", label=t(f"engine.kind-{outcome}")) for outcome in ("miss", "cpu", "gpu")]
    fig.legend(handles=handles, loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.06), frameon=False)
    fig.suptitle(t("engine.figure-title", docs=docs, tokens=tokens), fontsize=10, y=1.04)
    import io
    from .files import write_atomically
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    write_atomically(path, buffer.getvalue())


def add_arguments(parser):
    parser.add_argument("out", metavar="OUT", nargs="?", help=t("engine.out-help", file=FILE))
    parser.add_argument("--docs", type=int, default=lab.DOCS, help=t("measure.docs-help", default=lab.DOCS))
    parser.add_argument("--tokens", type=int, default=TOKENS, help=t("engine.tokens-help", default=TOKENS))
    parser.add_argument("--cache-docs", type=int, default=CACHE_DOCS,
                        help=t("engine.cache-docs-help", default=CACHE_DOCS))
    parser.add_argument("--threads", type=int, default=min(4, os.cpu_count() or 1),
                        help=t("engine.threads-help"))
    parser.add_argument("--model", help=t("engine.model-help"))
    parser.add_argument("--timeout", type=float, default=600.0, help=t("measure.timeout-help", default=600))
    parser.add_argument("--force", action="store_true", help=t("measure.force-help"))


def run(args):
    try:
        import gguf  # noqa: F401
        import httpx  # noqa: F401
        import llama_cpp.server  # noqa: F401
    except ModuleNotFoundError as error:
        raise UserError(t("engine.needs", name=error.name)) from None
    from . import measure
    if not 1 <= args.docs <= len(measure.FIRST_WORDS) or args.tokens < 2 * MIN_SHARED or args.cache_docs < 1 \
            or args.threads < 1 or args.tokens + 200 > CONTEXT:
        raise UserError(t("engine.bad-args", least=2 * MIN_SHARED, most=CONTEXT - 200))
    if args.out is None:  # the output folder, made if it is not there yet (a given OUT's folder must exist)
        args.out = str(default_out())
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    before, _ = measure.existing(args.out, "baseline", args.force, append=False)
    settings_file = settings_path(args.out)
    if settings_file.exists() and not args.force and before is None:  # a settings file without its records
        raise UserError(t("measure.other-content", path=settings_file))
    model = Path(args.model) if args.model else model_path()
    import llama_cpp
    print(t("engine.model", version=llama_cpp.__version__, layers=LAYERS, width=WIDTH, params=parameters() / 1e6,
            mb=model.stat().st_size / 1e6, path=model, threads=args.threads), flush=True)
    if args.tokens != lab.TOKENS:
        print(t("engine.shorter", tokens=args.tokens, lab=lab.TOKENS), flush=True)
    orders, records, logs = lab.FWD_FWD_REV, [], []
    for config, cache_docs in (("baseline", 0), ("lmcache", args.cache_docs)):
        log = open(Path(args.out).with_name(f".{Path(args.out).name}.{config}.log"), "wb")
        logs.append(log)
        started = time.perf_counter()
        server = Server(model, args.threads, cache_docs, args.tokens, log)
        try:
            client = measure.Client(server.url, args.timeout)
            try:
                name, _ = client.model()
                if client.find_tokenizer(name) is None:  # llama.cpp's /extras/tokenize: exact lengths
                    raise UserError(t("engine.no-tokenizer"))
                progress = measure._progress(args.docs * len(orders), config)
                try:
                    records += measure.measure(client, name, config, args.docs, args.tokens, MAX_TOKENS, orders, 1,
                                               progress)  # a server just started here: cold
                finally:
                    if progress is not None:
                        progress.close()
            finally:
                client.close()
        finally:
            server.close()
        print(t("engine.config-done", config=config, n=args.docs * len(orders),
                seconds=time.perf_counter() - started,
                cache=t("engine.cache-none") if not cache_docs else t("engine.cache-docs", docs=cache_docs)),
              flush=True)
    for log in logs:
        log.close()
        Path(log.name).unlink(missing_ok=True)
    out = Path(args.out)
    if (out.read_bytes() if out.is_file() else None) != before:
        raise UserError(t("measure.other-content", path=out))
    from .files import write_atomically
    lines = [json.dumps({field: record[field] for field in measure.FIELDS}) for record in records]
    tokens = max(record["doc_tokens"] for record in records)  # as the tokenizer counted them
    extras = {config: [{key: value for key, value in record.items() if key not in measure.FIELDS or key in ("pass", "doc")}
                       for record in records if record["config"] == config] for config in ("baseline", "lmcache")}
    settings = {"format": measure.SETTINGS_FORMAT, "made_by": "kvlab engine", "docs": args.docs, "tokens": args.tokens,
                "doc_tokens": tokens, "passes": measure.pass_names(orders), "orders": list(orders),
                "lab_doc_tokens": lab.TOKENS, "cache_docs": args.cache_docs, "live_context_docs": 1,
                "threads": args.threads, "llama_cpp": llama_cpp.__version__, "model": model.name,
                "strict_prefix_tokens": MIN_SHARED, "warmup": 1, "warmup_kind": "separate-document",
                "max_tokens": MAX_TOKENS, "concurrency": 1, "ttft": measure.TTFT_DEFINITION,
                "kv_bytes_per_token": STATE_BYTES_PER_TOKEN,
                "configs": {config: {"gpu_tokens": tokens, "cpu_tokens": cpu * tokens, "cache_docs": cpu,
                                     "cold": {"checked_by": ["fresh-server"], "warm_docs": []},
                                     "requests": extras[config]}
                            for config, cpu in (("baseline", 0), ("lmcache", args.cache_docs))}}
    if settings["doc_tokens"] != lab.TOKENS:  # the file says so, in the language of the run
        settings["note"] = t("engine.shorter", tokens=settings["doc_tokens"], lab=lab.TOKENS)
    write_atomically(settings_file, (json.dumps(settings, indent=1) + "\n").encode("utf-8"))
    write_atomically(out, ("\n".join(lines) + "\n").encode("utf-8"))
    for line in summary(records, args.cache_docs, args.docs, tokens, orders):
        print(t("engine.agree", **line))
        print(t("engine.tells", config=line["config"], what=line["tells"]))
    figure = figure_path(out)
    try:
        draw(records, args.cache_docs, args.docs, tokens, orders, figure)
        print(t("engine.figure", path=figure))
    except ModuleNotFoundError as error:
        print(t("engine.no-figure", name=error.name))
    print(t("engine.wrote", path=out, n=len(records)))
    return 0


if __name__ == "__main__":
    serve_main(sys.argv[1:])
