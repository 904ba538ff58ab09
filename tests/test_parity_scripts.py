"""Parity of `kvlab check` and `kvlab grade` on the plants in scenario.py and summarize.py, and the
artifact plants (tests/parity.py says how)."""
import pytest

from kvlab import steps as lab_table
from parity import KVSIM_STEPS, assert_parity, graded_and_checked
from planted import ARTIFACT_PLANTS, PLANTS

SCRIPTS = [plant for plant in PLANTS if plant.script != "kvsim.py"]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    return graded_and_checked(tmp_path_factory.mktemp("parity"), SCRIPTS, ARTIFACT_PLANTS)


@pytest.mark.parametrize("name", [plant.name for plant in SCRIPTS] + [plant.name for plant in ARTIFACT_PLANTS])
def test_check_and_grade_give_the_plant_its_one_hint_on_the_same_steps(both, name):
    assert_parity(*both[name], name)


def test_a_failing_kvsim_holds_every_scenario_step_back():
    """Why the check's scenario steps need not run for a hand-in graded on the reference kvsim.py."""
    assert all(set(KVSIM_STEPS) <= set(lab_table.STEPS[number].runs_on) for number in lab_table.PROCESSES["scenario"])
