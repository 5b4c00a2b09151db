"""An OpenAI-Agents-style session backed by Engram. The OpenAI Agents SDK keeps a conversation in a Session
(get_items, add_items, pop_item, clear_session); EngramSession is one, so every turn is written to Engram, and
before each model call the agent reads an assembled context - rules, relevant memories from every earlier
session, the recent turns - instead of the whole history. The "model" is a stub; the memory calls are real.

    ENGRAM_URL=http://127.0.0.1:8080 ENGRAM_KEY=... python examples/agents_session.py
"""

import os
import uuid
from typing import Any, Dict, List, Optional

from engram_client import Engram


class EngramSession:
    """The Agents SDK's Session protocol over Engram: items are {"role", "content"} dicts."""

    def __init__(self, engram: Engram, session_id: str, user_id: Optional[str] = None) -> None:
        self.engram, self.session_id, self.user_id = engram, session_id, user_id

    def get_items(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        records = self.engram.list(type="turn", session_id=self.session_id, limit=100).records
        records.sort(key=lambda r: r.fields.get("position", 0))
        items = [{"role": r.fields.get("role", "user"), "content": r.text} for r in records]
        return items[-limit:] if limit else items

    def add_items(self, items: List[Dict[str, Any]]) -> None:
        written = self.engram.add_turns(self.session_id, [{"role": i["role"], "text": i["content"]} for i in items],
                                        user_id=self.user_id)
        self.engram.wait_until_searchable(written.accepted)  # read-your-writes for the next call (about a second)

    def pop_item(self) -> Optional[Dict[str, Any]]:
        records = self.engram.list(type="turn", session_id=self.session_id, limit=1).records
        if not records:
            return None
        self.engram.delete(records[0].id)
        return {"role": records[0].fields.get("role", "user"), "content": records[0].text}

    def clear_session(self) -> None:
        self.engram.forget_session(self.session_id)


def stub_model(instructions: str, user_message: str) -> str:
    remembered = [line for line in instructions.splitlines() if line.startswith("- ")]
    return f"(a stub model's answer, written with {len(remembered)} remembered lines in its instructions)"


def run_turn(engram: Engram, session: EngramSession, user_message: str) -> str:
    context = engram.context(user_message, session_id=session.session_id, user_id=session.user_id,
                             budget_tokens=800)
    answer = stub_model("You are a helpful travel agent.\n\n" + context.prompt, user_message)
    session.add_items([{"role": "user", "content": user_message}, {"role": "assistant", "content": answer}])
    return answer


def main() -> None:
    engram = Engram(os.environ.get("ENGRAM_URL", "http://127.0.0.1:8080"), os.environ["ENGRAM_KEY"])
    first = EngramSession(engram, "agents-" + uuid.uuid4().hex[:8], user_id="ben")
    print("agent:", run_turn(engram, first, "I only fly aisle seats, never middle."))
    # a later conversation with the same user: the preference comes back from the earlier session
    second = EngramSession(engram, "agents-" + uuid.uuid4().hex[:8], user_id="ben")
    context = engram.context("Book me a flight to Oslo, which seat?", session_id=second.session_id, user_id="ben")
    print("context for the new session:\n" + (context.prompt or "(empty)"))
    print("agent:", run_turn(engram, second, "Book me a flight to Oslo, which seat?"))
    print("first session's items:", first.get_items())
    if "aisle" not in context.prompt:
        raise SystemExit("the new session's context does not hold the earlier preference")


if __name__ == "__main__":
    main()
