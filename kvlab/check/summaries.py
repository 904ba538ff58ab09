"""Rules for summarize.py (step 8), and the judge of a summary's JSON document.

A summary is judged against the exact statistics of its input (the oracle's), not against another
program's rounding: a value passes if it is on the right grid (1 decimal for ms, 2 for ratios) and
within half a step of the exact value, so sum(values) / n is as good as statistics.mean. When it is
off, the judge tries the classic mistakes on the same numbers and names the one that matches.
"""
import json
import random

from .probes import Probe, command, function_job, parse_json_text, returned, script_job, succeeded
from .report import Wrong

CONFIGS = ("baseline", "lmcache")
PUBLIC_SEED = 0
TOLERANCE = 1e-9  # floating-point slack when comparing a rounded value with its grid


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

CASES = [  # (rule, lines), simplest first
    ("p50 of an odd count is the middle of the sorted values", ODD),
    ("p50 of an even count is the mean of the two middle values (statistics.median)", EVEN),
    ("keeps pass names exactly as in the input (here pass1-cold, 'warm up' and replay-2)", NAMES),
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


def records_of(lines):
    return [json.loads(line) for line in lines if line.strip()]


def _measured(lines):
    """{(config, pass): [ttft_ms in input order]}: the numbers the classic mistakes are made of."""
    numbers = {}
    for record in records_of(lines):
        numbers.setdefault((record["config"], record["pass"]), []).append(record["ttft_ms"])
    return numbers


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _rounds_to(got, exact, places):
    """`got` is `exact` rounded to `places` decimals (any correct way of computing and rounding it)."""
    return (_number(got) and exact is not None and abs(round(got, places) - got) < TOLERANCE
            and abs(got - exact) <= 0.5 * 10 ** -places + TOLERANCE)


def _middles(values):
    """The sorted middle value(s), and the unsorted ones a median that forgot to sort would take."""
    ordered, half = sorted(values), len(values) // 2
    if len(values) % 2:
        return [ordered[half]], [values[half]]
    return ordered[half - 1:half + 1], [values[half], (values[half - 1] + values[half]) / 2]


def _check_p50(got, exact, values, label):
    if _rounds_to(got, exact, 1):
        return
    sorted_middles, unsorted = _middles(values)
    if len(values) % 2 == 0 and any(_rounds_to(got, value, 1) for value in sorted_middles):
        raise Wrong("median-even", f"{label} is {got}, expected {round(exact, 1)}")
    if any(_rounds_to(got, value, 1) and value != exact for value in unsorted):
        raise Wrong("median-unsorted", f"{label} is {got}, expected {round(exact, 1)}")
    _off(got, exact, label, 1)


def _off(got, exact, label, places):
    if _number(got) and abs(got - exact) <= 0.5 * 10 ** -places + TOLERANCE:
        raise Wrong("not-rounded", f"{label} is {got}, expected {round(exact, places)}")
    raise Wrong("wrong-stat", f"{label} should be {round(exact, places)}, got {got!r}")


def _check_ratio(got, baseline, lmcache, label):
    exact = baseline / lmcache if lmcache else None
    if exact is None and got is None or _rounds_to(got, exact, 2):
        return
    if round(lmcache, 1) and _rounds_to(got, round(baseline, 1) / round(lmcache, 1), 2):
        raise Wrong("rounds-before-ratio", f"{label} is {got}, expected {round(exact, 2)}")
    if baseline and _rounds_to(got, lmcache / baseline, 2):
        raise Wrong("ratio-inverted", f"{label} is {got}, expected {round(exact, 2)}")
    if exact is None:
        raise Wrong("wrong-stat", f"{label} should be null (lmcache's statistic is 0), got {got!r}")
    _off(got, exact, label, 2)


def compare_summary(document, lines, oracle, what="the summary"):
    """Raise Wrong, naming the likeliest mistake, unless `document` summarizes `lines` as the lab asks."""
    exact, measured = oracle.summary(lines), _measured(lines)
    if not isinstance(document, dict) or any(not isinstance(document.get(key), dict) for key in (*CONFIGS, "ratio")):
        raise Wrong("summary-shape", f"{what} is {str(document)[:80]}")
    for config in CONFIGS:
        got, want = document[config], exact[config]
        if set(got) != set(want):
            raise Wrong("pass-names", f"{what}, {config}: passes {list(got)}, expected {list(want)}")
        for name, (count, median, mean) in want.items():
            entry, label = got[name], f"{what}, {config} {name!r}"
            if not isinstance(entry, dict) or set(entry) != {"n", "p50_ms", "mean_ms"}:
                raise Wrong("summary-shape", f"{label} is {entry!r}")
            if entry["n"] != count:
                raise Wrong("n-count", f"{label}: n should be {count}, got {entry['n']!r}")
            _check_p50(entry["p50_ms"], median, measured[config, name], f"{label} p50_ms")
            if not _rounds_to(entry["mean_ms"], mean, 1):
                _off(entry["mean_ms"], mean, f"{label} mean_ms", 1)
    both = [name for name in exact["baseline"] if name in exact["lmcache"]]
    if set(document["ratio"]) != set(both):
        raise Wrong("pass-names", f"{what}, ratio: passes {list(document['ratio'])}, expected {both}")
    for name in both:
        entry, label = document["ratio"][name], f"{what}, ratio {name!r}"
        if not isinstance(entry, dict) or set(entry) != {"p50", "mean"}:
            raise Wrong("summary-shape", f"{label} is {entry!r}")
        for key, index in (("p50", 1), ("mean", 2)):
            _check_ratio(entry[key], exact["baseline"][name][index], exact["lmcache"][name][index], f"{label} {key}")


# --- summarize.py run as a script, and summarize() called as a function --------------------------

class Names:
    """Unique input and output file names inside the scratch copy."""

    def __init__(self):
        self.count = 0

    def __call__(self):
        self.count += 1
        return f"kvlab-input-{self.count}.jsonl", f"kvlab-output-{self.count}.json"


def _written(job, outcome, target):
    succeeded(outcome, job)
    text = (outcome.get("files") or {}).get(target)
    if text is None:
        printed = " (it printed the summary on stdout instead)" if (outcome.get("stdout") or "").strip().startswith("{") else ""
        raise Wrong("no-output-file", f"`{command(job)}` wrote no {target}{printed}")
    return parse_json_text(text, target)


def summary_probe(rule, inputs, script, names):
    """Run the script on each input (a list of lines) and judge each output file."""
    jobs, files, judged = [], {}, []
    for lines in inputs:
        source, target = names()
        jobs.append(script_job(script, (source, target), read=(target,)))
        files[source] = "\n".join(lines) + "\n"
        judged.append((target, lines))

    def judge(outcomes, oracle):
        for job, outcome, (target, lines) in zip(jobs, outcomes, judged):
            compare_summary(_written(job, outcome, target), lines, oracle, f"`{command(job)}`")
    return Probe(rule, jobs, judge, files)


def blank_probe(script, names):
    """Blank lines skipped: the same records with and without blank lines between them."""
    plain, blank = summary_probe("", [ODD], script, names), summary_probe("", [BLANK], script, names)

    def judge(outcomes, oracle):
        plain.judge(outcomes[:1], oracle)
        if outcomes[1].get("kind") != "ok":
            try:
                succeeded(outcomes[1], blank.jobs[0])
            except Wrong as wrong:
                raise Wrong("blank-lines", f"`{command(blank.jobs[0])}` with blank lines: {wrong.detail}") from None
        blank.judge(outcomes[1:], oracle)
    return Probe("skips blank lines (empty, or only spaces)", plain.jobs + blank.jobs, judge,
                 {**plain.files, **blank.files})


def script_probes(lab_lines, seed=PUBLIC_SEED, runs=4, script="summarize.py", names=None):
    """The Probes for summarize.py: the small cases, blank lines, the lab's measured file, random inputs.

    `names` gives the input and output files their names; share one between calls whose probes run together.
    """
    names, rng = names or Names(), random.Random(seed)
    return [*[summary_probe(rule, [lines], script, names) for rule, lines in CASES],
            blank_probe(script, names),
            summary_probe("summarizes the lab's measured file (ttft.jsonl) as the lab does", [lab_lines], script, names),
            summary_probe(f"matches the exact statistics on {runs} random measurements (seed {seed}: other pass names, "
                          "document counts, orders, blank lines)", [random_lines(rng) for _ in range(runs)],
                          script, names)]


def function_probes(lab_lines, seed=PUBLIC_SEED, runs=4, module="summarize"):
    """The same rules for summarize(records) called as a function (no blank lines: records have none)."""
    rng = random.Random(seed)
    cases = [*CASES, ("summarizes the lab's measured file (ttft.jsonl) as the lab does", lab_lines),
             (f"matches the exact statistics on {runs} random measurements (seed {seed})",
              [line for _ in range(runs) for line in random_lines(rng)])]
    probes = []
    for rule, lines in cases:
        job = function_job(module, "summarize", records_of(lines))

        def judge(outcomes, oracle, job=job, lines=lines):
            compare_summary(returned(outcomes[0], job), lines, oracle, "summarize(records)")
        probes.append(Probe(rule, [job], judge))
    return probes


def artifact_judge(lines, oracle):
    """judge(text) for measured.json: the summary of `lines` (the measured file)."""
    return lambda text: compare_summary(parse_json_text(text, "measured.json"), lines, oracle, "measured.json")
