import argparse
import json

from kvsim import TwoTierCache

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=21520)
parser.add_argument("--cpu", type=int, default=0)
parser.add_argument("--docs", type=int, default=10)
parser.add_argument("--tokens", type=int, default=5011)
parser.add_argument("--passes", default="fwd,fwd,rev")
args = parser.parse_args()

cache = TwoTierCache(args.gpu, args.cpu)
passes = []
for order in args.passes.split(","):
    docs = range(args.docs) if order == "fwd" else range(args.docs - 1, -1, -1)
    result = {"order": order, "gpu_hits": 0, "cpu_hits": 0, "misses": 0, "hit_docs": []}
    for doc in docs:
        where = cache.access(doc, args.tokens)
        if where == "miss":
            result["misses"] += 1
        else:
            result[where + "_hits"] += 1
            result["hit_docs"].append(doc)
    passes.append(result)
print(json.dumps({"passes": passes}))
