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
    # kvlab handin (kvlab/handin.py) and the folder writer it shares with kvlab artifacts (kvlab/files.py)
    "handin.about": "Hand in your lab: copy your three scripts, the six JSON files and ttft.jsonl into DIR, "
                    "then check them there.",
    "handin.folder-help": "the hand-in folder (default: {default}); created if missing",
    "handin.force-help": "overwrite files in the folder that have other content",
    "handin.script-missing": "{name} is not in {folder}: your kvlab/ folder has lost it; nothing was written",
    "handin.artifact-missing": "{name} is not in {folder}: run notebook {notebook} first; nothing was written",
    "handin.not-a-folder": "{folder} is a file, not a folder; nothing was written",
    "handin.folders-in-the-way": ("{folder} has a folder named {names}; nothing was written",
                                  "{folder} has folders named {names}; nothing was written"),
    "handin.other-content": ("{folder} already has {names} with other content; nothing was written "
                             "(--force overwrites it)",
                             "{folder} already has {names} with other content; nothing was written "
                             "(--force overwrites them)"),
    "handin.wrote": "wrote {path}",
    "handin.unchanged": "unchanged {path}",
    "handin.checking": "Checking the hand-in in {folder}:",
    "handin.passes": "Your hand-in in {folder} passes every step.",
    "handin.fails": "Your hand-in in {folder} is written, but a step fails (the table says which): fix it, "
                    "run its notebook again, and hand in again with --force.",
}
