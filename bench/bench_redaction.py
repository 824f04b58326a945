"""Secret redaction: speed on transcript text, recall and false positives on the test corpus.

- redaction_mb_per_s: ``redact()`` over ~5 MB of generated transcript text (Claude Code JSONL
  records and plain text: prose, code, tool output, JSON, lockfiles, diffs, env dumps; a corpus
  positive in 3% of the chunks), median of 5 passes, in CPU time of one core.
- redaction_record_mb_per_s: the same text redacted record by record (as the service does).
- redaction_recall / redaction_false_positive_rate / redaction_kind_accuracy: on
  ``tests/unit/redaction/corpus`` (see tests/unit/redaction/support.py).

``python -m bench.bench_redaction --compare`` also scores detect-secrets (if installed) on the same
corpus and text, for docs/REDACTION.md.
"""

from __future__ import annotations

import json
import random
import statistics
import string
import sys
import time
from collections.abc import Callable

TARGET_BYTES = 5_000_000
PASSES = 5

_SENTENCES = (
    "the handler returns the session state and the writer flushes the checkpoint after ten prompts "
    "we need to refactor this module so that the tests stay small and fast the token count grew "
    "because the digest includes the whole transcript make sure the password validation rejects short "
    "inputs the secret to stable tests is a fake clock retry the request with exponential backoff "
    "the auth middleware reads the bearer header and validates the key against the table this "
    "function parses the config file and merges the environment variables into the settings object "
    "I updated the migration and reran the suite all green except the flaky integration test"
)
_WORDS = _SENTENCES.split()
_IDENTS = (
    "session_key", "checkpoint", "flush_queue", "state_store", "prompt_count", "digest", "writer",
    "recovery", "handler", "config", "settings", "transcript", "snippet", "terms", "token_count",
    "user_id", "request_id", "cursor", "payload", "response", "retry_after", "max_tokens",
)  # fmt: skip
_PATHS = (
    "layers/continuity_core/hooks/ingest.py", "functions/hooks/handler.py", "tests/unit/test_digest.py",
    "infra/stacks/continuity.py", "src/auth/tokenRefresh.ts", "web/src/components/LoginForm.tsx",
    "internal/store/dynamo.go", "docs/ARCHITECTURE.md", "pyproject.toml", "package.json",
)  # fmt: skip


def _hex(rng: random.Random, size: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(size))


def _b64(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(size))


def _uuid(rng: random.Random) -> str:
    return f"{_hex(rng, 8)}-{_hex(rng, 4)}-4{_hex(rng, 3)}-a{_hex(rng, 3)}-{_hex(rng, 12)}"


def _prose(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(2, 6)):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 22))]
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words)), f"`{rng.choice(_IDENTS)}`")
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words)), rng.choice(_PATHS))
        sentences.append(" ".join(words).capitalize() + ".")
    return " ".join(sentences)


def _python(rng: random.Random) -> str:
    name, other = rng.choice(_IDENTS), rng.choice(_IDENTS)
    return (
        f"def load_{name}(self, {other}: str | None = None) -> dict[str, Any]:\n"
        f'    """Read the {name} for {other}."""\n'
        f"    item = self._table.get_item(Key={{'pk': {other}, 'sk': '{name}'}})\n"
        f"    if 'Item' not in item:\n"
        f"        raise NotFoundError({other})\n"
        f"    token = self._settings.api_token\n"
        f"    headers = {{'Authorization': f'Bearer {{token}}'}}\n"
        f"    return {{k: v for k, v in item['Item'].items() if k != 'password_hash'}}\n"
    )


def _typescript(rng: random.Random) -> str:
    name = rng.choice(_IDENTS)
    return (
        f"export async function fetch{name.title().replace('_', '')}(id: string): Promise<Result> {{\n"
        f"  const token = await getAccessToken();\n"
        f"  const res = await fetch(`${{API_URL}}/v1/{name}/${{id}}`, {{\n"
        f"    headers: {{ Authorization: `Bearer ${{token}}` }},\n"
        f"  }});\n"
        f"  if (!res.ok) throw new Error(`failed: ${{res.status}}`);\n"
        f"  return (await res.json()) as Result;\n"
        f"}}\n"
    )


def _git_log(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(5, 15)):
        lines.append(f"{_hex(rng, 7)} {' '.join(rng.choice(_WORDS) for _ in range(rng.randint(3, 8)))}")
    lines.append(
        f"commit {_hex(rng, 40)}\nAuthor: Dev <dev@example.com>\nDate:   Tue May 7 10:12:01 2024 +0200"
    )
    return "\n".join(lines)


def _pytest(rng: random.Random) -> str:
    lines = [
        f"{rng.choice(_PATHS)}::test_{rng.choice(_IDENTS)}_{i} PASSED [{i * 7 % 100:3d}%]" for i in range(12)
    ]
    where = f"line {rng.randint(10, 400)}, in {rng.choice(_IDENTS)}"
    lines.append(f'  File "/home/dev/project/{rng.choice(_PATHS)}", {where}')
    lines.append(f"=== {rng.randint(50, 400)} passed, 2 skipped in {rng.uniform(1, 30):.2f}s ===")
    return "\n".join(lines)


def _ls(rng: random.Random) -> str:
    return "\n".join(
        f"-rw-r--r--  1 dev staff {rng.randint(100, 90000):6d} May  7 10:{rng.randint(10, 59)} {path}"
        for path in rng.sample(_PATHS, 6)
    )


def _lockfile(rng: random.Random) -> str:
    name = rng.choice(["react", "lodash", "zod", "vite", "esbuild", "typescript"])
    return (
        f'    "node_modules/{name}": {{\n'
        f'      "version": "{rng.randint(1, 19)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",\n'
        f'      "resolved": "https://registry.npmjs.org/{name}/-/{name}-1.2.3.tgz",\n'
        f'      "integrity": "sha512-{_b64(rng, 86)}==",\n'
        f'      "license": "MIT"\n'
        f"    }},\n"
        f"requests==2.31.0 --hash=sha256:{_hex(rng, 64)}\n"
    )


def _api_json(rng: random.Random) -> str:
    return json.dumps(
        {
            "id": _uuid(rng),
            "session_id": _uuid(rng),
            "created_at": "2024-05-07T10:12:01.123Z",
            "status": rng.choice(["ok", "pending", "failed"]),
            "items": [{"key": rng.choice(_IDENTS), "etag": _hex(rng, 32), "size": rng.randint(1, 9999)}],
            "next_token": _b64(rng, 24),
        },
        indent=2,
    )


def _diff(rng: random.Random) -> str:
    name = rng.choice(_IDENTS)
    return (
        f"diff --git a/{rng.choice(_PATHS)} b/{rng.choice(_PATHS)}\n"
        f"index {_hex(rng, 7)}..{_hex(rng, 7)} 100644\n"
        f"@@ -{rng.randint(1, 200)},7 +{rng.randint(1, 200)},9 @@ def handle(event):\n"
        f"-    {name} = event['{name}']\n"
        f"+    {name} = event.get('{name}')\n"
        f"+    if {name} is None:\n"
        f"+        raise ValueError('missing {name}')\n"
    )


def _env_dump(rng: random.Random) -> str:
    return (
        "PATH=/usr/local/bin:/usr/bin:/bin\nHOME=/home/dev\nPWD=/home/dev/project\nSHELL=/bin/zsh\n"
        f"AWS_PROFILE=dev\nAWS_REGION=eu-west-1\nNODE_ENV=development\nSESSION_ID={_uuid(rng)}\n"
        "GITHUB_TOKEN=$(gh auth token)\nTOKENIZERS_PARALLELISM=false\n"
    )


_CHUNKS: tuple[Callable[[random.Random], str], ...] = (
    _prose, _prose, _prose, _python, _typescript, _git_log, _pytest, _ls, _lockfile, _api_json, _diff,
    _env_dump,
)  # fmt: skip


def _record(rng: random.Random, chunk: str) -> str:
    """A Claude Code transcript line around ``chunk``."""
    role = rng.choice(["assistant", "user"])
    content = (
        {"type": "text", "text": chunk}
        if role == "assistant"
        else {"type": "tool_result", "tool_use_id": f"toolu_01{_b64(rng, 22)}", "content": chunk}
    )
    return json.dumps(
        {
            "parentUuid": _uuid(rng),
            "sessionId": _uuid(rng),
            "type": role,
            "message": {
                "id": f"msg_01{_b64(rng, 22)}",
                "role": role,
                "content": [content],
                "usage": {"input_tokens": rng.randint(1, 9), "output_tokens": rng.randint(10, 900)},
            },
            "uuid": _uuid(rng),
            "timestamp": "2024-05-07T10:12:01.123Z",
            "cwd": "/home/dev/project",
        }
    )


def transcript_records(target_bytes: int = TARGET_BYTES, seed: int = 7) -> list[str]:
    """Realistic transcript text: 60% JSONL records, 40% plain chunks, a corpus positive every ~40 KB."""
    from tests.unit.redaction.support import load_positives

    rng = random.Random(seed)
    secrets = [positive.text for positive in load_positives()]
    records: list[str] = []
    size = 0
    while size < target_bytes:
        chunk = rng.choice(_CHUNKS)(rng)
        if rng.random() < 0.03:
            chunk = f"{chunk}\n{rng.choice(secrets)}\n"
        record = _record(rng, chunk) if rng.random() < 0.6 else chunk
        records.append(record)
        size += len(record)
    return records


def _throughput(redact: Callable[[str], object], records: list[str], whole: bool) -> float:
    text = "\n".join(records)
    timings = []
    for _ in range(PASSES):
        # CPU time of this process: "per core", and deaf to other processes on a shared machine.
        started = time.process_time()
        if whole:
            redact(text)
        else:
            for record in records:
                redact(record)
        timings.append(time.process_time() - started)
    return len(text.encode()) / 1e6 / statistics.median(timings)


def run() -> dict[str, float]:
    from continuity_core.redaction import redact, redact_with_report
    from tests.unit.redaction.support import score

    records = transcript_records()
    redact(records[0])  # compile the patterns outside the timing
    result = score(redact_with_report)
    return {
        "redaction_mb_per_s": _throughput(redact, records, whole=True),
        "redaction_record_mb_per_s": _throughput(redact, records, whole=False),
        "redaction_recall": result.recall,
        "redaction_false_positive_rate": result.false_positive_rate,
        "redaction_kind_accuracy": result.kind_accuracy,
    }


def _detect_secrets_redactor(whole_lines: bool = False) -> Callable[[str], tuple[str, dict[str, int]]]:
    """detect-secrets as a redactor: its file scan (all plugins, default filters) over the text.

    detect-secrets reports (line, value), and a value is sometimes a fragment (its GitHub plugin
    reports ``ghp``, its private-key plugin the BEGIN line), so each reported value is widened to
    the whitespace/quote-delimited token around it; ``whole_lines`` instead drops every flagged line
    (best recall it can give, at the cost of the surroundings).
    """
    import os
    import re
    import tempfile

    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    token = re.compile(r"[^\s\"'`]*")

    def widen(line: str, value: str) -> str:
        start = line.find(value)
        while start != -1:
            left = start
            while left and not line[left - 1].isspace() and line[left - 1] not in "\"'`":
                left -= 1
            right = token.match(line, start).end()  # type: ignore[union-attr]
            line = f"{line[:left]}[REDACTED:detect_secrets]{line[right:]}"
            start = line.find(value, left + 26)
        return line

    def redact(text: str) -> tuple[str, dict[str, int]]:
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "transcript.txt")
            with open(path, "w") as file:
                file.write(text)
            with default_settings():
                found = list(scan_file(path))
        lines = text.split("\n")
        for secret in found:
            index = secret.line_number - 1
            if whole_lines:
                lines[index] = "[REDACTED:detect_secrets]"
            elif secret.secret_value:
                lines[index] = widen(lines[index], secret.secret_value)
        return "\n".join(lines), {}

    return redact


def compare() -> None:
    """detect-secrets on the same corpus and text (docs/REDACTION.md)."""
    from tests.unit.redaction.support import score

    records = transcript_records(1_000_000)
    for label, whole_lines in (("token", False), ("line", True)):
        redact = _detect_secrets_redactor(whole_lines)
        result = score(redact)
        speed = _throughput(redact, records, whole=True)
        figures = f"recall {result.recall:.3f}, false positives {result.false_positive_rate:.3f}"
        print(f"detect-secrets ({label}): {figures}")
        print(f"  MB/s (1 MB of transcript, whole text): {speed:.2f}")
        missed: dict[str, int] = {}
        for positive in result.missed:
            missed[positive.kind] = missed.get(positive.kind, 0) + 1
        print("  missed by kind:", dict(sorted(missed.items())))
        for negative, _ in result.false_positives[:8]:
            print("  false positive:", repr(negative.text[:90]))


if __name__ == "__main__":
    if "--compare" in sys.argv:
        compare()
    else:
        print(json.dumps(run(), indent=2))
