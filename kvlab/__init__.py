"""kvlab: a teaching lab about KV-cache offloading in LLM serving.

The lab's three scripts are modules here and also run alone: kvsim.py (the caches), scenario.py
(passes over documents, and the capacity sweeps) and summarize.py (the TTFT measurement).
artifacts.py writes the lab's six JSON files; cli.py is the `kvlab` command.
"""
from . import kvsim, scenario, summarize
from .kvsim import CacheInfo, LRUCache, TwoTierCache
from .scenario import cpu_cliff, gpu_cliff, run

__version__ = "0.1.0"
__all__ = ["kvsim", "scenario", "summarize", "CacheInfo", "LRUCache", "TwoTierCache",
           "run", "gpu_cliff", "cpu_cliff", "__version__"]
