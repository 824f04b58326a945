"""The redaction corpus and its score, shared by the tests and ``bench/bench_redaction.py``.

``corpus/positives.jsonl`` holds ``{"text", "kind", "secret"}``: ``text`` has ``@@SECRET@@`` where the
secret goes and ``secret`` is a recipe such as ``ghp_<alnum:36>``, expanded here with a seeded
generator. No key-shaped string is stored in the repository (secret scanners and GitHub's push
protection stay quiet) and every run sees the same fakes. ``negatives.jsonl`` holds ``{"text", "why"}``:
text that must come out unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).with_name("corpus")
SLOT = "@@SECRET@@"

_ALPHABETS = {
    "alnum": string.ascii_letters + string.digits,
    "alpha": string.ascii_letters,
    "upper": string.ascii_uppercase,
    "upper32": string.ascii_uppercase + "234567",
    "lower": string.ascii_lowercase,
    "lowalnum": string.ascii_lowercase + string.digits,
    "digits": string.digits,
    "hex": "0123456789abcdef",
    "b64": string.ascii_letters + string.digits + "+/",
    "b64url": string.ascii_letters + string.digits + "-_",
}
_GENERATOR = re.compile(r"<(\w+)(?::(\d+))?>")
_WORDS = ("Summer", "Falcon", "Orange", "Granite", "Velvet", "Harbor", "Maple", "Copper", "Juniper")


def _generate(name: str, length: int, rng: random.Random) -> str:
    if name == "password":  # how people make them: a word, digits, a symbol, a tail
        tail = "".join(rng.choice(_ALPHABETS["alnum"]) for _ in range(rng.randint(2, 5)))
        return f"{rng.choice(_WORDS)}{rng.randint(10, 9999)}{rng.choice('!#%&*+-_')}{tail}"
    if name == "jwt":  # a well-formed one: JSON header and claims, base64url, random signature
        return _jwt(rng)
    if name == "basic":
        password = "".join(rng.choice(_ALPHABETS["alnum"]) for _ in range(16))
        return base64.b64encode(f"svc-deploy:{password}".encode()).decode()
    alphabet = _ALPHABETS[name]
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        # Real keys mix their alphabet; a draw that happens to be all letters is re-drawn, so a fake
        # does not fail for being an unlikely key rather than for the detector's fault.
        if length < 8 or not set(alphabet) & set(string.digits) or any(c.isdigit() for c in value):
            return value


def _b64url_json(value: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    alg, signature = rng.choice([("HS256", 43), ("RS256", 342), ("ES256", 86)])
    claims = {
        "sub": "".join(rng.choice(_ALPHABETS["alnum"]) for _ in range(12)),
        "iat": rng.randint(1_600_000_000, 1_800_000_000),
        "scope": rng.choice(["read", "read write", "admin"]),
    }
    signed = "".join(rng.choice(_ALPHABETS["b64url"]) for _ in range(signature))
    return f"{_b64url_json({'alg': alg, 'typ': 'JWT'})}.{_b64url_json(claims)}.{signed}"


def expand(recipe: str, seed: str) -> str:
    rng = random.Random(seed)
    return _GENERATOR.sub(lambda m: _generate(m.group(1), int(m.group(2) or 0), rng), recipe)


@dataclass(frozen=True)
class Positive:
    text: str
    kind: str
    secret: str


@dataclass(frozen=True)
class Negative:
    text: str
    why: str


def _lines(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (CORPUS / name).read_text().splitlines() if line.strip()]


def load_positives() -> list[Positive]:
    positives = []
    for number, row in enumerate(_lines("positives.jsonl"), start=1):
        secret = expand(row["secret"], seed=f"{number}:{row['secret']}")
        positives.append(Positive(row["text"].replace(SLOT, secret), row["kind"], secret))
    return positives


def load_negatives() -> list[Negative]:
    return [Negative(row["text"], row["why"]) for row in _lines("negatives.jsonl")]


def leaked(secret: str, output: str) -> bool:
    """The secret, or any 8-character piece of a long one, is still in ``output``."""
    if secret in output:
        return True
    if len(secret) < 16:
        return False
    return any(secret[i : i + 8] in output for i in range(0, len(secret) - 7))


RedactWithReport = Callable[[str], tuple[str, dict[str, int]]]


@dataclass
class Score:
    positives: int
    negatives: int
    missed: list[Positive] = field(default_factory=list)
    wrong_kind: list[tuple[Positive, dict[str, int]]] = field(default_factory=list)
    false_positives: list[tuple[Negative, str]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return 1 - len(self.missed) / self.positives

    @property
    def false_positive_rate(self) -> float:
        return len(self.false_positives) / self.negatives

    @property
    def kind_accuracy(self) -> float:
        return 1 - (len(self.missed) + len(self.wrong_kind)) / self.positives


def score(
    redact: RedactWithReport, positives: list[Positive] | None = None, negatives: list[Negative] | None = None
) -> Score:
    """Recall: share of positives whose secret is gone. False-positive rate: share of negatives
    changed at all. Kinds are checked for redactors that report them (a report that is not empty)."""
    positives = load_positives() if positives is None else positives
    negatives = load_negatives() if negatives is None else negatives
    result = Score(len(positives), len(negatives))
    for positive in positives:
        output, report = redact(positive.text)
        if leaked(positive.secret, output):
            result.missed.append(positive)
        elif report and positive.kind not in report:
            result.wrong_kind.append((positive, report))
    for negative in negatives:
        output, _ = redact(negative.text)
        if output != negative.text:
            result.false_positives.append((negative, output))
    return result
