"""Engram as a LangChain chat message history: ``EngramChatMessageHistory`` implements
``langchain_core.chat_history.BaseChatMessageHistory`` (``pip install 'engram-client[langchain]'``).

    from engram_client import Engram
    from engram_client.langchain import EngramChatMessageHistory

    history = EngramChatMessageHistory(Engram(url, api_key), "s-1", user_id="ann")
    history.add_messages([HumanMessage("I'm allergic to hazelnuts."), AIMessage("Noted.")])

Each message is a turn of the session (human → user, ai → assistant, system, tool; a ``ChatMessage`` with one of
those roles), numbered in order; ``messages`` reads the session's stored turns back in that order, each with its
store id as the message id (a tool turn comes back as a ``ChatMessage`` with role ``tool``: Engram keeps no tool
call id). ``clear`` forgets the session: its turns and the summaries made from them. Writes and ``clear`` return
once the pipeline has applied them (about a second; ``wait=False`` returns at once), so that ``messages`` right
after reads them.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Type

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage, SystemMessage

from engram_client import Engram, Record

__all__ = ["EngramChatMessageHistory"]

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_MESSAGES: Dict[str, Type[BaseMessage]] = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}


class EngramChatMessageHistory(BaseChatMessageHistory):
    """The turns of one Engram session, as LangChain messages."""

    def __init__(self, client: Engram, session_id: str, *, user_id: Optional[str] = None, wait: bool = True,
                 timeout: float = 30.0) -> None:
        self.client = client
        self.session_id = session_id
        self.user_id = user_id
        self.wait = wait
        self.timeout = timeout

    @property
    def messages(self) -> List[BaseMessage]:  # type: ignore[override]
        turns: List[Record] = []
        cursor: Optional[str] = None
        while True:
            page = self.client.list(type="turn", session_id=self.session_id, limit=100, cursor=cursor)
            turns += page.records
            cursor = page.next_cursor
            if cursor is None:
                break
        turns.sort(key=lambda r: int(r.fields.get("position", 0)))
        return [_message(turn) for turn in turns]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        written = self.client.add_turns(self.session_id, [{"role": _role(m), "text": str(m.text)} for m in messages],
                                        user_id=self.user_id)
        if written.rejected:
            first = written.rejected[0]
            raise ValueError(f"Engram refused message {first.index}: {first.code}: {first.message}")
        if self.wait:
            self.client.wait_until_searchable(written.accepted, timeout=self.timeout)

    def clear(self) -> None:
        forget = self.client.forget_session(self.session_id)
        if self.wait:
            self.client.wait_until_forgotten(forget.forget_id, timeout=self.timeout)


def _role(message: BaseMessage) -> str:
    role = message.role if isinstance(message, ChatMessage) else _ROLES.get(message.type)
    if role not in _ROLES.values():
        raise ValueError(f"Engram keeps user, assistant, system and tool turns, not {message.type} ({role})")
    return role


def _message(turn: Record) -> BaseMessage:
    role = str(turn.fields.get("role"))
    kind = _MESSAGES.get(role)
    if kind is None:
        return ChatMessage(role=role, content=turn.text, id=turn.id)
    return kind(content=turn.text, id=turn.id)
