"""The Docker-free layer build: what goes in, what is dropped, and when it is skipped."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from infra import build_layer
from infra.build_layer import ensure_layers, prune, runtime_dependencies


def _pyproject(path: Path, dependencies: list[str]) -> Path:
    listed = ", ".join(f'"{d}"' for d in dependencies)
    path.write_text(f'[project]\nname = "x"\nversion = "0"\ndependencies = [{listed}]\n')
    return path


def _core(root: Path) -> Path:
    package = root / "continuity_core"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text("X = 1\n")
    (package / "__pycache__" / "config.cpython-312.pyc").write_bytes(b"\0")
    return package


@pytest.fixture(autouse=True)
def no_runtime_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources only unless a test asks for the runtime's Python (its own test below)."""
    monkeypatch.setattr(build_layer, "runtime_python", lambda: None)


def test_the_runtime_dependencies_are_read_from_pyproject() -> None:
    # When the repository's pyproject is read
    dependencies = runtime_dependencies()
    # Then the Lambda dependencies are there and the dev tools are not
    assert any(d.startswith("aws-lambda-powertools") for d in dependencies)
    assert not any(d.startswith(("boto3", "aws-cdk-lib", "pytest")) for d in dependencies)


def test_pruning_drops_runtime_provided_packages_caches_and_tests(tmp_path: Path) -> None:
    # Given an installed tree with boto3, caches, test folders and console scripts
    for folder in ("boto3", "botocore-1.0.dist-info", "s3transfer", "bin", "pkg/tests", "pkg/__pycache__"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "pkg" / "mod.py").write_text("")
    (tmp_path / "pkg" / "mod.pyc").write_bytes(b"")
    # When it is pruned
    prune(tmp_path)
    # Then only the package's code remains
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["pkg", "pkg/mod.py"]


def test_the_core_layer_is_a_clean_copy_and_is_not_rebuilt_when_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a core package and no third-party dependencies (no pip run)
    source = _core(tmp_path / "src")
    pyproject = _pyproject(tmp_path / "pyproject.toml", [])
    build = tmp_path / "build"
    # When the layers are built twice
    first = ensure_layers(build, pyproject=pyproject, core_source=source)
    marker = first.core / "python" / "continuity_core" / "marker"
    marker.write_text("left alone when nothing changed")
    second = ensure_layers(build, pyproject=pyproject, core_source=source)
    # Then the copy has no caches, and the second run reused it
    copied = first.core / "python" / "continuity_core"
    assert sorted(p.name for p in copied.iterdir()) == ["__init__.py", "config.py", "marker"]
    assert second == first
    assert marker.exists()
    assert (first.deps / "python").is_dir()


def test_a_changed_input_rebuilds_the_layer(tmp_path: Path) -> None:
    # Given built layers
    source = _core(tmp_path / "src")
    pyproject = _pyproject(tmp_path / "pyproject.toml", [])
    paths = ensure_layers(tmp_path / "build", pyproject=pyproject, core_source=source)
    # When the core code changes and the layers are ensured again
    (source / "config.py").write_text("X = 2\n")
    ensure_layers(tmp_path / "build", pyproject=pyproject, core_source=source)
    # Then the copy has the new code
    assert (paths.core / "python" / "continuity_core" / "config.py").read_text() == "X = 2\n"


def test_the_dependencies_are_installed_for_lambda_arm64_python_3_12(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a dependency list and a recorded pip
    calls: list[list[str]] = []
    monkeypatch.setattr(build_layer.subprocess, "run", lambda cmd, check: calls.append(cmd))
    pyproject = _pyproject(tmp_path / "pyproject.toml", ["pydantic==2.14.3"])
    # When the layers are built
    ensure_layers(tmp_path / "build", pyproject=pyproject, core_source=_core(tmp_path / "src"))
    # Then pip downloads binary wheels for the Lambda platform into the layer's python/ folder
    (command,) = calls
    assert command[command.index("--platform") + 1] == "manylinux2014_aarch64"
    assert command[command.index("--python-version") + 1] == "3.12"
    assert command[command.index("--implementation") + 1] == "cp"
    assert "--only-binary=:all:" in command
    assert command[command.index("--target") + 1].endswith("python")
    assert command[-1] == "pydantic==2.14.3"


def test_a_failed_dependency_install_leaves_no_layer_marked_as_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given pip failing
    def failing(cmd: list[str], check: bool) -> None:
        raise subprocess.CalledProcessError(1, cmd)

    monkeypatch.setattr(build_layer.subprocess, "run", failing)
    pyproject = _pyproject(tmp_path / "pyproject.toml", ["pydantic==2.14.3"])
    # When the layers are built / Then the error surfaces and no hash is stored
    with pytest.raises(subprocess.CalledProcessError):
        ensure_layers(tmp_path / "build", pyproject=pyproject, core_source=_core(tmp_path / "src"))
    assert not (tmp_path / "build" / "deps.sha256").exists()


def test_with_the_runtimes_python_the_layers_carry_bytecode_a_cold_start_does_not_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()  # the real lookup
    python = build_layer.runtime_python()
    if python is None:
        pytest.skip(f"no Python {build_layer.PIP_PYTHON_VERSION} on this machine")
    # Given a core package with a stale cache of its own, and no third-party dependencies
    source = _core(tmp_path / "src")
    pyproject = _pyproject(tmp_path / "pyproject.toml", [])
    # When the layers are built
    paths = ensure_layers(tmp_path / "build", pyproject=pyproject, core_source=source)
    # Then every module has the runtime's bytecode, trusted without a look at the source's time
    # (a layer never changes), and naming the path Lambda mounts the layer at
    cache = paths.core / "python" / "continuity_core" / "__pycache__"
    compiled = sorted(p.name for p in cache.iterdir())
    assert compiled == ["__init__.cpython-312.pyc", "config.cpython-312.pyc"]
    header = (cache / "config.cpython-312.pyc").read_bytes()
    assert int.from_bytes(header[4:8], "little") == 0b01  # hash-based, unchecked
    assert b"/opt/python/continuity_core/config.py" in header
    # And a build without that Python is another build (it rebuilds, not reuses)
    monkeypatch.setattr(build_layer, "runtime_python", lambda: None)
    ensure_layers(tmp_path / "build", pyproject=pyproject, core_source=source)
    assert not cache.exists()
