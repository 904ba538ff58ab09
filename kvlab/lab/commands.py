"""Cases for the commands (steps 2-4, 6, 7: scenario.py; step 8: summarize.py) and for the JSON files.

scenario.py is judged as the command the lab text describes: `python3 scenario.py --gpu G --docs D
--tokens T --passes P [--cpu C]`, whatever is inside the file (argparse at the top, main(), run() or
none of them). Its stdout is read twice: strictly (is it exactly one JSON document? one rule asks that)
and leniently (the JSON object in it, even after a line of text), so that each rule compares only its
own part. A JSON file the student saved is read as the values it holds: a byte order mark, CRLF line
ends and indentation change nothing.
"""
import functools
import json

from .numbers import FWD_FWD, ORDERS
from .outcomes import compared, stop_of

BOM = "\ufeff"
_DECODER = json.JSONDecoder()


LENIENT_STARTS = 20  # where a JSON object may start after other text: the first "{" of this many lines


@functools.lru_cache(maxsize=64)  # a saved file is read by several rules
def read_json(text):
    """(the JSON value in `text`, whether `text` is exactly one JSON document) — (None, False) if there is none.
    Leniently: the JSON object that starts at a line's first "{" (of the first LENIENT_STARTS lines), so that
    a line of text before the document changes nothing (a file of 50,000 "{" is not tried 50,000 times)."""
    if text is None:
        return None, False
    text = text.lstrip(BOM)
    try:
        return json.loads(text), True
    except (ValueError, RecursionError):  # not JSON; an integer of over 4,300 digits; nesting too deep
        pass
    starts, end = [], 0
    while len(starts) < LENIENT_STARTS and end <= len(text):
        brace, newline = text.find("{", end), text.find("\n", end)
        if brace < 0:
            break
        if newline < 0 or brace < newline:
            starts.append(brace)
        end = (newline if newline >= 0 else len(text)) + 1
    for start in starts:
        try:
            value, _ = _DECODER.raw_decode(text, start)
            return value, False
        except (ValueError, RecursionError):
            continue
    return None, False


def argv(params):
    """The command-line arguments of a scenario: only the options `params` sets, in the lab text's order."""
    found = []
    for option in ("gpu", "cpu", "docs", "tokens"):
        if option in params:
            found += [f"--{option}", str(params[option])]
    if "passes" in params:
        found += ["--passes", ",".join(params["passes"])]
    return found


def scenario_job(params):
    return {"kind": "script", "script": "scenario.py", "argv": argv(params), "read": []}


def observe_run(outcome):
    """{"doc": the JSON document scenario.py printed (read leniently), "strict": was stdout exactly one JSON
    document, "stop": how the run stopped}."""
    stop = stop_of(outcome)
    doc, strict = read_json(outcome.get("stdout")) if stop is None else (None, False)
    if stop is None and doc is None:
        stop = {"stop": "no-json", "type": None, "at": 0, "text": (outcome.get("stdout") or "")[:120]}
    return {"doc": doc, "strict": strict, "stop": stop, "stdout": (outcome.get("stdout") or "")[:100_000]}


def passes_of(run):
    """The pass objects of an observed run, or None when its document does not hold a list of them."""
    doc = run.get("doc")
    passes = doc.get("passes") if isinstance(doc, dict) else None
    return passes if isinstance(passes, list) and all(isinstance(one, dict) for one in passes) else None


def field_view(run, names):
    """[[one pass's fields], ...] of a run, or how it failed (stopped, no document, not the lab's shape)."""
    if run.get("stop") is not None:
        return {"stop": compared(run["stop"])}
    passes = passes_of(run)
    if passes is None:
        return {"shape": shape(run.get("doc"))}
    return [[one.get(name) for name in names] for one in passes]


def by_name(view, names):
    """A field view as a student reads it: one {field: value} per pass; how the run failed as it is."""
    return [dict(zip(names, one)) for one in view] if isinstance(view, list) else view


def named_fields(run, names):
    """What a student reads of those fields: one {field: value} per pass, or how the run failed (field_view)."""
    return by_name(field_view(run, names), names)


def shape(doc):
    """The layout of a document: {"passes": [the keys of each pass]}, or the type of what is there instead."""
    if not isinstance(doc, dict):
        return type(doc).__name__
    passes = doc.get("passes")
    if not isinstance(passes, list):
        return {"keys": sorted(doc)}
    return {"keys": sorted(doc), "passes": [sorted(one) if isinstance(one, dict) else type(one).__name__
                                            for one in passes]}


def random_params(rng, count, cpu=False, docs=(1, 6), big=False):
    """Scenarios around the cliffs: capacities on and next to multiples of the document size, any passes."""
    found = []
    for number in range(count):
        doc_count = rng.randint(*docs)
        tokens = rng.choice([1, 2, 3, rng.randint(2, 12), rng.randint(10, 40)] + ([rng.randint(100, 6000)] if big else []))
        passes = [rng.choice(ORDERS) for _ in range(rng.randint(1, 4))]
        if number % 3 == 0:
            passes[0] = "rev"  # reading backwards first must work too
        params = {"gpu": max(0, tokens * rng.randint(0, doc_count + 1) + rng.choice([-1, 0, 0, 1])),
                  "docs": doc_count, "tokens": tokens, "passes": passes}
        if cpu:
            params["cpu"] = max(0, tokens * rng.randint(0, doc_count + 1) + rng.choice([-1, 0, 0, 1]))
        found.append(params)
    return found


def reverse_params(rng, count, cpu=False):
    """The lab's shape, small: a GPU that holds some of the documents, then a pass read backwards (which ones it
    hits, in which order, is what tells the rev order, the hit order and a shared cache apart)."""
    found = []
    for _ in range(count):
        docs, tokens = rng.randint(4, 6), rng.randint(1, 3)
        params = {"gpu": tokens * rng.randint(2, docs - 1), "docs": docs, "tokens": tokens,
                  "passes": rng.choice([["fwd", "rev"], ["fwd", "fwd", "rev"], ["rev", "fwd"]])}
        if cpu:
            params["cpu"] = tokens * rng.randint(1, docs + 1)
        found.append(params)
    return found


def large_params(rng, count, cpu=False):
    """Scenarios with capacities in the thousands of tokens (as the lab's are) over small documents."""
    found = []
    for _ in range(count):
        params = {"gpu": rng.choice([6000, 10000, 21520, 40000]), "docs": rng.randint(2, 6),
                  "tokens": rng.randint(2, 30), "passes": [rng.choice(ORDERS) for _ in range(rng.randint(2, 3))]}
        if cpu:
            params["cpu"] = rng.choice([6000, 20000, 56000])
        found.append(params)
    return found


def params_size(params):
    return (params.get("docs", 10), len(params.get("passes", "abc")), params.get("tokens", 5011),
            params.get("gpu", 0), params.get("cpu", 0))


def shrink_params(params, keep=()):
    """Smaller scenarios: fewer documents, fewer passes, smaller documents (capacities scaled along)."""
    docs, passes, tokens = params["docs"], params["passes"], params["tokens"]
    for fewer in sorted({1, docs // 2, docs - 1}):
        if 1 <= fewer < docs:
            yield {**params, "docs": fewer}
    for index in range(len(passes)):
        if len(passes) > 1 and "passes" not in keep:
            yield {**params, "passes": passes[:index] + passes[index + 1:]}
    for order in ORDERS:
        changed = [order if one != order else one for one in passes]
        if changed != passes and "passes" not in keep:
            yield {**params, "passes": changed}
    for smaller in sorted({1, 2, tokens // 2}):
        if 1 <= smaller < tokens:
            scaled = {**params, "tokens": smaller}
            for option in ("gpu", "cpu"):
                if option in params:
                    whole, rest = divmod(params[option], tokens)
                    scaled[option] = whole * smaller + min(rest, smaller - 1)  # as many documents fit
            yield scaled
    for option in ("gpu", "cpu"):
        if option in params and option not in keep and params[option] > 0:
            yield {**params, option: params[option] - 1}


def show_params(params, script="scenario.py"):
    """The command that runs a scenario (code, never translated)."""
    return " ".join(["python3", script, *argv(params)])


def artifact_case(name, text, runs):
    """A JSON file of the hand-in, with the runs of the student's own code that make it."""
    return {"kind": "artifact", "name": name, "text": text, "runs": [list(map(str, one)) for one in runs]}


def same_text(saved, printed):
    """Two texts alike but for a byte order mark, line ends and surrounding blank space."""
    def normal(text):
        return None if text is None else text.lstrip(BOM).replace("\r\n", "\n").strip()
    return saved is not None and normal(saved) == normal(printed)


def holds_what_it_printed(case, run):
    """A saved file holds what the student's command printed: the same values, or the same text (a run that
    printed no JSON document, or crashed, saved as it was: the mistake is the code's, paid in its own step)."""
    if case.get("text") is None:
        return False
    if run["stop"] is None and file_view(case) == run["doc"]:
        return True
    return same_text(case["text"], run.get("stdout"))


def stub_stop(obs):
    """The stop of a run whose code is not there (a stub not written, no such file), else None."""
    for run in obs.get("runs") or ():
        stop = run.get("stop")
        if stop and (stop["stop"] in ("missing", "missing-name") or stop.get("type") == "NotImplementedError"):
            return stop
    return None


def artifact_jobs(case, script="scenario.py"):
    return [{"kind": "script", "script": script, "argv": run, "read": []} for run in case["runs"]]


def file_view(case):
    """The saved file's values: None when it is missing, {"unreadable": ...} when it holds no JSON."""
    if case.get("text") is None:
        return None
    value, _ = read_json(case["text"])
    return value if value is not None else {"unreadable": case["text"][:80]}


def sweep_runs(option, capacities, fixed):
    """The runs of a sweep over `option` (gpu or cpu) at `fixed` other options (passes fwd,fwd unless it names some)."""
    return [argv({"passes": list(FWD_FWD), **fixed, option: capacity}) for capacity in capacities]
