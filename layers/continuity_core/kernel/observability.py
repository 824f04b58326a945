"""The single Logger and Metrics of the service.

Tracer is left out on purpose: importing it costs ~300 ms (aws_xray_sdk) on the hook path.
"""

from __future__ import annotations

import os

from aws_lambda_powertools import Logger, Metrics, single_metric
from aws_lambda_powertools.metrics import MetricUnit

# The wiring sets POWERTOOLS_METRICS_NAMESPACE; the default keeps a bare invocation from failing.
NAMESPACE = os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Continuity")

logger = Logger()
metrics = Metrics(namespace=NAMESPACE)


def count(name: str, value: int = 1, **dimensions: str) -> None:
    """One EMF count; a dimensioned count is flushed as its own metric set so dimensions do not leak."""
    if not dimensions:
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        return
    with single_metric(name=name, unit=MetricUnit.Count, value=value, namespace=NAMESPACE) as metric:
        for key, dimension in dimensions.items():
            metric.add_dimension(name=key, value=dimension)
