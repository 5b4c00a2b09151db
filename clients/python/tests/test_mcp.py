"""The memory service's MCP endpoint through the Python MCP SDK (the `mcp` package from PyPI), as a Python
agent framework connects: tools listed, remember then recall, a resource per agent document, a wrong key
refused, and a second tenant that sees nothing of the first. Run by run-live-tests with a live Engram."""

import asyncio
import os
import time
import uuid
from typing import Any, Awaitable, Callable, List

import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

PATIENCE_S = 90


async def with_session(key: str, use: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer " + key}) as http:
        async with streamable_http_client(os.environ["ENGRAM_URL"] + "/mcp", http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await use(session)


def run(key: str, use: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    if not os.environ.get("ENGRAM_URL"):
        pytest.fail("ENGRAM_URL, ENGRAM_KEY and ENGRAM_OTHER_KEY are unset: run clients/run-live-tests")
    return asyncio.run(with_session(key, use))


def text(result: Any) -> str:
    return result.content[0].text


def test_the_tools_remember_then_recall_and_forget() -> None:
    memory = f"The Lisbon office keeps its spare keys with Joana (run {uuid.uuid4().hex[:8]})."

    async def scenario(session: ClientSession) -> List[str]:
        tools = sorted(t.name for t in (await session.list_tools()).tools)
        remembered = await session.call_tool("remember", {"text": memory})
        assert not remembered.is_error, text(remembered)
        memory_id = text(remembered).split()[2].rstrip(";")
        deadline = time.monotonic() + PATIENCE_S
        while True:
            recalled = await session.call_tool("recall", {"query": "who has the spare keys in Lisbon?"})
            if f"[{memory_id}]" in text(recalled):
                break
            assert time.monotonic() < deadline, "the memory was not recalled in time"
            await asyncio.sleep(0.3)
        assert memory in text(recalled)
        refused = await session.call_tool("recall", {"budget_tokens": 10})
        assert refused.is_error and "query" in text(refused)
        forgotten = await session.call_tool("forget", {"scope": "memory", "id": memory_id})
        assert not forgotten.is_error and "fgt-" in text(forgotten)
        return tools

    assert run(os.environ["ENGRAM_KEY"], scenario) == ["forget", "recall", "remember", "search"]


def test_agent_documents_are_resources_of_their_tenant_only() -> None:
    agent = "agent-" + uuid.uuid4().hex[:8]

    async def write_and_list(session: ClientSession) -> str:
        from engram_client import Engram
        Engram(os.environ["ENGRAM_URL"], os.environ["ENGRAM_KEY"]).add_document(
            agent, "SOUL.md", "# Soul\n\n- Never share a guest's room number.\n", version=1, doc_class="core")
        uri = f"engram://documents/{agent}/SOUL.md"
        deadline = time.monotonic() + PATIENCE_S
        while uri not in [str(r.uri) for r in (await session.list_resources()).resources]:
            assert time.monotonic() < deadline, "the document was not listed in time"
            await asyncio.sleep(0.3)
        return (await session.read_resource(uri)).contents[0].text

    document = run(os.environ["ENGRAM_KEY"], write_and_list)
    assert document.startswith(f"# SOUL.md (agent {agent}, version 1)")
    assert "Never share a guest's room number." in document

    async def other_lists(session: ClientSession) -> List[str]:
        return [str(r.uri) for r in (await session.list_resources()).resources]

    assert not any(agent in uri for uri in run(os.environ["ENGRAM_OTHER_KEY"], other_lists))


def test_a_wrong_key_is_refused() -> None:
    # the service answers 401 before any MCP message is read; the SDK reports it as an error response
    with pytest.raises(BaseExceptionGroup) as refused:
        run("not-a-key", lambda session: session.list_tools())
    assert refused.group_contains(MCPError, match="error response", depth=None)
