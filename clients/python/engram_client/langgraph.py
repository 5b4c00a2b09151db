"""Engram as a LangGraph store: ``EngramStore`` implements ``langgraph.store.base.BaseStore`` (``pip install
'engram-client[langgraph]'``).

    from engram_client import Engram
    from engram_client.langgraph import EngramStore

    store = EngramStore(Engram(url, api_key))
    store.put(("ann", "memories"), "allergy", {"text": "Ann is allergic to hazelnuts."})
    graph = builder.compile(store=store)

The tenant is the API key's. Each item is one of the tenant's memories (``type``, default ``memory``): the agent's
context (``Engram.context``, the MCP ``recall``) finds it like any other memory. Engram's memories carry no user or
session, so the namespace is kept in the memory's id: ``lg:`` + the namespace's labels joined by ``.`` + ``:`` + the
key, each part percent-encoded. An item whose value is just ``{"text": …}`` is stored as that text; any other
value as its JSON. ``created_at`` and ``updated_at`` are both the record's time.

A put or delete returns once the pipeline has applied it (about a second; ``wait=False`` returns at once, when
Kafka has it), so that a get right after it reads it. ``search`` with a query ranks the tenant's best 100 matches
by Engram's hybrid search and keeps those in the namespace; without one, and ``list_namespaces``, page through the
tenant's memories of the type. ``agent_id`` goes with each search: Engram then leaves out other agents' document
records (rules, lore), while memories, the store's items, are every agent's. ``index`` and ``ttl`` are not
supported: Engram indexes every memory, and keeps it until it is deleted or forgotten.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
from datetime import datetime
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from langgraph.store.base import (BaseStore, GetOp, Item, ListNamespacesOp, MatchCondition, Op, PutOp, Result,
                                  SearchItem, SearchOp)

from engram_client import Engram, NotFoundError, Record

__all__ = ["EngramStore"]

_ROOT = "lg"
Namespace = Tuple[str, ...]


class EngramStore(BaseStore):
    """A LangGraph ``BaseStore`` over one Engram tenant (the client's key)."""

    def __init__(self, client: Engram, *, type: str = "memory", wait: bool = True, timeout: float = 30.0,
                 agent_id: Optional[str] = None) -> None:
        self._client = client
        self._type = type
        self._agent_id = agent_id
        self._wait = wait
        self._timeout = timeout

    def batch(self, ops: Iterable[Op]) -> List[Result]:
        ops = list(ops)
        results: List[Result] = [None] * len(ops)
        puts: List[PutOp] = []
        for i, op in enumerate(ops):
            if isinstance(op, PutOp):
                puts.append(op)  # consecutive puts are applied together: one wait for them all
                continue
            self._put(puts)
            puts = []
            if isinstance(op, GetOp):
                results[i] = self._get(op.namespace, op.key)
            elif isinstance(op, SearchOp):
                results[i] = self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
            else:
                raise ValueError(f"unknown store operation {op!r}")
        self._put(puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> List[Result]:
        return await asyncio.get_running_loop().run_in_executor(None, self.batch, list(ops))

    # -- operations ---------------------------------------------------------------------------------------------

    def _get(self, namespace: Namespace, key: str) -> Optional[Item]:
        try:
            record = self._client.get(self._store_id(namespace, key))
        except NotFoundError:
            return None
        return self._item(namespace, key, record)

    def _put(self, ops: List[PutOp]) -> None:
        last: Dict[Tuple[Namespace, str], PutOp] = {(op.namespace, op.key): op for op in ops}  # the last put wins
        written: List[Tuple[PutOp, str]] = []
        for op in last.values():
            if op.value is None:
                self._delete(op.namespace, op.key)
                continue
            text = _text(op.value)
            answer = self._client.add_memory(text, memory_id=_memory_id(op.namespace, op.key), type=self._type)
            if answer.rejected:
                raise ValueError(f"Engram refused {op.namespace} {op.key!r}: {answer.rejected[0].code}: "
                                 f"{answer.rejected[0].message}")
            written.append((op, text))
        if self._wait:
            deadline = time.monotonic() + self._timeout
            for op, text in written:
                while self._text_of(op.namespace, op.key) != text:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"{op.namespace} {op.key!r} not stored within {self._timeout} s")
                    time.sleep(0.2)

    def _delete(self, namespace: Namespace, key: str) -> None:
        try:
            forget = self._client.delete(self._store_id(namespace, key))
        except NotFoundError:
            return
        if self._wait:
            self._client.wait_until_forgotten(forget.forget_id, timeout=self._timeout)

    def _search(self, op: SearchOp) -> List[SearchItem]:
        end = op.offset + op.limit
        if op.query:
            found = self._client.search(op.query, k=100, types=[self._type], agent_id=self._agent_id)
            hits = [(place, hit.score) for hit in found
                    for place in [self._place(hit.id)]
                    if place and _within(place[0], op.namespace_prefix) and _matches(_value(hit.text), op.filter)]
            # a search hit carries no time: read the items kept (one deleted since is left out)
            items = [(self._get(namespace, key), score) for (namespace, key), score in hits[op.offset:end]]
            return [_scored(item, score) for item, score in items if item is not None]
        found: List[SearchItem] = []
        for item in self._items():
            if _within(item.namespace, op.namespace_prefix) and _matches(item.value, op.filter):
                found.append(_scored(item, None))
                if len(found) >= end:
                    break
        return found[op.offset:end]

    def _list_namespaces(self, op: ListNamespacesOp) -> List[Namespace]:
        namespaces = set()
        for item in self._items():
            if all(_does_match(condition, item.namespace) for condition in op.match_conditions or ()):
                namespaces.add(item.namespace if op.max_depth is None else item.namespace[:op.max_depth])
        return sorted(namespaces)[op.offset:op.offset + op.limit]

    # -- ids and records ----------------------------------------------------------------------------------------

    def _store_id(self, namespace: Namespace, key: str) -> str:
        return self._client.tenant_id() + "/" + _memory_id(namespace, key)

    @staticmethod
    def _place(store_id: str) -> Optional[Tuple[Namespace, str]]:
        """The namespace and key a store id names, or None for a memory this store did not write."""
        memory_id = store_id.partition("/")[2]
        parts = memory_id.split(":")
        if len(parts) != 3 or parts[0] != _ROOT:
            return None
        return tuple(urllib.parse.unquote(label) for label in parts[1].split(".")), urllib.parse.unquote(parts[2])

    def _items(self) -> Iterator[Item]:
        """The store's items, newest first, a page of the tenant's memories at a time."""
        cursor: Optional[str] = None
        while True:
            page = self._client.list(type=self._type, limit=100, cursor=cursor)
            for record in page.records:
                place = self._place(record.id)
                if place:
                    yield self._item(place[0], place[1], record)
            cursor = page.next_cursor
            if cursor is None:
                return

    @staticmethod
    def _item(namespace: Namespace, key: str, record: Record) -> Item:
        at = datetime.fromisoformat(record.ts.replace("Z", "+00:00"))  # Python 3.10 reads no "Z"
        return Item(value=_value(record.text), key=key, namespace=namespace, created_at=at, updated_at=at)

    def _text_of(self, namespace: Namespace, key: str) -> Optional[str]:
        try:
            return self._client.get(self._store_id(namespace, key)).text
        except NotFoundError:
            return None


def _memory_id(namespace: Namespace, key: str) -> str:
    labels = ".".join(urllib.parse.quote(label, safe="") for label in namespace)
    return f"{_ROOT}:{labels}:{urllib.parse.quote(key, safe='')}"


def _text(value: Dict[str, Any]) -> str:
    text = value.get("text")
    if set(value) == {"text"} and isinstance(text, str) and not text.startswith("{"):
        return text
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _value(text: str) -> Dict[str, Any]:
    if text.startswith("{"):
        try:
            value = json.loads(text)
            if isinstance(value, dict):
                return value
        except ValueError:
            pass
    return {"text": text}


def _scored(item: Item, score: Optional[float]) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)


def _within(namespace: Namespace, prefix: Namespace) -> bool:
    return namespace[:len(prefix)] == tuple(prefix)


def _does_match(condition: MatchCondition, namespace: Namespace) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    window = namespace[:len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path):]
    return all(want == "*" or want == have for want, have in zip(path, window))


_OPERATORS = {"$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b, "$gt": lambda a, b: a > b,
              "$gte": lambda a, b: a >= b, "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b}


def _matches(value: Dict[str, Any], filter: Optional[Dict[str, Any]]) -> bool:
    """LangGraph's filter: each field equal to the filter's value, or passing its ``$eq``/``$ne``/``$gt``/…"""
    for field, wanted in (filter or {}).items():
        have = value.get(field)
        if isinstance(wanted, dict) and wanted and all(k in _OPERATORS for k in wanted):
            try:
                if not all(_OPERATORS[k](have, v) for k, v in wanted.items()):
                    return False
            except TypeError:  # an absent field, or one of another type, compares as no match
                return False
        elif have != wanted:
            return False
    return True
