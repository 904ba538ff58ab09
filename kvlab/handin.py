"""Fill a hand-in folder the way the lab lays it out (`kvlab handin DIR`, e.g. /root/kvlab).

The three scripts are the lab's reference scripts, the six JSON files are what they give
(kvlab.artifacts), and ttft.jsonl is the measured file, unchanged. A file already there with other
content is the student's work: nothing is written unless `force` says to overwrite it.
"""
from pathlib import Path

from . import artifacts, summarize

PACKAGE = Path(__file__).resolve().parent
SCRIPTS = ("kvsim.py", "scenario.py", "summarize.py")


class HandinError(ValueError):
    """Why the folder was not filled; nothing was written."""


def planned(ttft=None):
    """{file name: bytes} for the hand-in, in the lab's order: scripts, six JSON files, ttft.jsonl."""
    ttft = Path(ttft or artifacts.ttft_source())
    files = {name: (PACKAGE / name).read_bytes() for name in SCRIPTS}
    files.update({name: text.encode("utf-8") for name, text in artifacts.contents(ttft).items()})
    files["ttft.jsonl"] = ttft.read_bytes()
    return files


def handin(folder, force=False, ttft=None):
    """Write the hand-in into `folder`; [(path, "wrote" | "unchanged")] in order.

    Raises HandinError, before writing anything, if a file there has other content and not `force`.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise HandinError(f"{folder} is a file, not a folder")
    try:
        files = planned(ttft)
    except summarize.InputError as error:
        raise HandinError(str(error)) from None
    except OSError as error:
        raise HandinError(f"{error.filename}: {error.strerror}") from None
    folders = [name for name in files if (folder / name).is_dir()]
    if folders:
        raise HandinError(f"{folder} has folders named {', '.join(folders)}; nothing was written")
    differ = [name for name, data in files.items() if (folder / name).is_file() and (folder / name).read_bytes() != data]
    if differ and not force:
        raise HandinError(f"{folder} already has {', '.join(differ)} with other content; nothing was written "
                          "(--force overwrites them)")
    folder.mkdir(parents=True, exist_ok=True)
    done = []
    for name, data in files.items():
        path = folder / name
        if path.is_file() and path.read_bytes() == data:
            done.append((path, "unchanged"))
        else:
            summarize.write_atomically(path, data)
            done.append((path, "wrote"))
    return done
