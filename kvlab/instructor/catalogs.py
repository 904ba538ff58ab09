"""Keep the translations in step with messages.py: `kvlab i18n update` and `kvlab i18n status`.

The entries are the messages of messages.py and the documents (documents.py: each notebook's Markdown
cell and each section of the student README).

update: every language's catalog (kvlab/locale/LANG/LC_MESSAGES/kvlab.po) gets each new message id
as an untranslated entry; an entry whose English changed gets the new English, the flag fuzzy and the
old English as `#| msgid` (its translation stays, as a suggestion to check); an entry whose id left
messages.py becomes obsolete (#~). Entries follow messages.py's order. Translations are never invented.

status: per language, how many entries are translated, fuzzy, stale (English changed, catalog not yet
updated), untranslated or obsolete, and the ids to work on; exit status 1 if any is left.

Writing catalogs needs polib (pip install polib, or kvlab[zh] or kvlab[ja]); reading them (kvlab.i18n) does not.
"""
from ..errors import UserError
from ..i18n import LANGS, LOCALE, NAMES, SOURCE, catalog, catalog_path, fields
from ..messages import MESSAGES
from . import documents


def everything():
    """{id: English} of every catalog entry: the messages, then the notebooks' Markdown and the README."""
    return {**MESSAGES, **documents.entries()}


HEADER = {
    "Project-Id-Version": "kvlab",
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=1; plural=0;",  # Chinese and Japanese: one form for every count
}


def _polib():
    try:
        import polib
    except ModuleNotFoundError:
        raise UserError("updating catalogs needs polib: pip install polib (or kvlab[zh], kvlab[ja])") from None
    return polib


def _flags(english):
    texts = english if isinstance(english, tuple) else (english,)
    return ["python-brace-format"] if any(fields(one) for one in texts) else []


def _english(entry):
    return (entry.msgid, entry.msgid_plural) if entry.msgid_plural else entry.msgid


def update(language, locale=None, messages=None):
    """Bring one catalog up to date with `messages`; {"added", "fuzzy", "obsolete"}: ids."""
    polib = _polib()
    messages = everything() if messages is None else messages
    path = catalog_path(language, locale)
    old = polib.pofile(str(path), wrapwidth=100) if path.exists() else polib.POFile(wrapwidth=100)
    by_id = {entry.msgctxt: entry for entry in old if entry.msgctxt and not entry.obsolete}
    new = polib.POFile(wrapwidth=100)
    new.metadata = {**HEADER, "Language": language, **{k: v for k, v in old.metadata.items() if k not in HEADER}}
    new.metadata["Language"] = language
    new.header = f"kvlab's messages (kvlab/messages.py), notebooks and student README in {NAMES.get(language, language)}."
    changes = {"added": [], "fuzzy": [], "obsolete": []}
    for message_id, english in messages.items():
        one, other = english if isinstance(english, tuple) else (english, None)
        entry = by_id.pop(message_id, None)
        if entry is None:
            entry = polib.POEntry(msgctxt=message_id, msgid=one)
            if other is not None:
                entry.msgid_plural, entry.msgstr_plural = other, {0: ""}
            changes["added"].append(message_id)
        elif _english(entry) != english:
            entry.previous_msgid = entry.msgid
            if entry.msgid_plural:
                entry.previous_msgid_plural = entry.msgid_plural
            translation = entry.msgstr_plural.get(0, "") if entry.msgid_plural else entry.msgstr
            entry.msgid = one
            entry.msgid_plural = other or ""
            if other is not None:
                entry.msgstr, entry.msgstr_plural = "", {0: translation}
            else:
                entry.msgstr, entry.msgstr_plural = translation, {}
            if translation:  # an untranslated entry stays untranslated, with the new English
                if "fuzzy" not in entry.flags:
                    entry.flags.append("fuzzy")
                changes["fuzzy"].append(message_id)
        entry.flags = [flag for flag in entry.flags if flag == "fuzzy"] + _flags(english)
        if "fuzzy" not in entry.flags:  # translated again: the old English has served its purpose
            entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
        entry.occurrences = []
        new.append(entry)
    for message_id, entry in by_id.items():
        entry.obsolete = True
        new.append(entry)
        changes["obsolete"].append(message_id)
    new.extend(entry for entry in old if entry.obsolete and entry.msgctxt not in messages)
    path.parent.mkdir(parents=True, exist_ok=True)
    new.save(str(path))
    catalog.cache_clear()
    return changes


def status(language, locale=None, messages=None):
    """{"ok", "fuzzy", "stale", "untranslated", "obsolete"}: ids, for one catalog."""
    messages = everything() if messages is None else messages
    entries = catalog(language, locale)
    found = {"ok": [], "fuzzy": [], "stale": [], "untranslated": [], "obsolete": []}
    for message_id, english in messages.items():
        entry = entries.get(message_id)
        found["untranslated" if entry is None else entry.state(english)].append(message_id)
    found["obsolete"] = [message_id for message_id in entries if message_id not in messages]
    return found


def add_arguments(parser):
    parser.add_argument("action", choices=("update", "status", "fonts"),
                        help="update: bring the catalogs up to date with messages.py; status: list what to translate; "
                             "fonts: cut the figures' fonts (kvlab/fonts/) from the catalogs")
    parser.add_argument("--lang", action="append", choices=[one for one in LANGS if one != SOURCE],
                        help="only this language (repeatable; default: every language but English)")
    parser.add_argument("--all", action="store_true", help="status: list every id to work on, not the first 20")
    parser.add_argument("--source", metavar="FILE",
                        help="fonts: the Noto Sans CJK .ttc or .otf to cut from (default: found among this machine's "
                             "fonts; apt-get install fonts-noto-cjk)")


def run(args):
    languages = args.lang or [one for one in LANGS if one != SOURCE]
    if args.action == "fonts":
        from . import fontsubset
        for path, size, count in fontsubset.write(getattr(args, "source", None), languages):
            print(f"{path.relative_to(LOCALE.parent.parent)}: {count} characters, {size / 1024:.0f} KiB")
        return 0
    left, known = 0, len(everything())
    for language in languages:
        shown = catalog_path(language).relative_to(LOCALE.parent.parent)
        if args.action == "update":
            changes = update(language)
            print(f"{shown}: {len(changes['added'])} added, {len(changes['fuzzy'])} fuzzy (English changed), "
                  f"{len(changes['obsolete'])} obsolete")
        found = status(language)
        todo = found["untranslated"] + found["fuzzy"] + found["stale"]
        left += len(todo)
        print(f"{shown}: {len(found['ok'])} of {known} translated; {len(found['fuzzy'])} fuzzy, "
              f"{len(found['stale'])} stale, {len(found['untranslated'])} untranslated, "
              f"{len(found['obsolete'])} obsolete")
        for kind in ("stale", "fuzzy", "untranslated"):
            ids = found[kind] if args.all else found[kind][:20]
            for message_id in ids:
                print(f"  {kind:<12} {message_id}")
            if len(found[kind]) > len(ids):
                print(f"  ... and {len(found[kind]) - len(ids)} more {kind} (--all lists them)")
        if found["stale"]:
            print("  stale entries: run `python -m kvlab i18n update`, then translate the fuzzy ones")
    return 1 if left else 0
