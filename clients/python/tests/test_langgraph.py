"""The LangGraph store adapter (``engram_client.langgraph.EngramStore``) against the real ``BaseStore`` of
langgraph and a live Engram: what goes in through the store's interface comes out of Engram's context, search and
get, and the other tenant's store and context see nothing of it. The store's agent is checked without Engram."""

import asyncio
from typing import Any, Dict, List

import pytest
from langgraph.store.base import BaseStore, GetOp, PutOp, SearchOp

from conftest import PATIENCE_S, tag
from engram_client import Engram, NotFoundError, Record, SearchResult
from engram_client.langgraph import EngramStore


@pytest.fixture(scope="module")
def store(engram: Engram) -> EngramStore:
    return EngramStore(engram, timeout=PATIENCE_S)


def test_it_is_a_langgraph_store(store: EngramStore) -> None:
    assert isinstance(store, BaseStore)


def test_the_stores_agent_goes_with_each_search() -> None:
    searches: List[Dict[str, Any]] = []

    class Recording(Engram):  # no service: one of the store's items and a memory it did not write
        def search(self, query: str, **options: Any) -> List[SearchResult]:
            searches.append({"query": query, **options})
            return [SearchResult("a/lg:ann:trip", "memory", 0.9, 0.8, '{"city": "Oslo"}'),
                    SearchResult("a/m-1", "memory", 0.5, 0.4, "Not the store's.")]

        def get(self, record_id: str) -> Record:
            return Record(record_id, "memory", '{"city": "Oslo"}', "2026-01-01T00:00:00Z")

        def tenant_id(self) -> str:
            return "a"

    found = EngramStore(Recording("http://127.0.0.1:9", "k"), agent_id="support").search(("ann",), query="where?")
    assert [(i.namespace, i.key, i.value, i.score) for i in found] == [(("ann",), "trip", {"city": "Oslo"}, 0.9)]
    assert searches == [{"query": "where?", "k": 100, "types": ["memory"], "agent_id": "support"}]
    EngramStore(Recording("http://127.0.0.1:9", "k"), type="lesson").search(("ann",), query="what?")
    assert searches[1] == {"query": "what?", "k": 100, "types": ["lesson"], "agent_id": None}


def test_a_put_is_in_the_agents_context_and_no_other_tenants(store: EngramStore, engram: Engram,
                                                              other: Engram) -> None:
    user = tag("ann")  # the run's tag also keeps the context from leaving the fact out as a near-duplicate
    store.put((user, "memories"), "allergy", {"text": f"{user} is allergic to hazelnuts."})

    item = store.get((user, "memories"), "allergy")
    assert item is not None and item.value == {"text": f"{user} is allergic to hazelnuts."}
    assert (item.namespace, item.key) == ((user, "memories"), "allergy")
    context = engram.context(f"what is {user} allergic to?", budget_tokens=800)
    included = [i for i in context.included if i.text == f"{user} is allergic to hazelnuts."]
    assert len(included) == 1 and included[0].section == "memories"
    assert f"{user} is allergic to hazelnuts. [{included[0].id}]" in context.prompt
    assert engram.get(included[0].id).type == "memory"

    strangers = EngramStore(other, timeout=PATIENCE_S)
    assert strangers.get((user, "memories"), "allergy") is None
    assert strangers.search((user,), query=f"what is {user} allergic to?") == []
    assert (user, "memories") not in strangers.list_namespaces(prefix=(user,))
    assert not any(user in i.text for i in other.context(f"what is {user} allergic to?").included)


def test_search_by_query_and_by_filter_within_a_namespace(store: EngramStore) -> None:
    user = tag("ben")
    store.put((user, "trips"), "lisbon", {"city": "Lisbon", "month": 4, "note": f"{user} flies to Lisbon in April"})
    store.put((user, "trips"), "oslo", {"city": "Oslo", "month": 9, "note": f"{user} flies to Oslo in September"})
    store.put((user, "food"), "tea", {"text": f"{user} drinks green tea"})

    found = store.search((user, "trips"), query=f"when does {user} fly to Lisbon?", limit=5)
    assert [i.key for i in found][:1] == ["lisbon"] and {i.key for i in found} <= {"lisbon", "oslo"}
    assert found[0].score is not None and found[0].value["month"] == 4
    assert [i.key for i in store.search((user,), filter={"month": {"$gt": 6}})] == ["oslo"]
    assert [i.key for i in store.search((user,), filter={"city": "Lisbon"})] == ["lisbon"]
    assert sorted(i.key for i in store.search((user,), limit=10)) == ["lisbon", "oslo", "tea"]
    assert store.list_namespaces(prefix=(user,)) == [(user, "food"), (user, "trips")]
    assert store.list_namespaces(prefix=(user, "*"), max_depth=1) == [(user,)]
    assert store.list_namespaces(suffix=("trips",), prefix=(user,)) == [(user, "trips")]


def test_a_put_replaces_and_a_delete_forgets(store: EngramStore, engram: Engram) -> None:
    user = tag("cy")
    store.put((user,), "seat", {"text": "aisle"})
    store.put((user,), "seat", {"text": "window", "since": "2026"})
    assert store.get((user,), "seat").value == {"text": "window", "since": "2026"}
    store_id = engram.tenant_id() + "/lg:" + user + ":seat"
    assert engram.get(store_id).text == '{"since": "2026", "text": "window"}'

    store.delete((user,), "seat")
    assert store.get((user,), "seat") is None
    with pytest.raises(NotFoundError):
        engram.get(store_id)
    store.delete((user,), "seat")  # deleting what is gone is no error


def test_batch_and_abatch_answer_each_operation_in_order(store: EngramStore) -> None:
    user = tag("dee")
    results = store.batch([PutOp((user, "a"), "k1", {"text": "first"}), PutOp((user, "a"), "k2", {"text": "second"}),
                           GetOp((user, "a"), "k1"), SearchOp((user,), None, 10, 0), GetOp((user, "a"), "none")])
    assert results[:2] == [None, None]
    assert results[2].value == {"text": "first"}
    assert sorted(i.key for i in results[3]) == ["k1", "k2"]
    assert results[4] is None

    results = asyncio.run(store.abatch([GetOp((user, "a"), "k2"), PutOp((user, "a"), "k1", None),
                                        GetOp((user, "a"), "k1")]))
    assert results[0].value == {"text": "second"} and results[1] is None and results[2] is None
    assert asyncio.run(store.aget((user, "a"), "k2")).value == {"text": "second"}


def test_a_value_that_engram_refuses_is_an_error(store: EngramStore) -> None:
    with pytest.raises(ValueError, match="text_too_large|schema_violation"):
        store.put((tag("eve"),), "huge", {"text": "word " * 20_000})
