"""Steps 2 and 6: read documents through a KV cache, pass after pass, and print what each pass found.

    python3 scenario.py --passes fwd,fwd > cyclic.json

What the lab text asks of this command:

- Five options, each with its default:
  --gpu 21520 (the GPU tier's capacity, in tokens),
  --cpu 0 (the CPU tier's capacity, in tokens; 0 means no CPU tier; added in step 6),
  --docs 10 (how many documents),
  --tokens 5011 (the size of each document, in tokens),
  --passes fwd,fwd,rev (the passes, in order, separated by commas).
- Documents 0 … docs-1 are the keys. Each has the size `tokens`.
- A fwd pass reads the documents from 0 upward. A rev pass reads them from docs-1 downward.
- All passes share ONE cache. It is made once, before the first pass, and never cleared.
- Stdout is exactly one JSON document, with one object per pass, in the order of --passes:
  {"passes": [{"order": "fwd", "gpu_hits": 0, "cpu_hits": 0, "misses": 10, "hit_docs": []}, ...]}
  - "order": the pass, "fwd" or "rev".
  - "gpu_hits": the documents found in the GPU tier.
  - "cpu_hits": the documents loaded from the CPU tier (0 without a CPU tier).
  - "misses": the documents found in no tier.
  - "hit_docs": the documents found in either tier, in the order the pass read them.
- Nothing else goes to stdout: the grader reads it as JSON.
- Without --cpu, or with --cpu 0, the output is exactly what step 2 prints.

Standard library only: next to its kvsim.py, this file runs as a plain script.
"""
import argparse
import json
import sys

try:
    from .kvsim import LRUCache, TwoTierCache  # LRUCache for step 2, TwoTierCache from step 6 on
except ImportError:  # run as a script, or copied alone beside kvsim.py
    from kvsim import LRUCache, TwoTierCache  # noqa: F401 (LRUCache: the student's step 2)

# The lab's defaults (the lab text, step 2).
GPU, CPU, DOCS, TOKENS, PASSES = 21520, 0, 10, 5011, ("fwd", "fwd", "rev")


def read_order(order, docs):
    """The document ids in the order one pass reads them: "fwd" 0 … docs-1, "rev" docs-1 … 0."""
    # Step 2: return the list of ids for a "fwd" or a "rev" pass; raise ValueError for any other name.
    # BEGIN SOLUTION
    upward = list(range(docs))  # 0, 1, ..., docs-1
    if order == "fwd":
        return upward
    if order == "rev":
        return upward[::-1]
    raise ValueError(f"{order!r} is not a pass: a pass is fwd or rev")
    # END SOLUTION


def run(gpu=GPU, cpu=CPU, docs=DOCS, tokens=TOKENS, passes=PASSES):
    """Read documents 0 … docs-1, each of `tokens` tokens, pass after pass through ONE cache.

    Returns {"passes": [one dict per pass, in order]}, the document the command prints. Each dict has
    the keys "order", "gpu_hits", "cpu_hits", "misses" and "hit_docs", in this order.
    """
    # Step 2: make one LRUCache(gpu) before the first pass; a hit is a gpu_hit. Step 6: make a
    # TwoTierCache(gpu, cpu) instead, and count each answer of its access(): "gpu", "cpu" or "miss".
    # Then, for each pass, read every document of its order with the size `tokens`, and count.
    # BEGIN SOLUTION
    if docs < 1:
        raise ValueError(f"docs must be at least 1, got {docs}")
    if not passes:
        raise ValueError("passes must name at least one pass")
    orders = [read_order(order, docs) for order in passes]  # a bad pass name stops the run before any read
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
    # END SOLUTION


def main(argv=None):
    """The command: read the options from `argv` (sys.argv[1:] when None), run, and print one JSON document."""
    # Step 2: parse the options with their defaults (argparse), run the scenario, and print its JSON.
    # From step 6 on, --cpu too. A bad option: one line on stderr, and a non-zero exit status.
    # BEGIN SOLUTION
    parser = argparse.ArgumentParser(prog="scenario.py", usage=argparse.SUPPRESS,  # errors in one line
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--gpu", type=int, default=GPU, help=f"GPU capacity in tokens (default {GPU})")
    parser.add_argument("--cpu", type=int, default=CPU, help=f"CPU capacity in tokens, 0: no CPU tier (default {CPU})")
    parser.add_argument("--docs", type=int, default=DOCS, help=f"number of documents (default {DOCS})")
    parser.add_argument("--tokens", type=int, default=TOKENS, help=f"size of each document in tokens (default {TOKENS})")
    parser.add_argument("--passes", default=",".join(PASSES),
                        help=f"passes, each fwd or rev, separated by commas (default {','.join(PASSES)})")
    args = parser.parse_args(argv)
    passes = args.passes.split(",")
    for option, smallest in (("gpu", 0), ("cpu", 0), ("docs", 1), ("tokens", 0)):
        if getattr(args, option) < smallest:
            parser.error(f"argument --{option}: {getattr(args, option)} is less than {smallest}")
    if not set(passes) <= {"fwd", "rev"}:
        parser.error(f"argument --passes: {args.passes!r}: each pass must be fwd or rev")
    result = run(args.gpu, args.cpu, args.docs, args.tokens, passes)
    sys.stdout.write(json.dumps(result) + "\n")
    # END SOLUTION


if __name__ == "__main__":
    main()
