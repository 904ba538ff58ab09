"""The workload generators, and the reader of Mooncake request traces (the shipped ones included)."""
import gzip
import json
from collections import Counter

import pytest

from kvlab import workloads
from kvlab.workloads import Request, TraceError

from helpers import ROOT

TRACES = ROOT / "fixtures" / "traces"


def test_cyclic_is_the_labs_passes():
    assert workloads.cyclic(3, 7, ("fwd", "fwd", "rev")) == [(0, 7), (1, 7), (2, 7)] * 2 + [(2, 7), (1, 7), (0, 7)]
    assert len(workloads.cyclic()) == 20  # 10 documents, fwd,fwd
    with pytest.raises(ValueError, match="unknown pass 'up'"):
        workloads.cyclic(3, 7, ("up",))


def test_random_order_reads_every_document_once_per_pass_in_a_seeded_order():
    trace = workloads.random_order(docs=20, tokens=3, passes=3, seed=1)
    passes = [[doc for doc, _ in trace[i:i + 20]] for i in (0, 20, 40)]
    assert all(sorted(order) == list(range(20)) for order in passes)
    assert passes[0] != passes[1]
    assert workloads.random_order(20, 3, 3, seed=1) == trace
    assert workloads.random_order(20, 3, 3, seed=2) != trace


def test_zipf_piles_reads_onto_the_first_documents():
    trace = workloads.zipf(docs=100, tokens=2, accesses=5000, alpha=1.2, seed=0)
    counts = Counter(doc for doc, _ in trace)
    assert len(trace) == 5000 and {size for _, size in trace} == {2}
    assert counts.most_common(1)[0][0] == 0 and counts[0] > 5 * counts[9]
    assert workloads.zipf(100, 2, 5000, 1.2, seed=0) == trace
    uniform = Counter(doc for doc, _ in workloads.zipf(10, 1, 5000, alpha=0, seed=0))
    assert max(uniform.values()) < 1.2 * min(uniform.values())


def test_users_take_turns_with_their_own_documents():
    assert workloads.round_robin([1, 2, 3], ["a"], [10, 20]) == [1, "a", 10, 2, 20, 3]
    trace = workloads.users(count=2, docs=2, tokens=5, passes=("fwd",))
    assert trace == [((0, 0), 5), ((1, 0), 5), ((0, 1), 5), ((1, 1), 5)]


def request(ids, input_length=None, **fields):
    record = {"timestamp": 0, "input_length": 512 * len(ids) if input_length is None else input_length,
              "output_length": 3, "hash_ids": ids, **fields}
    return json.dumps(record) + "\n"


def test_a_trace_is_read_block_by_block_plain_or_gzip(tmp_path):
    text = request([0, 1], input_length=700) + "\n" + request([0, 1, 2], input_length=1100)  # a blank line
    plain, packed = tmp_path / "t.jsonl", tmp_path / "t.jsonl.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    for path in (plain, packed):
        assert workloads.read_requests(path) == [Request(0, 700, 3, [0, 1]), Request(0, 1100, 3, [0, 1, 2])]
        assert workloads.read_mooncake(path) == [(0, 1), (1, 1), (0, 1), (1, 1), (2, 1)]


@pytest.mark.parametrize("line, problem", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"timestamp": 0, "input_length": 5}', "missing field output_length, hash_ids"),
    (request([0], input_length=-1), "input_length must be a whole number >= 0, got -1"),
    (request([0], output_length=True), "output_length must be a whole number >= 0, got True"),
    (request([0], timestamp="noon"), "timestamp must be a number, got 'noon'"),
    (request(["0"]), "hash_ids must be a list of whole numbers"),
    (request([0, 1], input_length=512), "2 hash_ids for input_length 512 (one per 512-token block: 1)"),
])
def test_a_bad_line_is_named_with_its_number(tmp_path, line, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(request([0]) + line.rstrip("\n") + "\n")
    with pytest.raises(TraceError) as raised:
        workloads.read_requests(path)
    assert str(raised.value).startswith(f"{path}, line 2: {problem}")


def test_a_file_that_is_not_a_trace_says_so(tmp_path):
    empty, latin, fake_gzip = tmp_path / "empty.jsonl", tmp_path / "latin.jsonl", tmp_path / "fake.jsonl.gz"
    empty.write_text("\n\n")
    latin.write_bytes(request([0]).encode() + b'{"caf\xe9": 1}\n')
    fake_gzip.write_text(request([0]))
    with pytest.raises(TraceError, match="no requests"):
        workloads.read_requests(empty)
    with pytest.raises(TraceError, match="line 2: not UTF-8 text"):
        workloads.read_requests(latin)
    with pytest.raises(TraceError, match="not a readable gzip file"):
        workloads.read_requests(fake_gzip)
    packed = gzip.compress("".join(request(list(range(n))) for n in range(1, 200)).encode())
    cut, damaged = tmp_path / "cut.jsonl.gz", tmp_path / "damaged.jsonl.gz"
    cut.write_bytes(packed[:len(packed) // 2])
    damaged.write_bytes(packed[:100] + bytes(b ^ 0xFF for b in packed[100:200]) + packed[200:])
    for path in (cut, damaged):
        with pytest.raises(TraceError, match=f"{path}: not a readable gzip file"):
            workloads.read_requests(path)


def test_the_shipped_traces_have_the_papers_table_2_counts_and_lengths():
    # Mooncake (FAST '25), Table 2: requests, average input and output lengths, as the paper rounds them.
    stats = {name: workloads.trace_stats(workloads.read_requests(TRACES / f"{name}_trace.jsonl.gz"))
             for name in ("conversation", "synthetic")}
    table_2 = {name: (s.requests, round(s.mean_input), round(s.mean_output)) for name, s in stats.items()}
    assert table_2 == {"conversation": (12_031, 12_035, 343), "synthetic": (3_993, 15_325, 149)}
    # Blocks read, distinct blocks, and blocks read before: what a cache with room for everything reuses
    # (36.6% and 64.0% of the blocks; the paper's "cache ratio" says about 40% and 66%).
    blocks = {name: (s.blocks, s.distinct_blocks, s.reused_blocks) for name, s in stats.items()}
    assert blocks == {"conversation": (288_500, 182_790, 105_710), "synthetic": (121_877, 43_924, 77_953)}
    assert all(s.blocks == s.distinct_blocks + s.reused_blocks for s in stats.values())
