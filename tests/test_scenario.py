"""scenario.py (steps 2, 4, 6 and 7): the passes, the sweeps, and the command line.

The expected results are the ones LAB.md fixes; the CLI tests run the script in a fresh process
and compare its whole stdout, because any extra text there breaks the grader.
"""
import json

import pytest

from helpers import BASELINE, CLIFF, CPU_CLIFF, CYCLIC, KVLAB, OFFLOAD, assert_one_line_error, assert_success, python
from kvlab import scenario
from kvlab.scenario import cpu_cliff, gpu_cliff, run

SCRIPT = KVLAB / "scenario.py"


class TestExpectedResults:
    """LAB.md, "Expected results": the five simulator artifacts."""

    def test_cyclic(self):
        assert run(passes=("fwd", "fwd")) == CYCLIC

    def test_baseline_is_the_default_run(self):
        assert run() == BASELINE

    def test_cliff(self):
        assert gpu_cliff([21520, 30000, 40000, 45000, 50109, 50110]) == CLIFF

    def test_offload(self):
        assert run(cpu=56000, passes=("fwd", "fwd", "rev")) == OFFLOAD

    def test_cpu_cliff(self):
        assert cpu_cliff([0, 20000, 30000, 40000, 50109, 50110, 56000]) == CPU_CLIFF

    def test_pass_objects_have_the_lab_fields_in_the_lab_order(self):
        for counts in run(cpu=56000)["passes"]:
            assert list(counts) == ["order", "gpu_hits", "cpu_hits", "misses", "hit_docs"]

    def test_to_json_is_one_line_then_a_newline(self):
        assert scenario.to_json(CYCLIC) == json.dumps(CYCLIC) + "\n"


class TestPasses:
    def test_all_passes_share_one_cache(self):
        second = run(gpu=10 * 5011, passes=("fwd", "fwd"))["passes"][1]  # everything fits
        assert (second["gpu_hits"], second["misses"]) == (10, 0)  # a cleared cache would miss all ten

    def test_a_reverse_pass_reads_downward_and_hit_docs_are_in_read_order(self):
        passes = run(gpu=3 * 5011, docs=5, passes=("rev", "fwd"))["passes"]
        assert passes[0]["hit_docs"] == []
        assert passes[1]["hit_docs"] == [0, 1, 2]  # the reverse pass left 2, 1, 0 behind

    def test_a_cpu_tier_of_0_gives_exactly_the_single_tier_result(self):
        for passes in [("fwd", "fwd"), ("fwd", "fwd", "rev"), ("rev", "fwd", "rev")]:
            assert run(cpu=0, passes=passes) == run(passes=passes)

    def test_hits_and_misses_add_up_to_the_documents_read(self):
        for counts in run(gpu=30000, cpu=20000, docs=7, tokens=4000, passes=("fwd", "rev", "fwd"))["passes"]:
            assert counts["gpu_hits"] + counts["cpu_hits"] + counts["misses"] == 7
            assert len(counts["hit_docs"]) == counts["gpu_hits"] + counts["cpu_hits"]

    @pytest.mark.parametrize("kwargs, problem", [
        ({"docs": 0}, "docs"),
        ({"passes": ()}, "pass"),
        ({"passes": ("fwd", "sideways")}, "sideways"),
        ({"gpu": -1}, "capacity"),
        ({"cpu": -1}, "capacity"),
        ({"tokens": -1}, "size"),
    ])
    def test_bad_arguments_raise_value_error(self, kwargs, problem):
        with pytest.raises(ValueError, match=problem):
            run(**kwargs)


class TestSweeps:
    @pytest.mark.parametrize("docs, tokens", [(10, 5011), (3, 100), (6, 7)])
    def test_lru_cliff_no_second_pass_hit_until_every_document_fits(self, docs, tokens):
        total = docs * tokens
        capacities = sorted({*range(0, total + 2, max(1, total // 60)), total - 1, total, total + 1})
        cliff = gpu_cliff(capacities, docs=docs, tokens=tokens)
        assert set(cliff.values()) == {0, docs}
        assert min(int(gpu) for gpu, hits in cliff.items() if hits) == total

    def test_cpu_cliff_the_cpu_tier_must_hold_every_document(self):
        total = 10 * 5011
        cliff = cpu_cliff(range(total - 3, total + 3))
        assert cliff == {str(cpu): 10 if cpu < total else 0 for cpu in range(total - 3, total + 3)}

    def test_sweep_keys_are_strings_in_the_given_order(self):
        assert list(gpu_cliff([50110, 0, 21520])) == ["50110", "0", "21520"]
        assert list(cpu_cliff([56000, 0])) == ["56000", "0"]

    def test_sweeps_accept_other_scenarios(self):
        assert cpu_cliff([0, 30], gpu=10, docs=3, tokens=10) == {"0": 3, "30": 0}
        assert gpu_cliff([30], docs=3, tokens=10, passes=("fwd", "rev")) == {"30": 3}


class TestCommandLine:
    @pytest.mark.parametrize("args, expected", [
        (["--passes", "fwd,fwd"], CYCLIC),
        ([], BASELINE),
        (["--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev"], OFFLOAD),
    ], ids=["cyclic", "baseline", "offload"])
    def test_the_script_prints_exactly_one_json_document(self, args, expected):
        result = python(SCRIPT, *args)
        assert_success(result)
        assert result.stdout == json.dumps(expected) + "\n"

    def test_the_cyclic_output_verbatim(self):
        result = python(SCRIPT, "--passes", "fwd,fwd")
        assert result.stdout == (
            '{"passes": [{"order": "fwd", "gpu_hits": 0, "cpu_hits": 0, "misses": 10, "hit_docs": []}, '
            '{"order": "fwd", "gpu_hits": 0, "cpu_hits": 0, "misses": 10, "hit_docs": []}]}\n')

    def test_as_a_module_it_prints_the_same(self):
        result = python("-m", "kvlab.scenario", "--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev")
        assert_success(result)
        assert result.stdout == json.dumps(OFFLOAD) + "\n"

    def test_main_runs_in_process(self, capsys):
        scenario.main(["--passes", "fwd,fwd", "--docs", "3", "--tokens", "1", "--gpu", "3"])
        out, err = capsys.readouterr()
        assert json.loads(out)["passes"][1]["hit_docs"] == [0, 1, 2]
        assert err == ""

    def test_help_names_every_option(self):
        result = python(SCRIPT, "--help")
        assert_success(result)
        for option in ["--gpu", "--cpu", "--docs", "--tokens", "--passes"]:
            assert option in result.stdout

    @pytest.mark.parametrize("args, fragment", [
        (["--gpu", "-1"], "--gpu"),
        (["--gpu=-21520"], "--gpu"),
        (["--cpu", "-1"], "--cpu"),
        (["--tokens", "-5011"], "--tokens"),
        (["--docs", "0"], "--docs"),
        (["--docs", "-3"], "--docs"),
        (["--passes", "fwd,sideways"], "sideways"),
        (["--passes", ""], "--passes"),
        (["--passes", ","], "--passes"),
        (["--passes", "fwd,,rev"], "--passes"),
        (["--passes", "FWD"], "FWD"),
        (["--gpu", "1.5"], "1.5"),
        (["--docs", "ten"], "ten"),
        (["--gpu", ""], "--gpu"),
        (["--gpu"], "--gpu"),
        (["--bogus"], "--bogus"),
        (["stray"], "stray"),
    ])
    def test_every_bad_argument_is_one_line_on_stderr(self, args, fragment):
        assert_one_line_error(python(SCRIPT, *args), "scenario.py", fragment)
