"""What steps 4 and 7 share: a sweep of one capacity, saved as {"capacity": count}, and its optional function.

The lab text asks for a loop that runs scenario.py once per capacity and saves the second pass's hits
(step 4) or misses (step 7); where the loop lives is the student's choice. The saved file is judged as
what the student's own scenario.py gives at those capacities: its keys are the lab's capacities as
strings, each value the second pass's count. scenario.gpu_cliff() and cpu_cliff(), the edition's
functions for the same loop, are judged where a hand-in has them (against its own command again), and
never required.
"""
from . import commands
from .numbers import FWD_FWD
from .outcomes import compared, op_results


def count(passes, counted):
    """The second pass's hits (gpu_hits + cpu_hits) or misses, or None if there is no readable second pass."""
    if not isinstance(passes, list) or len(passes) < 2 or not isinstance(passes[1], dict):
        return None
    second = passes[1]
    try:
        return second["misses"] if counted == "misses" else second["gpu_hits"] + second["cpu_hits"]
    except (KeyError, TypeError):
        return None


def counts(obs, counted):
    """[the count each run gives] of an observation's runs (None where a run gives none)."""
    return [None if run["stop"] is not None else count(commands.passes_of(run), counted) for run in obs["runs"]]


def second_pass(run, option, capacities, counted, **scenario):
    """The loop of step 4 (option "gpu", counted "hits") or step 7 ("cpu", "misses") over a run() function:
    {str(capacity): the second pass's count} for each capacity, in the order given. `scenario` holds run()'s
    other arguments; the passes are fwd,fwd unless it names others."""
    scenario.setdefault("passes", FWD_FWD)
    return {str(capacity): count(run(**{**scenario, option: capacity})["passes"], counted) for capacity in capacities}


def keys_holds(capacities):
    def holds(case, got, want):
        value = commands.file_view(case)
        return isinstance(value, dict) and list(value) == [str(capacity) for capacity in capacities]
    return holds


def keys_view(case, obs):
    value = commands.file_view(case)
    return list(value) if isinstance(value, dict) else value


def values_holds(capacities, counted):
    """Each saved value is the count the student's own command gives at that capacity (where the command gives
    none it can be read from, the mistake is the command's, paid in its own step: any value is taken)."""
    def holds(case, got, want):
        value = commands.file_view(case)
        if not isinstance(value, dict) or any(run["stop"] and run["stop"]["stop"] in ("missing", "missing-name")
                                                 for run in got["runs"]):
            return False
        return all(mine is None or value.get(str(capacity)) == mine
                   for capacity, mine in zip(capacities, counts(got, counted)))
    return holds


def values_view(capacities, counted):
    def view(case, obs):
        value = commands.file_view(case)
        saved = [value.get(str(capacity)) for capacity in capacities] if isinstance(value, dict) else value
        return [saved, counts(obs, counted)]
    return view


def function_case(function, capacities, fixed, option):
    """A call of the edition's sweep function, with the runs of the student's command it should agree with."""
    return {"kind": "function", "function": function, "capacities": list(capacities), "fixed": dict(fixed),
            "runs": commands.sweep_runs(option, capacities, fixed)}


def function_jobs(case):
    """The sweep function's call, then run() at each capacity (the student's own run(), which the function
    should call; where there is none, the command)."""
    fixed = dict(case["fixed"])
    args = [case["capacities"]]
    option = "cpu" if case["function"] == "cpu_cliff" else "gpu"
    if option == "cpu" and "gpu" in fixed:
        args.append(fixed.pop("gpu"))
    call = {"kind": "ops", "module": "scenario", "ops": [["fn", case["function"], *args, {"$kwargs": fixed}]]}
    runs = [{"kind": "ops", "module": "scenario",
             "ops": [["fn", "run", {"$kwargs": {"passes": ["fwd", "fwd"], **case["fixed"], option: capacity}}]]}
            for capacity in case["capacities"]]
    return [call, *runs] + [{"kind": "script", "script": "scenario.py", "argv": run, "read": []} for run in case["runs"]]


def observe_function(case, outcomes):
    results, stop = op_results(outcomes[0])
    value = results[0].get("v") if results else None
    count = len(case["capacities"])
    called = [op_results(outcome) for outcome in outcomes[1:1 + count]]
    if all(found and found[0] for found, _ in called):  # the student's run(): what the function should agree with
        runs = [{"doc": found[0].get("v"), "strict": True, "stop": None} for found, _ in called]
    else:
        runs = [commands.observe_run(outcome) for outcome in outcomes[1 + count:]]
    return {"value": value, "stop": stop, "runs": runs}


def has_function(obs):
    stop = obs.get("stop")
    return stop is None or stop["stop"] not in ("missing-name", "missing") and stop.get("type") != "NotImplementedError"


def function_holds(counted):
    def holds(case, got, want):
        value, mine = got["value"], counts(got, counted)
        return got["stop"] is None and isinstance(value, dict) and None not in mine and \
            list(value) == [str(capacity) for capacity in case["capacities"]] and list(value.values()) == mine
    return holds


def function_view(counted):
    def view(case, obs):
        return [obs["value"] if obs["stop"] is None else {"stop": compared(obs["stop"])}, counts(obs, counted)]
    return view


def show_function(case):
    fixed = dict(case["fixed"])
    args = [repr(case["capacities"])]
    if case["function"] == "cpu_cliff" and "gpu" in fixed:
        args.append(repr(fixed.pop("gpu")))
    args += [f"{name}={value!r}" for name, value in fixed.items()]
    return f"scenario.{case['function']}({', '.join(args)})"


def shrink_function(case):
    capacities = case["capacities"]
    for index in range(len(capacities)):
        if len(capacities) > 1:
            fewer = capacities[:index] + capacities[index + 1:]
            yield {**case, "capacities": fewer, "runs": [run for number, run in enumerate(case["runs"]) if number != index]}


def explain(counted, capacities):
    """explain(case, got): the mistake a saved sweep (or the function's result) shows, "" if none is known."""
    other = "misses" if counted == "hits" else "hits"

    def first_pass(obs):
        found = []
        for run in obs["runs"]:
            passes = commands.passes_of(run) if run["stop"] is None else None
            if not passes:
                return None
            one = passes[0]
            found.append(one.get("misses") if counted == "misses" else one.get("gpu_hits", 0) + one.get("cpu_hits", 0))
        return found

    def find(case, got):
        if case["kind"] == "artifact":
            value = commands.file_view(case)
            if value is None:
                return "missing-artifact"
            keys = [str(capacity) for capacity in capacities]
        else:
            value = got.get("value")
            if got.get("stop") is not None:
                return ""
            if isinstance(value, dict) and "$dict" in value:
                return "sweep-int-keys"
            keys = [str(capacity) for capacity in case["capacities"]]
        if not isinstance(value, dict) or sorted(value) != sorted(keys):
            return "sweep-shape"
        saved = [value[key] for key in keys]
        if saved == counts(got, other):
            return f"sweep-{counted}-not-{other}"
        if saved == first_pass(got):
            return "sweep-first-pass"
        return ""
    return find


# What a sweep step's module hands the engine (steps 4 and 7 alike): its cases are the saved file and the function.

def jobs(case):
    return function_jobs(case) if case["kind"] == "function" else commands.artifact_jobs(case)


def observe(case, outcomes):
    if case["kind"] == "function":
        return observe_function(case, outcomes)
    return {"runs": [commands.observe_run(outcome) for outcome in outcomes]}


def shrink(case):
    return shrink_function(case) if case["kind"] == "function" else iter(())


def show(case):
    if case["kind"] == "function":
        return show_function(case)
    return "; ".join("python3 scenario.py " + " ".join(run) for run in case["runs"][:2]) + "; ..."
