"""The kvlab command as a whole: behaviour shared by every subcommand."""
import subprocess
import sys

from helpers import ROOT, clean_env


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):
    # `kvlab artifacts --out DIR | head -1`: the pipe closes after the first line.
    process = subprocess.Popen([sys.executable, "-m", "kvlab", "artifacts", "--out", str(tmp_path)],
                               cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               bufsize=0)
    process.stdout.close()  # before anything is read: every print meets a closed pipe
    stderr = process.stderr.read().decode()
    process.wait(timeout=60)
    assert "Traceback" not in stderr, stderr
    assert stderr == ""
    assert process.returncode == 1
    assert (tmp_path / "measured.json").exists()  # the work itself was done
