"""kvlab: a teaching lab about KV-cache offloading in LLM serving.

The lab's three scripts are modules here and also run alone: kvsim.py (the caches), scenario.py
(passes over documents, and the capacity sweeps) and summarize.py (the TTFT measurement).
artifacts.py writes the lab's six JSON files; cli.py is the `kvlab` command.
"""
import importlib

from .kvsim import CacheInfo, LRUCache, TwoTierCache

__version__ = "0.1.0"
__all__ = ["CacheInfo", "LRUCache", "TwoTierCache", "run", "gpu_cliff", "cpu_cliff", "__version__"]

_FROM_SCENARIO = ("run", "gpu_cliff", "cpu_cliff")


def __getattr__(name):
    # Imported on first use, not here: `python -m kvlab.scenario` must find the module not yet loaded.
    if name in _FROM_SCENARIO:
        return getattr(importlib.import_module(".scenario", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
