# BUG: run() returns JSON text, not the dict.
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
    from .kvsim import LRUCache, TwoTierCache  # LRUCache for step 2, TwoTierCache from step 6 on
except ImportError:  # run as a script, or copied alone beside kvsim.py
    from kvsim import LRUCache, TwoTierCache  # noqa: F401 (LRUCache: the student's step 2)

# The lab's defaults (the lab text, step 2). The lab text gives 21,520 tokens of GPU KV cache and
# 5,011-token documents as the defaults and says nothing more about where they come from. What
# follows from them: 21,520 // 5,011 = 4 documents fit in the GPU, and ten documents need 50,110.
GPU, CPU, DOCS, TOKENS, PASSES = 21520, 0, 10, 5011, ("fwd", "fwd", "rev")
ORDERS = ("fwd", "rev")
MAX_DOCS = 1_000_000  # the bound of --docs: a million take seconds already; a billion would not fit in memory


def read_order(order, docs):
    """Document ids in the order a pass reads them."""
    if order == "fwd":
        return list(range(docs))
    if order == "rev":
        return list(reversed(range(docs)))
    raise ValueError(f"unknown pass {order!r} (expected one of {', '.join(ORDERS)})")


def run(gpu=GPU, cpu=CPU, docs=DOCS, tokens=TOKENS, passes=PASSES):
    """Read documents 0 .. docs-1 (each `tokens` in size) pass after pass through ONE cache; count per pass.

    Returns {"passes": [one dict per pass, in order]}. Each dict has these keys, in this order:
    "order" (the pass, "fwd" or "rev"), "gpu_hits" (documents found in the GPU tier), "cpu_hits"
    (documents loaded from the CPU tier; 0 without one), "misses" (documents found nowhere), and
    "hit_docs" (the ids of the documents found in either tier, in the order the pass read them).
    The cache is made once, before the first pass, and never cleared.
    """
    if docs < 1:
        raise ValueError(f"docs must be >= 1, got {docs}")
    if not passes:
        raise ValueError("passes must name at least one pass")
    orders = [read_order(order, docs) for order in passes]  # reject a bad pass before any work
    # Step 2 (and step 6): make the cache once: LRUCache(gpu) in step 2, where a hit is a
    # gpu_hit; TwoTierCache(gpu, cpu) from step 6 on, whose access() says "gpu", "cpu" or "miss".
    # Then for each pass, access every document of its order with size `tokens`, and count.
    # BEGIN SOLUTION
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
    return json.dumps({"passes": results})
    # END SOLUTION


def gpu_cliff(capacities, **scenario):
    """Step 4: {str(capacity): second-pass hits} for each GPU capacity, in the order given.

    The hits of the second pass are its gpu_hits + cpu_hits. The keys are the capacities as
    strings ("21520", not 21520), as cliff.json holds them. `scenario` holds any other run()
    arguments (cpu, docs, tokens, passes); the passes are fwd,fwd unless it names others.
    """
    scenario.setdefault("passes", ("fwd", "fwd"))
    # Step 4: for each capacity, call run() with that GPU capacity and the `scenario` arguments,
    # and put the second pass's gpu_hits + cpu_hits under the key str(capacity).
    # BEGIN SOLUTION
    cliff = {}
    for gpu in capacities:
        second = run(gpu=gpu, **scenario)["passes"][1]
        cliff[str(gpu)] = second["gpu_hits"] + second["cpu_hits"]
    return cliff
    # END SOLUTION


def cpu_cliff(capacities, gpu=GPU, **scenario):
    """Step 7: {str(capacity): second-pass misses} for each CPU capacity, at a fixed GPU capacity.

    The keys are the CPU capacities as strings, as cpu_cliff.json holds them, in the order given.
    `scenario` holds any other run() arguments (docs, tokens, passes); the passes are fwd,fwd
    unless it names others.
    """
    scenario.setdefault("passes", ("fwd", "fwd"))
    # Step 7: for each capacity, call run() with gpu=gpu, that CPU capacity and the `scenario`
    # arguments, and put the second pass's misses under the key str(capacity).
    # BEGIN SOLUTION
    return {str(cpu): run(gpu=gpu, cpu=cpu, **scenario)["passes"][1]["misses"] for cpu in capacities}
    # END SOLUTION


def to_json(document):
    """The exact text the lab's JSON files hold: one line, then a newline."""
    return json.dumps(document) + "\n"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")  # one line, no usage block


def _count(minimum, maximum=None):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is below the minimum {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{value} is above the maximum {maximum:,}")
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
    parser.add_argument("--docs", type=_count(1, MAX_DOCS), default=DOCS,
                        help=f"number of documents, at most {MAX_DOCS:,} (default {DOCS})")
    parser.add_argument("--tokens", type=_count(0), default=TOKENS, help=f"KV size of one document in tokens (default {TOKENS})")
    parser.add_argument("--passes", type=_passes, default=PASSES,
                        help=f"comma-separated passes, each fwd or rev (default {','.join(PASSES)})")
    args = parser.parse_args(argv)
    sys.stdout.write(to_json(run(args.gpu, args.cpu, args.docs, args.tokens, args.passes)))


if __name__ == "__main__":
    main()
