"""The one-pass hit curves against the caches they describe, and the `kvlab curve` command.

The oracle is the brute force: one LRUCache (or TwoTierCache) per capacity, reading the whole
trace. Random traces use few keys (so re-reads are common) and sizes around the capacities,
zero and larger than some capacities included.
"""
import argparse
import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlab import curve, lab, scenario, workloads
from kvlab.errors import UserError
from kvlab.kvsim import LRUCache, TwoTierCache
from kvlab.lab import sweeps

from helpers import ROOT, assert_success, python

CONVERSATION = ROOT / "fixtures" / "traces" / "conversation_trace.jsonl.gz"
FAST = settings(max_examples=100, deadline=None)


@st.composite
def traces(draw, max_size=12):
    """(trace, window): accesses of few keys, each key with one size, and a random window to count."""
    sizes = draw(st.dictionaries(st.sampled_from("abcdef"), st.integers(0, max_size), min_size=1))
    trace = [(key, sizes[key]) for key in draw(st.lists(st.sampled_from(sorted(sizes)), max_size=30))]
    start = draw(st.integers(0, len(trace)))
    stop = draw(st.integers(start, len(trace)))
    return trace, (start, stop)


def relevant_capacities(trace):
    """Every capacity at which a hit count could change, and one past: 0 ... sum of all sizes + 1."""
    return range(sum(dict(trace).values()) + 2)


def simulated(cache, trace, start, stop):
    """How many of trace[start:stop] hit (anything but False or "miss"), the cache reading all of it."""
    outcomes = [cache.access(key, size) for key, size in trace]
    return sum(outcome not in (False, "miss") for outcome in outcomes[start:stop])


@FAST
@given(traces())
def test_the_curve_is_an_lru_cache_at_every_capacity(case):
    trace, (start, stop) = case
    hit_curve = curve.lru_curve(trace, start, stop)
    assert hit_curve.accesses == stop - start
    for capacity in relevant_capacities(trace):
        assert hit_curve.hits(capacity) == simulated(LRUCache(capacity), trace, start, stop), capacity


@FAST
@given(traces(), st.integers(0, 20))
def test_the_two_tier_curve_is_a_two_tier_cache_at_every_cpu_capacity(case, gpu):
    trace, (start, stop) = case
    tiers = curve.two_tier_curve(trace, gpu, start, stop)
    for cpu in relevant_capacities(trace):
        assert tiers.hits(cpu) == simulated(TwoTierCache(gpu, cpu), trace, start, stop), cpu
    assert tiers.gpu_hits == simulated(LRUCache(gpu), trace, start, stop)  # the GPU never sees the CPU


def test_an_entry_too_big_for_the_cache_does_not_count_between_two_reads():
    # At capacity 5 "big" is never stored, so "a" stays and hits; at 10 "big" pushes "a" out.
    # More room, fewer hits: with several sizes the hit count need not grow with the capacity.
    trace = [("a", 1), ("big", 10), ("a", 1)]
    hit_curve = curve.lru_curve(trace)
    assert [hit_curve(capacity) for capacity in (0, 1, 5, 9, 10, 11)] == [0, 1, 1, 1, 0, 1]
    assert (hit_curve.capacities, hit_curve.counts) == ([1, 10, 11], [1, 0, 1])
    assert [simulated(LRUCache(capacity), trace, 0, 3) for capacity in (5, 10, 11)] == [1, 0, 1]


def test_the_lab_cliffs_come_out_the_same_from_the_curve():
    # The loops of steps 4 and 7 count the second pass, trace[docs:2 * docs], of fwd,fwd.
    trace = workloads.cyclic(lab.DOCS, lab.TOKENS, lab.FWD_FWD)
    second = (lab.DOCS, 2 * lab.DOCS)
    gpu = curve.lru_curve(trace, *second)
    cpu = curve.two_tier_curve(trace, lab.GPU, *second)
    dense = range(0, 62_000, 97)
    for capacities in (lab.GPU_CAPACITIES, dense):
        assert {str(c): gpu(c) for c in capacities} == sweeps.second_pass(scenario.run, "gpu", capacities, "hits")
    for capacities in (lab.CPU_CAPACITIES, dense):
        assert {str(c): cpu.misses(c) for c in capacities} == sweeps.second_pass(scenario.run, "cpu", capacities, "misses")


def test_the_curve_is_a_step_function_to_plot():
    hit_curve = curve.lru_curve(workloads.cyclic(3, 5, ("fwd", "fwd", "rev")))
    # 0 1 2 | 0 1 2 | 2 1 0: the reverse pass hits 2 from capacity 5 (it was just read), 2 and 1
    # from 10, and from 15 all three documents fit: the last 6 reads hit.
    assert (hit_curve.capacities, hit_curve.counts) == ([5, 10, 15], [1, 2, 6])
    assert hit_curve.steps(20) == ([0, 5, 10, 15, 20], [0, 1, 2, 6, 6])
    assert hit_curve.hit_ratio(15) == 6 / 9
    with pytest.raises(ValueError, match="capacity < 0"):
        hit_curve.hits(-1)


def test_a_key_read_with_two_sizes_is_refused():
    with pytest.raises(ValueError, match="key 'a' is read with two sizes, 1 and 2"):
        curve.lru_curve([("a", 1), ("a", 2)])
    with pytest.raises(ValueError, match="whole number"):
        curve.lru_curve([("a", 1.5)])


def test_the_conversation_trace_matches_a_plain_simulation():
    # The benchmark checks 100 capacities over the whole trace; here, the first 30,000 blocks.
    trace = workloads.read_mooncake(CONVERSATION)[:30_000]
    hit_curve = curve.lru_curve(trace)
    for capacity in (100, 2_000, 20_000):
        cache = LRUCache(capacity)
        assert hit_curve(capacity) == sum(cache.access(key, size) for key, size in trace)


def test_policy_hits_simulate_every_other_policy_and_two_tiers_of_it():
    trace = workloads.cyclic(10, 5011, ("fwd", "fwd"))
    assert curve.policy_hits(trace, "mru", [21520, 50110]) == {21520: 4, 50110: 10}
    # Two MRU tiers: the GPU ends pass 1 holding 0 1 2 9, so pass 2 hits those 4 there. The CPU tier
    # reads the GPU's 16 misses; with room for 5 it ends pass 1 holding 0 1 2 3 9, and of 3 ... 8 hits 3.
    assert curve.policy_hits(trace, "mru", [0, 30000], gpu=21520) == {0: 4, 30000: 5}
    with pytest.raises(ValueError, match="unknown policy"):
        curve.policy_cache("random", 10, trace)


# The command. A trace of three requests: blocks 0 1, then 0 1 2, then 3.
TINY = "".join(json.dumps({"timestamp": t, "input_length": n, "output_length": 5, "hash_ids": ids}) + "\n"
               for t, n, ids in [(0, 1000, [0, 1]), (10, 1100, [0, 1, 2]), (20, 7, [3])])


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.jsonl.gz"
    path.write_bytes(gzip.compress(TINY.encode()))
    return path


def test_kvlab_curve_prints_one_json_object_of_block_hit_ratios(tiny):
    # Capacity 1 hits nothing; capacity 2 hits blocks 0 and 1 of the second request: 2 of 6 reads.
    result = python("-m", "kvlab", "curve", tiny, "--capacities", "1,2,100")
    assert_success(result)
    assert result.stdout == '{"1": 0.0, "2": 0.3333, "100": 0.3333}\n'


def test_kvlab_curve_names_the_line_of_a_bad_request(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(TINY + '{"timestamp": 30, "input_length": 5, "output_length": 1, "hash_ids": "7"}\n')
    result = python("-m", "kvlab", "curve", path, "--capacities", "10")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"kvlab curve: error: {path}, line 4: hash_ids must be a list of whole numbers\n"


def parse(*args):
    parser = argparse.ArgumentParser(exit_on_error=False)
    curve.add_arguments(parser)
    return parser.parse_args([*map(str, args)])


def run_curve(capsys, *args):
    curve.run(parse(*args))
    return json.loads(capsys.readouterr().out)


def test_kvlab_curve_with_tiers_counts_gpu_and_cpu_hits(tiny, capsys):
    # GPU of 1 block: it hits nothing; a CPU of 2 behind it gets blocks 0 and 1 back.
    assert run_curve(capsys, tiny, "--capacities", "0,2", "--tiers", "1") == {"0": 0.0, "2": 0.3333}


def test_kvlab_curve_simulates_other_policies(tiny, capsys):
    # With room for one block, every new block must be stored over the last: no policy hits.
    for policy in curve.POLICIES:
        assert run_curve(capsys, tiny, "--capacities", "1,2", "--policy", policy) == {"1": 0.0, "2": 0.3333}


@pytest.mark.parametrize("args, message", [
    (["--capacities", "10,x"], "'x' is not a whole number of blocks"),
    (["--capacities", "-1"], "capacity -1 is below 0"),
])
def test_kvlab_curve_refuses_bad_capacities(tiny, args, message):
    with pytest.raises(argparse.ArgumentError, match=message):
        parse(tiny, *args)


def test_kvlab_curve_takes_one_gpu_capacity(tiny):
    with pytest.raises(UserError, match="--tiers takes one GPU capacity"):
        curve.run(parse(tiny, "--capacities", "1", "--tiers", "1,2"))
