"""Reading the driver's raw outcomes as data: what a run stopped on, decided where it happened.

A stop is {"stop": kind, "type": exception type, "at": where in the case, ...}: "raised" (the code
raised), "timeout", "flood", "missing" (no such file), "missing-name" (no such class, function or
method), "import" (importing the file raised), "exit" (a script's non-zero exit), "not-run", "killed",
"protocol". compared() is what two stops share when they are the same behaviour: the kind, the
exception type and the place in the case; where in the student's file it happened is only shown.
"""

ENDED = {"timeout", "flood", "killed", "protocol", "not-run"}   # the process stopped, not the code


def raised_stop(raised, at, kind="raised"):
    raised = raised or {}
    return {"stop": kind, "type": raised.get("type") or "Exception", "at": at, "name": raised.get("name"),
            "where": raised.get("where"), "function": raised.get("function"), "message": raised.get("message") or ""}


def stop_of(outcome, at=0):
    """The stop of an outcome that did not finish normally, else None (kind "ok" with every result)."""
    kind = outcome.get("kind")
    if kind in ("ok", None):
        return None
    if kind == "import":
        return raised_stop(outcome.get("raised"), at, "import")
    if kind == "crash":
        return raised_stop(outcome.get("raised"), at)
    if kind == "missing-attr":
        return {"stop": "missing-name", "type": None, "at": at, "name": outcome.get("name")}
    if kind == "exit":
        return {"stop": "exit", "type": None, "at": at, "code": outcome.get("code")}
    if kind == "killed":
        return {"stop": "killed", "type": None, "at": at, "signal": outcome.get("signal")}
    return {"stop": kind, "type": None, "at": at}


def compared(stop):
    """What of a stop counts as behaviour: the same for two codes that stop the same way."""
    if stop is None:
        return None
    return {"stop": stop["stop"], "type": stop.get("type"), "at": stop.get("at")}


def op_results(outcome):
    """(the results of an ops job's ops, the stop if it stopped): a result is {"v": value, ...}."""
    results = list(outcome.get("results") or [])
    stop = None
    if results and "raised" in results[-1]:
        stop = raised_stop(results[-1]["raised"], len(results) - 1)
        results.pop()
    elif outcome.get("kind") not in ("ok", None):
        stop = stop_of(outcome, len(results))
    return results, stop
