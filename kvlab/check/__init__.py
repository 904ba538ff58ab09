"""Self-checks for the code the lab asks students to write: why it is wrong, not only that it is.

    from kvlab import check
    check.lru_cache(LRUCache)               # step 1
    check.two_tier_cache(TwoTierCache)      # step 5
    check.summarize_function(summarize)     # step 8: summarize(records) -> summary dict
    check.scenario_script("scenario.py")    # steps 2-4, 6, 7: runs the script in a sandbox
    check.summarize_script("summarize.py")  # step 8: runs the script in a sandbox

Each returns a Report: one row per rule with ✓/✗ and, for a failure, a hint naming the misconception
(a table in a notebook, plain lines in a terminal; .passed, .rows and .as_dict() as data). A rule is a
small narrated scenario whose right answer the lab's own code gives; an exception or an endless loop
in the checked code fails that rule only. Scripts run in a temporary copy of their folder with a time
limit and an output cap (kvlab.sandbox).
"""
from .caches import lru_cache, two_tier_cache
from .hints import HINTS
from .report import Report, Row, Wrong
from .scenarios import compare_scenario, scenario_script
from .summaries import compare_summary, summarize_function, summarize_script

__all__ = ["lru_cache", "two_tier_cache", "scenario_script", "summarize_function", "summarize_script",
           "compare_scenario", "compare_summary", "Report", "Row", "Wrong", "HINTS"]
