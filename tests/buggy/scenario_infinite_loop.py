# BUG: a rev pass never ends.
"""Read documents through a GPU (+ optional CPU) KV cache, pass after pass, and count hits.

    python3 scenario.py --passes fwd,fwd > cyclic.json

Stdout is exactly one JSON document, one object per pass:
{"passes": [{"order": "fwd", "gpu_hits": 0, "cpu_hits": 0, "misses": 10, "hit_docs": []}, ...]}
Standard library only: next to its kvsim.py, this file runs as a plain script.
"""
import argparse
import json
import sys

try:
    from .kvsim import TwoTierCache
except ImportError:  # run as a script, or copied alone beside kvsim.py
    from kvsim import TwoTierCache

GPU, CPU, DOCS, TOKENS, PASSES = 21520, 0, 10, 5011, ("fwd", "fwd", "rev")
ORDERS = ("fwd", "rev")


def read_order(order, docs):
    """Document ids in the order a pass reads them."""
    if order == "fwd":
        return list(range(docs))
    if order == "rev":
        while True:
            pass
    raise ValueError(f"unknown pass {order!r} (expected one of {', '.join(ORDERS)})")


def run(gpu=GPU, cpu=CPU, docs=DOCS, tokens=TOKENS, passes=PASSES):
    """Run every pass through one shared cache (never cleared) and count what each pass hit."""
    if docs < 1:
        raise ValueError(f"docs must be >= 1, got {docs}")
    if not passes:
        raise ValueError("passes must name at least one pass")
    orders = [read_order(order, docs) for order in passes]  # reject a bad pass before any work
    cache = TwoTierCache(gpu, cpu)
    results = []
    for order, doc_ids in zip(passes, orders):
        counts = {"order": order, "gpu_hits": 0, "cpu_hits": 0, "misses": 0, "hit_docs": []}
        for doc in doc_ids:
            tier = cache.access(doc, tokens)
            if tier == "miss":
                counts["misses"] += 1
            else:
                counts[f"{tier}_hits"] += 1
                counts["hit_docs"].append(doc)
        results.append(counts)
    return {"passes": results}


def gpu_cliff(capacities, **scenario):
    """Step 4: second-pass hits (GPU + CPU) for each GPU capacity, keyed by the capacity as a string."""
    scenario.setdefault("passes", ("fwd", "fwd"))
    cliff = {}
    for gpu in capacities:
        second = run(gpu=gpu, **scenario)["passes"][1]
        cliff[str(gpu)] = second["gpu_hits"] + second["cpu_hits"]
    return cliff


def cpu_cliff(capacities, gpu=GPU, **scenario):
    """Step 7: second-pass misses for each CPU capacity at a fixed GPU capacity."""
    scenario.setdefault("passes", ("fwd", "fwd"))
    return {str(cpu): run(gpu=gpu, cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}


def to_json(document):
    """The exact text the lab's JSON files hold: one line, then a newline."""
    return json.dumps(document) + "\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")  # one line, no usage block


def _count(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is below the minimum {minimum}")
        return value
    return parse


def _passes(text):
    names = [name.strip() for name in text.split(",")]
    if names == [""]:
        raise argparse.ArgumentTypeError("the pass list is empty")
    for name in names:
        if name not in ORDERS:
            raise argparse.ArgumentTypeError(f"unknown pass {name!r} (expected fwd or rev)")
    return tuple(names)


def main(argv=None):
    parser = _Parser(prog="scenario.py", description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", type=_count(0), default=GPU, help=f"GPU capacity in tokens (default {GPU})")
    parser.add_argument("--cpu", type=_count(0), default=CPU, help=f"CPU capacity in tokens, 0 = no CPU tier (default {CPU})")
    parser.add_argument("--docs", type=_count(1), default=DOCS, help=f"number of documents (default {DOCS})")
    parser.add_argument("--tokens", type=_count(0), default=TOKENS, help=f"KV size of one document in tokens (default {TOKENS})")
    parser.add_argument("--passes", type=_passes, default=PASSES,
                        help=f"comma-separated passes, each fwd or rev (default {','.join(PASSES)})")
    args = parser.parse_args(argv)
    sys.stdout.write(to_json(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)))


if __name__ == "__main__":
    main()
