"""Every sentence a student can see, in English, keyed by a stable message id: the one catalog.

Code looks messages up by id (kvlab.i18n.t, kvlab.i18n.Msg) and never reads one back. Each text is
a whole sentence (or a table cell) with named placeholders, {name} or {count:,}; a text that depends
on a count is a pair (one, other), chosen by the parameter n. Translations are tied to these texts:
change one, and its translations become stale until they are updated.

Sections: the lab's steps, the check table, the rules, what a rule saw, the hints, stubs, the notebooks,
the student's commands. Ids are "section.name".
"""

MESSAGES = {
    # --- the lab's steps (their titles; the rest of each step is kvlab/steps.py) ------------------------
    "step.1.title": "LRUCache in kvsim.py",
    "step.2.title": "scenario.py and cyclic.json",
    "step.3.title": "baseline.json (fwd,fwd,rev)",
    "step.4.title": "cliff.json (GPU capacity sweep)",
    "step.5.title": "TwoTierCache in kvsim.py",
    "step.6.title": "scenario.py --cpu and offload.json",
    "step.7.title": "cpu_cliff.json (CPU capacity sweep)",
    "step.8.title": "summarize.py and measured.json",
    "step.exercise-07.title": "MRUCache in policies.py (notebook 07)",

    # --- stubs: the line that stands for code not written yet (kvlab release writes it) ----------------
    "stub.not-written": "step {step} is not written yet: {function} in kvlab/{file}",
    "stub.exercise-not-written": "exercise {step} is not written yet: {function} in kvlab/{file}",

    # --- notebooks: what kvlab.notebook shows (kvlab/notebook.py) ---------------------------------------
    "notebook.not-written": "{stub}",
    "notebook.finish-step-first": "**Finish step {step} first** (notebook {notebook}): {stub}",
    "notebook.finish-exercise-first": "**Finish exercise 07 first** (section 2 of this notebook): {stub}",
    "notebook.finish-this-step": "**Write step {step} first**, then re-run this cell: {stub}",
    "notebook.student-crash": "{file}, line {line}, in {function}: {error}",
    "notebook.stopped-step": "your step {step} code raised {error}; fix step {step} and run check.step({step})",
    "notebook.stopped-exercise": "your exercise 07 code raised {error}; fix it and run check.mru_cache()",
    "notebook.stopped-code": "your code in {file} raised {error}",
    "notebook.name-stopped": "{name} is not defined: an earlier cell stopped ({reason})",
    "notebook.bad-value": ("this cell stopped ({error}): it uses what your step {step} code returned; "
                           "run check.step({step})"),
    "notebook.bad-value-exercise": ("this cell stopped ({error}): it uses what your exercise 07 code returned; "
                                    "run check.mru_cache()"),
    "notebook.not-python": ("this cell is not valid Python ({error}, line {line}), so it did not run; "
                            "an answer in words belongs in a Markdown cell"),
    "notebook.file-does-not-import": "{file}, line {line}: {error} (the cells cannot use this file until it imports)",
    "notebook.file-does-not-import-nowhere": "{file}: {error} (the cells cannot use this file until it imports)",
    "notebook.student-file": "{failure}",
    "notebook.not-replaced": ("not written: {file} holds something else than what kvlab last wrote there, "
                              "so it was left alone ({how} replaces it)"),
    "notebook.force-kernel": "KVLAB_FORCE=1, or `kvlab notebooks --force`,",
    "notebook.force-command": "--force",
    "notebook.artifacts-written": ("wrote {names} in the artifacts folder", "wrote {names} in the artifacts folder"),
    "notebook.artifacts-other-parameters": (
        "not written: these parameters are not the lab's, and {names} holds the lab's results "
        "(run with the default parameters to write it)",
        "not written: these parameters are not the lab's, and {names} hold the lab's results "
        "(run with the default parameters to write them)"),
    "notebook.figure-saved": "saved {file} in the artifacts folder",
    "notebook.source-at": "{file}, line {line}",
    "notebook.ttft-stand-in": ("{file}: the generated STAND-IN, not a measurement "
                               "(it reproduces the published figures by construction)"),
    "notebook.ttft-measurement": "{file}: a measurement",
    "notebook.figure-note-stand-in": "data: {file}, the generated stand-in, not a measurement",
    "notebook.figure-note-measurement": "data: {file}, a measurement",
    "notebook.param-whole": "{name} must be a whole number >= {minimum}, got {got}",
    "notebook.param-list": "{name} must be a list of whole numbers, got {got}",
    "notebook.param-list-from-text": ('{name} must be a list of whole numbers, got {got} '
                                      '(pass a list with papermill -y "{name}: [21520, 50110]")'),
    "notebook.param-empty": "{name} must hold at least one capacity, got []",
    "notebook.param-items": "{name} must hold whole numbers >= {minimum}, got {got}",
    "notebook.param-string": "{name} must be a string (a path, or empty), got {got}",
    "notebook.param-unknown": "unknown parameter {name}",
    "notebook.param-value-of-type": "{value} (a {kind})",
    "notebook.param-no-file": "{name}: {file}: no such file",
    # kvlab notebooks (kvlab/nbrun.py)
    "notebook.run-took": "{notebook} {seconds} s",
    "notebook.run-cell-failed": "{notebook}: cell {cell} failed: {error}",
    "notebook.run-cell-timeout": "{notebook}: cell {cell} did not finish within {seconds} s",
    "notebook.run-kernel-died": "{notebook}: cell {cell}: the kernel died",
    "notebook.run-not-started": "{notebook}: {error}",
    "notebook.run-unreadable": "{notebook}: not a readable notebook ({error})",
    "notebook.run-failed": ("{n} cell failed; the executed copies, failing cells included, are in {folder}",
                            "{n} cells failed; the executed copies, failing cells included, are in {folder}"),
    "notebook.run-copies": "executed copies in {folder}",
    "notebook.run-refreshed": "stored notebooks refreshed (from the stand-in measurement)",
    "notebook.run-none": "no notebooks to run (none named NN_topic.ipynb in {folder})",

    # --- the student's commands (kvlab check, kvlab handin, kvlab notebooks) ----------------------------
}
