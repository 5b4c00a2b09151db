"""A LangGraph-style agent loop with Engram as its memory: each user message flows through three nodes -
recall (read a context before the model call), model, remember (write both turns) - over a state dict, as a
LangGraph StateGraph would run them. The "model" is a stub that answers from the context it is given, so no
model key is needed; the memory calls are real.

    ENGRAM_URL=http://127.0.0.1:8080 ENGRAM_KEY=... python examples/graph_agent.py
"""

import os
import uuid
from typing import Callable, List, TypedDict

from engram_client import Engram


class State(TypedDict):
    session_id: str
    user_id: str
    message: str
    context: str
    answer: str


def recall(engram: Engram) -> Callable[[State], State]:
    def node(state: State) -> State:
        context = engram.context(state["message"], session_id=state["session_id"], user_id=state["user_id"],
                                 budget_tokens=800)
        return {**state, "context": context.prompt}
    return node


def model(state: State) -> State:
    """Stands in for the LLM call: the prompt is the context, then the user's message."""
    remembered = [line for line in state["context"].splitlines() if line.startswith("- ")]
    return {**state, "answer": f"(a stub model's answer, written with {len(remembered)} remembered lines)"}


def remember(engram: Engram) -> Callable[[State], State]:
    def node(state: State) -> State:
        written = engram.add_turns(state["session_id"], [{"role": "user", "text": state["message"]},
                                                         {"role": "assistant", "text": state["answer"]}],
                                   user_id=state["user_id"])
        # the next message may be about this one: wait until the pipeline has indexed it (about a second)
        engram.wait_until_searchable(written.accepted)
        return state
    return node


def run(engram: Engram, messages: List[str]) -> List[State]:
    graph = [recall(engram), model, remember(engram)]  # START -> recall -> model -> remember -> END
    session, states = "graph-" + uuid.uuid4().hex[:8], []
    for message in messages:
        state: State = {"session_id": session, "user_id": "ann", "message": message, "context": "", "answer": ""}
        for node in graph:
            state = node(state)
        states.append(state)
    return states


def main() -> None:
    engram = Engram(os.environ.get("ENGRAM_URL", "http://127.0.0.1:8080"), os.environ["ENGRAM_KEY"])
    states = run(engram, ["I'm allergic to hazelnuts.", "Can you suggest a dessert for Friday?"])
    for state in states:
        print(f"user: {state['message']}\ncontext:\n{state['context'] or '(empty)'}\nagent: {state['answer']}\n")
    if "hazelnuts" not in states[-1]["context"]:
        raise SystemExit("the second call's context does not hold the first message")


if __name__ == "__main__":
    main()
