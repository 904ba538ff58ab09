"""kvlab: a teaching lab about KV-cache offloading in LLM serving.

The lab's three scripts are the student's files and also run alone: kvsim.py (the caches),
scenario.py (passes over documents) and summarize.py (the TTFT measurement).
Nothing is imported here eagerly: a mistake in a student's file must not stop `import kvlab`,
`python -m kvlab check` or the notebooks from explaining it. `kvlab.LRUCache` and friends load on use.
"""
import importlib

__version__ = "0.2.0"
__all__ = ["LRUCache", "TwoTierCache", "CacheInfo", "run", "__version__"]

_FROM = {"LRUCache": ".kvsim", "TwoTierCache": ".kvsim", "CacheInfo": ".kvsim",
         "run": ".scenario"}


def __getattr__(name):
    if name in _FROM:
        return getattr(importlib.import_module(_FROM[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
