// The plugin against a fake Engram (node:http), driven as OpenClaw's context-engine host calls it.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { registerWith } from "../index.js";
import { resolveConfig, DEFAULT_DOCUMENTS } from "../src/config.js";
import { newestWithin, agentOfSessionKey, estimateTokens } from "../src/messages.js";
import { createHttpTransport, createKafkaTransport } from "../src/transport.js";
import { recordingApi, startFakeEngram } from "./fake-engram.mjs";

const manifest = JSON.parse(fs.readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));
const pkg = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8"));

let engram;
let tmp;
const tmps = [];
before(async () => { engram = await startFakeEngram(); });
after(async () => {
  await engram.close();
  for (const d of tmps) fs.rmSync(d, { recursive: true, force: true });
});
beforeEach(() => {
  engram.requests.length = 0;
  engram.failures.length = 0;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "engram-oc-"));
  tmps.push(tmp);
});

const user = (text, ts = 1_780_000_000_000) => ({ role: "user", content: text, timestamp: ts });
const assistant = (text, ts = 1_780_000_001_000) => ({
  role: "assistant", content: [{ type: "text", text }], api: "x", provider: "x", model: "m",
  usage: {}, stopReason: "stop", timestamp: ts,
});
const toolResult = (text) => ({ role: "toolResult", toolCallId: "c1", toolName: "web", content: [{ type: "text", text }], isError: false, timestamp: 1 });

function setup(config = {}, workspaceDir) {
  const api = recordingApi({ url: engram.url, apiKey: engram.key, stateDir: path.join(tmp, "state"), ...config });
  const core = registerWith(api);
  const engine = api.engines.get("engram")({ workspaceDir, agentDir: path.join(tmp, "agent") });
  return { api, core, engine };
}

describe("manifest and package", () => {
  test("the manifest names the plugin, both slots, its tools and a strict config schema", () => {
    assert.equal(manifest.id, "engram");
    assert.deepEqual(manifest.kind, ["memory", "context-engine"]);
    assert.deepEqual(manifest.contracts.tools, ["engram_search", "engram_forget"]);
    assert.equal(manifest.configSchema.additionalProperties, false);
    for (const k of ["url", "apiKey", "transport", "kafka", "budgetShare", "publish", "forgetOnSessionDelete"]) {
      assert.ok(manifest.configSchema.properties[k], k);
    }
    assert.deepEqual(manifest.configSchema.properties.publish.properties.documents.default, [...DEFAULT_DOCUMENTS]);
    assert.deepEqual(pkg.openclaw.extensions, ["./index.js"]);
  });

  test("config defaults, and kafka needs brokers", () => {
    const c = resolveConfig({ url: "http://e/", apiKey: "k" }, { stateDir: "/s", env: {} });
    assert.equal(c.url, "http://e");
    assert.equal(c.budgetShare, 0.5);
    assert.equal(c.transport, "http");
    assert.equal(c.forgetOnSessionDelete, true);
    assert.equal(c.forgetOnReset, false);
    assert.equal(c.publish.turns, true);
    assert.equal(c.publish.toolResults, false);
    assert.equal(c.stateDir, path.join("/s", "plugins", "engram"));
    assert.throws(() => resolveConfig({ transport: "kafka" }, { env: {} }), /brokers/);
    assert.equal(resolveConfig({}, { env: { ENGRAM_URL: "http://x", ENGRAM_KEY: "ek" } }).apiKey, "ek");
  });
});

describe("registration", () => {
  test("registers the context engine, the memory capability, the tools and the hooks; touches nothing", () => {
    const { api } = setup();
    assert.deepEqual([...api.engines.keys()], ["engram"]);
    assert.equal(api.memoryCapabilities.length, 1);
    assert.deepEqual(api.tools[0].opts.names, ["engram_search", "engram_forget"]);
    for (const h of ["message_received", "session_end", "gateway_stop"]) assert.ok(api.hooks.has(h), h);
    assert.equal(engram.requests.length, 0);
    assert.equal(fs.existsSync(path.join(tmp, "state")), false);
  });

  test("the engine declares what OpenClaw checks: owns compaction, durable turn semantics", () => {
    const { engine } = setup();
    assert.equal(engine.info.id, "engram");
    assert.equal(engine.info.ownsCompaction, true);
    assert.equal(engine.info.transcriptSemantics.currentTurnFence, "before-current-turn-entry-v1");
    assert.equal(engine.info.transcriptSemantics.turnAdvancementIdempotency, "atomic-idempotent-v1");
    for (const m of ["ingest", "assemble", "compact", "afterTurn", "commitTurn", "ingestBatch"]) assert.equal(typeof engine[m], "function", m);
  });

  test("the memory prompt section names the tools the run has", () => {
    const { api } = setup();
    const build = api.memoryCapabilities[0].promptBuilder;
    assert.match(build({ availableTools: new Set(["engram_search", "engram_forget"]) }).join("\n"), /engram_search[\s\S]*engram_forget/);
    assert.deepEqual(build({ availableTools: new Set() }), []);
  });
});

describe("turns", () => {
  test("commitTurn writes the accepted turn: entry ids, transcript positions, the sender; a retry is a duplicate", async () => {
    const { api, engine } = setup({ publish: { toolResults: true } });
    await api.emit("message_received", { from: "telegram:42", content: "hi", senderId: "u-42", sessionKey: "agent:cook:s1" }, { channelId: "telegram" });
    const params = {
      advancementKey: "adv-1",
      admission: { agentId: "cook", sessionId: "sid-1", sessionKey: "agent:cook:s1", storePath: "/x", generation: "g", entryId: "e-10", rawSeq: 10, effectiveParentId: null, activeMessagePosition: 6, logicalTurnId: "lt", role: "user" },
      terminal: { entryId: "e-13" },
      messages: [user("My sister Maya lives in Porto."), assistant("", 2), toolResult("sunny"), assistant("Noted: Maya, Porto.")],
      sessionId: "sid-1",
      sessionKey: "agent:cook:s1",
    };
    assert.deepEqual(await engine.commitTurn(params), { status: "committed" });
    const writes = engram.of("POST", "/v1/turns");
    assert.equal(writes.length, 1);
    const recs = writes[0].body.records;
    assert.deepEqual(recs.map((r) => [r.turn_id, r.seq, r.role, r.session_id]), [
      ["e-10", 6, "user", "agent:cook:s1"],
      ["e-10.2", 8, "tool", "agent:cook:s1"],
      ["e-10.3", 9, "assistant", "agent:cook:s1"],
    ]);
    assert.equal(recs[0].user_id, "u-42");
    assert.equal(recs[2].user_id, undefined);
    assert.equal(recs[0].text, "My sister Maya lives in Porto.");
    assert.equal(recs[0].ts, new Date(1_780_000_000_000).toISOString());
    assert.equal("agent_id" in recs[0], false);
    assert.equal(writes[0].headers.authorization, `Bearer ${engram.key}`);

    assert.deepEqual(await engine.commitTurn(params), { status: "duplicate" });
    assert.equal(engram.of("POST", "/v1/turns").length, 1);
    // the state survives a restart: a new plugin load still knows the key
    const again = setup({ publish: { toolResults: true } });
    assert.deepEqual(await again.engine.commitTurn(params), { status: "duplicate" });
  });

  test("commitTurn throws when Engram refuses the write, and commits on the host's retry", async () => {
    const { engine } = setup();
    engram.failures.push({ status: 400, body: { error: { code: "invalid_request", message: "bad" } } });
    const params = {
      advancementKey: "adv-2",
      admission: { entryId: "e-1", activeMessagePosition: 0, sessionKey: "agent:main:main", sessionId: "s" },
      messages: [user("hello")], sessionId: "s", sessionKey: "agent:main:main",
    };
    await assert.rejects(engine.commitTurn(params), /400/);
    assert.deepEqual(await engine.commitTurn(params), { status: "committed" });
    assert.equal(engram.of("POST", "/v1/turns").length, 2);
  });

  test("afterTurn writes the messages after the prompt, with the same ids when written again", async () => {
    const { engine } = setup();
    const messages = [user("old", 1), assistant("old answer", 2), user("I am vegetarian.", 3), toolResult("x"), assistant("Noted.", 4)];
    await engine.afterTurn({ sessionId: "sid", sessionKey: "agent:coach:s9", messages, prePromptMessageCount: 2, sessionFile: "f" });
    await engine.afterTurn({ sessionId: "sid", sessionKey: "agent:coach:s9", messages, prePromptMessageCount: 2, sessionFile: "f" });
    const [a, b] = engram.of("POST", "/v1/turns").map((w) => w.body.records);
    assert.deepEqual(a.map((r) => [r.seq, r.role, r.text]), [[2, "user", "I am vegetarian."], [4, "assistant", "Noted."]]);
    assert.deepEqual(a.map((r) => r.turn_id), b.map((r) => r.turn_id));
    assert.match(a[0].turn_id, /^oc-[0-9a-f]{24}$/);
  });

  test("ingest numbers messages per session; heartbeats and publish.turns=false write nothing", async () => {
    const { engine } = setup();
    assert.deepEqual(await engine.ingest({ sessionId: "s", sessionKey: "agent:main:x", message: user("one") }), { ingested: true });
    assert.deepEqual(await engine.ingestBatch({ sessionId: "s", sessionKey: "agent:main:x", messages: [assistant("two"), user("three")] }), { ingestedCount: 2 });
    assert.deepEqual(await engine.ingest({ sessionId: "s", sessionKey: "agent:main:x", message: user("beat"), isHeartbeat: true }), { ingested: false });
    const seqs = engram.of("POST", "/v1/turns").flatMap((w) => w.body.records.map((r) => r.seq));
    assert.deepEqual(seqs, [0, 1, 2]);
    const off = setup({ publish: { turns: false } });
    assert.deepEqual(await off.engine.ingest({ sessionId: "s", message: user("x") }), { ingested: false });
    assert.equal(engram.of("POST", "/v1/turns").length, 2);
  });
});

describe("assemble", () => {
  test("asks Engram with budgetShare of the budget, for the session's agent and the prompt; returns its prompt", async () => {
    const { engine } = setup({ budgetShare: 0.25 });
    const messages = [user("a"), assistant("b")];
    const out = await engine.assemble({ sessionId: "sid", sessionKey: "agent:cook:s2", messages, tokenBudget: 1001, prompt: "Where does my sister live?" });
    const [ctx] = engram.of("POST", "/v1/context");
    assert.deepEqual(ctx.body, { query: "Where does my sister live?", agent_id: "cook", session_id: "agent:cook:s2", budget_tokens: 250 });
    assert.match(out.systemPromptAddition, /Where does my sister live\?/);
    assert.deepEqual(out.messages, messages);
    assert.ok(out.estimatedTokens > 0 && out.estimatedTokens <= 1001);
  });

  test("without a prompt, the newest user message is the query; no budget: the default; the sender is the user", async () => {
    const { api, engine } = setup({ defaultTokenBudget: 2000 });
    await api.emit("message_received", { from: "x", content: "", senderId: "ann", sessionKey: "agent:main:dm" }, {});
    await engine.assemble({ sessionId: "sid", sessionKey: "agent:main:dm", messages: [user("first"), assistant("ok"), user("second")] });
    const [ctx] = engram.of("POST", "/v1/context");
    assert.equal(ctx.body.query, "second");
    assert.equal(ctx.body.budget_tokens, 1000);
    assert.equal(ctx.body.user_id, "ann");
    assert.equal(ctx.body.agent_id, "main");
  });

  test("the messages fill what Engram left, newest whole turns first; the current turn always stays", async () => {
    const { engine } = setup({ budgetShare: 0.5 });
    const long = "x".repeat(400); // ~104 tokens a message
    const messages = [];
    for (let i = 0; i < 10; i++) messages.push(user(`${i}${long}`, i * 2), assistant(`${i}${long}`, i * 2 + 1));
    const out = await engine.assemble({ sessionId: "s", sessionKey: "agent:main:m", messages, tokenBudget: 1000, prompt: "q" });
    const [ctx] = engram.of("POST", "/v1/context");
    assert.equal(ctx.body.budget_tokens, 500);
    assert.ok(out.messages.length >= 2 && out.messages.length < messages.length);
    assert.equal(out.messages[0].role, "user");
    assert.equal(out.messages.at(-1), messages.at(-1));
    assert.ok(out.estimatedTokens <= 1000, String(out.estimatedTokens));
  });

  test("Engram unreachable: the run goes on with the transcript, no addition, no throw", async () => {
    const { api, engine } = setup();
    engram.failures.push({ status: 500 });
    const out = await engine.assemble({ sessionId: "s", sessionKey: "agent:main:m", messages: [user("q")], tokenBudget: 1000 });
    assert.equal(out.systemPromptAddition, undefined);
    assert.equal(out.messages.length, 1);
    assert.ok(api.warnings.some((w) => /context/.test(w)));
  });

  test("budgetShare 0 asks nothing", async () => {
    const { engine } = setup({ budgetShare: 0 });
    await engine.assemble({ sessionId: "s", messages: [user("q")], tokenBudget: 1000 });
    assert.equal(engram.of("POST", "/v1/context").length, 0);
  });
});

describe("workspace documents", () => {
  test("published on assemble: the listed files that exist, as core documents of the agent; unchanged not resent", async () => {
    const ws = path.join(tmp, "ws");
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, "AGENTS.md"), "# Rules\n\n- Never suggest recipes with peanuts.\n");
    fs.writeFileSync(path.join(ws, "SOUL.md"), "You are a cook.\n");
    fs.writeFileSync(path.join(ws, "notes.md"), "not published\n");
    const { core, engine } = setup({}, ws);
    await engine.assemble({ sessionId: "s", sessionKey: "agent:cook:s1", messages: [user("q")], tokenBudget: 1000 });
    const [w] = engram.of("POST", "/v1/documents");
    assert.deepEqual(w.body.records.map((r) => [r.agent_id, r.path, r.doc_class]).sort(), [["cook", "AGENTS.md", "core"], ["cook", "SOUL.md", "core"]]);
    const v1 = w.body.records.find((r) => r.path === "AGENTS.md").version;
    assert.match(w.body.records.find((r) => r.path === "AGENTS.md").content, /peanuts/);

    // unchanged (even touched): nothing sent
    const t = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(ws, "AGENTS.md"), t, t);
    assert.equal(await core.documents.sync("cook", ws, { force: true }), 0);
    // changed: a higher version; removed: published as deleted
    fs.writeFileSync(path.join(ws, "AGENTS.md"), "# Rules\n\n- Never suggest recipes with peanuts or cashews.\n");
    fs.rmSync(path.join(ws, "SOUL.md"));
    assert.equal(await core.documents.sync("cook", ws, { force: true }), 2);
    const last = engram.of("POST", "/v1/documents").at(-1).body.records;
    const agents = last.find((r) => r.path === "AGENTS.md");
    assert.ok(agents.version > v1);
    assert.match(agents.content, /cashews/);
    assert.equal(last.find((r) => r.path === "SOUL.md").deleted, true);
  });

  test("publish.documents [] publishes nothing", async () => {
    const ws = path.join(tmp, "ws2");
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, "AGENTS.md"), "- Be brief.\n");
    const { engine } = setup({ publish: { documents: [] } }, ws);
    await engine.assemble({ sessionId: "s", sessionKey: "agent:a:b", messages: [user("q")], tokenBudget: 1000 });
    assert.equal(engram.of("POST", "/v1/documents").length, 0);
  });
});

describe("compact", () => {
  test("loses nothing in Engram; halves the message window until the next turn", async () => {
    const { engine } = setup({ budgetShare: 0 });
    const long = "y".repeat(400);
    const messages = [];
    for (let i = 0; i < 10; i++) messages.push(user(`${i}${long}`), assistant(`${i}${long}`));
    const before = await engine.assemble({ sessionId: "s", sessionKey: "agent:main:c", messages, tokenBudget: 1200 });
    const r = await engine.compact({ sessionId: "s", sessionKey: "agent:main:c", tokenBudget: 1200, force: true });
    assert.equal(r.ok, true);
    assert.equal(r.compacted, true);
    assert.equal(engram.requests.filter((q) => q.method === "DELETE").length, 0);
    const afterCompact = await engine.assemble({ sessionId: "s", sessionKey: "agent:main:c", messages, tokenBudget: 1200 });
    assert.ok(afterCompact.messages.length < before.messages.length);
    await engine.afterTurn({ sessionId: "s", sessionKey: "agent:main:c", messages: [], prePromptMessageCount: 0 });
    const restored = await engine.assemble({ sessionId: "s", sessionKey: "agent:main:c", messages, tokenBudget: 1200 });
    assert.equal(restored.messages.length, before.messages.length);
  });
});

describe("memory tools and forgetting", () => {
  test("engram_search searches as the run's agent; engram_forget forgets by id", async () => {
    const { api } = setup();
    const tools = api.tools[0].factory({ agentId: "Cook", sessionKey: "agent:cook:s1" });
    const search = tools.find((t) => t.name === "engram_search");
    const forget = tools.find((t) => t.name === "engram_forget");
    const found = await search.execute("c1", { query: "peanuts", k: 3 });
    assert.deepEqual(engram.of("POST", "/v1/search")[0].body, { query: "peanuts", k: 3, agent_id: "cook" });
    assert.match(found.content[0].text, /^\[t\/m1\] \(memory, 0\.900\) about peanuts/);
    const gone = await forget.execute("c2", { id: "[t/m1]" });
    assert.equal(engram.of("DELETE", "/v1/memories/")[0].path, "/v1/memories/t%2Fm1");
    assert.match(gone.content[0].text, /f-1/);
    await assert.rejects(search.execute("c3", { query: " " }), /query/);
  });

  test("a deleted session is forgotten; a reset keeps it unless forgetOnReset", async () => {
    const { api } = setup();
    await api.emit("session_end", { sessionId: "sid", sessionKey: "agent:cook:s1", messageCount: 3, reason: "reset" }, { sessionId: "sid" });
    assert.equal(engram.of("DELETE", "/v1/sessions/").length, 0);
    await api.emit("session_end", { sessionId: "sid", sessionKey: "agent:cook:s1", messageCount: 3, reason: "deleted" }, { sessionId: "sid" });
    assert.deepEqual(engram.of("DELETE", "/v1/sessions/").map((r) => r.path), ["/v1/sessions/agent%3Acook%3As1"]);

    const off = setup({ forgetOnSessionDelete: false });
    await off.api.emit("session_end", { sessionId: "sid", sessionKey: "agent:cook:s2", reason: "deleted" }, {});
    assert.equal(engram.of("DELETE", "/v1/sessions/").length, 1);
    const onReset = setup({ forgetOnReset: true });
    await onReset.api.emit("session_end", { sessionId: "sid", sessionKey: "agent:cook:s3", reason: "reset" }, {});
    assert.equal(engram.of("DELETE", "/v1/sessions/").length, 2);
  });
});

describe("transports", () => {
  test("HTTP retries 503 no sooner than Retry-After, then answers", async () => {
    const waits = [];
    const t = createHttpTransport({ url: engram.url, apiKey: engram.key, sleep: async (ms) => { waits.push(ms); }, backoffMs: 10 });
    engram.failures.push({ status: 503, headers: { "Retry-After": "2" } }, { status: 429 });
    const r = await t.search({ query: "q" });
    assert.equal(r.results.length, 1);
    assert.deepEqual(waits, [2000, 20]);
    engram.failures.push({ status: 401, body: { error: { code: "unauthorized", message: "no" } } });
    await assert.rejects(t.search({ query: "q" }), (e) => e.status === 401 && e.code === "unauthorized");
  });

  test("an unreachable service is an EngramHttpError with status 0 after the retries", async () => {
    const t = createHttpTransport({ url: "http://127.0.0.1:9", apiKey: "k", sleep: async () => {}, retries: 1, timeoutMs: 2000 });
    await assert.rejects(t.context({ query: "q", budget_tokens: 10 }), (e) => e.status === 0);
  });

  test("kafka: writes through engram/kafka's EngramKafkaProducer, reads through HTTP", async () => {
    const sent = [];
    let brokers;
    let options;
    class EngramKafkaProducer {
      constructor(b, o) { brokers = b; options = o; }
      async connect() { sent.push("connect"); }
      async sendTurn(r) { sent.push(["turn", r]); }
      async sendDocument(r) { sent.push(["doc", r]); }
      async disconnect() { sent.push("disconnect"); }
    }
    const config = resolveConfig({ url: engram.url, apiKey: engram.key, transport: "kafka", kafka: { brokers: ["k:9092"], tenantId: "acme" } }, { env: {} });
    const t = createKafkaTransport({ http: createHttpTransport({ url: engram.url, apiKey: engram.key }), kafka: config.kafka, loadProducerModule: async () => ({ EngramKafkaProducer }) });
    const w = await t.writeTurns([{ session_id: "s", turn_id: "t0", seq: 0, role: "user", text: "hi", ts: "2026-01-01T00:00:00.000Z" }]);
    assert.deepEqual(w, { accepted: ["s/t0"], rejected: [] });
    await t.writeDocuments([{ agent_id: "a", path: "AGENTS.md", doc_class: "core", version: 1, content: "- x" }]);
    assert.deepEqual(brokers, ["k:9092"]);
    assert.equal(options.kafkaConfig.clientId, "openclaw-engram");
    assert.deepEqual(sent.map((s) => (Array.isArray(s) ? s[0] : s)), ["connect", "turn", "doc"]);
    assert.deepEqual(sent[1][1], { tenantId: "acme", sessionId: "s", userId: undefined, turnId: "t0", seq: 0,
      role: "user", text: "hi", ts: "2026-01-01T00:00:00.000Z" });
    assert.equal(sent[2][1].agentId, "a");
    assert.equal(sent[2][1].docClass, "core");
    assert.equal(engram.of("POST", "/v1/turns").length, 0);
    await t.search({ query: "q" });
    assert.equal(engram.of("POST", "/v1/search").length, 1);
    await t.close();
    assert.equal(sent.at(-1), "disconnect");
  });

  test("kafka without the engram package says what to install", async () => {
    const config = resolveConfig({ url: engram.url, transport: "kafka", kafka: { brokers: ["k:1"] } }, { env: {} });
    const t = createKafkaTransport({ http: createHttpTransport({ url: engram.url, apiKey: "k" }), kafka: config.kafka });
    await assert.rejects(t.writeTurns([]).then(() => t.writeTurns([{ session_id: "s" }])), /engram\/kafka/);
  });
});

describe("messages", () => {
  test("session keys name their agent", () => {
    assert.equal(agentOfSessionKey("agent:Cook:telegram:dm:1"), "cook");
    assert.equal(agentOfSessionKey("main"), undefined);
    assert.equal(agentOfSessionKey("agent::x"), undefined);
  });

  test("newestWithin keeps whole turns and what precedes the first user message when all fits", () => {
    const summary = { role: "compactionSummary", summary: "earlier", tokensBefore: 1, timestamp: 0 };
    const ms = [summary, user("a"), assistant("b"), user("c"), toolResult("d"), assistant("e")];
    assert.equal(newestWithin(ms, 10_000).messages.length, 6);
    const small = newestWithin(ms, estimateTokens(ms[3]) + estimateTokens(ms[4]) + estimateTokens(ms[5]));
    assert.deepEqual(small.messages, ms.slice(3));
    assert.deepEqual(newestWithin(ms, 1).messages, ms.slice(3));
    assert.deepEqual(newestWithin([], 10).messages, []);
  });
});
