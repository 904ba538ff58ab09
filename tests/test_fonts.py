"""The figures' font (kvlab/fonts/): a Chinese or Japanese figure draws its labels with no font installed, a missing
or broken font costs one line and never a cell, and a CJK font installed after matplotlib's cache is found.

In-process: each test resets what kvlab.fonts found and restores matplotlib's font list.
"""
import io
import warnings

import pytest

matplotlib = pytest.importorskip("matplotlib")
pytest.importorskip("fontTools")
matplotlib.use("Agg", force=True)

from matplotlib import font_manager  # noqa: E402

from kvlab import fonts  # noqa: E402
from kvlab.i18n import t  # noqa: E402


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """matplotlib's font list and rcParams as they were, kvlab.fonts' findings forgotten, before and after."""
    monkeypatch.setattr(font_manager.fontManager, "ttflist", list(font_manager.fontManager.ttflist))
    monkeypatch.setitem(matplotlib.rcParams, "font.family", list(matplotlib.rcParams["font.family"]))
    font_manager.fontManager._findfont_cached.cache_clear()
    fonts.reset()
    yield
    fonts.reset()
    font_manager.fontManager._findfont_cached.cache_clear()


def no_system_font(monkeypatch):
    """A machine without a CJK font: none of SYSTEM's families, and nothing new among its font files."""
    monkeypatch.setattr(fonts, "SYSTEM", {"zh": ("No Such Font SC",), "ja": ("No Such Font JP",)})
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda fontext="ttf": [])


def drawn(title):
    """A figure with `title` drawn to PNG; the warnings it raised."""
    import matplotlib.pyplot as plt
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", append=True)  # after the filters already set (kvlab.fonts' among them)
        fig, ax = plt.subplots()
        ax.set_title(title)
        fig.savefig(io.BytesIO(), format="png")
        plt.close(fig)
    return [str(warning.message) for warning in caught]


def cmap(path):
    from fontTools.ttLib import TTFont
    return set(TTFont(str(path), lazy=True).getBestCmap())


@pytest.mark.parametrize("language, word", [("zh", "命中"), ("ja", "ヒット")])
def test_without_a_cjk_font_the_shipped_subset_draws_the_labels(language, word, monkeypatch, capsys):
    no_system_font(monkeypatch)
    family = fonts.use(language)
    assert family == [fonts.SHIPPED[language][0], "DejaVu Sans"]
    found = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
    assert found == str(fonts.shipped_path(language))
    assert {ord(char) for char in word} <= cmap(found)          # by the font's character map, not by eye
    assert drawn(t("notebook.plot-tier-gpu", language)) == []  # no "Glyph ... missing" warning
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("damage", ["missing", "unreadable"])
def test_a_missing_or_broken_font_says_so_in_one_line_and_the_figure_is_still_drawn(damage, monkeypatch, tmp_path,
                                                                                     capsys):
    no_system_font(monkeypatch)
    if damage == "unreadable":
        (tmp_path / fonts.SHIPPED["zh"][1]).write_bytes(b"not a font at all")
    monkeypatch.setattr(fonts, "HERE", tmp_path)
    assert fonts.use("zh") == ["DejaVu Sans"]
    assert fonts.use("zh") == ["DejaVu Sans"]  # said once per process, not once per figure
    assert capsys.readouterr().err == t("fonts.none", "zh", file=fonts.SHIPPED["zh"][1]) + "\n"
    assert drawn("命中") == []  # boxes, but no English warning per character and no error


def test_importing_the_plots_never_fails_for_a_font(monkeypatch, tmp_path):
    import importlib

    import kvlab.plots
    no_system_font(monkeypatch)
    monkeypatch.setattr(fonts, "HERE", tmp_path)
    monkeypatch.setenv("KVLAB_LANG", "ja")
    importlib.reload(kvlab.plots)  # fonts.use() at import
    assert matplotlib.rcParams["font.family"] == ["DejaVu Sans"]


def test_a_cjk_font_installed_after_matplotlibs_cache_was_built_is_found_first(monkeypatch, tmp_path):
    """The system's font files are rescanned when none of the language's full fonts is known: here a full font (the
    shipped subset under another name) that the system lists but matplotlib's cache does not hold."""
    from fontTools.ttLib import TTFont
    monkeypatch.setattr(fonts, "SYSTEM", {**fonts.SYSTEM, "zh": ("Installed Later SC",)})
    font = TTFont(str(fonts.shipped_path("zh")))
    for record in font["name"].names:
        if record.nameID in (1, 4):
            record.string = "Installed Later SC"
    installed = tmp_path / "InstalledLater-Regular.ttf"
    font.save(str(installed))
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda fontext="ttf": [str(installed)])
    assert fonts.use("zh") == ["Installed Later SC", "kvlab Sans SC", "DejaVu Sans"]
    found = font_manager.findfont(font_manager.FontProperties(family=fonts.family("zh")), fallback_to_default=False)
    assert found == str(installed)


def test_english_figures_keep_matplotlibs_own_font(monkeypatch):
    before = list(matplotlib.rcParams["font.family"])
    assert fonts.use("en") is None and matplotlib.rcParams["font.family"] == before


def test_the_shipped_fonts_are_renamed_and_carry_their_licence():
    """OFL 1.1: a Modified Version keeps the copyright and licence, ships the licence, and takes a name of its own."""
    from fontTools.ttLib import TTFont
    licence = (fonts.HERE / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "© 2014-2021 Adobe" in licence
    for language, (family, filename, source) in fonts.SHIPPED.items():
        names = {record.nameID: record.toUnicode() for record in TTFont(str(fonts.HERE / filename))["name"].names}
        assert names[1] == family and source not in (names[1], names[4]) and "Source" not in names[1]
        assert "Adobe" in names[0] and "Open Font License" in names[13] and filename in licence
