// The client's requests, retries and error mapping, and what the AI SDK tools and middleware ask for, against a
// local HTTP server that answers what each test scripts: no Engram needed. The live service's own answers are
// checked in live.test.ts and ai.test.ts.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, test } from "node:test";
import { engramContextMiddleware, engramTools } from "../src/ai.js";
import {
  AuthenticationError, Engram, EngramError, InvalidRequestError, NotFoundError, RateLimitError, UnavailableError,
} from "../src/index.js";

/** A scripted answer: a JSON body, or an export's text sent in these chunks, one after the other. */
type Answer = { status: number; headers?: Record<string, string>; body?: unknown; chunks?: string[] };
let answers: Answer[] = [];
let seen: { method: string; url: string; auth: string | undefined; body: unknown }[] = [];
let server: Server;
let url: string;

before(async () => {
  server = createServer((request, response) => {
    let raw = "";
    request.on("data", (chunk) => (raw += chunk));
    request.on("end", () => {
      seen.push({ method: request.method!, url: request.url!, auth: request.headers.authorization, body: raw ? JSON.parse(raw) : undefined });
      const answer = answers.shift() ?? { status: 500, body: error("no_answer_scripted") };
      if (answer.chunks) {
        response.writeHead(answer.status, { "Content-Type": "application/x-ndjson", ...answer.headers });
        const write = (i: number): void => {
          if (i === answer.chunks!.length) return void response.end();
          response.write(answer.chunks![i], () => setTimeout(() => write(i + 1), 5));
        };
        return write(0);
      }
      response.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  answers = [];
  seen = [];
});

function error(code: string) {
  return { error: { code, message: "scripted " + code } };
}

function recording(delays: number[]) {
  return async (ms: number) => {
    delays.push(ms);
  };
}

test("a 429 is retried after what Retry-After says", async () => {
  const delays: number[] = [];
  answers = [
    { status: 429, headers: { "Retry-After": "3" }, body: error("rate_limited") },
    { status: 429, headers: { "Retry-After": "2" }, body: error("rate_limited") },
    { status: 200, body: { records: [], next_cursor: null } },
  ];
  const page = await new Engram(url, "k", { sleep: recording(delays) }).list();
  assert.deepEqual(page, { records: [], nextCursor: null });
  assert.equal(seen.length, 3);
  assert.equal(delays.length, 2);
  assert.ok(delays[0] >= 3000 && delays[1] >= 2000, `delays ${delays}`);
});

test("an export yields each line parsed as it streams, a line cut across chunks included", async () => {
  const turn = { schema: "turn.v1", tenant_id: "acme", session_id: "s1", turn_id: "t1", seq: 1, role: "user", text: "hi",
    ts: "2026-11-01T10:00:00Z" };
  const memory = { schema: "memory.v1", tenant_id: "acme", memory_id: "m1", type: "memory", op: "upsert",
    text: "Ann lives in Oslo", generation: 0, ts: "2026-11-01T10:00:01Z" };
  const stream = [turn, { schema: "cursor.v1", cursor: "c1" }, memory, { schema: "cursor.v1", cursor: null, records: 2 }];
  const text = stream.map((line) => JSON.stringify(line) + "\n").join("");
  answers = [{ status: 200, chunks: [text.slice(0, 40), text.slice(40, 200), text.slice(200)] }];
  const lines = [];
  for await (const line of new Engram(url, "k").export({ userId: "ann", types: ["turn", "memory"] })) lines.push(line);
  assert.deepEqual(lines, stream);
  assert.equal(seen[0].url, "/v1/export?user_id=ann&types=turn%2Cmemory");
});

test("an export that ends before its last line throws naming the cursor to resume with", async () => {
  answers = [{ status: 200, chunks: [JSON.stringify({ schema: "cursor.v1", cursor: "c7" }) + "\n"] }];
  const lines: unknown[] = [];
  await assert.rejects((async () => {
    for await (const line of new Engram(url, "k").export({ cursor: "c6" })) lines.push(line);
  })(), (failure: unknown) => {
    assert.ok(failure instanceof UnavailableError);
    assert.equal(failure.code, "export_incomplete");
    assert.match(failure.message, /cursor "c7"/);
    return true;
  });
  assert.deepEqual(lines, [{ schema: "cursor.v1", cursor: "c7" }]);
  assert.equal(seen[0].url, "/v1/export?cursor=c6");
});

test("an export refused is the API's error", async () => {
  answers = [{ status: 400, body: error("invalid_request") }];
  await assert.rejects((async () => {
    for await (const line of new Engram(url, "k").export({ cursor: "not-a-cursor" })) assert.fail(String(line));
  })(), InvalidRequestError);
});

test("a 503 backs off exponentially and fails after the last retry with the same record each time", async () => {
  const delays: number[] = [];
  answers = Array(4).fill({ status: 503, body: error("kafka_unavailable") });
  const client = new Engram(url, "k", { maxRetries: 3, backoffMs: 500, sleep: recording(delays) });
  await assert.rejects(client.addMemory("x"), (failure: unknown) => {
    assert.ok(failure instanceof UnavailableError && failure instanceof EngramError);
    assert.equal(failure.status, 503);
    assert.equal(failure.code, "kafka_unavailable");
    return true;
  });
  assert.equal(seen.length, 4);
  assert.deepEqual(delays.map((d) => Math.round(d / 500) * 500), [500, 1000, 2000]);
  for (const request of seen) assert.deepEqual(request.body, { text: "x", type: "memory" });
});

test("a 429 that outlasts the retries is a RateLimitError with its Retry-After", async () => {
  answers = Array(2).fill({ status: 429, headers: { "Retry-After": "7" }, body: error("rate_limited") });
  const client = new Engram(url, "k", { maxRetries: 1, sleep: async () => {} });
  await assert.rejects(client.search("q"), (failure: unknown) => {
    assert.ok(failure instanceof RateLimitError);
    assert.equal(failure.retryAfter, 7);
    assert.equal(failure.code, "rate_limited");
    return true;
  });
});

for (const [status, kind] of [[401, AuthenticationError], [404, NotFoundError], [413, InvalidRequestError],
  [500, UnavailableError]] as const) {
  test(`${status} maps to ${kind.name} without a retry`, async () => {
    answers = [{ status, body: error(`scripted_${status}`) }];
    const client = new Engram(url + "/", "secret", { sleep: async () => {} });
    await assert.rejects(client.get("acme/m-1"), (failure: unknown) => {
      assert.ok(failure instanceof kind, `${failure}`);
      assert.equal((failure as EngramError).status, status);
      assert.equal((failure as EngramError).code, `scripted_${status}`);
      return true;
    });
    assert.deepEqual(seen.map((s) => [s.method, s.url, s.auth]), [["GET", "/v1/memories/acme%2Fm-1", "Bearer secret"]]);
  });
}

test("a write whose every record is rejected answers the rejections, not an error", async () => {
  answers = [{ status: 400, body: { accepted: [], rejected: [{ index: 0, code: "schema_violation", message: "type" }] } }];
  const written = await new Engram(url, "k").addMemory("x");
  assert.deepEqual(written, { accepted: [], rejected: [{ index: 0, code: "schema_violation", message: "type" }] });
});

test("turns are numbered after the newest stored turn, then after the last numbered", async () => {
  answers = [
    { status: 200, body: { records: [{ id: "a/s/t-4", type: "turn", text: "x", ts: "2026-01-01T00:00:00Z", position: 4 }], next_cursor: null } },
    { status: 202, body: { accepted: ["a/s/t-5", "a/s/t-6"], rejected: [] } },
    { status: 202, body: { accepted: ["a/s/t-7"], rejected: [] } },
  ];
  const client = new Engram(url, "k");
  const [first, second] = await Promise.all([
    client.addTurns("s", [{ role: "user", text: "a" }, { role: "assistant", text: "b" }], { userId: "ann" }),
    client.addTurns("s", [{ role: "user", text: "c" }]),
  ]);
  assert.deepEqual([first.accepted, second.accepted], [["a/s/t-5", "a/s/t-6"], ["a/s/t-7"]]);
  assert.equal(seen[0].url, "/v1/memories?type=turn&session_id=s&limit=100");
  assert.deepEqual(seen[1].body, { records: [
    { session_id: "s", user_id: "ann", turn_id: "t-5", seq: 5, role: "user", text: "a" },
    { session_id: "s", user_id: "ann", turn_id: "t-6", seq: 6, role: "assistant", text: "b" },
  ] });
  assert.deepEqual(seen[2].body, { session_id: "s", turn_id: "t-7", seq: 7, role: "user", text: "c" });
});

test("an unreachable service is retried, then unavailable with status 0", async () => {
  const delays: number[] = [];
  const client = new Engram("http://127.0.0.1:9", "k", { maxRetries: 2, sleep: recording(delays) });
  await assert.rejects(client.list(), (failure: unknown) => {
    assert.ok(failure instanceof UnavailableError);
    assert.equal(failure.status, 0);
    assert.equal(failure.code, "unreachable");
    return true;
  });
  assert.equal(delays.length, 2);
});

test("an attempt that gets no answer in time is retried as a timeout", async () => {
  const silent = createServer(() => {}); // never answers
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  try {
    const port = (silent.address() as AddressInfo).port;
    const client = new Engram(`http://127.0.0.1:${port}`, "k", { timeoutMs: 50, maxRetries: 1, sleep: async () => {} });
    await assert.rejects(client.forgetStatus("fgt-1"), (failure: unknown) => {
      assert.ok(failure instanceof UnavailableError);
      assert.equal(failure.code, "timeout");
      return true;
    });
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test("answers are camelCased, nested ones included", async () => {
  answers = [{ status: 200, body: {
    tenant_id: "a", budget_tokens: 100, tokens_used: 9, degraded: false, degraded_reasons: [], prompt: "p",
    included: [{ id: "a/m", type: "memory", section: "memories", tokens: 9, score: 1, reason: "r", text: "t" }],
    excluded: [],
  } }];
  const context = await new Engram(url, "k").context("q", { sessionId: "s" });
  assert.deepEqual(seen[0].body, { query: "q", budget_tokens: 2000, session_id: "s" });
  assert.equal(context.tokensUsed, 9);
  assert.equal(context.budgetTokens, 100);
  assert.deepEqual(context.included[0], { id: "a/m", type: "memory", section: "memories", tokens: 9, score: 1, reason: "r", text: "t" });
});

function contextAnswer(fields: object = {}) {
  return { tenant_id: "a", prompt: "p [a/r]", included: [], excluded: [], tokens_used: 5, budget_tokens: 100,
    degraded: false, degraded_reasons: [], ...fields };
}

test("context sends the agent and allRules only when set, and answers the agent", async () => {
  answers = [{ status: 200, body: contextAnswer({ agent_id: "support" }) }, { status: 200, body: contextAnswer({ agent_id: null }) },
    { status: 200, body: contextAnswer() }];
  const client = new Engram(url, "k");
  assert.equal((await client.context("q", { agentId: "support", allRules: true })).agentId, "support");
  assert.equal((await client.context("q", { sessionId: "s", allRules: false })).agentId, null);
  assert.equal((await client.context("q")).agentId, null, "an answer without the field: an older service");
  assert.deepEqual(seen.map((s) => s.body), [
    { query: "q", budget_tokens: 2000, agent_id: "support", all_rules: true },
    { query: "q", budget_tokens: 2000, session_id: "s" },
    { query: "q", budget_tokens: 2000 },
  ]);
});

test("search sends the agent only when set", async () => {
  const hit = { id: "a/r", type: "invariant", score: 0.5, cosine: 0.4, fused: 0.5, text: "t" };
  answers = [{ status: 200, body: { results: [hit] } }, { status: 200, body: { results: [] } }];
  const client = new Engram(url, "k");
  assert.deepEqual((await client.search("q", { k: 5, types: ["invariant"], agentId: "support" })).map((r) => r.id), ["a/r"]);
  assert.deepEqual(await client.search("q"), []);
  assert.deepEqual(seen.map((s) => s.body), [{ query: "q", k: 5, types: ["invariant"], agent_id: "support" }, { query: "q", k: 10 }]);
});

test("the recall tool and the context middleware read the context of their agent", async () => {
  answers = [{ status: 200, body: contextAnswer({ agent_id: "support" }) }, { status: 200, body: contextAnswer({ agent_id: "support" }) }];
  const client = new Engram(url, "k");
  const options = { sessionId: "s", agentId: "support", allRules: true, budgetTokens: 800 };
  const recalled = await engramTools(client, options).recall.execute!({ query: "q" }, { toolCallId: "c", messages: [] });
  assert.deepEqual(recalled, { context: "p [a/r]", tokensUsed: 5 });
  const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "what now?" }] }];
  const params = await engramContextMiddleware(client, options).transformParams!({ type: "generate", params: { prompt }, model: {} } as never);
  assert.deepEqual(params.prompt, [{ role: "system", content: "p [a/r]" }, ...prompt]);
  assert.deepEqual(seen.map((s) => s.body), [
    { query: "q", budget_tokens: 800, session_id: "s", agent_id: "support", all_rules: true },
    { query: "what now?", budget_tokens: 800, session_id: "s", agent_id: "support", all_rules: true },
  ]);
});
