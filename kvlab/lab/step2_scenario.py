"""Step 2: scenario.py, the command, and cyclic.json.

The lab text's contract: `scenario.py` takes --gpu (default 21520), --docs (10), --tokens (5011) and
--passes (fwd,fwd,rev); documents 0 .. docs-1 are the keys, each of size tokens; a fwd pass reads 0
upward, a rev pass downward; all passes share one cache; stdout is exactly one JSON document, one object
per pass: {"order", "gpu_hits", "cpu_hits": 0, "misses", "hit_docs": [in read order]}. Step 2 is judged
without --cpu (step 6 adds it): right code for step 2 passes step 2 whatever step 6 will change. Each rule
compares one part of the output; text printed before the JSON costs only the rule about stdout.
"""
from . import commands
from .base import Misconception, Plant, Rule, StepSpec, by_size
from .numbers import DOCS, FWD_FWD, GPU, PASSES, TOKENS
from .outcomes import compared

NUMBER = 2
FILE = "scenario.py"
DEFAULTS = {"gpu": GPU, "docs": DOCS, "tokens": TOKENS, "passes": list(PASSES)}

MESSAGES = {
    "step.2.title": "scenario.py and cyclic.json",
    "rule.scenario.json": "stdout is exactly one JSON document, {\"passes\": [...]}, with one object per pass.",
    "rule.scenario.order": "Each pass object's \"order\": the pass as --passes names it.",
    "rule.scenario.hits": "gpu_hits and cpu_hits of each pass (cpu_hits is 0 without a CPU tier).",
    "rule.scenario.misses": "misses of each pass.",
    "rule.scenario.hit-docs": "hit_docs of each pass: the documents hit, in read order.",
    "rule.scenario.defaults": "Without options, the lab's defaults: --gpu 21520 --docs 10 --tokens 5011 --passes fwd,fwd,rev.",
    "rule.cyclic.file": "cyclic.json is what your scenario.py prints for --passes fwd,fwd.",
    "hint.rev-order": "A rev pass reads the documents downward: docs-1, docs-2, ..., 0.",
}


def cases(rng, hidden):
    runs = commands.random_params(rng, 6 if hidden else 14, docs=(2, 14) if hidden else (1, 6), big=hidden) \
        + commands.large_params(rng, 1 if hidden else 2) + commands.reverse_params(rng, 1 if hidden else 4)
    runs.append({"gpu": 2, "docs": 3, "tokens": 3, "passes": ["fwd", "fwd"]})  # every document larger than the GPU
    found = [{"kind": "run", **params} for params in runs]
    if not hidden:
        found.append({"kind": "defaults"})
    return by_size(found, size)


def size(case):
    return (0,) if case["kind"] != "run" else commands.params_size(case)


def params(case):
    return {name: case[name] for name in ("gpu", "cpu", "docs", "tokens", "passes") if name in case}


def jobs(case):
    if case["kind"] == "defaults":
        return [commands.scenario_job({}), commands.scenario_job(DEFAULTS)]
    if case["kind"] == "artifact":
        return commands.artifact_jobs(case)
    return [commands.scenario_job(params(case))]


def observe(case, outcomes):
    return {"runs": [commands.observe_run(outcome) for outcome in outcomes]}


def fields(*names):
    def view(case, obs):
        return commands.field_view(obs["runs"][0], names)
    return view


def named(*names):
    """What a student reads of those fields: one {field: value} per pass (the view has the values only)."""
    def display(case, obs):
        return commands.named_fields(obs["runs"][0], names)
    return display


def json_view(case, obs):
    run = obs["runs"][0]
    if run["stop"] is not None and run["stop"]["stop"] != "no-json":
        return {"stop": compared(run["stop"])}
    return {"one-document": run["strict"], "shape": commands.shape(run["doc"])}


def printed(case, obs):
    """What the command printed, as a student reads it (its start)."""
    run = obs["runs"][0]
    if run["stop"] is not None and run["stop"]["stop"] != "no-json":
        return {"stop": compared(run["stop"])}
    return run.get("stdout", "")[:100]


def defaults_hold(case, got, want):
    """No options give what the lab's defaults, given explicitly, give."""
    plain, explicit = got["runs"]
    return plain["stop"] is None and explicit["stop"] is None and plain["doc"] == explicit["doc"]


def defaults_view(case, obs):
    return [commands.field_view(run, ("order", "gpu_hits", "cpu_hits", "misses", "hit_docs")) for run in obs["runs"]]


def file_holds(case, got, want):
    """The saved file holds what the student's own command prints (read as values)."""
    return commands.holds_what_it_printed(case, got["runs"][0])


def file_view(case, obs):
    return [commands.file_view(case), obs["runs"][0]["doc"] if obs["runs"][0]["stop"] is None
            else {"stop": compared(obs["runs"][0]["stop"])}]


RULES = (
    Rule("scenario.json", ("run",), json_view, points=2, display=printed),
    Rule("scenario.order", ("run",), fields("order"), points=1, display=named("order")),
    Rule("scenario.hits", ("run",), fields("gpu_hits", "cpu_hits"), points=2, display=named("gpu_hits", "cpu_hits")),
    Rule("scenario.misses", ("run",), fields("misses"), points=2, display=named("misses")),
    Rule("scenario.hit-docs", ("run",), fields("hit_docs"), points=2, display=named("hit_docs")),
    Rule("scenario.defaults", ("defaults",), defaults_view, points=1, holds=defaults_hold, own=True),
    Rule("cyclic.file", ("artifact",), file_view, points=1, holds=file_holds, own=True),
)

MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in (
    "clears-between-passes", "hit-docs-order", "rev-order", "text-on-stdout", "several-json", "python-repr",
    "order-field", "option-ignored-gpu", "option-ignored-docs", "option-ignored-tokens", "option-ignored-passes",
    "missing-artifact"))


def artifact_cases(texts):
    return [commands.artifact_case("cyclic.json", texts.get("cyclic.json"), [["--passes", ",".join(FWD_FWD)]])]


def shrink(case):
    if case["kind"] == "run":
        for smaller in commands.shrink_params(params(case)):
            yield {"kind": "run", **smaller}


def show(case):
    if case["kind"] == "defaults":
        return "python3 scenario.py"
    if case["kind"] == "artifact":
        return "; ".join("python3 scenario.py " + " ".join(run) for run in case["runs"])
    return commands.show_params(params(case))


STEP = StepSpec(NUMBER, FILE, ("read_order", "run", "main"), ("cyclic.json",), "02_cyclic_scan", "scenario", (1, 5),
                rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    """{misconception: [Plant]}: the classic mistakes, played on the reference (the instructor edition's only)."""
    # BEGIN SOLUTION ...
    make = "    cache = TwoTierCache(gpu, cpu)\n    results = []\n    for order, doc_ids in zip(passes, orders):\n"
    parsed = "    args = parser.parse_args(argv)\n"
    call = "run(args.gpu, args.cpu, args.docs, args.tokens, passes)"
    printed = '    sys.stdout.write(json.dumps(result) + "\\n")'
    return {
        "clears-between-passes": [Plant(FILE, "run", make, "    results = []\n    for order, doc_ids in zip(passes, orders):\n"
                                                          "        cache = TwoTierCache(gpu, cpu)\n")],
        "hit-docs-order": [Plant(FILE, "run", "        results.append(counts)",
                                 '        counts["hit_docs"].sort()\n        results.append(counts)')],
        "rev-order": [Plant(FILE, "read_order", "return upward[::-1]", "return upward")],
        "text-on-stdout": [Plant(FILE, "main", parsed, parsed + '    print(f"Simulating {args.docs} documents")\n')],
        "several-json": [Plant(FILE, "main", printed, '    for one in result["passes"]:\n'
                                                      '        sys.stdout.write(json.dumps(one) + "\\n")')],
        "python-repr": [Plant(FILE, "main", printed, "    print(result)")],
        "order-field": [Plant(FILE, "run", '        counts = {"order": order,', '        counts = {"order": "fwd",')],
        "option-ignored-gpu": [Plant(FILE, "main", call, call.replace("args.gpu", "GPU"))],
        "option-ignored-docs": [Plant(FILE, "main", call, call.replace("args.docs", "DOCS"))],
        "option-ignored-tokens": [Plant(FILE, "main", call, call.replace("args.tokens", "TOKENS"))],
        "option-ignored-passes": [Plant(FILE, "main", call, call.replace(", passes)", ", PASSES)"))],
    }
    # END SOLUTION
