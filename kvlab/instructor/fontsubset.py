"""`python -m kvlab i18n fonts`: cut the figures' fonts (kvlab/fonts/kvlab-sans-sc.ttf, -jp.ttf) from the catalogs.

A figure draws only the catalog's messages (titles, labels, legends, notes) and numbers, so each language's
font holds exactly: every character of every message translation of that language, every character of the
English messages, printable ASCII, and the few signs figures draw themselves (EXTRA: the minus sign of
negative ticks, ×, …). The glyphs come from Noto Sans CJK SC (zh) and Noto Sans CJK JP (ja), SIL Open Font
License 1.1: the Debian package fonts-noto-cjk, any NotoSansCJK*.ttc / .otf given with --source. The subset is
a Modified Version under the OFL, so it is renamed (kvlab Sans SC / JP; the upstream fonts' names, and the
"Source" reserved by Adobe's Source Han Sans, are not used), keeps the copyright and licence records of the
source, and ships with OFL.txt. Outlines become TrueType (quadratic) curves, so that every matplotlib backend
(PNG, PDF, PS, SVG) embeds them; hinting and layout tables go (matplotlib uses neither).

Needs fontTools (a dependency of matplotlib; listed in the test extra), only here: the student's machine
reads the .ttf files with matplotlib alone. The output is the same bytes for the same catalogs and source.
"""
import io
from pathlib import Path

from ..errors import UserError
from ..fonts import HERE as FONTS, SHIPPED
from ..i18n import catalog
from ..messages import MESSAGES

EXTRA = "−×·…–—‘’“”≈≤≥→←±°µσ√✓✗"   # signs the figures and tick labels draw besides the messages
CANDIDATES = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Regular.otf", "NotoSansCJKsc-Regular.otf",
              "NotoSansCJKjp-Regular.otf")
FAMILY_RECORDS = (1, 2, 3, 4, 6, 16, 17, 21, 22)  # the names the subset gets anew (OFL: no Reserved Font Name)


def characters(language):
    """The set of characters the `language` font must hold (whitespace left out)."""
    texts = [one for english in MESSAGES.values() for one in (english if isinstance(english, tuple) else (english,))]
    texts += [one for message_id, entry in catalog(language).items() if message_id in MESSAGES
              for one in entry.translation]
    texts += [EXTRA, "".join(chr(code) for code in range(0x21, 0x7F))]
    return {char for text in texts for char in text if not char.isspace() and char.isprintable()}


def find_source(given=None):
    """The Noto Sans CJK file to cut from: `given`, else one of this machine's fonts (fontconfig's folders)."""
    if given:
        path = Path(given)
        if not path.is_file():
            raise UserError(f"--source {given}: no such file")
        return path
    from matplotlib import font_manager
    for path in sorted(font_manager.findSystemFonts(fontext="ttf")):
        if Path(path).name in CANDIDATES:
            return Path(path)
    raise UserError("no Noto Sans CJK font on this machine to cut the figures' fonts from: install it "
                    "(apt-get install fonts-noto-cjk) or give one with --source FILE (a NotoSansCJK .ttc or .otf)")


def _face(source, family):
    from fontTools.ttLib import TTCollection, TTFont
    faces = TTCollection(str(source)).fonts if str(source).lower().endswith(".ttc") else [TTFont(str(source))]
    for face in faces:
        if face["name"].getDebugName(1) == family:
            return face
    raise UserError(f"{source} has no face named {family}")


def _to_truetype(font):
    """CFF outlines to TrueType ones (as fontTools' otf2ttf snippet does)."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import newTable

    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    quadratic = {}
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))
        quadratic[name] = pen.glyph()
    font["loca"] = newTable("loca")
    font["glyf"] = glyf = newTable("glyf")
    glyf.glyphOrder, glyf.glyphs = order, quadratic
    del font["CFF "]
    glyf.compile(font)
    for name in order:  # left side bearings from the new outlines
        glyph = glyf[name]
        font["hmtx"][name] = (font["hmtx"][name][0], getattr(glyph, "xMin", 0))
    maxp = font["maxp"] = newTable("maxp")
    maxp.tableVersion = 0x00010000
    for field in ("maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs",
                  "maxStackElements", "maxSizeOfInstructions", "maxComponentElements"):
        setattr(maxp, field, 1 if field == "maxZones" else 0)
    post = font["post"]
    post.formatType, post.extraNames, post.mapping, post.glyphOrder = 3.0, [], {}, None
    font.sfntVersion = "\x00\x01\x00\x00"


def _rename(font, family, source_family, version):
    name = font["name"]
    name.names = [record for record in name.names if record.nameID not in FAMILY_RECORDS and record.platformID == 3]
    postscript = family.replace(" ", "") + "-Regular"
    for name_id, text in ((1, family), (2, "Regular"), (3, f"{postscript};{version}"), (4, family),
                          (6, postscript),
                          (10, f"A subset of {source_family} {version} for kvlab's figures: the characters of "
                               "kvlab's messages. Cut by `python -m kvlab i18n fonts`.")):
        name.setName(text, name_id, 3, 1, 0x409)


def cut(language, source):
    """The subset font of `language` as bytes."""
    from fontTools import subset

    family, _, source_family = SHIPPED[language]
    font = _face(source, source_family)
    version = font["name"].getDebugName(5).split(";")[0].replace("Version ", "")
    options = subset.Options()
    options.layout_features = []
    options.hinting = False
    options.desubroutinize = True
    options.notdef_outline = True
    options.name_IDs = ["*"]
    options.name_languages = [0x409]
    options.drop_tables += ["VORG", "vhea", "vmtx", "BASE", "GDEF", "GPOS", "GSUB", "DSIG"]
    wanted = characters(language)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(char) for char in wanted))
    subsetter.subset(font)
    _to_truetype(font)
    _rename(font, family, source_family, version)
    font.recalcTimestamp = False  # the source's dates: the same input gives the same bytes
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def write(source=None, languages=None, folder=FONTS):
    """Cut and write each language's font into `folder`; [(path, size in bytes, characters held)]."""
    try:
        import fontTools  # noqa: F401
    except ModuleNotFoundError:
        raise UserError("cutting the fonts needs fontTools: pip install fonttools (or -e '.[test]')") from None
    source = find_source(source)
    written = []
    for language in languages or SHIPPED:
        data = cut(language, source)
        path = Path(folder) / SHIPPED[language][1]
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(data)
        temporary.replace(path)
        written.append((path, len(data), len(held(path))))
    return written


def held(path):
    """The code points a font file maps (its cmap)."""
    from fontTools.ttLib import TTFont
    return set(TTFont(str(path), lazy=True).getBestCmap())


def lacking(language, path=None):
    """The characters `language`'s figures draw that neither the shipped font nor DejaVu Sans has, sorted."""
    from matplotlib import font_manager

    have = held(path or FONTS / SHIPPED[language][1])
    have |= held(font_manager.findfont("DejaVu Sans", fallback_to_default=False))
    return "".join(sorted(char for char in characters(language) if ord(char) not in have))
