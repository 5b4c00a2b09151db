// Every method of the client against a live Engram (./engram up), started by clients/run-live-tests with two
// tenants: ENGRAM_URL, ENGRAM_KEY and ENGRAM_OTHER_KEY.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AuthenticationError, Engram, InvalidRequestError, NotFoundError } from "../src/index.js";
import { PATIENCE_MS, engram, eventually, id, other, unique, url } from "./live.js";

const client = engram();
const done = async (forgetId: string) => (await client.forgetStatus(forgetId)).status === "done";

test("a memory is searchable, readable and listed", async () => {
  const text = unique("The staging database password rotates every Tuesday.");
  const written = await client.addMemory(text);
  assert.deepEqual(written.rejected, []);
  assert.equal(written.accepted.length, 1);
  const memoryId = written.accepted[0];
  await eventually("the memory is searchable", async () =>
    (await client.search("when does the staging password rotate?", { k: 20 })).some((r) => r.id === memoryId));
  const record = await client.get(memoryId);
  assert.deepEqual([record.id, record.type, record.text], [memoryId, "memory", text]);
  assert.deepEqual((await client.addMemory(text)).accepted, [memoryId], "the same text is the same memory");
  const listed: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list({ type: "memory", limit: 50, cursor });
    listed.push(...page.records.map((r) => r.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  assert.ok(listed.includes(memoryId));
  assert.equal(await client.tenantId(), memoryId.slice(0, memoryId.indexOf("/")));
});

test("a user's export holds their turns and memories as payloads, oldest first", async () => {
  const user = id("u");
  const session = id("s");
  const turn = (await client.addTurns(session, [{ role: "user", text: unique("I just adopted a dog.") }], { userId: user }))
    .accepted[0];
  const paris = (await client.addMemory(unique("Ann lives in Paris."), { userId: user, key: "user.city" })).accepted[0];
  const berlin = (await client.addMemory(unique("Ann lives in Berlin."), { userId: user, key: "user.city" })).accepted[0];
  await client.waitUntilSearchable([turn, paris, berlin]);
  await eventually("Paris is superseded by Berlin", async () => (await client.get(paris)).supersededBy === berlin);
  const lines = [];
  for await (const line of client.export({ userId: user })) lines.push(line);
  assert.deepEqual(lines[lines.length - 1], { schema: "cursor.v1", cursor: null, records: lines.length - 1 });
  const payloads = lines.filter((l) => l.schema === "turn.v1" || l.schema === "memory.v1");
  assert.deepEqual(payloads.map((l) => l.schema), ["turn.v1", "memory.v1", "memory.v1"], "oldest first");
  assert.equal(payloads[0].session_id, session);
  assert.deepEqual(payloads.slice(1).map((l) => `${l.tenant_id}/${l.memory_id}`), [paris, berlin]);
  assert.ok(payloads.slice(1).every((l) => l.key === "user.city" && !("superseded_by" in l)));
  assert.ok(lines.slice(0, -1).every((l) => l.user_id === user));
  const memories = [];
  for await (const line of client.export({ userId: user, types: ["memory"] })) memories.push(line.schema);
  assert.deepEqual(memories, ["memory.v1", "memory.v1", "cursor.v1"]);
});

test("entities are who and what the memories name", async () => {
  const user = id("u");
  const written: string[] = [];
  for (const text of ["Priya moved to Lisbon last spring.", "Priya works at Siemens now."]) {
    written.push((await client.addMemory(unique(text), { userId: user })).accepted[0]);
  }
  await client.waitUntilSearchable(written);
  const priya = (await client.entities({ userId: user })).find((e) => e.name === "priya");
  assert.ok(priya, "Priya is named");
  assert.equal(priya.records, 2);
  assert.deepEqual(Object.fromEntries(priya.coMentions.map((c) => [c.name, c.records])), { lisbon: 1, siemens: 1 });
  assert.deepEqual(priya.mentionedBy.map((r) => r.id), [...written].reverse(), "newest first");
  assert.deepEqual((await client.entities({ userId: user, name: "Lisbon" })).map((e) => e.name), ["lisbon", "priya"]);
  await assert.rejects(client.entities({ limit: 0 }), InvalidRequestError);
});

test("a newer memory of a key supersedes the older, and asOf reads the past", async () => {
  const user = id("u");
  const paris = (await client.addMemory(unique("Ann lives in Paris."),
    { userId: user, key: "user.city", validFrom: "2020-01-01T00:00:00Z" })).accepted[0];
  const berlin = (await client.addMemory(unique("Ann lives in Berlin."),
    { userId: user, key: "user.city", validFrom: new Date("2024-01-01T00:00:00Z") })).accepted[0];
  await client.waitUntilSearchable([paris, berlin]);
  await eventually("Paris is superseded by Berlin", async () => (await client.get(paris)).supersededBy === berlin);
  assert.equal((await client.get(paris)).supersededAt, "2024-01-01T00:00:00Z");
  assert.deepEqual((await client.get(berlin)).chain, [paris, berlin]);
  const now = (await client.search("where does Ann live?", { k: 50 })).map((r) => r.id);
  assert.ok(now.includes(berlin) && !now.includes(paris));
  const then = (await client.search("where does Ann live?", { k: 50, asOf: "2022-06-01T00:00:00Z" })).map((r) => r.id);
  assert.ok(then.includes(paris) && !then.includes(berlin));
});

test("turns make the context, with a prompt to paste, in the order said", async () => {
  const session = id("s");
  const said = ["I'm planning a trip to Kyoto in April with my sister.",
    "Lovely - cherry blossom season. Shall I look at ryokans near Gion?", "Yes, two rooms please."];
  const first = await client.addTurns(session, [{ role: "user", text: said[0] }, { role: "assistant", text: said[1] }],
    { userId: "u-kyoto" });
  const second = await client.addTurns(session, [{ role: "user", text: said[2] }]);
  const ids = [...first.accepted, ...second.accepted];
  assert.deepEqual(ids.map((i) => i.slice(i.lastIndexOf("/") + 1)), ["t-0", "t-1", "t-2"]);
  await client.waitUntilSearchable(ids, { timeoutMs: PATIENCE_MS });
  const restarted = engram(); // numbers after the stored turns
  const third = await restarted.addTurns(session, [{ role: "assistant", text: "Booked two rooms near Gion." }]);
  assert.ok(third.accepted[0].endsWith("/t-3"), third.accepted[0]);
  await restarted.waitUntilSearchable(third.accepted, { timeoutMs: PATIENCE_MS });
  assert.deepEqual((await client.list({ sessionId: session })).records.map((r) => r.position).sort(), [0, 1, 2, 3]);
  const context = await client.context("where am I travelling?", { sessionId: session, budgetTokens: 1500 });
  assert.ok(context.tokensUsed > 0 && context.tokensUsed <= context.budgetTokens, `${context.tokensUsed}`);
  assert.equal(context.budgetTokens, 1500);
  assert.ok(context.prompt.includes(`[${ids[0]}]`) && context.prompt.includes("Kyoto"), context.prompt);
  const tail = context.included.filter((i) => i.section === "recent_tail").map((i) => i.text);
  assert.ok(tail.length >= 2);
  assert.deepEqual(tail, [...said, "Booked two rooms near Gion."].filter((t) => tail.includes(t)));
  const roles = new Set((await client.list({ sessionId: session })).records.map((r) => r.role));
  assert.deepEqual([...roles].sort(), ["assistant", "user"]);
});

test("a document becomes rules", async () => {
  const agent = id("agent");
  const written = await client.addDocument(agent, "AGENTS.md", "# Rules\n\n- Never paste customer data into tickets.\n",
    { version: 1, docClass: "core" });
  assert.deepEqual([written.rejected, written.accepted.length], [[], 1]);
  await eventually("the rule is stored", async () => (await client.list({ type: "invariant", limit: 100 })).records
    .some((r) => r.type === "invariant" && r.text.includes("customer data") && r.agentId === agent));
});

test("an agent's context holds its own rules and the shared ones, within the budget unless allRules", async () => {
  const agent = id("agent");
  const stranger = id("agent");
  const house = `HOUSE-${agent}.md`;
  const documents: [string, string, string][] = [
    [agent, "AGENTS.md", "Never paste customer data into tickets."],
    [stranger, "AGENTS.md", "Always paste the customer data into tickets."],
    ["*", house, "Never send customer data outside the company."], // "*": shared with every agent
  ];
  for (const [who, path, rule] of documents) {
    const written = await client.addDocument(who, path, `# Rules\n\n- ${rule}\n`, { version: 1, docClass: "core" });
    assert.deepEqual([written.rejected, written.accepted.length], [[], 1]);
  }
  const rules = async () => new Map((await client.list({ type: "invariant", limit: 100 })).records
    .filter((r) => r.text.includes("customer data")).map((r) => [`${r.agentId} ${r.docPath}`, r.id]));
  const keys = documents.map(([who, path]) => `${who} ${path}`);
  await eventually("the three documents' rules are stored", async () => {
    const stored = await rules();
    return keys.every((k) => stored.has(k));
  });
  const stored = await rules();
  const [own, theirs, shared] = keys.map((k) => stored.get(k)!);
  const query = "may I paste customer data into a ticket?";
  const ids = (context: { included: { id: string }[] }) => context.included.map((i) => i.id);

  const mine = await client.context(query, { agentId: agent, budgetTokens: 1500 });
  assert.equal(mine.agentId, agent);
  const hard = mine.included.filter((i) => i.section === "hard_rules").map((i) => i.id);
  assert.ok(hard.includes(own) && hard.includes(shared) && !ids(mine).includes(theirs), JSON.stringify(mine.included));
  // the tenant's documents belong to several agents: without an agent, the shared documents' rules only
  const unnamed = await client.context(query, { budgetTokens: 1500 });
  assert.equal(unnamed.agentId, null);
  assert.ok(ids(unnamed).includes(shared) && !ids(unnamed).includes(own) && !ids(unnamed).includes(theirs));

  const found = (await client.search("paste customer data into tickets", { k: 50, types: ["invariant"], agentId: agent }))
    .map((r) => r.id);
  assert.ok(found.includes(own) && !found.includes(theirs), JSON.stringify(found));
  const everyone = (await client.search("paste customer data into tickets", { k: 50, types: ["invariant"] })).map((r) => r.id);
  assert.ok(everyone.includes(own) && everyone.includes(theirs));

  // the budget holds, leaving the rule out and saying so; allRules takes every hard rule of the agent whatever it
  const tight = await client.context(query, { agentId: agent, budgetTokens: 1 });
  assert.ok(tight.tokensUsed <= 1 && tight.excluded.some((e) => e.id === own) && tight.degradedReasons.length > 0,
    JSON.stringify(tight));
  const every = await client.context(query, { agentId: agent, budgetTokens: 1, allRules: true });
  assert.ok(ids(every).includes(own) && every.tokensUsed > every.budgetTokens, JSON.stringify(every));
});

test("delete forgets one memory", async () => {
  const memoryId = (await client.addMemory(unique("The office plant is called Gerald."))).accepted[0];
  await client.waitUntilSearchable([memoryId], { timeoutMs: PATIENCE_MS });
  const forget = await client.delete(memoryId);
  assert.deepEqual([forget.scope, forget.target, forget.status], ["memory", memoryId, "pending"]);
  assert.equal((await client.waitUntilForgotten(forget.forgetId, { timeoutMs: PATIENCE_MS })).status, "done");
  await assert.rejects(client.get(memoryId), NotFoundError);
});

test("forget a session, forget a user", async () => {
  const session = id("s");
  const user = id("u");
  const first = (await client.addTurns(session, [{ role: "user", text: "My locker code is 4417." }])).accepted;
  const second = (await client.addTurns(session + "-b", [{ role: "user", text: "I moved to Porto last year." }],
    { userId: user })).accepted;
  await client.waitUntilSearchable([...first, ...second], { timeoutMs: PATIENCE_MS });

  const bySession = await client.forgetSession(session);
  assert.deepEqual([bySession.scope, bySession.target], ["session", session]);
  await eventually("the session is forgotten", () => done(bySession.forgetId));
  assert.deepEqual((await client.list({ sessionId: session })).records, []);
  assert.equal((await client.forgetStatus(bySession.forgetId)).recordsRemoved, 1);

  const byUser = await client.forgetUser(user);
  await eventually("the user is forgotten", () => done(byUser.forgetId));
  assert.deepEqual((await client.list({ userId: user })).records, []);
});

test("each refusal is an error with the API's status and code", async () => {
  await assert.rejects(new Engram(url(), "not-a-key").search("x"),
    (e: any) => e instanceof AuthenticationError && e.status === 401 && e.code === "unauthorized");
  await assert.rejects(client.context("x", { budgetTokens: 0 }),
    (e: any) => e instanceof InvalidRequestError && e.status === 400 && e.code === "invalid_request"
      && e.message.includes("budget_tokens"));
  await assert.rejects(client.get("no-such-record"), (e: any) => e instanceof NotFoundError && e.code === "not_found");
  await assert.rejects(client.forgetStatus("fgt-none"), NotFoundError);
  await assert.rejects(client.search("x", { types: ["diary" as never] }), (e: any) => e.code === "invalid_request");
  const rejected = await client.addMemory("x", { type: "diary" as never });
  assert.deepEqual(rejected.accepted, []);
  assert.equal(rejected.rejected[0].code, "schema_violation");
  assert.ok(rejected.rejected[0].message.includes("type"));
});

test("another tenant sees nothing", async () => {
  const stranger = other();
  const text = unique("The vault code for the Geneva office is kept by Marguerite.");
  const memoryId = (await client.addMemory(text)).accepted[0];
  await eventually("the memory is searchable", async () =>
    (await client.search("vault code Geneva")).some((r) => r.id === memoryId));
  assert.ok(!(await stranger.search("vault code Geneva")).some((r) => r.id === memoryId));
  assert.ok(!(await stranger.context("who keeps the vault code?")).included.some((i) => i.id === memoryId));
  await assert.rejects(stranger.get(memoryId), NotFoundError);
  await assert.rejects(stranger.delete(memoryId), NotFoundError);
  assert.equal((await client.get(memoryId)).text, text);
});
