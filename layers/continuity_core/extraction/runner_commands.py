"""What a shell command says about a test run: the runner it invokes (through wrappers like ``uv
run``, ``npx``, ``timeout``, ``make test``; ``invocation``) and what its arguments restrict the run to
(``run_scope``: paths, packages, name filters, tests left out, restrictions no test id can be matched
against).
"""

from __future__ import annotations

import re

# --- the command -----------------------------------------------------------------------------------

_SHELL_TOKEN = re.compile(
    r"""\s*(?:
        (?P<redirect>\d*(?:&>>?|>>|>&|<&|>\||>|<))
      | (?P<op>&&|\|\||[;|&()\n])
      | (?P<word>(?:[^\s'"\\;|&()<>]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+)
    )""",
    re.VERBOSE,
)
_QUOTED = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)""")


def _segments(command: str) -> list[list[str]]:
    """The simple commands of a shell line, each as its words (quotes removed, redirects dropped)."""
    segments: list[list[str]] = [[]]
    skip_next = False
    position = 0
    while position < len(command):
        m = _SHELL_TOKEN.match(command, position)
        if not m or m.end() == position:
            position += 1
            continue
        position = m.end()
        if m.group("redirect"):
            skip_next = True  # the redirect's target: `> out.log`, `2>&1`
        elif m.group("op"):
            segments.append([])
            skip_next = False
        elif m.group("word") is not None:
            if skip_next:
                skip_next = False
                continue
            word = _QUOTED.sub(lambda q: q.group(1) or q.group(2) or q.group(3) or "", m.group("word"))
            segments[-1].append(word)
    return [s for s in segments if s]


_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_WRAPPERS = {"env", "time", "sudo", "nice", "nohup", "command", "exec", "xvfb-run", "stdbuf", "caffeinate"}
_RUN_WRAPPERS = {"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run", "rye": "run"}
_PYTHON = re.compile(r"^(?:python|python3|python3\.\d+|py|pypy3?)$")
_GRADLE_TEST_TASK = re.compile(r"^(?::?[\w-]+:)*(?:test\w*|check|build|\w*[tT]est)$")
_MAVEN_TEST_GOALS = {"test", "verify", "install", "package", "integration-test", "surefire:test", "deploy"}
_JS_TOOLS = {"npm", "yarn", "pnpm", "bun"}


def invocation(command: str) -> tuple[str, list[str]] | None:
    """The runner a command invokes and the words after it; "js" and "any" when only the output can say."""
    for words in _segments(command):
        found = _invoked(words)
        if found:
            return found
    return None


def _invoked(words: list[str]) -> tuple[str, list[str]] | None:
    i = 0
    while i < len(words):
        word, base = words[i], words[i].rsplit("/", 1)[-1]
        rest = words[i + 1 :]
        if _ASSIGNMENT.match(word) or base in _WRAPPERS:
            i += 1
        elif base == "timeout":
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
            i += 1  # the duration
        elif base in _RUN_WRAPPERS and rest[:1] == [_RUN_WRAPPERS[base]]:
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif (base == "bundle" and rest[:1] == ["exec"]) or base in ("npx", "bunx", "pnpx"):
            i += 2 if base == "bundle" else 1
            while i < len(words) and words[i].startswith("-"):
                i += 1
        elif base in ("pytest", "py.test"):
            return "pytest", rest
        elif _PYTHON.match(base) or base == "coverage":
            return _python_module(rest)
        elif base == "go":
            return ("go", rest[1:]) if rest[:1] == ["test"] else None
        elif base == "cargo":
            rest = [w for w in rest if not w.startswith("+")]
            if rest[:1] in (["test"], ["t"]):
                return "cargo", rest[1:]
            return ("cargo", rest[2:]) if rest[:2] == ["nextest", "run"] else None
        elif base in ("vitest", "jest"):
            return base, rest
        elif base in _JS_TOOLS:
            return _js_script(base, rest)
        elif base in ("gradle", "gradlew", "gradlew.bat"):
            return ("gradle", rest) if any(_GRADLE_TEST_TASK.match(w) for w in rest) else None
        elif base in ("mvn", "mvnw", "mvnw.cmd"):
            goals = {w for w in rest if not w.startswith("-")}
            skipping = any(w.startswith(("-DskipTests", "-Dmaven.test.skip")) for w in rest)
            return ("maven", rest) if goals & _MAVEN_TEST_GOALS and not skipping else None
        elif base == "ctest":
            return "ctest", rest
        elif base in ("make", "ninja", "tox", "nox"):
            targets = {w for w in rest if not w.startswith("-")}
            runs_tests = base in ("tox", "nox") or bool({"test", "check", "tests"} & targets)
            return ("any", rest) if runs_tests else None
        elif base == "rspec" or (base == "rake" and rest[:1] == ["spec"]):
            return "rspec", rest if base == "rspec" else rest[1:]
        else:
            return None
    return None


def _python_module(words: list[str]) -> tuple[str, list[str]] | None:
    if words[:1] == ["manage.py"] and words[1:2] == ["test"]:
        return "unittest", words[2:]
    for n, word in enumerate(words):
        if word == "-m" and n + 1 < len(words):
            module = words[n + 1]
            if module == "pytest":
                return "pytest", words[n + 2 :]
            if module == "unittest":
                return "unittest", words[n + 2 :]
            return None
        if not word.startswith("-") and word != "run":
            return None
    return None


def _js_script(tool: str, words: list[str]) -> tuple[str, list[str]] | None:
    words = [w for w in words if w not in ("--silent", "-s", "--if-present")]
    if words[:1] in (["test"], ["t"]):
        return "js", [w for w in words[1:] if w != "--"]
    if words[:1] in (["run"], ["run-script"]) and words[1:2] and re.match(r"^test\b", words[1]):
        return "js", [w for w in words[2:] if w != "--"]
    if tool != "npm" and words[:1] in (["vitest"], ["jest"]):
        return words[0], words[1:]
    if tool == "pnpm" and words[:1] in (["exec"], ["dlx"]) and words[1:2] in (["vitest"], ["jest"]):
        return words[1], words[2:]
    return None


def _options(value: str = "", scope: str = "", exclude: str = "", opaque: str = "") -> dict[str, str]:
    kinds: dict[str, str] = {}
    for kind, names in (("value", value), ("scope", scope), ("exclude", exclude), ("opaque", opaque)):
        kinds.update(dict.fromkeys(names.split(), kind))
    return kinds


# Per runner, the options that take a value and what the value says about the run's scope: a name
# filter ("scope"), tests left out ("exclude": kept as "not X"), a restriction no test id can be
# matched against ("opaque": kept with its option, so such a run clears nothing by its scope), or
# nothing ("value").
_OPTIONS = {
    "pytest": _options(
        value="-c -o -p -n -W --rootdir --basetemp --maxfail --tb --durations --junitxml --junit-xml --cov "
        "--cov-report --cov-config --cov-fail-under --log-level --log-cli-level --import-mode --confcutdir "
        "--timeout --dist --count --reruns --randomly-seed --color --capture --override-ini --html",
        scope="-k",
        exclude="--deselect --ignore --ignore-glob",
        opaque="-m",
    ),
    "unittest": _options(value="-t", scope="-k -s", opaque="-p"),
    "go": _options(
        value="-count -timeout -p -parallel -tags -coverprofile -covermode -coverpkg -bench -benchtime -cpu "
        "-o -exec -shuffle -ldflags -gcflags -mod -C -fuzztime",
        scope="-run -list",
        exclude="-skip",
    ),
    "cargo": _options(
        value="--features -F --target --target-dir -j --jobs --manifest-path --profile --color "
        "--message-format -Z --config --test-threads --partition --retries",
        exclude="--skip",
        opaque="-p --package --test --bin --example --bench -E --filterset",
    ),
    "vitest": _options(
        value="-c --config -r --root --dir --reporter --outputFile --environment --pool --shard --mode",
        scope="-t --testNamePattern",
        opaque="--project",
    ),
    "jest": _options(
        value="-c --config --reporters -w --maxWorkers --shard --testTimeout --coverageReporters",
        scope="-t --testNamePattern --testPathPattern",
        opaque="--selectProjects",
    ),
    "gradle": _options(
        value="-x --exclude-task --max-workers -I --init-script -c --settings-file -g --gradle-user-home",
        scope="--tests",
        opaque="-p --project-dir",
    ),
    "maven": _options(
        value="-P --activate-profiles -f --file -s --settings -T --threads -rf --resume-from",
        opaque="-pl --projects",
    ),
    "ctest": _options(
        value="-C --build-config --test-dir --timeout --repeat -O --output-log --output-junit --stop-time",
        scope="-R --tests-regex",
        exclude="-E --exclude-regex",
        opaque="-L --label-regex -LE --label-exclude -I --tests-information",
    ),
    "rspec": _options(
        value="-f --format -o --out --seed --order -r --require -I --default-path",
        scope="-e --example",
        opaque="-t --tag --pattern --exclude-pattern",
    ),
}
_WHOLE_SUITE = {".", "./", "./...", "...", "all"}
_OPTIONAL_NUMBER = {"-j", "--parallel", "-n"}  # `ctest -j`, `-j 8`; `pytest -n auto`


def run_scope(runner: str, words: list[str]) -> tuple[str, ...]:
    """What the command's arguments restrict the run to; empty for the whole suite."""
    kinds = _OPTIONS.get(runner, {})
    scope: list[str] = []
    positional: list[str] = []
    n = 0
    while n < len(words):
        word = words[n]
        n += 1
        if word == "--" or not word.startswith("-") or len(word) == 1:
            if word != "--":
                positional.append(word)
            continue
        option, value = word.split("=", 1) if "=" in word else (word, None)
        if runner == "maven" and option in ("-Dtest", "-Dit.test"):
            scope.extend(v for v in (value or "").split(",") if v)
            continue
        kind = kinds.get(option)
        if kind is None:
            if option in _OPTIONAL_NUMBER and n < len(words) and re.match(r"^(\d+|auto|logical)$", words[n]):
                n += 1
            continue
        if value is None:
            if n >= len(words):
                break
            value, n = words[n], n + 1
        if kind == "scope":
            scope.append(value)
        elif kind == "exclude":
            scope.append(f"not {value}")
        elif kind == "opaque":
            scope.append(f"{option} {value}")
    if runner == "unittest" and positional[:1] == ["discover"]:
        scope += positional[1:2] + [f"-p {p}" for p in positional[2:3]]
        positional = []
    elif runner == "vitest" and positional[:1] in (["run"], ["watch"], ["dev"], ["related"]):
        positional = positional[1:]
    elif runner == "go" and not positional:
        positional = ["."]  # the package in the working directory, not the whole module
    elif runner == "go":
        positional = [p for p in positional if p not in _WHOLE_SUITE]
    elif runner == "gradle":
        positional = [t for t in positional if re.match(r"^:?[\w-]+:[\w:-]+$", t)]  # :app:test
    elif runner in ("maven", "ctest"):
        positional = []
    if runner != "go":
        positional = [p for p in positional if p not in _WHOLE_SUITE]
    return tuple(dict.fromkeys(s for s in [*positional, *scope] if s))
