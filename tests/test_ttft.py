"""kvlab.ttft: loading notebook 06's TTFT file and checking its layout, on the stand-in and on files it must survive.

Each variant is a DataFrame built here from the stand-in (or from the simulator, for 20 documents), so
these tests run in-process and cost milliseconds; tests/test_notebooks.py runs the notebook's analysis
on two variant files end to end.
"""
import json

import pytest

pd = pytest.importorskip("pandas")  # the notebook stack: absent from the fast test path
np = pytest.importorskip("numpy")

from kvlab import lab, latency, notebook, summarize, ttft
from kvlab.kvsim import TwoTierCache
from helpers import ROOT, STAND_IN

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


def test_shuffled_lines_of_the_labs_passes_are_placed_by_name_and_document_id():
    shuffled = renumbered(stand_in().sample(frac=1, random_state=1))
    shape = ttft.layout(shuffled).stop_if_broken()
    assert shape.problems == [] and shape.placed == list(ttft.LAB_PASSES)
    assert "The lines of pass1-cold, pass2-replay and pass3-reverse are not in read order" in shape.text
    ordered = shape.ordered(shuffled).sort_values(["config", "run", "read"])
    lmcache = ordered[ordered["config"] == "lmcache"]
    assert lmcache["doc"].tolist() == [*range(10), *range(10), *range(9, -1, -1)]  # fwd, fwd, rev: the lab's
    assert shape.ordered(stand_in())["read"].tolist() == [*range(10)] * 6            # in order: the lines' order


def test_shuffled_lines_of_other_passes_stop_the_analysis_once_and_later_cells_are_skipped():
    other = renumbered(stand_in().replace({"pass": LAB_NAMES}).sample(frac=1, random_state=1))
    shape = ttft.layout(other)
    assert shape.problems == ["passes cold, again and backwards read their documents in neither order: the lines "
                              "may be shuffled. The file has no timestamps, and these are not the lab's passes. So "
                              "nothing gives their read order."]
    assert "neither order" not in shape.text  # the stop's one line says it, once
    assert "cold (neither fwd nor rev), again (neither fwd nor rev)" in shape.text  # the catalog's, not a code word
    with pytest.raises(ttft.BrokenAssumption) as stopped:
        shape.stop_if_broken()
    assert stopped.value._render_traceback_() == [f"Analysis stopped: {shape.problems[0]} Every later cell is skipped."]
    with pytest.raises(notebook.NotReady) as skipped:
        ttft.go_on(written=None)
    assert str(skipped.value.line) == "skipped: the file broke an assumption above"
    ttft.read(STAND_IN)  # a file read again starts a new analysis
    assert ttft.go_on(written=None) is True
    with pytest.raises(notebook.NotReady, match="gave the requests no tier"):
        ttft.go_on(written=None, tiers=True)


def test_every_cell_after_the_file_is_read_starts_with_go_on():
    """Notebook 06 stops once: a cell after the one that reads the file runs nothing before analysis.go_on(), so a
    file that broke an assumption gives "skipped" there, never a NameError or another step's blame."""
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(ROOT / "notebooks" / "06_measured_ttft.ipynb", as_version=4)
    cells = [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.strip()]
    start = next(index for index, cell in enumerate(cells) if "analysis.read(" in cell.source)
    for cell in cells[start + 1:]:
        lines = [line for line in cell.source.splitlines()
                 if line.strip() and not line.startswith(("#", "from ", "import "))]
        if all(" = ...  #" in line for line in lines) or \
                "instructor" in cell.metadata.get("tags", []) and all(line.startswith("my_") for line in lines):
            continue  # a prediction: `my_... = ...` only, or the instructor's filled in
        assert lines[0].startswith(("analysis.go_on(", "analysis.answer_ready()")), cell.source


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
    with pytest.raises(ttft.BrokenAssumption, match=r"line 2: not JSON"):
        ttft.read(path)
    path.write_text(f"{row}\n" + row.replace('"doc": 0', '"doc": "a"') + "\n")
    with pytest.raises(ttft.BrokenAssumption, match="field `doc` holds a value that is not a whole number"):
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
    with pytest.raises(ttft.BrokenAssumption, match="ttft-cpu.jsonl has no settings file beside it"):
        ttft.sizes(path)  # another file, no settings: never the lab's sizes
    assert ttft.sizes(path, 2000, 8000).origin == "given"
    measure.settings_path(path).write_text(json.dumps({"configs": {"baseline": {"gpu_tokens": 2000, "cpu_tokens": 0},
                                                                   "lmcache": {"gpu_tokens": 2000, "cpu_tokens": 8000}}}))
    found = ttft.sizes(path)
    assert found.origin == "file" and found.tokens == 2000
    shape = ttft.layout(engine).stop_if_broken()
    engine = shape.ordered(engine)
    engine["tier"] = ttft.tiers(engine, shape, found, TwoTierCache)
    reverse = engine[(engine["pass"] == "pass3-reverse") & (engine["config"] == "lmcache")]["tier"].tolist()
    assert reverse == ["gpu"] + ["cpu"] * 3 + ["miss"] * 6   # not the lab's 4 + 6
    warm = ttft.warm_ups(engine)
    assert warm.index.tolist() == [0] and warm["times"].iloc[0] > 10


# --- the statistics notebook 06 shows, on the stand-in (every draw seeded) ----------------------------------------

def cold_differences():
    frame = stand_in()
    shape = ttft.layout(frame).stop_if_broken()
    cold = frame[frame["pass"] == shape.cold]
    return ttft.differences(cold, [shape.cold])[shape.cold], cold


def test_the_cold_pass_is_compared_in_pairs_sign_test_first_then_bootstrap_and_sign_flips():
    differences, cold = cold_differences()
    assert differences.round(1).tolist() == [28.1, -12.2, -33.6, -5.8, -23.1, -11.8, -28.8, -27.6, 6.9, -26.1]
    tests = ttft.paired_tests(differences, cold.loc[cold["config"] == "baseline", "ttft_ms"].median())
    assert (tests.n, tests.slower, tests.faster, tests.ties) == (10, 8, 2, 0)
    assert tests.sign_p == pytest.approx(56 / 1024) and tests.sign_p_two == pytest.approx(112 / 1024)  # 0.055, 0.109
    assert tests.exact and len(tests.flipped) == 1024  # every sign pattern of 10 pairs
    assert tests.permutation_p == pytest.approx(31 / 1024) and tests.permutation_p_two == pytest.approx(62 / 1024)
    assert len(tests.resampled) == ttft.SAMPLES and (round(tests.low, 1), round(tests.high, 1)) == (-23.6, -1.2)
    assert tests.verdict == "mixed"  # 0.055 and 0.030 on either side of the cut-off: the verdict depends on the test


def test_the_bootstrap_draws_with_replacement_and_the_tests_are_one_sided():
    tests = ttft.paired_tests([-1.0, -2.0, -3.0, -4.0, -5.0, -6.0], 100.0, samples=200)
    assert any(len(set(draw)) < 6 for draw in np.random.default_rng(ttft.SEED).choice(6, (200, 6)))  # repeats
    assert tests.resampled.min() >= -6 and tests.resampled.max() <= -1 and tests.low < tests.high
    assert tests.sign_p == 1 / 64 and tests.permutation_p == 1 / 64 and tests.verdict == "all"
    faster = ttft.paired_tests([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 100.0, samples=200)
    assert faster.sign_p == 1.0 and faster.permutation_p == 1.0 and faster.permutation_p_two == 2 / 64
    assert faster.verdict == "none"  # one-sided: lmcache faster is not evidence that it is slower
    assert ttft.sign_test(0, 0) == (1.0, 1.0)
    many, exact = ttft.sign_flips(np.arange(1.0, 21.0), samples=500)
    assert not exact and len(many) == 500  # 2^20 patterns: drawn at random


def test_the_reverse_pass_mean_and_median_are_explained_from_its_tiers():
    frame = stand_in()
    shape = ttft.layout(frame).stop_if_broken()
    frame = shape.ordered(frame)
    frame["tier"] = ttft.tiers(frame, shape, ttft.sizes(STAND_IN, frame=frame), TwoTierCache)
    message, params = ttft.mean_and_median(frame, "pass3-reverse")
    assert message == "nb.06.mean-median"
    assert (params["gpu"], params["rest"], round(params["base_median"], 1), round(params["base_mean"], 1)) == (4, 6, 565.7, 357.8)
    assert (round(params["p50"], 2), round(params["mean"], 2)) == (11.85, 8.73)
    reverse = frame[(frame["pass"] == "pass3-reverse") & (frame["config"] == "baseline")]
    assert ttft.middle_tiers(reverse) == ["miss"] and ttft.middle_tiers(reverse.iloc[2:6]) == ["gpu", "miss"]
    table = ttft.differences(frame, shape.passes)
    assert list(table.columns) == list(ttft.LAB_PASSES) and table.loc[7, "pass3-reverse"] == 0.0


def test_the_instructors_check_reads_the_statistics_without_the_warm_up():
    frame = stand_in()
    frame.loc[0, "ttft_ms"] = 1498.0  # baseline's first request: a warm-up
    shape = ttft.layout(frame).stop_if_broken()
    frame = shape.ordered(frame)
    frame["tier"] = ttft.tiers(frame, shape, ttft.sizes(STAND_IN, frame=frame), TwoTierCache)
    warm = ttft.warm_ups(frame)
    assert warm.index.tolist() == [0]
    assert ttft.ratios(ttft.statistics(frame))["pass1-cold"]["mean"] > 1        # the warm-up in: the wrong side
    assert ttft.ratios(ttft.statistics(frame.drop(warm.index)))["pass1-cold"]["mean"] < 1


def test_given_sizes_and_a_file_of_the_labs_experiment_in_another_layout(tmp_path):
    assert ttft.given_sizes("") == (None, None) and ttft.given_sizes("21520, 56_000") == (21520, 56000)
    for bad in ("21520", "a,b", "1,2,3", 7):
        with pytest.raises(notebook.ParameterError, match="sizes must be"):
            ttft.given_sizes(bad)
    path = tmp_path / "mine.jsonl"
    frame = stand_in().assign(doc=lambda f: f["doc"] + 1)
    path.write_text(frame.drop(columns="line").to_json(orient="records", lines=True))
    found = ttft.sizes(path, frame=frame)  # no settings, but the lab's documents of 4,864 tokens
    assert found.origin == "lab-shape" and found.of("lmcache") == (lab.GPU, lab.OFFLOAD_CPU) and found.tokens == lab.TOKENS


def test_the_latency_fit_gives_an_interval_to_every_number_and_no_cost_below_0():
    frame = stand_in()
    shape = ttft.layout(frame).stop_if_broken()
    frame = shape.ordered(frame)
    found = ttft.sizes(STAND_IN, frame=frame)
    frame["tier"] = ttft.tiers(frame, shape, found, TwoTierCache)
    model, quality, predictions, intervals, sweep, gpu = ttft.latency_fit(frame, found, 10, samples=30)
    assert round(model.bandwidth_gb_s, 2) == 7.47 and "load_fixed_ms" in quality["fixed_at_zero"]
    assert all(value >= 0 for value in model.vector())
    assert intervals["bandwidth_gb_s"][0] <= model.bandwidth_gb_s <= intervals["bandwidth_gb_s"][1]
    extra = ttft.load_extra(model, 4864)
    assert round(extra["extra_ms"], 1) == 18.7 and round(extra["link_ms"], 1) == 5.6 and round(extra["megabytes"], 1) == 139.5
    assert sweep["20000"]["p50_ms"] > sweep["0"]["p50_ms"] and gpu == lab.GPU  # a CPU tier too small: slower


def test_the_block_model_says_why_it_cannot_run_on_a_gpu_of_one_document():
    frame = stand_in().assign(doc_tokens=2000)
    shape = ttft.layout(frame).stop_if_broken()
    frame = shape.ordered(frame)
    found = latency.Sizes({"baseline": (2000, 0), "lmcache": (2000, 8000)}, 2000, "given")
    side, why = ttft.block_model(frame, shape, found, frame.index)
    assert side is None and why.startswith("a document and its question do not fit in a GPU tier of 2,000 tokens")
    side, why = ttft.block_model(shape.ordered(stand_in()), shape, ttft.sizes(STAND_IN), frame.index.drop(0))
    assert why is None and len(side) == 59 and side.loc[24, ["doc", "block"]].tolist() == [5, "partial"]


# --- hidden-like files: each runs through the notebook's analysis, or stops once with one line ----------------

def analyse(path, sizes=""):
    """Notebook 06's chain of calls on `path`, in-process: "ran" (with what it found), or where it stopped."""
    try:
        frame = ttft.read(path)
        shape = ttft.layout(frame).stop_if_broken()
        frame = shape.ordered(frame)
        found = ttft.sizes(path, *ttft.given_sizes(sizes), frame=frame)
        frame["tier"] = ttft.tiers(frame, shape, found, TwoTierCache)
    except ttft.BrokenAssumption as stop:
        with pytest.raises(notebook.NotReady, match="^skipped: the file broke an assumption above$"):
            ttft.go_on(written=None)
        return {"stopped": stop.problem}
    kept = frame.drop(ttft.warm_ups(frame).index)
    cold = kept[kept["pass"] == shape.cold]
    tests = ttft.paired_tests(ttft.differences(cold, [shape.cold])[shape.cold].dropna(), 1.0, samples=50)
    said = ttft.mean_and_median(kept, shape.reverse)[0] if shape.reverse else None
    side, why = ttft.block_model(frame, shape, found, kept.index)
    model = ttft.latency_fit(kept, found, len(shape.docs), samples=10)[0]
    assert all(value >= 0 for value in model.vector())  # never an impossible cost
    return {"origin": found.origin, "warm": len(frame) - len(kept), "pairs": tests.n, "reverse": said,
            "block": why is None, "passes": shape.passes}


def hidden_like(folder):
    """Files shaped like real ones, each written from the stand-in or the simulator."""
    rows = stand_in().drop(columns="line")
    renamed = rows.replace({"pass": LAB_NAMES}).assign(doc=lambda f: 100 + 7 * f["doc"])
    renamed.loc[30, "ttft_ms"] *= 3  # lmcache's first request: a warm-up
    regrouped = renamed.iloc[renamed["pass"].map(["backwards", "cold", "again"].index).argsort(kind="stable")]
    shuffled = rows.sample(frac=1, random_state=4)
    engine = simulated(10).drop(columns="line").assign(doc_tokens=2000)
    files = {"other names, ids, order, warm-up": regrouped, "no reverse pass": rows[rows["pass"] != "pass3-reverse"],
             "the lab's passes, lines shuffled": shuffled, "other passes, lines shuffled": renamed.sample(frac=1, random_state=4),
             "another length, no settings": engine, "an engine's file": engine}
    paths = {}
    for name, frame in files.items():
        paths[name] = folder / f"{len(paths)}.jsonl"
        paths[name].write_text(frame.to_json(orient="records", lines=True))
    settings = {"configs": {"baseline": {"gpu_tokens": 2000, "cpu_tokens": 0}, "lmcache": {"gpu_tokens": 2000, "cpu_tokens": 8000}}}
    from kvlab import measure
    measure.settings_path(paths["an engine's file"]).write_text(json.dumps(settings))
    paths["not JSON"] = folder / "bad.jsonl"
    paths["not JSON"].write_text('{"config": "baseline"}\n{oops\n')
    return paths


def test_hidden_like_files_each_run_through_or_stop_once_with_one_line(tmp_path):
    found = {name: analyse(path) for name, path in hidden_like(tmp_path).items()}
    assert found["other names, ids, order, warm-up"] == {"origin": "lab-shape", "warm": 1, "pairs": 9,
                                                         "reverse": "nb.06.mean-median", "block": True,
                                                         "passes": ["cold", "again", "backwards"]}
    assert found["no reverse pass"]["reverse"] is None and found["no reverse pass"]["pairs"] == 10
    assert found["the lab's passes, lines shuffled"]["reverse"] == "nb.06.mean-median"
    assert found["other passes, lines shuffled"] == {"stopped": (
        "passes cold, backwards and again read their documents in neither order: the lines may be shuffled. The file "
        "has no timestamps, and these are not the lab's passes. So nothing gives their read order.")}
    assert found["another length, no settings"]["stopped"].endswith(
        "has no settings file beside it, and it is not the lab's file. So its GPU and CPU sizes are unknown. Give them "
        "with the parameter sizes, such as \"21520,56000\".")
    assert found["an engine's file"]["origin"] == "file" and found["an engine's file"]["block"] is False
    assert found["not JSON"]["stopped"].endswith("line 2: not JSON (Expecting property name enclosed in double quotes)")
