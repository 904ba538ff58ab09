"""The figures' font for the language in use: Chinese and Japanese labels need a CJK font.

matplotlib draws each character with the first family of `font.family` that has it. For zh and ja the
families are, in this order, those found of:
1. a full CJK font of the language installed on this machine (SYSTEM: Noto Sans CJK, Source Han Sans,
   Microsoft YaHei, Hiragino, ...), so that any character a student types shows too. A font installed after
   matplotlib built its font cache counts: when none is known, the system's font files matplotlib has not
   seen are added, once per process (nobody deletes a cache);
2. the subset shipped in this folder (SHIPPED: kvlab-sans-sc.ttf, kvlab-sans-jp.ttf, cut from Noto Sans CJK
   SC / JP, SIL Open Font License 1.1, OFL.txt): every character of every message in the catalogs, so the
   lab's figures need nothing installed. `python -m kvlab i18n fonts` cuts them again from the catalogs, and
   tests/test_i18n.py names any character a catalog gained that the shipped subset lacks;
3. DejaVu Sans, matplotlib's own (✗, and whatever the others lack).

A missing or unreadable font never stops a cell: when neither 1 nor 2 is usable, one line in the student's
language says so (stderr, once per process) and the figure is drawn with what there is.
Fonts come from this machine and this package, never from the network.
"""
import sys
import warnings
from functools import lru_cache
from pathlib import Path

from ..i18n import lang, t

HERE = Path(__file__).resolve().parent
FALLBACK = "DejaVu Sans"
# language: (the shipped subset's family, its file here, the family it was cut from)
SHIPPED = {"zh": ("kvlab Sans SC", "kvlab-sans-sc.ttf", "Noto Sans CJK SC"),
           "ja": ("kvlab Sans JP", "kvlab-sans-jp.ttf", "Noto Sans CJK JP")}
# Full fonts of the language's glyph forms (Simplified Chinese, Japanese), the first one found is used.
SYSTEM = {
    "zh": ("Noto Sans CJK SC", "Source Han Sans SC", "Source Han Sans CN", "Noto Sans SC", "Microsoft YaHei",
           "PingFang SC", "Hiragino Sans GB", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei"),
    "ja": ("Noto Sans CJK JP", "Source Han Sans JP", "Source Han Sans", "Noto Sans JP", "IPAexGothic",
           "IPAGothic", "Hiragino Sans", "Hiragino Kaku Gothic ProN", "Yu Gothic", "Meiryo", "TakaoGothic"),
}


def shipped_path(language):
    """The file of the subset shipped for `language` (None for English)."""
    return HERE / SHIPPED[language][1] if language in SHIPPED else None


def _known():
    from matplotlib import font_manager
    return {entry.name for entry in font_manager.fontManager.ttflist}


@lru_cache(maxsize=None)
def _rescan():
    """Add the system's font files that matplotlib's font cache does not hold (installed after it was built)."""
    from matplotlib import font_manager
    seen = {entry.fname for entry in font_manager.fontManager.ttflist}
    try:
        found = font_manager.findSystemFonts(fontext="ttf")  # .ttf, .otf and .ttc
    except Exception:  # noqa: BLE001 (no fc-list, an unreadable folder: the fonts known are what there is)
        return 0
    added = 0
    for path in found:
        if path not in seen:
            try:
                font_manager.fontManager.addfont(path)
                added += 1
            except Exception:  # noqa: BLE001 (a file FreeType cannot read is not a font to use)
                continue
    return added


def system_family(language):
    """The first full CJK font of `language` on this machine, else None (rescanning the system's fonts once)."""
    for attempt in range(2):
        known = _known()
        found = next((name for name in SYSTEM.get(language, ()) if name in known), None)
        if found or attempt or not _rescan():
            return found
    return None


@lru_cache(maxsize=None)
def _shipped_family(language):
    """Register the shipped subset with matplotlib (no cache involved); its family, or None if unusable."""
    from matplotlib import font_manager
    name, _, _ = SHIPPED[language]
    path = str(shipped_path(language))
    if not any(entry.fname == path for entry in font_manager.fontManager.ttflist):
        try:
            font_manager.fontManager.addfont(path)
        except Exception:  # noqa: BLE001 (missing or damaged: the figures are drawn with what there is)
            return None
    return name if name in _known() else None


@lru_cache(maxsize=None)
def _families(language):
    if language not in SHIPPED:
        return None
    chosen = [found for found in (system_family(language), _shipped_family(language)) if found]
    if not chosen:
        print(t("fonts.none", language, file=SHIPPED[language][1]), file=sys.stderr)
        # matplotlib would add a warning in English for every character it cannot draw: the line above says it
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
    return [*chosen, FALLBACK]


def family(language=None):
    """matplotlib's font.family for `language`: [system CJK font, shipped subset, DejaVu Sans] as found; None
    for English."""
    found = _families(lang(language))
    return list(found) if found else None


def reset():
    """Forget what was found (after fonts were installed or removed in this process)."""
    _rescan.cache_clear()
    _shipped_family.cache_clear()
    _families.cache_clear()


def use(language=None):
    """Set matplotlib's font for `language` (the language in use by default); return the family set.

    Never raises for a missing font: see the module's docstring."""
    chosen = family(language)
    if chosen is None:
        return None  # English: matplotlib's own settings stay as they are
    import matplotlib
    matplotlib.rcParams["font.family"] = chosen
    return chosen
