"""Parity of `kvlab check` and `kvlab grade` on the plants in kvsim.py (tests/parity.py says how)."""
import pytest

from parity import assert_parity, graded_and_checked
from planted import PLANTS

CACHES = [plant for plant in PLANTS if plant.script == "kvsim.py"]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    return graded_and_checked(tmp_path_factory.mktemp("parity"), CACHES)


@pytest.mark.parametrize("name", [plant.name for plant in CACHES])
def test_check_and_grade_give_the_plant_its_one_hint_on_the_same_steps(both, name):
    assert_parity(*both[name], name)
