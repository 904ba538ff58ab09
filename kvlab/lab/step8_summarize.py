"""Step 8: summarize.py IN OUT, and measured.json.

The lab text's contract: each input line is one JSON object (config, pass, doc, doc_tokens, ttft_ms,
total_ms); blank lines are skipped; the output is {"baseline": {PASS: {"n", "p50_ms", "mean_ms"}},
"lmcache": {...}, "ratio": {PASS: {"p50", "mean"}}}: p50 is statistics.median, ms values rounded to 1
decimal, ratio = baseline / lmcache rounded to 2 (of the exact statistics or of the rounded ones: both
readings are right); pass names exactly as in the input. Each rule compares one part of the output, so a
ratio the wrong way round costs the ratio only; and a ratio is right when it is the lab's, or when it is
what the student's own (wrong) statistics give: one mistake in the median is paid once.
The grader runs it on inputs with other document counts, names and orders; the lab text says nothing of
a ratio whose lmcache statistic is 0, so no input has one.
"""
import json
import math
import statistics

from . import commands
from .base import Misconception, Plant, Rule, StepSpec, by_size
from .numbers import CONFIGS
from .outcomes import compared, stop_of

NUMBER = 8
FILE = "summarize.py"
INPUT, OUTPUT = "kvlab-input.jsonl", "kvlab-output.json"
POOL = ("pass1-cold", "pass2-replay", "pass3-reverse", "warmup", "replay-2", "Pass 3 (reverse)", "冷启动")
TOLERANCE = 1e-9

MESSAGES = {
    "step.8.title": "summarize.py and measured.json",
    "rule.summary.layout": "The output file holds {\"baseline\": {...}, \"lmcache\": {...}, \"ratio\": {...}}.",
    "rule.summary.passes": "The passes of each part, named exactly as in the input.",
    "rule.summary.n": "n of each config and pass.",
    "rule.summary.p50": "p50_ms: the median, rounded to 1 decimal.",
    "rule.summary.mean": "mean_ms: the mean, rounded to 1 decimal.",
    "rule.summary.ratio": "`ratio`: baseline / lmcache of each statistic, rounded to 2 decimals.",
    "rule.summary.blank": "Blank lines are skipped: the same summary with them as without.",
    "rule.measured.file": "measured.json is what your summarize.py writes for this folder's ttft.jsonl.",
    "rule.ttft.file": "ttft.jsonl is the measured file, copied unchanged.",
    "seen.ttft-line": "Line {line} of your ttft.jsonl: {yours}. The measured file's line {line}: {theirs}.",
    "seen.no-line": "no such line",
}


def lines_of(passes, rng=None, shuffle=False):
    """JSONL lines for {pass: {config: [ttft_ms, ...]}}; `shuffle` mixes them (with `rng`)."""
    lines = []
    for config in CONFIGS:
        for name, configs in passes.items():
            for doc, ttft in enumerate(configs.get(config, ())):
                lines.append(json.dumps({"config": config, "pass": name, "doc": doc, "doc_tokens": 4864,
                                         "ttft_ms": ttft, "total_ms": round(ttft + 150, 1)}, ensure_ascii=False))
    if shuffle:
        rng.shuffle(lines)
    return lines


def _value(rng):
    return rng.choice([round(rng.uniform(20, 700), 1), round(rng.uniform(20, 700), 2), rng.randint(20, 700),
                       round(rng.uniform(1, 60), 2)])


def random_input(rng, hidden):
    passes = {}
    for name in rng.sample(POOL, rng.randint(1, 3)):
        configs = {}
        for config in CONFIGS:
            if config == "lmcache" and rng.random() < 0.12:
                continue  # a pass measured in one config only
            count = rng.randint(1, 12 if hidden else 6)
            values = [_value(rng) for _ in range(count)]
            if config == "baseline" and rng.random() < 0.1:
                values[0] = 0  # a zero: its ratio is 0, which is a ratio like any other
            configs[config] = values
        passes[name] = configs
    if rng.random() < 0.1:
        passes = {name: {"baseline": configs.get("baseline", [100.0])} for name, configs in passes.items()}
    return lines_of(passes, rng, shuffle=rng.random() < 0.5)


# Inputs the lab text's contract must hold on, whatever the random ones draw: one config only (its part is
# {} and there is no ratio), a pass in one config only, a baseline at 0 ms (a ratio of 0), equal values.
SHAPES = (
    {"pass1-cold": {"baseline": [590.0, 580.0]}},
    {"pass1-cold": {"baseline": [600.0, 610.0], "lmcache": [590.0, 600.0]}, "warmup": {"baseline": [700.0]}},
    {"pass2-replay": {"baseline": [0, 0, 0], "lmcache": [48.5, 49.0, 48.0]}},
    {"pass3-reverse": {"baseline": [30.0, 30.0, 575.0, 30.0], "lmcache": [30.0, 48.0, 48.0, 30.0]}},
)


def cases(rng, hidden):
    found = [{"kind": "input", "lines": random_input(rng, hidden)} for _ in range(8 if hidden else 10)]
    if not hidden:
        found += [{"kind": "input", "lines": lines_of(shape)} for shape in SHAPES]
    for _ in range(1 if hidden else 2):
        lines = random_input(rng, hidden)
        blank = list(lines)
        for _ in range(rng.randint(1, 3)):
            blank.insert(rng.randint(0, len(blank)), rng.choice(["", " ", "\t", "   "]))
        found.append({"kind": "blank", "lines": lines, "blank": blank})
    return by_size(found, size)


def size(case):
    return (len(case.get("lines") or ()), sum(len(line) for line in case.get("lines") or ()))


def _job(lines):
    return {"kind": "script", "script": "summarize.py", "argv": [INPUT, OUTPUT], "read": [OUTPUT],
            "files": {INPUT: "\n".join(lines) + "\n"}}


def jobs(case):
    if case["kind"] == "blank":
        return [_job(case["blank"]), _job(case["lines"])]
    if case["kind"] == "artifact":  # the summary of this folder's ttft.jsonl, and of the lab's measured file
        inputs = [case.get("input"), case.get("lab")]
        return [_job(text.splitlines()) for text in dict.fromkeys(one for one in inputs if one is not None)]
    if case["kind"] == "ttft":
        return []
    return [_job(case["lines"])]


def observe_one(outcome):
    stop = stop_of(outcome)
    text = (outcome.get("files") or {}).get(OUTPUT)
    if stop is None and text is None:
        stop = {"stop": "no-output-file", "type": None, "at": 0}
    doc, strict = commands.read_json(text) if stop is None else (None, False)
    if stop is None and doc is None:
        stop = {"stop": "no-json", "type": None, "at": 0, "text": (text or "")[:120]}
    return {"doc": doc, "strict": strict, "stop": stop}


def observe(case, outcomes):
    return {"runs": [observe_one(outcome) for outcome in outcomes]}


# --- what the lab's rules give ---------------------------------------------------------------------

def _grid(exact, places):
    """The values a right answer may hold: `exact` rounded, and its neighbour when it lies on a half step."""
    step = 10 ** -places
    return sorted({round(value, places) for value in (exact - TOLERANCE, exact, exact + TOLERANCE)
                   if abs(round(value, places) - exact) <= step / 2 + TOLERANCE})


def groups(lines):
    found = {config: {} for config in CONFIGS}
    for line in lines:
        if line.strip():
            record = json.loads(line)
            found[record["config"]].setdefault(record["pass"], []).append(record["ttft_ms"])
    return found


def expect(case):
    """What the lab's rules give for an input case: the n, and every right rounding of each statistic."""
    if case["kind"] != "input":
        return None
    found = groups(case["lines"])
    want = {"configs": {}, "ratio": {}}
    exact = {}
    for config, passes in found.items():
        want["configs"][config] = {}
        for name, values in passes.items():
            median, mean = statistics.median(values), statistics.mean(values)
            exact[config, name] = (median, mean)
            want["configs"][config][name] = {"n": len(values), "p50_ms": _grid(median, 1), "mean_ms": _grid(mean, 1)}
    for name in found["baseline"]:
        if name not in found["lmcache"]:
            continue
        entry = {}
        for index, stat in enumerate(("p50", "mean")):
            base, lm = exact["baseline", name][index], exact["lmcache", name][index]
            readings = set(_grid(base / lm, 2))
            if round(lm, 1):
                readings |= set(_grid(round(base, 1) / round(lm, 1), 2))
            entry[stat] = sorted(readings)
        want["ratio"][name] = entry
    return want


# --- the rules --------------------------------------------------------------------------------------

def _doc(obs):
    run = obs["runs"][0]
    return None if run["stop"] is not None else run["doc"]


def _stopped(obs):
    run = obs["runs"][0]
    return {"stop": compared(run["stop"])} if run["stop"] is not None else None


def layout_view(case, obs):
    if _stopped(obs):
        return _stopped(obs)
    doc = _doc(obs)
    if not isinstance(doc, dict):
        return type(doc).__name__
    return {key: type(value).__name__ for key, value in sorted(doc.items())}


def layout_holds(case, got, want):
    return layout_view(case, got) == {"baseline": "dict", "lmcache": "dict", "ratio": "dict"}


def _parts(obs):
    doc = _doc(obs)
    return {part: doc.get(part) for part in (*CONFIGS, "ratio")} if isinstance(doc, dict) else None


def passes_view(case, obs):
    parts = _parts(obs)
    if parts is None:
        return _stopped(obs) or "no-summary"
    return {part: sorted(value) if isinstance(value, dict) else None for part, value in parts.items()}


def passes_holds(case, got, want):
    return passes_view(case, got) == {**{config: sorted(want["configs"][config]) for config in CONFIGS},
                                      "ratio": sorted(want["ratio"])}


def _entry(parts, config, name, field):
    part = (parts or {}).get(config)
    entry = part.get(name) if isinstance(part, dict) else None
    return entry.get(field) if isinstance(entry, dict) else None


def stat_view(field):
    def view(case, obs):
        parts = _parts(obs)
        if parts is None:
            return _stopped(obs) or "no-summary"
        return {config: {name: _entry(parts, config, name, field) for name in sorted(groups(case["lines"])[config])}
                for config in CONFIGS}
    return view


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def stat_holds(field):
    def holds(case, got, want):
        parts = _parts(got)
        if parts is None:
            return False
        for config in CONFIGS:
            for name, expected in want["configs"][config].items():
                value = _entry(parts, config, name, field)
                if field == "n":
                    if value != expected["n"] or isinstance(value, bool):
                        return False
                elif not _number(value) or not any(abs(value - one) < 1e-9 for one in expected[field]):
                    return False
        return True
    return holds


def ratio_view(case, obs):
    parts = _parts(obs)
    if parts is None:
        return _stopped(obs) or "no-summary"
    ratio = parts.get("ratio") if isinstance(parts.get("ratio"), dict) else {}
    return {name: ratio.get(name) for name in sorted(ratio)}


def ratio_holds(case, got, want):
    """Each ratio is the lab's (either reading), or baseline / lmcache of the student's own rounded statistics."""
    parts = _parts(got)
    if parts is None or not isinstance(parts.get("ratio"), dict):
        return False
    for name, expected in want["ratio"].items():
        entry = parts["ratio"].get(name)
        if not isinstance(entry, dict):
            return False
        for stat, field in (("p50", "p50_ms"), ("mean", "mean_ms")):
            value = entry.get(stat)
            if not _number(value):
                return False
            if any(abs(value - one) < 1e-9 for one in expected[stat]):
                continue
            base, lm = _entry(parts, "baseline", name, field), _entry(parts, "lmcache", name, field)
            if not (_number(base) and _number(lm) and lm and abs(value - base / lm) <= 0.005 + 1e-9):
                return False
    return True


def blank_holds(case, got, want):
    with_blanks, without = got["runs"]
    return with_blanks["stop"] is None and without["stop"] is None and with_blanks["doc"] == without["doc"]


def blank_view(case, obs):
    return [run["doc"] if run["stop"] is None else {"stop": compared(run["stop"])} for run in obs["runs"]]


def file_holds(case, got, want):
    """measured.json is what the student's summarize.py writes for this folder's ttft.jsonl, or for the lab's
    measured file (a changed ttft.jsonl is ttft.jsonl's mistake, named by its own rule)."""
    saved = commands.file_view(case)
    return case.get("text") is not None and any(run["stop"] is None and saved == run["doc"] for run in got["runs"])


def file_view(case, obs):
    mine = obs["runs"][0] if obs["runs"] else None
    return [commands.file_view(case), None if mine is None else mine["doc"] if mine["stop"] is None
            else {"stop": compared(mine["stop"])}]


def ttft_holds(case, got, want):
    return case.get("text") is not None and case.get("lab") is not None and \
        _records(case["text"]) == _records(case["lab"])


def _records(text):
    """A JSONL text's records, as values (a byte order mark, CRLF and blank lines change nothing)."""
    return [_record(line) for line in _lines(text)]


def ttft_view(case, obs):
    return [None if case.get("text") is None else len(_records(case["text"])), None]


def difference(case):
    """What a changed ttft.jsonl shows: its first line that differs from the measured file's, as (message id,
    {parameter: value}), a missing line None (None for any other case)."""
    if case["kind"] != "ttft" or case.get("text") is None or case.get("lab") is None:
        return None
    mine, theirs = _lines(case["text"]), _lines(case["lab"])
    at = next((index for index, (one, other) in enumerate(zip(mine, theirs)) if _record(one) != _record(other)),
              min(len(mine), len(theirs)))
    return "seen.ttft-line", {"line": at + 1, "yours": mine[at] if at < len(mine) else None,
                              "theirs": theirs[at] if at < len(theirs) else None}


def _lines(text):
    return [line for line in text.lstrip(commands.BOM).splitlines() if line.strip()]


def _record(line):
    try:
        return json.loads(line)
    except ValueError:
        return line


def layout_shows(case, want):
    return {"baseline": "dict", "lmcache": "dict", "ratio": "dict"}


def passes_shows(case, want):
    return {**{config: sorted(want["configs"][config]) for config in CONFIGS}, "ratio": sorted(want["ratio"])}


def stat_shows(field):
    def shows(case, want):
        return {config: {name: entry[field] if field == "n" else entry[field][0]
                         for name, entry in sorted(want["configs"][config].items())} for config in CONFIGS}
    return shows


def ratio_shows(case, want):
    return {name: {stat: options[0] for stat, options in entry.items()} for name, entry in sorted(want["ratio"].items())}


RULES = (
    Rule("summary.layout", ("input",), layout_view, points=1, holds=layout_holds, shows=layout_shows),
    Rule("summary.passes", ("input",), passes_view, points=1, holds=passes_holds, shows=passes_shows),
    Rule("summary.n", ("input",), stat_view("n"), points=1, holds=stat_holds("n"), shows=stat_shows("n")),
    Rule("summary.p50", ("input",), stat_view("p50_ms"), points=2, holds=stat_holds("p50_ms"),
         shows=stat_shows("p50_ms")),
    Rule("summary.mean", ("input",), stat_view("mean_ms"), points=2, holds=stat_holds("mean_ms"),
         shows=stat_shows("mean_ms")),
    Rule("summary.ratio", ("input",), ratio_view, points=2, holds=ratio_holds, shows=ratio_shows),
    Rule("summary.blank", ("blank",), blank_view, points=1, holds=blank_holds, own=True),
    Rule("ttft.file", ("ttft",), ttft_view, points=1, holds=ttft_holds, own=True),
    Rule("measured.file", ("artifact",), file_view, points=1, holds=file_holds, own=True),
)

MISCONCEPTIONS = tuple(Misconception(name, NUMBER) for name in (
    "median-even", "median-unsorted", "ratio-inverted", "not-rounded", "pass-names", "blank-lines",
    "summary-shape", "n-count", "no-output-file", "missing-artifact", "ttft-changed"))


def artifact_cases(texts):
    return [{"kind": "ttft", "name": "ttft.jsonl", "text": texts.get("ttft.jsonl"), "lab": texts.get("$lab")},
            {"kind": "artifact", "name": "measured.json", "text": texts.get("measured.json"),
             "input": texts.get("ttft.jsonl"), "lab": texts.get("$lab")}]


def explain(case, got):
    """Known mistakes that the numbers show: a ratio the wrong way round, the median of an even count."""
    if case["kind"] == "artifact":
        return "missing-artifact" if case.get("text") is None else ""
    if case["kind"] == "ttft":
        return "missing-artifact" if case.get("text") is None else "ttft-changed"
    if case["kind"] != "input":
        return ""
    parts, want = _parts(got), expect(case)
    if parts is None:
        return ""
    for name, expected in want["ratio"].items():
        entry = (parts.get("ratio") or {}).get(name) if isinstance(parts.get("ratio"), dict) else None
        value = entry.get("p50") if isinstance(entry, dict) else None
        if _number(value) and value and all(abs(1 / value - one) < 0.02 for one in expected["p50"]) and \
                not any(abs(value - one) < 1e-9 for one in expected["p50"]):
            return "ratio-inverted"
    return ""


def shrink(case):
    if case["kind"] != "input":
        return
    lines = case["lines"]
    for index in range(len(lines)):
        if len(lines) > 1:
            yield {"kind": "input", "lines": lines[:index] + lines[index + 1:]}
    for index in range(len(lines) - 1):  # two at once: an even count stays even
        if len(lines) > 2:
            yield {"kind": "input", "lines": lines[:index] + lines[index + 2:]}


def show(case):
    if case["kind"] in ("artifact", "ttft"):
        return case["name"]
    lines = case["lines"] if case["kind"] == "input" else case["blank"]
    return "python3 summarize.py in.jsonl out.json  # in.jsonl:\n" + "\n".join(lines)


STEP = StepSpec(NUMBER, FILE, ("read_records", "summarize", "to_json", "main"), ("measured.json",), "06_measured_ttft",
                "summarize", rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    """{misconception: [Plant]}: the classic mistakes, played on the reference (the instructor edition's only)."""
    # BEGIN SOLUTION ...
    statistics_of = "(len(values), statistics.median(values), statistics.mean(values))"
    return {
        "median-even": [Plant(FILE, "summarize", statistics_of, statistics_of.replace("median(", "median_low("))],
        "median-unsorted": [Plant(FILE, "summarize", statistics_of,
                                  statistics_of.replace("statistics.median(values)", "values[len(values) // 2]"))],
        "ratio-inverted": [Plant(FILE, "summarize", "round(base[name][at] / lm[name][at], 2) if lm[name][at]",
                                 "round(lm[name][at] / base[name][at], 2) if base[name][at]")],
        "not-rounded": [Plant(FILE, "summarize", '"p50_ms": round(p50, 1)', '"p50_ms": p50')],
        "pass-names": [Plant(FILE, "summarize", 'ttfts[record["config"]].setdefault(record["pass"], [])',
                             'ttfts[record["config"]].setdefault(record["pass"].split("-")[0], [])')],
        "blank-lines": [Plant(FILE, "read_records", '            if line.strip() == "":  # a blank line counts for nothing\n'
                                                     "                continue\n", "")],
        "n-count": [Plant(FILE, "summarize", '{"n": n,', '{"n": n + 1,')],
    }
    # END SOLUTION
