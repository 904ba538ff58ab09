"""Rules for summarize.py (step 8), and the judge of a summary's JSON.

A summary is judged against the exact statistics of its input, not against another program's
rounding: a value passes if it is on the right grid (1 decimal for ms, 2 for ratios) and within half
a step of the exact value, so sum(values) / n is as good as statistics.mean.
"""
import copy
import json
import random
import statistics
from pathlib import Path

from .. import artifacts
from .. import summarize as reference
from ..sandbox import script_job
from .report import Report, Row, Rule, Wrong, run_rules
from .scripts import Probe, command, parse_json_text, run_probes, succeeded

CONFIGS = reference.CONFIGS


def lines_of(passes, shuffle=None):
    """JSONL lines for {pass: {config: [ttft_ms, ...]}}, config by config; `shuffle` a Random to mix them."""
    lines = []
    for config in CONFIGS:
        for name, configs in passes.items():
            for doc, ttft in enumerate(configs.get(config, ())):
                lines.append(json.dumps({"config": config, "pass": name, "doc": doc, "doc_tokens": 4864,
                                         "ttft_ms": ttft, "total_ms": round(ttft + 150, 1)}))
    if shuffle:
        shuffle.shuffle(lines)
    return lines


def records_of(lines):
    return [json.loads(line) for line in lines if line.strip()]


# Small inputs, each built so that one mistake shows. Values are unsorted on purpose.
NAMES = lines_of({"pass1-cold": {"baseline": [600.0, 580.0, 590.0], "lmcache": [610.0, 590.0, 600.0]},
                  "warm up": {"baseline": [570.0, 575.0, 572.0], "lmcache": [48.0, 49.0, 48.5]},
                  "replay-2": {"baseline": [30.0, 31.0, 29.0], "lmcache": [30.5, 31.5, 29.5]}})
EVEN = lines_of({"pass2-replay": {"baseline": [300.0, 100.0, 1000.0, 200.0], "lmcache": [40.0, 10.0, 20.0]}})
ODD = lines_of({"pass2-replay": {"baseline": [30.0, 10.0, 20.0, 50.0, 40.0], "lmcache": [4.0, 6.0, 5.0]}})
RATIO = lines_of({"pass2-replay": {"baseline": [576.04, 575.96, 576.12], "lmcache": [48.66, 48.64, 48.7]}})
LAYOUT = lines_of({"pass1-cold": {"baseline": [580.0, 590.0, 600.0], "lmcache": [600.0, 610.0, 590.0]},
                   "pass2-replay": {"baseline": [575.0, 570.0], "lmcache": [48.0, 49.0]}},
                  shuffle=random.Random(3))
BLANK = ["", *ODD[:2], "", "   ", *ODD[2:5], "\t", *ODD[5:], "", ""]

CASES = [  # (rule, lines)
    ("keeps pass names exactly as in the input (here pass1-cold, 'warm up' and replay-2)", NAMES),
    ("p50 of an even count is the mean of the two middle values (statistics.median)", EVEN),
    ("p50 of an odd count is the middle of the sorted values", ODD),
    ("ratio = baseline / lmcache from the unrounded statistics, rounded to 2 decimals", RATIO),
    ("works for other document counts and any line order", LAYOUT),
]


def random_lines(rng):
    """A random measurement: any pass names, document counts (odd and even) and orders, blank lines."""
    pool = ["pass1-cold", "pass2-replay", "pass3-reverse", "warmup", "replay-2", "Pass 3 (reverse)"]
    passes = {}
    for name in rng.sample(pool, rng.randint(1, 3)):
        docs = rng.randint(1, 12)
        passes[name] = {config: [round(rng.uniform(20, 700), rng.choice([0, 1, 1])) for _ in range(docs)]
                        for config in CONFIGS}
    lines = lines_of(passes, shuffle=rng if rng.random() < 0.5 else None)
    for _ in range(rng.choice([0, 0, 1, 3])):
        lines.insert(rng.randint(0, len(lines)), rng.choice(["", " ", "\t"]))
    return lines


def _exact(records):
    """{config: {pass: (median, mean, n, values)}} from the records, unrounded."""
    groups = {config: {} for config in CONFIGS}
    for record in records:
        groups[record["config"]].setdefault(record["pass"], []).append(record["ttft_ms"])
    return {config: {name: (statistics.median(values), statistics.mean(values), len(values), values)
                     for name, values in passes.items()}
            for config, passes in groups.items()}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _rounds_to(got, exact, places):
    """`got` is `exact` rounded to `places` decimals (any correct way of computing and rounding it)."""
    return (_number(got) and exact is not None and abs(round(got, places) - got) < 1e-9
            and abs(got - exact) <= 0.5 * 10 ** -places + 1e-9)


def _check_stat(got, exact, values, label, kind):
    if _rounds_to(got, exact, 1):
        return
    if kind == "p50_ms":
        ordered = sorted(values)
        middle = len(values) // 2
        if len(values) % 2 == 0 and any(_rounds_to(got, value, 1) for value in ordered[middle - 1:middle + 1]):
            raise Wrong("median-even", f"{label} is {got}, expected {round(exact, 1)}")
        unsorted = [values[middle]] + ([statistics.mean(values[middle - 1:middle + 1])] if len(values) % 2 == 0 else [])
        if any(_rounds_to(got, value, 1) and value != exact for value in unsorted):
            raise Wrong("median-unsorted", f"{label} is {got}, expected {round(exact, 1)}")
    if _number(got) and abs(got - exact) <= 0.05 + 1e-9:
        raise Wrong("not-rounded", f"{label} is {got}, expected {round(exact, 1)}")
    raise Wrong("wrong-stat", f"{label} should be {round(exact, 1)}, got {got!r}")


def _check_ratio(got, baseline, lmcache, label):
    exact = baseline / lmcache if lmcache else None
    if exact is None and got is None or _rounds_to(got, exact, 2):
        return
    if round(lmcache, 1) and _rounds_to(got, round(baseline, 1) / round(lmcache, 1), 2):
        raise Wrong("rounds-before-ratio", f"{label} is {got}, expected {round(exact, 2)}")
    if baseline and _rounds_to(got, lmcache / baseline, 2):
        raise Wrong("ratio-inverted", f"{label} is {got}, expected {round(exact, 2)}")
    if _number(got) and exact is not None and abs(got - exact) <= 0.005 + 1e-9:
        raise Wrong("not-rounded", f"{label} is {got}, expected {round(exact, 2)}")
    raise Wrong("wrong-stat", f"{label} should be {None if exact is None else round(exact, 2)}, got {got!r}")


def compare_summary(document, records, what="the summary"):
    """Raise Wrong, naming the likeliest mistake, unless `document` summarizes `records` as the lab asks."""
    exact = _exact(records)
    if not isinstance(document, dict) or any(not isinstance(document.get(key), dict)
                                             for key in (*CONFIGS, "ratio")):
        raise Wrong("summary-shape", f"{what} is {str(document)[:80]}")
    for config in CONFIGS:
        got, want = document[config], exact[config]
        if set(got) != set(want):
            raise Wrong("pass-names", f"{what}, {config}: passes {list(got)}, expected {list(want)}")
        for name, (median, mean, count, values) in want.items():
            entry, label = got[name], f"{what}, {config} {name!r}"
            if not isinstance(entry, dict) or set(entry) != {"n", "p50_ms", "mean_ms"}:
                raise Wrong("summary-shape", f"{label} is {entry!r}")
            if entry["n"] != count:
                raise Wrong("n-count", f"{label}: n should be {count}, got {entry['n']!r}")
            _check_stat(entry["p50_ms"], median, values, f"{label} p50_ms", "p50_ms")
            _check_stat(entry["mean_ms"], mean, values, f"{label} mean_ms", "mean_ms")
    both = [name for name in exact["baseline"] if name in exact["lmcache"]]
    if set(document["ratio"]) != set(both):
        raise Wrong("pass-names", f"{what}, ratio: passes {list(document['ratio'])}, expected {both}")
    for name in both:
        entry, label = document["ratio"][name], f"{what}, ratio {name!r}"
        if not isinstance(entry, dict) or set(entry) != {"p50", "mean"}:
            raise Wrong("summary-shape", f"{label} is {entry!r}")
        for key, index in (("p50", 0), ("mean", 1)):
            _check_ratio(entry[key], exact["baseline"][name][index], exact["lmcache"][name][index],
                         f"{label} {key}")


# --- summarize.py run as a script -----------------------------------------------------------------

class _Names:
    """Unique input and output file names inside the sandbox."""

    def __init__(self):
        self.count = 0

    def __call__(self):
        self.count += 1
        return f"kvlab-input-{self.count}.jsonl", f"kvlab-output-{self.count}.json"


def summary_probe(rule, inputs, script, names):
    """Run the script on each input (a list of lines) and judge each output file."""
    jobs, files, judged = [], {}, []
    for lines in inputs:
        source, target = names()
        jobs.append(script_job(script, (source, target), kvsim="own", read=(target,)))
        files[source] = "\n".join(lines) + "\n"
        judged.append((target, records_of(lines)))

    def judge(results):
        for job, result, (target, records) in zip(jobs, results, judged):
            document = _written(job, result, target)
            compare_summary(document, records, f"`{command(job)}`")
    return Probe(rule, jobs, judge, files)


def _written(job, result, target):
    succeeded(result, job)
    text = result["files"].get(target)
    if text is None:
        printed = " (it printed the summary on stdout instead)" if result["stdout"].strip().startswith("{") else ""
        raise Wrong("no-output-file", f"`{command(job)}` wrote no {target}{printed}")
    return parse_json_text(text, target)


def blank_probe(script, names):
    """Blank lines skipped: the same records with and without blank lines between them."""
    plain, blank = summary_probe("", [ODD], script, names), summary_probe("", [BLANK], script, names)

    def judge(results):
        plain.judge(results[:1])
        error = results[1]["error"]
        if error:
            raise Wrong("blank-lines", f"`{command(blank.jobs[0])}` with blank lines: {error}")
        blank.judge(results[1:])
    return Probe("skips blank lines (empty, or only spaces)", plain.jobs + blank.jobs, judge,
                 {**plain.files, **blank.files})


def script_probes(lab_lines, seed=0, runs=4, script="summarize.py"):
    """The Probes for summarize.py: the lab's measured file, the small cases, blank lines, random inputs."""
    names, rng = _Names(), random.Random(seed)
    return [summary_probe("summarizes the lab's measured file (ttft.jsonl) as the lab does", [lab_lines],
                          script, names),
            *[summary_probe(rule, [lines], script, names) for rule, lines in CASES],
            blank_probe(script, names),
            summary_probe(f"matches the exact statistics on {runs} random measurements (seed {seed}: other "
                          f"pass names, document counts, orders, blank lines)",
                          [random_lines(rng) for _ in range(runs)], script, names)]


def lab_lines(path=None):
    """The lines of the measured file (default: the lab's, see kvlab.artifacts.ttft_source)."""
    return Path(path or artifacts.ttft_source()).read_text(encoding="utf-8").splitlines()


def summarize_script(path, seed=0, timeout=10.0, ttft=None):
    """Check a summarize.py (step 8) by running it in a sandbox on several inputs; one row per rule."""
    path = Path(path)
    if not path.is_file():
        return Report(path.name, [Row(f"{path} exists", False, f"{path} not found", "missing-file")])
    probes = script_probes(lab_lines(ttft), seed, script=path.name)
    return Report(f"{path.name} (step 8)", run_probes(path.parent, probes, timeout))


# --- a summarize function, in-process (for a notebook) --------------------------------------------

def _function_rule(rule, inputs):
    def probe(fn):
        for lines in inputs:
            records = records_of(lines)
            document = fn(copy.deepcopy(records))
            try:
                document = json.loads(json.dumps(document))
            except (TypeError, ValueError) as error:
                raise Wrong("summary-shape", f"the result cannot be saved as JSON: {error}") from None
            compare_summary(document, records, "the result")
    return Rule(rule, "raised", probe)


def summarize_function(fn, seed=0, timeout=2.0, ttft=None, runs=4):
    """Check a function summarize(records) -> summary dict (step 8); records are the parsed JSON lines.

    The same rules as summarize_script, except blank lines (a list of records has none).
    """
    rng = random.Random(seed)
    rules = [_function_rule("summarizes the lab's measured file (ttft.jsonl) as the lab does", [lab_lines(ttft)]),
             *[_function_rule(rule, [lines]) for rule, lines in CASES],
             _function_rule(f"matches the exact statistics on {runs} random measurements (seed {seed}: other "
                            f"pass names, document counts and orders)", [random_lines(rng) for _ in range(runs)])]
    name = getattr(fn, "__qualname__", repr(fn))
    return run_rules("summarize" if name == "summarize" else f"summarize ({name})", rules, (fn,), timeout)
