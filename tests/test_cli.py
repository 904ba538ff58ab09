"""The kvlab command as a whole: one dispatcher, one error handler, editions that lack a command."""
import subprocess
import sys
import types

import pytest

from helpers import ROOT, clean_env
from kvlab import cli
from kvlab.errors import UserError


def command(doc, run):
    module = types.ModuleType("fake", doc)
    module.add_arguments = lambda parser: parser.add_argument("--x", default="1")
    module.run = run
    return module


def test_a_user_error_is_one_line_with_its_exit_code(monkeypatch, capsys):
    def run(args):
        raise UserError("that folder is not empty", code=3)
    monkeypatch.setattr(cli, "available", lambda: {"demo": command("Demo.", run)})
    with pytest.raises(SystemExit) as stop:
        cli.main(["demo"])
    assert stop.value.code == 3
    assert capsys.readouterr().err == "kvlab demo: error: that folder is not empty\n"


def test_an_os_error_about_a_file_is_one_line(monkeypatch, capsys):
    def run(args):
        open("/nonexistent/x")
    monkeypatch.setattr(cli, "available", lambda: {"demo": command("Demo.", run)})
    monkeypatch.setattr(cli, "debugging", lambda: False)
    with pytest.raises(SystemExit):
        cli.main(["demo"])
    assert capsys.readouterr().err == "kvlab demo: error: /nonexistent/x: No such file or directory\n"


def test_kvlabs_own_bug_keeps_its_traceback_under_pytest(monkeypatch):
    monkeypatch.setattr(cli, "available", lambda: {"demo": command("Demo.", lambda args: 1 / 0)})
    with pytest.raises(ZeroDivisionError):
        cli.main(["demo"])


def test_a_command_whose_module_this_edition_lacks_is_not_offered(monkeypatch):
    monkeypatch.setitem(cli.COMMANDS, "ghost", "kvlab.instructor.no_such_module")
    assert "ghost" not in cli.available() and "check" in cli.available()


def test_the_exit_status_is_what_run_returns(monkeypatch):
    monkeypatch.setattr(cli, "available", lambda: {"demo": command("Demo.", lambda args: 1)})
    with pytest.raises(SystemExit) as stop:
        cli.main(["demo"])
    assert stop.value.code == 1


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path):
    # `kvlab artifacts --out DIR | head -1`: the pipe closes after the first line.
    process = subprocess.Popen([sys.executable, "-m", "kvlab", "artifacts", "--out", str(tmp_path)],
                               cwd=ROOT, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    process.stdout.close()  # before anything is read: every print meets a closed pipe
    stderr = process.stderr.read().decode()
    process.wait(timeout=60)
    assert stderr == "" and process.returncode == 1
    assert (tmp_path / "measured.json").exists()  # the work itself was done
