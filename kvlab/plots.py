"""The lab's figures (matplotlib); kvlab.notebook.save_figure saves them beside the artifacts.

Each function returns (fig, ax) so a notebook can adjust the figure before showing it.
"""
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from . import fonts
from .i18n import t
from .timeline import STYLE

MARKERS = {"baseline": "o", "lmcache": "^"}   # a config is a marker; a tier is a colour
TIER_COLORS = {tier: STYLE[tier]["color"] for tier in ("gpu", "cpu", "miss")}  # the timeline's Okabe-Ito colours
TIER_LABELS = {"gpu": "notebook.plot-tier-gpu", "cpu": "notebook.plot-tier-cpu", "miss": "notebook.plot-tier-miss"}
fonts.use()  # a notebook's own plt.subplots() (e.g. for notebook 06's latency figure) gets the language's font too
_thousands = FuncFormatter(lambda value, _: f"{value:,.0f}")


def capacity_cliff(sweep, marked, step_at, *, xlabel, ylabel, title, step_text, marked_label, legend="upper left",
                   point_labels=None):
    """A dense sweep {capacity: count} as a step curve, the recorded capacities marked, the step at `step_at`
    annotated (none when it is None), and each of `point_labels` ({capacity: text}) named beside its point, so
    that two points a token apart (50,109 and 50,110) can be told apart.

    Capacities may be strings, as gpu_cliff and cpu_cliff return them.
    """
    fonts.use()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    capacities, counts = zip(*sorted((int(c), n) for c, n in sweep.items()))
    ax.step(capacities, counts, where="post", color="0.35", linewidth=1.5, label=t("notebook.plot-dense-sweep"))
    xs, ys = zip(*sorted((int(c), n) for c, n in marked.items()))
    ax.plot(xs, ys, "o", color="tab:orange", markersize=8, markeredgecolor="black", zorder=3, clip_on=False,
            label=marked_label)
    top = max([*counts, *ys, 1])
    if step_at is not None:  # None: no step to point at (e.g. the GPU alone holds every document)
        ax.axvline(step_at, color="tab:blue", linestyle=":", linewidth=1)
        ax.annotate(step_text, xy=(step_at, top / 2), xytext=(-12, 0), textcoords="offset points",
                    ha="right", va="center", color="tab:blue",
                    arrowprops={"arrowstyle": "->", "color": "tab:blue"})
    counts_at = {int(c): n for c, n in sweep.items()}
    for capacity, text in (point_labels or {}).items():
        high = counts_at[int(capacity)] > top / 2
        ax.annotate(text, xy=(int(capacity), counts_at[int(capacity)]), xytext=(-14, -16 if high else 16),
                    textcoords="offset points", ha="right", va="top" if high else "bottom", fontsize=9,
                    arrowprops={"arrowstyle": "-", "color": "0.3", "linewidth": 0.8})
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title, ylim=(-0.06 * top, 1.12 * top),
           xlim=(-0.01 * capacities[-1], capacities[-1]))
    ax.xaxis.set_major_formatter(_thousands)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of documents
    ax.grid(alpha=0.3)
    ax.legend(loc=legend)
    return fig, ax


def ttft_by_request(frame, passes, note=None):
    """Every request's TTFT, `passes` side by side in that order, log scale, each dot coloured by the tier
    (column `tier`) the simulator predicts for it; `note` says where the data is from."""
    fonts.use()
    fig, ax = plt.subplots(figsize=(9, 4.6))
    ticks, labels, start = [], [], 0
    for index, name in enumerate(passes):
        order = "read" if "read" in frame else "line"  # read: the order the requests ran (ttft.Layout.ordered)
        docs = list(dict.fromkeys(frame.loc[frame["pass"] == name].sort_values(order)["doc"]))  # read order
        position = {doc: start + i for i, doc in enumerate(docs)}
        for config, marker in MARKERS.items():
            rows = frame[(frame["pass"] == name) & (frame["config"] == config)]
            ax.scatter([position[d] for d in rows["doc"]], rows["ttft_ms"], marker=marker, s=44, alpha=0.85,
                       c=[TIER_COLORS[tier] for tier in rows["tier"]], edgecolors="black", linewidths=0.4)
        ticks += list(position.values())
        labels += [str(d) for d in docs]
        ax.text(start + (len(docs) - 1) / 2, 1.02, name, transform=ax.get_xaxis_transform(),
                ha="center", va="bottom", fontsize=10)
        if index:
            ax.axvline(start - 1, color="0.6", linewidth=1)
        start += len(docs) + 1
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks([20, 30, 50, 100, 200, 300, 500, 800])
    ax.set_xticks(ticks, labels, fontsize=8)
    ax.set(xlabel=t("notebook.plot-request-x"), ylabel=t("notebook.plot-request-y"), xlim=(-1, start - 1))
    ax.set_title(t("notebook.plot-request-title"), pad=22)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(handles=_legend(set(frame["tier"])), loc="center left", bbox_to_anchor=(1.01, 0.5))
    _note(fig, note)
    return fig, ax


def _legend(tiers):
    """Legend handles: the tiers present (colours), then the configs (markers)."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", markersize=8, markerfacecolor=TIER_COLORS[tier],
                      markeredgecolor="black", label=t(TIER_LABELS[tier])) for tier in TIER_COLORS if tier in tiers]
    handles += [Line2D([], [], marker=marker, linestyle="", markersize=8, markerfacecolor="white",
                       markeredgecolor="black", label=config) for config, marker in MARKERS.items()]
    return handles


def tier_legend(fig, tiers):
    """The tiers' and configs' legend, under the figure's axes."""
    fig.legend(handles=_legend(tiers), loc="lower center", ncol=5, bbox_to_anchor=(0.5, -0.08), frameon=False)


def _note(fig, note):
    """A line under the figure (saved and shown with it: both use a tight bounding box)."""
    if note:
        fig.text(0.5, -0.01, note, ha="center", va="top", fontsize=9, style="italic", color="0.3")


def log_ms(ax, low, high):
    """Both axes of `ax` in milliseconds on a log scale from `low` to `high`, ticked at 1, 2, 3 and 5 of each
    power of ten, in plain numbers (2,000, not 2×10³)."""
    import math
    ticks = [step * 10 ** power for power in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
             for step in (1, 2, 3, 5) if low <= step * 10 ** power <= high]
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_ticks(ticks)
        axis.set_major_formatter(_thousands)
        axis.set_minor_formatter(NullFormatter())

