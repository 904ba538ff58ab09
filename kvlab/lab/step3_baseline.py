"""Step 3: baseline.json, the output of scenario.py --passes fwd,fwd,rev.

No new code: the step is to run step 2's command with other passes and save what it prints. The file
is judged as what the student's own scenario.py prints (a mistake in scenario.py is step 2's, paid
there); where that code is right, the file is then the lab's answer too.
"""
from . import commands
from .base import Misconception, Rule, StepSpec
from .numbers import FWD_FWD_REV
from .step2_scenario import file_holds, file_view

NUMBER = 3
FILE = "scenario.py"

MESSAGES = {
    "step.3.title": "baseline.json (fwd,fwd,rev)",
    "rule.baseline.file": "baseline.json is what your scenario.py prints for --passes fwd,fwd,rev.",
}

RULES = (Rule("baseline.file", ("artifact",), file_view, points=2, holds=file_holds, own=True),)
MISCONCEPTIONS = (Misconception("missing-artifact", NUMBER),)


def cases(rng, hidden):
    return []


def artifact_cases(texts):
    return [commands.artifact_case("baseline.json", texts.get("baseline.json"), [["--passes", ",".join(FWD_FWD_REV)]])]


def jobs(case):
    return commands.artifact_jobs(case)


def observe(case, outcomes):
    return {"runs": [commands.observe_run(outcome) for outcome in outcomes]}


def shrink(case):
    return iter(())


def show(case):
    return "; ".join("python3 scenario.py " + " ".join(run) for run in case["runs"])


STEP = StepSpec(NUMBER, FILE, (), ("baseline.json",), "02_cyclic_scan", "scenario", (1, 5, 2),
                rules=RULES, misconceptions=MISCONCEPTIONS, messages=MESSAGES)


def plants():
    return {}
