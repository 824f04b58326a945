"""The service's agent API, for people (``continuity status|checkpoint|recover``) and agents (MCP).

Every call finds "the current session" the same way (``Target.resolve``): an explicit session
and project win (a project is a directory when one exists at that path, else a project id, as
``continuity projects`` lists it); else the project is ``CONTINUITY_PROJECT_DIR`` / ``CLAUDE_PROJECT_DIR`` /
``GEMINI_PROJECT_DIR`` / the working directory (or its nearest parent the hooks reported), and
the session is ``CONTINUITY_SESSION_ID`` or the one the hooks last saw for that project.

Not on the hook path: it may import what it likes, but still needs nothing outside the standard
library.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.parse
from collections.abc import Callable, Mapping

from continuity_client.hook import current, delivery, machine, project_id, spool, transcript_cursor
from continuity_client.hook.transport import TransportError, request
from continuity_client.setup import config

TIMEOUT_S = 10.0
# Who the person at this machine is, for hand-offs addressed by name (``--to``); without it, the
# service takes the name of the token the request comes with.
USER_ENV = "CONTINUITY_USER"
UNCOMMITTED_SENT = 500  # paths listed in a hand-off (the service's bound); the rest are counted
PENDING_S = 2.0  # at most this long delivering the session's spooled hooks before a checkpoint
LEDGER_PAGE = 200


class ServiceError(Exception):
    """A call failed: not configured, unreachable, or an error answer (``status`` > 0)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class Target:
    """The session and project a call is about: ``project`` is the project's id (what the service
    keys it by, ``hook.project_id``), ``folder`` the real path it was derived from (what the local
    current-session files and data written before project ids are keyed by)."""

    __slots__ = ("branch", "folder", "harness", "project", "session", "source")

    def __init__(
        self,
        folder: str,
        session: str | None,
        harness: str | None,
        source: str,
        env: Mapping[str, str],
        identity: project_id.ProjectIdentity | None = None,
    ) -> None:
        identity = identity or project_id.derive(folder, env)
        self.folder = folder
        self.project = identity.id
        self.branch = identity.branch
        self.session = session
        self.harness = harness
        self.source = source  # how the session was found, for messages

    @classmethod
    def resolve(
        cls,
        env: Mapping[str, str],
        home: str,
        project: str | None = None,
        session: str | None = None,
    ) -> Target:
        if project and not os.path.isdir(os.path.expanduser(project)):
            return cls._of_id(env, home, project, session)
        start = current.project_root(env, project)
        root, seen = current.find(home, start) if not project else (start, current.read(home, start))
        if session:
            return cls(root, session, seen.get("harness") if seen else None, "given", env)
        from_env = env.get("CONTINUITY_SESSION_ID")
        if from_env:
            return cls(root, from_env, seen.get("harness") if seen else None, "CONTINUITY_SESSION_ID", env)
        if seen is not None:
            return cls(root, str(seen["session_id"]), seen.get("harness"), "last hook", env)
        return cls(start, None, None, "none", env)

    @classmethod
    def _of_id(cls, env: Mapping[str, str], home: str, project: str, session: str | None) -> Target:
        """A project named by its id: its folder on this machine is the one the hooks saw last with
        that id (its current session too); without one, the id stands for the folder and only an
        explicit session (or ``CONTINUITY_SESSION_ID``) is current."""
        wanted = project.strip()
        known = _known_folder(env, home, wanted)
        if known is not None:
            folder, seen, identity = known
            harness = seen.get("harness")
            if session:
                return cls(folder, session, harness, "given", env, identity)
            from_env = env.get("CONTINUITY_SESSION_ID")
            if from_env:
                return cls(folder, from_env, harness, "CONTINUITY_SESSION_ID", env, identity)
            return cls(folder, str(seen["session_id"]), harness, "last hook", env, identity)
        identity = project_id.ProjectIdentity(wanted, wanted, wanted, None, "given")
        given = session or env.get("CONTINUITY_SESSION_ID")
        source = "none" if not given else "given" if session else "CONTINUITY_SESSION_ID"
        return cls(wanted, given or None, None, source, env, identity)

    def need_session(self) -> str:
        if not self.session:
            raise ServiceError(
                f"no current session for {self.project}: no hook has reported one yet "
                "(pass a session key, or set CONTINUITY_SESSION_ID)"
            )
        return self.session


def _known_folder(
    env: Mapping[str, str], home: str, wanted: str
) -> tuple[str, dict, project_id.ProjectIdentity] | None:
    """(folder, its last session record, its identity) of the folder on this machine whose project
    is ``wanted``, the one a hook saw last; None when no hook here has seen that project."""
    folder = os.path.join(home, current.PROJECTS_DIR)
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    best: tuple[float, str, dict, project_id.ProjectIdentity] | None = None
    for name in names:
        try:
            with open(os.path.join(folder, name), "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            continue
        path = data.get("project") if isinstance(data, dict) else None
        if not isinstance(path, str) or not data.get("session_id") or not os.path.isdir(path):
            continue
        seen_at = data.get("seen_at")
        seen_at = float(seen_at) if isinstance(seen_at, (int, float)) else 0.0
        identity = project_id.derive(path, env)
        if identity.id == wanted and (best is None or seen_at > best[0]):
            best = (seen_at, path, data, identity)
    return (best[1], best[2], best[3]) if best else None


class Client:
    """Calls to the service with the user's settings."""

    def __init__(self, env: Mapping[str, str] | None = None, timeout: float = TIMEOUT_S) -> None:
        self.env = os.environ if env is None else env
        self.settings = config.Settings(self.env)
        self.timeout = timeout

    @property
    def home(self) -> str:
        return self.settings.home

    def target(self, project: str | None = None, session: str | None = None) -> Target:
        return Target.resolve(self.env, self.home, project, session)

    def call(self, method: str, path: str, body: dict | None = None, query: dict | None = None) -> dict:
        if not self.settings.configured:
            raise ServiceError("not configured: run `continuity login --url URL --token TOKEN`")
        if query:
            pairs = {k: str(v) for k, v in query.items() if v is not None and v != ""}
            path = f"{path}?{urllib.parse.urlencode(pairs)}" if pairs else path
        headers = {"Authorization": f"Bearer {self.settings.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        try:
            answer = request(method, self.settings.url, path, data, headers, self.timeout, self.env)
        except TransportError as error:
            raise ServiceError(f"the service cannot be reached: {error}") from None
        try:
            parsed = json.loads(answer.body or b"{}")
        except ValueError:
            parsed = {}
        if not 200 <= answer.status < 300:
            raise ServiceError(delivery.describe_error(answer.status, parsed, answer.body), answer.status)
        return parsed if isinstance(parsed, dict) else {}

    # ---- what the agent writes ----------------------------------------------------------------

    def deliver_pending(self, session: str) -> None:
        """The session's spooled hooks first: a prompt's background delivery may be under way (this
        waits for it, up to PENDING_S), so an explicit checkpoint covers every prompt typed before.
        Nothing is tried while the service is marked down."""
        path = spool.spool_file(self.home, session)
        if not self.settings.configured or not spool.has_pending(path) or self._marked_down():
            return
        deadline = time.monotonic() + PENDING_S
        lock = spool.claim(path, deadline)
        if lock < 0:
            return
        try:
            if spool.has_pending(path) and not self._marked_down():
                sender = delivery.Delivery(self.settings, self.env, delivery.logger(self.home), deadline)
                sender.replay([path], deadline, (path,))
        finally:
            spool.release(lock)

    def _marked_down(self) -> bool:
        return spool.down_until(self.home) > time.time()

    def digest(self, target: Target, digest: dict) -> dict:
        """POST the agent's digest; ``digest`` holds summary, decisions, next_steps, ..."""
        session = target.need_session()
        body = {k: v for k, v in digest.items() if v not in (None, [], "")}
        body.update(project=target.folder, project_normalized=target.project)
        if target.harness:
            body["harness"] = target.harness
        # Named by its content: the same digest sent again (the agent retrying after a cut answer or
        # an error) is stored once by the service, and answered with the checkpoint stored first.
        canonical = json.dumps([session, body], sort_keys=True, ensure_ascii=False).encode("utf-8")
        body["idempotency_key"] = "digest:" + hashlib.sha256(canonical).hexdigest()[:32]
        quoted = urllib.parse.quote(session, safe="")
        return self.call("POST", f"/api/sessions/{quoted}/digest", body).get("checkpoint") or {}

    def checkpoint(self, target: Target) -> dict:
        session = target.need_session()
        self.deliver_pending(session)
        quoted = urllib.parse.quote(session, safe="")
        return self.call("POST", f"/api/sessions/{quoted}/checkpoint", {}).get("checkpoint") or {}

    def handoff(
        self, target: Target, note: str | None = None, to: str | None = None, git: dict | None = None
    ) -> dict:
        """Hand the session's work to the next session of the project: the pending hooks first (so
        the hand-off's checkpoint covers every prompt), then the hand-off with ``git``'s state
        (``git_state``: branch, commit, uncommitted paths). Answers the hand-off as listed."""
        session = target.need_session()
        self.deliver_pending(session)
        body: dict = {"note": note, "to": to, **(git or {})}
        user = "".join(c for c in self.env.get(USER_ENV, "") if c.isprintable()).strip()[:128]
        if user:
            body["user"] = user
        # Where it was handed off from, for the receiving block ("Claude Code, on ana-laptop").
        body["machine"] = machine.machine_name(self.env, self.settings.file_values)
        body = {k: v for k, v in body.items() if v not in (None, "", [])}
        quoted = urllib.parse.quote(session, safe="")
        return self.call("POST", f"/api/sessions/{quoted}/handoff", body).get("handoff") or {}

    def remember(self, target: Target, content: str) -> str:
        """Post a remember hook; spooled (replayed by the next hook) when the service is away.

        Answers "sent" or "spooled".
        """
        session = target.need_session()
        key = spool.hook_key(self.home, session, "remember")
        body = {
            "session_id": session,
            "cwd": target.folder,
            "project_normalized": target.project,
            "project_path": target.folder,
            "harness": target.harness or "claude-code",
            "content": content,
            "idempotency_key": key,
        }
        try:
            self.call("POST", "/api/hooks/remember", body)
        except ServiceError as error:
            if not delivery.retryable(error.status):
                raise
            record = {"event": "remember", "key": key, "at": time.time(), "body": body}
            spool.append(self.home, session, record, self.settings.spool_max_bytes)
            return "spooled"
        return "sent"

    # ---- what the agent reads -----------------------------------------------------------------

    def recover(self, target: Target, level: int, query: str | None = None) -> dict:
        if level not in (1, 2, 3):
            raise ServiceError("level must be 1, 2 or 3")
        params = {"project": target.project, "session_key": target.session, "level": level, "query": query}
        return self.call("GET", "/api/recovery", query=params)

    def search(self, target: Target, query: str, scope: str = "project", limit: int = 5) -> list[dict]:
        """Transcript search: ``scope`` is ``session``, ``project`` (default) or ``all``."""
        body: dict = {"query": query, "limit": max(1, min(int(limit), 20))}
        if scope == "session":
            body["session_key"] = target.need_session()
        elif scope == "project":
            body["project"] = target.project
        results = self.call("POST", "/api/sessions/search", body).get("results")
        return [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []

    def projects(self, limit: int = 50, next_token: str | None = None) -> dict:
        """One page of the agent's projects, newest first."""
        return self.call("GET", "/api/projects", query={"limit": limit, "next_token": next_token})

    def sessions(self, project: str, limit: int = 20, next_token: str | None = None) -> dict:
        """One page of the project's sessions with a transcript, newest first."""
        query = {"project": project, "limit": limit, "next_token": next_token}
        return self.call("GET", "/api/sessions", query=query)

    def transcript(self, session: str, offset: int = 0, limit: int | None = None) -> dict:
        """One page of a session's stored transcript (``next_offset`` while there is more)."""
        quoted = urllib.parse.quote(session, safe="")
        query = {"offset": offset, "limit": limit}
        return self.call("GET", f"/api/sessions/{quoted}/transcript", query=query)

    def ledger(self, project: str, limit: int = 50, next_token: str | None = None) -> dict:
        query = {"project": project, "limit": limit, "next_token": next_token}
        return self.call("GET", "/api/ledger", query=query)

    def preview(self, project: str | Target, cap: int | None = None) -> dict:
        """What a session starting now in ``project`` would be given, within ``cap`` characters (the
        harness's injection cap; the service's default when None). Nothing is written. Given a
        target, the preview carries what its session-start hook would: the folder, branch and user."""
        query: dict = {"project": project, "injection_cap_chars": cap}
        if isinstance(project, Target):
            query.update(project=project.project, project_path=project.folder, branch=project.branch)
            query["user"] = machine.user(self.env, self.settings.file_values)
        return self.call("GET", "/api/preview", query=query)

    def forget_session(self, session: str) -> dict:
        quoted = urllib.parse.quote(session, safe="")
        return self.call("DELETE", f"/api/sessions/{quoted}")

    def forget_project(self, project: str) -> dict:
        return self.call("DELETE", "/api/projects", query={"project": project})

    def ledger_size(self, project: str) -> tuple[int, bool]:
        """(decisions counted, whether there are more than one page)."""
        page = self.call("GET", "/api/ledger", query={"project": project, "limit": LEDGER_PAGE})
        entries = page.get("entries")
        return (len(entries) if isinstance(entries, list) else 0), bool(page.get("next_token"))

    def status(self, target: Target) -> dict:
        """What the service holds for the session and project, and what waits locally."""
        report: dict = {"project": target.project, "session": target.session, "found_by": target.source}
        if target.session:
            quoted = urllib.parse.quote(target.session, safe="")
            found = self.call("GET", f"/api/checkpoints/{quoted}").get("checkpoints") or []
            report["session_checkpoints"] = len(found)
            report["latest_session_checkpoint"] = _brief(found[-1]) if found else None
            cursor = transcript_cursor.peek(self.home, target.session)
            if cursor is not None:
                report["transcript_chars_sent"] = cursor["chars"]
                report["transcript_chars_since_compaction"] = cursor["chars"] - cursor["boundary"]
            records, _ = spool.read_records(spool.spool_file(self.home, target.session))
            report["spooled_hooks"] = len(records)
            report["spooled_prompts"] = sum(1 for r in records if r.get("event") == "user-prompt-submit")
            report["digest_decisions"] = _digest_decisions(found[-1]) if found else 0
            row = self._session_row(target.project, target.session)
            if row is not None:
                covered = int((found[-1].get("last_prompt") or 0) if found else 0)
                report["service_prompts"] = int(row.get("prompts") or 0)
                report["pending_prompts"] = max(0, report["service_prompts"] - covered)
                report["service_last_heard"] = row.get("last_activity_at")
            report["hooks_reaching_service"] = self._reaching(report, records)
        latest = self.call("GET", "/api/checkpoints", query={"project": target.project, "limit": 1})
        newest = latest.get("checkpoints") or []
        report["latest_project_checkpoint"] = _brief(newest[0]) if newest else None
        count, more = self.ledger_size(target.project)
        report["ledger_decisions"] = f"{count}+" if more else count
        return report

    def _session_row(self, project: str, session: str) -> dict | None:
        """The service's counters of the session (the dashboard's sessions page), None when it has
        none among the project's newest (or is older than the route)."""
        try:
            rows = self.call("GET", "/api/sessions/overview", query={"project": project, "limit": 100})
        except ServiceError:
            return None
        found = [
            r for r in rows.get("sessions") or [] if isinstance(r, dict) and r.get("session_key") == session
        ]
        return found[0] if found else None

    def _reaching(self, report: dict, records: list[dict]) -> dict:
        """Whether this machine's hooks reach the service: yes / no / partly, and why."""
        from continuity_client.hook import refusals

        day = time.time() - 86400
        refused = refusals.recent(self.home, day)
        down = spool.down_until(self.home) - time.time()
        problems = []
        if records:
            oldest = min(float(r.get("at") or time.time()) for r in records)
            problems.append(
                f"{len(records)} hook(s) waiting in the spool, oldest {(time.time() - oldest) / 60:.0f} min"
            )
        if down > 0:
            problems.append(f"the service is marked unavailable for {down:.0f}s more")
        kinds = {
            refusals.REFUSED: "refused by the service",
            refusals.NOT_JSON: "with stdin that is not JSON",
            refusals.NO_LOGIN: "without a login",
        }
        for kind, said in kinds.items():
            dropped = [n for n in refused if n.get("kind", refusals.REFUSED) == kind]
            if dropped:
                problems.append(f"{len(dropped)} hook(s) dropped in the last day {said}")
        heard = report.get("service_last_heard")
        if not problems:
            where = f" (it last heard this session at {heard})" if heard else ""
            return {"verdict": "yes", "detail": f"nothing waiting or dropped here{where}"}
        verdict = "no" if records and not heard else "partly"
        return {"verdict": verdict, "detail": "; ".join(problems) + " (`continuity doctor` says more)"}


def _brief(checkpoint: dict) -> dict:
    return {
        key: checkpoint.get(key)
        for key in ("session_key", "trigger", "created_at", "prompt_count", "sequence", "last_prompt")
        if key in checkpoint
    }


def _digest_decisions(checkpoint: dict) -> int:
    """Decisions in force in the checkpoint's rolling digest: those the recovery block lists."""
    digest = checkpoint.get("session_digest")
    facts = digest.get("facts") if isinstance(digest, dict) else None
    return sum(
        1
        for f in facts or []
        if isinstance(f, dict) and f.get("kind") == "decision" and f.get("status", "active") == "active"
    )


def describe_status(report: dict) -> str:
    """``continuity status`` for people."""
    lines = [f"project: {report['project']}"]
    session = report.get("session")
    lines.append(f"session: {session} ({report['found_by']})" if session else "session: none seen yet")
    if session:
        latest = report.get("latest_session_checkpoint")
        count = report.get("session_checkpoints", 0)
        if latest:
            when = latest.get("created_at")
            lines.append(f"  checkpoints: {count}, latest {latest.get('trigger')} at {when}")
        else:
            lines.append("  checkpoints: none yet")
        if "transcript_chars_sent" in report:
            lines.append(
                f"  transcript: {report['transcript_chars_sent']} characters sent, "
                f"{report['transcript_chars_since_compaction']} since the last compaction"
            )
        if "pending_prompts" in report:
            spooled = report.get("spooled_prompts") or 0
            lines.append(
                f"  prompts since the latest checkpoint: {report['pending_prompts']} on the service"
                + (f", {spooled} more spooled here" if spooled else "")
                + f" ({report['service_prompts']} in all)"
            )
        if report.get("spooled_hooks"):
            lines.append(f"  spooled hooks waiting: {report['spooled_hooks']} (`continuity flush`)")
        else:
            lines.append("  spooled hooks waiting: none")
        reaching = report.get("hooks_reaching_service")
        if reaching:
            lines.append(
                f"  this machine's hooks reach the service: {reaching['verdict']}, {reaching['detail']}"
            )
        lines.append(
            f"  decisions in the session's rolling digest: {report.get('digest_decisions', 0)} "
            "(what the recovery block lists: from prompts, the agent's words and its digests)"
        )
    project_latest = report.get("latest_project_checkpoint")
    if project_latest:
        lines.append(
            f"project's latest checkpoint: {project_latest.get('trigger')} at "
            f"{project_latest.get('created_at')} (session {project_latest.get('session_key')})"
        )
    else:
        lines.append("project's latest checkpoint: none")
    lines.append(
        f"decision ledger: {report.get('ledger_decisions', 0)} decision(s) "
        "(the project's, recorded by agents with session_digest; `continuity ledger`)"
    )
    return "\n".join(lines)


def describe_results(results: list[dict]) -> str:
    if not results:
        return "no matches"
    lines = []
    for hit in results:
        snippet = " ".join(str(hit.get("snippet") or "").split())
        lines.append(f"- session {hit.get('session_key')} ({hit.get('updated_at')}): {snippet}")
    return "\n".join(lines)


def git_state(project: str, run: Callable[[list[str]], str | None] | None = None) -> dict:
    """The project's branch, commit and paths with uncommitted changes, as ``git`` reports them
    here (``git status --porcelain``: paths only, never contents); {} outside a repository."""
    runner = run or (lambda args: _git(project, args))
    commit = (runner(["rev-parse", "HEAD"]) or "").strip()
    if not commit:
        return {}
    branch = (runner(["rev-parse", "--abbrev-ref", "HEAD"]) or "").strip()
    paths = []
    for line in (runner(["status", "--porcelain", "--untracked-files=all"]) or "").splitlines():
        path = line[3:].strip()
        if " -> " in path:  # a rename: the new name
            path = path.split(" -> ", 1)[1]
        if path:
            paths.append(path.strip('"'))
    state: dict = {"commit": commit, "uncommitted": paths[:UNCOMMITTED_SENT], "uncommitted_total": len(paths)}
    if branch and branch != "HEAD":
        state["branch"] = branch
    return state


def _git(project: str, args: list[str]) -> str | None:
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", project, *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def describe_handoff(handoff: dict) -> str:
    """One open hand-off, for ``continuity sessions`` and ``continuity handoff``."""
    who = handoff.get("by") or f"session {handoff.get('session_key')}"
    to = f" to {handoff['to']}" if handoff.get("to") else " to the next session"
    where = ", ".join(
        str(x)
        for x in (
            handoff.get("branch") and f"branch {handoff['branch']}",
            handoff.get("commit") and f"commit {str(handoff['commit'])[:12]}",
            handoff.get("uncommitted_total") and f"{handoff['uncommitted_total']} uncommitted path(s)",
        )
        if x
    )
    note = f": {handoff['note']}" if handoff.get("note") else ""
    return f"hand-off from {who}{to} at {handoff.get('created_at')}{f' ({where})' if where else ''}{note}"
