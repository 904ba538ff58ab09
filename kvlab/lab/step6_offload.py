"""Step 6: scenario.py --cpu and offload.json.

The lab text's contract: --cpu (default 0) gives a CPU tier (TwoTierCache); gpu_hits counts GPU hits,
cpu_hits loads from the CPU, hit_docs holds both; without --cpu, or with 0, the output is step 2's.
Step 6's own code is using the tiers and counting them, so its rules compare the student's command with
itself where step 2's part cannot tell (a mistake of step 2, such as sorted hit_docs, is paid in step 2
only):
- a CPU tier alone (--gpu 0 --cpu C) reads exactly as a GPU of C (--gpu C) does, with its hits counted
  as cpu_hits: the CPU tier is used, its capacity is --cpu's, and its loads count as cpu_hits;
- a GPU that holds every document gives the same with or without --cpu;
- on other scenarios each pass's counts are the lab's (judged when step 2 passes).
If --cpu is refused, or changes nothing at all, step 6 is not written yet.
"""
from . import commands
from .base import Misconception, Plant, Rule, StepSpec, by_size
from .numbers import FWD_FWD_REV, GPU, OFFLOAD_CPU
from .step2_scenario import file_holds, file_view

NUMBER = 6
FILE = "scenario.py"
FIELDS = ("order", "gpu_hits", "cpu_hits", "misses", "hit_docs")

MESSAGES = {
    "step.6.title": "scenario.py --cpu and offload.json",
    "rule.offload.cpu-tier": "A CPU tier alone (--gpu 0 --cpu C) reads as a GPU of C does, its hits counted as cpu_hits.",
    "rule.offload.gpu-first": "A GPU that holds every document: --cpu changes nothing.",
    "rule.offload.counts": "gpu_hits, cpu_hits and misses of each pass, with both tiers.",
    "rule.offload.file": "offload.json is what your scenario.py prints for --gpu 21520 --cpu 56000 --passes fwd,fwd,rev.",
    "hint.cpu-hits-not-in-hit-docs": "hit_docs holds every document found, in either tier: add a document loaded from the CPU too, not only a GPU hit.",
    "hint.cpu-ignored": "--cpu changes nothing yet: the output with --cpu is the output without it. Make the cache once as TwoTierCache(gpu, cpu), with the value of --cpu.",
}


def cases(rng, hidden):
    found = []
    for number, params in enumerate(commands.random_params(rng, 4 if hidden else 6, cpu=True,
                                                           docs=(2, 12) if hidden else (1, 6), big=hidden)):
        tiered = {name: params[name] for name in ("docs", "tokens", "passes")}
        if number % 2:  # the relations on half of them: a mistake of step 6 shows on any
            found.append({"kind": "cpu-tier", **tiered, "cpu": max(params["cpu"], 1)})
        else:
            found.append({"kind": "gpu-first", **tiered, "cpu": params["cpu"]})
        found.append({"kind": "counts", **params})
    for params in commands.reverse_params(rng, 2 if hidden else 3, cpu=True):  # where a CPU tier must change something
        tiered = {name: params[name] for name in ("docs", "tokens", "passes")}
        found.append({"kind": "cpu-tier", **tiered, "cpu": params["gpu"], "gate": True})
    return by_size(found, commands.params_size)


def params(case):
    return {name: case[name] for name in ("gpu", "cpu", "docs", "tokens", "passes") if name in case}


def jobs(case):
    kind, base = case["kind"], {name: case[name] for name in ("docs", "tokens", "passes") if name in case}
    if kind == "artifact":
        return commands.artifact_jobs(case)
    if kind == "cpu-tier":  # a CPU tier alone; a GPU of that size alone; (the first few) no tier at all
        runs = [commands.scenario_job({"gpu": 0, "cpu": case["cpu"], **base}), commands.scenario_job({"gpu": case["cpu"], **base})]
        return runs + ([commands.scenario_job({"gpu": 0, **base})] if case.get("gate") else [])
    if kind == "gpu-first":
        every = case["docs"] * case["tokens"]
        return [commands.scenario_job({"gpu": every, "cpu": case["cpu"], **base}),
                commands.scenario_job({"gpu": every, **base})]
    return [commands.scenario_job(params(case))]


def observe(case, outcomes):
    return {"runs": [commands.observe_run(outcome) for outcome in outcomes]}


def _fields(run):
    return commands.field_view(run, FIELDS)


def cpu_tier_holds(case, got, want):
    tiered, gpu_alone = (_fields(run) for run in got["runs"][:2])
    if not isinstance(tiered, list) or not isinstance(gpu_alone, list) or len(tiered) != len(gpu_alone):
        return False
    return all(t[0] == g[0] and t[1] == 0 and t[2] == g[1] + g[2] and t[3] == g[3] and t[4] == g[4]
               for t, g in zip(tiered, gpu_alone))


def cpu_tier_view(case, obs):
    return [_fields(run) for run in obs["runs"][:2]]


def gpu_first_holds(case, got, want):
    first, second = (_fields(run) for run in got["runs"])
    return isinstance(first, list) and first == second


def gpu_first_view(case, obs):
    return [_fields(run) for run in obs["runs"]]


COUNTED = ("gpu_hits", "cpu_hits", "misses", "hit_docs")


def counts_view(case, obs):
    run = obs["runs"][0]
    found = commands.field_view(run, COUNTED)
    if isinstance(found, list):  # which documents were hit, not in which order: the order is step 2's
        found = [[*one[:3], sorted(one[3], key=repr) if isinstance(one[3], list) else one[3]] for one in found]
    return found


def runs_display(count=None):
    """What a student reads of the runs: for each, one {field: value} per pass."""
    def display(case, obs):
        return [commands.named_fields(run, FIELDS) for run in obs["runs"][:count]]
    return display


def counts_display(case, obs):
    return commands.by_name(counts_view(case, obs), COUNTED)


RULES = (
    Rule("offload.cpu-tier", ("cpu-tier",), cpu_tier_view, points=3, holds=cpu_tier_holds, own=True,
         display=runs_display(2)),
    Rule("offload.gpu-first", ("gpu-first",), gpu_first_view, points=1, holds=gpu_first_holds, own=True,
         display=runs_display()),
    Rule("offload.counts", ("counts",), counts_view, points=2, display=counts_display),
    Rule("offload.file", ("artifact",), file_view, points=1, holds=file_holds, own=True),
)
NEEDS = {"offload.counts": (2,)}   # judged once these steps pass (the counts are theirs too)

MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in (
    "cpu-ignored", "gpu-cpu-swapped", "gpu-cpu-counts", "tier-result-truthy", "cpu-hits-not-in-hit-docs",
    "missing-artifact"))


def absent(case, got):
    """--cpu refused (an unknown option), or changing nothing: step 6 is not written yet."""
    if case["kind"] != "cpu-tier":
        return None
    if len(got["runs"]) < 3:
        return None
    tiered, _, plain = got["runs"]
    stop = tiered["stop"]
    if stop is not None and stop["stop"] == "exit" and stop.get("code") == 2 and plain["stop"] is None:
        return {"stop": "option-refused", "type": None, "at": 0}
    return None


def missing(observed):
    """Step 6 is not written when --cpu changed nothing on any CPU-tier case where a GPU of that size does
    change something (its output is always the one without a CPU tier): {"stop": "cpu-ignored"}, else None."""
    pairs = [(obs["runs"][0], obs["runs"][2]) for case, obs in observed if case["kind"] == "cpu-tier"
             and len(obs["runs"]) == 3 and obs["runs"][1]["stop"] is None and obs["runs"][1]["doc"] != obs["runs"][2]["doc"]]
    if pairs and all(a["stop"] is None and b["stop"] is None and a["doc"] == b["doc"] for a, b in pairs):
        return {"stop": "cpu-ignored", "type": None, "at": 0}
    return None


def artifact_cases(texts):
    return [commands.artifact_case("offload.json", texts.get("offload.json"),
                                   [commands.argv({"gpu": GPU, "cpu": OFFLOAD_CPU, "passes": list(FWD_FWD_REV)})])]


def shrink(case):
    if case["kind"] in ("cpu-tier", "gpu-first", "counts"):
        for smaller in commands.shrink_params(params(case), keep=("gpu",) if case["kind"] != "counts" else ()):
            if case["kind"] == "cpu-tier" and smaller.get("cpu", 1) < 1:
                continue
            yield {"kind": case["kind"], **smaller}


def show(case):
    if case["kind"] == "artifact":
        return "; ".join("python3 scenario.py " + " ".join(run) for run in case["runs"])
    return "; ".join(" ".join(["python3", job["script"], *job["argv"]]) for job in jobs(case)[:2])


def explain(case, got):
    """Known mistakes that a relation shows without a planted bug: loads counted as GPU hits, and so on."""
    if case["kind"] != "cpu-tier":
        return ""
    tiered, gpu_alone = (_fields(run) for run in got["runs"][:2])
    if not isinstance(tiered, list) or not isinstance(gpu_alone, list) or len(tiered) != len(gpu_alone):
        return ""
    if all(t[1] == g[1] + g[2] and t[2] == 0 for t, g in zip(tiered, gpu_alone)):
        return "gpu-cpu-counts"
    if all(t[4] == [doc for doc in g[4] if doc in t[4]] and len(t[4]) < len(g[4]) for t, g in zip(tiered, gpu_alone)
           if g[4]):
        return "cpu-hits-not-in-hit-docs"
    return ""


STEP = StepSpec(NUMBER, FILE, ("run",), ("offload.json",), "04_two_tier", "scenario", (1, 2, 5),
                rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    """{misconception: [Plant]}: the classic mistakes, played on the reference (the instructor edition's only)."""
    # BEGIN SOLUTION ...
    return {
        "gpu-cpu-swapped": [Plant(FILE, "run", "    cache = TwoTierCache(gpu, cpu)\n", "    cache = TwoTierCache(cpu, gpu)\n")],
        "gpu-cpu-counts": [Plant(FILE, "run", 'counts[f"{tier}_hits"] += 1', 'counts["gpu_hits"] += 1')],
        "tier-result-truthy": [Plant(FILE, "run", '            if tier == "miss":',
                                     '            tier = "gpu" if tier == "miss" else tier  # `if cache.access(...)`\n'
                                     '            if not tier:')],
        "cpu-hits-not-in-hit-docs": [Plant(FILE, "run", '                counts["hit_docs"].append(doc)',
                                           '                if tier == "gpu":\n'
                                           '                    counts["hit_docs"].append(doc)')],
        "cpu-ignored": [Plant(FILE, "run", "    cache = TwoTierCache(gpu, cpu)\n", "    cache = TwoTierCache(gpu, 0)\n")],
    }
    # END SOLUTION
