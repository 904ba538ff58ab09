"""The lab's checks as tests, one per step: the same rules and hints as `python -m kvlab check`."""
import pytest

from kvlab import check


@pytest.mark.parametrize("number", range(1, 9), ids=[f"step{number}" for number in range(1, 9)])
def test_step(number):
    report = check.step(number)
    if not report.passed:
        pytest.fail(str(report), pytrace=False)  # the step's table and hint, not a traceback
