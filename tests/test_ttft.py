"""kvlab.ttft: notebook 06's reading of the TTFT file, on the stand-in and on the files it must survive.

Each variant is a DataFrame built here from the stand-in (or from the simulator, for 20 documents), so
these tests run in-process and cost milliseconds; tests/test_notebooks.py runs one variant end to end.
"""
import json

import pytest

pd = pytest.importorskip("pandas")  # the notebook stack: absent from the fast test path

from kvlab import lab, summarize, ttft
from kvlab.kvsim import TwoTierCache
from helpers import STAND_IN

LAB_NAMES = {"pass1-cold": "cold", "pass2-replay": "again", "pass3-reverse": "backwards"}


def stand_in():
    return ttft.read(STAND_IN)


def renumbered(frame):
    """The rows in their new order, as a file would hold them."""
    return frame.reset_index(drop=True).assign(line=range(len(frame)))


def findings(frame):
    shape = ttft.layout(frame)
    predicted = ttft.predict(frame, {"baseline": TwoTierCache(lab.GPU, 0),
                                     "lmcache": TwoTierCache(lab.GPU, lab.OFFLOAD_CPU)}, lab.TOKENS)
    warm = ttft.warmup(predicted, shape)
    return shape, predicted, warm


def simulated(docs, passes=("fwd", "fwd", "rev"), centres=None):
    """A file for `docs` documents whose TTFTs follow the simulator's tiers (30, 48, 576 ms, a little spread)."""
    centres = centres or {"gpu": 30.0, "cpu": 48.0, "miss": 576.0}
    rows = []
    for config, cpu in (("baseline", 0), ("lmcache", lab.OFFLOAD_CPU)):
        cache = TwoTierCache(lab.GPU, cpu)
        for number, order in enumerate(passes, start=1):
            for doc in (range(docs) if order == "fwd" else reversed(range(docs))):
                tier = cache.access(doc, lab.TOKENS)
                wobble = 1 + 0.01 * ((doc * 7 + number * 3) % 5 - 2)  # within 2 %, deterministic
                rows.append({"config": config, "pass": f"p{number}-{order}", "doc": doc, "doc_tokens": 4864,
                             "ttft_ms": round(centres[tier] * wobble, 1), "total_ms": 700.0})
    return renumbered(pd.DataFrame(rows))


def test_the_stand_in_splits_as_the_simulator_says_and_its_cold_difference_is_within_the_noise():
    shape, predicted, warm = findings(stand_in())
    assert shape.problems == [] and shape.passes == list(ttft.LAB_PASSES) and shape.reverse == "pass3-reverse"
    assert warm is None
    split = ttft.reverse_split(predicted, shape)
    assert split.holds is True and "splits 4 + 6, document for document" in split.text
    assert "documents 9, 8, 7, 6: 29.8–30.3 ms" in split.text
    assert ttft.reverse_split(predicted, shape, config="baseline").holds is True
    cold = ttft.cold_pass(predicted, shape)
    assert cold.holds is None and "12.0 ms slower" in cold.text and "within that per-request noise" in cold.text


def test_a_warm_up_spike_is_named_and_left_out_not_taken_for_a_group():
    frame = stand_in()
    frame.loc[0, "ttft_ms"] = 2400.0
    shape, predicted, warm = findings(frame)
    assert warm is not None and "first request (baseline, pass pass1-cold, document 0) took 2,400.0 ms" in warm.text
    groups = ttft.tier_groups(predicted, warm)
    cold = groups[(groups["config"] == "baseline") & (groups["pass"] == "pass1-cold")]
    assert cold[["tier", "requests"]].values.tolist() == [["miss", 9]]
    plain_shape, plain_predicted, _ = findings(stand_in())  # the spike's size changes nothing below
    assert ttft.cold_pass(predicted, shape, warm).text == ttft.cold_pass(plain_predicted, plain_shape, warm).text
    assert ttft.reverse_split(predicted, shape, warm).holds is True


def test_shuffled_lines_break_the_read_order_assumption_and_say_so():
    shape, predicted, warm = findings(renumbered(stand_in().sample(frac=1, random_state=1)))
    assert warm is None  # the first line is not the first request: no warm-up to speak of
    assert shape.problems == ["passes pass1-cold, pass2-replay and pass3-reverse read their documents in neither "
                              "order: the lines may be shuffled. This analysis takes the line order as the read order "
                              "(the file has no timestamps), so it cannot tell which documents a cache still held."]
    split = ttft.reverse_split(predicted, shape, warm)
    assert split.holds is False and split.text.startswith("This does not apply: the file breaks an assumption")
    assert ttft.tier_table(predicted, shape, warm).holds is False
    assert ttft.cold_pass(predicted, shape, warm).holds is False


def test_twenty_documents_split_into_gpu_hits_cpu_loads_and_recomputes():
    shape, predicted, warm = findings(simulated(20))
    assert shape.problems == [] and len(shape.docs) == 20
    split = ttft.reverse_split(predicted, shape, warm)
    assert split.holds is True and "splits 4 + 7 + 9" in split.text
    assert "4 GPU hits (documents 19, 18, 17, 16" in split.text


def test_document_ids_from_1_map_to_the_simulator_in_order():
    frame = stand_in().assign(doc=lambda f: f["doc"] + 1)
    shape, predicted, warm = findings(frame)
    assert shape.problems == [] and "ids 1…10" in shape.text and "ascending order" in shape.text
    split = ttft.reverse_split(predicted, shape, warm)
    assert split.holds is True and "documents 10, 9, 8, 7:" in split.text


def test_no_reverse_pass_means_the_split_comparison_does_not_apply():
    frame = renumbered(stand_in().query("`pass` != 'pass3-reverse'"))
    shape, predicted, warm = findings(frame)
    split = ttft.reverse_split(predicted, shape, warm)
    assert split.holds is None and "no pass that reads the documents backwards" in split.text
    assert ttft.cold_pass(predicted, shape, warm).holds is None


def test_other_pass_names_go_by_order_and_direction():
    shape, predicted, warm = findings(stand_in().replace({"pass": LAB_NAMES}))
    assert shape.passes == ["cold", "again", "backwards"] and "not the lab's pass names" in shape.text
    split = ttft.reverse_split(predicted, shape, warm)
    assert split.holds is True and "(backwards)" in split.text


def test_a_gpu_hit_slower_than_a_cpu_load_is_an_overlap():
    frame = stand_in()
    slow = (frame["config"] == "lmcache") & (frame["pass"] == "pass3-reverse") & (frame["doc"] == 9)
    frame.loc[slow, "ttft_ms"] = 60.0
    shape, predicted, warm = findings(frame)
    split = ttft.reverse_split(predicted, shape, warm)
    assert split.holds is False and "GPU hits (up to 60.0 ms) overlap its loads from CPU (from 47.7 ms)" in split.text


def test_a_cold_difference_beyond_the_noise_is_given_the_labs_cause():
    frame = stand_in()
    cold = (frame["config"] == "lmcache") & (frame["pass"] == "pass1-cold")
    frame.loc[cold, "ttft_ms"] += 100
    shape, predicted, warm = findings(frame)
    finding = ttft.cold_pass(predicted, shape, warm)
    assert finding.holds is True and "larger than that noise" in finding.text and "writes each document's KV" in finding.text


def test_a_pass_read_twice_or_missing_a_config_is_named():
    frame = stand_in()
    frame.loc[1, "doc"] = 0  # baseline pass1-cold reads document 0 twice
    assert any("reads document 0 more than once" in problem for problem in ttft.layout(frame).problems)
    only_baseline = renumbered(stand_in().query("config == 'baseline'"))
    assert any("no lmcache requests" in problem for problem in ttft.layout(only_baseline).problems)


def test_compare_summary_agrees_with_summarize_and_names_a_difference():
    frame = stand_in()
    stats = frame.groupby(["config", "pass"], sort=False)["ttft_ms"].agg(n="size", p50_ms="median", mean_ms="mean")
    summary = summarize.summarize(summarize.read_records(STAND_IN))
    agreed = ttft.compare_summary(stats, summary)
    assert agreed.holds is True and "all 6 (config, pass) groups and 3 ratios" in agreed.text
    summary["ratio"]["pass2-replay"]["mean"] = 11.86
    differs = ttft.compare_summary(stats, summary)
    assert differs.holds is False and "ratio pass2-replay: yours {'p50': 11.85, 'mean': 11.86}" in differs.text


def test_read_skips_blank_lines_and_names_a_bad_line(tmp_path):
    path = tmp_path / "ttft.jsonl"
    row = json.dumps({"config": "baseline", "pass": "p", "doc": 0, "doc_tokens": 1, "ttft_ms": 1.0, "total_ms": 2.0})
    path.write_text(f"{row}\n\n  \n{row}\n")
    assert ttft.read(path)["line"].tolist() == [0, 1]
    path.write_text(f"{row}\n{{oops\n")
    with pytest.raises(ValueError, match=r"line 2: not JSON"):
        ttft.read(path)


def test_the_reverse_mean_ratio_is_explained_only_for_a_file_shaped_like_the_labs():
    shape, predicted, _ = findings(stand_in())
    summary = summarize.summarize(summarize.read_records(STAND_IN))
    said = ttft.reverse_ratios(predicted, shape, summary).text
    assert said.startswith("Why the reverse pass's mean ratio (8.73) is below the replay's (11.85): 4 of its 10")
    frame = simulated(20)
    shape, predicted, _ = findings(frame)
    records = [dict(row, ttft_ms=float(row["ttft_ms"])) for row in frame.drop(columns="line").to_dict("records")]
    assert ttft.reverse_ratios(predicted, shape, summarize.summarize(records)) is None  # the replay recomputes
