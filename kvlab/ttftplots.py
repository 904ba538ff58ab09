"""Notebook 06's figures of the measured TTFT: the cold pass in pairs, its two tests, and the reverse pass.

Each function returns the figure; kvlab.notebook.save_figure saves it beside the artifacts. Every line drawn
has a legend entry, and the configs compared share one axis.
"""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, NullFormatter

from . import fonts
from .i18n import t
from .plots import MARKERS, TIER_COLORS, TIER_LABELS, _note

CONFIG_COLORS = {"baseline": "0.25", "lmcache": "#0072B2"}   # the pairs' two ends (Okabe-Ito blue)
DIFFERENCE = "#D55E00"                                        # a per-document difference (Okabe-Ito vermilion)
SPREAD = "#56B4E9"                                            # resampled and flipped means (Okabe-Ito sky blue)


def cold_pass(cold, tests, name, note=None):
    """Two panels of pass `name` (rows of both configs, with `read`): left, each document's two TTFTs joined by a
    line, on an axis from 0 (a gap of 2 % looks like one); right, each document's difference baseline - lmcache
    with the zero line, their mean and the bootstrap's 95 % interval of it (`tests`: ttft.PairedTests)."""
    fonts.use()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.4), gridspec_kw={"width_ratios": [1, 1.5]})
    wide = cold.pivot_table(index="doc", columns="config", values="ttft_ms", aggfunc="first").dropna()
    for doc, row in wide.iterrows():
        left.plot([0, 1], [row["baseline"], row["lmcache"]], color="0.6", linewidth=0.9, zorder=1)
    for x, config in enumerate(("baseline", "lmcache")):
        left.scatter([x] * len(wide), wide[config], marker=MARKERS[config], s=40, color=CONFIG_COLORS[config],
                     edgecolors="black", linewidths=0.4, zorder=3)
    left.set_xticks([0, 1], ["baseline", "lmcache"])
    left.set(xlim=(-0.4, 1.4), ylim=(0, 1.12 * max(wide.max().max(), 1)), ylabel=t("nb.06.plot-ms"),
             title=t("nb.06.plot-pairs-title", name=name))
    left.grid(axis="y", alpha=0.3)
    left.legend(handles=[Line2D([], [], color="0.6", linewidth=0.9, label=t("nb.06.plot-pair-line"))],
                loc="lower center", fontsize=8)

    differences = (wide["baseline"] - wide["lmcache"])
    xs = range(len(differences))
    right.axhline(0, color="black", linewidth=1, linestyle="--", label=t("nb.06.plot-zero-line"))
    if tests.resampled is not None:
        right.axhspan(tests.low, tests.high, color=SPREAD, alpha=0.3, linewidth=0, label=t("nb.06.plot-interval-band"))
    right.axhline(differences.mean(), color=DIFFERENCE, linewidth=1.4, label=t("nb.06.plot-mean-line"))
    right.scatter(xs, differences, color=DIFFERENCE, s=40, edgecolors="black", linewidths=0.4, zorder=3,
                  label=t("nb.06.plot-difference-dot"))
    right.set_xticks(list(xs), [str(doc) for doc in differences.index], fontsize=8)
    reach = 1.25 * max(float(differences.abs().max()), abs(tests.low), abs(tests.high), 1.0)
    right.set(ylim=(-reach, reach), xlabel=t("nb.06.plot-doc"), ylabel=t("nb.06.plot-difference-ms"),
              title=t("nb.06.plot-differences-title"))
    right.text(0.01, 0.02, t("nb.06.plot-below-zero"), transform=right.transAxes, fontsize=8, color="0.3")
    right.grid(axis="y", alpha=0.3)
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8, frameon=False)
    _note(fig, note)
    fig.tight_layout()
    return fig


def tests_figure(tests, name, samples):
    """Two panels of `tests` (ttft.PairedTests) for pass `name`: the bootstrap's resampled means, drawn with
    replacement, with their 95 % interval; and the permutation test's means under sign flips (the null: what
    chance alone gives), the share at or below the observed mean shaded (the one-sided p-value)."""
    fonts.use()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), sharex=True)
    reach = max(float(np.abs(tests.resampled).max()), float(np.abs(tests.flipped).max()), abs(tests.mean)) * 1.05
    bins = np.linspace(-reach, reach, 61)
    left.hist(tests.resampled, bins=bins, color=SPREAD, edgecolor="white", linewidth=0.3,
              label=t("nb.06.plot-resampled", n=samples))
    left.axvspan(tests.low, tests.high, color="0.5", alpha=0.15, linewidth=0, label=t("nb.06.plot-interval-band"))
    left.set(title=t("nb.06.plot-bootstrap-title", name=name), ylabel=t("nb.06.plot-count-resamples"))

    below = tests.flipped <= tests.mean + 1e-9 * max(1.0, abs(tests.mean))
    right.hist([tests.flipped[~below], tests.flipped[below]], bins=bins, stacked=True, color=[SPREAD, DIFFERENCE],
               edgecolor="white", linewidth=0.3,
               label=[t("nb.06.plot-flipped", n=len(tests.flipped)), t("nb.06.plot-tail", p=tests.permutation_p)])
    right.set(title=t("nb.06.plot-permutation-title", name=name), ylabel=t("nb.06.plot-count-patterns"))
    for ax in (left, right):
        ax.axvline(0, color="black", linewidth=1, linestyle="--", label=t("nb.06.plot-zero-line"))
        ax.axvline(tests.mean, color=DIFFERENCE, linewidth=1.6, label=t("nb.06.plot-observed-line", mean=tests.mean))
        ax.set(xlabel=t("nb.06.plot-mean-difference-ms"))
        ax.grid(axis="y", alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=1, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def reverse_pass(reverse, name, note=None):
    """Every request of pass `name` (both configs, with `tier` and `read`) on ONE log axis: a strip per config,
    each dot labelled with its document, coloured by its tier; a short line at the median of each tier."""
    fonts.use()
    fig, ax = plt.subplots(figsize=(8, 4.8))
    configs = [config for config in MARKERS if config in set(reverse["config"])]
    for x, config in enumerate(configs):
        for tier, rows in reverse[reverse["config"] == config].groupby("tier"):
            rows = rows.sort_values("read")
            xs = [x + 0.09 * (i - (len(rows) - 1) / 2) for i in range(len(rows))]  # side by side, in read order
            ax.scatter(xs, rows["ttft_ms"], marker=MARKERS[config], s=50, c=TIER_COLORS[tier], edgecolors="black",
                       linewidths=0.4, zorder=3)
            half = max(0.3, 0.05 * len(rows))
            ax.hlines(rows["ttft_ms"].median(), x - half, x + half, color="black", linewidth=1.2, zorder=2)
            for dx, (_, row) in zip(xs, rows.iterrows()):
                ax.annotate(str(row["doc"]), (dx, row["ttft_ms"]), xytext=(0, 7), textcoords="offset points",
                            ha="center", fontsize=7, color="0.25")
    ax.set_yscale("log")
    low, high = reverse["ttft_ms"].min(), reverse["ttft_ms"].max()
    ticks = [v for v in (10, 20, 30, 50, 70, 100, 200, 300, 500, 700, 1000, 2000, 5000, 10000) if low / 1.5 <= v <= high * 1.5]
    ax.set_yticks(ticks)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set(ylim=(low / 1.3, high * 1.3), xlim=(-0.7, len(configs) - 0.3), ylabel=t("nb.06.plot-ms-log"),
           title=t("nb.06.plot-reverse-one-axis", name=name))
    ax.set_xticks(range(len(configs)), configs)
    ax.grid(axis="y", alpha=0.3)
    handles = [Patch(facecolor=TIER_COLORS[tier], edgecolor="black", label=t(TIER_LABELS[tier]))
               for tier in TIER_COLORS if tier in set(reverse["tier"])]
    handles.append(Line2D([], [], color="black", linewidth=1.2, label=t("nb.06.plot-tier-median")))
    handles.append(Line2D([], [], linestyle="", marker="$5$", color="0.25", label=t("nb.06.plot-doc-label")))
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=9)
    _note(fig, note)
    return fig
