"""Rules for scenario.py (steps 2, 3, 4, 6 and 7), and the judge of a scenario's JSON document.

The script runs on the lab's scenarios and on random ones, and its stdout is compared, as parsed JSON,
with the oracle's document for the same parameters. When they differ, the judge asks the oracle what
each classic mistake would have printed (cache cleared between passes, an option ignored, GPU and CPU
swapped) and names the one that matches.
"""
import random

from .. import lab
from .probes import Probe, command, function_job, parse_json_text, returned, script_job, succeeded
from .report import Wrong

DEFAULTS = {"gpu": lab.GPU, "cpu": lab.CPU, "docs": lab.DOCS, "tokens": lab.TOKENS, "passes": list(lab.PASSES)}
ORDERS = ("fwd", "rev")
PUBLIC_SEED = 0
FWD_FWD, FWD_FWD_REV = list(lab.FWD_FWD), list(lab.FWD_FWD_REV)


def arguments(params):
    """The command-line arguments for a scenario: only the options that `params` sets."""
    argv = []
    for option in ("gpu", "cpu", "docs", "tokens"):
        if option in params:
            argv += [f"--{option}", str(params[option])]
    if "passes" in params:
        argv += ["--passes", ",".join(params["passes"])]
    return argv


def _variants(params, oracle):
    """What a known mistake would print for these parameters: (document, misconception, detail)."""
    passes = params.get("passes", DEFAULTS["passes"])
    cleared = [oracle.scenario({**params, "passes": [order]})["passes"][0] for order in passes]
    yield {"passes": cleared}, "clears-between-passes", "every pass starts from an empty cache"
    for option, default in DEFAULTS.items():
        if option in params and params[option] != default:
            shown = ",".join(default) if option == "passes" else default
            given = ",".join(passes) if option == "passes" else params[option]
            yield (oracle.scenario({**params, option: default}), "option-ignored",
                   f"--{option} {given} gave the output of the default {shown}")
    if params.get("cpu"):
        swapped = {**params, "gpu": params["cpu"], "cpu": params.get("gpu", lab.GPU)}
        yield oracle.scenario(swapped), "gpu-cpu-swapped", "the output is that of the two capacities swapped"


def compare_scenario(document, params, oracle, what):
    """Raise Wrong, naming the likeliest mistake, unless `document` is what the scenario gives."""
    want = oracle.scenario(params)
    variants = list(_variants(params, oracle))  # every question asked up front: stored answers cover them all
    if document == want:
        return
    passes = document.get("passes") if isinstance(document, dict) else None
    if not isinstance(passes, list):
        raise Wrong("scenario-shape", f"{what} gave {str(document)[:80]}")
    if len(passes) != len(want["passes"]):
        raise Wrong("scenario-shape", f"{what}: {len(want['passes'])} passes, but {len(passes)} objects")
    for number, (got, expected) in enumerate(zip(passes, want["passes"]), 1):
        if not isinstance(got, dict) or set(got) != set(expected):
            keys = sorted(got) if isinstance(got, dict) else got
            raise Wrong("scenario-shape", f"{what}: pass {number} is {keys!r}")
    for variant, misconception, detail in variants:
        if variant != want and document == variant:
            raise Wrong(misconception, f"{what}: {detail}")
    for number, (got, expected) in enumerate(zip(passes, want["passes"]), 1):
        label = f"{what}, pass {number} ({expected['order']})"
        if got["order"] != expected["order"]:
            raise Wrong("order-field", f"{label}: order is {got['order']!r}")
        if got["hit_docs"] != expected["hit_docs"] and _same_items(got["hit_docs"], expected["hit_docs"]):
            raise Wrong("hit-docs-order", f"{label}: hit_docs is {got['hit_docs']}, expected {expected['hit_docs']}")
        counts = (expected["gpu_hits"], expected["cpu_hits"])
        if counts[0] != counts[1] and (got["gpu_hits"], got["cpu_hits"]) == counts[::-1]:
            raise Wrong("gpu-cpu-counts", f"{label}: gpu_hits {got['gpu_hits']} and cpu_hits {got['cpu_hits']} "
                                          "are swapped")
        for key in ("gpu_hits", "cpu_hits", "misses", "hit_docs"):
            if got[key] != expected[key]:
                raise Wrong("wrong-result", f"{label}: {key} should be {expected[key]}, got {got[key]}")


def _same_items(got, expected):
    return isinstance(got, list) and sorted(map(repr, got)) == sorted(map(repr, expected))


def scenario_probe(rule, scenarios, script="scenario.py"):
    """Run the script once per scenario (a dict of run() parameters) and compare each stdout."""
    jobs = [script_job(script, arguments(params)) for params in scenarios]

    def judge(outcomes, oracle):
        for job, outcome, params in zip(jobs, outcomes, scenarios):
            succeeded(outcome, job)
            document = parse_json_text(outcome.get("stdout"), f"the stdout of `{command(job)}`")
            compare_scenario(document, params, oracle, f"`{command(job)}`")
    return Probe(rule, jobs, judge)


def format_probe(script="scenario.py"):
    """The text-on-stdout rule: with no options, stdout is one JSON document and nothing else."""
    job = script_job(script)

    def judge(outcomes, oracle):
        succeeded(outcomes[0], job)
        parse_json_text(outcomes[0].get("stdout"), f"the stdout of `{command(job)}`")
    return Probe("prints exactly one JSON document on stdout, and nothing else", [job], judge)


def random_scenarios(rng, count, cpu):
    """Scenarios around the cliffs: capacities near multiples of the document size, any pass orders."""
    scenarios = []
    for number in range(count):
        docs = rng.randint(1, 12)
        tokens = rng.choice([1, rng.randint(2, 100), rng.randint(100, 6000)])
        nudge = rng.choice([-1, 0, 1, rng.randint(0, tokens)])
        passes = [rng.choice(ORDERS) for _ in range(rng.randint(1, 4))]
        if number % 2 == 0:
            passes[0] = "rev"  # reading backwards first must work too
        params = {"gpu": max(0, tokens * rng.randint(0, docs + 1) + nudge), "docs": docs, "tokens": tokens,
                  "passes": passes}
        if cpu:
            params["cpu"] = max(0, tokens * rng.randint(0, docs + 1) + rng.choice([-1, 0, 1]))
        scenarios.append(params)
    return scenarios


def random_capacities(rng, count, tokens=lab.TOKENS, docs=lab.DOCS):
    """Capacities on and around the multiples of the document size, where cliffs are."""
    return sorted({max(0, tokens * rng.randint(0, docs + 1) + rng.choice([-1, 0, 1])) for _ in range(count)})


# --- the sweeps of steps 4 and 7 -----------------------------------------------------------------

def sweeps(oracle, option, capacities, **fixed):
    """(expected, the other count, with a cache cleared between passes) for a sweep over `option`."""
    def second_passes(passes):
        return {str(capacity): oracle.scenario({**fixed, option: capacity, "passes": passes})["passes"][-1]
                for capacity in capacities}
    shared, cleared = second_passes(FWD_FWD), second_passes(["fwd"])
    hits = {key: second["gpu_hits"] + second["cpu_hits"] for key, second in shared.items()}
    misses = {key: second["misses"] for key, second in shared.items()}
    cleared_hits = {key: second["gpu_hits"] + second["cpu_hits"] for key, second in cleared.items()}
    cleared_misses = {key: second["misses"] for key, second in cleared.items()}
    if option == "gpu":
        return hits, misses, cleared_hits
    return misses, hits, cleared_misses


def compare_sweep(document, name, expected, other, cleared, other_count):
    """Raise Wrong unless `document` (a sweep: {capacity as a string: count}) is `expected`."""
    if not isinstance(document, dict) or set(document) != set(expected):
        keys = list(document) if isinstance(document, dict) else document
        raise Wrong("sweep-shape", f"{name} has {str(keys)[:80]}, expected the keys {list(expected)}")
    if document == expected:
        return
    if document == other:
        raise Wrong(other_count, f"{name} is {document}")
    if document == cleared:
        raise Wrong("clears-between-passes", f"{name} is {document}, expected {expected}")
    for key, value in expected.items():
        if document[key] != value:
            raise Wrong("wrong-result", f"{name}[{key!r}] should be {value}, got {document[key]!r}")


def sweep_probe(rule, option, capacities, fixed=None):
    """Step 4 or 7 in the student edition: scenario.gpu_cliff / cpu_cliff, called on `capacities`."""
    fixed = fixed or {}
    function = "gpu_cliff" if option == "gpu" else "cpu_cliff"
    job = function_job("scenario", function, list(capacities), *([fixed["gpu"]] if option == "cpu" else []))
    other = "sweep-hits-not-misses" if option == "gpu" else "sweep-misses-not-hits"

    def judge(outcomes, oracle):
        document = returned(outcomes[0], job)
        compare_sweep(document, f"{function}({list(capacities)})", *sweeps(oracle, option, capacities, **fixed),
                      other)
    return Probe(rule, [job], judge)


def step_probes(seed=PUBLIC_SEED, runs=6, script="scenario.py", functions=True):
    """{step: [Probe]} for steps 2, 3, 4, 6 and 7; `functions`: also call gpu_cliff/cpu_cliff (the edition's layout)."""
    rng = random.Random(seed)
    randomly = f"{runs} random scenarios (seed {seed}: other capacities, document counts, sizes and pass orders"
    gpu, cpu = list(lab.GPU_CAPACITIES), list(lab.CPU_CAPACITIES)
    probes = {
        2: [format_probe(script),
            scenario_probe("runs with the defaults (--gpu 21520 --docs 10 --tokens 5011 --passes fwd,fwd,rev)", [{}],
                           script),
            scenario_probe("--passes fwd,fwd gives the lab's cyclic result", [dict(passes=FWD_FWD)], script),
            scenario_probe("all passes share one cache: with room for all ten documents the second pass hits them all",
                           [dict(gpu=60000, passes=FWD_FWD)], script),
            scenario_probe("hit_docs lists the hits in read order: fwd then rev with room for all gives 9, 8, ..., 0",
                           [dict(gpu=60000, passes=["fwd", "rev"])], script),
            scenario_probe("--gpu, --docs and --tokens are used: --gpu 35 --docs 6 --tokens 10 --passes rev,fwd,rev",
                           [dict(gpu=35, docs=6, tokens=10, passes=["rev", "fwd", "rev"])], script),
            scenario_probe(f"matches the lab's rules on {randomly})", random_scenarios(rng, runs, cpu=False), script)],
        3: [scenario_probe("--passes fwd,fwd,rev gives the lab's baseline result", [dict(passes=FWD_FWD_REV)], script),
            scenario_probe(f"fwd,fwd,rev on {runs // 2} random scenarios (seed {seed})",
                           [{**params, "passes": FWD_FWD_REV} for params in random_scenarios(rng, runs // 2, False)],
                           script)],
        4: [scenario_probe("--passes fwd,fwd at the lab's six GPU capacities", [dict(gpu=c, passes=FWD_FWD) for c in gpu],
                           script)],
        6: [scenario_probe(f"--gpu {lab.GPU} --cpu {lab.OFFLOAD_CPU} --passes fwd,fwd,rev gives the lab's offload "
                           "result", [dict(gpu=lab.GPU, cpu=lab.OFFLOAD_CPU, passes=FWD_FWD_REV)], script),
            scenario_probe("--cpu 0 gives the same output as no --cpu (the single tier of step 2)",
                           [dict(gpu=30000, passes=["fwd", "rev", "fwd"]),
                            dict(gpu=30000, cpu=0, passes=["fwd", "rev", "fwd"])], script),
            scenario_probe(f"with --cpu, matches the lab's rules on {randomly}, CPU capacities)",
                           random_scenarios(rng, runs, cpu=True), script)],
        7: [scenario_probe(f"--gpu {lab.GPU} --passes fwd,fwd at the lab's seven CPU capacities",
                           [dict(gpu=lab.GPU, cpu=c, passes=FWD_FWD) for c in cpu], script)],
    }
    if functions:
        more_gpu, more_cpu = random_capacities(rng, 6), random_capacities(rng, 6)
        probes[4].append(sweep_probe("gpu_cliff(capacities) gives the second pass's hits at the lab's six capacities",
                                     "gpu", gpu))
        probes[4].append(sweep_probe(f"gpu_cliff at {len(more_gpu)} other capacities (seed {seed})", "gpu", more_gpu))
        probes[7].append(sweep_probe("cpu_cliff(capacities, gpu) gives the second pass's misses at the lab's seven "
                                     "capacities", "cpu", cpu, {"gpu": lab.GPU}))
        probes[7].append(sweep_probe(f"cpu_cliff at {len(more_cpu)} other capacities (seed {seed})", "cpu", more_cpu,
                                     {"gpu": lab.GPU}))
    else:
        probes[4].append(scenario_probe(f"--passes fwd,fwd at random GPU capacities (seed {seed})",
                                        [dict(gpu=c, passes=FWD_FWD) for c in random_capacities(rng, 4)], script))
        probes[7].append(scenario_probe(f"--passes fwd,fwd at random CPU capacities (seed {seed})",
                                        [dict(gpu=lab.GPU, cpu=c, passes=FWD_FWD) for c in random_capacities(rng, 4)],
                                        script))
    return probes


# --- the artifacts -------------------------------------------------------------------------------

def artifact_judges(oracle):
    """{file name: judge(text)} for the five simulator artifacts (steps 2, 3, 4, 6, 7)."""
    def document(params, name):
        return lambda text: compare_scenario(parse_json_text(text, name), params, oracle, name)

    def sweep(name, option, capacities, other, **fixed):
        return lambda text: compare_sweep(parse_json_text(text, name), name,
                                          *sweeps(oracle, option, capacities, **fixed), other)
    return {
        "cyclic.json": document(dict(passes=FWD_FWD), "cyclic.json"),
        "baseline.json": document(dict(passes=FWD_FWD_REV), "baseline.json"),
        "cliff.json": sweep("cliff.json", "gpu", list(lab.GPU_CAPACITIES), "sweep-hits-not-misses"),
        "offload.json": document(dict(cpu=lab.OFFLOAD_CPU, passes=FWD_FWD_REV), "offload.json"),
        "cpu_cliff.json": sweep("cpu_cliff.json", "cpu", list(lab.CPU_CAPACITIES), "sweep-misses-not-hits",
                                gpu=lab.GPU),
    }
