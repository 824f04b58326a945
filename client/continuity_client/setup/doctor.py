"""``continuity doctor``: check what a hook needs and say what to fix.

Checks the config file (present, mode 0600), URL, token, the service (``GET /api/health``), the
token (``GET /api/checkpoints?limit=1``: API Gateway's 401/403 means refused), the clock (the answer's
``Date`` header against ours), the hooks installed for each harness (user and project scope) and
the spool (pending hooks, hooks dropped for good, the back-off mark, the last log lines).
Exit 1 when anything failed.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import TextIO

from continuity_client.hook import harness, locallog, refusals, spool
from continuity_client.hook.transport import Response, TransportError, split_url
from continuity_client.setup import config, install, probe

CLOCK_SKEW_LIMIT_S = 60.0
REFUSED_SHOWN_S = 7 * 86400  # hooks dropped for good this long ago still show
PROBE_TIMEOUT_S = probe.PROBE_TIMEOUT_S


class Report:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.failures = 0
        self.warnings = 0

    def line(self, mark: str, text: str, fix: str = "") -> None:
        print(f"  [{mark}] {text}", file=self.out)
        if fix:
            print(f"         fix: {fix}", file=self.out)

    def ok(self, text: str) -> None:
        self.line("ok", text)

    def warn(self, text: str, fix: str = "") -> None:
        self.warnings += 1
        self.line("warn", text, fix)

    def fail(self, text: str, fix: str = "") -> None:
        self.failures += 1
        self.line("FAIL", text, fix)

    def section(self, title: str) -> None:
        print(title, file=self.out)


def main(argv: list[str], env: Mapping[str, str] | None = None, out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="continuity doctor", description="Check the client and say what to fix."
    )
    parser.add_argument(
        "--project-dir", default=None, help="project whose project-scope hooks to check (default: cwd)"
    )
    args = parser.parse_args(argv)
    environment = os.environ if env is None else env
    report = Report(sys.stdout if out is None else out)
    settings = config.Settings(environment)
    check_config(report, settings)
    if settings.configured:
        check_service(report, settings, environment)
    check_hooks(report, environment, args.project_dir)
    check_spool(report, settings)
    summary = f"{report.failures} problem(s), {report.warnings} warning(s)"
    report.section("all good" if not report.failures and not report.warnings else summary)
    return 1 if report.failures else 0


def check_config(report: Report, settings: config.Settings) -> None:
    report.section("configuration")
    login_fix = "continuity login --url URL --token TOKEN"
    path = settings.config_file
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        report.line("info", f"no config file at {path} (environment only)")
    else:
        if mode & 0o077:
            report.fail(
                f"{path} is readable by others (mode {mode:o}); it holds the token", f"chmod 600 {path}"
            )
        else:
            report.ok(f"config file {path} (mode {mode:o})")
    if not settings.url:
        report.fail("no service URL", login_fix + "  (or set CONTINUITY_URL)")
    elif probe.base_url_problem(settings.url):
        where = settings.sources.get("url", "")
        report.fail(f"{probe.base_url_problem(settings.url)} (from {where})", probe.BASE_URL_FIX)
    else:
        try:
            scheme, host, _, _ = split_url(settings.url)
        except TransportError as error:
            report.fail(str(error), login_fix)
        else:
            where = settings.sources.get("url", "")
            if scheme == "http" and host not in ("localhost", "127.0.0.1", "::1"):
                report.warn(
                    f"URL {settings.url} is not https (from {where})", "use the https URL of the service"
                )
            else:
                report.ok(f"URL {settings.url} (from {where})")
    if not settings.token:
        report.fail("no token", login_fix + "  (or set CONTINUITY_TOKEN)")
    else:
        report.ok(f"token {settings.token[:4]}... (from {settings.sources.get('token', '')})")
    timeouts = ", ".join(f"{event} {settings.timeout_for(event):g}s" for event in harness.EVENTS)
    report.line("info", f"hook timeouts: {timeouts}")


def check_service(report: Report, settings: config.Settings, env: Mapping[str, str]) -> None:
    report.section("service")
    try:
        health = probe.health(settings.url, env, PROBE_TIMEOUT_S)
    except probe.ProbeError as error:
        # A wrong base URL is a failure, not a warning: every hook would be dropped as a 404.
        report.fail(str(error), error.fix)
        return
    report.ok(f"GET /api/health: {health.status}")
    check_clock(report, health)
    try:
        report.ok(probe.token_accepted(settings.url, settings.token, env, PROBE_TIMEOUT_S))
    except probe.ProbeError as error:
        report.fail(str(error), error.fix or "continuity login --url URL --token TOKEN")


def check_clock(report: Report, response: Response) -> None:
    date = response.headers.get("date")
    if not date:
        report.line("info", "clock: the service sent no Date header; not checked")
        return
    try:
        skew = time.time() - parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError):
        report.line("info", f"clock: unreadable Date header {date!r}")
        return
    if abs(skew) > CLOCK_SKEW_LIMIT_S:
        report.fail(
            f"clock is {skew:+.0f}s off the service's",
            "sync the system clock (checkpoint times and recovery windows depend on it)",
        )
    else:
        report.ok(f"clock within {abs(skew):.0f}s of the service")


def check_hooks(report: Report, env: Mapping[str, str], project_dir: str | None) -> None:
    report.section("hooks")
    seen: set[str] = set()
    any_installed = check_plugins(report, env, project_dir)
    for name in harness.HOOK_HARNESSES:
        for scope in ("user", "project"):
            path = install.settings_path(name, scope, project_dir, env)
            if path in seen:  # the project is the home folder
                continue
            seen.add(path)
            events = install.installed_events(path)
            if not events:
                continue
            any_installed = True
            expected = set(harness.HARNESS_EVENTS[name].values())
            missing = sorted(expected - set(events))
            if missing:
                report.warn(
                    f"{name} ({scope}): {path} lacks {', '.join(missing)}",
                    f"continuity install {name} --scope {scope}",
                )
            else:
                report.ok(f"{name} ({scope}): {path}")
            for command in install.our_commands(path)[:1]:
                for broken in _broken_paths(_hook_words(command)):
                    report.fail(
                        f"{name} ({scope}) runs {broken}, which is not there or not executable",
                        f"continuity install {name} --scope {scope}",
                    )
    if not any_installed:
        report.fail(
            "no hooks installed for Claude Code, Codex, Gemini CLI, OpenCode or OpenClaw",
            "continuity install claude-code   (or codex, gemini, opencode, openclaw;"
            " --scope project for one repository)",
        )


def _broken_paths(words: list[str]) -> list[str]:
    """The absolute paths of a command that are missing: the program (not executable) or a file it
    runs (``hook_main.py``)."""
    broken = []
    for index, word in enumerate(words):
        if os.path.isabs(word):
            ok = os.access(word, os.X_OK) if index == 0 else os.path.isfile(word)
            if not ok:
                broken.append(word)
    return broken


def _hook_words(command: str) -> list[str]:
    """The words of a hook command before `` hook `` (a shell line)."""
    import shlex

    try:
        return shlex.split(command.split(" hook ", 1)[0])
    except ValueError:
        return []


def check_plugins(report: Report, env: Mapping[str, str], project_dir: str | None) -> bool:
    """OpenCode and OpenClaw: our plugin entry, its file and the command it runs. True if any is installed."""
    from continuity_client.setup import plugin_install

    found = False
    for name in harness.PLUGIN_HARNESSES:
        for scope in ("user", "project"):
            try:
                path = plugin_install.config_path(name, scope, project_dir, env)
            except install.InstallError:
                continue  # OpenClaw has no project scope
            command = plugin_install.installed_command(path, name)
            if command is None:
                continue
            found = True
            fix = f"continuity install {name} --scope {scope}"
            if not os.path.isfile(plugin_install.plugin_file(name)):
                report.fail(f"{name} ({scope}): {path} loads a plugin this client does not have", fix)
            elif _broken_paths(command):
                broken = ", ".join(_broken_paths(command))
                report.fail(f"{name} ({scope}) runs {broken}, which is not there or not executable", fix)
            else:
                report.ok(f"{name} ({scope}): {path} (plugin)")
    return found


def check_spool(report: Report, settings: config.Settings) -> None:
    report.section("spool")
    info = spool.summary(settings.home)
    if info["records"]:
        age = time.time() - info["oldest"] if info["oldest"] else 0.0
        report.warn(
            f"{info['records']} hook(s) of {info['sessions']} session(s) waiting, oldest {age / 60:.0f} min,"
            f" {info['bytes']} bytes (cap {settings.spool_max_bytes})",
            "they replay on the next hook; `continuity flush` replays them now",
        )
    else:
        report.ok("spool empty")
    since = time.time() - REFUSED_SHOWN_S
    days = REFUSED_SHOWN_S // 86400
    not_json = refusals.recent(settings.home, since, refusals.NOT_JSON)
    if not_json:
        report.fail(
            f"{len(not_json)} hook(s) in the last {days} days got stdin that is not a JSON object, so "
            f"nothing was posted; last {not_json[-1].get('key')}: {not_json[-1].get('reason')}",
            "the harness pipes its hook JSON to `continuity hook EVENT`: check the hook command in its "
            "settings (`continuity install HARNESS` rewrites it)",
        )
    no_login = refusals.recent(settings.home, since, refusals.NO_LOGIN)
    if no_login:
        when = locallog.utc_stamp(no_login[-1]["at"])
        report.warn(
            f"{len(no_login)} hook(s) in the last {days} days found no login and were dropped "
            f"(last at {when})",
            "`continuity login --url URL --token TOKEN`",
        )
    refused = refusals.recent(settings.home, since, refusals.REFUSED)
    if refused:
        last = refused[-1]
        report.warn(
            f"{len(refused)} hook(s) dropped in the last {REFUSED_SHOWN_S // 86400} days and not retried;"
            f" last {last.get('key')}: {last.get('reason')}",
            "a 4xx is final (the same hook would be refused again); see the log for each",
        )
    down = spool.down_until(settings.home) - time.time()
    if down > 0:
        report.warn(f"service marked unavailable for {down:.0f}s more (hooks spool meanwhile)")
    for line in locallog.tail(settings.home, 3):
        report.line("log", line)
