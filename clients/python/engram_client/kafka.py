"""A gateway's Kafka producer for Engram (docs/clients.md, "Gateway producers"): turns, agent documents, memories
and forgets straight onto Engram's input topics, as the Java ``client`` module's ``EngramProducer`` sends them.

    from engram_client.kafka import EngramKafkaProducer

    with EngramKafkaProducer("kafka:9092") as producer:
        report = producer.send_turn(tenant_id="acme", session_id="s-1", turn_id="t-0", seq=0, role="user",
                                    text="I'm allergic to hazelnuts.")
        report.topic, report.partition, report.offset

Each payload is validated against the published JSON Schema (docs/schemas, packed into this package at build time)
before anything is sent, and keyed as the contract says (docs/contracts.md, "Contracts"). Needs the ``kafka`` extra
(``pip install 'engram-client[kafka]'``: kafka-python and jsonschema); the payload functions and
:func:`validate_payload` need only jsonschema.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

__all__ = [
    "EngramKafkaProducer",
    "InvalidPayloadError",
    "Limits",
    "Payload",
    "Problem",
    "TOPICS",
    "document_payload",
    "forget_payload",
    "memory_payload",
    "schema",
    "schema_directory",
    "turn_payload",
    "validate_payload",
]

#: Engram's input topics, by payload kind (docs/contracts.md, "Contracts").
TOPICS = {"turn": "engram.turns.v1", "doc": "engram.docs.v1", "memory": "engram.memories.v1",
          "forget": "engram.forgets.v1"}
_SCHEMAS = {"turn": "turn.v1", "doc": "doc.v1", "memory": "memory.v1", "forget": "forget.v1"}
_DATE_FIELDS = ("ts", "valid_from", "valid_until", "expires_at")
#: The integer fields and their largest value, as the pipeline reads them (a long, or an int).
_INTEGER_FIELDS = {"seq": 2 ** 63 - 1, "version": 2 ** 63 - 1, "generation": 2 ** 31 - 1}
# RFC 3339 as the pipeline (java.time.OffsetDateTime) reads it: a T, seconds, an offset
_DATE_TIME = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|([+-])(\d\d):(\d\d))$")

DateTime = Union[str, datetime]


@dataclass(frozen=True)
class Payload:
    """One payload ready to send: its kind, topic, Kafka key and JSON (snake_case, as the schemas name the fields)."""
    kind: str
    topic: str
    key: str
    json: Dict[str, Any]

    def value(self) -> bytes:
        """The record's value: the JSON in UTF-8."""
        return json.dumps(self.json, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@dataclass(frozen=True)
class Limits:
    """Size bounds in UTF-8 bytes, as the pipeline's defaults (``PayloadValidator.Limits.DEFAULT``)."""
    max_text_bytes: int = 64 * 1024
    max_document_bytes: int = 8 * 1024 * 1024


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a payload: the field (``text``, ``source_refs/0``; empty for the payload) and why."""
    field: str
    message: str


class InvalidPayloadError(ValueError):
    """A payload that Engram would reject, refused before anything was sent. ``reason`` is the reject reason the
    pipeline would give it (``schema_violation``, ``invalid_tenant``, ``text_too_large``, ``document_too_large``,
    ``invalid_utf8``), ``field`` the first field at fault and ``problems`` every one found."""

    def __init__(self, schema_name: str, reason: str, problems: Sequence[Problem]) -> None:
        said = "; ".join(f"{p.field}: {p.message}" if p.field else p.message for p in problems[:3])
        super().__init__(f"{schema_name}: {said}")
        self.reason = reason
        self.field = problems[0].field if problems else ""
        self.problems = list(problems)


# -- payloads ----------------------------------------------------------------------------------------------------------

def turn_payload(*, tenant_id: str, session_id: str, turn_id: str, seq: int, role: str, text: str,
                 user_id: Optional[str] = None, ts: Optional[DateTime] = None) -> Payload:
    """A conversation turn, keyed ``tenant_id/session_id`` so that a session stays in order on one partition."""
    body = _present({"schema": "turn.v1", "tenant_id": tenant_id, "session_id": session_id, "user_id": user_id,
                     "turn_id": turn_id, "seq": seq, "role": role, "text": text, "ts": _when(ts)})
    return Payload("turn", TOPICS["turn"], f"{tenant_id}/{session_id}", body)


def document_payload(*, tenant_id: str, agent_id: str, path: str, doc_class: str, version: int, content: str,
                     deleted: Optional[bool] = None, ts: Optional[DateTime] = None) -> Payload:
    """A version of an agent document, keyed ``tenant_id/agent_id/path`` so that its versions stay in order.
    ``agent_id`` ``*`` shares it with every agent of the tenant; ``deleted=True`` removes its chunks."""
    body = _present({"schema": "doc.v1", "tenant_id": tenant_id, "agent_id": agent_id, "path": path,
                     "doc_class": doc_class, "version": version, "content": content, "ts": _when(ts),
                     "deleted": deleted})
    return Payload("doc", TOPICS["doc"], f"{tenant_id}/{agent_id}/{path}", body)


def memory_payload(*, tenant_id: str, memory_id: str, text: Optional[str] = None, type: str = "memory",
                   op: str = "upsert", source_refs: Optional[Sequence[str]] = None, generation: Optional[int] = None,
                   user_id: Optional[str] = None, agent_id: Optional[str] = None, key: Optional[str] = None,
                   supersedes: Optional[Sequence[str]] = None, valid_from: Optional[DateTime] = None,
                   valid_until: Optional[DateTime] = None, expires_at: Optional[DateTime] = None,
                   cycle_id: Optional[str] = None, ts: Optional[DateTime] = None) -> Payload:
    """A memory written by the gateway's own consolidation, keyed ``tenant_id`` so that a tenant's memories stay in
    order. An upsert carries ``source_refs`` (default empty) and ``generation`` (default 0); a delete needs no text."""
    upsert = op == "upsert"
    body = _present({
        "schema": "memory.v1", "tenant_id": tenant_id, "memory_id": memory_id, "type": type, "op": op, "text": text,
        "source_refs": list(source_refs) if source_refs is not None else ([] if upsert else None),
        "generation": generation if generation is not None else (0 if upsert else None), "cycle_id": cycle_id,
        "ts": _when(ts), "user_id": user_id, "agent_id": agent_id, "key": key,
        "supersedes": list(supersedes) if supersedes is not None else None,
        "valid_from": _when(valid_from, now=False), "valid_until": _when(valid_until, now=False),
        "expires_at": _when(expires_at, now=False)})
    return Payload("memory", TOPICS["memory"], tenant_id, body)


def forget_payload(*, tenant_id: str, forget_id: str, scope: str, target: str,
                   ts: Optional[DateTime] = None) -> Payload:
    """A forget of a record (``memory``, by its store id), a session or a user, keyed ``tenant_id``: it follows the
    tenant's memories before it."""
    body = _present({"schema": "forget.v1", "tenant_id": tenant_id, "forget_id": forget_id, "scope": scope,
                     "target": target, "ts": _when(ts)})
    return Payload("forget", TOPICS["forget"], tenant_id, body)


# -- validation --------------------------------------------------------------------------------------------------------

_validators: Dict[str, Any] = {}


def schema_directory() -> Path:
    """The folder of the published schemas: the copy built into this package (``engram_client/schemas``), or, in
    a source checkout of the Engram repository, docs/schemas itself."""
    packaged = Path(str(resources.files("engram_client"))) / "schemas"
    if (packaged / "turn.v1.json").is_file():
        return packaged
    published = Path(__file__).resolve().parents[3] / "docs" / "schemas"
    if (published / "turn.v1.json").is_file():
        return published
    raise RuntimeError("the published schemas are not in this package (engram_client/schemas): install it from the "
                       "Engram repository (pip install ./clients/python), whose build copies docs/schemas")


def schema(name: str) -> Dict[str, Any]:
    """The published JSON Schema of a payload kind, e.g. ``turn.v1``."""
    return json.loads((schema_directory() / f"{name}.json").read_text(encoding="utf-8"))


def _validator(kind: str) -> Any:
    if kind not in _validators:
        from jsonschema import Draft202012Validator
        _validators[kind] = Draft202012Validator(schema(_SCHEMAS[kind]))
    return _validators[kind]


def validate_payload(payload: Payload, limits: Limits = Limits()) -> None:
    """Checks a payload as the pipeline will (``PayloadValidator``): its schema, then what a schema does not say —
    text that UTF-8 cannot encode (a lone surrogate), integers that are not whole numbers in range, date-times the
    pipeline cannot read, ``valid_until`` not after ``valid_from``, and the size bounds. Raises
    :class:`InvalidPayloadError`."""
    name = _SCHEMAS[payload.kind]
    body = payload.json
    unencodable = _lone_surrogates(body)
    if unencodable:
        raise InvalidPayloadError(name, "invalid_utf8", [
            Problem(field, "has a lone surrogate, which UTF-8 cannot encode") for field in unencodable])
    errors = sorted((e for e in _validator(payload.kind).iter_errors(body) if e.validator != "if"),
                    key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        problems = [_problem(e) for e in errors]
        tenant = any(p.field == "tenant_id" for p in problems)
        raise InvalidPayloadError(name, "invalid_tenant" if tenant else "schema_violation", problems)

    def refuse(reason: str, field: str, message: str) -> None:
        raise InvalidPayloadError(name, reason, [Problem(field, message)])

    for field, largest in _INTEGER_FIELDS.items():
        value = body.get(field)
        # json writes 1.0 and True as such: the pipeline reads neither as an integer
        if field in body and (type(value) is not int or not 0 <= value <= largest):
            refuse("schema_violation", field, f"{value!r} is not an integer from 0 to {largest}")
    instants = {}
    for field in _DATE_FIELDS:
        if field in body:
            instants[field] = _instant(body[field])
            if instants[field] is None:
                refuse("schema_violation", field, f"is not an RFC 3339 date-time: {body[field]}")
    if "valid_from" in instants and "valid_until" in instants and not instants["valid_until"] > instants["valid_from"]:
        refuse("schema_violation", "valid_until", f"{body['valid_until']} is not after valid_from {body['valid_from']}")
    doc = payload.kind == "doc"
    field = "content" if doc else "text"
    size = len(str(body.get(field) or "").encode("utf-8"))
    limit = limits.max_document_bytes if doc else limits.max_text_bytes
    if size > limit:
        refuse("document_too_large" if doc else "text_too_large", field, f"{size} bytes is over the bound of {limit}")


def _problem(error: Any) -> Problem:
    path = "/".join(str(p) for p in error.absolute_path)
    if error.validator == "required":
        missing = error.message.split("'")[1] if error.message.count("'") >= 2 else error.message
        return Problem(f"{path}/{missing}" if path else missing, "is required")
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return Problem(", ".join(extra), "is not a field of this payload")
    if error.validator == "not":
        return Problem(path, f"must not be {json.dumps(error.instance)}")
    if error.validator == "pattern":
        return Problem(path, f"must match pattern {error.validator_value}")
    return Problem(path, error.message)


def _lone_surrogates(value: Any, path: str = "") -> List[str]:
    """The fields (paths such as ``source_refs/0``) whose strings UTF-8 cannot encode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return []
        except UnicodeEncodeError:
            return [path]
    if isinstance(value, (list, tuple)):
        return [f for i, v in enumerate(value) for f in _lone_surrogates(v, f"{path}/{i}")]
    if isinstance(value, Mapping):
        return [f for k, v in value.items() for f in _lone_surrogates(v, f"{path}/{k}" if path else str(k))]
    return []


def _instant(value: Any) -> Optional[datetime]:
    match = _DATE_TIME.match(value) if isinstance(value, str) else None
    if not match:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        offset = timezone.utc
        if match.group(9):
            delta = timedelta(hours=int(match.group(10)), minutes=int(match.group(11)))
            offset = timezone(delta if match.group(9) == "+" else -delta)
        micros = int((match.group(7) or ".0")[1:7].ljust(6, "0"))
        return datetime(year, month, day, hour, minute, second, micros, tzinfo=offset)
    except ValueError:  # 30 February, hour 24, an offset of a day or more
        return None


def _when(value: Optional[DateTime], now: bool = True) -> Optional[str]:
    """A date-time as the payload carries it: a string as given, a datetime in ISO-8601 (it needs a timezone);
    now for an absent ``ts``."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a datetime for Engram needs a timezone, e.g. datetime.now(timezone.utc)")
        return value.isoformat()
    if value is None and now:
        return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return value


def _present(values: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


# -- the producer ------------------------------------------------------------------------------------------------------

class EngramKafkaProducer:
    """Sends Engram's input payloads to Kafka with kafka-python: each is validated first (an invalid one raises
    :class:`InvalidPayloadError` and nothing is sent), keyed as the contract says, sent with acks from every in-sync
    replica (idempotently where the kafka-python release has the idempotent producer; else one request in flight, so
    that a retry keeps the order), and answered with kafka-python's ``RecordMetadata`` (topic, partition, offset).
    The record time is the send time; the pipeline reads event time from the payload's ``ts``.

    ``bootstrap_servers``: ``host:port``, several joined by commas, or a list. ``config``: kafka-python producer
    settings (``security_protocol``, ``sasl_*``, ``client_id``, …) over Engram's."""

    def __init__(self, bootstrap_servers: Union[str, Sequence[str]], *, limits: Limits = Limits(),
                 timeout: float = 30.0, **config: Any) -> None:
        servers = bootstrap_servers.split(",") if isinstance(bootstrap_servers, str) else list(bootstrap_servers)
        self._servers = [s.strip() for s in servers if s.strip()]
        self._limits = limits
        self._timeout = timeout
        self._config = config
        self._producer: Any = None

    def connect(self) -> "EngramKafkaProducer":
        """Connects to the brokers (kafka-python raises ``NoBrokersAvailable`` when none answers)."""
        if self._producer is None:
            from kafka import KafkaProducer
            settings: Dict[str, Any] = {"client_id": "engram-gateway", "acks": "all", "linger_ms": 5,
                                        "max_request_size": self._limits.max_document_bytes + 1024 * 1024}
            if "enable_idempotence" in KafkaProducer.DEFAULT_CONFIG:
                settings["enable_idempotence"] = True
            else:  # kafka-python before 2.1: no idempotent producer
                settings.update(retries=5, max_in_flight_requests_per_connection=1)
            settings.update(self._config)
            self._producer = KafkaProducer(bootstrap_servers=self._servers, **settings)
        return self

    def disconnect(self) -> None:
        """Sends what is waiting, then closes the connections."""
        if self._producer is not None:
            producer, self._producer = self._producer, None
            producer.flush(self._timeout)
            producer.close(self._timeout)

    close = disconnect

    def __enter__(self) -> "EngramKafkaProducer":
        return self.connect()

    def __exit__(self, *exc: Any) -> None:
        self.disconnect()

    def send_turn(self, *, tenant_id: str, session_id: str, turn_id: str, seq: int, role: str, text: str,
                  user_id: Optional[str] = None, ts: Optional[DateTime] = None) -> Any:
        """Sends a turn (:func:`turn_payload`) and waits for its ``RecordMetadata``."""
        return self.send(turn_payload(tenant_id=tenant_id, session_id=session_id, turn_id=turn_id, seq=seq,
                                      role=role, text=text, user_id=user_id, ts=ts)).get(self._timeout)

    def send_document(self, *, tenant_id: str, agent_id: str, path: str, doc_class: str, version: int,
                      content: str, deleted: Optional[bool] = None, ts: Optional[DateTime] = None) -> Any:
        """Sends a version of an agent document (:func:`document_payload`) and waits for its ``RecordMetadata``."""
        return self.send(document_payload(tenant_id=tenant_id, agent_id=agent_id, path=path, doc_class=doc_class,
                                          version=version, content=content, deleted=deleted, ts=ts)).get(self._timeout)

    def send_memory(self, *, tenant_id: str, memory_id: str, text: Optional[str] = None, type: str = "memory",
                    op: str = "upsert", source_refs: Optional[Sequence[str]] = None,
                    generation: Optional[int] = None, user_id: Optional[str] = None, agent_id: Optional[str] = None,
                    key: Optional[str] = None, supersedes: Optional[Sequence[str]] = None,
                    valid_from: Optional[DateTime] = None, valid_until: Optional[DateTime] = None,
                    expires_at: Optional[DateTime] = None, cycle_id: Optional[str] = None,
                    ts: Optional[DateTime] = None) -> Any:
        """Sends a memory (:func:`memory_payload`) and waits for its ``RecordMetadata``."""
        return self.send(memory_payload(
            tenant_id=tenant_id, memory_id=memory_id, text=text, type=type, op=op, source_refs=source_refs,
            generation=generation, user_id=user_id, agent_id=agent_id, key=key, supersedes=supersedes,
            valid_from=valid_from, valid_until=valid_until, expires_at=expires_at, cycle_id=cycle_id,
            ts=ts)).get(self._timeout)

    def send_forget(self, *, tenant_id: str, forget_id: str, scope: str, target: str,
                    ts: Optional[DateTime] = None) -> Any:
        """Sends a forget (:func:`forget_payload`) and waits for its ``RecordMetadata``."""
        return self.send(forget_payload(tenant_id=tenant_id, forget_id=forget_id, scope=scope, target=target,
                                        ts=ts)).get(self._timeout)

    def send(self, payload: Payload) -> Any:
        """Validates and sends a payload without waiting: kafka-python's future, whose ``get(timeout)`` gives the
        ``RecordMetadata``. Many sends, then :meth:`flush`, batch them."""
        validate_payload(payload, self._limits)
        if self._producer is None:
            raise RuntimeError("the producer is not connected: call connect() or use it in a with block")
        return self._producer.send(payload.topic, key=payload.key.encode("utf-8"), value=payload.value())

    def flush(self) -> None:
        if self._producer is not None:
            self._producer.flush(self._timeout)
