"""Driving a judging generator (kvlab.check.engine.judge) with the student's code in another process.

talk() gives each Request to one process of the driver (kvlab/check/run.py's converse(): a list of jobs
on its stdin, one result line per job), sends the outcomes back to the generator, and sends the next
Request to the same process once the last one is reported. When the process stops (a job's timeout, a
flood, a kill), the Request it was on gets its outcomes as they are, and the next Request goes to a new
process. Nothing the student's code does makes this raise.
"""
from pathlib import Path

from . import run


def talk(generator, folder, *, timeout=run.TIMEOUT, backend=None, copy=None, files=None, transform=None, kinds=None,
         late=None):
    """Run `generator` to its end, its Requests on the code in `folder`; its return value.

    `transform(jobs, request) -> jobs` may change a Request's jobs before they are sent (stand-ins);
    `kinds`, a set, gets the kind of every outcome (a timeout may be the machine's: the grade is not cached);
    `late()`, if given, is asked before each process starts: True answers its jobs "timeout" without one.
    """
    def noted(outcomes, jobs):
        outcomes = verified(outcomes, jobs, folder, files)
        if kinds is not None:
            kinds.update(outcome.get("kind") for outcome in outcomes)
        return outcomes

    try:
        request = next(generator)
    except StopIteration as stop:
        return stop.value
    while True:
        state = {"request": request, "result": None, "done": False}

        def jobs_of(one):
            return transform(one.jobs, one) if transform else one.jobs

        def following(sent, out):
            current = jobs_of(state["request"])
            start = len(sent) - len(current)
            lines = bytes(out).split(b"\n")[start:len(sent)]
            outcomes = [run.parse(line, start + index, sent) for index, line in enumerate(lines)]
            outcomes = [outcome if outcome is not None else run.failed(job, "protocol")
                        for outcome, job in zip(outcomes, current)]
            try:
                state["request"] = generator.send(noted(outcomes, current))
                while not jobs_of(state["request"]):  # nothing to run: answered at once
                    state["request"] = generator.send([])
            except StopIteration as stop:
                state["done"], state["result"] = True, stop.value
                return None
            return (jobs_of(state["request"]), {})

        first = jobs_of(request)
        if not first or (late is not None and late()):  # nothing to run, or no time left: no process
            try:
                request = generator.send(noted([run.failed(job, "timeout") for job in first], first))
            except StopIteration as stop:
                return stop.value
            continue
        outcomes, _, _ = run.converse(folder, (first, {}), staged=files, copy=copy, timeout=timeout, backend=backend,
                                      following=following)
        if state["done"]:
            return state["result"]
        current = jobs_of(state["request"])
        tail = outcomes[len(outcomes) - len(current):]  # the process stopped on this Request
        try:
            request = generator.send(noted(tail, current))
        except StopIteration as stop:
            return stop.value


def verified(outcomes, jobs, folder, files=None):
    """The outcomes as the grader takes them: a run that says its file is missing when it is there (in the
    folder, or staged beside it) forged that line: a protocol error."""
    taken = list(outcomes)
    for number, (job, outcome) in enumerate(zip(jobs, taken)):
        if outcome.get("kind") != "missing":
            continue
        staged = job.get("script") or f"{job.get('module')}.py"
        if staged in (files or {}) or folder is not None and (Path(folder) / staged).is_file():
            taken[number] = {**outcome, "kind": "protocol"}
    return taken


def here(generator, execute):
    """Run `generator` with execute(jobs) -> outcomes in this process (a class given directly)."""
    try:
        request = next(generator)
        while True:
            request = generator.send(execute(request.jobs) if request.jobs else [])
    except StopIteration as stop:
        return stop.value
