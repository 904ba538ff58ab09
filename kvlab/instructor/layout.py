"""Where a hand-in's files are: a folder laid out like the lab's, one of the common wrong layouts (everything
one folder down, the student edition's tree), or a .zip file unpacked safely; then snapshotted.
"""
import os
from pathlib import Path

from . import sandbox
from .judge import SCRIPTS

CLASSES_FILE = SCRIPTS[0]  # kvsim.py: the file that says where a hand-in's lab files are

MOST_ZIP_ENTRIES = 1_000          # entries of a .zip hand-in looked at
MOST_ZIP_BYTES = 50_000_000       # bytes a .zip hand-in may unpack to, all files together
IGNORED_FOLDERS = ("__MACOSX",)   # what archivers add beside the hand-in


class LayoutError(Exception):
    """A hand-in that cannot be unpacked (a bad or oversized .zip): not graded, with these flags."""

    def __init__(self, why, flags=None):
        super().__init__(why)
        self.flags = dict(flags or {})


def is_handin(path):
    """A folder, or a .zip file (which take() unpacks): what `kvlab grade` accepts."""
    path = Path(path)
    return path.is_dir() or (path.is_file() and path.suffix.lower() == ".zip")


def _subfolders(folder):
    """The sub-folders of `folder` a student made (no links, no hidden or archiver folders), at most a few."""
    found = []
    with os.scandir(folder) as entries:
        for count, entry in enumerate(entries):
            if count >= sandbox.MOST_ENTRIES or len(found) > 3:
                break
            if entry.name.startswith(".") or entry.name in IGNORED_FOLDERS or entry.name == "__pycache__":
                continue
            if entry.is_dir(follow_symlinks=False):
                found.append(entry.name)
    return sorted(found)


def _lab_file(path):
    return path.is_file() and not path.is_symlink()


def locate(folder):
    """(where the scripts are, where the artifacts are, {layout flag: detail}) for a hand-in folder.

    The lab's layout: kvsim.py at the top. The student edition's tree: kvlab/kvsim.py, artifacts in
    artifacts/ (flag layout-edition). Everything one folder down (a single sub-folder holding kvsim.py
    or kvlab/kvsim.py, or the only sub-folder of a folder with no lab file at its top): layout-one-down.
    """
    folder = Path(folder)
    found = _at(folder)
    if found[2] or _lab_file(folder / CLASSES_FILE):
        return found
    inner = _subfolders(folder)
    holding = [name for name in inner if _lab_file(folder / name / CLASSES_FILE) or
               _lab_file(folder / name / "kvlab" / CLASSES_FILE)]
    lab_files = any(_lab_file(folder / name) for name in sandbox.LAB_FILES)
    if len(holding) == 1 or (len(inner) == 1 and not lab_files):
        one = holding[0] if len(holding) == 1 else inner[0]
        scripts, artifacts, flags = _at(folder / one)
        return scripts, artifacts, {"layout-one-down": one, **flags}
    return found


def _at(folder):
    """(scripts, artifacts, flags) for `folder` itself: the student edition's tree, else the lab's layout."""
    edition = folder / "kvlab"
    if not _lab_file(folder / CLASSES_FILE) and _lab_file(edition / CLASSES_FILE) and not edition.is_symlink():
        artifacts = folder / "artifacts"
        if artifacts.is_dir() and not artifacts.is_symlink():
            return edition, artifacts, {"layout-edition": "kvlab/, artifacts/"}
        return edition, folder, {"layout-edition": "kvlab/"}
    return folder, folder, {}


def unzip(archive, dest):
    """Unpack a .zip hand-in into `dest` safely: regular files only, no absolute path or `..`, no link,
    at most MOST_ZIP_ENTRIES entries and MOST_ZIP_BYTES bytes in all (counted as read, not as declared)."""
    import stat
    import zipfile
    dest = Path(dest)
    dest.mkdir(mode=0o700)
    skipped = 0
    try:
        with zipfile.ZipFile(archive) as package:
            members = package.infolist()
            if len(members) > MOST_ZIP_ENTRIES:
                raise LayoutError(f"the .zip file holds {len(members):,} entries (at most {MOST_ZIP_ENTRIES:,})",
                                  {"layout-zip": "too many entries"})
            total = 0
            for member in members:
                parts = member.filename.replace("\\", "/").split("/")
                mode = member.external_attr >> 16
                if member.is_dir() or not parts[-1]:
                    continue
                if (member.filename.startswith(("/", "\\")) or any(part in ("..", "") for part in parts)
                        or ":" in parts[0] or stat.S_IFMT(mode) not in (0, stat.S_IFREG)
                        or member.flag_bits & 0x1):
                    skipped += 1  # a path outside the folder, a link, a device, an encrypted file: never written
                    continue
                target = dest.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                with package.open(member) as source, open(target, "xb") as out:
                    while True:
                        chunk = source.read(1 << 16)
                        if not chunk:
                            break
                        total += len(chunk)
                        if total > MOST_ZIP_BYTES:
                            raise LayoutError(f"the .zip file unpacks to more than {MOST_ZIP_BYTES:,} bytes",
                                              {"layout-zip": "too large"})
                        out.write(chunk)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError,
            UnicodeDecodeError, ValueError) as error:
        raise LayoutError(f"the .zip file cannot be unpacked ({type(error).__name__})",
                          {"layout-zip": "not a readable zip"}) from None
    except FileExistsError:
        raise LayoutError("the .zip file names one file twice", {"layout-zip": "a file named twice"}) from None
    return skipped


def take(source, copy, scratch):
    """Snapshot the hand-in `source` (a folder or a .zip file) into `copy`: (Flags, {layout flag: detail}).

    A .zip is unpacked into `scratch` first (flag layout-zip); then the layout is found (locate()).
    """
    source, layout = Path(source), {}
    if source.is_file() and source.suffix.lower() == ".zip":
        skipped = unzip(source, scratch)
        layout["layout-zip"] = source.name + (f" ({skipped} unsafe entries not unpacked)" if skipped else "")
        source = Path(scratch)
    scripts, artifacts, found_layout = locate(source)
    layout.update(found_layout)
    if scripts == artifacts == source:
        return sandbox.snapshot(source, copy), layout
    found = sandbox.snapshot(scripts, copy, only=set(SCRIPTS) if "layout-edition" in layout else None)
    if artifacts != scripts:
        wanted = set(sandbox.LAB_FILES) - set(SCRIPTS) - set(found.copied)
        more = sandbox.snapshot(artifacts, copy, only=wanted)
        for name in ("copied", "symlinks", "too_big", "unreadable"):
            getattr(found, name).extend(getattr(more, name))
    return found, layout
