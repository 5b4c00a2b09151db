"""engram_client.kafka without Kafka: the payloads it builds, their keys and topics, what it refuses before sending
and why, and what it hands kafka-python, through a stand-in for kafka-python's producer. Against the live
pipeline: test_kafka_producer.py."""

import json
import sys
import types
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, List

import pytest

pytest.importorskip("jsonschema", reason="the kafka extra (jsonschema) is not installed")

from engram_client.kafka import (EngramKafkaProducer, InvalidPayloadError, Limits, Payload, document_payload,  # noqa: E402
                                 forget_payload, memory_payload, schema_directory, turn_payload, validate_payload)

TURN = dict(tenant_id="acme", session_id="s-1", user_id="ann", turn_id="t-0", seq=0, role="user",
            text="I'm allergic to hazelnuts.", ts="2025-03-02T10:00:00Z")


def refusal(payload: Payload, limits: Limits = Limits()) -> InvalidPayloadError:
    with pytest.raises(InvalidPayloadError) as refused:
        validate_payload(payload, limits)
    return refused.value


def edited(payload: Payload, **fields: Any) -> Payload:
    body = {**payload.json, **fields}
    return Payload(payload.kind, payload.topic, payload.key, {k: v for k, v in body.items() if v is not None})


def test_payloads_are_the_contract_json_on_their_topics_keyed_as_the_java_producer_keys_them() -> None:
    t = turn_payload(**TURN)
    assert (t.topic, t.key) == ("engram.turns.v1", "acme/s-1")
    assert t.json == {"schema": "turn.v1", "tenant_id": "acme", "session_id": "s-1", "user_id": "ann",
                      "turn_id": "t-0", "seq": 0, "role": "user", "text": "I'm allergic to hazelnuts.",
                      "ts": "2025-03-02T10:00:00Z"}
    d = document_payload(tenant_id="acme", agent_id="support", path="docs/AGENTS.md", doc_class="core", version=3,
                         content="- Never log secrets.\n", ts=datetime(2025, 3, 2, 10, tzinfo=timezone.utc))
    assert (d.topic, d.key) == ("engram.docs.v1", "acme/support/docs/AGENTS.md")
    assert d.json == {"schema": "doc.v1", "tenant_id": "acme", "agent_id": "support", "path": "docs/AGENTS.md",
                      "doc_class": "core", "version": 3, "content": "- Never log secrets.\n",
                      "ts": "2025-03-02T10:00:00+00:00"}
    assert document_payload(tenant_id="acme", agent_id="*", path="A.md", doc_class="standard", version=4,
                            content="", deleted=True).json["deleted"] is True
    m = memory_payload(tenant_id="acme", memory_id="m-aisle", text="Ann prefers aisle seats.", user_id="ann",
                       key="seat.preference", valid_from="2025-01-01T00:00:00Z", ts="2025-03-02T10:00:00Z")
    assert (m.topic, m.key) == ("engram.memories.v1", "acme")
    assert m.json == {"schema": "memory.v1", "tenant_id": "acme", "memory_id": "m-aisle", "type": "memory",
                      "op": "upsert", "text": "Ann prefers aisle seats.", "source_refs": [], "generation": 0,
                      "ts": "2025-03-02T10:00:00Z", "user_id": "ann", "key": "seat.preference",
                      "valid_from": "2025-01-01T00:00:00Z"}
    deleted = memory_payload(tenant_id="acme", memory_id="m-aisle", op="delete", type="lesson").json
    assert sorted(deleted) == ["memory_id", "op", "schema", "tenant_id", "ts", "type"]
    f = forget_payload(tenant_id="acme", forget_id="f-1", scope="session", target="s-1")
    assert (f.topic, f.key, f.json["scope"], f.json["target"]) == ("engram.forgets.v1", "acme", "session", "s-1")
    for payload in (t, d, m, f):
        validate_payload(payload)
    assert deleted["ts"].endswith("Z"), "ts defaults to now, in UTC"
    with pytest.raises(ValueError, match="timezone"):
        turn_payload(**{**TURN, "ts": datetime(2025, 3, 2)})


def test_the_schemas_are_the_published_ones() -> None:
    published = Path(__file__).resolve().parents[3] / "docs" / "schemas"
    for name in ("turn.v1", "doc.v1", "memory.v1", "forget.v1"):
        assert (schema_directory() / f"{name}.json").read_bytes() == (published / f"{name}.json").read_bytes()


@pytest.mark.parametrize("payload, reason, field", [
    (edited(turn_payload(**TURN), tenant_id="Acme Corp"), "invalid_tenant", "tenant_id"),
    (edited(turn_payload(**TURN), text=None), "schema_violation", "text"),
    (edited(turn_payload(**TURN), role="narrator"), "schema_violation", "role"),
    (edited(turn_payload(**TURN), seq=-1), "schema_violation", "seq"),
    (edited(turn_payload(**TURN), seq=1.0), "schema_violation", "seq"),
    (edited(turn_payload(**TURN), seq=True), "schema_violation", "seq"),
    (edited(turn_payload(**TURN), seq=2 ** 63), "schema_violation", "seq"),
    (edited(turn_payload(**TURN), ts="yesterday"), "schema_violation", "ts"),
    (edited(turn_payload(**TURN), ts="2025-03-02 10:00:00Z"), "schema_violation", "ts"),
    (edited(turn_payload(**TURN), ts="2025-02-30T10:00:00Z"), "schema_violation", "ts"),
    (edited(turn_payload(**TURN), mood="happy"), "schema_violation", "mood"),
    (edited(turn_payload(**TURN), text="half a pair: \ud83d."), "invalid_utf8", "text"),
    (edited(turn_payload(**TURN), text="x" * (64 * 1024 + 1)), "text_too_large", "text"),
    (memory_payload(tenant_id="acme", memory_id="m-1"), "schema_violation", "text"),
    (memory_payload(tenant_id="acme", memory_id="m-1", text="x", agent_id="*"), "schema_violation", "agent_id"),
    (memory_payload(tenant_id="acme", memory_id="m-1", text="x", key="not a key"), "schema_violation", "key"),
    (memory_payload(tenant_id="acme", memory_id="m-1", text="x", source_refs=["ok", ""]), "schema_violation",
     "source_refs/1"),
    (memory_payload(tenant_id="acme", memory_id="m-1", text="x", supersedes=["m-0", "\udc00"]), "invalid_utf8",
     "supersedes/1"),
    (memory_payload(tenant_id="acme", memory_id="m-1", text="x", generation=2 ** 31), "schema_violation",
     "generation"),
    (memory_payload(tenant_id="acme", memory_id="m-1", text="x", valid_from="2025-06-01T00:00:00Z",
                    valid_until="2025-01-01T00:00:00+02:00"), "schema_violation", "valid_until"),
    (document_payload(tenant_id="acme", agent_id="", path="A.md", doc_class="core", version=1, content=""),
     "schema_violation", "agent_id"),
    (document_payload(tenant_id="acme", agent_id="a", path="A.md", doc_class="secret", version=1, content=""),
     "schema_violation", "doc_class"),
    (forget_payload(tenant_id="acme", forget_id="f-1", scope="agent", target="acme"), "schema_violation", "scope"),
    (forget_payload(tenant_id="acme", forget_id="f-1", scope="user", target=""), "schema_violation", "target"),
])
def test_an_invalid_payload_is_refused_with_the_field_at_fault_and_the_pipelines_reject_reason(
        payload: Payload, reason: str, field: str) -> None:
    error = refusal(payload)
    assert (error.reason, error.field) == (reason, field), str(error)
    assert str(error).startswith(f"{payload.json['schema']}: {field}"), str(error)


def test_the_size_bounds_count_utf8_bytes() -> None:
    doc = document_payload(tenant_id="acme", agent_id="a", path="A.md", doc_class="core", version=1, content="é" * 5)
    error = refusal(doc, Limits(max_text_bytes=1, max_document_bytes=9))
    assert error.reason == "document_too_large" and "10 bytes is over the bound of 9" in str(error)
    assert "must match pattern" in str(refusal(edited(turn_payload(**TURN), tenant_id="Acme Corp")))


class StandIn:
    """kafka-python's KafkaProducer, as far as the producer uses it: records its settings and sends."""
    DEFAULT_CONFIG = {"acks": 1, "enable_idempotence": False}
    made: List["StandIn"] = []

    def __init__(self, **config: Any) -> None:
        self.config, self.sent, self.closed = config, [], False
        StandIn.made.append(self)

    def send(self, topic: str, key: bytes, value: bytes) -> Any:
        self.sent.append((topic, key, value))
        metadata = types.SimpleNamespace(topic=topic, partition=2, offset=41 + len(self.sent))
        return types.SimpleNamespace(get=lambda timeout=None: metadata)

    def flush(self, timeout: Any = None) -> None:
        pass

    def close(self, timeout: Any = None) -> None:
        self.closed = True


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> type:
    StandIn.made = []
    monkeypatch.setitem(sys.modules, "kafka", types.SimpleNamespace(KafkaProducer=StandIn))
    return StandIn


def test_the_producer_sends_each_payload_as_utf8_json_under_its_key_and_reports_where_it_went(stand_in: type) -> None:
    with EngramKafkaProducer("a:9092, b:9092", client_id="gw-1") as producer:
        kafka = stand_in.made[0]
        assert kafka.config["bootstrap_servers"] == ["a:9092", "b:9092"]
        assert (kafka.config["acks"], kafka.config["enable_idempotence"], kafka.config["client_id"]) == \
            ("all", True, "gw-1")
        report = producer.send_turn(**{**TURN, "text": "Grüße, 你好"})
        assert (report.topic, report.partition, report.offset) == ("engram.turns.v1", 2, 42)
        topic, key, value = kafka.sent[0]
        assert (topic, key) == ("engram.turns.v1", b"acme/s-1")
        assert json.loads(value.decode("utf-8")) == {**turn_payload(**TURN).json, "text": "Grüße, 你好"}
        doc = producer.send_document(tenant_id="acme", agent_id="support", path="AGENTS.md", doc_class="core",
                                     version=1, content="- Never log secrets.\n")
        memory = producer.send_memory(tenant_id="acme", memory_id="m-1", text="Ann prefers aisle seats.")
        forget = producer.send_forget(tenant_id="acme", forget_id="f-1", scope="memory", target="acme/m-1")
        assert [(r.topic, r.offset) for r in (doc, memory, forget)] == [
            ("engram.docs.v1", 43), ("engram.memories.v1", 44), ("engram.forgets.v1", 45)]
        assert [k for _, k, _ in kafka.sent[1:]] == [b"acme/support/AGENTS.md", b"acme", b"acme"]
        with pytest.raises(InvalidPayloadError) as refused:
            producer.send_turn(**{**TURN, "tenant_id": "ACME"})
        assert refused.value.field == "tenant_id"
        with pytest.raises(InvalidPayloadError, match="text: is required"):
            producer.send_memory(tenant_id="acme", memory_id="m-2")
        assert len(kafka.sent) == 4, "nothing invalid reached Kafka"
    assert kafka.closed


def test_without_the_idempotent_producer_one_request_is_in_flight(stand_in: type,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stand_in, "DEFAULT_CONFIG", {"acks": 1})  # kafka-python before 2.1
    producer = EngramKafkaProducer(["k:9092"]).connect()
    config = stand_in.made[0].config
    assert "enable_idempotence" not in config and config["max_in_flight_requests_per_connection"] == 1
    producer.disconnect()
    with pytest.raises(RuntimeError, match="not connected"):
        producer.send_forget(tenant_id="acme", forget_id="f", scope="user", target="ann")
