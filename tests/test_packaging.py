"""environment.yml says nothing that pyproject.toml does not: one source of truth for the set-up."""
import importlib
import re
import sys

import pytest

from helpers import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
EXTRAS = PROJECT["optional-dependencies"]
ENVIRONMENT_TEXT = (ROOT / "environment.yml").read_text(encoding="utf-8")


def mini_yaml(text):
    """The small YAML subset environment.yml uses: mappings, lists, `- key:` items, plain scalars."""
    lines = [(len(line) - len(line.lstrip(" ")), line.strip()) for line in text.splitlines()
             if line.strip() and not line.strip().startswith("#")]
    value, rest = _block(lines, lines[0][0])
    assert not rest, f"cannot read {rest[0][1]!r}"
    return value


def _block(lines, indent):
    """The list or mapping whose lines start at `indent`, and the lines after it."""
    if lines[0][1].startswith("- "):
        items = []
        while lines and lines[0][0] == indent and lines[0][1].startswith("- "):
            text, lines = lines[0][1][2:].strip(), lines[1:]
            if text.endswith(":"):  # "- pip:": a one-key mapping holding the block below
                value, lines = _block(lines, lines[0][0])
                items.append({text[:-1]: value})
            else:
                items.append(_scalar(text))
        return items, lines
    mapping = {}
    while lines and lines[0][0] == indent:
        (key, _, text), lines = lines[0][1].partition(":"), lines[1:]
        if text.strip():
            mapping[key.strip()] = _scalar(text)
        else:
            mapping[key.strip()], lines = _block(lines, lines[0][0])
    return mapping, lines


def _scalar(text):
    return text.split(" #")[0].strip().strip("'\"")


def read_environment():
    """environment.yml as Python values: with PyYAML when it is installed, else with mini_yaml."""
    try:
        import yaml
    except ImportError:
        return mini_yaml(ENVIRONMENT_TEXT)
    return yaml.safe_load(ENVIRONMENT_TEXT)


ENVIRONMENT = read_environment()
CONDA = [dep for dep in ENVIRONMENT["dependencies"] if isinstance(dep, str)]
PIP = [dep["pip"] for dep in ENVIRONMENT["dependencies"] if isinstance(dep, dict) and "pip" in dep]


def name_of(requirement):
    return re.match(r"[A-Za-z0-9_.\-]+", requirement).group().lower().replace("_", "-")


def test_the_fallback_reader_agrees_with_pyyaml():
    yaml = pytest.importorskip("yaml")
    assert mini_yaml(ENVIRONMENT_TEXT) == yaml.safe_load(ENVIRONMENT_TEXT)


def test_conda_forge_is_the_only_channel():
    assert ENVIRONMENT["channels"] == ["conda-forge"]


def test_the_environment_is_named_after_the_project():
    assert ENVIRONMENT["name"] == PROJECT["name"]


def test_python_constraint_equals_requires_python():
    pythons = [dep for dep in CONDA if name_of(dep) == "python"]
    assert len(pythons) == 1
    assert pythons[0].replace(" ", "")[len("python"):] == PROJECT["requires-python"].replace(" ", "")


def test_pip_is_listed():
    assert "pip" in CONDA


def test_conda_installs_only_python_and_pip_the_rest_comes_from_pyproject():
    assert sorted(name_of(dep) for dep in CONDA) == ["pip", "python"]
    assert len(PIP) == 1


def test_the_pip_section_installs_this_project_with_extras_that_exist():
    assert len(PIP[0]) == 1
    install = re.fullmatch(r"(-e\s+)?\.(\[(?P<extras>[^\]]*)\])?", PIP[0][0].strip())
    assert install, f"expected the project itself ('.[extras]' or '-e .[extras]'), got {PIP[0][0]!r}"
    extras = [extra.strip() for extra in (install["extras"] or "").split(",") if extra.strip()]
    assert extras and set(extras) <= set(EXTRAS)


def test_extras_that_name_the_project_name_extras_that_exist():
    for extra, requirements in EXTRAS.items():
        for requirement in requirements:
            if name_of(requirement) == PROJECT["name"]:
                wanted = re.search(r"\[([^\]]*)\]", requirement).group(1).split(",")
                assert {name.strip() for name in wanted} <= set(EXTRAS), (extra, requirement)


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


def test_the_test_extra_installs_what_the_tests_import():
    assert {"pytest", "hypothesis", "nbval", "tomli"} <= resolved("test")


def test_the_kvlab_command_points_at_a_callable():
    module, _, attribute = PROJECT["scripts"]["kvlab"].partition(":")
    assert callable(getattr(importlib.import_module(module), attribute))
