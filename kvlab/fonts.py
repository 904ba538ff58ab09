"""The figures' font for the language in use: Chinese and Japanese labels need a CJK font.

Fonts come from this machine, never from the network at run time:
- zh: Noto Sans CJK SC (Simplified Chinese glyph forms), Debian's fonts-noto-cjk (apt-get install
  fonts-noto-cjk). The pip alternative, mplfonts, is an 85 MB wheel.
- ja: IPAexGothic (Japanese glyph forms), the pip package matplotlib-fontja (a 4 MB wheel; kvlab[ja]).
DejaVu Sans, matplotlib's own font, follows as a fallback for what a CJK font lacks (✓, ✗, ×).
tests/test_i18n.py checks that every character of every translation is in one of the two.
"""
from .errors import UserError
from .i18n import lang

FALLBACK = "DejaVu Sans"
FONTS = {
    "zh": ("Noto Sans CJK SC", "install the Debian package fonts-noto-cjk (apt-get install fonts-noto-cjk); "
                               "matplotlib 3.10 or later reads its Simplified Chinese face"),
    "ja": ("IPAexGothic", "pip install 'kvlab[ja]' (it installs matplotlib-fontja)"),
}


def family(language=None):
    """matplotlib's font.family for `language`: [its CJK font, DejaVu Sans], or None for English."""
    language = lang(language)
    return [FONTS[language][0], FALLBACK] if language in FONTS else None


def path(language=None):
    """The file of the language's CJK font (None for English); UserError naming how to install it if missing."""
    language = lang(language)
    if language not in FONTS:
        return None
    name, how = FONTS[language]
    from matplotlib import font_manager
    if language == "ja":
        try:
            from matplotlib_fontja import get_font_ttf_path
        except ModuleNotFoundError:
            raise UserError(f"Japanese figures need the font {name}: {how}") from None
        font_manager.fontManager.addfont(get_font_ttf_path())
    try:
        return font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
    except ValueError:
        raise UserError(f"figures in {language} need the font {name}: {how}") from None


def use(language=None):
    """Set matplotlib's font for `language` (the language in use by default); return the family set."""
    chosen = family(language)
    if chosen is None:
        return None  # English: matplotlib's own settings stay as they are
    import matplotlib
    path(language)  # registers the font, or says how to install it
    matplotlib.rcParams["font.family"] = chosen
    return chosen
