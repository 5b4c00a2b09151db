// Drives the installed plugin as OpenClaw's context-engine host does, against a live Engram.
//   node drive-engine.mjs PLUGIN_DIR        (ENGRAM_URL, ENGRAM_KEY in the environment)
// PLUGIN_DIR is the plugin as OpenClaw installed it; its entry is what package.json "openclaw.extensions" names,
// imported and called with a recording plugin API, as OpenClaw's loader does. Two agents with their own
// workspaces and rules, two sessions each; every wait polls with a deadline.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const pluginDir = path.resolve(process.argv[2] ?? ".");
const url = process.env.ENGRAM_URL;
const key = process.env.ENGRAM_KEY;
if (!url || !key) {
  console.error("drive-engine: ENGRAM_URL and ENGRAM_KEY are required");
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(pluginDir, "package.json"), "utf8"));
const entry = path.resolve(pluginDir, pkg.openclaw.extensions[0]);
const manifest = JSON.parse(fs.readFileSync(path.join(pluginDir, "openclaw.plugin.json"), "utf8"));
const plugin = await import(pathToFileURL(entry).href);
const register = plugin.default?.register ?? plugin.default;
assert.equal(typeof register, "function", "the entry's default export registers the plugin");

const log = (...a) => console.log("[drive]", ...a);
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "engram-drive-"));

// what the engine asked Engram for and what Engram answered (context reads)
const contexts = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const res = await realFetch(input, init);
  if (String(input).endsWith("/v1/context") && res.ok) {
    const body = await res.clone().json();
    contexts.push({ request: JSON.parse(init.body), answer: body });
  }
  return res;
};

const engines = new Map();
const hooks = new Map();
const tools = [];
const api = {
  id: manifest.id, name: manifest.name, source: entry, registrationMode: "full", config: {},
  pluginConfig: { url, apiKey: key, budgetShare: 0.5, stateDir: path.join(tmp, "state") },
  logger: { info: (m) => log("plugin:", m), warn: (m) => log("plugin warn:", m), error: (m) => log("plugin error:", m), debug() {} },
  runtime: { state: { resolveStateDir: () => path.join(tmp, "openclaw-state") } },
  registerContextEngine: (id, factory) => engines.set(id, factory),
  registerMemoryCapability: () => {},
  registerTool: (factory, opts) => tools.push({ factory, opts }),
  on: (name, handler) => hooks.set(name, [...(hooks.get(name) ?? []), handler]),
  resolvePath: (p) => path.resolve(pluginDir, p),
};
await register(api);
const emit = async (name, event, ctx) => { for (const h of hooks.get(name) ?? []) await h(event, ctx); };
assert.ok(engines.has("engram"), "the plugin registers the context engine engram");

async function engram(method, p, body) {
  const res = await realFetch(url + p, {
    method, headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
async function until(what, fn, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (let delay = 200; ; delay = Math.min(delay * 1.5, 2000)) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
const turnsOf = async (session) => (await engram("GET", `/v1/memories?session_id=${encodeURIComponent(session)}&type=turn&limit=100`)).records;

// two agents, each with its workspace and its own rule
const workspaces = {
  cook: { dir: path.join(tmp, "ws-cook"), rule: "- Never suggest recipes with peanuts." },
  coach: { dir: path.join(tmp, "ws-coach"), rule: "- Always end a workout with five minutes of stretching." },
};
for (const [agent, ws] of Object.entries(workspaces)) {
  fs.mkdirSync(ws.dir, { recursive: true });
  fs.writeFileSync(path.join(ws.dir, "AGENTS.md"), `# ${agent}\n\n## Rules\n\n${ws.rule}\n`);
}
const engine = (agent) => engines.get("engram")({ workspaceDir: workspaces[agent].dir, agentDir: path.join(tmp, `agent-${agent}`) });
const cook = engine("cook");
const coach = engine("coach");
assert.equal(cook.info.id, "engram");
const key1 = `agent:cook:live-${run}-s1`;
const key2 = `agent:cook:live-${run}-s2`;
const coachKey1 = `agent:coach:live-${run}-s1`;
const coachKey2 = `agent:coach:live-${run}-s2`;
const budget = 600;

// session 1 of the cook: the inbound message (sender), assembly (publishes the workspace), the accepted turn
const t0 = Date.now();
await emit("message_received", { from: "test:ann", content: "My sister Maya lives in Porto.", senderId: `ann-${run}`, sessionKey: key1 }, { channelId: "test", sessionKey: key1 });
const userMsg = { role: "user", content: "My sister Maya lives in Porto.", timestamp: t0 };
const first = await cook.assemble({ sessionId: `sid1-${run}`, sessionKey: key1, messages: [], tokenBudget: budget, prompt: userMsg.content });
assert.ok(Array.isArray(first.messages));
const reply = { role: "assistant", content: [{ type: "text", text: "Porto is lovely - noted that Maya lives there." }], api: "openai-responses", provider: "test", model: "stub", usage: {}, stopReason: "stop", timestamp: t0 + 1000 };
const commit = {
  advancementKey: `adv-${run}-1`,
  admission: { agentId: "cook", sessionId: `sid1-${run}`, sessionKey: key1, storePath: "/x", generation: "g1", entryId: `entry-${run}-0`, rawSeq: 0, effectiveParentId: null, activeMessagePosition: 0, logicalTurnId: "lt-1", role: "user" },
  terminal: { agentId: "cook", sessionId: `sid1-${run}`, sessionKey: key1, storePath: "/x", generation: "g1", entryId: `entry-${run}-1`, rawSeq: 1, effectiveParentId: `entry-${run}-0`, activeMessagePosition: 1 },
  messages: [userMsg, reply], sessionId: `sid1-${run}`, sessionKey: key1,
};
assert.deepEqual(await cook.commitTurn(commit), { status: "committed" });
assert.deepEqual(await cook.commitTurn(commit), { status: "duplicate" }, "a host retry of the same advancement key");
log(`cook ${key1}: committed 2 messages`);

// the coach's session 1 goes through afterTurn (hosts without durable turns)
await coach.afterTurn({
  sessionId: `sidc1-${run}`, sessionKey: coachKey1, sessionFile: "f", prePromptMessageCount: 0,
  messages: [{ role: "user", content: "I run five kilometres every Monday.", timestamp: t0 }, { ...reply, content: [{ type: "text", text: "Great habit." }] }],
});
await coach.assemble({ sessionId: `sidc1-${run}`, sessionKey: coachKey1, messages: [], tokenBudget: budget, prompt: "warm up" });

const turns = await until(`the turns of ${key1}`, async () => {
  const r = await turnsOf(key1);
  return r.length >= 2 ? r : null;
});
log(`cook ${key1}: ${turns.length} turns in Engram (${turns.map((t) => t.role).join(", ")}), user_id ${turns.find((t) => t.role === "user")?.user_id}`);
assert.equal(turns.find((t) => t.role === "user")?.user_id, `ann-${run}`);
assert.ok(turns.some((t) => /Maya lives in Porto/.test(t.text)));
assert.equal((await until(`the turns of ${coachKey1}`, async () => ((await turnsOf(coachKey1)).length >= 2 ? true : null))), true);

// compaction loses nothing
const compacted = await cook.compact({ sessionId: `sid1-${run}`, sessionKey: key1, tokenBudget: budget, force: true });
assert.equal(compacted.ok, true);
assert.equal((await turnsOf(key1)).length, turns.length, "compact() keeps every turn in Engram");

// a later session of the same agent: the first session's fact, the agent's rule, not the other agent's
const question = "Where does my sister live, and what could I cook for her?";
const later = await until("the cook's context with Maya's city and its rule", async () => {
  const before = contexts.length;
  const out = await cook.assemble({ sessionId: `sid2-${run}`, sessionKey: key2, messages: [], tokenBudget: budget, prompt: question });
  const ctx = contexts.slice(before).at(-1);
  const p = out.systemPromptAddition ?? "";
  return /Porto/.test(p) && /peanuts/.test(p) ? { out, ctx } : null;
}, 90_000);
const p = later.out.systemPromptAddition;
assert.ok(!/stretching/.test(p), "the cook's context holds no rule of the coach");
assert.equal(later.ctx.request.budget_tokens, Math.floor(0.5 * budget));
assert.equal(later.ctx.request.agent_id, "cook");
assert.equal(later.ctx.answer.agent_id, "cook");
assert.ok(later.ctx.answer.tokens_used <= later.ctx.request.budget_tokens, `tokens_used ${later.ctx.answer.tokens_used} <= ${later.ctx.request.budget_tokens}`);
assert.ok(later.out.estimatedTokens <= budget);
log(`cook ${key2}: prompt ${later.ctx.answer.tokens_used}/${later.ctx.request.budget_tokens} tokens, has Porto and the peanut rule, no stretching rule`);
log("cook prompt:\n" + p.split("\n").map((l) => "    " + l).join("\n"));

const coachLater = await until("the coach's context with its rule", async () => {
  const out = await coach.assemble({ sessionId: `sidc2-${run}`, sessionKey: coachKey2, messages: [], tokenBudget: budget, prompt: "Plan a workout for me." });
  const q = out.systemPromptAddition ?? "";
  return /stretching/.test(q) ? q : null;
}, 90_000);
assert.ok(!/peanuts/.test(coachLater), "the coach's context holds no rule of the cook");
const coachCtx = contexts.at(-1);
assert.ok(coachCtx.answer.tokens_used <= coachCtx.request.budget_tokens);
log(`coach ${coachKey2}: prompt ${coachCtx.answer.tokens_used}/${coachCtx.request.budget_tokens} tokens, has the stretching rule, no peanut rule`);

// the memory tool searches as the agent
const [search] = tools[0].factory({ agentId: "cook", sessionKey: key2 });
const hits = await search.execute("call-1", { query: "Maya Porto", k: 5 });
assert.match(hits.content[0].text, /Porto/);
log("engram_search:", hits.content[0].text.split("\n")[0]);

// deleting the session forgets it
await emit("session_end", { sessionId: `sid1-${run}`, sessionKey: key1, messageCount: 2, reason: "deleted" }, { sessionId: `sid1-${run}`, sessionKey: key1, agentId: "cook" });
await until(`${key1} forgotten`, async () => ((await engram("GET", `/v1/memories?session_id=${encodeURIComponent(key1)}&limit=100`)).records.length === 0 ? true : null), 60_000);
log(`cook ${key1}: deleted in OpenClaw, forgotten in Engram`);
assert.ok((await turnsOf(coachKey1)).length >= 2, "the other sessions stay");

await emit("gateway_stop", {}, {});
fs.rmSync(tmp, { recursive: true, force: true });
log("OK");
