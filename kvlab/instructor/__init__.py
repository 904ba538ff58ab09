"""The instructor's side of kvlab: never part of the student edition (`kvlab release`).

artifacts (the reference's six JSON files), handin (a reference hand-in folder), reference (expectations
computed with the reference), sandbox (bubblewrap), grade (hand-in folders) and release (the student edition).
"""
