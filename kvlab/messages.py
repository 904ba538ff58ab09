"""Every sentence a student can see, in English, keyed by a stable message id: the one catalog.

Code looks messages up by id (kvlab.i18n.t, kvlab.i18n.Msg) and never reads one back. Each text is
a whole sentence (or a table cell) with named placeholders, {name} or {count:,}; a text that depends
on a count is a pair (one, other), chosen by the parameter n. Translations are tied to these texts:
change one, and its translations become stale until they are updated.

Sections: the lab's steps, the check table, the rules, what a rule saw, the hints, stubs, the notebooks,
the student's commands. Ids are "section.name".
"""

MESSAGES = {

    # --- the check table and reports (kvlab check, the notebooks, the grader) ---------------------------
    "check.step-title": "Step {number}: {title}",
    "check.exercise-title": "Exercise {number}: {title}",
    "check.title-of-class": "{title} ({name})",
    "check.report-heading": "{title}: {count}",
    "check.rules-ok": "{ok} of {total} rules OK",
    "check.steps-ok": "{ok} of {total} steps OK",
    "check.checked": "Checked: {folder}",
    "check.hint-seen": "{hint} What the check saw: {seen}",
    "check.held": "This may follow from the first ✗ above. Fix that one, then check again.",
    "check.held-by-step": "Held back: step {step} fails above, and this step runs on your {file}. Fix step {step} first.",
    "grade.on-reference": "Your code fails step {step}, so this step was judged on the lab's reference {file} in its place: a mistake there costs only its own step. Only each rule's verdict and hint are shown.",
    "grade.ttft-not-compared": "Step 8's numbers were not compared with a course measurement: the grader had none, and used {path}.",
    "grade.course-measurement": "the course's ttft.jsonl",
    "grade.lab-measurement": "the lab's ttft.jsonl",
    "grade.ttft-not-compared-course": ("Step 8's ttft.jsonl was not compared with a course measurement: the course file "
                                       "names none (kvlab course init --measurement FILE)."),
    "check.follows-from-step": "Not counted here: this comes from step {step}'s code (see step {step}).",
    "check.needs-step": "Judged once step {step} passes: step {step}'s mistake shows here too.",
    "check.not-judged": "Not checked here.",
    "check.not-judged-why": "This step is judged on its saved file, and no folder of saved files was given.",
    "check.skipped": "Not checked here: this measured file is not the one the lab was released with. The grader checks it.",

    # --- what a failing rule shows: the smallest case, and the student's value beside the lab's -----------
    "rule.written": "The step's code in {file} is there.",
    "seen.case": "The smallest case that shows it: {case}. {difference}",
    "seen.case-hidden": "It differs on the grader's hidden cases (they are never shown).",
    "seen.differs": "Yours: {got}. The lab's rules: {want}.",
    "seen.differs-at": "After {at}, yours: {got}. The lab's rules: {want}.",
    "seen.yours": "Yours: {got}.",
    "seen.a-method": "a method",
    "seen.a-view": "a {type} view of {items}",
    "seen.stopped-raised": "raised {type} at {where}: {message}",
    "seen.stopped-exit": "exited with code {code}",
    "seen.stopped-no-json": "no JSON document (it printed {start})",
    "seen.stopped-timeout": "did not finish in time",
    "seen.stopped-flood": "printed far too much and was stopped",
    "seen.stopped-killed": "was killed",
    "seen.stopped-protocol": "ended without reporting its results",
    "seen.stopped-not-run": "was not run",
    "seen.stopped-missing": "the file is missing",
    "seen.stopped-missing-name": "a name the lab uses is missing",
    "seen.stopped-no-output-file": "wrote no output file",
    "seen.stopped-other": "stopped ({kind})",
    "hint.differs": "This case shows what differs from the lab's rules: trace it by hand, one step at a time.",

    # --- what a rule saw: the student's own values, beside the rule's small example ---------------------
    "seen.raised": "{op} raised {type}: {message} (at {where}).",
    "seen.run": "`{command}`.",
    "seen.exit": "`{command}` exited with code {code}.",
    "seen.signal": "It was stopped by signal {signal}.",
    "seen.no-name": "There is no {name}.",
    "seen.file-missing": "{file} is not in the folder.",
    "seen.used": "After {after}, the cache holds {keys}, of total size {total}, but used is {used}.",
    "seen.keys": "After {what}, your keys() is {keys}. The rule expects {expected}.",
    "seen.counts": "After a miss, a hit and a miss, hits is {hits} and misses is {misses}.",
    "seen.in": "'a' in cache gave {a}, and 'z' in cache gave {z}.",
    "seen.capacity-zero": "LRUCache(0) holds {keys}, and used is {used}.",
    "seen.tiers": "The GPU holds {gpu} and the CPU holds {cpu}.",
    "seen.document": "{what} gave {start}.",
    "seen.passes": "{what} gave {passes}.",
    "seen.field": "{where}: your {field} is {value}.",
    "seen.empty": "{what} is empty.",
    "seen.not-json": "{what} is not JSON ({problem}).",
    "seen.several-json": "{what} holds several JSON documents.",
    "seen.sweep": "{name} gave {value}.",
    "seen.value": "{where}: your value is {value}.",
    "seen.pass-names": "{what}, {config}: your pass names are {names}.",
    "seen.and-then": "{cause} What happened: {happened}",
    "seen.refused": "{files}: hand in the file itself.",
    "seen.not-allowed-import": "{file} imports {module}, which the lab does not allow: only Python's standard library is there when your scripts run.",
    "seen.shadows": "{files}: {imports} in {script} or a file it imports finds it first.",
    "seen.file-is": "{file} is {why}",
    "seen.list-semicolon": "{first}; {rest}",
    "seen.refused-symlink": "a symbolic link, which the grader never follows",
    "seen.refused-too-big": "larger than {size:,} bytes",
    "seen.refused-unreadable": "not a regular file the grader can read",
    "seen.ttft-changed": "measured.json is the summary of {path}, but this folder's ttft.jsonl differs from that file: ttft.jsonl was changed.",

    # --- the hints: one per misconception, shown for the first failing rule -------------------------------
    "hint.return-values": "access(key, size) returns True on a hit and False on a miss: the booleans themselves.",
    "hint.miss-stores": "On a miss, store the entry once there is room: access must add key -> size to the cache.",
    "hint.used-on-hit": "A hit stores nothing, so used must not change. Add the size only when you store a new entry.",
    "hint.counts": "access() must add 1 to self.hits on a hit and 1 to self.misses on a miss.",
    "hint.evicts-when-full": "Evict only while used + size > capacity. An entry that fills the cache exactly fits: >= evicts one entry too many.",
    "hint.used-not-freed": "When you evict an entry, subtract its size from used. Otherwise the loop `while used + size > capacity` never ends, empties the cache, and fails.",
    "hint.evicts-newest": "Evict the least recently used entry, the oldest one: popitem(last=False). A plain popitem() removes the newest.",
    "hint.fifo": "A hit must move the entry to the most recent end. Without move_to_end, your cache is FIFO, not LRU.",
    "hint.eviction": "On a miss, evict from the oldest entry only while used + size > capacity, then store.",
    "hint.used-wrong": "used must stay the sum of the stored sizes. Subtract the size of each evicted entry, not the size of the new one.",
    "hint.used-method": "used must be a property (@property def used(self)), so that cache.used is a number, not a method.",
    "hint.fits-exactly": "An entry exactly as large as the capacity fits, after evicting everything else. Compare size > capacity, not >=.",
    "hint.oversized-stored": "An entry larger than the capacity must not be stored: it can never fit, and used would pass the capacity.",
    "hint.oversized-evicts": "An entry larger than the capacity must evict nothing. Check size > capacity first and return False: clearing or evicting loses good entries.",
    "hint.in-moves": "`key in cache` must only look. Your __contains__ changes the order or stores the key, so asking changes what gets evicted.",
    "hint.keys-order": "keys() must return a list of the stored keys, oldest (least recently used) first.",
    "hint.keys-moves": "keys() must only list the keys: calling it changed the order of your cache.",
    "hint.capacity-zero": "LRUCache(0) must work: a cache of capacity 0 stores nothing, and every access misses.",
    "hint.lru-reference": "Your cache differs from the lab's LRU rules on a longer run.",
    "hint.tier-attributes": "TwoTierCache(gpu_capacity, cpu_capacity) keeps two LRUCache tiers in the attributes gpu and cpu.",
    "hint.tier-capacities-swapped": "The GPU holds more than its capacity allows: TwoTierCache(gpu_capacity, cpu_capacity) takes the GPU capacity first.",
    "hint.tier-miss-one-tier": "A miss is recomputed and must be kept in both tiers: call access on the GPU tier and on the CPU tier.",
    "hint.tier-returns": "access(key, size) returns \"gpu\" for a GPU hit, \"cpu\" for an entry found only in the CPU, and \"miss\" otherwise. Ask each tier with `in` before calling access.",
    "hint.tier-touches-cpu": "A GPU hit must not touch the CPU tier: do not call cpu.access on a GPU hit.",
    "hint.tier-no-cpu-refresh": "On a CPU hit, the CPU copy must become the most recent: call cpu.access(key, size) as well.",
    "hint.tier-no-gpu-copy": "A CPU hit must be loaded back into the GPU (gpu.access(key, size)), so that the next read is a GPU hit.",
    "hint.tier-cpu-zero": "TwoTierCache(gpu, 0) must work like the GPU tier alone. LRUCache(0) is a valid tier that stores nothing: do not replace it with None.",
    "hint.tier-reference": "Your two-tier cache differs from the lab's rules on a longer run.",
    "hint.mru-evicts-oldest": "MRU evicts the MOST recently used entry. Take it from the newest end, not the oldest.",
    "hint.mru-reference": "Your MRU cache differs from the MRU rules on a longer run.",
    "hint.clears-between-passes": "All passes share one cache. Create it once, before the loop over the passes, and never clear it.",
    "hint.option-ignored-gpu": "--gpu is ignored: the output is what the default GPU capacity gives. Pass args.gpu to run().",
    "hint.option-ignored-cpu": "--cpu is ignored: the output is what the default CPU capacity gives. Pass args.cpu to run().",
    "hint.option-ignored-docs": "--docs is ignored: the output is what the default document count gives. Pass args.docs to run().",
    "hint.option-ignored-tokens": "--tokens is ignored: the output is what the default document size gives. Pass args.tokens to run().",
    "hint.option-ignored-passes": "--passes is ignored: the output is what the default passes give. Pass args.passes to run().",
    "hint.hit-docs-order": "hit_docs lists the documents hit in read order (a rev pass lists 9, 8, 7, ...). Append each one as you read it, and do not sort.",
    "hint.text-on-stdout": "stdout must be exactly one JSON document: any other text breaks the grader. Print explanations with file=sys.stderr, or not at all.",
    "hint.several-json": "stdout must be one JSON document, {\"passes\": [...]}, with one object per pass, not one document per pass.",
    "hint.json-text": "run() returns JSON text, so the output is a JSON string. Return the dict itself: main() turns it into JSON.",
    "hint.python-repr": "Print json.dumps(result), not the Python dict itself: JSON needs double quotes (and true, false, null).",
    "hint.no-output": "Nothing was printed on stdout: print the result with print(json.dumps(result)).",
    "hint.not-json": "stdout (or the file) must be a JSON document.",
    "hint.scenario-shape": "The output must be {\"passes\": [{\"order\", \"gpu_hits\", \"cpu_hits\", \"misses\", \"hit_docs\"}, ...]}, one object per pass.",
    "hint.option-refused": "scenario.py must accept --gpu, --cpu (step 6), --docs, --tokens and --passes.",
    "hint.gpu-cpu-swapped": "TwoTierCache takes the GPU capacity first: TwoTierCache(gpu, cpu).",
    "hint.gpu-cpu-counts": "Loads from the CPU were counted as GPU hits. Count access() == \"gpu\" in gpu_hits and access() == \"cpu\" in cpu_hits.",
    "hint.tier-result-truthy": "Every read was counted as a hit. TwoTierCache.access returns \"gpu\", \"cpu\" or \"miss\", and every non-empty string is true: compare the result with each value instead of testing it with if.",
    "hint.order-field": "Each pass object's \"order\" is the pass as named in --passes (\"fwd\" or \"rev\").",
    "hint.kvsim-missing": "scenario.py imports the cache from kvsim.py: keep kvsim.py next to it.",
    "hint.wrong-result": "This value differs from what the lab's rules give for this scenario.",
    "hint.sweep-shape": "A sweep maps each capacity, as a string, to a number: {\"21520\": ..., \"30000\": ..., ...}.",
    "hint.sweep-int-keys": "The keys of a sweep are strings: use str(capacity) as the key, because JSON object keys are strings.",
    "hint.sweep-hits-not-misses": "cliff.json records the second pass's hits (gpu_hits + cpu_hits), not its misses.",
    "hint.sweep-misses-not-hits": "cpu_cliff.json records the second pass's misses, not its hits.",
    "hint.sweep-first-pass": "This is what the first pass gives. Read the second pass, passes[1], and its gpu_hits + cpu_hits (or its misses in step 7).",
    "hint.sweep-zeros": "Your sweep gives 0 everywhere. Put the second pass's count under each capacity: passes[1][\"misses\"] in step 7.",
    "hint.sweep-drops-arguments": "The other scenario arguments are lost. Pass them on: run(gpu=capacity, **scenario).",
    "hint.sweep-gpu-hits-only": "The second pass's hits are gpu_hits + cpu_hits. Counting gpu_hits alone is wrong as soon as there is a CPU tier.",
    "hint.cpu-cliff-sweeps-gpu": "Your loop varies the GPU capacity. It must keep the GPU at 21520 and vary the CPU capacity: --gpu 21520 --cpu C.",
    "hint.cpu-cliff-ignores-gpu": "Your loop leaves the GPU at its default capacity, not the one it was given. Pass the GPU capacity to every run: --gpu G --cpu C.",
    "hint.median-even": "For an even count, the median is the mean of the two middle values (statistics.median), not one of them.",
    "hint.median-unsorted": "The median is the middle of the sorted values: sort them first (statistics.median does).",
    "hint.ratio-inverted": "ratio = baseline / lmcache (how many times faster lmcache is), not lmcache / baseline.",
    "hint.not-rounded": "Round ms values to 1 decimal and ratios to 2 decimals: round(x, 1), round(x, 2).",
    "hint.pass-names": "Take the pass names exactly as they are in the input (e.g. \"pass1-cold\"). The grader uses other names too, so do not rename, shorten or hard-code them.",
    "hint.blank-lines": "Skip blank lines in the input, and lines of only spaces: json.loads fails on them.",
    "hint.summary-shape": "The output must be {\"baseline\": {PASS: {\"n\", \"p50_ms\", \"mean_ms\"}}, \"lmcache\": {...}, \"ratio\": {PASS: {\"p50\", \"mean\"}}}.",
    "hint.n-count": "n is the number of records of that config and pass.",
    "hint.wrong-stat": "p50_ms is statistics.median and mean_ms is statistics.mean of the ttft_ms values of that config and pass.",
    "hint.ttft-changed": "Copy the measured file unchanged: cp /opt/fixtures/kvoffload/ttft.jsonl ttft.jsonl.",
    "hint.measured-other-file": "measured.json must summarize this folder's own ttft.jsonl.",
    "hint.no-output-file": "summarize.py must write the summary to the file named by its second argument.",
    "hint.not-written": "This step is not written yet: replace the line `raise NotImplementedError(...)` with your code.",
    "hint.crash": "Your code raised an exception here.",
    "hint.timeout": "The run did not finish in time. Is there an endless loop?",
    "hint.output-flood": "The run printed far too much and was stopped. Is there a print inside a loop?",
    "hint.missing-file": "A file of the hand-in is missing.",
    "hint.missing-artifact": "This step's JSON file is missing: this step's notebook saves it when it is run to its end.",
    "hint.file-not-made": "This file is not what your code makes now. Make it again with the lab's command, after your last change, and hand in that output unchanged.",
    "hint.missing-class": "kvsim.py must define LRUCache (step 1) and TwoTierCache (step 5), with these names.",
    "hint.missing-method": "Your class lacks a method or attribute that the lab names (access, used, keys, in; gpu and cpu for TwoTierCache). Keep every name the stub has.",
    "hint.import-failed": "Importing the module failed: fix the error it names.",
    "hint.not-allowed-import": "Your code imports a module that is not part of Python's standard library. The lab's scripts run with Python alone: write that part with the standard library.",
    "hint.shadows-stdlib": "A file of yours has the name of a standard-library module, so your scripts import it instead of Python's own. Rename it.",
    "hint.killed": "The run was killed.",
    "hint.protocol": "The run ended without reporting its results.",
    "hint.stale-expectations": "This edition's stored answers do not cover this rule: your lab is out of date, not your code. Ask for a new release of the lab.",

    # --- stubs: the line that stands for code not written yet (kvlab release writes it) ----------------
    "stub.not-written": "step {step} is not written yet: {function} in kvlab/{file}",
    "stub.exercise-not-written": "exercise {step} is not written yet: {function} in kvlab/{file}",
    "stub.your-answer": "**Your answer:**",  # the Markdown cell where a student writes an answer

    # --- notebooks: what kvlab.notebook shows (kvlab/notebook.py) ---------------------------------------
    "notebook.not-written": "{stub}",
    "notebook.finish-step-first": "**Finish step {step} first** (notebook {notebook}): {stub}",
    "notebook.finish-exercise-first": "**Finish exercise 07 first** (section 2 of this notebook): {stub}",
    "notebook.finish-this-step": "**Write step {step} first**, then re-run this cell: {stub}",
    "notebook.student-crash": "{file}, line {line}, in {function}: {error}",
    "notebook.stopped-step": "your step {step} code raised {error}; fix step {step} and run check.step({step})",
    "notebook.stopped-exercise": "your exercise 07 code raised {error}; fix it and run check.mru_cache()",
    "notebook.stopped-code": "your code in {file} raised {error}",
    "notebook.stopped-value": "it raised {error} on what your step {step} code returned; run check.step({step})",
    "notebook.stopped-value-exercise": ("it raised {error} on what your exercise 07 code returned; "
                                        "run check.mru_cache()"),
    "notebook.value-stopped": "{name} is not complete: an earlier cell stopped ({reason})",
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
    # the figures (kvlab/plots.py)
    "notebook.plot-dense-sweep": "simulator, dense sweep",
    "notebook.plot-request-x": "document id, in read order within each pass",
    "notebook.plot-request-y": "time to first token (ms, log scale)",
    "notebook.plot-request-title": "Every request, coloured by the tier your simulator predicts",
    "notebook.plot-tier-gpu": "GPU hit",
    "notebook.plot-tier-cpu": "load from CPU",
    "notebook.plot-tier-miss": "recompute (a miss)",
    "notebook.timeline-title": "{docs} documents × {tokens:,} tokens, read {passes}: the cache after every read",
    "notebook.timeline-lru": "your LRUCache({capacity})\n{fit} whole documents fit",
    "notebook.timeline-gpu-tier": "GPU tier: {capacity:,} tokens\n{fit} whole documents fit",
    "notebook.timeline-cpu-tier": "CPU tier: {capacity:,} tokens\n{fit} whole documents fit",
    "notebook.timeline-x": "document",
    "notebook.timeline-y": "reads, in order (top to bottom)",
    "notebook.timeline-pass": "pass {number} ({order})",
    "notebook.timeline-pass-hits": ("{n} hit", "{n} hits"),
    "notebook.timeline-pass-hit-docs": ("{n} hit:\n{docs}", "{n} hits:\n{docs}"),
    "notebook.timeline-pass-gpu": ("{n} GPU hit", "{n} GPU hits"),
    "notebook.timeline-pass-cpu": ("{n} load", "{n} loads"),
    "notebook.timeline-held": "in the cache after the read",
    "notebook.timeline-hit": "read: hit",
    "notebook.timeline-gpu": "read: GPU hit",
    "notebook.timeline-cpu": "read: loaded from CPU",
    "notebook.timeline-miss": "read: miss (then stored)",
    "notebook.timeline-evicted": "evicted by this read",
    "notebook.timeline-slider": "GPU capacity (tokens)",
    "notebook.stepper-read": "Read {number} of {reads}: pass {pass_number} ({order}) reads document {key}: {outcome}; {evicted}.",
    "notebook.stepper-hit": "a hit",
    "notebook.stepper-miss": "a miss, then stored",
    "notebook.stepper-gpu": "a GPU hit",
    "notebook.stepper-cpu": "loaded from the CPU tier",
    "notebook.stepper-evicts": "it evicts {keys}",
    "notebook.stepper-evicts-gpu": "the GPU tier evicts {keys}",
    "notebook.stepper-evicts-cpu": "the CPU tier evicts {keys}",
    "notebook.stepper-nothing-evicted": "nothing is evicted",
    "notebook.stepper-cache": "the cache: oldest on the left, newest on the right",
    "notebook.stepper-tier-gpu": "GPU tier: oldest on the left, newest on the right",
    "notebook.stepper-tier-cpu": "CPU tier: oldest on the left, newest on the right",
    "notebook.stepper-back": "one read back",
    "notebook.stepper-forward": "one read forward",
    "notebook.stepper-slider": "read",
    "notebook.stepper-no-widgets": ("Buttons can step through these reads one at a time, forward and back. They need "
                                    "ipywidgets: run `pip install ipywidgets`, then restart the kernel. The timeline "
                                    "above shows every read at once."),
    "fonts.none": ("No font for this language's figures: kvlab's own {file} is missing or unreadable, and this "
                   "machine has none. The figures' text may show as boxes; reinstalling kvlab with the README's "
                   "command brings the font back."),
    "notebook.timeline-no-slider": ("A slider can redraw this figure at any capacity. It needs ipywidgets: run "
                                    "`pip install ipywidgets` (or `pip install -e '.[lab]'`), then restart the kernel."),
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

    # a prediction cell and the cell after it (notebook.compare_prediction)
    "notebook.prediction-blank": ("{what}: **predict first.** Write your prediction in the cell above and run it. "
                                  "Then run this cell again."),
    "notebook.command-timeout": "`{command}` did not finish within {seconds} s.",
    "notebook.command-failed": "`{command}` stopped with exit status {code}: {error}",
    "notebook.command-no-error": "it printed no error",
    "notebook.command-not-json": "`{command}` did not print exactly one JSON document. It printed: {text}",
    "notebook.loop-not-written": ("{name} is not defined yet. Write the loop of step {step} in the cell under "
                                  "\"Your task (step {step})\", then run it."),
    "notebook.loop-stopped": "Your loop of step {step} stopped: {error}",
    "notebook.predict-first-above": ("**Predict first.** This cell shows what a prediction above asks. Replace each `...` "
                                     "there with your prediction and run that cell. Then run this one."),
    "notebook.prediction-same": "{what}: you predicted {prediction}. Your code gives {value}. They agree.",
    "notebook.prediction-differs": ("{what}: you predicted {prediction}. Your code gives {value}. They differ: "
                           "which one follows the rules?"),
    "notebook.prediction-stopped": "{what}: you predicted {prediction}. Your code stopped: {line}",

    # the notebooks' computed prose: nb.<notebook>.<name>
    "nb.00.not-installed": "not installed",
    "nb.00.kvlab-from": "kvlab from {folder}",
    "nb.00.artifacts-folder": "artifacts folder: {folder}",
    "nb.01.what-returns": "What the three reads return",
    "nb.01.what-keys": "What keys() lists, oldest first",
    "nb.01.what-evicted": "Which keys c evicts",
    "nb.01.what-huge-returns": "What access returns for the 11-token entry",
    "nb.01.what-left": "Which keys are left",
    "nb.01.what-one-pass": "Which documents are left after one pass",
    "nb.01.predict-one-pass": ("**Predict first:** the GPU holds {gpu:,} tokens and each document takes {tokens:,}. "
                               "After reading documents 0 … {last} once, in order, which documents are left in the "
                               "cache?"),
    "nb.01.one-pass-holds": "after one pass the cache holds {keys} (oldest first), using {used:,} of {gpu:,} tokens",
    "nb.01.answer-one-pass": ("**Answer.** {gpu:,} // {tokens:,} = {fit} whole documents fit, so the cache keeps the "
                              "last {kept} read: {docs}. Each miss evicted the oldest entry to make room. The next "
                              "notebook reads the documents again in the same order, starting with document 0, which "
                              "left long ago."),
    "nb.02.what-second-pass": "The second pass's hits",
    "nb.02.what-reverse": "Which documents the reverse pass hits, in read order",
    "nb.02.resident": "the GPU holds {resident} of {docs} documents",
    "nb.02.trace-hit": "read {doc}: hit   evicts {evicted}  cache now {keys}",
    "nb.02.trace-miss": "read {doc}: miss  evicts {evicted}  cache now {keys}",
    "nb.02.answer-second-pass": ("**Answer.** None. Each miss evicts the document read {resident} reads earlier. So the "
                                 "cache remembers only the last {resident} reads. A pass in the same order comes back "
                                 "to a document only after reading all {others} others. Documents {first_kept}–{last} "
                                 "were in the cache when the second pass started. Yet they were evicted while it read "
                                 "0–{last_read}, before their turn."),
    "nb.02.answer-second-pass-all": ("**Answer.** All {docs}: the GPU holds every document, so nothing is ever "
                                     "evicted."),
    "nb.02.answer-second-pass-none": "**Answer.** None: not even one document fits in the GPU.",
    "nb.02.cache-at-pass-3": "the cache when pass 3 starts: {keys} (oldest first)",
    "nb.02.pass-3-reads": ("pass 3 reads {order}: hit_docs {hit_docs}, {misses} miss",
                           "pass 3 reads {order}: hit_docs {hit_docs}, {misses} misses"),
    "nb.02.answer-third-pass": ("**Answer.** {kept}. The second pass leaves in the cache only the last `gpu // "
                                "tokens` = {resident} documents it read. Reading backwards meets exactly those "
                                "first, so they hit, in the order read. Every document after them was evicted during "
                                "the second pass, so it misses, and storing it evicts only documents this pass has "
                                "already read. Reversing the order turns the worst case (oldest first) into the best "
                                "(most recent first)."),
    "nb.03.what-six": "The second-pass hits at the six capacities",
    "nb.03.what-total": "The size of all the documents together, in tokens",
    "nb.03.what-first-hit": "The smallest GPU capacity with a second-pass hit",
    "nb.03.what-evicted": "What the second pass's first read evicts, one token short",
    "nb.03.total": "all {docs} documents together: {docs} × {tokens:,} = {total:,} tokens",
    "nb.03.table-header": "GPU capacity (tokens)  documents that fit  second-pass hits",
    "nb.03.none-and-some": (("With your loop: {largest:,} tokens hold {fit} of the {docs} documents and still "
                             "get no hit; {smallest:,} tokens get {hits} hit."),
                            ("With your loop: {largest:,} tokens hold {fit} of the {docs} documents and still "
                             "get no hit; {smallest:,} tokens get {hits} hits.")),
    "nb.03.only-none": ("With your loop: {largest:,} tokens hold {fit} of the {docs} documents and still get "
                        "no hit."),
    "nb.03.only-some": ("With your loop: {smallest:,} tokens get {hits} hit.",
                        "With your loop: {smallest:,} tokens get {hits} hits."),
    "nb.03.sweep-values": "{count} capacities from 0 to {last:,}: the hits take only the values {values}",
    "nb.03.no-first-hit": "No GPU capacity up to {limit:,} tokens gives a second-pass hit.",
    "nb.03.first-hit-at-total": ("The first GPU capacity with a second-pass hit: **{capacity:,} tokens** = {docs} × "
                                 "{tokens:,}, all the documents."),
    "nb.03.first-hit-at": "The first GPU capacity with a second-pass hit: **{capacity:,} tokens**.",
    "nb.03.figure-x": "GPU KV-cache capacity (tokens)",
    "nb.03.figure-y": "second-pass hits (documents)",
    "nb.03.figure-title": "Your simulator: {docs} documents × {tokens:,} tokens, read fwd then fwd",
    "nb.03.figure-step": "{docs} × {tokens:,}\n= {total:,} tokens:\nall documents fit",
    "nb.03.figure-marked": "the capacities recorded",
    "nb.03.answer": (
        "**Answer.** A pass in the same order comes back to a document only after it reads all the others. "
        "LRU keeps only the last `gpu // tokens` documents read. Unless that is every document, each miss "
        "evicts the document that the next pass needs soonest. So each document is gone before its turn: the "
        "timeline shows it, read by read. "
        "Only at {total:,} = {docs} × {tokens:,}, the size of all the documents, does nothing need evicting. "
        "Then all {docs} hit."),
    "nb.03.answer-grown": (
        "**Answer.** A pass in the same order comes back to a document only after it reads all the others. "
        "LRU keeps only the last `gpu // tokens` documents read. Unless that is every document, each miss "
        "evicts the document that the next pass needs soonest. So each document is gone before its turn: the "
        "timeline shows it, read by read. "
        "Going from {low:,} to {high:,} tokens ({factor:.2f}×) raises the documents kept from {kept_low} to "
        "{kept_high}. Each of them is still evicted before its turn. "
        "Only at {total:,} = {docs} × {tokens:,}, the size of all the documents, does nothing need evicting. "
        "Then all {docs} hit."),
    "nb.03.answer-nearly-double": (
        "**Answer.** A pass in the same order comes back to a document only after it reads all the others. "
        "LRU keeps only the last `gpu // tokens` documents read. Unless that is every document, each miss "
        "evicts the document that the next pass needs soonest. So each document is gone before its turn: the "
        "timeline shows it, read by read. "
        "Going from {low:,} to {high:,} tokens ({factor:.2f}×, nearly double) raises the documents kept from "
        "{kept_low} to {kept_high}. Each of them is still evicted before its turn. "
        "Only at {total:,} = {docs} × {tokens:,}, the size of all the documents, does nothing need evicting. "
        "Then all {docs} hit."),
    "nb.03.figure-point": ("{capacity:,} tokens: {n} hit", "{capacity:,} tokens: {n} hits"),
    "nb.04.cpu-zero-same": "{reads} reads, the same answers from both caches; the CPU tier holds {cpu}",
    "nb.04.cpu-zero-differs": "{reads} reads, and the answers of the two caches differ; the CPU tier holds {cpu}",
    "nb.04.what-returns": "What reading c, then b, returns",
    "nb.04.what-gpu": "What the GPU tier holds afterwards, oldest first",
    "nb.04.what-cpu": "What the CPU tier holds afterwards, oldest first",
    "nb.04.what-second-pass": "The second pass as (GPU hits, CPU hits, misses)",
    "nb.04.what-reverse": "The reverse pass as (GPU hits, CPU hits, misses)",
    "nb.04.pass-line": "pass {number} ({order}): {gpu:>2} GPU hits, {cpu:>2} CPU hits, {misses:>2} misses",
    "nb.04.answer-same": ("**Answer.** The second pass gets {gpu2} GPU hits, {cpu2} loads from CPU and {misses2} "
                          "recomputes. The reverse pass first finds the {gpu3} documents that the GPU still holds "
                          "({kept}). Then it finds {cpu3} more in the CPU tier: **{gpu3} GPU hits and {cpu3} CPU "
                          "hits**, {misses3} recomputed. The measurement split its reverse pass into 4 requests at "
                          "about 30 ms and 6 at about 48 ms: the same 4 + 6. Notebook 06 finds that split in the "
                          "measured file itself, document by document."),
    "nb.04.answer-other": ("**Answer.** The second pass gets {gpu2} GPU hits, {cpu2} loads from CPU and {misses2} "
                           "recomputes. The reverse pass first finds the {gpu3} documents that the GPU still holds "
                           "({kept}). Then it finds {cpu3} more in the CPU tier: **{gpu3} GPU hits and {cpu3} CPU "
                           "hits**, {misses3} recomputed. The measurement split its reverse pass into 4 requests at "
                           "about 30 ms and 6 at about 48 ms. That is not the same split: these parameters describe "
                           "another setup than the one measured."),
    "nb.04.bytes-per-document": "{per_token:,} bytes/token × {tokens:,} tokens = {gib:.4f} GiB per document",
    "nb.04.cpu-in-tokens": ("{gib} GiB / {per_token:,} bytes/token = {cpu_tokens:,.0f} tokens = {documents:.2f} "
                            "documents of {tokens:,} tokens"),
    "nb.04.cpu-approximation": ("So the lab's {lab_cpu:,} tokens is the CPU limit, {cpu_tokens:,.0f} tokens, rounded "
                                "to a round number: about {documents:.1f} measured documents. It is an approximation "
                                "in two ways: the real tier stores 256-token chunks, not whole documents, and the "
                                "simulator's documents are {lab_tokens:,} tokens, not {doc_tokens:,}. With this "
                                "notebook's parameters the CPU tier holds {held} of the {docs} documents; notebook "
                                "05 asks what happens when it cannot hold them all."),
    "nb.05.what-seven": "The second-pass misses at the seven capacities",
    "nb.05.what-needed": "The smallest CPU capacity with no second-pass miss",
    "nb.05.what-cpu-keys": "What the CPU tier holds after pass 1, oldest first",
    "nb.05.total": "all documents: {total:,} tokens; the GPU holds {in_gpu} of them",
    "nb.05.overflow": ("the part that did not fit in the GPU: {overflow:,} tokens, or {docs} whole documents = "
                       "{tokens:,} tokens"),
    "nb.05.table-header": "CPU capacity (tokens)  documents it holds  second-pass misses",
    "nb.05.candidate-overflow": "the overflow",
    "nb.05.candidate-overflow-documents": "the overflow in whole documents",
    "nb.05.candidate-all-less-one": "all documents less one token",
    "nb.05.candidate-all": "all documents",
    "nb.05.candidate-line": "CPU = {label} {cpu:>7,} tokens: {misses:>2} second-pass misses",
    "nb.05.no-first-zero": ("No CPU capacity up to {limit:,} tokens avoids every second-pass miss. The {count} "
                            "capacities from 0 to {last:,} give only the miss counts {values}."),
    "nb.05.first-zero-gpu-holds-all": ("The first CPU capacity without a second-pass miss: **0 tokens** (the GPU "
                                       "alone holds every document). The {count} capacities from 0 to {last:,} give "
                                       "only the miss counts {values}."),
    "nb.05.first-zero-at-total": ("The first CPU capacity without a second-pass miss: **{capacity:,} tokens** = "
                                  "{docs} × {tokens:,}, all the documents. The {count} capacities from 0 to {last:,} "
                                  "give only the miss counts {values}."),
    "nb.05.first-zero-at": ("The first CPU capacity without a second-pass miss: **{capacity:,} tokens**. The {count} "
                            "capacities from 0 to {last:,} give only the miss counts {values}."),
    "nb.05.figure-x": "CPU KV-cache capacity (tokens)",
    "nb.05.figure-y": "second-pass misses (documents)",
    "nb.05.figure-title": ("Your simulator at a {gpu:,}-token GPU: {docs} documents × {tokens:,} tokens, fwd then "
                           "fwd"),
    "nb.05.figure-step": "{docs} × {tokens:,}\n= {total:,} tokens:\nthe CPU holds all",
    "nb.05.figure-overflow": "overflow: {overflow:,} tokens\n({misses} misses there)",
    "nb.05.tiers-after-pass-1": "after pass 1, GPU tier: {gpu}  CPU tier: {cpu}",
    "nb.05.nothing-overflows": ("With these parameters the GPU holds every document: nothing overflows, and the CPU "
                                "tier is not needed."),
    "nb.05.answer": ("**Answer. All documents.** The CPU tier is an LRU cache of the GPU's misses. Every miss is "
                     "stored in *both* tiers (rule 3). So the CPU tier also holds copies of what the GPU holds. "
                     "Sized for the overflow, it has {places} places, and {shared} of them hold documents that the "
                     "GPU holds too. Like any LRU cache under a "
                     "same-order scan, it has a cliff. The second pass starts with document 0, which neither tier "
                     "holds. Then every miss evicts, in the CPU tier, the next document that the pass needs. Only "
                     "when the CPU tier holds every document, `docs × tokens` = {total:,} tokens, does the second "
                     "pass load them all back."),
    "nb.05.slider": "CPU capacity (tokens)",
    "nb.05.answer-gpu-holds-all": ("**Answer.** With these parameters the GPU alone holds all {docs} documents, so "
                                   "the second pass needs no CPU tier at all; at the lab's GPU the answer is all "
                                   "documents (re-run with the defaults)."),
    "nb.06.stand-in": ("This file is the **stand-in**. It was generated, not measured (`fixtures/README.md` says "
                       "how). It shows that the analysis works. It says nothing about a real engine. The box "
                       "**Limits** near the end says what follows from that."),
    "nb.06.not-stand-in": ("This file is not the stand-in. Every finding below is evidence about whatever produced "
                           "it."),
    "nb.06.verdict-faster": "lmcache faster",
    "nb.06.verdict-slower": "lmcache slower",
    "nb.06.verdict-same": "the same",
    "nb.06.ratio-line": "{name} p50 ratio {p50:>5.2f}   mean ratio {mean:>5.2f}   {verdict}",
    "nb.06.no-pass": "none",
    "nb.06.what-faster": "The passes where lmcache is faster (ratio above 1)",
    "nb.06.what-gpu-hits": "The reverse pass's GPU hits, in read order",
    "nb.06.answer-ratios": ("**Answer.** Above 1 (lmcache faster): {above}. Below 1: {below}. A ratio below 1 means "
                            "lmcache took longer than the baseline. In the cold pass nothing can be reused, so both "
                            "engines recompute every prefill. {cold}"),
    "nb.06.requests": ("{n} request",
                       "{n} requests"),
    "nb.06.pass-and-order": "{name} ({order})",
    "nb.06.order-neither": "neither fwd nor rev",
    "nb.06.layout": ("{n} pass, in the order it ran: {passes}. {docs} documents, ids {ids}.",
                     "{n} passes, in the order they ran: {passes}. {docs} documents, ids {ids}."),
    "nb.06.layout-no-documents": ("{n} pass, in the order it ran: {passes}. No documents.",
                                  "{n} passes, in the order they ran: {passes}. No documents."),
    "nb.06.cold-is": "The cold pass, the one that ran first: **{name}**.",
    "nb.06.id-range": "{first}…{last}",
    "nb.06.not-the-labs-pass-names": ("These are not the lab's pass names ({names}). So each pass stands where the "
                                      "lab's would: a name with \"cold\" first, then the forward passes, then the "
                                      "backward ones."),
    "nb.06.placed-by-name": (("The lines of {names} are not in read order. It is one of the lab's passes, so its "
                              "requests are placed by document id, in the order its name gives."),
                             ("The lines of {names} are not in read order. They are the lab's passes, so their "
                              "requests are placed by document id, in the order each name gives.")),
    "nb.06.ids-mapped": "The simulator numbers documents 0…{last}. The file's ids map to those in ascending order.",
    "nb.06.stopped": "Analysis stopped: {problem} Every later cell is skipped.",
    "nb.06.skipped": "skipped: the file broke an assumption above",
    "nb.06.no-tiers": "skipped: your simulator gave the requests no tier above (the line there says why)",
    "nb.06.not-a-tier": ("your TwoTierCache.access returned {value}, not one of {tiers}; fix step 5 and run "
                         "check.step(5)"),
    "nb.06.param-sizes": ("sizes must be \"GPU,CPU\" in tokens, such as \"21520,56000\", or empty for the file's "
                          "own; got {got}"),
    "nb.06.no-sizes": ("{file} has no settings file beside it, and it is not the lab's file. So its GPU and CPU "
                       "sizes are unknown. Give them with the parameter sizes, such as \"21520,56000\"."),
    "nb.06.problem-no-config": "the file has no {configs} requests, so nothing compares the two configs.",
    "nb.06.problem-no-field": "the file's lines have no field {fields}.",
    "nb.06.problem-not-integer": "field `{name}` holds a value that is not a whole number.",
    "nb.06.problem-not-number": "field `{name}` holds a value that is not a number of at least 0.",
    "nb.06.problem-repeated": "{config} reads document {doc} more than once in pass {name}.",
    "nb.06.problem-some-documents": "{config} pass {name} reads {read} of the {docs} documents.",
    "nb.06.problem-different-orders": "baseline and lmcache read pass {name} in different orders.",
    "nb.06.problem-neither-order": (("pass {name} reads its documents in neither order: the lines may be shuffled. "
                                     "The file has no timestamps, and {name} is not one of the lab's passes. So "
                                     "nothing gives its read order."),
                                    ("passes {names} read their documents in neither order: the lines may be "
                                     "shuffled. The file has no timestamps, and these are not the lab's passes. So "
                                     "nothing gives their read order.")),
    "nb.06.not-json": "{file}, line {line}: not JSON ({error})",
    "nb.06.cache-of": "{config} `TwoTierCache({gpu}, {cpu})`",
    "nb.06.sizes-lab": ("The lab's file, so the lab's sizes: {caches}. Every document is read as {tokens:,} tokens, "
                        "the lab's size."),
    "nb.06.sizes-file": ("Sizes from the file's settings: {caches}. Every document is read as {tokens:,} tokens, "
                         "as measured."),
    "nb.06.sizes-lab-shape": ("The file has no settings of its own. Its documents hold {measured:,} tokens, as in the "
                              "lab's measurement. So the lab's sizes: {caches}. Every document is read as {tokens:,} "
                              "tokens, the lab's size. For other sizes, give the parameter `sizes`."),
    "nb.06.sizes-given": ("Sizes from the parameter `sizes`: {caches}. Every document is read as {tokens:,} tokens, "
                          "as measured."),
    "nb.06.tiers-given": ("Your simulator gave each of the {n} requests a tier, in column `tier`. The section on the "
                          "reverse pass shows them, after your prediction."),
    "nb.06.warm-up": ("{config}'s first request ({name}, document {doc}) took {ms:,.1f} ms, {times:.1f}× the median "
                      "of its kind. This request is a **warm-up**. Left in, the warm-up would move the mean of "
                      "{config} {name} by {mean_shift:+.1f} ms, but the median by only {median_shift:+.1f} ms. The "
                      "analysis below leaves the warm-up out. Your `summarize` keeps every request: it summarizes "
                      "the file as it is."),
    "nb.06.no-warm-up": ("No warm-up: each engine's first request took at most {times:.2f}× the median of its kind. "
                         "A warm-up takes {factor}× or more."),
    "nb.06.no-reverse-pass": ("The file has no pass that reads the documents backwards. So question 2 (GPU hits and "
                              "loads from CPU in the reverse pass) does not apply to it."),
    "nb.06.tier-count-gpu": ("{n} GPU hit",
                             "{n} GPU hits"),
    "nb.06.tier-count-cpu": ("{n} load from CPU",
                             "{n} loads from CPU"),
    "nb.06.tier-count-miss": ("{n} recompute",
                              "{n} recomputes"),
    "nb.06.tier-plural-gpu": "GPU hits",
    "nb.06.tier-plural-cpu": "loads from CPU",
    "nb.06.tier-plural-miss": "recomputes",
    "nb.06.tier-group": "{count} (documents {docs}: {low:.1f}–{high:.1f} ms)",
    "nb.06.split-yes": ("{config}, {name}: {groups}. Every request of a faster tier was faster than every request "
                        "of a slower one. The measurement splits {counts}, document for document."),
    "nb.06.split-no": ("{config}, {name}: {groups}. The measured times of these tiers overlap. The measurement does "
                       "not split the way your simulator does."),
    "nb.06.split-one-kind": "{config}, {name}: {groups}. One tier only: there is no split to compare.",
    "nb.06.cold-tiers": "Your simulator's tiers in {name}: {counts}.",
    "nb.06.config-counts": "{config} {counts}",
    "nb.06.cold-pairs": ("{name}: {n} documents in pairs. lmcache was slower on {slower} of them and faster on "
                         "{faster}. The mean difference (baseline − lmcache) is {mean:+.1f} ms, {share:+.1%} of the "
                         "baseline's median."),
    "nb.06.cold-ties": ("{n} document took the same time in both configs. The sign test leaves it out.",
                        "{n} documents took the same time in both configs. The sign test leaves them out."),
    "nb.06.too-few-pairs": ("{name} has {n} documents with a request in both configs. The tests need 2 or more, so "
                            "this file cannot answer the question."),
    "nb.06.sign-test": ("**Sign test.** lmcache was slower on {slower} of {n} documents. Suppose each document were "
                        "slower with a chance of one half, like a coin. Then {slower} or more of {n} would come up "
                        "with p = {p:.3f} (one-sided). Two-sided: p = {p_two:.3f}."),
    "nb.06.bootstrap": ("**Bootstrap.** {samples:,} resamples of the {n} differences, each drawn with replacement. "
                        "The middle 95 % of their means runs from {low:+.1f} to {high:+.1f} ms. {zero}"),
    "nb.06.bootstrap-zero-in": "The interval holds 0.",
    "nb.06.bootstrap-zero-out": "The interval does not hold 0.",
    "nb.06.permutation-exact": ("**Permutation test.** All {count:,} ways to flip the signs of the {n} differences. "
                                "A mean of {mean:+.1f} ms or lower came up in {share:.1%} of them: p = {p:.3f} "
                                "(one-sided). Two-sided: p = {p_two:.3f}."),
    "nb.06.permutation-random": ("**Permutation test.** {count:,} random ways to flip the signs of the {n} "
                                 "differences. A mean of {mean:+.1f} ms or lower came up in {share:.1%} of them: "
                                 "p = {p:.3f} (one-sided). Two-sided: p = {p_two:.3f}."),
    "nb.06.cold-verdict-all": ("**Both tests find lmcache slower in {name}** (sign test p = {sign:.3f}, permutation "
                               "test p = {permutation:.3f}; one-sided, cut-off {cut_off}). Chance alone rarely gives "
                               "differences this consistent."),
    "nb.06.cold-verdict-none": ("**This file does not show that lmcache is slower in {name}** (sign test p = "
                                "{sign:.3f}, permutation test p = {permutation:.3f}; one-sided, cut-off {cut_off}). "
                                "Chance alone gives differences like these often enough."),
    "nb.06.cold-verdict-mixed": ("**The verdict depends on the test.** In {name}, the sign test gives p = {sign:.3f} "
                                 "and the permutation test p = {permutation:.3f} (one-sided, cut-off {cut_off}). The "
                                 "sign test uses only the directions. The permutation test also uses the sizes. So "
                                 "the evidence that lmcache is slower is weak."),
    "nb.06.verdict-and-cause": "{verdict}\n\n{cause}",
    "nb.06.no-cause": ("A test cannot show a cause. The lab text explains a slower lmcache by the write to the CPU "
                       "tier (rule 3). A test only says how often chance alone gives such differences."),
    "nb.06.no-cause-stand-in": "In this stand-in, the gap was put there by its generator (`fixtures/make_ttft.py`).",
    "nb.06.mean-median": ("In {name}, {gpu} of the {n} requests are GPU hits in both configs. The other {rest} are "
                          "recomputes in baseline and loads from CPU in lmcache. In baseline, the median is "
                          "{base_median:.1f} ms and the mean {base_mean:.1f} ms. A median is the middle of the sorted "
                          "times. With {rest} of {n} requests slow, the middle ones are slow in both configs. So the "
                          "p50 ratio, {p50:.2f}, compares a recompute with a load from CPU. The mean counts every "
                          "request. The GPU hits take about the same time in both configs: {gpu_base:.1f} ms and "
                          "{gpu_cached:.1f} ms on average. They add almost the same time to both means. So the mean "
                          "ratio falls to {mean:.2f}."),
    "nb.06.mean-median-other": ("In {name}, the median of baseline falls among its {base_middle}. The median of "
                                "lmcache falls among its {cached_middle}. The p50 ratio is {p50:.2f} and the mean "
                                "ratio {mean:.2f}. A median takes the middle requests. A mean counts every request."),
    "nb.06.mean-median-one-config": "{name} has requests of one config only: there is no ratio to explain.",
    "nb.06.answer-split": ("**Answer.** Yes, document for document. The requests your simulator serves from the GPU "
                           "were the fastest in both configs. Those it loads from the CPU came next in lmcache. The "
                           "baseline has no CPU tier, so it recomputed them."),
    "nb.06.answer-no-split": ("**Answer.** Not with this file. In {configs}, the measured times of the tiers "
                              "overlap."),
    "nb.06.answer-no-reverse-pass": "**Answer.** The question does not apply: this file has no reverse pass.",
    "nb.06.limits": ("**Limits.**\n\n"
                     "{stand_in}{lab_run}"
                     "- The simulator works per document and has no timing. It predicts *which* requests are fast, "
                     "not how fast. {tokens}\n"
                     "- The file has no timestamps. The lab's passes are placed by their names and the document "
                     "ids. Any other pass is read in the order of its lines.\n"
                     "- A test says how often chance alone gives such differences. It cannot show a cause.\n"
                     "- The CPU tier's size is an approximation (notebook 04). A smaller CPU tier (notebook 05) is a "
                     "prediction."),
    "nb.06.limits-stand-in": ("- **By construction.** This file is the generated stand-in. It was built to match "
                              "the published figures, so agreeing with them proves nothing. Its GPU hits are "
                              "placed on the documents the simulator keeps in the GPU. Its cold-pass gap is "
                              "generated too. The same cells test the simulator only on the course machine's "
                              "measurement.\n"),
    "nb.06.limits-lab-run": ("- The measurement is one run: concurrency 1, a 1.5B model, one GPU, synthetic "
                             "documents. Another load, model or GPU changes the milliseconds, and perhaps the "
                             "ratios.\n"),
    "nb.06.limits-tokens": "Its documents are {tokens:,} tokens; the measured ones hold {measured:,} tokens of KV.",
    "nb.06.limits-tokens-same": "Its documents are {tokens:,} tokens, as measured.",
    "nb.06.plot-ms": "time to first token (ms)",
    "nb.06.plot-ms-log": "time to first token (ms, log scale)",
    "nb.06.plot-pairs-title": "{name}: each document in both configs\n(the axis starts at 0)",
    "nb.06.plot-pair-line": "one document: its two requests",
    "nb.06.plot-differences-title": "The difference of each document",
    "nb.06.plot-doc": "document",
    "nb.06.plot-difference-ms": "baseline − lmcache (ms)",
    "nb.06.plot-difference-dot": "one document's difference",
    "nb.06.plot-zero-line": "0: no difference",
    "nb.06.plot-mean-line": "the mean difference",
    "nb.06.plot-interval-band": "95 % bootstrap interval of the mean",
    "nb.06.plot-below-zero": "below 0: lmcache slower",
    "nb.06.plot-bootstrap-title": "Bootstrap, {name}:\nthe means of the resamples",
    "nb.06.plot-permutation-title": "Permutation test, {name}:\nwhat chance alone gives",
    "nb.06.plot-resampled": "the mean of each of {n:,} resamples, drawn with replacement",
    "nb.06.plot-flipped": "the mean under each of {n:,} sign patterns",
    "nb.06.plot-tail": "at or below the observed mean: share p = {p:.3f}",
    "nb.06.plot-observed-line": "the observed mean, {mean:+.1f} ms",
    "nb.06.plot-mean-difference-ms": "mean of baseline − lmcache (ms)",
    "nb.06.plot-count-resamples": "resamples",
    "nb.06.plot-count-patterns": "sign patterns",
    "nb.06.plot-reverse-one-axis": "{name}: every request, both configs on one axis",
    "nb.06.plot-tier-median": "the median of a tier",
    "nb.06.plot-doc-label": "the number by a dot: its document",
    "nb.06.column-requests": "requests",
    "nb.06.column-documents": "documents",
    "nb.06.list-comma": ", ",
    "nb.06.list-and": "{items} and {last}",
    "nb.06.list-or": "{items} or {last}",
    "nb.06.summary-differs": "{config} {name}: yours {yours}, pandas {pandas}",
    "nb.06.ratio-differs": "ratio {name}: yours {yours}, pandas {pandas}",
    "nb.06.pandas-differs": "pandas and your summarize differ: {differences}.",
    "nb.06.pandas-differs-more": "pandas and your summarize differ: {differences}; and {more} more.",
    "nb.06.pandas-agrees": ("pandas agrees with your summarize on all {groups} (config, pass) groups and {ratios} "
                            "ratios."),
    "nb.07.what-steps": "Where the curve steps (capacity -> hits from there on)",
    "nb.07.what-mru": "Which documents MRU hits in the second pass",
    "nb.07.what-other-hits": "FIFO's, LFU's, ARC's and OPT's second-pass hits at the lab's GPU",
    "nb.07.what-cliff": "Whether the trace has a cliff",
    "nb.07.what-share": "The share of the reachable hits at 1% of the distinct blocks",
    "nb.07.workload": ("the lab's workload: {docs} documents × {tokens:,} tokens = {total:,} tokens, read fwd then "
                       "fwd: {reads} reads"),
    "nb.07.your-steps": "your `LRUCache` at {count} capacities; capacity -> hits from there on: {changes}",
    "nb.07.curve-agrees": "The one-pass curve and your `LRUCache` agree at all {count} capacities.",
    "nb.07.curve-differs": ("The one-pass curve and your `LRUCache` agree at {agree} of {count} capacities; they "
                            "differ at {wrong}."),
    "nb.07.tiers-agree": ("The one-pass curve gives the same second-pass misses as your `TwoTierCache` at all "
                          "{count} CPU capacities."),
    "nb.07.tiers-differ": ("The one-pass curve and your `TwoTierCache` give different second-pass misses at the CPU "
                           "capacities {wrong} (of {count})."),
    "nb.07.mru-second-pass": ("At {gpu:,} tokens your `MRUCache` ends the first pass holding documents {kept}, and "
                              "the second pass hits {second}: {hits} of {docs}."),
    "nb.07.hits-at-gpu": "hits at a GPU of {gpu:,} tokens ({fit} of {docs} documents fit):",
    "nb.07.curves-cyclic": ("Fwd then fwd: {n} different curve: {groups}.",
                            "Fwd then fwd: {n} different curves: {groups}."),
    "nb.07.curves-random": ("Random orders: {n} different curve: {groups}.",
                            "Random orders: {n} different curves: {groups}."),
    "nb.07.figure-cyclic": "each pass in the same order (fwd, fwd)",
    "nb.07.figure-random": "each pass in a random order (mean of {orders} orders)",
    "nb.07.figure-gpu": "GPU {gpu:,} tokens",
    "nb.07.figure-x-tokens": "cache capacity (tokens)",
    "nb.07.figure-y-hits": "second-pass hits (of {docs} documents)",
    "nb.07.figure-lab-title": "{docs} documents × {tokens:,} tokens, read twice: hits against capacity, per policy",
    "nb.07.answer": ("**Answer.** In a cyclic scan, the document read least recently is exactly the one the next pass "
                     "needs first. LRU evicts it. Every later miss evicts the next document needed. So nothing is left "
                     "when the pass comes back, and LRU hits nothing until all {docs} documents fit. "
                     "MRU evicts the document just read, which the next pass needs last. So the first documents MRU "
                     "stored stay, and they hit: {mru} at {gpu:,} tokens. That is as many as OPT ({opt}), which no "
                     "policy can beat. In a random order, the evicted document is no longer always the next one needed. "
                     "At {mid:,} tokens, LRU hits {lru_mid:.1f} of {docs} on average, OPT {opt_mid:.1f} and MRU "
                     "{mru_mid:.1f}. The hits grow with the capacity: a slope, not a cliff. MRU stays near OPT for a "
                     "reason of its own. With two passes, a document read in the second pass is never needed again. So "
                     "the document just read is always a safe one to evict. The cliff comes from LRU *and* cyclic "
                     "access together. It is not a law of caching."),
    "nb.07.answer-with-same": ("**Answer.** In a cyclic scan, the document read least recently is exactly the one the next pass "
                               "needs first. LRU evicts it. Every later miss evicts the next document needed. So nothing is left "
                               "when the pass comes back, and LRU hits nothing until all {docs} documents fit. "
                               "{same} behave the same here. Nothing is read twice within a pass. So arrival order, read counts "
                               "(all equal; ties go to the least recently used) and ARC's T1 list (every entry read once) all "
                               "pick the document LRU picks. "
                               "MRU evicts the document just read, which the next pass needs last. So the first documents MRU "
                               "stored stay, and they hit: {mru} at {gpu:,} tokens. That is as many as OPT ({opt}), which no "
                               "policy can beat. In a random order, the evicted document is no longer always the next one needed. "
                               "At {mid:,} tokens, LRU hits {lru_mid:.1f} of {docs} on average, OPT {opt_mid:.1f} and MRU "
                               "{mru_mid:.1f}. The hits grow with the capacity: a slope, not a cliff. MRU stays near OPT for a "
                               "reason of its own. With two passes, a document read in the second pass is never needed again. So "
                               "the document just read is always a safe one to evict. The cliff comes from LRU *and* cyclic "
                               "access together. It is not a law of caching."),
    "nb.07.zipf": ("With alpha {alpha:g}, {reread:.0%} of the reads are of a document read before (the most any "
                   "cache can hit). At {at} documents ({share:.0%} of them) the policies rank: {ranking}."),
    "nb.07.label-lru-exact": "LRU, exact from one pass",
    "nb.07.label-lru-exact-short": "LRU, exact",
    "nb.07.label-every-reread": "every re-read hits",
    "nb.07.label-every-reread-share": "every re-read hits: {share:.1%}",
    "nb.07.label-lab-gpu": "the lab's GPU:\n{gpu:,} tokens\n= {blocks} blocks",
    "nb.07.figure-zipf-title": "Zipf popularity (alpha {alpha:g}): 500 documents, {reads:,} reads",
    "nb.07.figure-x-documents": "cache capacity (documents)",
    "nb.07.figure-y-ratio": "hit ratio",
    "nb.07.figure-whole-trace": "whole trace: {blocks:,} block reads",
    "nb.07.figure-head": "the first {reads:,} block reads, per policy",
    "nb.07.figure-x-blocks": "cache capacity (512-token blocks)",
    "nb.07.figure-y-block-ratio": "block hit ratio",
    "nb.07.figure-mooncake-title": "Mooncake conversation trace (Kimi, FAST '25): block hit ratio against capacity",
    "nb.07.trace-requests": ("{requests:,} requests over {minutes:.0f} minutes; prompts average {prompt:,.0f} "
                             "tokens, answers {answer:,.0f}"),
    "nb.07.trace-blocks": ("{blocks:,} block reads of {distinct:,} distinct blocks; {reused:,} ({share:.1%}) were "
                           "read before, the most any cache can hit"),
    "nb.07.real-no-cliff": ("No cliff: the largest step at any one capacity adds {step:,} hits, {step_share:.2%} of "
                            "the reachable ones. A cache of {cache:,} blocks (1% of the distinct blocks) already "
                            "hits {ratio:.1%} of the reads, {of_reachable:.0%} of the reachable {reachable:.1%}; "
                            "half of the reachable hits come at {half:,} blocks, 90% at {most:,}, and all of them at "
                            "{all:,}."),
    "nb.07.real-curve": ("The largest step at any one capacity adds {step:,} hits, {step_share:.2%} of the reachable "
                         "ones. A cache of {cache:,} blocks (1% of the distinct blocks) already hits {ratio:.1%} of "
                         "the reads, {of_reachable:.0%} of the reachable {reachable:.1%}; half of the reachable hits "
                         "come at {half:,} blocks, 90% at {most:,}, and all of them at {all:,}."),
    "nb.07.head": ("{reads:,} block reads, {rereads:.1%} of them re-reads; your `LRUCache` agrees with the one-pass "
                   "curve at {agree} of {count} capacities. At {middle:,} blocks the online policies rank {ranking} "
                   "(MRU, the best on the cyclic scan, is number {mru_rank} of {online} here); OPT, which knows the "
                   "future, hits {opt:.1%}."),
    "nb.07.why-no-cliff": ("- {shared:.1%} of the requests begin with the same block ({block}). They share it like a "
                           "system prompt. It is read once every {every:.0f} blocks on average. So it stays among the "
                           "most recent, and it hits in the smallest caches: {plateau:.1%} of all reads, the first "
                           "plateau.\n- Most other re-reads are a conversation's next turn. The next turn sends the "
                           "previous prompt again, after the traffic of every other conversation in between. At "
                           "{per_minute:,.0f} blocks a minute, half of the reachable hits need {half:,} blocks, about "
                           "{minutes:.1f} minutes of traffic. Those gaps differ from one conversation to the next. So "
                           "the hits arrive gradually as the capacity grows.\n- In a cyclic scan every re-read has the "
                           "same distance: all the documents. So every hit arrives at one capacity: that is the cliff."),
    "nb.07.blocks": ("- The lab's GPU of {gpu:,} tokens is {mooncake} Mooncake blocks, {lmcache} LMCache chunks or "
                     "{vllm:,} vLLM blocks. On the conversation trace, {mooncake} blocks hit {ratio:.1%} of the "
                     "reads.\n- Count tokens instead of whole 512-token blocks, where a partial last block weighs "
                     "what it holds. Then {token_share:.1%} of the prompt tokens were read before, against "
                     "{block_share:.1%} of the blocks.\n- At {kv_bytes:,} bytes of KV per token, a 512-token block "
                     "takes {block_mib:.1f} MiB. An LRU cache that hits every re-read of this one hour holds "
                     "{blocks:,} blocks: {tib:.2f} TiB. That is why Mooncake pools the CPU memory and SSDs of a "
                     "whole cluster."),

    # --- notebook 06's optional sections: the latency model, blocks and chunks, the CPU engine's file --------
    "nb.06.latency-fit": ("Fitted to {n} requests, each with your simulator's tier. The residuals are {rms:.1f} ms "
                          "RMS. Each interval below is the middle 95 % of {samples} refits. Each refit draws the "
                          "requests with replacement."),
    "nb.06.latency-prefill": ("A prefill costs {fixed:.1f} ms ({fixed_low:.1f}–{fixed_high:.1f}) + {per_token:.4f} ms "
                              "a token ({per_token_low:.4f}–{per_token_high:.4f})."),
    "nb.06.latency-write": ("A miss with a CPU tier takes {fixed:.1f} ms more ({low:.1f}–{high:.1f}): the write to "
                            "the CPU tier."),
    "nb.06.latency-write-per-token": ("A miss with a CPU tier takes {fixed:.1f} ms ({fixed_low:.1f}–{fixed_high:.1f}) "
                                      "+ {per_token:.4f} ms a token ({per_token_low:.4f}–{per_token_high:.4f}) more: "
                                      "the write to the CPU tier."),
    "nb.06.latency-no-write": "No request was a miss with a CPU tier, so the file says nothing of the write.",
    "nb.06.latency-load-effective": ("A load from CPU takes {extra:.1f} ms more than a GPU hit ({extra_low:.1f}–"
                                     "{extra_high:.1f}). The file has one document length. So the fit cannot split "
                                     "that time into a fixed cost and a cost per byte. The fit reads all of it as bytes: "
                                     "**{bandwidth:.2f} GB/s** ({low:.2f}–{high:.2f}). This number is an **effective "
                                     "bandwidth**: the KV bytes of a document over the whole extra time."),
    "nb.06.latency-load-fitted": ("A load from CPU costs {fixed:.1f} ms ({fixed_low:.1f}–{fixed_high:.1f}) + the KV "
                                  "at **{bandwidth:.2f} GB/s** ({low:.2f}–{high:.2f})."),
    "nb.06.latency-no-load": "No request was a load from CPU, so the file says nothing of the CPU→GPU link.",
    "nb.06.latency-held": "Held at 0 by the bound, because a cost is never below 0: {names}.",
    "nb.06.latency-link": ("A document's KV is {megabytes:.1f} MB. A PCIe 4.0 x16 link at {link:.0f} GB/s would move "
                           "it in {link_ms:.1f} ms. The other {rest_ms:.1f} ms of the load would be costs that do not "
                           "grow with the bytes. Finding the chunks and starting each copy may be such costs. So the "
                           "gap to {link:.0f} GB/s says little about the link itself."),
    "nb.06.latency-link-faster": ("A document's KV is {megabytes:.1f} MB. A link at {link:.0f} GB/s would move it in "
                                  "{link_ms:.1f} ms, more than the whole extra time of a load. So the KV size a "
                                  "token is likely wrong for this file."),
    "nb.06.what-bandwidth": "The effective CPU→GPU bandwidth (GB/s)",
    "nb.06.plot-predicted-title": "Each request: predicted against measured TTFT",
    "nb.06.plot-measured-ms": "measured TTFT (ms, log scale)",
    "nb.06.plot-predicted-ms": "the latency model's TTFT (ms, log scale)",
    "nb.06.plot-exact-line": "predicted exactly",
    "nb.06.step7-ms": ("**A prediction, not a measurement:** step 7's CPU capacities in milliseconds, from the model "
                       "fitted above. GPU {gpu:,} tokens, {docs} documents of {tokens:,} tokens, pass 2 of fwd,fwd. "
                       "The interval is the middle 95 % of the refits."),
    "nb.06.column-misses": "misses",
    "nb.06.column-interval": "p50 interval (ms)",
    "nb.06.step7-worse": ("The model predicts a CPU tier of {capacities} tokens to be slower than no CPU tier: "
                          "{worse:.1f} ms against {none:.1f} ms. Such a tier is too small. The replay pass finds none "
                          "of its documents there (the cliff of step 7). Yet each miss still writes its KV there "
                          "(rule 3), at {write:.1f} ms ({low:.1f}–{high:.1f}). So a CPU tier that is too small costs "
                          "time and saves none. Whether a real engine pays this write in full is not measured here."),
    "nb.06.what-partial": "The document of the reverse pass that the block model calls a partial hit in baseline",
    "nb.06.block-same": "The two models agree on every request of this file.",
    "nb.06.block-cannot-run": "The block model cannot run on this file: {reason}",
    "nb.06.block-too-small": ("a document and its question do not fit in a GPU tier of {gpu:,} tokens. The block "
                              "model keeps a whole request on the GPU."),
    "nb.06.block-residuals-same": ("Residual RMS: {document:.1f} ms with either model. The two models agree on every "
                                   "request here, so this file cannot tell them apart."),
    "nb.06.block-residuals": ("Residual RMS: {document:.1f} ms with your simulator's documents, {block:.1f} ms with "
                              "blocks and chunks. This measurement supports {better}. {stand_in}"),
    "nb.06.block-stand-in": ("The stand-in was generated from the document-level model, so it must favour that "
                             "model. Only a real measurement can decide."),
    "nb.06.model-document": "the document-level model",
    "nb.06.model-block": "the block-level model",
    "nb.06.block-cliff": ("The block model's CPU cliff at the lab's sizes: {chunks} chunks of 256 tokens, {tokens:,} "
                          "tokens. Your simulator's cliff: {simulator:,} tokens."),
    "nb.06.column-simulator": "your simulator",
    "nb.06.column-block-model": "block model",
    "nb.06.no-engine-file": ("No file from the CPU engine yet ({file} in the output folder). `python -m kvlab engine` "
                             "records one on this machine's CPU in a few minutes. It needs the extra `engine`."),
    "nb.06.engine-file": ("The CPU engine's file: {requests} requests, documents of {tokens:,} tokens, a RAM cache of "
                          "{cache} documents, llama.cpp {version}. Measured on a CPU, not a GPU."),
    "nb.06.engine-agree": ("{config}: {agree} of {total} requests in the group your simulator names (GPU = the live "
                           "context, one document; CPU = the RAM cache): {groups}. What the times tell apart: {tells}."),
    "nb.06.engine-run-it": ("For the whole analysis above on this file, run this notebook with `ttft` set to {file}. "
                            "Its sizes come from its settings file."),

    # --- course and feedback (kvlab grade --course) -------------------------------------------------------
    "course.feedback-title": "Feedback on your hand-in: {who}",
    "course.course-line": "Course {course}. Hidden cases {cases}.",
    "course.practice-line": "Practice grading: no course file was used, so these points do not count.",
    "course.column-step": "Step",
    "course.column-result": "Result",
    "course.column-points": "Points",
    "course.passed": "passed",
    "course.failed": "failed",
    "course.not-graded": "Your hand-in could not be graded: {reason}.",
    "course.points-line": "Points before any late penalty: {raw} of {max_total}.",
    "course.on-time": "Handed in on time: no late penalty.",
    "course.late-line": ("Handed in {days} day late: {percent}% is taken off, so your total is {total} of {max_total}.",
                         "Handed in {days} days late: {percent}% is taken off, so your total is {total} of {max_total}."),
    "course.too-late": ("Handed in {days} day late, more than the {most} days the course accepts: your total is 0 of {max_total}.",
                        "Handed in {days} days late, more than the {most} days the course accepts: your total is 0 of {max_total}."),
    "course.total-line": "Your total is {total} of {max_total}.",
    "course.extension-line": "Your due date was extended to {due}: {reason}.",
    "course.override-line": "Your total was set by hand to {total} of {max_total}: {reason}.",
    "course.failing-title": "What to fix",
    "course.failing-step": "Step {number}: {title}",
    "course.rule-line": "Rule: {rule}",
    "course.hint-line": "Hint: {hint}",
    "course.rule-and-hint": "{rule} {hint}",
    "course.hidden-note": "Some rules use hidden random cases: their rows never show the cases.",
    "course.not-checked-title": "What was not checked",
    "course.all-checked": "Every rule of every step was checked.",
    "course.note-steps": ("Step {steps}: {note}", "Steps {steps}: {note}"),
    "course.skipped-rules": ("Step {number}: {count} rule was not checked.", "Step {number}: {count} rules were not checked."),

    # --- the class report (kvlab grade --report): for the instructor, in the course's language -------------
    "report.title": "Class report",
    "report.practice": "Practice grading (no course file).",
    "report.course": "Course {fingerprint}.",
    "report.two-sentences": "{first} {second}",
    "report.handins": ("{count} hand-in, {failed} not graded.", "{count} hand-ins, {failed} not graded."),
    "report.chart-alt": "bar chart",
    "report.steps-title": "Steps passed",
    "report.column-step": "step",
    "report.column-title": "title",
    "report.column-passed": "passed",
    "report.passed-of": "{passed} of {total}",
    "report.misconceptions-title": "Misconceptions to teach again",
    "report.misconceptions-how": "The first failure of each failing step names one; a student counts once per misconception.",
    "report.column-misconception": "misconception",
    "report.column-students": "students",
    "report.column-hint": "hint",
    "report.no-misconception": "None: every step passed, or failed without naming one.",
    "report.chart-passed": "Students who passed each step (of {students})",
    "report.chart-misconceptions": "Misconceptions named (first failure of a step)",
    "report.chart-none": "(none)",

    # --- the student's commands (kvlab check, kvlab handin, kvlab notebooks) ----------------------------
    "cli.check-no-such-step": "The lab has steps 1 to {last}, not {steps}.",
    "cli.no-such-folder": "{folder}: no such folder.",
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
    "handin.passes": "Every step of your hand-in in {folder} is OK.",
    "handin.fails": "Your hand-in in {folder} is written, but a step fails (the table says which): fix it, "
                    "run its notebook again, and hand in again with --force.",

    # --- measuring TTFT: kvlab latency (kvlab/latency.py), serve (kvlab/serve.py), measure (kvlab/measure.py) --
    "latency.file-help": "the TTFT file to fit (default: the lab's measured file, else the generated stand-in)",
    "latency.gpu-help": "GPU capacity in tokens of every config (default: the file's settings; the lab's 21,520 for the lab's file)",
    "latency.cpu-help": "CPU capacity in tokens of the configs other than baseline (default: the file's settings; the lab's 56,000 for the lab's file)",
    "latency.samples-help": "bootstrap resamples for the intervals (default {default})",
    "latency.bad-samples": "--samples must be at least 10",
    "latency.no-sizes": "{path} says nothing of the sizes it was measured with (no settings file beside it), and it is not the lab's file: give {options} in tokens",
    "latency.sizes-file": "Sizes from the file's settings (GPU/CPU tokens: {sizes}); documents of {tokens:,} tokens.",
    "latency.sizes-lab": "The lab's file: the lab's sizes (GPU/CPU tokens: {sizes}); documents read as the lab's {tokens:,} tokens.",
    "latency.sizes-given": "Sizes as given (GPU/CPU tokens: {sizes}); documents of {tokens:,} tokens.",
    "latency.warm-up": "Left out as a warm-up: {config} {pass} document {doc}, {ttft_ms:,.1f} ms, {times:.1f} times the median of its kind.",
    "latency.intervals": ("Intervals: 95 % of {samples} bootstrap resample over requests ({unfitted} could not be fitted).", "Intervals: 95 % of {samples} bootstrap resamples over requests ({unfitted} could not be fitted)."),
    "latency.prefill-spans": "  interval: {fixed} ms, {per_token} ms a token",
    "latency.load-spans": "  interval: {fixed} ms, {bandwidth} GB/s",
    "latency.write-spans": "  interval: {fixed} ms, {per_token} ms a token",
    "latency.held-at-zero": "Held at 0 by the bound (a negative cost would fit better, and a cost cannot be negative): {names}.",
    "latency.kind-row": "Predicted TTFT of a {kind} ({tokens:,}-token document): {ms:,.1f} ms (interval {span} ms).",
    "latency.kind-gpu": "GPU hit",
    "latency.kind-gpu_cpu_tier": "GPU hit with a CPU tier",
    "latency.kind-cpu_cpu_tier": "load from CPU",
    "latency.kind-miss": "miss without a CPU tier",
    "latency.kind-miss_cpu_tier": "miss with a CPU tier (it also writes there)",
    "latency.kv-help": "KV bytes per token of the model (default: the file's settings, else {default}: a 1.5B Qwen2.5-class model)",
    "latency.question-help": "tokens of the question after each document (default {default}: an assumption)",
    "latency.json-help": "print the whole report as one JSON object",
    "latency.no-simulator": "this runs on your kvlab/kvsim.py, which is not written yet: {reason}",
    "latency.cannot-read": "{path}: cannot be read ({reason})",
    "latency.bad-model": "{path}: not a latency model ({reason})",
    "latency.cannot-fit": "the file does not tell the model's costs apart (it needs misses and GPU hits at least)",
    "latency.not-the-lab-scenario": "the file holds a request the lab's scenario does not make: {key}",
    "latency.source": "Latency model fitted to {path}.",
    "latency.source-stand-in": "Latency model fitted to {path}: a GENERATED stand-in, not a measurement.",
    "latency.fit-line": ("{n} request, residual RMS {rms:.1f} ms.", "{n} requests, residual RMS {rms:.1f} ms."),
    "latency.prefill-line": "Prefill: {fixed:.1f} ms + {per_token:.4f} ms a token.",
    "latency.load-line": "CPU load: {fixed:.1f} ms + bytes at {bandwidth} GB/s ({kv} KV bytes a token).",
    "latency.write-line": "Write to the CPU tier on a miss: {fixed:.1f} ms + {per_token:.4f} ms a token.",
    "latency.fixed-at-zero": "Fixed at 0 (one document length cannot tell them from the per-token costs): {names}.",
    "latency.bandwidth-stand-in": "The bandwidth is implied by generated numbers: it says what the stand-in was made "
                                  "of, not what a machine does.",
    "latency.step7-title": "Step 7 in milliseconds, a PREDICTION of the model (GPU {gpu:,}, {docs} documents of {tokens:,} tokens, pass 2 of fwd,fwd):",
    "latency.step7-row": "  CPU {cpu:>6,}: {misses:>2} misses, TTFT p50 {p50:>6.1f} ms (interval {span} ms), mean {mean:>6.1f} ms",
    "serve.gpu-help": "GPU KV capacity in tokens (default {default})",
    "serve.cpu-help": "CPU KV capacity in tokens, 0 = no CPU tier: the baseline (default {default})",
    "serve.port-help": "port on 127.0.0.1 (default {default}; 0 = any free port, printed at start-up)",
    "serve.speed-help": "divide every sleep by this factor (default 1: the model's milliseconds)",
    "serve.latency-help": "a latency model as JSON (default: the one fitted to the stand-in)",
    "serve.needs": "kvlab serve needs {name}: pip install -e '.[serve]'",
    "serve.started": "kvlab serve: a SIMULATED OpenAI-compatible server, no model and no GPU, on {url} "
                     "(model {model}; GPU {gpu:,} tokens, CPU {cpu:,} tokens, speed x{speed:g})",
    "serve.bad-args": "--gpu and --cpu must be whole numbers >= 0, and --speed a number > 0",
    "measure.needs": "kvlab measure needs {name}: pip install -e '.[measure]'",
    "measure.out-help": "the JSONL file to write (the lab's fields), whole or not at all",
    "measure.base-url-help": "the server's base URL (default {default})",
    "measure.model-help": "the model name to send (default: the first of the server's /v1/models)",
    "measure.config-help": "the config label on every line: baseline or lmcache (default {default})",
    "measure.docs-help": "number of documents (default {default})",
    "measure.tokens-help": "tokens per document (default {default})",
    "measure.max-tokens-help": "tokens to generate per request (default {default})",
    "measure.passes-help": "comma-separated passes, each fwd or rev (default {default})",
    "measure.warmup-help": "warm-up requests on a short document of their own, not recorded (default {default})",
    "measure.timeout-help": "seconds to wait for a connection or for the next streamed token (default {default})",
    "measure.force-help": "overwrite OUT when it holds other content",
    "measure.append-help": "add the new lines to OUT's own (rewritten whole): record baseline, then lmcache",
    "measure.out-is-folder": "{path} is a folder; OUT must be a file",
    "measure.bad-args": "--tokens and --max-tokens must be >= 1, --warmup >= 0, --timeout > 0, and --config not empty",
    "measure.bad-passes": "{passes!r} is not a list of passes (each fwd or rev, separated by commas)",
    "measure.too-many-docs": "--docs {docs} is more than the {most} documents whose first words differ",
    "measure.other-content": "{path} already holds other content; nothing was sent (--force overwrites it, "
                             "--append adds to it)",
    "measure.same-config": "{path} already holds lines of config {config}; nothing was sent (--force replaces that config's lines)",
    "measure.unreachable": "cannot reach {url} ({reason}); nothing was written",
    "measure.status": "{url} answered HTTP {status}: {body}; nothing was written",
    "measure.cut": "{url} stopped mid-stream ({reason}); nothing was written",
    "measure.timeout": "{url} sent nothing for {timeout:g} s; nothing was written",
    "measure.not-json": "{url} sent a line that is not JSON: {line}; nothing was written",
    "measure.no-model": "{url} lists no model; give one with --model",
    "measure.tokenizer": "token counts: exact, from {endpoint}",
    "measure.no-tokenizer": "token counts: approximate (one a word): the server has neither /tokenize nor /extras/tokenize",
    "measure.inexact": "document {doc}: {got} tokens, not {want}: the tokenizer would not give the exact length",
    "measure.progress": "{config}",
    "measure.wrote": "wrote {path}: {n} requests of config {config}",
    "measure.wrote-settings": "wrote {path}: how it was recorded (server, sizes, warm-ups, TTFT's definition, the server's cache counts)",
    "measure.concurrency-help": "requests in flight at once within a pass (default 1: the lab's experiment)",
    "measure.concurrency": "{n} requests in flight at once: not the lab's experiment (it sends one at a time)",
    "measure.gpu-tokens-help": "the server's GPU KV capacity in tokens, recorded in the settings file for the analysis (kvlab serve reports its own)",
    "measure.cpu-tokens-help": "the server's CPU tier in tokens (0: none), recorded in the settings file (kvlab serve reports its own)",
    "measure.allow-warm-help": "record a cold pass that is not cold anyway (the settings file says so)",
    "measure.unknown-model": "{url} does not serve {model!r} (it serves {served}); nothing was sent",
    "measure.refused": "{url} refused a prompt of {tokens:,} document tokens (HTTP {status}); the server says: {body}; nothing was written",
    "measure.refused-404": "{url} answered HTTP 404: no completions endpoint there, or no such model; the server says: {body}; nothing was written",
    "measure.beyond-context": "{url} refused a prompt of {tokens:,} document tokens: beyond its context of {context:,} tokens (give --tokens below it); the server says: {body}; nothing was written",
    "measure.empty-stream": "{url} ended its stream before any token for a prompt of {tokens:,} document tokens; asked again without streaming, the server says: {body}; nothing was written",
    "measure.server-error": "{url} sent an error in its stream; the server says: {body}; nothing was written",
    "measure.not-streaming": "{url} answered without streaming (content type {kind}, not text/event-stream), so no first token can be timed: {body}; nothing was written",
    "measure.ended-early": "the stream ended before its last token",
    "measure.no-text": "{url} streamed no text at all, so there is no first token to time; nothing was written",
    "measure.run-is": "{docs} documents of {tokens} tokens, passes {passes}",
    "measure.append-other-run": "{path} holds another run ({theirs}); --append adds only the same documents, tokens and passes ({ours}); nothing was sent",
    "measure.warm": "the cold pass was not cold: {n} of its {total} requests found their document already cached ({how}; documents {docs}). Restart the server and measure again (--allow-warm records it anyway, flagged); nothing was written",
    "measure.warm-by-server": "the server's own cache counts say so",
    "measure.warm-by-timing": "faster than {threshold:.1f} ms, between a hit ({hit:.1f} ms) and a miss ({miss:.1f} ms) of a fresh document",
    "measure.warm-recorded": ("--allow-warm: {n} request of the cold pass found its document cached; the settings file flags it", "--allow-warm: {n} requests of the cold pass found their document cached; the settings file flags them"),
    "measure.cold-unchecked": "the cold pass could not be checked: the server reports no cache counts, and a hit was not faster than a miss on a fresh document",
    "measure.interrupted": ("interrupted: the {n} request measured so far is in {path}, a partial run ({out} was left as it was)", "interrupted: the {n} requests measured so far are in {path}, a partial run ({out} was left as it was)"),
    "measure.interrupted-nothing": "interrupted before any request was measured; nothing was written",

    # --- kvlab engine: llama.cpp on this machine's CPU (kvlab/engine.py) --------------------------------
    "engine.out-help": "the JSONL file to write: baseline's requests, then lmcache's, whole or not at all (default: {file} in the output folder, where notebook 06 looks)",
    "engine.tokens-help": "tokens per document (default {default}; the lab's are 5,011, about 2.5x as long to run)",
    "engine.cache-docs-help": "documents the RAM cache (the lmcache run's CPU tier) holds (default {default}: fewer than the documents, so the replay pass recomputes and the reverse pass splits, as in the lab)",
    "engine.threads-help": "llama.cpp's threads (default: the CPUs, at most 4)",
    "engine.model-help": "a GGUF model to serve instead of the tiny random-weight one kvlab writes",
    "engine.needs": "kvlab engine needs {name}: pip install -e '.[engine]' (llama-cpp-python builds from source: cmake and a C/C++ compiler, about 7 CPU-minutes)",
    "engine.bad-args": "--docs must be 1 to 50, --tokens {least} to {most}, --cache-docs and --threads at least 1",
    "engine.server-died": "llama.cpp's server stopped before it answered (exit status {code}); its log is next to OUT",
    "engine.no-tokenizer": "llama.cpp's server has no tokenize endpoint (/extras/tokenize), so documents cannot have exact lengths",
    "engine.server-slow": "llama.cpp's server did not answer within {seconds:.0f} s",
    "engine.model": "llama.cpp {version}: a tiny random-weight model ({layers} layers, {width} wide, {params:.1f} M parameters, {mb:.0f} MB) at {path}, {threads} threads. What it writes is noise; how long its prefill takes is real.",
    "engine.shorter": "documents of {tokens} tokens, shorter than the lab's {lab}, so that both runs take minutes, not a quarter of an hour (--tokens {lab} for the lab's length)",
    "engine.cache-none": "no RAM cache: the live context only (one document)",
    "engine.cache-docs": ("RAM cache of {docs} document", "RAM cache of {docs} documents"),
    "engine.config-done": ("{config}: {n} request in {seconds:.0f} s ({cache})", "{config}: {n} requests in {seconds:.0f} s ({cache})"),
    "engine.group-miss": "recompute {low:,.0f}-{high:,.0f} ms ({n})",
    "engine.group-cpu": "restore from the RAM cache {low:,.1f}-{high:,.1f} ms ({n})",
    "engine.group-gpu": "reuse of the live context {low:,.1f}-{high:,.1f} ms ({n})",
    "engine.agree": "{config}: {agree} of {total} requests in the group the simulator names (GPU = the live context, CPU = the RAM cache): {groups}",
    "engine.wrote": "wrote {path}: {n} requests, measured on this CPU (python3 kvlab/summarize.py reads it)",
    "engine.tells": "{config}: {what}",
    "engine.tells-all": "recompute, restore and reuse stand apart: reuse {gpu_low:,.1f}-{gpu_high:,.1f} ms, restore {cpu_low:,.1f}-{cpu_high:,.1f} ms",
    "engine.tells-overlap": "it tells a recompute from the rest, but not a reuse of the live context ({gpu_low:,.1f}-{gpu_high:,.1f} ms) from a restore from the RAM cache ({cpu_low:,.1f}-{cpu_high:,.1f} ms): they overlap, so this shows recompute against reuse, not a GPU tier against a CPU tier",
    "engine.tells-recompute": "it tells a recompute from a {kind}, nothing more",
    "engine.tells-one-group": "all its requests are of one kind: nothing to tell apart",
    "engine.kind-miss": "recompute",
    "engine.kind-cpu": "restore from the RAM cache",
    "engine.kind-gpu": "reuse of the live context",
    "engine.figure": "wrote {path}: every request, coloured by the simulator's outcome",
    "engine.figure-x": "requests, in the order they were sent",
    "engine.figure-title": "llama.cpp on this CPU: {docs} documents of {tokens:,} tokens, TTFT per request",
    "engine.no-figure": "no figure: it needs {name} (pip install -e '.[notebooks]')",
}

def _steps():
    """The steps' own entries (their titles, rules and hints live with each step: kvlab/lab/)."""
    from .lab import MESSAGES as STEPS
    return STEPS


MESSAGES.update(_steps())
