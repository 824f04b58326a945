"""A small HTTP/1.1 client over a socket, with one deadline for the whole exchange.

Why not ``urllib.request``: importing it (http.client, email, ssl, ...) costs ~25 ms, twice a
bare ``python -c pass``, and the hook pays it on every prompt. This module imports ``socket``
and, for https only, ``ssl``. It speaks just what the hook needs: one request per connection
(``Connection: close``), Content-Length or chunked bodies. When a proxy is configured in the
environment it hands over to ``urllib.request``, which knows proxies and ``no_proxy``.
"""

from __future__ import annotations

import socket
import time

TYPE_CHECKING = False  # typing costs milliseconds at import; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

MAX_RESPONSE_BYTES = 4 * 1024 * 1024
USER_AGENT = "continuity-client/0.1.0"
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


class TransportError(Exception):
    """The service could not be reached or answered something that is not HTTP.

    ``refused``: the connection was refused at once (nothing listens there: the service is
    restarting, or not started yet). That costs no time, so it is no reason to presume the service
    down for a while, as a time-out is.
    """

    def __init__(self, message: str, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


class Response:
    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


def split_url(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, base path) of ``http(s)://host[:port][/base]``."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in ("http", "https"):
        raise TransportError(f"unsupported URL {url!r}: expected http:// or https://")
    netloc, slash, path = rest.partition("/")
    netloc = netloc.rpartition("@")[2]
    port = 443 if scheme == "https" else 80
    if netloc.startswith("["):  # IPv6 literal
        host, _, tail = netloc[1:].partition("]")
        if tail.startswith(":") and tail[1:]:
            port = _port(tail[1:], url)
    elif ":" in netloc:
        host, _, text = netloc.rpartition(":")
        port = _port(text, url) if text else port
    else:
        host = netloc
    if not host:
        raise TransportError(f"no host in URL {url!r}")
    base = ("/" + path).rstrip("/") if slash else ""
    return scheme, host, port, base


def _port(text: str, url: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise TransportError(f"bad port in URL {url!r}") from None


def _proxy_configured(scheme: str, host: str, env: Mapping[str, str]) -> bool:
    if host.lower() in LOCAL_HOSTS:
        return False
    names = (f"{scheme}_proxy", f"{scheme.upper()}_PROXY", "all_proxy", "ALL_PROXY")
    return any(env.get(name) for name in names)


def request(
    method: str,
    url: str,
    path: str,
    body: bytes | None,
    headers: Mapping[str, str],
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> Response:
    """Send one request; raise TransportError on any network or protocol failure or at the deadline."""
    scheme, host, port, base = split_url(url)
    deadline = time.monotonic() + max(timeout, 0.01)
    if env is not None and _proxy_configured(scheme, host, env):
        return _request_urllib(method, url.rstrip("/") + path, body, headers, timeout)
    host_header = f"[{host}]" if ":" in host else host
    if port != (443 if scheme == "https" else 80):
        host_header += f":{port}"
    lines = [f"{method} {base}{path} HTTP/1.1", f"Host: {host_header}", f"User-Agent: {USER_AGENT}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    payload = body or b""
    if body is not None or method in ("POST", "PUT"):
        lines.append(f"Content-Length: {len(payload)}")
    lines += ["Connection: close", "", ""]
    data = "\r\n".join(lines).encode("latin-1", "replace") + payload
    # An ASCII host as bytes: a str host makes getaddrinfo load the idna codec (~1 ms).
    address = (host.encode("ascii") if host.isascii() else host, port)
    try:
        sock = socket.create_connection(address, timeout=_remaining(deadline))  # type: ignore[arg-type]
    except OSError as error:
        refused = isinstance(error, ConnectionRefusedError)
        raise TransportError(f"cannot connect to {host}:{port}: {error}", refused) from None
    try:
        if scheme == "https":
            sock = _wrap_tls(sock, host, deadline)
        sock.settimeout(_remaining(deadline))
        sock.sendall(data)
        return _read_response(sock, deadline)
    except TransportError:
        raise
    except (OSError, ValueError) as error:
        raise TransportError(f"{type(error).__name__}: {error}") from None
    finally:
        sock.close()


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TransportError("timed out")
    return left


def _wrap_tls(sock: socket.socket, host: str, deadline: float) -> socket.socket:
    import ssl  # only https pays for it

    context = ssl.create_default_context()
    sock.settimeout(_remaining(deadline))
    return context.wrap_socket(sock, server_hostname=host)


def _recv(sock: socket.socket, deadline: float) -> bytes:
    sock.settimeout(_remaining(deadline))
    try:
        return sock.recv(65536)
    except TimeoutError:
        raise TransportError("timed out") from None


def _read_response(sock: socket.socket, deadline: float) -> Response:
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = _recv(sock, deadline)
        if not chunk:
            raise TransportError("connection closed before a complete HTTP answer")
        buffer += chunk
        if len(buffer) > 65536 and b"\r\n\r\n" not in buffer:
            raise TransportError("HTTP header too large")
    head, _, rest = buffer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise TransportError(f"not an HTTP answer: {status_line[:80]!r}")
    headers: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _read_chunked(sock, rest, deadline)
    elif "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError:
            raise TransportError("bad Content-Length") from None
        if length > MAX_RESPONSE_BYTES:
            raise TransportError("answer too large")
        body = rest
        while len(body) < length:
            chunk = _recv(sock, deadline)
            if not chunk:
                raise TransportError("connection closed mid-body")
            body += chunk
        body = body[:length]
    else:
        body = rest
        while True:
            chunk = _recv(sock, deadline)
            if not chunk:
                break
            body += chunk
            if len(body) > MAX_RESPONSE_BYTES:
                raise TransportError("answer too large")
    return Response(int(parts[1]), headers, body)


def _read_chunked(sock: socket.socket, data: bytes, deadline: float) -> bytes:
    body = b""
    while True:
        while b"\r\n" not in data:
            chunk = _recv(sock, deadline)
            if not chunk:
                raise TransportError("connection closed mid-chunk")
            data += chunk
        size_line, _, data = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            raise TransportError("bad chunk size") from None
        if size == 0:
            return body
        while len(data) < size + 2:
            chunk = _recv(sock, deadline)
            if not chunk:
                raise TransportError("connection closed mid-chunk")
            data += chunk
        body += data[:size]
        data = data[size + 2 :]
        if len(body) > MAX_RESPONSE_BYTES:
            raise TransportError("answer too large")


def _request_urllib(
    method: str, full_url: str, body: bytes | None, headers: Mapping[str, str], timeout: float
) -> Response:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(full_url, data=body, method=method, headers=dict(headers))
    request.add_header("User-Agent", USER_AGENT)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return Response(answer.status, _lower(answer.headers.items()), answer.read(MAX_RESPONSE_BYTES))
    except urllib.error.HTTPError as error:
        return Response(error.code, _lower(error.headers.items()), error.read(MAX_RESPONSE_BYTES))
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", error)  # urllib wraps the socket's error
        refused = isinstance(reason, ConnectionRefusedError)
        raise TransportError(f"{type(error).__name__}: {error}", refused) from None


def _lower(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    return {str(name).lower(): str(value) for name, value in items}
