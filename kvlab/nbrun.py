"""Run the lab's notebooks headless, each in a fresh python3 kernel started in the notebook's folder.

    python -m kvlab notebooks            # executed copies go to OUT/notebooks/; the stored ones stay as they are
    python -m kvlab notebooks --inplace  # maintainers: refresh the stored outputs (from the stand-in, as CI checks)

Several notebooks run at once (one per CPU), but each reports in the order given.
nbclient and nbformat are imported only when a notebook runs, so `import kvlab` stays light.
"""
import os
import time
from pathlib import Path

from . import paths
from .errors import UserError

NOTEBOOKS = paths.REPO / "notebooks"
KERNEL = "python3"


class NotebookError(UserError):
    """A notebook that did not run to the end, in one line naming the notebook and the cell."""


def notebook_paths(folder=NOTEBOOKS):
    """The lab's notebooks, in order: NN_topic.ipynb."""
    return sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))


def kernel_env(out=None, stand_in=False):
    """This process's environment, with the artifacts folder and (for stored outputs) the stand-in measurement."""
    env = dict(os.environ)
    out = out or env.get("KVLAB_OUT")
    if out:  # absolute: the kernel runs in the notebooks' folder, not here
        env["KVLAB_OUT"] = str(Path(out).resolve())
    if stand_in:
        env["KVLAB_TTFT"] = str(paths.STAND_IN_TTFT)
    return env


def execute(path, env=None, timeout=300):
    """Run every cell of the notebook at `path`; return the executed notebook. Raises NotebookError."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    path = Path(path)
    try:
        notebook = nbformat.read(path, as_version=4)
    except OSError as error:
        raise NotebookError(f"{path}: {error.strerror}") from None
    except Exception as error:  # not JSON, or not a notebook
        raise NotebookError(f"{path}: not a readable notebook ({type(error).__name__})") from None
    # No timing metadata: re-running gives the same file. "immediate": no waiting for a polite kernel shutdown.
    client = NotebookClient(notebook, kernel_name=KERNEL, timeout=timeout, record_timing=False,
                            shutdown_kernel="immediate", resources={"metadata": {"path": str(path.parent.resolve())}})
    current = {"index": None}
    client.on_cell_start = lambda cell, cell_index: current.update(index=cell_index)

    def where():
        return path.name if current["index"] is None else f"{path.name}: cell {current['index'] + 1}"

    try:
        client.execute(env=env if env is not None else dict(os.environ), **_encryption())
    except CellExecutionError as error:
        message = (error.evalue or "").strip().splitlines()
        raise NotebookError(f"{where()} failed: {error.ename}: {message[0] if message else ''}".rstrip(": ")) from None
    except CellTimeoutError:
        raise NotebookError(f"{where()} did not finish within {timeout} s") from None
    except DeadKernelError:
        raise NotebookError(f"{where()}: the kernel died") from None
    except Exception as error:  # e.g. the kernel could not start
        from .cli import debugging
        if debugging():
            raise
        raise NotebookError(f"{path.name}: {type(error).__name__}: {error}") from None
    return notebook


def _encryption():
    """Encrypted kernel transport where jupyter_client and the kernel support it (and no warning that it is not)."""
    from jupyter_client.manager import KernelManager

    return {"transport_encryption": "auto"} if KernelManager.class_traits().get("transport_encryption") else {}


def run_notebooks(notebooks, out=None, inplace=False, report=print, jobs=None):
    """Execute the notebooks, `jobs` at a time (default: one per CPU); save each in place or as OUT/notebooks/NAME.

    Reports one line per notebook, in the order given; the first failure (in that order) raises NotebookError.
    """
    from concurrent.futures import ThreadPoolExecutor

    notebooks = [Path(path) for path in notebooks]
    if not notebooks:
        raise NotebookError(f"no notebooks to run (none named NN_topic.ipynb in {NOTEBOOKS})")
    env = kernel_env(out, stand_in=inplace)
    copies = paths.out_dir(env.get("KVLAB_OUT")) / "notebooks"
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(notebooks)))
    with ThreadPoolExecutor(jobs) as pool:  # each notebook has its own kernel process; threads only wait
        runs = [pool.submit(_run_one, path, env, path if inplace else copies / path.name) for path in notebooks]
        try:
            for path, done in zip(notebooks, runs):
                report(f"{path.name:<24} {done.result():5.1f} s")
        except NotebookError:
            pool.shutdown(cancel_futures=True)
            raise
    return copies


def _run_one(path, env, target):
    import nbformat

    start = time.perf_counter()
    notebook = execute(path, env)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    return time.perf_counter() - start


def add_arguments(parser):
    parser.add_argument("notebook", nargs="*", help="notebooks to run (default: every notebooks/NN_*.ipynb)")
    parser.add_argument("--out", help="artifacts folder for the run (default: $KVLAB_OUT, else artifacts/ at the repository root)")
    parser.add_argument("--inplace", action="store_true",
                        help="save the outputs into the notebooks themselves, run on the stand-in (for maintainers)")


def run(args):
    copies = run_notebooks(args.notebook or notebook_paths(), args.out, args.inplace)
    print("stored notebooks refreshed (from the stand-in measurement)" if args.inplace else f"executed copies in {copies}")
