"""The stack's CloudFormation template as ``cdk synth`` makes it, without the CDK CLI or Docker.

cdk.json's context, cdk-nag on (an unacknowledged finding fails here as it fails ``cdk synth``),
and empty stand-ins for the two layers: their content changes an asset's hash, never a resource's
properties, and building them costs a pip install. ``make lint`` writes the template with
``python -m infra.synth_template build/cfn-lint`` and runs cfn-lint on it (``.cfnlintrc.yaml``);
``infra/local/access_policies.py`` reads the functions' grants out of the same synth.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from infra.stack import ContinuityStack

DEFAULT_OUTDIR = Path("build", "cfn-lint")


def synthesize(outdir: Path) -> tuple[dict[str, Any], Path, ContinuityStack]:
    """Synthesize into ``outdir``: the template, the path it was written to, and the stack."""
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
    os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
    from infra.app import DOCKER_FREE, build_app, cdk_json_context
    from infra.build_layer import LayerPaths

    with tempfile.TemporaryDirectory(prefix="continuity-layers-") as scratch:
        layers = LayerPaths(deps=Path(scratch, "deps"), core=Path(scratch, "core"))
        for layer in (layers.deps, layers.core):
            (layer / "python").mkdir(parents=True)
        app, stack = build_app({**cdk_json_context(), **DOCKER_FREE}, layers=layers, outdir=str(outdir))
        artifact = app.synth().get_stack_by_name(stack.stack_name)
        return dict(artifact.template), Path(artifact.template_full_path), stack


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    _, path, _ = synthesize(Path(args[0]) if args else DEFAULT_OUTDIR)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
