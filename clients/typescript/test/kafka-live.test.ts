// engram/kafka against the live pipeline: a turn, a document and a memory sent to Engram's Kafka by the producer
// are read back through the memory service's HTTP API. Run by clients/run-live-tests, which sets ENGRAM_KAFKA
// (the bootstrap servers `./engram up` prints) with ENGRAM_URL and ENGRAM_KEY; skipped without ENGRAM_KAFKA.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Engram } from "../src/index.js";
import { EngramKafkaProducer, InvalidPayloadError } from "../src/kafka.js";
import { engram, eventually, id, unique } from "./live.js";

const servers = process.env.ENGRAM_KAFKA;
const skip = servers ? false : "ENGRAM_KAFKA (Kafka's bootstrap servers) is unset: run clients/run-live-tests";
let producer: EngramKafkaProducer;
let client: Engram;
let tenant: string;

before(async () => {
  if (!servers) return;
  client = engram();
  tenant = await client.tenantId();
  producer = new EngramKafkaProducer(servers);
  await producer.connect();
});

after(async () => {
  if (servers) await producer.disconnect();
});

test("a turn sent to Kafka is listed in its session", { skip }, async () => {
  const session = id("s-kafka");
  const text = unique("I'm flying to Lisbon on Friday, window seat please.");
  const report = await producer.sendTurn({ tenantId: tenant, sessionId: session, userId: "u-kafka", turnId: "t-0",
    seq: 0, role: "user", text });
  assert.equal(report.topic, "engram.turns.v1");
  assert.equal(report.key, `${tenant}/${session}`);
  assert.ok(report.partition >= 0 && /^\d+$/.test(report.offset), JSON.stringify(report));
  let found: Awaited<ReturnType<Engram["list"]>>["records"] = [];
  await eventually("the turn is listed in its session", async () => {
    found = (await client.list({ sessionId: session, limit: 50 })).records.filter((r) => r.type === "turn");
    return found.length > 0;
  });
  assert.deepEqual(found.map((r) => [r.text, r.sessionId, r.userId, r.role, r.position]),
    [[text, session, "u-kafka", "user", 0]]);
});

test("a document sent to Kafka becomes its agent's hard rule", { skip }, async () => {
  const agent = id("agent-kafka");
  const path = `${id("docs")}/AGENTS.md`;
  const report = await producer.sendDocument({ tenantId: tenant, agentId: agent, path, docClass: "core", version: 1,
    content: "# Rules\n\n- Never log secrets.\n" });
  assert.deepEqual([report.topic, report.key], ["engram.docs.v1", `${tenant}/${agent}/${path}`]);
  let rule: Awaited<ReturnType<Engram["list"]>>["records"][number] | undefined;
  await eventually("the rule is listed as an invariant", async () => {
    rule = (await client.list({ type: "invariant", limit: 100 })).records.find((r) => r.agentId === agent);
    return rule !== undefined;
  });
  assert.match(rule!.text, /Never log secrets\./);
  assert.deepEqual([rule!.type, rule!.agentId, rule!.docPath, rule!.docVersion, rule!.tier], ["invariant", agent, path, 1, 1]);
});

test("a memory sent to Kafka is searchable", { skip }, async () => {
  const memoryId = id("m-kafka");
  const text = unique("Ann keeps her passport in the blue travel wallet.");
  const report = await producer.sendMemory({ tenantId: tenant, memoryId, text, userId: "ann", key: "passport.place",
    sourceRefs: ["kafka-test"] });
  assert.deepEqual([report.topic, report.key], ["engram.memories.v1", tenant]);
  let hit: Awaited<ReturnType<Engram["search"]>>[number] | undefined;
  await eventually("the memory is searchable", async () => {
    hit = (await client.search("where does Ann keep her passport?", { k: 20 })).find((r) => r.text === text);
    return hit !== undefined;
  });
  const record = await client.get(hit!.id);
  assert.deepEqual([record.type, record.text, record.userId, record.key, record.sourceRefs],
    ["memory", text, "ann", "passport.place", ["kafka-test"]]);
});

test("an invalid payload is refused before it reaches Kafka", { skip }, async () => {
  await assert.rejects(producer.sendTurn({ tenantId: tenant, sessionId: "s", turnId: "t-0", seq: 0, role: "user",
    text: "\uD800" }), (e: InvalidPayloadError) => e instanceof InvalidPayloadError && e.field === "text");
});
