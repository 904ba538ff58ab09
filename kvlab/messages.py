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

    # --- the student's commands (kvlab check, kvlab handin, kvlab notebooks) ----------------------------
}
