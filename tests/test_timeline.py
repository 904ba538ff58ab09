"""The timeline (kvlab/timeline.py): what a cache holds after every read, recorded from the cache it is given."""
import importlib.util

import pytest

from kvlab import kvsim, notebook, timeline
from kvlab.timeline import Read


def test_a_tiny_lru_cache_read_fwd_fwd_rev_is_recorded_state_by_state():
    # Room for 2 of 3 documents of 4 tokens: the cyclic passes miss throughout, the reverse pass hits 2 then 1.
    recording = timeline.record(kvsim.LRUCache(8), ("fwd", "fwd", "rev"), docs=3, size=4)
    assert recording == [
        Read(1, "fwd", 0, "miss", {"gpu": [0]}, {"gpu": []}),
        Read(1, "fwd", 1, "miss", {"gpu": [0, 1]}, {"gpu": []}),
        Read(1, "fwd", 2, "miss", {"gpu": [1, 2]}, {"gpu": [0]}),
        Read(2, "fwd", 0, "miss", {"gpu": [2, 0]}, {"gpu": [1]}),   # evicts 1, the next one needed
        Read(2, "fwd", 1, "miss", {"gpu": [0, 1]}, {"gpu": [2]}),
        Read(2, "fwd", 2, "miss", {"gpu": [1, 2]}, {"gpu": [0]}),
        Read(3, "rev", 2, "hit", {"gpu": [1, 2]}, {"gpu": []}),
        Read(3, "rev", 1, "hit", {"gpu": [2, 1]}, {"gpu": []}),
        Read(3, "rev", 0, "miss", {"gpu": [1, 0]}, {"gpu": [2]}),
    ]
    assert timeline.hits_per_pass(recording) == {1: {"miss": 3}, 2: {"miss": 3}, 3: {"hit": 2, "miss": 1}}


def test_both_tiers_are_recorded_and_a_gpu_hit_leaves_the_cpu_tier_alone():
    recording = timeline.record(kvsim.TwoTierCache(4, 8), ("fwd", "rev"), docs=2, size=4)
    assert [(read.key, read.outcome, read.held, read.evicted) for read in recording] == [
        (0, "miss", {"gpu": [0], "cpu": [0]}, {"gpu": [], "cpu": []}),
        (1, "miss", {"gpu": [1], "cpu": [0, 1]}, {"gpu": [0], "cpu": []}),
        (1, "gpu", {"gpu": [1], "cpu": [0, 1]}, {"gpu": [], "cpu": []}),
        (0, "cpu", {"gpu": [0], "cpu": [1, 0]}, {"gpu": [1], "cpu": []}),
    ]


def test_the_figure_tells_hits_from_misses_by_marker_and_names_each_in_its_legend():
    plt = pytest.importorskip("matplotlib.pyplot")
    fig = timeline.lru_figure(kvsim.LRUCache, [8, 12], docs=3, tokens=4, passes=("fwd", "fwd", "rev"))
    try:
        labels = [text.get_text() for legend in fig.legends for text in legend.get_texts()]
        assert labels == [timeline.t(f"notebook.timeline-{name}") for name in ("held", "hit", "miss", "evicted")]
        markers = {line.get_marker() for ax in fig.axes for line in ax.get_lines() if line.get_marker() != "None"}
        assert markers == {"o", "X"}  # not colour alone
        assert len(fig.axes) == 2
    finally:
        plt.close(fig)


def student_kvsim(tmp_path, monkeypatch, source):
    """A kvsim module from `source`, in a file the notebook takes for the student's."""
    path = tmp_path / "kvsim.py"
    path.write_text(source)
    monkeypatch.setattr(notebook, "_student_files", lambda: {path.resolve()})
    spec = importlib.util.spec_from_file_location("student_kvsim", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CRASHING = """
class LRUCache:
    def __init__(self, capacity):
        self.stored = {}

    def access(self, key, size):
        return self.stored[key]

    def keys(self):
        return list(self.stored)
"""


def test_a_crash_in_the_students_cache_is_one_line_in_the_cell_and_under_the_slider(tmp_path, monkeypatch, capsys):
    crashing = student_kvsim(tmp_path, monkeypatch, CRASHING)
    with pytest.raises(KeyError) as raised:
        timeline.lru_figure(crashing.LRUCache, [8], docs=3, tokens=4, passes=("fwd",))
    line = notebook._line_for(raised.type, raised.value, raised.tb)
    assert line.id == "notebook.student-crash" and "\n" not in str(line)
    assert "kvsim.py, line 7, in access: KeyError: 0" in str(line)
    notebook.show_error(raised.value, cell="")  # what the slider does with it
    shown = capsys.readouterr()
    assert shown.err == f"{line}\n" and not shown.out


def test_on_a_blank_stub_the_timeline_draws_nothing(tmp_path, monkeypatch):
    plt = pytest.importorskip("matplotlib.pyplot")
    from kvlab.instructor import release

    stub = student_kvsim(tmp_path, monkeypatch, release.stub_source(
        (notebook.KVLAB / "kvsim.py").read_text(), "kvlab/kvsim.py"))
    plt.close("all")
    with pytest.raises(NotImplementedError):
        timeline.lru_figure(stub.LRUCache, [21520], docs=10, tokens=5011, passes=("fwd", "fwd", "rev"))
    with pytest.raises(NotImplementedError):
        timeline.tiers_figure(stub.TwoTierCache, 21520, [50110], docs=10, tokens=5011, passes=("fwd", "fwd"))
    assert not plt.get_fignums()  # no figure, so no lab result


def test_a_run_nobody_watches_draws_no_slider(monkeypatch, capsys):
    monkeypatch.setenv(timeline.UNATTENDED, "1")
    assert timeline.slider(lambda capacity: pytest.fail("drawn"), value=1, stop=2) is None
    assert capsys.readouterr().out == ""


def test_without_ipywidgets_the_slider_is_one_sentence_saying_how_to_get_it(monkeypatch, capsys):
    monkeypatch.delenv(timeline.UNATTENDED, raising=False)
    import builtins

    real_import = builtins.__import__

    def no_widgets(name, *args, **kwargs):
        if name == "ipywidgets":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_widgets)
    timeline.slider(lambda capacity: None, value=1, stop=2)
    assert capsys.readouterr().out == timeline.t("notebook.timeline-no-slider") + "\n"


def test_stored_notebooks_keep_no_widget_view():
    nbformat = pytest.importorskip("nbformat")
    from kvlab import nbrun

    nb = nbformat.v4.new_notebook(metadata={"widgets": {"state": {}}})
    nb.cells = [nbformat.v4.new_code_cell("slider()", outputs=[
        nbformat.v4.new_output("display_data", data={nbrun.WIDGET_VIEW: {"model_id": "x"}, "text/plain": "VBox()"}),
        nbformat.v4.new_output("stream", text="kept\n")])]
    nb = nbrun.without_widgets(nb)
    assert "widgets" not in nb.metadata and [output.output_type for output in nb.cells[0].outputs] == ["stream"]


def test_a_fwd_pass_reads_upwards_and_a_rev_pass_downwards():
    assert timeline.reads(("fwd", "rev"), 2) == [(1, "fwd", 0), (1, "fwd", 1), (2, "rev", 1), (2, "rev", 0)]
    two = kvsim.TwoTierCache(1, 1)
    assert timeline.tiers_of(two) == {"gpu": two.gpu, "cpu": two.cpu}


def test_each_read_is_described_in_one_sentence_from_the_recording():
    lru = timeline.record(kvsim.LRUCache(21520), ("fwd", "fwd", "rev"), 10, 5011)
    assert timeline.describe(lru, 10) == "Read 11 of 30: pass 2 (fwd) reads document 0: a miss, then stored; it evicts [6]."
    assert timeline.describe(lru, 22) == "Read 23 of 30: pass 3 (rev) reads document 7: a hit; nothing is evicted."
    two = timeline.record(kvsim.TwoTierCache(21520, 56000), ("fwd", "fwd", "rev"), 10, 5011)
    assert timeline.describe(two, 24) == ("Read 25 of 30: pass 3 (rev) reads document 5: loaded from the CPU tier; "
                                          "it evicts [9].")
    small = timeline.record(kvsim.TwoTierCache(4, 4), ("fwd",), 2, 4)
    assert timeline.describe(small, 1) == ("Read 2 of 2: pass 1 (fwd) reads document 1: a miss, then stored; "
                                           "the GPU tier evicts [0]; the CPU tier evicts [0].")


def test_a_frame_draws_each_tier_oldest_first_the_read_outlined_and_the_evicted_hatched():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    two = timeline.record(kvsim.TwoTierCache(21520, 56000), ("fwd", "fwd", "rev"), 10, 5011)
    fig = timeline.frame(two, 24, 10)
    gpu, cpu = fig.axes
    labels = [[text.get_text() for text in ax.texts] for ax in (gpu, cpu)]
    assert labels == [["9", "8", "7", "6", "5"], ["0", "1", "2", "3", "4", "6", "7", "8", "9", "5"]]
    assert gpu.patches[0].get_hatch() == timeline.STYLE["evicted"]["hatch"]  # 9 left the GPU tier
    outlined = [patch for ax in (gpu, cpu) for patch in ax.patches if patch.get_linewidth() == 3]
    assert len(outlined) == 2  # document 5: loaded from the CPU tier (refreshed there) and stored in the GPU tier
    plt.close(fig)


def test_the_stepper_steps_one_read_forward_and_back_and_stops_at_the_ends():
    pytest.importorskip("ipywidgets")
    pytest.importorskip("matplotlib")
    recording = timeline.record(kvsim.LRUCache(8), ("fwd", "fwd"), 3, 4)
    box, back, forward, position = timeline.controls(recording, 3, start=5)
    assert position.value == 5 and (position.min, position.max) == (1, 6)
    forward.click()
    assert position.value == 6 and forward.disabled and not back.disabled
    forward.click()
    assert position.value == 6  # the last read: no further
    for _ in range(7):
        back.click()
    assert position.value == 1 and back.disabled


def test_without_ipywidgets_the_stepper_is_one_sentence_and_unattended_it_is_nothing(monkeypatch, capsys):
    import builtins

    monkeypatch.setenv(timeline.UNATTENDED, "1")
    assert timeline.stepper(lambda: pytest.fail("made"), docs=2, tokens=1, passes=("fwd",)) is None
    assert capsys.readouterr().out == ""
    monkeypatch.delenv(timeline.UNATTENDED)
    real_import = builtins.__import__

    def no_widgets(name, *args, **kwargs):
        if name == "ipywidgets":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_widgets)
    timeline.stepper(lambda: kvsim.LRUCache(1), docs=2, tokens=1, passes=("fwd",))
    assert capsys.readouterr().out == timeline.t("notebook.stepper-no-widgets") + "\n"
