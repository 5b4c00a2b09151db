"""A LangGraph agent with Engram as its memory (``pip install 'engram-client[langgraph,langchain]'``).

A ``StateGraph`` of three nodes runs each user message: ``recall`` reads Engram's context for it (rules, memories,
the session's recent turns), ``model`` calls the chat model with that context as its system message, ``remember``
writes the exchange as the session's turns through the LangChain chat history adapter and what the user said about
themselves as a memory through the LangGraph store the graph was compiled with. The model is langchain-core's fake
chat model answering from a script, so no model key is needed; the memory calls are real. A second conversation of
the same user, in another session, gets the first one's allergy back in its context.

    ENGRAM_URL=http://127.0.0.1:8080 ENGRAM_KEY=... python examples/graph_agent.py
"""

import os
import uuid
from typing import Annotated, List, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.store.base import BaseStore

from engram_client import Engram
from engram_client.langchain import EngramChatMessageHistory
from engram_client.langgraph import EngramStore


class State(TypedDict):
    messages: Annotated[List[AnyMessage], add_messages]
    context: str


def build(engram: Engram, model: GenericFakeChatModel):
    def recall(state: State, config: RunnableConfig) -> dict:
        who = config["configurable"]
        context = engram.context(state["messages"][-1].content, session_id=who["thread_id"], user_id=who["user_id"],
                                 budget_tokens=800)
        return {"context": context.prompt}

    def respond(state: State) -> dict:
        return {"messages": [model.invoke([SystemMessage(state["context"]), *state["messages"]])]}

    def remember(state: State, config: RunnableConfig, *, store: BaseStore) -> dict:
        who = config["configurable"]
        said, answer = state["messages"][-2], state["messages"][-1]
        EngramChatMessageHistory(engram, who["thread_id"], user_id=who["user_id"]).add_messages([said, answer])
        # a real agent lets the model pick what to keep (a tool call); the stub keeps what the user says of themselves
        if said.content.startswith(("I'm", "I am", "My ")):
            store.put((who["user_id"], "memories"), uuid.uuid4().hex, {"text": f"{who['user_id']}: {said.content}"})
        return {}

    graph = StateGraph(State)
    graph.add_node("recall", recall)
    graph.add_node("model", respond)
    graph.add_node("remember", remember)
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "model")
    graph.add_edge("model", "remember")
    graph.add_edge("remember", END)
    return graph.compile(store=EngramStore(engram))


def main() -> None:
    engram = Engram(os.environ.get("ENGRAM_URL", "http://127.0.0.1:8080"), os.environ["ENGRAM_KEY"])
    user = "ann-" + uuid.uuid4().hex[:8]
    model = GenericFakeChatModel(messages=iter([AIMessage("Noted - no hazelnuts for you."),
                                                AIMessage("A lemon tart: no nuts in it.")]))
    agent = build(engram, model)
    threads = ["graph-" + uuid.uuid4().hex[:8] for _ in range(2)]
    first = agent.invoke({"messages": [HumanMessage("I'm allergic to hazelnuts.")]},
                         {"configurable": {"thread_id": threads[0], "user_id": user}})
    second = agent.invoke({"messages": [HumanMessage("Can you suggest a dessert for Friday?")]},
                          {"configurable": {"thread_id": threads[1], "user_id": user}})
    for state in (first, second):
        print(f"user: {state['messages'][0].content}\ncontext:\n{state['context'] or '(empty)'}\n"
              f"agent: {state['messages'][-1].content}\n")
    # the first conversation's turn, or the memory the store kept of it, is in the second one's context
    if not any("allergic to hazelnuts." in line and (f"/{threads[0]}/" in line or f"[{user}:" in line
                                                     or f"lg:{user}." in line) for line in second["context"].splitlines()):
        raise SystemExit("the second conversation's context does not hold the first one's allergy")


if __name__ == "__main__":
    main()
