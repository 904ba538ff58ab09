"""Rules for scenario.py (steps 2, 3, 4, 6 and 7), and the judges of a scenario's JSON document and of a sweep.

The script runs on the lab's scenarios and on random ones, and its stdout, parsed as JSON, is matched
with the oracle's answer. When it differs, the judge matches it with what each classic mistake would
have printed (a cache cleared between passes, an option ignored, GPU and CPU swapped, CPU loads counted
as GPU hits, "miss" taken as true) and names the one it is. Hints show the student's own values only.
"""
from .. import lab
from ..i18n import Msg
from .probes import Probe, command, function_job, parse_json_text, returned, script_job, succeeded
from .report import Wrong, shown

DEFAULTS = {"gpu": lab.GPU, "cpu": lab.CPU, "docs": lab.DOCS, "tokens": lab.TOKENS, "passes": list(lab.PASSES)}
ORDERS = ("fwd", "rev")
FWD_FWD, FWD_FWD_REV = list(lab.FWD_FWD), list(lab.FWD_FWD_REV)
FIELDS = {"order", "gpu_hits", "cpu_hits", "misses", "hit_docs"}


def arguments(params):
    """The command-line arguments for a scenario: only the options that `params` sets."""
    argv = []
    for option in ("gpu", "cpu", "docs", "tokens"):
        if option in params:
            argv += [f"--{option}", str(params[option])]
    if "passes" in params:
        argv += ["--passes", ",".join(params["passes"])]
    return argv


def variants(params):
    """(variant, misconception) of the classic mistakes worth matching for these parameters, likeliest first."""
    found = []  # an option ignored first: the rule before scenario.options-used already shows sharing
    for option, default in DEFAULTS.items():
        if option in params and params[option] != default:
            found.append((f"ignored:{option}", f"option-ignored-{option}"))
    found.append(("cleared", "clears-between-passes"))
    if params.get("cpu"):
        found += [("truthy-miss", "tier-result-truthy"), ("cpu-as-gpu", "gpu-cpu-counts")]
    found.append(("swapped", "gpu-cpu-swapped"))  # without --cpu too: the GPU then gets 0, every reuse a CPU load
    return found


def compare_scenario(document, params, oracle, what):
    """Raise Wrong, naming the likeliest mistake, unless `document` is what the scenario gives."""
    want = oracle.ask("scenario", params, "")
    others = [(oracle.ask("scenario", params, variant), misconception) for variant, misconception in variants(params)]
    ordered = oracle.ask("scenario", params, "hit-docs-sorted")
    if want.matches(document):
        return
    for answer, misconception in others:  # a whole document that is a classic mistake's: that mistake
        if answer.matches(document):
            raise Wrong(misconception, Msg("seen.passes", what=what, passes=_counts(document["passes"])))
    if isinstance(document, str) and document.lstrip().startswith("{"):  # JSON text inside the JSON document
        raise Wrong("json-text", Msg("seen.document", what=what, start=shown(document, 80)))
    passes = document.get("passes") if isinstance(document, dict) else None
    expected = list(params.get("passes", DEFAULTS["passes"]))
    if not isinstance(passes, list):
        raise Wrong("scenario-shape", Msg("seen.document", what=what, start=shown(document, 80)))
    if len(passes) != len(expected):
        raise Wrong("scenario-shape", Msg("seen.pass-count", what=what, passes=len(expected), objects=len(passes)))
    for number, got in enumerate(passes, 1):
        if not isinstance(got, dict) or set(got) != FIELDS:
            raise Wrong("scenario-shape", Msg("seen.pass-keys", what=what, number=number,
                                              keys=shown(sorted(got) if isinstance(got, dict) else got)))
    for number, (got, order) in enumerate(zip(passes, expected)):
        label = Msg("seen.pass-label", what=what, number=number + 1, order=order)
        if got["order"] != order:
            raise Wrong("order-field", Msg("seen.field", where=label, field="order", value=shown(got["order"])))
        hit_docs = got["hit_docs"]
        if not want.matches(hit_docs, ("passes", number, "hit_docs")) and isinstance(hit_docs, list) \
                and _sortable(hit_docs) and ordered.matches(sorted(hit_docs), ("passes", number, "hit_docs")):
            raise Wrong("hit-docs-order", Msg("seen.field", where=label, field="hit_docs", value=shown(hit_docs)))
        for key in ("gpu_hits", "cpu_hits", "misses", "hit_docs"):
            if not want.matches(got[key], ("passes", number, key)):
                raise Wrong("wrong-result", Msg("seen.field", where=label, field=key, value=shown(got[key])))


def _sortable(values):
    return all(type(value) is int for value in values)


def _counts(passes):
    return "; ".join(f"{one.get('order')}: gpu_hits {one.get('gpu_hits')}, cpu_hits {one.get('cpu_hits')}, "
                     f"misses {one.get('misses')}" for one in passes)[:300]


def scenario_probe(rule_id, text, scenarios, script="scenario.py"):
    """Run the script once per scenario (a dict of run() parameters) and match each stdout."""
    jobs = [script_job(script, arguments(params)) for params in scenarios]

    def judge(outcomes, oracle):
        for job, outcome, params in zip(jobs, outcomes, scenarios):
            succeeded(outcome, job)
            document = parse_json_text(outcome.get("stdout"), command(job))
            compare_scenario(document, params, oracle, command(job))
    return Probe(rule_id, text, jobs, judge)


def format_probe(rule_id, script="scenario.py"):
    """The text-on-stdout rule: with no options, stdout is one JSON document and nothing else."""
    job = script_job(script)

    def judge(outcomes, oracle):
        succeeded(outcomes[0], job)
        parse_json_text(outcomes[0].get("stdout"), command(job))
    return Probe(rule_id, Msg(f"rule.{rule_id}"), [job], judge)


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

SWEEP_VARIANTS = {"gpu": (("other-count", "sweep-hits-not-misses"), ("gpu-hits-only", "sweep-gpu-hits-only"),
                          ("drops-scenario", "sweep-drops-arguments")),
                  "cpu": (("cpu-sweeps-gpu", "cpu-cliff-sweeps-gpu"), ("cpu-default-gpu", "cpu-cliff-ignores-gpu"),
                          ("other-count", "sweep-misses-not-hits"), ("first-pass", "sweep-first-pass"),
                          ("drops-scenario", "sweep-drops-arguments"))}


def compare_sweep(document, name, option, capacities, fixed, oracle):
    """Raise Wrong unless `document` (a sweep: {capacity as a string: count}) is what the lab's rules give."""
    want = oracle.ask("sweep", option, list(capacities), fixed, "")
    others = [(oracle.ask("sweep", option, list(capacities), fixed, variant), misconception)
              for variant, misconception in SWEEP_VARIANTS[option]]
    keys = [str(capacity) for capacity in capacities]
    if isinstance(document, dict) and "$dict" in document:  # a dict whose keys are not all strings
        raise Wrong("sweep-int-keys", Msg("seen.sweep-keys", name=name, keys=shown([key for key, _ in document["$dict"]][:8])))
    if not isinstance(document, dict) or set(document) != set(keys):
        raise Wrong("sweep-shape", Msg("seen.sweep-keys", name=name,
                                       keys=shown(list(document)[:8] if isinstance(document, dict) else document)))
    if want.matches(document):
        return
    for answer, misconception in others:
        if answer.matches(document):
            raise Wrong(misconception, Msg("seen.sweep", name=name, value=shown(document, 200)))
    if all(value == 0 for value in document.values()):
        raise Wrong("sweep-first-pass" if option == "gpu" else "sweep-zeros", Msg("seen.sweep", name=name,
                                                                                     value=shown(document, 200)))
    for key in keys:
        if not want.matches(document[key], (key,)):
            raise Wrong("wrong-result", Msg("seen.sweep-at", name=name, key=key, value=shown(document[key])))


def sweep_probe(rule_id, option, capacities, fixed=None, text=None):
    """Step 4 or 7: scenario.gpu_cliff / cpu_cliff called on `capacities` (and the `fixed` run() arguments)."""
    fixed = dict(fixed or {})
    function = "gpu_cliff" if option == "gpu" else "cpu_cliff"
    args = [list(capacities)] + ([fixed.pop("gpu")] if option == "cpu" and "gpu" in fixed else [])
    job = function_job("scenario", function, *args, **fixed)
    if option == "cpu" and len(args) > 1:
        fixed["gpu"] = args[1]

    def judge(outcomes, oracle):
        compare_sweep(returned(outcomes[0], job), command(job), option, capacities, fixed, oracle)
    return Probe(rule_id, text or Msg(f"rule.{rule_id}", call=command(job)), [job], judge)


def _step_probe(rule_id, text, scenarios):
    return scenario_probe(rule_id, text, scenarios)


def build(rule_id, rng):
    """The Probe of a scenario.py rule (steps 2, 3, 4, 6, 7), its random cases drawn from `rng`."""
    t = Msg(f"rule.{rule_id}")
    gpu_caps, cpu_caps = list(lab.GPU_CAPACITIES), list(lab.CPU_CAPACITIES)
    if rule_id == "scenario.one-json":
        return format_probe(rule_id)
    if rule_id == "scenario.defaults":
        return _step_probe(rule_id, t, [{}])
    if rule_id == "scenario.cyclic":
        return _step_probe(rule_id, t, [dict(passes=FWD_FWD)])
    if rule_id == "scenario.shares-cache":  # cleared, --gpu ignored and hit_docs sorted all differ here
        return _step_probe(rule_id, t, [dict(gpu=60000, passes=FWD_FWD_REV)])
    if rule_id == "scenario.options-used":
        return _step_probe(rule_id, t, [dict(gpu=35, docs=6, tokens=10, passes=["rev", "fwd", "rev"])])
    if rule_id in ("scenario.random", "scenario.hidden-random"):
        return _step_probe(rule_id, Msg(f"rule.{rule_id}", runs=6), random_scenarios(rng, 6, cpu=False))
    if rule_id == "baseline.result":
        return _step_probe(rule_id, t, [dict(passes=FWD_FWD_REV)])
    if rule_id in ("baseline.random", "baseline.hidden-random"):
        return _step_probe(rule_id, Msg(f"rule.{rule_id}", runs=3),
                           [{**params, "passes": FWD_FWD_REV} for params in random_scenarios(rng, 3, False)])
    if rule_id == "gpu-cliff.lab":
        return _step_probe(rule_id, t, [dict(gpu=capacity, passes=FWD_FWD) for capacity in gpu_caps])
    if rule_id == "gpu-cliff.lab-function":
        return sweep_probe(rule_id, "gpu", gpu_caps)
    if rule_id == "gpu-cliff.scenario-arguments":
        return sweep_probe(rule_id, "gpu", [0, 25055, 50110], {"docs": 12, "passes": ["fwd", "rev"]})
    if rule_id == "gpu-cliff.counts-cpu-hits":
        return sweep_probe(rule_id, "gpu", [0, 10022, 50110], {"cpu": 60000})
    if rule_id == "gpu-cliff.hidden-random":
        return sweep_probe(rule_id, "gpu", random_capacities(rng, 6), text=t)
    if rule_id == "offload.gpu-first":  # a swapped TwoTierCache fails here; CPU loads counted as GPU hits do not
        return _step_probe(rule_id, t, [dict(gpu=60000, cpu=10000, passes=FWD_FWD)])
    if rule_id == "offload.result":
        return _step_probe(rule_id, t, [dict(gpu=lab.GPU, cpu=lab.OFFLOAD_CPU, passes=FWD_FWD_REV)])
    if rule_id == "offload.cpu-zero":
        return _step_probe(rule_id, t, [dict(gpu=30000, passes=["fwd", "rev", "fwd"]),
                                        dict(gpu=30000, cpu=0, passes=["fwd", "rev", "fwd"])])
    if rule_id in ("offload.random", "offload.hidden-random"):
        return _step_probe(rule_id, Msg(f"rule.{rule_id}", runs=6), random_scenarios(rng, 6, cpu=True))
    if rule_id == "cpu-cliff.lab":
        return _step_probe(rule_id, t, [dict(gpu=lab.GPU, cpu=capacity, passes=FWD_FWD) for capacity in cpu_caps])
    if rule_id == "cpu-cliff.lab-function":
        return sweep_probe(rule_id, "cpu", cpu_caps, {"gpu": lab.GPU})
    if rule_id == "cpu-cliff.sweeps-cpu":
        return sweep_probe(rule_id, "cpu", [0, 8, 12], {"gpu": 4, "docs": 3, "tokens": 4, "passes": ["fwd", "rev"]})
    if rule_id == "cpu-cliff.uses-gpu":
        return sweep_probe(rule_id, "cpu", [0, 10000, 25000],
                           {"gpu": 10000, "docs": 5, "tokens": 5000, "passes": ["fwd", "rev"]})
    if rule_id == "cpu-cliff.hidden-random":
        return sweep_probe(rule_id, "cpu", random_capacities(rng, 6), {"gpu": lab.GPU}, text=t)
    raise KeyError(rule_id)


# --- the artifacts -------------------------------------------------------------------------------

def artifact_judges(oracle):
    """{file name: judge(text)} for the five simulator artifacts (steps 2, 3, 4, 6, 7)."""
    def document(params, name):
        return lambda text: compare_scenario(parse_json_text(text, name), params, oracle, name)

    def sweep(name, option, capacities, **fixed):
        return lambda text: compare_sweep(parse_json_text(text, name), name, option, capacities, fixed, oracle)
    return {
        "cyclic.json": document(dict(passes=FWD_FWD), "cyclic.json"),
        "baseline.json": document(dict(passes=FWD_FWD_REV), "baseline.json"),
        "cliff.json": sweep("cliff.json", "gpu", list(lab.GPU_CAPACITIES)),
        "offload.json": document(dict(cpu=lab.OFFLOAD_CPU, passes=FWD_FWD_REV), "offload.json"),
        "cpu_cliff.json": sweep("cpu_cliff.json", "cpu", list(lab.CPU_CAPACITIES), gpu=lab.GPU),
    }
