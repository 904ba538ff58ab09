"""Writing files for kvlab's tools: a set of files into a folder all or nothing (`kvlab handin` in both editions,
`kvlab artifacts`), and one file whole or not at all (the gradebooks, the measured files and their settings).

A file already there with other content is somebody's work (a student's own cyclic.json in /root/kvlab):
nothing is written unless `force` says to overwrite it. Standard library only, and no student code: a
student's broken script must not stop their hand-in.
"""
import errno
import os
import stat
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
    """Write `data` (bytes or text) to a file whole or not at all: a temporary file beside it, then one rename.

    A symbolic link is written through: the file it points to is replaced, the link stays. A folder, a
    read-only file or anything else that is not a regular file is refused (Refused, an OSError naming it).
    The new file gets the permissions open() would give it (0666 minus the umask).
    """
    target = Path(os.path.realpath(path))
    if target.is_symlink():
        raise Refused(path, "is a symbolic link that leads nowhere (a loop); not replacing it")
    if not target.parent.is_dir():
        raise Refused(path, f"the folder {target.parent} does not exist")
    if target.is_dir():
        raise Refused(path, "is a folder, not a file")
    if target.exists():
        mode = target.stat().st_mode
        if not stat.S_ISREG(mode):
            raise Refused(path, "is not a regular file; not replacing it")
        if not mode & 0o222 or not os.access(target, os.W_OK):  # root may write anything: ask the bits too
            raise Refused(path, "is read-only; not replacing it")
    data = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:64]}-", suffix=".tmp")  # a name of 255 bytes too
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's file is private (0600); give it a new file's mode
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


class Refused(OSError):
    """A file kvlab will not write: errno EPERM, the reason as strerror, the path as filename."""

    def __init__(self, path, reason):
        super().__init__(errno.EPERM, reason, str(path))

    def __str__(self):
        return f"{self.filename}: {self.strerror}"
