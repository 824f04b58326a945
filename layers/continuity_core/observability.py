"""The single Logger and Metrics of the service.

Tracer is left out on purpose: importing it costs ~300 ms (aws_xray_sdk) on the hook path.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, single_metric
from aws_lambda_powertools.metrics import MetricUnit

logger = Logger()
metrics = Metrics()


def count(name: str, value: int = 1, **dimensions: str) -> None:
    """One EMF count; a dimensioned count is flushed as its own metric set so dimensions do not leak."""
    if not dimensions:
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        return
    with single_metric(name=name, unit=MetricUnit.Count, value=value) as metric:
        for key, dimension in dimensions.items():
            metric.add_dimension(name=key, value=dimension)
