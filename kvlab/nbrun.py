"""Run the lab's notebooks headless, each in a fresh python3 kernel started in the notebook's folder.

    python -m kvlab notebooks            # executed copies go to OUT/notebooks/; the stored ones stay as they are
    python -m kvlab notebooks --inplace  # maintainers: refresh the stored outputs (from the stand-in, as CI checks)

Several notebooks run at once (one per CPU), but each reports in the order given. Every notebook runs to
its end and its executed copy is written, failing cells included; then each failed cell is one line
(notebook, cell, what failed) and the command exits non-zero. A failed cell is an error output, or a
one-line outcome that kvlab.notebook marked as failed in the output's metadata (a student's crash, a
cell that is not Python, a file left alone). A copy that would replace a different file in OUT/notebooks
(not what kvlab wrote there last) is left alone unless --force, which also reaches the kernels
(KVLAB_FORCE=1) for the artifacts. nbclient and nbformat are imported only when a notebook runs, so
`import kvlab` stays light.
"""
import os
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from . import paths
from .errors import UserError
from .i18n import t

NOTEBOOKS, notebook_paths = paths.NOTEBOOKS, paths.notebook_paths
KERNEL = "python3"


class NotebookError(UserError):
    """A notebook that could not be run or saved, or cells that failed; one line."""


class Run(NamedTuple):
    """One notebook's run: the executed notebook (None if it could not start), failures (lines), seconds."""
    notebook: object
    failures: list
    seconds: float


def kernel_env(out=None, stand_in=False, force=False):
    """This process's environment, with the artifacts folder and (for stored outputs) the stand-in measurement."""
    env = dict(os.environ)
    out = out or env.get("KVLAB_OUT")
    if out:  # absolute: the kernel runs in the notebooks' folder, not here
        env["KVLAB_OUT"] = str(Path(out).resolve())
    if stand_in:
        env["KVLAB_TTFT"] = str(paths.STAND_IN_TTFT)
    if force:
        env["KVLAB_FORCE"] = "1"
    env["KVLAB_UNATTENDED"] = "1"  # kvlab.timeline.UNATTENDED: no slider in a run nobody watches
    return env


def failures(notebook, name):
    """One line per failed cell of an executed notebook: error outputs and outcomes marked as failed."""
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = (output.get("evalue") or "").strip().splitlines()
                error = f"{output.get('ename')}: {message[0]}" if message else output.get("ename", "")
                found.append(t("notebook.run-cell-failed", notebook=name, cell=index + 1, error=error))
            elif output.get("metadata", {}).get("kvlab", {}).get("failed"):
                text = output.get("data", {}).get("text/plain", "")
                text = "".join(text) if isinstance(text, list) else text
                found.append(t("notebook.run-cell-failed", notebook=name, cell=index + 1, error=text.strip()))
    return found


def execute(path, env=None, timeout=300, translate=None):
    """Run every cell of the notebook at `path`, going on past failing cells; return a Run.

    `translate(notebook, path)`, if given, gives the notebook to run instead (its Markdown in another
    language: the code cells are the same). Raises NotebookError only for a file that is not a readable notebook.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    path = Path(path)
    start = time.perf_counter()
    try:
        notebook = nbformat.read(path, as_version=4)
    except OSError as error:
        raise NotebookError(f"{path}: {error.strerror}") from None
    except Exception as error:  # not JSON, or not a notebook
        raise NotebookError(t("notebook.run-unreadable", notebook=path, error=type(error).__name__)) from None
    if translate is not None:
        notebook = nbformat.from_dict(translate(notebook, path))
    # No timing metadata: re-running gives the same file. "immediate": no waiting for a polite kernel shutdown.
    client = NotebookClient(notebook, kernel_name=KERNEL, timeout=timeout, record_timing=False, allow_errors=True,
                            kernel_manager_class=_unix_sockets(),
                            shutdown_kernel="immediate", resources={"metadata": {"path": str(path.parent.resolve())}})
    current = {"index": 0}
    client.on_cell_start = lambda cell, cell_index: current.update(index=cell_index)
    stopped = []
    try:
        client.execute(env=env if env is not None else dict(os.environ), **_encryption())
    except CellTimeoutError:
        stopped.append(t("notebook.run-cell-timeout", notebook=path.name, cell=current["index"] + 1, seconds=timeout))
    except DeadKernelError:
        stopped.append(t("notebook.run-kernel-died", notebook=path.name, cell=current["index"] + 1))
    except Exception as error:  # e.g. the kernel could not start
        from .cli import debugging
        if debugging() and not isinstance(error, RuntimeError):
            raise
        stopped.append(t("notebook.run-not-started", notebook=path.name, error=f"{type(error).__name__}: {error}"))
    return Run(notebook, failures(notebook, path.name) + stopped, time.perf_counter() - start)


def _unix_sockets():
    """A kernel manager whose kernel talks over Unix sockets, not TCP ports.

    Kernels started at once (two test workers, `--jobs`, or nbval beside us) could otherwise choose the
    same free port between choosing and binding it, and the kernel that lost would never answer.
    The sockets' paths are absolute (the kernel runs in the notebook's folder, we do not).
    """
    import uuid

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class UnixSockets(AsyncKernelManager):
        @default("transport")
        def _default_transport(self):
            return "ipc"

        @default("ip")
        def _default_ip(self):
            return os.path.join(tempfile.gettempdir(), f"kvlab-kernel-{uuid.uuid4().hex}")
    return UnixSockets


def _encryption():
    """Encrypted kernel transport where jupyter_client and the kernel support it (and no warning that it is not)."""
    from jupyter_client.manager import KernelManager

    return {"transport_encryption": "auto"} if KernelManager.class_traits().get("transport_encryption") else {}


def run_notebooks(notebooks, out=None, inplace=False, report=print, jobs=None, force=False, translate=None):
    """Execute the notebooks, `jobs` at a time (default: one per CPU); save each in place or as OUT/notebooks/NAME.

    `translate`: as for execute() (the instructor's notebooks run in another language).
    Every notebook runs and is saved, failing cells included. Reports one line per notebook, in the order
    given, and one per failed cell; raises NotebookError at the end if any cell failed.
    """
    from concurrent.futures import ThreadPoolExecutor

    notebooks = [Path(path) for path in notebooks]
    if not notebooks:
        raise NotebookError(t("notebook.run-none", folder=NOTEBOOKS))
    env = kernel_env(out, stand_in=inplace, force=force)
    copies = paths.out_dir(env.get("KVLAB_OUT")) / "notebooks"
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(notebooks)))
    failed = []
    with ThreadPoolExecutor(jobs) as pool:  # each notebook has its own kernel process; threads only wait
        runs = [pool.submit(_run_one, path, env, path if inplace else copies / path.name, inplace or force, translate)
                for path in notebooks]
        for path, done in zip(notebooks, runs):
            try:
                lines, seconds = done.result()
            except NotebookError as error:
                lines, seconds = [str(error)], 0.0
            report(t("notebook.run-took", notebook=f"{path.name:<24}", seconds=f"{seconds:5.1f}"))
            for line in lines:
                report(line)
            failed += lines
    if failed:
        raise NotebookError(t("notebook.run-failed", n=len(failed), folder=NOTEBOOKS if inplace else copies))
    return copies


def _run_one(path, env, target, force, translate=None):
    """Run one notebook and write it (whole, and never over a different file unless forced): (failures, seconds)."""
    import nbformat

    from .notebook import NotReplaced, write_file

    run = execute(path, env, translate=translate)
    lines = list(run.failures)
    text = nbformat.writes(without_widgets(run.notebook))
    text += "" if text.endswith("\n") else "\n"
    try:
        write_file(target, text, force=force, how=t("notebook.force-command"), manifest=target != path)
    except NotReplaced as refused:
        lines.append(str(refused))
    return lines, run.seconds


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def without_widgets(notebook):
    """The notebook without its widgets' views and state: they live only in a running kernel, and their ids are
    new on every run. A cell that shows a slider is stored with its other outputs, so re-running gives the same file."""
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [output for output in cell.outputs if WIDGET_VIEW not in output.get("data", {})]
    return notebook


def add_arguments(parser):
    parser.add_argument("notebook", nargs="*", help="notebooks to run (default: every notebooks/NN_*.ipynb)")
    parser.add_argument("--out", help="artifacts folder for the run (default: $KVLAB_OUT, else artifacts/ at the repository root)")
    parser.add_argument("--inplace", action="store_true",
                        help="save the outputs into the notebooks themselves, run on the stand-in (for maintainers)")
    parser.add_argument("--force", action="store_true",
                        help="replace files in OUT (and OUT/notebooks) even when they are not what kvlab last wrote there")
    from .cli import add_lang_argument
    add_lang_argument(parser, "the notebooks' output (in the instructor edition, their Markdown too)")


def translator(language):
    """translate(notebook, path) for run_notebooks: the instructor's notebooks with their Markdown and code text in
    `language`
    (kvlab.instructor.documents); None for English, or in a student edition, whose notebooks are already in
    its language. A language not wholly translated is refused in one line."""
    from .i18n import SOURCE, NotTranslated
    if language == SOURCE or not (Path(__file__).resolve().parent / "instructor").is_dir():
        return None  # English, or the student edition (an editable install's finder may still offer kvlab.instructor)
    from .instructor import documents
    try:
        code = tuple(f"code.{path.stem}." for path in notebook_paths())  # the text of their code cells
        documents.require(language, "the notebooks", prefixes=("md.", *code))
    except NotTranslated as error:
        raise UserError(str(error)) from None

    def translate(notebook, path):
        try:
            return documents.translate_notebook(notebook, Path(path).stem, language)
        except NotTranslated as error:
            raise NotebookError(str(error)) from None
    return translate


def run(args):
    from .i18n import lang
    language = lang()
    translate = translator(language)
    if args.inplace and translate is not None:
        raise UserError(f"--inplace keeps the stored notebooks in English; run --lang {language} without it "
                        f"(the translated copies go to OUT/notebooks/)")
    copies = run_notebooks(args.notebook or notebook_paths(), args.out, args.inplace, force=args.force,
                           translate=translate)
    print(t("notebook.run-refreshed") if args.inplace else t("notebook.run-copies", folder=copies))
