"""Writing a set of files into a folder all or nothing: `kvlab handin` (both editions) and `kvlab artifacts`.

A file already there with other content is somebody's work (a student's own cyclic.json in /root/kvlab):
nothing is written unless `force` says to overwrite it. Standard library only, and no student code: a
student's broken script must not stop their hand-in.
"""
import os
import tempfile
from pathlib import Path

from .errors import UserError
from .i18n import t


def write_files(folder, files, force=False):
    """Write {name: bytes} into `folder`: [(path, "wrote" | "unchanged")], in the order of `files`.

    Refuses, before writing anything, when `folder` is a file, when a name is a folder there, or when a
    file there has other content and not `force`.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise UserError(t("handin.not-a-folder", folder=folder))
    folders = [name for name in files if (folder / name).is_dir()]
    if folders:
        raise UserError(t("handin.folders-in-the-way", folder=folder, names=", ".join(folders), n=len(folders)))
    differ = [name for name, data in files.items()
              if (folder / name).is_file() and (folder / name).read_bytes() != data]
    if differ and not force:
        raise UserError(t("handin.other-content", folder=folder, names=", ".join(differ), n=len(differ)))
    folder.mkdir(parents=True, exist_ok=True)
    done = []
    for name, data in files.items():
        path = folder / name
        if path.is_file() and path.read_bytes() == data:
            done.append((path, "unchanged"))
        else:
            write_atomically(path, data)
            done.append((path, "wrote"))
    return done


def write_atomically(path, data):
    """Write bytes to `path` whole or not at all: a temporary file beside it, then one rename."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:64]}-", suffix=".tmp")  # a name of 255 bytes too
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's file is private (0600); give it a new file's mode
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
