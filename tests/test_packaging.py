"""One source of truth for the set-up: environment.yml says nothing that pyproject.toml does not."""
import importlib
import re
import sys

import pytest

from helpers import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:
    tomllib = pytest.importorskip("tomli")

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
EXTRAS = PROJECT["optional-dependencies"]


def name_of(requirement):
    return re.match(r"[A-Za-z0-9_.\-]+", requirement).group().lower().replace("_", "-")


def resolved(extra):
    """Distribution names an extra installs, following `kvlab[...]` references."""
    names = set()
    for requirement in EXTRAS[extra]:
        if name_of(requirement) == PROJECT["name"]:
            for inner in re.search(r"\[([^\]]*)\]", requirement).group(1).split(","):
                names |= resolved(inner.strip())
        else:
            names.add(name_of(requirement))
    return names


def test_environment_yml_installs_python_pip_and_this_project_with_extras_that_exist():
    yaml = pytest.importorskip("yaml")
    environment = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert environment["name"] == PROJECT["name"] and environment["channels"] == ["conda-forge"]
    conda = [dep for dep in environment["dependencies"] if isinstance(dep, str)]
    pip = [dep["pip"] for dep in environment["dependencies"] if isinstance(dep, dict)]
    assert sorted(name_of(dep) for dep in conda) == ["pip", "python"]
    assert f"python{PROJECT['requires-python']}".replace(" ", "") in [dep.replace(" ", "") for dep in conda]
    install = re.fullmatch(r"-e\s+\.\[(?P<extras>[^\]]*)\]", pip[0][0].strip())
    assert len(pip) == 1 and install, pip
    assert {extra.strip() for extra in install["extras"].split(",")} <= set(EXTRAS)


def test_every_kvlab_extra_named_inside_an_extra_exists():
    for extra in EXTRAS:
        resolved(extra)  # a KeyError names an extra that does not exist


def test_the_test_extra_installs_what_the_tests_import():
    assert {"pytest", "hypothesis", "nbval", "papermill", "pandas", "matplotlib"} <= resolved("test")


def test_the_kvlab_command_points_at_a_callable():
    module, _, attribute = PROJECT["scripts"]["kvlab"].partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))


def test_every_subpackage_is_packaged():
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    assert "kvlab" in include and "kvlab.*" in include


def test_the_version_is_the_packages():
    import kvlab
    assert PROJECT["version"] == kvlab.__version__


def test_serve_and_measure_have_extras_and_the_test_extra_installs_them():
    assert {"starlette", "uvicorn"} <= resolved("serve") and {"httpx", "tqdm"} <= resolved("measure")
    assert resolved("serve") | resolved("measure") <= resolved("test")  # tests/test_measure.py runs, not skips


def test_the_unit_tests_collect_with_only_pytest_and_hypothesis():
    """The README's fast path (`pip install pytest hypothesis && pytest tests`): a test module imports what
    else it needs only after a pytest.importorskip (or inside a test), so that without it the module skips."""
    import ast
    local = {path.stem for path in (ROOT / "tests").glob("*.py")}
    allowed = set(sys.stdlib_module_names) | {"pytest", "hypothesis", "kvlab", "_pytest"} | local
    wrong = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if "importorskip" in ast.unparse(node):
                break  # what follows may need the notebook stack: the module skips without it
            if isinstance(node, ast.Try):
                continue  # `try: import tomllib except ModuleNotFoundError: ...`
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            wrong += [f"{path.name}: {name}" for name in names if name.partition(".")[0] not in allowed]
    assert wrong == []
