"""The timeline: what a cache holds after every read, one row per read, one column per document.

record() runs the reads through a cache that it is given (the student's LRUCache or TwoTierCache) and
keeps what access() returned and each tier's keys() after every read; draw() turns recordings into a
figure. Nothing here simulates a cache: every state drawn comes from the cache passed in.

    fig = timeline.lru_figure(kvsim.LRUCache, [21520], docs=10, tokens=5011, passes=("fwd", "fwd", "rev"))
    timeline.slider(lambda gpu: timeline.lru_figure(kvsim.LRUCache, [gpu], ...), value=21520, stop=55121)
    timeline.stepper(lambda: kvsim.LRUCache(21520), docs=10, tokens=5011, passes=("fwd", "fwd", "rev"))

stepper() steps through one recording a read at a time, forward and back (frame() draws one read).
"""
import os
from collections import namedtuple

from . import fonts
from .i18n import t

# One read: its pass (1, 2, ...), the key read, what access() returned ("hit", "miss", "gpu", "cpu"), and for
# each tier ("gpu", and "cpu" for a TwoTierCache) the keys held after the read and the keys it evicted.
Read = namedtuple("Read", "pass_number order key outcome held evicted")

# Okabe-Ito colours (safe for colour-blind readers); each read also has its own marker, so no colour is needed.
STYLE = {
    "held": {"color": "#BBBBBB"},
    "hit": {"color": "#009E73", "marker": "o"},
    "gpu": {"color": "#009E73", "marker": "o"},
    "cpu": {"color": "#56B4E9", "marker": "^"},
    "miss": {"color": "#E69F00", "marker": "X"},
    "evicted": {"color": "#D55E00", "hatch": "////"},
}
OUTCOMES = {True: "hit", False: "miss"}
# Set by `kvlab notebooks` (and the test suite) for the kernels it starts: a run nobody watches draws no
# slider. Besides, nbclient waiting on an Output widget's messages was seen to hang such runs.
UNATTENDED = "KVLAB_UNATTENDED"  # LRUCache.access; TwoTierCache.access returns its names


def reads(passes, docs):
    """[(pass number, order, key)]: a "fwd" pass reads 0 … docs-1, a "rev" pass reads them downwards."""
    keys = {"fwd": list(range(docs)), "rev": list(reversed(range(docs)))}
    return [(number, order, key) for number, order in enumerate(passes, start=1) for key in keys[order]]


def tiers_of(cache):
    """{tier name: its LRUCache}: the GPU tier and the CPU tier of a TwoTierCache, else the cache itself."""
    if hasattr(cache, "gpu") and hasattr(cache, "cpu"):
        return {"gpu": cache.gpu, "cpu": cache.cpu}
    return {"gpu": cache}


def record(cache, passes, docs, size):
    """Read documents 0 … docs-1 of `size` tokens, pass after pass, through `cache`: a Read after every access."""
    tiers = tiers_of(cache)
    recording = []
    for number, order, key in reads(passes, docs):
        before = {name: list(tier.keys()) for name, tier in tiers.items()}
        outcome = cache.access(key, size)
        held = {name: list(tier.keys()) for name, tier in tiers.items()}
        evicted = {name: [k for k in before[name] if k not in held[name]] for name in tiers}
        recording.append(Read(number, order, key, OUTCOMES.get(outcome, outcome), held, evicted))
    return recording


def hits_per_pass(recording):
    """{pass number: {outcome: count}} of a recording."""
    counts = {}
    for read in recording:
        tally = counts.setdefault(read.pass_number, {})
        tally[read.outcome] = tally.get(read.outcome, 0) + 1
    return counts


def lru_figure(make, capacities, *, docs, tokens, passes):
    """One panel per capacity: `make(capacity)` (your LRUCache) read by read."""
    panels = [(t("notebook.timeline-lru", capacity=capacity, fit=min(docs, capacity // tokens)),
               record(make(capacity), passes, docs, tokens), "gpu") for capacity in capacities]
    return draw(panels, docs, t("notebook.timeline-title", docs=docs, tokens=tokens, passes=",".join(passes)))


def tiers_figure(make, gpu, cpu_capacities, *, docs, tokens, passes):
    """For each CPU capacity, the GPU tier and the CPU tier of `make(gpu, cpu)` (your TwoTierCache), read by read."""
    panels = []
    for cpu in cpu_capacities:
        recording = record(make(gpu, cpu), passes, docs, tokens)
        panels += [(t("notebook.timeline-gpu-tier", capacity=gpu, fit=min(docs, gpu // tokens)), recording, "gpu"),
                   (t("notebook.timeline-cpu-tier", capacity=cpu, fit=min(docs, cpu // tokens)), recording, "cpu")]
    return draw(panels, docs, t("notebook.timeline-title", docs=docs, tokens=tokens, passes=",".join(passes)),
                columns=2)


def draw(panels, docs, title, columns=None):
    """Panels [(title, recording, tier)], `columns` to a row (default: all): reads down, documents across."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    fonts.use()
    rows = max(len(recording) for _, recording, _ in panels)
    columns = columns or len(panels)
    lines = -(-len(panels) // columns)
    fig, axes = plt.subplots(lines, columns, squeeze=False, sharey=True,
                             figsize=(0.9 + (0.34 * docs + 1.1) * columns, (1.1 + 0.2 * rows) * lines + 0.5))
    seen = {"held"}
    for ax, (name, recording, tier) in zip(axes.flat, panels):
        held, evicted, marks = [], [], {}  # one collection each, one marker line per outcome: fast to draw
        for row, read in enumerate(recording):
            held += [Rectangle((key - 0.5, row - 0.5), 1, 1) for key in read.held[tier]]
            evicted += [Rectangle((key - 0.5, row - 0.5), 1, 1) for key in read.evicted[tier]]
            if tier == "gpu" or read.outcome != "gpu":  # a GPU hit does not touch the CPU tier
                marks.setdefault(read.outcome, []).append((read.key, row))
        ax.add_collection(PatchCollection(held, facecolor=STYLE["held"]["color"], linewidth=0))
        if evicted:
            ax.add_collection(PatchCollection(evicted, facecolor="white", hatch=STYLE["evicted"]["hatch"],
                                              edgecolor=STYLE["evicted"]["color"], linewidth=0))
            seen.add("evicted")
        for outcome, points in marks.items():
            style = STYLE[outcome]
            ax.plot(*zip(*points), linestyle="none", marker=style["marker"], color=style["color"],
                    markeredgecolor="black", markeredgewidth=0.6, markersize=7)
            seen.add(outcome)
        _passes(ax, recording, docs, tier)
        ax.set_xlim(-0.5, docs - 0.5)
        ax.set_ylim(rows - 0.5, -0.5)
        ax.set_xticks(range(docs))
        ax.xaxis.tick_top()
        ax.set_title(name, fontsize=10, pad=20)
        ax.set_xlabel(t("notebook.timeline-x"))
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(t("notebook.timeline-y"))
    fig.suptitle(title, fontsize=11)
    fig.legend(handles=_legend(seen), loc="lower center", ncol=min(len(seen), 2 * columns), frameon=False,
               fontsize=9, bbox_to_anchor=(0.5, 0))
    fig.tight_layout(rect=(0, 0.1 / lines if columns < 3 else 0.06, 1, 1))
    return fig


def _passes(ax, recording, docs, tier):
    """Each pass named on the left, its hits counted on the right, and a line between passes."""
    starts = [row for row, read in enumerate(recording) if row == 0 or read.pass_number != recording[row - 1].pass_number]
    ends = starts[1:] + [len(recording)]
    counts = hits_per_pass(recording)
    ax.set_yticks([(start + end - 1) / 2 for start, end in zip(starts, ends)],
                  [t("notebook.timeline-pass", number=recording[start].pass_number, order=recording[start].order)
                   for start in starts])
    for start, end in zip(starts, ends):
        if start:
            ax.axhline(start - 0.5, color="black", linewidth=1)
        tally = counts[recording[start].pass_number]
        hit_docs = [read.key for read in recording[start:end] if read.outcome in ("hit", "gpu")]
        if len(recording[start].held) == 1 and 0 < len(hit_docs) < end - start:  # some hits: which ones
            text = t("notebook.timeline-pass-hit-docs", n=len(hit_docs), docs=", ".join(map(str, hit_docs)))
        elif len(recording[start].held) == 1:  # one tier: an LRUCache
            text = t("notebook.timeline-pass-hits", n=tally.get("hit", 0))
        elif tier == "gpu":
            text = t("notebook.timeline-pass-gpu", n=tally.get("gpu", 0))
        else:
            text = t("notebook.timeline-pass-cpu", n=tally.get("cpu", 0))
        ax.text(docs - 0.3, (start + end - 1) / 2, text, ha="left", va="center", fontsize=9)


def _legend(seen):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=STYLE["held"]["color"], label=t("notebook.timeline-held"))]
    for outcome in ("hit", "gpu", "cpu", "miss"):
        if outcome in seen:
            style = STYLE[outcome]
            handles.append(Line2D([], [], linestyle="none", marker=style["marker"], color=style["color"],
                                  markeredgecolor="black", markersize=8, label=t(f"notebook.timeline-{outcome}")))
    if "evicted" in seen:
        handles.append(Patch(facecolor="white", edgecolor=STYLE["evicted"]["color"], hatch=STYLE["evicted"]["hatch"],
                             label=t("notebook.timeline-evicted")))
    return handles


def slider(draw_at, *, value, stop, step=1, start=0, label=None):
    """Show a capacity slider that redraws `draw_at(capacity)`; without ipywidgets, one line says how to get it.

    A crash in the student's code shows the notebook's one line under the slider, never a traceback.
    """
    from . import notebook

    if os.environ.get(UNATTENDED) == "1":  # `kvlab notebooks`, nbval: nobody to move it, and it is not stored
        return None
    try:
        import ipywidgets
    except ImportError:
        notebook.say("notebook.timeline-no-slider")
        return None
    import matplotlib.pyplot as plt
    from IPython.display import display

    cell = notebook.current_cell()
    out = ipywidgets.Output()
    capacity = ipywidgets.IntSlider(value=value, min=start, max=stop, step=step, continuous_update=False,
                                    description=label or t("notebook.timeline-slider"),
                                    style={"description_width": "initial"}, layout={"width": "640px"})

    def redraw(change=None):
        with out:
            out.clear_output(wait=True)
            try:
                fig = draw_at(capacity.value)
            except Exception as error:
                notebook.show_error(error, cell)
                return
            display(fig)
            plt.close(fig)

    capacity.observe(redraw, names="value")
    redraw()
    display(ipywidgets.VBox([capacity, out]))


# --- one read at a time: the stepper -----------------------------------------------------------------------


def describe(recording, index):
    """One line about read `index` (0-based) of a recording: its pass, its document, what it found and evicted."""
    read = recording[index]
    tiers = {name: keys for name, keys in read.evicted.items() if keys}
    return t("notebook.stepper-read", number=index + 1, reads=len(recording), pass_number=read.pass_number,
             order=read.order, key=read.key, outcome=t(f"notebook.stepper-{read.outcome}"),
             evicted=_evictions(tiers) if tiers else t("notebook.stepper-nothing-evicted"))


def _evictions(tiers):
    if list(tiers) == ["gpu"]:
        return t("notebook.stepper-evicts", keys=tiers["gpu"])
    return "; ".join(t(f"notebook.stepper-evicts-{tier}", keys=keys) for tier, keys in tiers.items())


def frame(recording, index, docs):
    """The caches after read `index` (0-based): one row per tier, its entries oldest (left) to newest (right),
    the entry just read outlined in the colour of what the read found, and what the read evicted hatched on the
    left of its tier."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    fonts.use()
    read = recording[index]
    tiers = list(read.held)
    widest = max(len(r.held[tier]) + len(r.evicted[tier]) for r in recording for tier in tiers)
    fig, axes = plt.subplots(len(tiers), 1, squeeze=False, figsize=(max(7.5, 1.2 + 0.62 * (widest + 1)), 0.55 + 1.05 * len(tiers)))
    for ax, tier in zip(axes[:, 0], tiers):
        evicted, held = read.evicted[tier], read.held[tier]
        column = 0
        for key in evicted:
            ax.add_patch(Rectangle((column, 0), 0.9, 0.9, facecolor="white", hatch=STYLE["evicted"]["hatch"],
                                   edgecolor=STYLE["evicted"]["color"], linewidth=0.8))
            ax.text(column + 0.45, 0.45, str(key), ha="center", va="center", fontsize=10, color="0.3")
            column += 1
        if evicted:
            column += 0.3  # a gap between what left and what stays
        touched = tier == "gpu" or read.outcome != "gpu"  # a GPU hit does not touch the CPU tier
        for key in held:
            mine = key == read.key and touched
            style = STYLE[read.outcome] if mine else STYLE["held"]
            ax.add_patch(Rectangle((column, 0), 0.9, 0.9, facecolor=STYLE["held"]["color"],
                                   edgecolor=style["color"] if mine else "white", linewidth=3 if mine else 0.8))
            ax.text(column + 0.45, 0.45, str(key), ha="center", va="center", fontsize=11,
                    fontweight="bold" if mine else "normal")
            if mine:
                ax.plot(column + 0.82, 0.8, marker=style["marker"], color=style["color"], markeredgecolor="black",
                        markeredgewidth=0.6, markersize=8)
            column += 1
        ax.set_xlim(-0.1, max(widest, 10) + 0.5)
        ax.set_ylim(-0.15, 1.05)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for side in ax.spines.values():
            side.set_visible(False)
        label = "notebook.stepper-tier-" + tier if len(tiers) > 1 else "notebook.stepper-cache"
        ax.set_title(t(label), fontsize=9, loc="left", color="0.3")
    fig.suptitle(describe(recording, index), fontsize=10, x=0.02, ha="left")
    fig.tight_layout()
    return fig


def stepper(make, *, docs, tokens, passes, start=0):
    """A control that steps through the reads of `make()` (your cache, made anew) one at a time, forward and back.

    With ipywidgets: ◀ and ▶ buttons and a slider over the reads; each move redraws frame() for that read.
    Without ipywidgets: one line says how to get it (the timeline above shows every read at once). In a run
    nobody watches (`kvlab notebooks`, nbval): nothing, so that stored outputs stay the same.
    """
    from . import notebook

    if os.environ.get(UNATTENDED) == "1":
        return None
    try:
        import ipywidgets  # noqa: F401 (controls() uses it)
    except ImportError:
        notebook.say("notebook.stepper-no-widgets")
        return None
    from IPython.display import display

    cell = notebook.current_cell()
    try:
        recording = record(make(), passes, docs, tokens)
    except Exception as error:  # your cache crashed: the notebook's one line, as in any cell
        notebook.show_error(error, cell)
        return None
    box, *_ = controls(recording, docs, start)
    display(box)
    return None  # the last line of its cell: nothing more to show


def controls(recording, docs, start=1):
    """(the widget, its ◀ button, its ▶ button, its slider) over the reads of `recording` (ipywidgets): each
    move redraws frame() for that read in the widget's output area. `start` is the read shown first (1-based)."""
    import ipywidgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    out = ipywidgets.Output()
    back = ipywidgets.Button(description="◀", tooltip=t("notebook.stepper-back"), layout={"width": "48px"})
    forward = ipywidgets.Button(description="▶", tooltip=t("notebook.stepper-forward"), layout={"width": "48px"})
    position = ipywidgets.IntSlider(value=min(max(start, 1), len(recording)), min=1, max=len(recording),
                                    description=t("notebook.stepper-slider"), continuous_update=False,
                                    style={"description_width": "initial"}, layout={"width": "480px"})

    def redraw(change=None):
        back.disabled, forward.disabled = position.value <= position.min, position.value >= position.max
        with out:
            out.clear_output(wait=True)
            fig = frame(recording, position.value - 1, docs)
            display(fig)
            plt.close(fig)

    back.on_click(lambda button: setattr(position, "value", max(position.min, position.value - 1)))
    forward.on_click(lambda button: setattr(position, "value", min(position.max, position.value + 1)))
    position.observe(redraw, names="value")
    redraw()
    return ipywidgets.VBox([ipywidgets.HBox([back, forward, position]), out]), back, forward, position
