"""The local stack: Continuity on 127.0.0.1 with moto as the AWS back end.

Built from ``infra.wiring`` only (no per-function code): a moto server with the declared tables and
queues, an HTTP gateway that speaks API Gateway HTTP API payload v2 to the same handlers, an SQS
poller per queue-triggered function and a timer per scheduled function. Entry point:
``python -m infra.local`` (``infra.local.main.main``); one-off runs: ``python -m infra.local.invoke``.

This package must not import moto at import time: the moto recorder reads its settings from the
environment when moto is first imported, and ``infra.local.backend`` sets them first.
"""
