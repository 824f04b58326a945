"""Builds the two Lambda layer directories without Docker: ``python -m infra.build_layer``.

* ``build/layers/deps/python/``: the runtime ``[project].dependencies`` of pyproject.toml as
  manylinux aarch64 wheels for CPython 3.12 (pip ``--platform``), minus what the Lambda runtime
  already ships (boto3, botocore, s3transfer) and minus ``__pycache__`` and test folders.
* ``build/layers/core/python/continuity_core/``: a copy of ``layers/continuity_core``.

Both are compiled to bytecode by the runtime's Python (``$CONTINUITY_RUNTIME_PYTHON``, else
``python3.12`` on the PATH, else a pyenv 3.12) with ``unchecked-hash`` ``.pyc`` files: a Lambda sandbox cannot
write beside its code, so without them every cold start compiles every module it imports (ours,
Powertools', pydantic's) again. Without that interpreter the layers ship sources only, as before,
and the build says so.

Each layer is rebuilt only when the sha256 of its inputs changes; the hash lives next to the layer
(``build/layers/<name>.sha256``, outside the asset directory so it does not change the asset).
A build goes to a temporary directory first and replaces the layer only when it succeeded.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = REPO_ROOT / "build" / "layers"
PYPROJECT = REPO_ROOT / "pyproject.toml"
CORE_SOURCE = REPO_ROOT / "layers" / "continuity_core"

# The Lambda target; keep in step with infra/constructs/defaults.py (runtime and architecture).
PIP_PLATFORM = "manylinux2014_aarch64"
PIP_PYTHON_VERSION = "3.12"
PIP_IMPLEMENTATION = "cp"

# Shipped by the Lambda Python runtime; packing them only makes the layer bigger and older.
PROVIDED_BY_RUNTIME = ("boto3", "botocore", "s3transfer")
# Console scripts pip puts in <target>/bin: not importable, not runnable from a layer's python/.
TOP_LEVEL_DROPPED = ("bin",)
JUNK_DIRS = ("__pycache__", "tests")
JUNK_SUFFIXES = (".pyc", ".pyo")
# Bump to force a rebuild when the build procedure itself changes.
BUILD_RECIPE_VERSION = "3"
# The interpreter that compiles the layers' bytecode: it must be the runtime's version.
RUNTIME_PYTHON_ENV = "CONTINUITY_RUNTIME_PYTHON"
# Where Lambda mounts a layer's python/ folder: the source path tracebacks name.
LAYER_MOUNT = "/opt/python"


@dataclass(frozen=True)
class LayerPaths:
    """Layer asset directories, each holding a ``python/`` folder as Lambda expects."""

    deps: Path
    core: Path


def runtime_python() -> str | None:
    """An interpreter of the Lambda runtime's Python version, if this machine has one."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    installed = sorted(pyenv.glob(f"{PIP_PYTHON_VERSION}.*/bin/python{PIP_PYTHON_VERSION}"), reverse=True)
    for name in (os.environ.get(RUNTIME_PYTHON_ENV), f"python{PIP_PYTHON_VERSION}", *map(str, installed)):
        found = shutil.which(name) if name else None
        if not found:
            continue
        probe = [found, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
        answer = subprocess.run(probe, capture_output=True, text=True, check=False)
        if answer.returncode == 0 and answer.stdout.strip() == PIP_PYTHON_VERSION:
            return found
    return None


def compile_layer(layer_dir: Path, python: str | None) -> bool:
    """``.pyc`` files beside the layer's sources (checked by hash, never against the sources' times:
    a layer does not change), by ``python``; none without it. Whether it compiled."""
    if python is None:
        return False
    command = [python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash"]
    subprocess.run(
        [*command, "-s", str(layer_dir / "python"), "-p", LAYER_MOUNT, str(layer_dir / "python")], check=True
    )
    return True


def runtime_dependencies(pyproject: Path = PYPROJECT) -> list[str]:
    with pyproject.open("rb") as handle:
        project = tomllib.load(handle)["project"]
    return list(project.get("dependencies", []))


def _is_junk(path: Path) -> bool:
    return any(part in JUNK_DIRS for part in path.parts) or path.suffix in JUNK_SUFFIXES


def _tree_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not _is_junk(p.relative_to(root)))


def deps_inputs_hash(requirements: list[str], compiled: bool = False) -> str:
    recipe = {
        "compiled": compiled,
        "recipe": BUILD_RECIPE_VERSION,
        "requirements": sorted(requirements),
        "platform": PIP_PLATFORM,
        "python": PIP_PYTHON_VERSION,
        "implementation": PIP_IMPLEMENTATION,
        "dropped": PROVIDED_BY_RUNTIME,
    }
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()


def core_inputs_hash(source: Path = CORE_SOURCE, compiled: bool = False) -> str:
    digest = hashlib.sha256(f"{BUILD_RECIPE_VERSION}:{compiled}".encode())
    for path in _tree_files(source):
        digest.update(path.relative_to(source).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def prune(site: Path) -> None:
    """Drop what the runtime provides, bytecode caches and test folders from an installed tree."""
    for entry in list(site.iterdir()):
        dist = entry.name.split("-", 1)[0].lower() if entry.name.endswith(".dist-info") else entry.name
        if (dist in PROVIDED_BY_RUNTIME or entry.name in TOP_LEVEL_DROPPED) and entry.is_dir():
            shutil.rmtree(entry)
    for folder in sorted(site.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and folder.name in JUNK_DIRS:
            shutil.rmtree(folder)
    for path in site.rglob("*"):
        if path.is_file() and path.suffix in JUNK_SUFFIXES:
            path.unlink()


def install_dependencies(requirements: list[str], layer_dir: Path) -> None:
    target = layer_dir / "python"
    target.mkdir(parents=True)
    if not requirements:
        return
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-compile",
        "--platform",
        PIP_PLATFORM,
        "--only-binary=:all:",
        "--python-version",
        PIP_PYTHON_VERSION,
        "--implementation",
        PIP_IMPLEMENTATION,
        "--target",
        str(target),
        *requirements,
    ]
    subprocess.run(command, check=True)
    prune(target)


def copy_core(source: Path, layer_dir: Path) -> None:
    shutil.copytree(
        source,
        layer_dir / "python" / source.name,
        ignore=shutil.ignore_patterns(*JUNK_DIRS, *(f"*{s}" for s in JUNK_SUFFIXES)),
    )


@contextmanager
def _locked(build_dir: Path) -> Iterator[None]:
    """Serialise builds: tests and `make synth` may run at the same time."""
    build_dir.mkdir(parents=True, exist_ok=True)
    with (build_dir / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _build_if_changed(
    build_dir: Path, name: str, inputs_hash: str, build: Callable[[Path], None], force: bool
) -> tuple[Path, bool]:
    layer_dir = build_dir / name
    stamp = build_dir / f"{name}.sha256"
    if not force and layer_dir.is_dir() and stamp.is_file() and stamp.read_text().strip() == inputs_hash:
        return layer_dir, False
    staging = build_dir / f".{name}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    build(staging)
    shutil.rmtree(layer_dir, ignore_errors=True)
    staging.rename(layer_dir)
    stamp.write_text(inputs_hash + "\n")
    return layer_dir, True


def ensure_layers(
    build_dir: Path = BUILD_DIR,
    *,
    pyproject: Path = PYPROJECT,
    core_source: Path = CORE_SOURCE,
    force: bool = False,
    log: Callable[[str], None] | None = None,
) -> LayerPaths:
    """Build (or reuse) both layer directories and return their paths."""
    requirements = runtime_dependencies(pyproject)
    python = runtime_python()
    compiled = python is not None

    def deps_build(target: Path) -> None:
        install_dependencies(requirements, target)
        compile_layer(target, python)

    def core_build(target: Path) -> None:
        copy_core(core_source, target)
        compile_layer(target, python)

    with _locked(build_dir):
        deps, deps_built = _build_if_changed(
            build_dir, "deps", deps_inputs_hash(requirements, compiled), deps_build, force
        )
        core, core_built = _build_if_changed(
            build_dir, "core", core_inputs_hash(core_source, compiled), core_build, force
        )
    if log:
        for name, path, built in (("deps", deps, deps_built), ("core", core, core_built)):
            log(f"layer {name}: {'built' if built else 'unchanged'} ({path})")
        if not compiled:
            log(
                f"no Python {PIP_PYTHON_VERSION} here ({RUNTIME_PYTHON_ENV} unset): the layers ship sources "
                "only, so every cold start compiles what it imports"
            )
    return LayerPaths(deps=deps, core=core)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--force", action="store_true", help="rebuild even when the inputs are unchanged")
    args = parser.parse_args(argv)
    ensure_layers(force=args.force, log=print)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
