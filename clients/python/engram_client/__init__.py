"""A Python client of the Engram memory service (docs/api.md, docs/clients.md).

    from engram_client import Engram

    engram = Engram("http://127.0.0.1:8080", api_key)
    engram.add_turns("s-1", [{"role": "user", "text": "I'm allergic to hazelnuts."}], user_id="ann")
    context = engram.context("what can Ann eat?", session_id="s-1", budget_tokens=1000)
    prompt = context.prompt  # paste it before the model call

Standard library only. Every failure the API answers is an :class:`EngramError` carrying the API's status and
code; 429 and 503 are retried with exponential backoff, waiting at least what ``Retry-After`` says. Writes are
safe to retry: a record's id is stable, so a retry rewrites the same record.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

__all__ = [
    "Engram",
    "EngramError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "InvalidRequestError",
    "RateLimitError",
    "UnavailableError",
    "WriteResult",
    "Rejected",
    "Context",
    "ContextItem",
    "ExcludedItem",
    "SearchResult",
    "Record",
    "Page",
    "Entity",
    "CoMention",
    "Forget",
]


class EngramError(Exception):
    """A failure the API answered: its HTTP status, its stable error code and its message."""

    def __init__(self, status: int, code: str, message: str, retry_after: Optional[float] = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class AuthenticationError(EngramError):
    """401: no API key, or an unknown, revoked or expired one, or one of a deleted tenant."""


class PermissionDeniedError(EngramError):
    """403: the key may not do this: the request names another tenant (``forbidden``), the key's scopes do not
    cover it (``insufficient_scope``), the tenant is suspended (``tenant_suspended``), or a write would pass one of
    the tenant's quotas (``quota_exceeded``); ``code`` says which."""


class NotFoundError(EngramError):
    """404: no such record, forget or endpoint."""


class InvalidRequestError(EngramError):
    """400 or 413: the request is malformed or too large; retrying it unchanged will fail again."""


class RateLimitError(EngramError):
    """429: the key made too many requests; retried automatically before this is raised."""


class UnavailableError(EngramError):
    """503, 5xx, or status 0 when the service could not be reached; retried automatically before this is raised."""


_ERRORS = {400: InvalidRequestError, 401: AuthenticationError, 403: PermissionDeniedError, 404: NotFoundError,
           413: InvalidRequestError, 429: RateLimitError}
_RETRIED = (0, 429, 503)  # 0: the service could not be reached


@dataclass(frozen=True)
class Rejected:
    """A record of a write that failed validation: its index in the request, why, and the validator's message."""
    index: int
    code: str
    message: str


@dataclass(frozen=True)
class WriteResult:
    """The store ids of the accepted records (searchable once the pipeline indexed them) and the rejected ones."""
    accepted: List[str]
    rejected: List[Rejected]


@dataclass(frozen=True)
class ContextItem:
    id: str
    type: str
    section: str
    tokens: int
    score: float
    reason: str
    text: str


@dataclass(frozen=True)
class ExcludedItem:
    id: str
    type: str
    section: str
    tokens: int
    reason: str


@dataclass(frozen=True)
class Context:
    """An assembled context: ``prompt`` is what to paste before the model call, ``included`` what it is made of.
    ``agent_id`` is the agent whose document rules and lore it holds, with the shared documents'; None: the shared
    documents' only."""
    prompt: str
    included: List[ContextItem]
    excluded: List[ExcludedItem]
    tokens_used: int
    budget_tokens: int
    degraded: bool
    degraded_reasons: List[str]
    agent_id: Optional[str] = None


@dataclass(frozen=True)
class SearchResult:
    id: str
    type: str
    score: float
    cosine: float
    text: str


@dataclass(frozen=True)
class Record:
    """A stored record without its vector; ``fields`` holds the optional ones (session_id, tier, source_refs, …)."""
    id: str
    type: str
    text: str
    ts: str
    fields: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Page:
    records: List[Record]
    next_cursor: Optional[str]


@dataclass(frozen=True)
class CoMention:
    """A name mentioned beside an entity, and in how many records both are."""
    name: str
    records: int


@dataclass(frozen=True)
class Entity:
    """A name the tenant's records mention (lower-cased): in how many records, the names most often beside it and
    its newest mentions."""
    name: str
    records: int
    co_mentions: List[CoMention]
    mentioned_by: List[Record]


@dataclass(frozen=True)
class Forget:
    """A forget: ``status`` is ``pending`` until the pipeline has removed every record it covers, then ``done``."""
    forget_id: str
    scope: str
    target: str
    status: str
    records_removed: Optional[int] = None


def _iso(value: Optional[Union[str, datetime]]) -> Optional[str]:
    """A date-time as the API takes it: an ISO-8601 string as given, a datetime in ISO-8601 (it needs a timezone)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a datetime for Engram needs a timezone, e.g. datetime.now(timezone.utc)")
        return value.isoformat()
    return value


def _record(body: Mapping[str, Any]) -> Record:
    rest = {k: v for k, v in body.items() if k not in ("id", "type", "text", "ts")}
    return Record(body["id"], body["type"], body["text"], body["ts"], rest)


def _forget(body: Mapping[str, Any]) -> Forget:
    return Forget(body["forget_id"], body["scope"], body["target"], body["status"], body.get("records_removed"))


class Engram:
    """A tenant's memory, as its API key reaches it."""

    def __init__(self, url: str, api_key: str, *, timeout: float = 30.0, max_retries: int = 4,
                 backoff: float = 0.5, max_backoff: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._url = url.rstrip("/")
        self._key = api_key
        self._timeout = timeout
        self._max_retries = max_retries
        self._backoff = backoff
        self._max_backoff = max_backoff
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_seq: Dict[str, int] = {}
        self._tenant: Optional[str] = None

    # -- writes -------------------------------------------------------------------------------------------------

    def add_turns(self, session_id: str, turns: Sequence[Mapping[str, Any]], *,
                  user_id: Optional[str] = None) -> WriteResult:
        """Writes turns of a conversation: each a mapping with ``role`` and ``text``, optionally ``seq``,
        ``turn_id`` and ``ts``. ``seq`` is the turn's number in its session (0, 1, 2, …: the pipeline reads
        neighbouring turns by it); without one, this client numbers the turns after the last it numbered for the
        session, or, the first time, after the newest stored turns. Two writers of one session must pass ``seq``.
        ``turn_id`` defaults to ``t-SEQ``; a turn with the same id is replaced."""
        records = [dict(turn) for turn in turns]
        with self._lock:
            if any("seq" not in r for r in records) and session_id not in self._next_seq:
                stored = self.list(type="turn", session_id=session_id, limit=100).records
                self._next_seq[session_id] = 1 + max((int(r.fields.get("position", -1)) for r in stored), default=-1)
            for record in records:
                if "seq" not in record:
                    record["seq"] = self._next_seq[session_id]
                self._next_seq[session_id] = max(self._next_seq.get(session_id, 0), int(record["seq"]) + 1)
        for record in records:
            record["session_id"] = session_id
            if user_id is not None:
                record.setdefault("user_id", user_id)
            record.setdefault("turn_id", f"t-{record['seq']}")
        return self._write("/v1/turns", records)

    def add_memory(self, text: str, *, memory_id: Optional[str] = None, type: str = "memory",
                   source_refs: Optional[Sequence[str]] = None, user_id: Optional[str] = None,
                   key: Optional[str] = None, supersedes: Optional[Sequence[str]] = None,
                   valid_from: Optional[Union[str, datetime]] = None,
                   valid_until: Optional[Union[str, datetime]] = None,
                   expires_at: Optional[Union[str, datetime]] = None) -> WriteResult:
        """Writes one of the agent's own memories (``memory``, ``lesson`` or ``knowledge``). Without
        ``memory_id`` the memory is named by its text, so writing it twice keeps one. A newer memory with the
        same ``key`` (and ``user_id``) supersedes the older one; ``supersedes`` names memories it replaces;
        ``valid_from``/``valid_until`` bound when it holds and ``expires_at`` when it is deleted (ISO-8601
        strings or timezone-aware datetimes)."""
        record: Dict[str, Any] = _without_none({
            "text": text, "type": type, "memory_id": memory_id, "user_id": user_id, "key": key,
            "source_refs": list(source_refs) if source_refs is not None else None,
            "supersedes": list(supersedes) if supersedes is not None else None,
            "valid_from": _iso(valid_from), "valid_until": _iso(valid_until), "expires_at": _iso(expires_at)})
        return self._write("/v1/memories", [record])

    def add_document(self, agent_id: str, path: str, content: str, *, version: int,
                     doc_class: str = "standard") -> WriteResult:
        """Writes a version of an agent document (AGENTS.md, SOUL.md, …); the pipeline splits it into hard
        rules, soft rules and lore, and a newer version replaces the older one's records."""
        return self._write("/v1/documents", [{"agent_id": agent_id, "path": path, "content": content,
                                              "version": version, "doc_class": doc_class}])

    def _write(self, path: str, records: List[Dict[str, Any]]) -> WriteResult:
        body = self._request("POST", path, records[0] if len(records) == 1 else {"records": records},
                             accept_status=(400,))
        return WriteResult(list(body["accepted"]),
                           [Rejected(r["index"], r["code"], r["message"]) for r in body["rejected"]])

    # -- reads --------------------------------------------------------------------------------------------------

    def context(self, query: str, *, budget_tokens: int = 2000, session_id: Optional[str] = None,
                user_id: Optional[str] = None, as_of: Optional[Union[str, datetime]] = None,
                agent_id: Optional[str] = None, all_rules: bool = False) -> Context:
        """The context to read before the next model call: rules, relevant memories and the recent turns of
        ``session_id``, within ``budget_tokens``; the memories valid now, or at ``as_of``. The rules and lore are
        those of ``agent_id``'s documents and of the documents shared with every agent (written with agent
        ``*``); without ``agent_id``, in a tenant whose documents belong to several agents, the shared ones only.
        ``tokens_used`` stays within the budget, leaving out the weaker rules when they do not all fit (each in
        ``excluded``), unless ``all_rules``: then every one of the agent's hard rules is in, whatever the budget."""
        body = self._request("POST", "/v1/context", _without_none(
            {"query": query, "budget_tokens": budget_tokens, "session_id": session_id, "user_id": user_id,
             "as_of": _iso(as_of), "agent_id": agent_id, "all_rules": True if all_rules else None}))
        return Context(body["prompt"], [ContextItem(**i) for i in body["included"]],
                       [ExcludedItem(**e) for e in body["excluded"]], body["tokens_used"], body["budget_tokens"],
                       body["degraded"], list(body["degraded_reasons"]), body.get("agent_id"))

    def search(self, query: str, *, k: int = 10, types: Optional[Sequence[str]] = None,
               session_id: Optional[str] = None, user_id: Optional[str] = None,
               as_of: Optional[Union[str, datetime]] = None, agent_id: Optional[str] = None) -> List[SearchResult]:
        """Hybrid (keyword and vector) search of the tenant's records valid now (or at ``as_of``), best first.
        With ``agent_id``, the rules and lore of other agents' documents are left out (those of shared documents,
        and turns, memories and summaries, stay)."""
        body = self._request("POST", "/v1/search", _without_none(
            {"query": query, "k": k, "types": list(types) if types is not None else None,
             "session_id": session_id, "user_id": user_id, "as_of": _iso(as_of), "agent_id": agent_id}))
        return [SearchResult(r["id"], r["type"], r["score"], r["cosine"], r["text"]) for r in body["results"]]

    def list(self, *, type: Optional[str] = None, session_id: Optional[str] = None, user_id: Optional[str] = None,
             limit: int = 20, cursor: Optional[str] = None) -> Page:
        """One page of the tenant's records, newest first; pass ``next_cursor`` back for the next page."""
        query = urllib.parse.urlencode(_without_none({"type": type, "session_id": session_id, "user_id": user_id,
                                                      "limit": limit, "cursor": cursor}))
        body = self._request("GET", "/v1/memories?" + query)
        return Page([_record(r) for r in body["records"]], body["next_cursor"])

    def export(self, *, user_id: Optional[str] = None, session_id: Optional[str] = None,
               agent_id: Optional[str] = None, types: Optional[Sequence[str]] = None,
               cursor: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """Every record of the tenant (or of a user, a session, an agent), oldest first, as the export's lines, each
        parsed (docs/operations.md, "Export"): ``turn.v1`` and ``memory.v1`` payloads, ``derived.v1`` lines, and a
        ``cursor.v1`` line after each page, the last one with ``cursor`` None and the count of ``records``. Read as it
        streams, one line at a time. A stream that breaks off before its last line is an :class:`UnavailableError`
        (code ``export_incomplete``) naming the last cursor: ``export(cursor=…)`` resumes after it."""
        query = urllib.parse.urlencode(_without_none({
            "user_id": user_id, "session_id": session_id, "agent_id": agent_id,
            "types": ",".join(types) if types is not None else None, "cursor": cursor}))
        last = cursor
        try:
            with self._send("GET", "/v1/export?" + query) as response:
                for raw in response:
                    line = json.loads(raw)
                    if line.get("schema") == "cursor.v1":
                        if line["cursor"] is None:
                            yield line
                            return
                        last = line["cursor"]
                    yield line
        except (OSError, http.client.HTTPException) as broken:
            raise UnavailableError(0, "export_incomplete", f"the export broke off ({broken}): resume with cursor={last!r}")
        raise UnavailableError(0, "export_incomplete", f"the export ended before its last line: resume with cursor={last!r}")

    def entities(self, *, user_id: Optional[str] = None, session_id: Optional[str] = None, name: Optional[str] = None,
                 limit: int = 20) -> List[Entity]:
        """Who and what the tenant's records name, most mentioned first: a user's or a session's records, or those
        naming ``name`` (it and what is named beside it)."""
        query = urllib.parse.urlencode(_without_none({"user_id": user_id, "session_id": session_id, "name": name,
                                                      "limit": limit}))
        body = self._request("GET", "/v1/entities?" + query)
        return [Entity(e["name"], e["records"], [CoMention(c["name"], c["records"]) for c in e["co_mentions"]],
                       [_record(r) for r in e["mentioned_by"]]) for e in body["entities"]]

    def get(self, record_id: str) -> Record:
        """One record by its store id; :class:`NotFoundError` when the tenant has none."""
        return _record(self._request("GET", "/v1/memories/" + _segment(record_id)))

    def wait_until_searchable(self, record_ids: Sequence[str], *, timeout: float = 30.0) -> None:
        """Waits until every record is searchable (the pipeline has indexed it, about a second after its write):
        read-your-writes for a caller that needs it. :class:`TimeoutError` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        for record_id in record_ids:
            while True:
                try:
                    self.get(record_id)
                    break
                except NotFoundError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"{record_id} not searchable within {timeout} s") from None
                    self._sleep(0.2)

    def tenant_id(self) -> str:
        """The tenant this client's key writes to and reads: store ids are ``TENANT/…``."""
        if self._tenant is None:
            body = self._request("GET", "/v1/tenants")
            if body.get("operator"):
                raise EngramError(400, "operator_key", "an operator key has no tenant of its own")
            self._tenant = str(body["tenants"][0])
        return self._tenant

    # -- forgets ------------------------------------------------------------------------------------------------

    def delete(self, record_id: str) -> Forget:
        """Forgets one record and everything summarised from it."""
        return _forget(self._request("DELETE", "/v1/memories/" + _segment(record_id)))

    def forget_session(self, session_id: str) -> Forget:
        """Forgets a conversation: its turns and the summaries made from them."""
        return _forget(self._request("DELETE", "/v1/sessions/" + _segment(session_id)))

    def forget_user(self, user_id: str) -> Forget:
        """Forgets a user: their records and every record of their sessions."""
        return _forget(self._request("DELETE", "/v1/users/" + _segment(user_id)))

    def forget_status(self, forget_id: str) -> Forget:
        return _forget(self._request("GET", "/v1/forgets/" + _segment(forget_id)))

    def wait_until_forgotten(self, forget_id: str, *, timeout: float = 30.0) -> Forget:
        """Waits until the pipeline has removed every record a forget covers (``status`` ``done``, seconds after
        the request) and returns it. :class:`TimeoutError` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            forget = self.forget_status(forget_id)
            if forget.status == "done":
                return forget
            if time.monotonic() > deadline:
                raise TimeoutError(f"forget {forget_id} not done within {timeout} s")
            self._sleep(0.2)

    # -- transport ----------------------------------------------------------------------------------------------

    def _request(self, method: str, path: str, body: Optional[Any] = None,
                 accept_status: Sequence[int] = ()) -> Dict[str, Any]:
        answer = self._send(method, path, body, accept_status)
        if isinstance(answer, dict):
            return answer
        with answer:
            return json.loads(answer.read() or b"{}")

    def _send(self, method: str, path: str, body: Optional[Any] = None,
              accept_status: Sequence[int] = ()) -> Any:
        """The open response of a 2xx answer, or the JSON of an error answer with a status of ``accept_status``;
        429, 503 and an unreachable service retried, any other failure raised."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        attempt = 0
        while True:
            request = urllib.request.Request(self._url + path, data=data, method=method)
            request.add_header("Authorization", "Bearer " + self._key)
            if data is not None:
                request.add_header("Content-Type", "application/json")
            try:
                return urllib.request.urlopen(request, timeout=self._timeout)
            except urllib.error.HTTPError as answer:
                status, raw = answer.code, answer.read()
                retry_after = _seconds(answer.headers.get("Retry-After"))
            except urllib.error.URLError as unreachable:  # refused, reset, DNS: retried as a 503 is
                status, raw, retry_after = 0, json.dumps({"error": {"code": "unreachable", "message": str(
                    unreachable.reason)}}).encode("utf-8"), None
            payload = _json(raw)
            if status in accept_status and "accepted" in payload:
                return payload
            if status in _RETRIED and attempt < self._max_retries:
                delay = min(self._max_backoff, self._backoff * 2 ** attempt * (1 + random.random() / 10))
                self._sleep(max(delay, retry_after or 0.0))
                attempt += 1
                continue
            error = payload.get("error") or {}
            kind = _ERRORS.get(status, UnavailableError if status >= 500 or status == 0 else EngramError)
            raise kind(status, error.get("code", "http_" + str(status)),
                       error.get("message", raw.decode("utf-8", "replace")[:200]), retry_after)


def _without_none(values: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _seconds(header: Optional[str]) -> Optional[float]:
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None  # an HTTP date: the backoff applies


def _json(raw: bytes) -> Dict[str, Any]:
    try:
        value = json.loads(raw)
        return value if isinstance(value, dict) else {}
    except ValueError:
        return {}
