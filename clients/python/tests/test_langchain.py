"""The LangChain chat history adapter (``engram_client.langchain.EngramChatMessageHistory``) against the real
``BaseChatMessageHistory`` of langchain-core and a live Engram: messages added through the history are the
session's turns in Engram's context, ``clear`` forgets the session, and another tenant's history of the same
session id is empty."""

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage

from conftest import PATIENCE_S, tag
from engram_client import Engram
from engram_client.langchain import EngramChatMessageHistory


def test_messages_are_the_sessions_turns_and_no_other_tenants(engram: Engram, other: Engram) -> None:
    session = tag("s")
    history = EngramChatMessageHistory(engram, session, user_id="ann", timeout=PATIENCE_S)
    assert isinstance(history, BaseChatMessageHistory)
    history.add_messages([SystemMessage("You plan trips."), HumanMessage("I'm planning a trip to Kyoto in April.")])
    history.add_message(AIMessage("Cherry blossom season - shall I look at ryokans near Gion?"))
    history.add_messages([ToolMessage("3 ryokans found", tool_call_id="c1"), ChatMessage(role="user", content="Yes.")])

    messages = history.messages
    assert [(m.type, m.content) for m in messages] == [
        ("system", "You plan trips."), ("human", "I'm planning a trip to Kyoto in April."),
        ("ai", "Cherry blossom season - shall I look at ryokans near Gion?"), ("chat", "3 ryokans found"),
        ("human", "Yes.")]
    assert messages[3].role == "tool"
    assert [m.id for m in messages] == [f"{engram.tenant_id()}/{session}/t-{n}" for n in range(5)]
    assert [m.content for m in EngramChatMessageHistory(engram, session).messages] == [m.content for m in messages]

    context = engram.context("where am I travelling?", session_id=session, budget_tokens=1500)
    tail = [i.text for i in context.included if i.section == "recent_tail"]
    assert "I'm planning a trip to Kyoto in April." in tail
    assert tail == [m.content for m in messages if m.content in tail], "the tail reads in the order said"
    assert {r.fields.get("user_id") for r in engram.list(session_id=session).records} == {"ann"}

    assert EngramChatMessageHistory(other, session).messages == []
    assert not any("Kyoto" in i.text for i in other.context("where am I travelling?", session_id=session).included)


def test_clear_forgets_the_session(engram: Engram) -> None:
    session = tag("s")
    history = EngramChatMessageHistory(engram, session, timeout=PATIENCE_S)
    history.add_messages([HumanMessage("My locker code is 4417."), AIMessage("Noted.")])
    assert len(history.messages) == 2
    history.clear()
    assert history.messages == []
    assert engram.list(session_id=session).records == []
    history.add_messages([HumanMessage("A new start.")])
    assert [m.content for m in history.messages] == ["A new start."]
