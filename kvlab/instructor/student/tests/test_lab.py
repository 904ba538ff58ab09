"""The lab's checks as tests, one per step: the same rules and hints as `python -m kvlab check`."""
import pytest

from kvlab import check, lab


@pytest.mark.parametrize("number", lab.NUMBERS, ids=[f"step{number}" for number in lab.NUMBERS])
def test_step(number):
    report = check.step(number)
    if not report.passed:
        pytest.fail(str(report), pytrace=False)  # the step's table and hint, not a traceback
