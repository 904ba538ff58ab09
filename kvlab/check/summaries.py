"""Rules for summarize.py (step 8), and the judge of a summary's JSON document.

A summary is matched with the oracle's answer for its input: each ms value must be a right rounding
to 1 decimal of the exact statistic, each ratio a right rounding to 2 decimals of baseline / lmcache
(of the exact statistics, or of the rounded ones: the lab text allows both). When a value is off, the
judge matches it with what the classic mistakes give on the same numbers and names the one it is.
"""
import json
import random

from ..i18n import Msg
from .probes import Probe, command, function_job, parse_json_text, returned, script_job, succeeded
from .report import Wrong, shown

CONFIGS = ("baseline", "lmcache")


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
CASES = {"summary.odd": ODD, "summary.even": EVEN, "summary.names": NAMES, "summary.ratio": RATIO,
         "summary.layout": LAYOUT}


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


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_value(answer, got, path, places, label, mistakes=()):
    """A statistic: right, or one of the `mistakes` ((suffix, misconception)), not rounded, or wrong."""
    if answer.matches(got, path):
        return
    seen = Msg("seen.value", where=label, value=shown(got))
    if _number(got) and round(got, places) != got and answer.matches(round(got, places), path):
        raise Wrong("not-rounded", seen)
    for suffix, misconception in mistakes:
        if _number(got) and answer.matches(round(got, places), (*path[:-1], f"{path[-1]}:{suffix}")):
            raise Wrong(misconception, seen)
    raise Wrong("wrong-stat", seen)


def compare_summary(document, lines, oracle, what="summarize"):
    """Raise Wrong, naming the likeliest mistake, unless `document` summarizes `lines` as the lab asks."""
    answer = oracle.ask("summary", lines)
    if not isinstance(document, dict) or any(not isinstance(document.get(key), dict) for key in (*CONFIGS, "ratio")):
        raise Wrong("summary-shape", Msg("seen.document", what=what, start=shown(document, 80)))
    for config in CONFIGS:
        got = document[config]
        if not answer.matches(sorted(got), ("passes", config)):
            raise Wrong("pass-names", Msg("seen.pass-names", what=what, config=config, names=shown(list(got))))
        for name, entry in got.items():
            label = Msg("seen.summary-label", what=what, config=config, name=shown(name))
            if not isinstance(entry, dict) or set(entry) != {"n", "p50_ms", "mean_ms"}:
                raise Wrong("summary-shape", Msg("seen.value", where=label, value=shown(entry)))
            if not answer.matches(entry["n"], (config, name, "n")):
                raise Wrong("n-count", Msg("seen.value", where=label, value=shown(entry["n"])))
            _check_value(answer, entry["p50_ms"], (config, name, "p50_ms"), 1, label,
                         (("middle", "median-even"), ("unsorted", "median-unsorted")))
            _check_value(answer, entry["mean_ms"], (config, name, "mean_ms"), 1, label)
    if not answer.matches(sorted(document["ratio"]), ("passes", "ratio")):
        raise Wrong("pass-names", Msg("seen.pass-names", what=what, config="ratio", names=shown(list(document["ratio"]))))
    for name, entry in document["ratio"].items():
        label = Msg("seen.summary-label", what=what, config="ratio", name=shown(name))
        if not isinstance(entry, dict) or set(entry) != {"p50", "mean"}:
            raise Wrong("summary-shape", Msg("seen.value", where=label, value=shown(entry)))
        for stat in ("p50", "mean"):
            _check_value(answer, entry[stat], ("ratio", name, stat), 2, label, (("inverted", "ratio-inverted"),))


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
        printed = (outcome.get("stdout") or "").strip().startswith("{")
        raise Wrong("no-output-file", Msg("seen.no-file-printed" if printed else "seen.no-file", command=command(job),
                                          file=target))
    return parse_json_text(text, target)


def summary_probe(rule_id, text, inputs, names, script="summarize.py"):
    """Run the script on each input (a list of lines) and judge each output file."""
    jobs, files, judged = [], {}, []
    for lines in inputs:
        source, target = names()
        jobs.append(script_job(script, (source, target), read=(target,)))
        files[source] = "\n".join(lines) + "\n"
        judged.append((target, lines))

    def judge(outcomes, oracle):
        for job, outcome, (target, lines) in zip(jobs, outcomes, judged):
            compare_summary(_written(job, outcome, target), lines, oracle, command(job))
    return Probe(rule_id, text, jobs, judge, files)


def blank_probe(rule_id, names):
    """Blank lines skipped: the same records with and without blank lines between them."""
    plain = summary_probe(rule_id, None, [ODD], names)
    blank = summary_probe(rule_id, None, [BLANK], names)

    def judge(outcomes, oracle):
        plain.judge(outcomes[:1], oracle)
        if outcomes[1].get("kind") != "ok":
            try:
                succeeded(outcomes[1], blank.jobs[0])
            except Wrong as wrong:
                raise Wrong("blank-lines", wrong.seen) from None
        blank.judge(outcomes[1:], oracle)
    return Probe(rule_id, Msg(f"rule.{rule_id}"), plain.jobs + blank.jobs, judge, {**plain.files, **blank.files})


def build(rule_id, rng, lab_lines, names):
    """The Probe of a summarize.py rule (step 8)."""
    if rule_id in CASES:
        return summary_probe(rule_id, Msg(f"rule.{rule_id}"), [CASES[rule_id]], names)
    if rule_id == "summary.blank-lines":
        return blank_probe(rule_id, names)
    if rule_id == "summary.lab-file":
        return summary_probe(rule_id, Msg(f"rule.{rule_id}"), [lab_lines], names)
    if rule_id in ("summary.random", "summary.hidden-random"):
        return summary_probe(rule_id, Msg(f"rule.{rule_id}", runs=4), [random_lines(rng) for _ in range(4)], names)
    raise KeyError(rule_id)


def function_probes(lab_lines, rng, module="summarize"):
    """The same rules for summarize(records) called as a function (no blank lines: records have none)."""
    cases = [*CASES.items(), ("summary.lab-file", lab_lines),
             ("summary.random", [line for _ in range(4) for line in random_lines(rng)])]
    probes = []
    for rule_id, lines in cases:
        job = function_job(module, "summarize", records_of(lines))

        def judge(outcomes, oracle, job=job, lines=lines):
            compare_summary(returned(outcomes[0], job), lines, oracle, "summarize(records)")
        probes.append(Probe(rule_id, Msg(f"rule.{rule_id}", runs=4), [job], judge))
    return probes


def artifact_judge(lines, oracle):
    """judge(text) for measured.json: the summary of `lines` (the measured file)."""
    return lambda text: compare_summary(parse_json_text(text, "measured.json"), lines, oracle, "measured.json")
