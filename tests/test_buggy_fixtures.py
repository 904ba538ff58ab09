"""tests/buggy/ must stay the reference scripts with one planted bug each, not drift from them."""
from pathlib import Path

import make_buggy


def test_every_fixture_is_the_current_reference_with_its_one_bug(tmp_path):
    make_buggy.main(tmp_path)  # stops, naming the fixture, if the reference changed where a bug goes
    planted = {path.name: path.read_text() for path in tmp_path.glob("*.py")}
    kept = {path.name: path.read_text() for path in Path(make_buggy.BUGGY).glob("*.py")}
    assert sorted(kept) == sorted(planted)
    stale = [name for name in planted if kept[name] != planted[name]]
    assert not stale, f"run `python3 tests/make_buggy.py`: {stale} differ from the reference plus their bug"
