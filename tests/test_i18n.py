"""The translations: every message of kvlab/messages.py translated, current, and rendered in a font that has it.

A failure here lists the entries to work on. To fix one: `python -m kvlab i18n update` (new ids are added
untranslated, changed English becomes fuzzy with the old English as `#| msgid`), translate the entries in
kvlab/locale/LANG/LC_MESSAGES/kvlab.po, remove their fuzzy flag, and `python -m kvlab i18n status`.
"""
import re
from functools import lru_cache

import pytest

from kvlab import i18n
from kvlab.i18n import LANGS, SOURCE, UNTRANSLATED, Msg, catalog, catalog_path, fields, read_po, t
from kvlab.instructor import documents
from kvlab.instructor.catalogs import everything
from kvlab.messages import MESSAGES

ENTRIES = everything()  # the messages, then each notebook's Markdown cells and the student README's sections

TRANSLATED = [language for language in LANGS if language != SOURCE]


def _forms(value):
    return value if isinstance(value, tuple) else (value,)


def _translation(message_id, language):
    return catalog(language)[message_id].translation[0]


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_cell_and_readme_section_is_translated_from_the_current_english(language):
    left = {}
    entries = catalog(language)
    for message_id, english in ENTRIES.items():
        state = "untranslated" if message_id not in entries else entries[message_id].state(english)
        if state != "ok":
            left.setdefault(state, []).append(message_id)
    listed = "; ".join(f"{state}: {', '.join(ids)}" for state, ids in left.items())
    assert not left, (f"{catalog_path(language)} needs updating ({listed}). Run `python -m kvlab i18n update`, "
                      f"translate these entries, and remove their fuzzy flags.")


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_catalog_holds_no_entry_for_an_id_that_left_messages_py(language):
    obsolete = sorted(set(catalog(language)) - set(ENTRIES))
    assert not obsolete, f"{catalog_path(language)}: obsolete entries {obsolete}: run `python -m kvlab i18n update`"


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translation_has_exactly_the_placeholders_of_its_english(language):
    wrong = []
    for message_id, english in MESSAGES.items():
        if message_id in catalog(language):
            text = _translation(message_id, language)
            if fields(text) not in [fields(form) for form in _forms(english)]:  # a pair: the fields of one form
                wrong.append(f"{message_id}: {fields(text)} for {fields(_forms(english)[-1])}")
    assert not wrong, f"{catalog_path(language)}: placeholders differ from the English: " + "; ".join(wrong)


_UNTOUCHED = re.compile(r"`[^`]+`"                                  # code, as the English quotes it
                        r"|\b[\w.-]+\.(?:py|jsonl|json|ipynb|md)\b"  # file names
                        r"|--[a-z][a-z-]*"                           # options
                        r"|\b[a-z_]+(?:\.[a-z_]+)*\((?!s\))[^()\s]*\)"  # calls: access(key, size) is split, popitem(last=False)
                                                                    # not; tier(s) is a plural
                        r"|\d+(?:[.,]\d+)*")                         # numbers
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@pytest.mark.parametrize("language", TRANSLATED)
def test_numbers_code_and_file_names_are_kept_as_they_are(language):
    wrong = []
    for message_id, english in MESSAGES.items():
        if message_id not in catalog(language):
            continue
        text = _PLACEHOLDER.sub("", _translation(message_id, language))
        kept = {token for form in _forms(english) for token in _UNTOUCHED.findall(_PLACEHOLDER.sub("", form))}
        missing = sorted(token for token in kept if token not in text)
        if missing and not isinstance(english, tuple):
            wrong.append(f"{message_id}: {missing}")
    assert not wrong, f"{catalog_path(language)}: changed or lost: " + "; ".join(wrong)


_FENCED = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\]\(([^)]+)\)")


def _uncommented(block):
    """A shell code block without its comments (`  # ...` to the end of a line): a translation translates them."""
    return "\n".join(re.sub(r"(?:^|\s+)#\s.*$", "", line) for line in block.splitlines())


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translated_cell_keeps_its_code_blocks_code_links_numbers_and_markers(language):
    """Code (a code block's comments excepted), numbers, file names, link targets and solution markers of a Markdown
    cell, a README section or a piece of code text are the English ones."""
    wrong = []
    for entry_id, english in documents.entries().items():
        entry = catalog(language).get(entry_id)
        if entry is None or not entry.translation[0]:
            continue
        text = entry.translation[0]
        if [_uncommented(block) for block in _FENCED.findall(text)] != \
                [_uncommented(block) for block in _FENCED.findall(english)]:
            wrong.append(f"{entry_id}: a code block differs (but for its comments)")
        if documents.markers(text) != documents.markers(english):
            wrong.append(f"{entry_id}: the solution markers differ")
        if sorted(_LINK.findall(text)) != sorted(_LINK.findall(english)):
            wrong.append(f"{entry_id}: a link target differs")
        prose, own = _FENCED.sub("", english), _FENCED.sub("", text)
        missing = sorted({token for token in _UNTOUCHED.findall(prose) if token not in own})
        if missing:
            wrong.append(f"{entry_id}: {missing}")
    assert not wrong, f"{catalog_path(language)}: " + "; ".join(wrong)


def _punctuation(char):
    import unicodedata
    return unicodedata.category(char)[0] in "PS"  # CommonMark 0.31: Unicode punctuation is categories P and S


@pytest.mark.parametrize("language", TRANSLATED)
def test_bold_text_in_a_translation_renders_as_bold(language):
    """CommonMark's rule: `**` that closes after punctuation must be followed by a space or punctuation, and
    `**` that opens before punctuation must follow one. Chinese and Japanese put no spaces between words, so
    `**更慢，**差距` shows its asterisks; `**更慢**，差距` is bold."""
    wrong = []
    for entry_id, entry in catalog(language).items():
        text = entry.translation[0]
        for bold in re.finditer(r"(?<!\*)\*\*(?!\*)([^\n]+?)(?<!\*)\*\*(?!\*)", text):
            inner = bold.group(1)
            before = text[bold.start() - 1] if bold.start() else " "
            after = text[bold.end()] if bold.end() < len(text) else " "
            if _punctuation(inner[-1]) and not (after.isspace() or _punctuation(after)) or \
                    _punctuation(inner[0]) and not (before.isspace() or _punctuation(before)):
                wrong.append(f"{entry_id}: {text[max(0, bold.start() - 3):bold.end() + 3]!r}")
    assert not wrong, f"{catalog_path(language)}: bold that shows its asterisks: " + "; ".join(wrong)


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_count_has_one_form_in_chinese_and_japanese(language):
    pairs = [message_id for message_id, english in MESSAGES.items() if isinstance(english, tuple)]
    assert pairs
    for message_id in pairs:
        params = {name: 7 for name in i18n.placeholders(MESSAGES[message_id])}
        one, other = t(message_id, language, **{**params, "n": 1}), t(message_id, language, **{**params, "n": 2})
        assert not one.startswith(UNTRANSLATED) and one.replace("1", "2") == other.replace("1", "2")


def test_the_language_comes_from_lang_then_kvlab_lang_and_an_unknown_one_is_refused(monkeypatch):
    monkeypatch.setenv("KVLAB_LANG", "ja_JP.UTF-8")
    assert i18n.lang() == "ja" and i18n.lang("zh") == "zh"
    assert Msg("check.steps-ok", ok=3, total=8).render() == t("check.steps-ok", "ja", ok=3, total=8)
    assert t("check.steps-ok", "en", ok=3, total=8) == "3 of 8 steps OK"
    with pytest.raises(i18n.UnknownLanguage):
        i18n.lang("ko")


def test_english_changed_without_its_translations_shows_marked_never_silently(monkeypatch):
    monkeypatch.setitem(MESSAGES, "hint.fifo", "A hit moves the entry to the newest end.")
    monkeypatch.setitem(MESSAGES, "hint.brand-new", "A sentence nobody translated yet.")
    assert i18n.state("hint.fifo", "zh") == "stale"
    assert t("hint.fifo", "zh") == UNTRANSLATED + "A hit moves the entry to the newest end."
    assert t("hint.brand-new", "ja") == UNTRANSLATED + "A sentence nobody translated yet."
    assert t("hint.fifo", "en") == "A hit moves the entry to the newest end."


def test_update_adds_new_ids_marks_changed_english_fuzzy_and_drops_removed_ids(tmp_path):
    pytest.importorskip("polib")
    from kvlab.instructor import catalogs
    before = {"a.same": "Same text.", "a.changed": "Old {n} text.", "a.gone": "Removed.", "a.count": ("{n} hit", "{n} hits")}
    catalogs.update("zh", tmp_path, before)
    path = catalog_path("zh", tmp_path)
    text = path.read_text(encoding="utf-8")
    for message_id, translation in (("a.same", "相同。"), ("a.changed", "旧的 {n} 文字。"), ("a.gone", "删除。")):
        text = text.replace(f'msgctxt "{message_id}"\nmsgid "{before[message_id]}"\nmsgstr ""',
                            f'msgctxt "{message_id}"\nmsgid "{before[message_id]}"\nmsgstr "{translation}"')
    path.write_text(text.replace('msgstr[0] ""', 'msgstr[0] "命中 {n} 次"'), encoding="utf-8")
    after = {"a.same": "Same text.", "a.changed": "New {n} text.", "a.count": ("{n} hit", "{n} hits"), "a.new": "New."}
    changes = catalogs.update("zh", tmp_path, after)
    assert changes == {"added": ["a.new"], "fuzzy": ["a.changed"], "obsolete": ["a.gone"]}
    found = catalogs.status("zh", tmp_path, after)
    assert (found["ok"], found["fuzzy"], found["untranslated"]) == (["a.same", "a.count"], ["a.changed"], ["a.new"])
    written = path.read_text(encoding="utf-8")
    assert '#| msgid "Old {n} text."' in written and 'msgstr "旧的 {n} 文字。"' in written  # the old one, a suggestion
    assert '#~ msgctxt "a.gone"' in written
    assert catalogs.update("zh", tmp_path, after) == {"added": [], "fuzzy": [], "obsolete": []}


def test_the_standard_library_reader_reads_what_polib_reads():
    polib = pytest.importorskip("polib")
    for language in TRANSLATED:
        mine = read_po(catalog_path(language).read_text(encoding="utf-8"))
        theirs = {entry.msgctxt: entry for entry in polib.pofile(str(catalog_path(language))) if not entry.obsolete}
        assert mine.keys() == theirs.keys()
        for message_id, entry in theirs.items():
            english = (entry.msgid, entry.msgid_plural) if entry.msgid_plural else (entry.msgid,)
            translation = (tuple(entry.msgstr_plural[index] for index in sorted(entry.msgstr_plural))
                           if entry.msgid_plural else (entry.msgstr,))
            assert (mine[message_id].english, mine[message_id].translation) == (english, translation), message_id
            assert ("fuzzy" in mine[message_id].flags) == entry.fuzzy


def _font_lacks(language):
    """None, or the failure that names what the shipped font of `language` lacks and the command that cuts it."""
    from kvlab.instructor import fontsubset
    lacking = fontsubset.lacking(language)
    if lacking:
        return (f"the shipped font {fontsubset.SHIPPED[language][1]} lacks {lacking} ({language} figures would show "
                f"boxes): cut it again with `python -m kvlab i18n fonts` (needs fonts-noto-cjk)")
    return None


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_shipped_figures_font_has_every_character_of_the_messages(language):
    """kvlab/fonts/ holds a subset of Noto Sans CJK per language, cut from the catalogs: a message translated with a
    character it lacks would show a box in a figure on a machine without a CJK font of its own."""
    pytest.importorskip("fontTools")
    pytest.importorskip("matplotlib")
    problem = _font_lacks(language)
    assert problem is None, problem


def test_a_character_new_to_the_catalog_is_named_with_the_command_that_cuts_the_font(monkeypatch):
    pytest.importorskip("fontTools")
    pytest.importorskip("matplotlib")
    from kvlab.instructor import fontsubset
    entries = dict(catalog("zh"))
    entries["hint.fifo"] = i18n.Entry("hint.fifo", (MESSAGES["hint.fifo"],), ("命中时把条目移到最新的一端。龘",), frozenset())
    monkeypatch.setattr(fontsubset, "catalog", lambda language: entries)
    problem = _font_lacks("zh")
    assert "lacks 龘 " in problem and "python -m kvlab i18n fonts" in problem


class _FifoCache:
    """An LRUCache that forgets to move a hit (the lab's FIFO pitfall)."""

    def __init__(self, capacity):
        from collections import OrderedDict
        self.capacity, self.entries, self.hits, self.misses = capacity, OrderedDict(), 0, 0

    @property
    def used(self):
        return sum(self.entries.values())

    def __contains__(self, key):
        return key in self.entries

    def keys(self):
        return list(self.entries)

    def access(self, key, size):
        if key in self.entries:
            self.hits += 1
            return True
        self.misses += 1
        if size > self.capacity:
            return False
        while self.used + size > self.capacity:
            self.entries.popitem(last=False)
        self.entries[key] = size
        return False


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_check_table_is_in_the_language_of_kvlab_lang(language, monkeypatch):
    from kvlab import check
    from kvlab.check import labsteps
    monkeypatch.setenv("KVLAB_LANG", language)
    shown = labsteps.table({1: check.lru_cache(_FifoCache)})
    assert t("hint.fifo", language) in shown and t("step.1.title", language) in shown
    assert UNTRANSLATED not in shown and "steps OK" not in shown
    assert not re.search(r"[。：] ", shown), shown  # no space after a Chinese or Japanese full stop or colon


def test_a_stub_names_its_step_in_the_editions_language():
    from kvlab.instructor.release import stub_source
    text = "def access(self, key, size):\n    # Step 1: the LRU rules\n    # BEGIN SOLUTION\n    return True\n    # END SOLUTION\n"
    assert f'raise NotImplementedError("{t("stub.not-written", "zh", step=1, function="access", file="kvsim.py")}")' \
        in stub_source(text, "kvlab/kvsim.py", "zh")
    assert "step 1 is not written yet: access in kvlab/kvsim.py" in stub_source(text, "kvlab/kvsim.py")


@pytest.mark.parametrize("command", [["release", "OUT", "--lang", "zh"], ["notebooks", "--lang", "ja"]])
def test_a_language_with_a_cell_left_to_translate_is_refused_naming_it(command, tmp_path, capsys, monkeypatch):
    from kvlab.cli import main
    monkeypatch.setenv("KVLAB_LANG", "en")  # --lang sets KVLAB_LANG for the process: restored after the test
    left = list(documents.notebook_entries())[3]
    monkeypatch.setattr(documents, "catalog", lambda language: {entry_id: entry for entry_id, entry
                                                                in catalog(language).items() if entry_id != left})
    command = [str(tmp_path / "out") if part == "OUT" else part for part in command]
    with pytest.raises(SystemExit) as stopped:
        main(command)
    error = capsys.readouterr().err
    assert stopped.value.code and "not all translated into" in error and left in error and len(error.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def _without_text(nb):
    """The cells with their Markdown left out and their code reduced to its skeleton (codetext.skeleton)."""
    from kvlab.instructor import codetext
    return [{**cell, "source": None} if cell["cell_type"] == "markdown" else
            {**cell, "source": codetext.skeleton("".join(cell["source"]), strings=True)} for cell in nb["cells"]]


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_translated_notebook_is_the_english_one_but_for_its_text(language):
    """Issue 17's nbval for every language, the first half: the code of the code cells, their stored outputs, the
    metadata and the cell ids of a translated notebook are the English ones; only Markdown and the text in code
    (comments, docstrings, sentences) differ, and every prediction cell's instruction is translated."""
    import json
    for path in documents.notebook_paths():
        english = json.loads(path.read_text(encoding="utf-8"))
        translated = documents.translate_notebook(english, path.stem, language)
        assert translated["metadata"] == english["metadata"]
        assert _without_text(translated) == _without_text(english), path.name
        changed = [cell for cell, old in zip(translated["cells"], english["cells"]) if cell["source"] != old["source"]]
        assert changed and {cell["cell_type"] for cell in changed} == {"markdown", "code"}, path.name
        for cell in translated["cells"]:
            assert "# Your prediction" not in "".join(cell["source"]), (path.name, cell["id"])


def test_the_language_reaches_a_computation_only_through_the_catalog_and_the_figures_font():
    """Issue 17's nbval for every language, the second half: no module a notebook runs asks which language is in
    use except i18n.py (which renders messages) and fonts/ (which picks the figures' font), so a translated
    notebook computes what the English one computes and its outputs differ only in the messages' text."""
    import ast
    from pathlib import Path

    import kvlab
    asks = []
    for path in sorted(Path(kvlab.__file__).parent.rglob("*.py")):
        if "instructor" in path.parts or path.name in ("i18n.py", "cli.py", "nbrun.py") or path.parent.name == "fonts":
            continue  # cli.py and nbrun.py choose the language (--lang): they set it, they do not read it
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
            if name in ("lang", "_edition_default") or (isinstance(node, ast.Constant) and node.value == "KVLAB_LANG"):
                asks.append(f"{path.name}:{node.lineno}")
    assert not asks, f"these ask for the language outside i18n.py and fonts/: {asks}"


# The glossary: the seeds' terms, and none of the calques (kvlab/locale/glossary.toml)

_CODE_SPAN = re.compile(r"`[^`\n]+`")
_QUOTED = re.compile(r"\"[^\"\n]*\"")
_URL = re.compile(r"https?://\S+|\]\([^)]*\)|\{[^{}\n]*\}")  # (and placeholders)
_NAMES = re.compile(r"\b[\w.]*(?:_|\.(?=\w)|\()[\w.()]*|--[\w-]+|\{[^{}]*\}")  # identifiers, calls, options, fields


@lru_cache(maxsize=None)
def glossary():
    import sys
    from pathlib import Path
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return tomllib.loads((Path(i18n.__file__).parent / "locale" / "glossary.toml").read_text(encoding="utf-8"))


def _prose(text):
    """A text without what is not prose: code blocks and spans, quoted strings, URLs, link targets, placeholders."""
    return _URL.sub(" ", _QUOTED.sub(" ", _CODE_SPAN.sub(" ", _FENCED.sub(" ", text))))


def _all_translations(language):
    """[(entry id, English, translation)] of every translated entry of the catalog of `language`."""
    found = []
    for entry_id, english in ENTRIES.items():
        entry = catalog(language).get(entry_id)
        if entry is not None and entry.translation[0]:
            found.append((entry_id, " ".join(_forms(english)), entry.translation[0]))
    return found


def _calques(language, translations):
    """["id: calque (use ...)"] for each glossary `avoid` rule that a translation of `translations` breaks."""
    wrong = []
    rules = [rule for rule in glossary()["avoid"] if rule["lang"] == language]
    assert rules
    for entry_id, english, translation in translations:
        for rule in rules:
            if "when" in rule and not re.search(rule["when"], english, re.IGNORECASE):
                continue
            found = re.search(rule["text"], _prose(translation))
            if found:
                wrong.append(f"{entry_id}: {found.group(0)!r} (use {rule['use']})")
    return wrong


def _terms_missing(language, translations):
    """["id: term (its words)"] for each glossary term the English says and its translation does not."""
    wrong, terms = [], glossary()["term"]
    for entry_id, english, translation in translations:
        prose = _NAMES.sub(" ", _prose(english))
        for term in terms:
            said = re.sub(term["unless"], " ", prose, flags=re.IGNORECASE) if "unless" in term else prose
            if re.search(term["match"], said, re.IGNORECASE):
                if not any(re.search(form, translation) for form in term[language]):
                    wrong.append(f"{entry_id}: {term['en']} ({' / '.join(term[language])})")
    return wrong


@pytest.mark.parametrize("language", TRANSLATED)
def test_no_translation_holds_a_calque_the_glossary_lists(language):
    wrong = _calques(language, _all_translations(language))
    assert not wrong, f"{catalog_path(language)}: calques ({len(wrong)}): " + "; ".join(wrong)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_translation_uses_the_glossarys_terms(language):
    wrong = _terms_missing(language, _all_translations(language))
    assert not wrong, f"{catalog_path(language)}: the glossary's term missing ({len(wrong)}): " + "; ".join(wrong)


SLIPS = [  # issue 24's slips, each planted into the entry it was found in: the glossary tests must name every one
    ("zh", "nb.06.cold-is", "冷的一遍，也就是最先运行的那一遍：**{name}**。"),
    ("zh", "md.01_lru_cache.f85c8f8a", "一个玩具缓存的容量是 10。"),
    ("zh", "nb.04.cpu-zero-same", "{reads} 次读取，两个缓存的回答完全相同；CPU 一级中有 {cpu}"),
    ("zh", "md.06_measured_ttft.nb06-14", "引擎的第一个请求往往很慢，比如启动它的内核。"),
    ("zh", "nb.06.limits", "- 模拟器以文档为单位，没有时间。"),
    ("zh", "nb.06.plot-ms", "首个令牌的时间（ms）"),
    ("zh", "md.06_measured_ttft.nb06-16", "4. 对每一遍，用未经取舍的统计值计算倍率 baseline / lmcache，保留 2 位小数。"),
    ("zh", "md.03_gpu_cliff.9cb7fb3b", "容量分别比总大小少 1 个令牌和比总大小多 1 个令牌。"),
    ("ja", "md.03_gpu_cliff.9cb7fb3b", "合計の1トークン下と1トークン上の容量で"),
    ("zh", "notebook.figure-saved", "已在 artifacts 文件夹中保存 {file}"),
    ("zh", "nb.06.limits", "换一种负载、模型或 GPU，毫秒数会变，ratio 也可能会变。"),
    ("zh", "hint.n-count", "n 是该 config 与 pass 的记录条数。"),
    ("ja", "nb.06.cold-is", "コールドなパス、つまり最初に実行したパス: **{name}**。"),
    ("ja", "md.06_measured_ttft.nb06-00", "各configは10個の文書を3回読みました。"),
    ("ja", "nb.06.limits", "- シミュレーターは文書単位で、時間を持ちません。"),
]


@pytest.mark.parametrize("language, entry_id, slip", SLIPS)
def test_the_glossary_tests_name_each_slip_of_issue_24(language, entry_id, slip):
    english = " ".join(_forms(ENTRIES[entry_id]))
    assert _calques(language, [(entry_id, english, slip)]), slip


def test_a_translation_without_the_seeds_term_is_named():
    english = MESSAGES["nb.06.plot-ms"]
    assert _terms_missing("zh", [("nb.06.plot-ms", english, "首个令牌的时间（ms）")]) and \
        not _terms_missing("zh", [("nb.06.plot-ms", english, "到首个令牌的时间（ms）")])
    assert _terms_missing("ja", [("x", "The second pass's hits.", "2回目のパスの命中数。")])


# Text in code (kvlab/instructor/codetext.py): comments, docstrings and sentences, translated around the same code

_SOURCE = '''"""Module docstring.

    python3 x.py --flag
"""
import os  # noqa: F401 (kept for the student)


def f(a):
    """Say "hi" to `a`, with a \\\\ backslash."""
    # Step 1: the first line of a block
    # and its second line.
    # BEGIN SOLUTION
    return a  # an answer's comment
    # END SOLUTION


print("a sentence a student reads", "upper left")  # NBVAL_IGNORE_OUTPUT
'''


def test_code_text_is_found_translated_and_written_back_around_the_same_code():
    from kvlab.instructor import codetext
    found = codetext.pieces(_SOURCE, strings=True)
    assert [(piece.kind, piece.scope, piece.english) for piece in found] == [
        ("docstring", "", "Module docstring.\n\npython3 x.py --flag"),  # as help() shows it (inspect.cleandoc)
        ("comment", "", "(kept for the student)"),
        ("docstring", "f", 'Say "hi" to `a`, with a \\ backslash.'),
        ("block", "f", "Step 1: the first line of a block\nand its second line."),
        ("comment", "f", "an answer's comment"),
        ("string", "", "a sentence a student reads"),
    ]
    translations = {piece.english: "译：" + piece.english.replace("line.", "行。\n多一行") for piece in found}
    translated = codetext.translate(_SOURCE, lambda piece: translations[piece.english], strings=True)
    assert codetext.skeleton(translated, strings=True) == codetext.skeleton(_SOURCE, strings=True)
    assert [piece.english for piece in codetext.pieces(translated, strings=True)] == list(translations.values())
    assert "# noqa: F401 译：(kept" in translated and "# NBVAL_IGNORE_OUTPUT" in translated
    assert '"upper left"' in translated and "# BEGIN SOLUTION" in translated
    compile(translated, "translated.py", "exec")
    assert codetext.skeleton(translated.replace("return a", "return None")) != codetext.skeleton(_SOURCE)


def test_a_comment_after_code_stays_one_line():
    from kvlab.instructor import codetext
    piece = next(piece for piece in codetext.pieces(_SOURCE) if piece.kind == "comment")
    with pytest.raises(ValueError, match="one line"):
        codetext.render(piece, "两\n行")


def test_the_student_edition_of_a_file_has_no_entry_for_a_solutions_text():
    ids = [entry_id for entry_id in ENTRIES if entry_id.startswith("code.kvsim.")]
    assert "code.kvsim.LRUCache.access.2" in ids  # the Step 1 comment above the region
    assert not any("forgetting this turns LRU into FIFO" in ENTRIES[entry_id] for entry_id in ids)


def test_cjk_lines_are_joined_but_blocks_and_code_are_not():
    text = ("## 标题\n第一行，\n第二行。\n- 一项，\n  续行。\n- 二项\n| a | 表 |\n| b | 格 |\n```bash\n命令 # 注\n释\n```\n"
            "英文 end\n下一行。  \n硬换行\n**答案：**\n后面")
    assert documents.join_cjk_lines(text) == (
        "## 标题\n第一行，第二行。\n- 一项，续行。\n- 二项\n| a | 表 |\n| b | 格 |\n```bash\n命令 # 注\n释\n```\n"
        "英文 end\n下一行。  \n硬换行**答案：**\n后面")
