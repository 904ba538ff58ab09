"""Write tests/buggy/: each file a reference script with one planted bug (the table is tests/planted.py).

    python3 tests/make_buggy.py

If the reference has changed so that a plant's piece is gone, this stops and names the plant. The
first line of every fixture names its bug. tests/test_buggy_fixtures.py checks they are up to date.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from planted import DELETED, PLANTS, ROOT, planted_text  # noqa: E402

BUGGY = ROOT / "tests" / "buggy"


def main(folder=BUGGY):
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    stale = []
    for plant in PLANTS:
        text = planted_text(plant)
        if text is None:
            stale.append(plant.name)
            continue
        if text == DELETED:  # a file left out of the hand-in: nothing to show
            continue
        (folder / f"{plant.name}.py").write_text(text)
    if stale:
        raise SystemExit(f"make_buggy.py: the reference changed where these bugs go; plant them by hand: "
                         f"{', '.join(stale)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else BUGGY)
