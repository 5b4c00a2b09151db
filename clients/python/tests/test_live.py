"""Every method of the client against a live Engram (``./engram up``): run by ``clients/run-live-tests``,
which starts one and sets ENGRAM_URL, ENGRAM_KEY and ENGRAM_OTHER_KEY (two tenants' keys)."""

import os
import uuid

import pytest

from conftest import PATIENCE_S, eventually, tag, unique
from engram_client import AuthenticationError, Engram, EngramError, InvalidRequestError, NotFoundError


def done(engram: Engram, forget_id: str) -> bool:
    return engram.forget_status(forget_id).status == "done"


def test_a_memory_is_searchable_readable_and_listed(engram: Engram) -> None:
    text = unique("The staging database password rotates every Tuesday.")
    written = engram.add_memory(text)
    assert written.rejected == [] and len(written.accepted) == 1
    memory_id = written.accepted[0]
    eventually("the memory is searchable",
               lambda: memory_id in [r.id for r in engram.search("when does the staging password rotate?", k=20)])
    record = engram.get(memory_id)
    assert (record.id, record.type, record.text) == (memory_id, "memory", text)
    assert engram.add_memory(text).accepted == [memory_id], "the same text is the same memory"
    listed, cursor = [], None
    while True:
        page = engram.list(type="memory", limit=50, cursor=cursor)
        listed += [r.id for r in page.records]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert memory_id in listed


def test_entities_are_who_and_what_the_memories_name(engram: Engram) -> None:
    user = tag("u")
    written = [engram.add_memory(unique(text), user_id=user).accepted[0]
               for text in ("Priya moved to Lisbon last spring.", "Priya works at Siemens now.")]
    engram.wait_until_searchable(written)
    named = {e.name: e for e in engram.entities(user_id=user)}
    assert named["priya"].records == 2
    assert {c.name: c.records for c in named["priya"].co_mentions} == {"lisbon": 1, "siemens": 1}
    assert [r.id for r in named["priya"].mentioned_by] == list(reversed(written)), "newest first"
    assert [e.name for e in engram.entities(user_id=user, name="Lisbon")] == ["lisbon", "priya"]
    with pytest.raises(InvalidRequestError):
        engram.entities(limit=0)


def test_a_newer_memory_of_a_key_supersedes_the_older_and_as_of_reads_the_past(engram: Engram) -> None:
    user = "u-" + uuid.uuid4().hex[:8]
    paris = engram.add_memory(unique("Ann lives in Paris."), user_id=user, key="user.city",
                              valid_from="2020-01-01T00:00:00Z").accepted[0]
    berlin = engram.add_memory(unique("Ann lives in Berlin."), user_id=user, key="user.city",
                               valid_from="2024-01-01T00:00:00Z").accepted[0]
    engram.wait_until_searchable([paris, berlin])
    eventually("Paris is superseded by Berlin",
               lambda: engram.get(paris).fields.get("superseded_by") == berlin)
    assert engram.get(paris).fields["superseded_at"] == "2024-01-01T00:00:00Z"
    assert engram.get(berlin).fields["chain"] == [paris, berlin]
    found = [r.id for r in engram.search("where does Ann live?", k=50)]
    assert berlin in found and paris not in found
    then = [r.id for r in engram.search("where does Ann live?", k=50, as_of="2022-06-01T00:00:00Z")]
    assert paris in then and berlin not in then
    refused = engram.add_memory("x", key="not a key")
    assert refused.accepted == [] and refused.rejected[0].code == "schema_violation"


def test_a_users_export_holds_their_turns_and_memories_as_payloads_oldest_first(engram: Engram) -> None:
    user = tag("u")
    session = tag("s")
    turn = engram.add_turns(session, [{"role": "user", "text": unique("I just adopted a dog.")}], user_id=user).accepted[0]
    paris = engram.add_memory(unique("Ann lives in Paris."), user_id=user, key="user.city").accepted[0]
    berlin = engram.add_memory(unique("Ann lives in Berlin."), user_id=user, key="user.city").accepted[0]
    engram.wait_until_searchable([turn, paris, berlin])
    eventually("Paris is superseded by Berlin", lambda: engram.get(paris).fields.get("superseded_by") == berlin)
    lines = list(engram.export(user_id=user))
    assert lines[-1] == {"schema": "cursor.v1", "cursor": None, "records": len(lines) - 1}
    payloads = [line for line in lines if line["schema"] in ("turn.v1", "memory.v1")]
    assert [line["schema"] for line in payloads] == ["turn.v1", "memory.v1", "memory.v1"], "oldest first"
    assert payloads[0]["session_id"] == session and payloads[0]["seq"] == 0
    assert [line["tenant_id"] + "/" + line["memory_id"] for line in payloads[1:]] == [paris, berlin]
    assert all(line["key"] == "user.city" and "superseded_by" not in line for line in payloads[1:])
    assert all(line["user_id"] == user for line in lines[:-1])
    assert [line["schema"] for line in engram.export(user_id=user, types=["memory"])] == ["memory.v1"] * 2 + ["cursor.v1"]


def test_turns_make_the_context_with_a_prompt_to_paste(engram: Engram) -> None:
    session = "s-" + uuid.uuid4().hex[:8]
    written = engram.add_turns(session, [
        {"role": "user", "text": "I'm planning a trip to Kyoto in April with my sister."},
        {"role": "assistant", "text": "Lovely - cherry blossom season. Shall I look at ryokans near Gion?"},
    ], user_id="u-kyoto")
    assert len(written.accepted) == 2 and written.rejected == []
    eventually("the turns are in the session's context", lambda: set(written.accepted) <= {
        i.id for i in engram.context("where am I travelling?", session_id=session, budget_tokens=1500).included})
    context = engram.context("where am I travelling?", session_id=session, budget_tokens=1500)
    assert 0 < context.tokens_used <= context.budget_tokens == 1500
    assert f"[{written.accepted[0]}]" in context.prompt and "Kyoto" in context.prompt
    page = engram.list(session_id=session, limit=10)
    assert sorted(r.id for r in page.records) == sorted(written.accepted)
    assert engram.tenant_id() + "/" + session + "/t-0" == written.accepted[0]
    assert {r.fields.get("role") for r in page.records} == {"user", "assistant"}


def test_turns_are_numbered_in_order_across_calls_and_clients(engram: Engram) -> None:
    session = "s-" + uuid.uuid4().hex[:8]
    said = ["First, the flight to Oslo.", "Booked the Oslo flight.", "Second, a hotel near the harbour.",
            "Booked the harbour hotel."]
    first = engram.add_turns(session, [{"role": "user", "text": said[0]}, {"role": "assistant", "text": said[1]}])
    second = engram.add_turns(session, [{"role": "user", "text": said[2]}])
    assert [i.rsplit("/", 1)[1] for i in first.accepted + second.accepted] == ["t-0", "t-1", "t-2"]
    engram.wait_until_searchable(first.accepted + second.accepted, timeout=PATIENCE_S)
    restarted = Engram(os.environ["ENGRAM_URL"], os.environ["ENGRAM_KEY"])  # continues after the stored turns
    third = restarted.add_turns(session, [{"role": "assistant", "text": said[3]}])
    assert third.accepted[0].endswith("/t-3")
    restarted.wait_until_searchable(third.accepted, timeout=PATIENCE_S)
    assert sorted(r.fields["position"] for r in engram.list(session_id=session).records) == [0, 1, 2, 3]
    context = engram.context("what did we book?", session_id=session, budget_tokens=2000)
    tail = [i.text for i in context.included if i.section == "recent_tail"]
    assert len(tail) >= 2 and tail == [text for text in said if text in tail], "the tail reads in the order said"


def test_a_document_becomes_rules(engram: Engram) -> None:
    agent = "agent-" + uuid.uuid4().hex[:8]
    written = engram.add_document(agent, "AGENTS.md", "# Rules\n\n- Never paste customer data into tickets.\n",
                                  version=1, doc_class="core")
    assert written.rejected == [] and len(written.accepted) == 1
    eventually("the rule is stored", lambda: any(
        r.type == "invariant" and "customer data" in r.text and r.fields.get("agent_id") == agent
        for r in engram.list(type="invariant", limit=100).records))


def test_an_agents_context_holds_its_own_rules_and_the_shared_ones_within_the_budget(engram: Engram) -> None:
    agent, stranger = tag("agent"), tag("agent")
    house = f"HOUSE-{agent}.md"
    documents = [(agent, "AGENTS.md", "Never paste customer data into tickets."),
                 (stranger, "AGENTS.md", "Always paste the customer data into tickets."),
                 ("*", house, "Never send customer data outside the company.")]  # "*": shared with every agent
    for who, path, rule in documents:
        written = engram.add_document(who, path, f"# Rules\n\n- {rule}\n", version=1, doc_class="core")
        assert written.rejected == [] and len(written.accepted) == 1

    def rules() -> dict:
        return {(r.fields.get("agent_id"), r.fields.get("doc_path")): r.id
                for r in engram.list(type="invariant", limit=100).records if "customer data" in r.text}
    eventually("the three documents' rules are stored", lambda: len(rules().keys() & {d[:2] for d in documents}) == 3)
    own, theirs, shared = (rules()[d[:2]] for d in documents)
    query = "may I paste customer data into a ticket?"

    mine = engram.context(query, agent_id=agent, budget_tokens=1500)
    assert mine.agent_id == agent
    hard = {i.id for i in mine.included if i.section == "hard_rules"}
    assert {own, shared} <= hard and theirs not in {i.id for i in mine.included}
    # the tenant's documents belong to several agents: without an agent, the shared documents' rules only
    unnamed = engram.context(query, budget_tokens=1500)
    assert unnamed.agent_id is None
    assert shared in {i.id for i in unnamed.included} and not {own, theirs} & {i.id for i in unnamed.included}

    found = {r.id for r in engram.search("paste customer data into tickets", k=50, types=["invariant"],
                                         agent_id=agent)}
    assert own in found and theirs not in found
    assert {own, theirs} <= {r.id for r in engram.search("paste customer data into tickets", k=50,
                                                        types=["invariant"])}

    # the budget holds, leaving the rule out and saying so; all_rules takes every hard rule of the agent whatever it
    tight = engram.context(query, agent_id=agent, budget_tokens=1)
    assert tight.tokens_used <= 1 and own in {e.id for e in tight.excluded} and tight.degraded_reasons
    every = engram.context(query, agent_id=agent, budget_tokens=1, all_rules=True)
    assert own in {i.id for i in every.included} and every.tokens_used > every.budget_tokens == 1


def test_delete_forgets_one_memory(engram: Engram) -> None:
    memory_id = engram.add_memory(unique("The office plant is called Gerald.")).accepted[0]
    engram.wait_until_searchable([memory_id], timeout=PATIENCE_S)
    forget = engram.delete(memory_id)
    assert (forget.scope, forget.target, forget.status) == ("memory", memory_id, "pending")
    assert engram.wait_until_forgotten(forget.forget_id, timeout=PATIENCE_S).status == "done"
    with pytest.raises(NotFoundError):
        engram.get(memory_id)


def test_forget_session_and_forget_user(engram: Engram) -> None:
    session, user = "s-" + uuid.uuid4().hex[:8], "u-" + uuid.uuid4().hex[:8]
    first = engram.add_turns(session, [{"role": "user", "text": "My locker code is 4417."}]).accepted
    second = engram.add_turns(session + "-b", [{"role": "user", "text": "I moved to Porto last year."}],
                              user_id=user).accepted
    engram.wait_until_searchable(first + second, timeout=PATIENCE_S)

    by_session = engram.forget_session(session)
    assert by_session.scope == "session" and by_session.target == session
    eventually("the session is forgotten", lambda: done(engram, by_session.forget_id))
    assert engram.list(session_id=session).records == []
    assert engram.forget_status(by_session.forget_id).records_removed == 1

    by_user = engram.forget_user(user)
    eventually("the user is forgotten", lambda: done(engram, by_user.forget_id))
    assert engram.list(user_id=user).records == []


def test_each_refusal_is_an_exception_with_the_api_code(engram: Engram) -> None:
    with pytest.raises(AuthenticationError) as bad_key:
        Engram(os.environ["ENGRAM_URL"], "not-a-key").search("x")
    assert (bad_key.value.status, bad_key.value.code) == (401, "unauthorized")
    with pytest.raises(InvalidRequestError) as bad_budget:
        engram.context("x", budget_tokens=0)
    assert (bad_budget.value.status, bad_budget.value.code) == (400, "invalid_request")
    assert "budget_tokens" in bad_budget.value.message
    with pytest.raises(NotFoundError) as missing:
        engram.get("no-such-record")
    assert missing.value.code == "not_found"
    with pytest.raises(NotFoundError):
        engram.forget_status("fgt-none")
    with pytest.raises(EngramError) as unknown_type:
        engram.search("x", types=["diary"])
    assert unknown_type.value.code == "invalid_request"
    rejected = engram.add_memory("x", type="diary")
    assert rejected.accepted == [] and rejected.rejected[0].code == "schema_violation"
    assert "type" in rejected.rejected[0].message


def test_another_tenant_sees_nothing(engram: Engram, other: Engram) -> None:
    text = unique("The vault code for the Geneva office is kept by Marguerite.")
    memory_id = engram.add_memory(text).accepted[0]
    eventually("the memory is searchable", lambda: memory_id in [r.id for r in engram.search("vault code Geneva")])
    assert memory_id not in [r.id for r in other.search("vault code Geneva")]
    assert memory_id not in [i.id for i in other.context("who keeps the vault code?").included]
    with pytest.raises(NotFoundError):
        other.get(memory_id)
    with pytest.raises(NotFoundError):
        other.delete(memory_id)
    assert engram.get(memory_id).text == text

