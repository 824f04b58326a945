"""A TCP proxy on 127.0.0.1 that cuts a share of connections mid-request: the client's network dropping.

Each chunk a client sends is, with probability ``share``, either dropped with the connection (the
service never sees the request) or forwarded and the connection cut before the answer comes back
(the service did the work; the client does not know). Half each: the second kind is the one that
tests idempotency.
"""

from __future__ import annotations

import contextlib
import random
import socket
import threading
from dataclasses import dataclass

_CHUNK = 65536


@dataclass
class Cuts:
    before_service: int = 0  # requests dropped before they reached the service
    after_service: int = 0  # answers dropped after the service handled the request


class CuttingProxy:
    def __init__(self, upstream_port: int, share: float, seed: int = 15) -> None:
        self.upstream_port = upstream_port
        self.share = share
        self.cuts = Cuts()
        self._chance = random.Random(seed)
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="cutting-proxy", daemon=True)

    def start(self) -> CuttingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._listener.close()
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _draw(self) -> str:
        with self._lock:
            if self._chance.random() >= self.share:
                return "pass"
            kind = "before" if self._chance.random() < 0.5 else "after"
            if kind == "before":
                self.cuts.before_service += 1
            else:
                self.cuts.after_service += 1
            return kind

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=120)
        except OSError:
            client.close()  # the service is down: as a refused connection
            return
        cut_answer = threading.Event()
        threading.Thread(target=self._answers, args=(upstream, client, cut_answer), daemon=True).start()
        try:
            while True:
                data = client.recv(_CHUNK)
                if not data:
                    break
                kind = self._draw()
                if kind == "before":
                    break
                if kind == "after":
                    cut_answer.set()
                upstream.sendall(data)
        except OSError:
            pass
        finally:
            _close(client, upstream)

    @staticmethod
    def _answers(upstream: socket.socket, client: socket.socket, cut: threading.Event) -> None:
        try:
            while True:
                data = upstream.recv(_CHUNK)
                if not data or cut.is_set():
                    break
                client.sendall(data)
        except OSError:
            pass
        finally:
            _close(client, upstream)


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
