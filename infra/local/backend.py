"""moto as the AWS back end: a ``ThreadedMotoServer`` in this process, recording its requests."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import requests

from infra.local.environment import ensure_port_free

log = logging.getLogger(__name__)


class MotoBackend:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, recording: Path | None = None) -> None:
        self._host = host
        self._port = port
        self._recording = recording
        self._server: Any = None
        self.url = ""

    def start(self) -> str:
        if self._recording is not None:
            # moto's recorder reads these once, when moto.moto_api is first imported.
            os.environ["MOTO_ENABLE_RECORDING"] = "True"
            os.environ["MOTO_RECORDER_FILEPATH"] = str(self._recording)
        else:
            os.environ.pop("MOTO_ENABLE_RECORDING", None)
        ensure_port_free(self._host, self._port)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request lines

        from moto.moto_api import recorder
        from moto.server import ThreadedMotoServer

        if self._recording is not None and recorder._location != str(self._recording):
            raise RuntimeError(
                "moto was imported before the local stack set MOTO_RECORDER_FILEPATH; "
                "run the local stack in its own process (python -m infra.local)"
            )
        self._server = ThreadedMotoServer(ip_address=self._host, port=self._port, verbose=False)
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.url = f"http://{host}:{port}"
        return self.url

    def replay(self) -> None:
        """Replay the recording into this (empty) server; requests made meanwhile are not recorded."""
        answer = requests.post(f"{self.url}/moto-api/recorder/replay-recording", timeout=600)
        answer.raise_for_status()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
