"""engram_client.kafka against the live pipeline: a turn, a document and a memory sent to Engram's Kafka by the
producer are read back through the memory service's HTTP API. Run by ``clients/run-live-tests``, which sets
ENGRAM_KAFKA (the bootstrap servers ``./engram up`` prints) with ENGRAM_URL and ENGRAM_KEY; skipped without
ENGRAM_KAFKA."""

import os
import uuid
from typing import Iterator, List, Optional

import pytest

from conftest import eventually, tag, unique
from engram_client import Engram, Record

pytestmark = pytest.mark.skipif(not os.environ.get("ENGRAM_KAFKA"),
                                reason="ENGRAM_KAFKA (Kafka's bootstrap servers) is unset: run clients/run-live-tests")


@pytest.fixture(scope="module")
def producer() -> Iterator["EngramKafkaProducer"]:  # noqa: F821
    from engram_client.kafka import EngramKafkaProducer
    with EngramKafkaProducer(os.environ["ENGRAM_KAFKA"]) as connected:
        yield connected


def test_a_turn_sent_to_kafka_is_listed_in_its_session(engram: Engram, producer) -> None:
    tenant = engram.tenant_id()
    session = tag("s-kafka")
    text = unique("I'm flying to Lisbon on Friday, window seat please.")
    report = producer.send_turn(tenant_id=tenant, session_id=session, user_id="u-kafka", turn_id="t-0", seq=0,
                                role="user", text=text)
    assert report.topic == "engram.turns.v1" and report.partition >= 0 and report.offset >= 0
    found: List[Record] = []

    def listed() -> bool:
        found[:] = [r for r in engram.list(session_id=session, limit=50).records if r.type == "turn"]
        return bool(found)

    eventually("the turn is listed in its session", listed)
    assert [(r.text, r.fields.get("session_id"), r.fields.get("user_id"), r.fields.get("role"),
             r.fields.get("position")) for r in found] == [(text, session, "u-kafka", "user", 0)]


def test_a_document_sent_to_kafka_becomes_its_agents_hard_rule(engram: Engram, producer) -> None:
    tenant = engram.tenant_id()
    agent = tag("agent-kafka")
    path = f"{tag('docs')}/AGENTS.md"
    report = producer.send_document(tenant_id=tenant, agent_id=agent, path=path, doc_class="core", version=1,
                                    content="# Rules\n\n- Never log secrets.\n")
    assert report.topic == "engram.docs.v1"
    rule: List[Optional[Record]] = [None]

    def listed() -> bool:
        rule[0] = next((r for r in engram.list(type="invariant", limit=100).records
                        if r.fields.get("agent_id") == agent), None)
        return rule[0] is not None

    eventually("the rule is listed as an invariant", listed)
    record = rule[0]
    assert "Never log secrets." in record.text
    assert (record.type, record.fields.get("agent_id"), record.fields.get("doc_path"),
            record.fields.get("doc_version"), record.fields.get("tier")) == ("invariant", agent, path, 1, 1)


def test_a_memory_sent_to_kafka_is_searchable(engram: Engram, producer) -> None:
    tenant = engram.tenant_id()
    memory_id = "m-kafka-" + uuid.uuid4().hex[:8]
    text = unique("Ann keeps her passport in the blue travel wallet.")
    report = producer.send_memory(tenant_id=tenant, memory_id=memory_id, text=text, user_id="ann",
                                  key="passport.place", source_refs=["kafka-test"])
    assert report.topic == "engram.memories.v1"
    hits: List[str] = []

    def searchable() -> bool:
        hits[:] = [r.id for r in engram.search("where does Ann keep her passport?", k=20) if r.text == text]
        return bool(hits)

    eventually("the memory is searchable", searchable)
    record = engram.get(hits[0])
    assert (record.type, record.text, record.fields.get("user_id"), record.fields.get("key"),
            record.fields.get("source_refs")) == ("memory", text, "ann", "passport.place", ["kafka-test"])


def test_an_invalid_payload_is_refused_before_it_reaches_kafka(engram: Engram, producer) -> None:
    from engram_client.kafka import InvalidPayloadError
    with pytest.raises(InvalidPayloadError) as refused:
        producer.send_turn(tenant_id=engram.tenant_id(), session_id="s", turn_id="t-0", seq=0, role="user",
                           text="\ud800")
    assert (refused.value.reason, refused.value.field) == ("invalid_utf8", "text")
