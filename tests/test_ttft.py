"""kvlab.ttft: loading notebook 06's TTFT file and checking its layout, on the stand-in and on files it must survive.

Each variant is a DataFrame built here from the stand-in (or from the simulator, for 20 documents), so
these tests run in-process and cost milliseconds; tests/test_notebooks.py runs the notebook's analysis
on two variant files end to end.
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


def simulated(docs, passes=("fwd", "fwd", "rev")):
    """A file for `docs` documents whose TTFTs follow the simulator's tiers (30, 48, 576 ms, a little spread)."""
    centres = {"gpu": 30.0, "cpu": 48.0, "miss": 576.0}
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


def test_the_stand_in_is_laid_out_as_the_lab_says():
    shape = ttft.layout(stand_in()).stop_if_broken()
    assert shape.problems == [] and shape.passes == list(ttft.LAB_PASSES)
    assert shape.cold == "pass1-cold" and shape.reverse == "pass3-reverse" and shape.docs == list(range(10))
    assert shape.text == ("3 passes, in the order they ran: pass1-cold (fwd), pass2-replay (fwd), pass3-reverse (rev). "
                          "10 documents, ids 0…9.\n\nThe cold pass, the one that ran first: **pass1-cold**.")


@pytest.mark.parametrize("order", [("pass3-reverse", "pass1-cold", "pass2-replay"),
                                   ("pass2-replay", "pass3-reverse", "pass1-cold")])
def test_passes_grouped_in_any_order_are_placed_by_their_names_never_by_line_order(order):
    frame = stand_in()
    frame = renumbered(frame.iloc[frame["pass"].map(order.index).argsort(kind="stable")])
    assert list(dict.fromkeys(frame["pass"])) == list(order)
    shape = ttft.layout(frame).stop_if_broken()
    assert shape.passes == list(ttft.LAB_PASSES) and shape.cold == "pass1-cold"


def test_other_pass_names_stand_where_the_labs_passes_stand():
    frame = stand_in().replace({"pass": LAB_NAMES})
    backwards_first = renumbered(frame.iloc[(frame["pass"] != "backwards").argsort(kind="stable")])
    for each in (frame, backwards_first):
        shape = ttft.layout(each).stop_if_broken()
        assert shape.passes == ["cold", "again", "backwards"] and shape.cold == "cold"
        assert "not the lab's pass names" in shape.text
    assert ttft.run_order(["x", "y-rev", "a-cold"], {"x": "fwd", "y-rev": "rev", "a-cold": "fwd"}) == ["a-cold", "x", "y-rev"]


def test_shuffled_lines_break_the_read_order_assumption_and_stop_with_one_line():
    shape = ttft.layout(renumbered(stand_in().sample(frac=1, random_state=1)))
    assert shape.problems == ["passes pass1-cold, pass2-replay and pass3-reverse read their documents in neither "
                              "order: the lines may be shuffled. The file has no timestamps, so this analysis takes "
                              "the line order as the read order."]
    with pytest.raises(ttft.BrokenAssumption) as stopped:
        shape.stop_if_broken()
    assert stopped.value._render_traceback_() == [f"BrokenAssumption: {shape.problems[0]}"]


def test_twenty_documents_and_ids_from_1_are_valid():
    shape = ttft.layout(simulated(20)).stop_if_broken()
    assert len(shape.docs) == 20 and shape.passes == ["p1-fwd", "p2-fwd", "p3-rev"] and shape.reverse == "p3-rev"
    shape = ttft.layout(stand_in().assign(doc=lambda f: f["doc"] + 1)).stop_if_broken()
    assert "ids 1…10" in shape.text and "ascending order" in shape.text


def test_no_reverse_pass_is_valid():
    shape = ttft.layout(renumbered(stand_in().query("`pass` != 'pass3-reverse'"))).stop_if_broken()
    assert shape.reverse is None and shape.cold == "pass1-cold"


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


def test_a_file_is_read_by_its_own_sizes_and_its_warm_ups_are_named(tmp_path):
    from kvlab import measure
    from kvlab.kvsim import TwoTierCache
    frame = stand_in()
    assert ttft.sizes(STAND_IN).origin == "lab" and ttft.sizes(STAND_IN).of("lmcache") == (lab.GPU, lab.OFFLOAD_CPU)
    engine = frame.assign(doc_tokens=2000)  # as kvlab engine records it: GPU = one document, CPU = four
    engine.loc[0, "ttft_ms"] = 11800.0
    path = tmp_path / "ttft-cpu.jsonl"
    path.write_text(engine.drop(columns="line").to_json(orient="records", lines=True))
    with pytest.raises(ttft.BrokenAssumption, match="give --gpu --cpu"):
        ttft.sizes(path)  # another file, no settings: never the lab's sizes
    measure.settings_path(path).write_text(json.dumps({"configs": {"baseline": {"gpu_tokens": 2000, "cpu_tokens": 0},
                                                                   "lmcache": {"gpu_tokens": 2000, "cpu_tokens": 8000}}}))
    found = ttft.sizes(path)
    assert found.origin == "file" and found.tokens == 2000
    shape = ttft.layout(engine).stop_if_broken()
    engine["run"] = engine["pass"].map(shape.passes.index)
    engine["tier"] = ttft.tiers(engine, shape, found, TwoTierCache)
    reverse = engine[(engine["pass"] == "pass3-reverse") & (engine["config"] == "lmcache")]["tier"].tolist()
    assert reverse == ["gpu"] + ["cpu"] * 3 + ["miss"] * 6   # not the lab's 4 + 6
    warm = ttft.warm_ups(engine)
    assert warm.index.tolist() == [0] and warm["times"].iloc[0] > 10
