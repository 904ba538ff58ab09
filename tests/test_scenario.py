"""scenario.py (steps 2 and 6, and the runs of the loops of steps 4 and 7): the passes and the command line.

The expected results are the ones the lab text fixes; the loops of steps 4 and 7 are the student's, in
notebooks 03 and 05 (here: second_pass, the same loop over run()). The command line is tested in-process through
main(), comparing the whole stdout (any extra text there breaks the grader); three runs in a
fresh process prove the same end to end: as a plain script copied alone beside kvsim.py, as a
module, and one bad argument.
"""
import json
import shutil

import pytest

from helpers import (BASELINE, CLIFF, CPU_CLIFF, CYCLIC, KVLAB, OFFLOAD, assert_one_line_error, assert_success,
                     call_main, python)
from kvlab import lab, scenario
from kvlab.scenario import run


def second_pass(capacities, counted, **scenario):
    """The loop of steps 4 and 7: {str(capacity): the second pass's hits or misses} (--gpu, or --cpu when counting misses)."""
    option = "cpu" if counted == "misses" else "gpu"
    found = {}
    for capacity in capacities:
        second = run(**{"passes": ("fwd", "fwd"), **scenario, option: capacity})["passes"][1]
        found[str(capacity)] = second["misses"] if counted == "misses" else second["gpu_hits"] + second["cpu_hits"]
    return found


class TestExpectedResults:
    """The lab text, "Expected results": the five simulator artifacts."""

    def test_cyclic(self):
        assert run(passes=("fwd", "fwd")) == CYCLIC

    def test_baseline_is_the_default_run(self):
        assert run() == BASELINE

    def test_cliff(self):
        assert second_pass([21520, 30000, 40000, 45000, 50109, 50110], "hits") == CLIFF

    def test_offload(self):
        assert run(cpu=56000, passes=("fwd", "fwd", "rev")) == OFFLOAD

    def test_cpu_cliff(self):
        assert second_pass([0, 20000, 30000, 40000, 50109, 50110, 56000], "misses") == CPU_CLIFF

    def test_the_defaults_are_the_lab_numbers(self):
        assert (scenario.GPU, scenario.CPU, scenario.DOCS, scenario.TOKENS, scenario.PASSES) == \
            (lab.GPU, lab.CPU, lab.DOCS, lab.TOKENS, lab.PASSES)


class TestPasses:
    def test_pass_objects_have_the_lab_fields_in_the_lab_order(self):
        for counts in run(cpu=56000)["passes"]:
            assert list(counts) == ["order", "gpu_hits", "cpu_hits", "misses", "hit_docs"]

    def test_all_passes_share_one_cache(self):
        second = run(gpu=10 * 5011, passes=("fwd", "fwd"))["passes"][1]  # everything fits
        assert (second["gpu_hits"], second["misses"]) == (10, 0)  # a cleared cache would miss all ten

    def test_a_reverse_pass_reads_downward_and_hit_docs_are_in_read_order(self):
        passes = run(gpu=3 * 5011, docs=5, passes=("rev", "fwd"))["passes"]
        assert passes[0]["hit_docs"] == []
        assert passes[1]["hit_docs"] == [0, 1, 2]  # the reverse pass left 2, 1, 0 behind

    def test_a_cpu_tier_of_0_gives_exactly_the_single_tier_result(self):
        for passes in [("fwd", "fwd"), ("rev", "fwd", "rev")]:
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


class TestTheCliffs:
    @pytest.mark.parametrize("docs, tokens", [(10, 5011), (3, 100)])
    def test_lru_no_second_pass_hit_until_every_document_fits(self, docs, tokens):
        total = docs * tokens
        capacities = sorted({*range(0, total + 2, max(1, total // 40)), total - 1, total, total + 1})
        assert second_pass(capacities, "hits", docs=docs, tokens=tokens) == \
            {str(gpu): docs if gpu >= total else 0 for gpu in capacities}

    def test_the_cpu_tier_must_hold_every_document(self):
        total = 10 * 5011
        assert second_pass(range(total - 2, total + 2), "misses") == \
            {str(cpu): 10 if cpu < total else 0 for cpu in range(total - 2, total + 2)}

    def test_hits_from_the_cpu_tier_count_too(self):
        assert second_pass([21520], "hits", cpu=56000) == {"21520": 10}


class TestCommandLine:
    @pytest.mark.parametrize("args, expected", [
        (["--passes", "fwd,fwd"], CYCLIC),
        ([], BASELINE),
        (["--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev"], OFFLOAD),
    ], ids=["cyclic", "baseline", "offload"])
    def test_prints_exactly_one_json_document(self, args, expected, capsys):
        result = call_main(scenario.main, args, capsys)
        assert_success(result)
        assert result.stdout == json.dumps(expected) + "\n"

    def test_help_names_every_option_and_its_default(self, capsys):
        result = call_main(scenario.main, ["--help"], capsys)
        assert_success(result)
        for option in ["--gpu", "--cpu", "--docs", "--tokens", "--passes", "21520", "5011", "fwd,fwd,rev"]:
            assert option in result.stdout

    @pytest.mark.parametrize("args, fragment", [
        (["--gpu", "-1"], "--gpu"),
        (["--cpu=-1"], "--cpu"),
        (["--tokens", "-5011"], "--tokens"),
        (["--docs", "0"], "--docs"),
        (["--docs", "ten"], "'ten'"),
        (["--gpu", "1.5"], "1.5"),
        (["--passes", "fwd,sideways"], "sideways"),
        (["--passes", "FWD"], "FWD"),
        (["--passes", ""], "--passes"),
        (["--passes", "fwd,,rev"], "--passes"),
        (["--gpu"], "--gpu"),
        (["--bogus"], "--bogus"),
        (["stray"], "stray"),
    ])
    def test_a_bad_argument_is_one_line_on_stderr_and_exit_2(self, args, fragment, capsys):
        result = call_main(scenario.main, args, capsys)
        assert_one_line_error(result, "scenario.py: error:", fragment)
        assert result.returncode == 2


class TestEndToEnd:
    def test_copied_alone_beside_kvsim_it_runs_as_a_plain_script(self, tmp_path):
        for name in ("kvsim.py", "scenario.py"):
            shutil.copy(KVLAB / name, tmp_path / name)
        result = python("scenario.py", "--passes", "fwd,fwd", cwd=tmp_path)
        assert_success(result)
        assert result.stdout == (
            '{"passes": [{"order": "fwd", "gpu_hits": 0, "cpu_hits": 0, "misses": 10, "hit_docs": []}, '
            '{"order": "fwd", "gpu_hits": 0, "cpu_hits": 0, "misses": 10, "hit_docs": []}]}\n')

    def test_as_a_module_it_prints_the_same_as_in_process(self):
        result = python("-m", "kvlab.scenario", "--gpu", "21520", "--cpu", "56000", "--passes", "fwd,fwd,rev")
        assert_success(result)
        assert result.stdout == json.dumps(OFFLOAD) + "\n"

    def test_a_bad_argument(self):
        result = python(KVLAB / "scenario.py", "--passes", "fwd,sideways")
        assert_one_line_error(result, "scenario.py: error: argument --passes:", "sideways")
        assert result.returncode == 2
