"""Rules for scenario.py (steps 2, 3, 4, 6 and 7), and the judge of a scenario's JSON.

The script runs in the sandbox on the lab's scenarios and on random ones; its stdout is compared, as
parsed JSON, with what the lab's own scenario.run gives. By default it runs with the lab's kvsim.py
in place of the student's, so that a bug in their caches counts in steps 1 and 5 only.
"""
import random
from functools import partial
from pathlib import Path

from .. import sandbox
from .. import scenario as reference
from ..artifacts import CPU_CAPACITIES, GPU_CAPACITIES, OFFLOAD_CPU
from .report import Report, Row, Wrong
from .scripts import Probe, command, parse_json_text, run_probes, succeeded

DEFAULTS = {"gpu": reference.GPU, "cpu": reference.CPU, "docs": reference.DOCS, "tokens": reference.TOKENS,
            "passes": reference.PASSES}
FWD_FWD, FWD_FWD_REV = ("fwd", "fwd"), ("fwd", "fwd", "rev")
STEPS = (2, 3, 4, 6, 7)


def arguments(params):
    """The command-line arguments for a scenario: only the options that `params` sets."""
    argv = []
    for option in ("gpu", "cpu", "docs", "tokens"):
        if option in params:
            argv += [f"--{option}", str(params[option])]
    if "passes" in params:
        argv += ["--passes", ",".join(params["passes"])]
    return argv


def describe(params):
    return " ".join(["scenario.py", *arguments(params)])


def _variants(params):
    """What a known mistake would print for these parameters: (document, misconception, detail)."""
    passes = params.get("passes", reference.PASSES)
    cleared = [reference.run(**{**params, "passes": (order,)})["passes"][0] for order in passes]
    yield {"passes": cleared}, "clears-between-passes", "every pass starts from an empty cache"
    for option in ("gpu", "cpu", "docs", "tokens", "passes"):
        if option in params and params[option] != DEFAULTS[option]:
            default = DEFAULTS[option]
            shown = ",".join(default) if option == "passes" else default
            yield (reference.run(**{**params, option: default}), "option-ignored",
                   f"--{option} {params[option] if option != 'passes' else ','.join(passes)} gave the "
                   f"output of the default {shown}")
    if params.get("cpu"):
        gpu = params.get("gpu", reference.GPU)
        yield reference.run(**{**params, "gpu": params["cpu"], "cpu": gpu}), "gpu-cpu-swapped", \
            "the output is that of the two capacities swapped"


def compare_scenario(document, params, what=None):
    """Raise Wrong, naming the likeliest mistake, unless `document` is what the scenario gives."""
    what = what or f"`{describe(params)}`"
    want = reference.run(**params)
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
    for variant, misconception, detail in _variants(params):
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
                                          f"are swapped")
        for key in ("gpu_hits", "cpu_hits", "misses", "hit_docs"):
            if got[key] != expected[key]:
                raise Wrong("wrong-result", f"{label}: {key} should be {expected[key]}, got {got[key]}")


def _same_items(got, expected):
    return isinstance(got, list) and sorted(map(repr, got)) == sorted(map(repr, expected))


def scenario_probe(rule, scenarios, script="scenario.py", kvsim="reference"):
    """Run the script once per scenario (a dict of run() parameters) and compare each stdout."""
    jobs = [sandbox.script_job(script, arguments(params), kvsim=kvsim) for params in scenarios]

    def judge(results):
        for job, result, params in zip(jobs, results, scenarios):
            succeeded(result, job)
            document = parse_json_text(result["stdout"], f"the stdout of `{command(job)}`")
            compare_scenario(document, params, f"`{command(job)}`")
    return Probe(rule, jobs, judge)


def format_probe(script="scenario.py", kvsim="reference"):
    """The text-on-stdout rule: with no options, stdout is one JSON document and nothing else."""
    job = sandbox.script_job(script, (), kvsim=kvsim)

    def judge(results):
        succeeded(results[0], job)
        parse_json_text(results[0]["stdout"], f"the stdout of `{command(job)}`")
    return Probe("prints exactly one JSON document on stdout, and nothing else", [job], judge)


def cpu_zero_probe(script="scenario.py", kvsim="reference"):
    """Step 6: --cpu 0 must give the same JSON as the run without --cpu (both compared with the lab's)."""
    orders = ("fwd", "rev", "fwd")
    return scenario_probe("--cpu 0 gives the same output as no --cpu (the single tier of step 2)",
                          [dict(gpu=30000, passes=orders), dict(gpu=30000, cpu=0, passes=orders)], script, kvsim)


def random_scenarios(rng, count, cpu):
    """Scenarios around the cliffs: capacities near multiples of the document size, any pass orders."""
    scenarios = []
    for number in range(count):
        docs = rng.randint(1, 12)
        tokens = rng.choice([1, rng.randint(2, 100), rng.randint(100, 6000)])
        nudge = rng.choice([-1, 0, 1, rng.randint(0, tokens)])
        passes = [rng.choice(reference.ORDERS) for _ in range(rng.randint(1, 4))]
        if number % 2 == 0:
            passes[0] = "rev"  # reading backwards first must work too
        params = {"gpu": max(0, tokens * rng.randint(0, docs + 1) + nudge), "docs": docs, "tokens": tokens,
                  "passes": tuple(passes)}
        if cpu:
            params["cpu"] = max(0, tokens * rng.randint(0, docs + 1) + rng.choice([-1, 0, 1]))
        scenarios.append(params)
    return scenarios


def step_probes(seed=0, runs=6, script="scenario.py", kvsim="reference"):
    """{step: [Probe]} for the steps that run scenario.py (2, 3, 4, 6 and 7)."""
    rng = random.Random(seed)
    probe = partial(scenario_probe, script=script, kvsim=kvsim)
    randomly = f"{runs} random scenarios (seed {seed}: other capacities, document counts, sizes and pass orders"
    return {
        2: [format_probe(script, kvsim),
            probe("runs with the defaults (--gpu 21520 --docs 10 --tokens 5011 --passes fwd,fwd,rev)", [{}]),
            probe("--passes fwd,fwd gives the lab's cyclic result (no hits)", [dict(passes=FWD_FWD)]),
            probe("all passes share one cache: with room for all ten documents the second pass hits them all",
                  [dict(gpu=60000, passes=FWD_FWD)]),
            probe("hit_docs lists the hits in read order: fwd then rev with room for all gives 9, 8, ..., 0",
                  [dict(gpu=60000, passes=("fwd", "rev"))]),
            probe("--gpu, --docs and --tokens are used: --gpu 35 --docs 6 --tokens 10 --passes rev,fwd,rev",
                  [dict(gpu=35, docs=6, tokens=10, passes=("rev", "fwd", "rev"))]),
            probe(f"matches the lab's scenario on {randomly})", random_scenarios(rng, runs, cpu=False))],
        3: [probe("--passes fwd,fwd,rev gives the lab's baseline result (third pass hits 9, 8, 7, 6)",
                  [dict(passes=FWD_FWD_REV)])],
        4: [probe("--passes fwd,fwd at GPU capacities " + ", ".join(map(str, GPU_CAPACITIES))
                  + " gives the lab's cliff (hits only at 50110)",
                  [dict(gpu=gpu, passes=FWD_FWD) for gpu in GPU_CAPACITIES])],
        6: [probe(f"--gpu 21520 --cpu {OFFLOAD_CPU} --passes fwd,fwd,rev gives the lab's offload result",
                  [dict(gpu=reference.GPU, cpu=OFFLOAD_CPU, passes=FWD_FWD_REV)]),
            cpu_zero_probe(script, kvsim),
            probe(f"with --cpu, matches the lab's scenario on {randomly}, CPU capacities)",
                  random_scenarios(rng, runs, cpu=True))],
        7: [probe("--gpu 21520 --passes fwd,fwd at CPU capacities " + ", ".join(map(str, CPU_CAPACITIES))
                  + " gives the lab's CPU cliff (no misses from 50110 on)",
                  [dict(gpu=reference.GPU, cpu=cpu, passes=FWD_FWD) for cpu in CPU_CAPACITIES])],
    }


def scenario_script(path, steps=STEPS, seed=0, timeout=10.0, kvsim="reference"):
    """Check a scenario.py (steps 2, 3, 4, 6 and 7) by running it in a sandbox; one row per rule.

    kvsim="reference" runs it with the lab's kvsim.py, so only scenario.py is judged; "own" uses the
    kvsim.py beside it. `steps` picks the steps' rules, e.g. (2, 3, 4) before --cpu exists.
    """
    path = Path(path)
    title = f"{path.name} (steps {', '.join(map(str, steps))})"
    if not path.is_file():
        return Report(title, [Row(f"{path} exists", False, f"{path} not found", "missing-file")])
    by_step = step_probes(seed, script=path.name, kvsim=kvsim)
    probes = [probe for step in steps for probe in by_step[step]]
    return Report(title, run_probes(path.parent, probes, timeout))
