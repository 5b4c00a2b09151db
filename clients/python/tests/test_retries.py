"""The client's requests, retries and error mapping against a local HTTP server that answers what the test
scripts: no Engram needed. The live service's own answers are checked in test_live.py."""

import http.server
import json
import threading
from typing import Iterator, List, Tuple

import pytest

from engram_client import (AuthenticationError, Engram, InvalidRequestError, NotFoundError, RateLimitError,
                           UnavailableError)


class Scripted(http.server.BaseHTTPRequestHandler):
    answers: List[Tuple[int, dict, dict]] = []
    seen: List[Tuple[str, str, dict]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        Scripted.seen.append((self.command, self.path, {"auth": self.headers.get("Authorization"), "body": body}))
        status, headers, payload = Scripted.answers.pop(0)
        lines = isinstance(payload, str)  # an export's JSON lines, as scripted
        raw = payload.encode() if lines else json.dumps(payload).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/x-ndjson" if lines else "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    Scripted.answers, Scripted.seen = [], []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def error(code: str) -> dict:
    return {"error": {"code": code, "message": "scripted " + code}}


def test_a_429_is_retried_after_what_retry_after_says(server: str) -> None:
    delays: List[float] = []
    Scripted.answers = [(429, {"Retry-After": "3"}, error("rate_limited")),
                        (429, {"Retry-After": "2"}, error("rate_limited")),
                        (200, {}, {"records": [], "next_cursor": None})]
    page = Engram(server, "k", sleep=delays.append).list()
    assert page.records == [] and page.next_cursor is None
    assert len(Scripted.seen) == 3
    assert len(delays) == 2 and delays[0] >= 3 and delays[1] >= 2


def test_a_503_backs_off_exponentially_and_fails_after_the_last_retry(server: str) -> None:
    delays: List[float] = []
    Scripted.answers = [(503, {}, error("kafka_unavailable"))] * 4
    with pytest.raises(UnavailableError) as failure:
        Engram(server, "k", max_retries=3, backoff=0.5, sleep=delays.append).add_memory("x")
    assert failure.value.status == 503 and failure.value.code == "kafka_unavailable"
    assert len(Scripted.seen) == 4
    assert [round(d * 2) / 2 for d in delays] == [0.5, 1.0, 2.0]
    # every attempt sent the same record: a retried write rewrites the same id
    assert all(seen[2]["body"] == {"text": "x", "type": "memory"} for seen in Scripted.seen)


def test_a_429_that_outlasts_the_retries_is_a_rate_limit_error_with_its_retry_after(server: str) -> None:
    Scripted.answers = [(429, {"Retry-After": "7"}, error("rate_limited"))] * 2
    with pytest.raises(RateLimitError) as failure:
        Engram(server, "k", max_retries=1, sleep=lambda s: None).search("q")
    assert failure.value.retry_after == 7.0 and failure.value.code == "rate_limited"


@pytest.mark.parametrize("status,kind", [(401, AuthenticationError), (404, NotFoundError),
                                         (413, InvalidRequestError), (500, UnavailableError)])
def test_each_status_maps_to_its_exception_without_retrying(server: str, status: int, kind: type) -> None:
    Scripted.answers = [(status, {}, error("scripted_" + str(status)))]
    with pytest.raises(kind) as failure:
        Engram(server, "secret", sleep=lambda s: None).get("acme/m-1")
    assert failure.value.status == status and failure.value.code == "scripted_" + str(status)
    assert len(Scripted.seen) == 1
    method, path, extra = Scripted.seen[0]
    assert (method, path, extra["auth"]) == ("GET", "/v1/memories/acme%2Fm-1", "Bearer secret")


def test_an_unreachable_service_is_retried_then_unavailable() -> None:
    delays: List[float] = []
    with pytest.raises(UnavailableError) as failure:
        Engram("http://127.0.0.1:9", "k", max_retries=2, sleep=delays.append).list()
    assert failure.value.status == 0 and failure.value.code == "unreachable"
    assert len(delays) == 2


def context_answer(**fields: object) -> dict:
    return {"tenant_id": "a", "prompt": "p", "included": [], "excluded": [], "tokens_used": 0, "budget_tokens": 100,
            "degraded": False, "degraded_reasons": [], **fields}


def test_context_sends_the_agent_and_all_rules_only_when_set_and_answers_the_agent(server: str) -> None:
    Scripted.answers = [(200, {}, context_answer(agent_id="support")), (200, {}, context_answer(agent_id=None)),
                        (200, {}, context_answer())]
    engram = Engram(server, "k")
    assert engram.context("q", agent_id="support", all_rules=True).agent_id == "support"
    assert engram.context("q", session_id="s", all_rules=False).agent_id is None
    assert engram.context("q").agent_id is None  # an answer without the field: an older service
    assert [seen[2]["body"] for seen in Scripted.seen] == [
        {"query": "q", "budget_tokens": 2000, "agent_id": "support", "all_rules": True},
        {"query": "q", "budget_tokens": 2000, "session_id": "s"},
        {"query": "q", "budget_tokens": 2000}]


def test_search_sends_the_agent_only_when_set(server: str) -> None:
    hit = {"id": "a/m", "type": "memory", "score": 0.5, "cosine": 0.4, "fused": 0.5, "text": "t"}
    Scripted.answers = [(200, {}, {"results": [hit]}), (200, {}, {"results": []})]
    engram = Engram(server, "k")
    assert [r.id for r in engram.search("q", k=5, types=["invariant"], agent_id="support")] == ["a/m"]
    assert engram.search("q") == []
    assert [seen[2]["body"] for seen in Scripted.seen] == [
        {"query": "q", "k": 5, "types": ["invariant"], "agent_id": "support"}, {"query": "q", "k": 10}]


def test_an_export_yields_each_line_parsed_and_its_cursor_lines(server: str) -> None:
    turn = {"schema": "turn.v1", "tenant_id": "acme", "session_id": "s1", "turn_id": "t1", "seq": 1, "role": "user",
            "text": "hi", "ts": "2026-11-01T10:00:00Z"}
    memory = {"schema": "memory.v1", "tenant_id": "acme", "memory_id": "m1", "type": "memory", "op": "upsert",
              "text": "Ann lives in Oslo", "generation": 0, "ts": "2026-11-01T10:00:01Z"}
    stream = [turn, {"schema": "cursor.v1", "cursor": "c1"}, memory, {"schema": "cursor.v1", "cursor": None, "records": 2}]
    Scripted.answers = [(200, {}, "".join(json.dumps(line) + "\n" for line in stream))]
    lines = list(Engram(server, "k").export(user_id="ann", types=["turn", "memory"]))
    assert lines == stream
    assert Scripted.seen[0][1] == "/v1/export?user_id=ann&types=turn%2Cmemory"


def test_an_export_that_ends_before_its_last_line_names_the_cursor_to_resume_with(server: str) -> None:
    Scripted.answers = [(200, {}, json.dumps({"schema": "cursor.v1", "cursor": "c7"}) + "\n")]
    seen = []
    with pytest.raises(UnavailableError) as failure:
        for line in Engram(server, "k").export(cursor="c6"):
            seen.append(line)
    assert seen == [{"schema": "cursor.v1", "cursor": "c7"}]
    assert failure.value.code == "export_incomplete" and "cursor='c7'" in str(failure.value)
    assert Scripted.seen[0][1] == "/v1/export?cursor=c6"


def test_an_export_refused_is_the_apis_error(server: str) -> None:
    Scripted.answers = [(400, {}, error("invalid_request"))]
    with pytest.raises(InvalidRequestError):
        list(Engram(server, "k").export(cursor="not-a-cursor"))
