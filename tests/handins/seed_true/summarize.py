import json
import statistics
import sys

ttfts = {"baseline": {}, "lmcache": {}}
with open(sys.argv[1]) as f:
    for line in f:
        if not line.strip():
            continue
        r = json.loads(line)
        ttfts[r["config"]].setdefault(r["pass"], []).append(r["ttft_ms"])

out = {"baseline": {}, "lmcache": {}, "ratio": {}}
for config, passes in ttfts.items():
    for name, values in passes.items():
        out[config][name] = {"n": len(values), "p50_ms": round(statistics.median(values), 1),
                             "mean_ms": round(statistics.mean(values), 1)}
for name in ttfts["baseline"]:
    if name in ttfts["lmcache"]:
        b, l = ttfts["baseline"][name], ttfts["lmcache"][name]
        out["ratio"][name] = {"p50": round(statistics.median(b) / statistics.median(l), 2),
                              "mean": round(statistics.mean(b) / statistics.mean(l), 2)}

with open(sys.argv[2], "w") as f:
    json.dump(out, f, indent=2)
