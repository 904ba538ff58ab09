"""The lab's figures (matplotlib); kvlab.notebook.save_figure saves them beside the artifacts.

Each function returns (fig, ax) so a notebook can adjust the figure before showing it.
"""
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from . import fonts
from .i18n import t

COLORS = {"baseline": "tab:red", "lmcache": "tab:blue"}
MARKERS = {"baseline": "o", "lmcache": "^"}
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


def ttft_by_request(frame, note=None):
    """Every request's TTFT in read order, passes side by side, log scale; `note` says where the data is from."""
    fonts.use()
    fig, ax = plt.subplots(figsize=(9, 4.6))
    passes = list(dict.fromkeys(frame["pass"]))
    ticks, labels, start = [], [], 0
    for index, name in enumerate(passes):
        docs = list(dict.fromkeys(frame.loc[frame["pass"] == name, "doc"]))  # read order
        position = {doc: start + i for i, doc in enumerate(docs)}
        for config in COLORS:
            rows = frame[(frame["pass"] == name) & (frame["config"] == config)]
            ax.plot([position[d] for d in rows["doc"]], rows["ttft_ms"], MARKERS[config], color=COLORS[config],
                    markersize=7, alpha=0.85, label=config if index == 0 else None)
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
    ax.set(xlabel=t("notebook.plot-request-x"), ylabel=t("notebook.plot-request-y"),
           xlim=(-1, start - 1))
    ax.set_title(t("notebook.plot-request-title"), pad=22)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), title=t("notebook.plot-config"))
    _note(fig, note)
    return fig, ax


def ttft_summary(summary, note=None):
    """p50 and mean TTFT per pass, baseline vs lmcache bars, each pair labelled with its ratio."""
    fonts.use()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    passes = list(summary["ratio"])
    width = 0.38
    for ax, stat, key in zip(axes, ("p50", "mean"), ("p50_ms", "mean_ms")):
        for offset, config in ((-width / 2, "baseline"), (width / 2, "lmcache")):
            values = [summary[config][name][key] for name in passes]
            bars = ax.bar([i + offset for i in range(len(passes))], values, width, color=COLORS[config],
                          label=config)
            ax.bar_label(bars, fmt="%.1f", fontsize=8, padding=2)
        for i, name in enumerate(passes):
            top = max(summary[config][name][key] for config in ("baseline", "lmcache"))
            ratio = summary["ratio"][name][stat]  # None when lmcache's statistic is 0
            ax.annotate(t("notebook.plot-ratio-none") if ratio is None else t("notebook.plot-ratio", ratio=ratio), xy=(i, top), xytext=(0, 16),
                        textcoords="offset points", ha="center", fontsize=9, fontweight="bold")
        ax.set_xticks(range(len(passes)), passes)
        ax.set(title=t("notebook.plot-summary-title", stat=stat), xlabel=t("notebook.plot-pass"))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set(ylabel=t("notebook.plot-summary-y"))
    high = max(summary[c][n][k] for c in ("baseline", "lmcache") for n in passes for k in ("p50_ms", "mean_ms"))
    axes[0].set_ylim(0, high * 1.22)
    axes[1].legend(loc="upper right")
    fig.suptitle(t("notebook.plot-summary-suptitle"))
    fig.tight_layout()
    _note(fig, note)
    return fig, axes


def _note(fig, note):
    """A line under the figure (saved and shown with it: both use a tight bounding box)."""
    if note:
        fig.text(0.5, -0.01, note, ha="center", va="top", fontsize=9, style="italic", color="0.3")
