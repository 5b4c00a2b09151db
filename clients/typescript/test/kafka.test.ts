// engram/kafka without Kafka: the payloads it builds, their keys and topics, what it refuses before sending and
// why, and what it hands kafkajs, through a stand-in for kafkajs's producer. Against the live pipeline:
// kafka-live.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  EngramKafkaProducer, InvalidPayloadError, documentPayload, forgetPayload, memoryPayload, schemaDirectory,
  turnPayload, validatePayload, type Payload,
} from "../src/kafka.js";

const turn = { tenantId: "acme", sessionId: "s-1", userId: "ann", turnId: "t-0", seq: 0, role: "user" as const,
  text: "I'm allergic to hazelnuts.", ts: "2025-03-02T10:00:00Z" };

/** The error validatePayload throws for `payload`, which must be one. */
function refusal(payload: Payload): InvalidPayloadError {
  try {
    validatePayload(payload);
  } catch (error) {
    assert.ok(error instanceof InvalidPayloadError, String(error));
    return error;
  }
  assert.fail(`valid: ${JSON.stringify(payload.json)}`);
}

function edited(payload: Payload, json: Record<string, unknown>): Payload {
  return { ...payload, json: Object.fromEntries(Object.entries({ ...payload.json, ...json }).filter(([, v]) => v !== undefined)) };
}

test("payloads are the contract's JSON, on their topics, keyed as the Java producer keys them", () => {
  const t = turnPayload(turn);
  assert.deepEqual([t.topic, t.key], ["engram.turns.v1", "acme/s-1"]);
  assert.deepEqual(t.json, { schema: "turn.v1", tenant_id: "acme", session_id: "s-1", user_id: "ann", turn_id: "t-0",
    seq: 0, role: "user", text: "I'm allergic to hazelnuts.", ts: "2025-03-02T10:00:00Z" });
  const d = documentPayload({ tenantId: "acme", agentId: "support", path: "docs/AGENTS.md", docClass: "core",
    version: 3, content: "- Never log secrets.\n", ts: new Date("2025-03-02T10:00:00Z") });
  assert.deepEqual([d.topic, d.key], ["engram.docs.v1", "acme/support/docs/AGENTS.md"]);
  assert.deepEqual(d.json, { schema: "doc.v1", tenant_id: "acme", agent_id: "support", path: "docs/AGENTS.md",
    doc_class: "core", version: 3, content: "- Never log secrets.\n", ts: "2025-03-02T10:00:00.000Z" });
  assert.equal(documentPayload({ tenantId: "acme", agentId: "*", path: "A.md", docClass: "standard", version: 4,
    content: "", deleted: true }).json.deleted, true);
  const m = memoryPayload({ tenantId: "acme", memoryId: "m-aisle", text: "Ann prefers aisle seats.", userId: "ann",
    key: "seat.preference", validFrom: new Date("2025-01-01T00:00:00Z"), ts: "2025-03-02T10:00:00Z" });
  assert.deepEqual([m.topic, m.key], ["engram.memories.v1", "acme"]);
  assert.deepEqual(m.json, { schema: "memory.v1", tenant_id: "acme", memory_id: "m-aisle", type: "memory",
    op: "upsert", text: "Ann prefers aisle seats.", source_refs: [], generation: 0, ts: "2025-03-02T10:00:00Z",
    user_id: "ann", key: "seat.preference", valid_from: "2025-01-01T00:00:00.000Z" });
  const deleted = memoryPayload({ tenantId: "acme", memoryId: "m-aisle", op: "delete", type: "lesson" }).json;
  assert.deepEqual(Object.keys(deleted).sort(), ["memory_id", "op", "schema", "tenant_id", "ts", "type"]);
  const f = forgetPayload({ tenantId: "acme", forgetId: "f-1", scope: "session", target: "s-1" });
  assert.deepEqual([f.topic, f.key, f.json.scope, f.json.target], ["engram.forgets.v1", "acme", "session", "s-1"]);
  for (const payload of [t, d, m, f]) {
    validatePayload(payload);
    assert.ok(!Number.isNaN(Date.parse(String(payload.json.ts))), "ts defaults to now");
  }
});

test("the schemas are the published ones, copied from docs/schemas by the build", async () => {
  const { readFileSync } = await import("node:fs");
  for (const name of ["turn.v1", "doc.v1", "memory.v1", "forget.v1"]) {
    const published = new URL(`../../../../docs/schemas/${name}.json`, import.meta.url);
    assert.equal(readFileSync(`${schemaDirectory()}${name}.json`, "utf8"), readFileSync(published, "utf8"));
  }
});

test("an invalid payload is refused with the field at fault and the pipeline's reject reason", () => {
  const t = turnPayload(turn);
  const cases: [Payload, string, string][] = [
    [edited(t, { tenant_id: "Acme Corp" }), "invalid_tenant", "tenant_id"],
    [edited(t, { text: undefined }), "schema_violation", "text"],
    [edited(t, { role: "narrator" }), "schema_violation", "role"],
    [edited(t, { seq: -1 }), "schema_violation", "seq"],
    [edited(t, { seq: 1.5 }), "schema_violation", "seq"],
    [edited(t, { seq: 2 ** 60 }), "schema_violation", "seq"],
    [edited(t, { ts: "yesterday" }), "schema_violation", "ts"],
    [edited(t, { ts: "2025-03-02 10:00:00Z" }), "schema_violation", "ts"],
    [edited(t, { ts: "2025-02-30T10:00:00Z" }), "schema_violation", "ts"],
    [edited(t, { mood: "happy" }), "schema_violation", "mood"],
    [edited(t, { text: "half a pair: \uD83D." }), "invalid_utf8", "text"],
    [edited(t, { text: "x".repeat(64 * 1024 + 1) }), "text_too_large", "text"],
    [memoryPayload({ tenantId: "acme", memoryId: "m-1" }), "schema_violation", "text"],
    [memoryPayload({ tenantId: "acme", memoryId: "m-1", text: "x", agentId: "*" }), "schema_violation", "agent_id"],
    [memoryPayload({ tenantId: "acme", memoryId: "m-1", text: "x", key: "not a key" }), "schema_violation", "key"],
    [memoryPayload({ tenantId: "acme", memoryId: "m-1", text: "x", sourceRefs: ["ok", ""] }), "schema_violation", "source_refs/1"],
    [memoryPayload({ tenantId: "acme", memoryId: "m-1", text: "x", supersedes: ["m-0", "\uDC00"] }), "invalid_utf8", "supersedes/1"],
    [memoryPayload({ tenantId: "acme", memoryId: "m-1", text: "x", validFrom: "2025-06-01T00:00:00Z",
      validUntil: "2025-01-01T00:00:00Z" }), "schema_violation", "valid_until"],
    [memoryPayload({ tenantId: "acme", memoryId: "m-1", text: "x", expiresAt: new Date(Number.NaN) }), "schema_violation", "expires_at"],
    [documentPayload({ tenantId: "acme", agentId: "", path: "A.md", docClass: "core", version: 1, content: "" }),
      "schema_violation", "agent_id"],
    [documentPayload({ tenantId: "acme", agentId: "a", path: "A.md", docClass: "secret" as "core", version: 1, content: "" }),
      "schema_violation", "doc_class"],
    [forgetPayload({ tenantId: "acme", forgetId: "f-1", scope: "agent" as "user", target: "acme" }), "schema_violation", "scope"],
    [forgetPayload({ tenantId: "acme", forgetId: "f-1", scope: "user", target: "" }), "schema_violation", "target"],
  ];
  for (const [payload, reason, field] of cases) {
    const error = refusal(payload);
    assert.deepEqual([error.reason, error.field], [reason, field], error.message);
    assert.ok(error.message.startsWith(`${String(payload.json.schema)}: ${field}`), error.message);
  }
  assert.match(refusal(edited(t, { tenant_id: "Acme Corp" })).message, /tenant_id: must match pattern/);
  const documentBound = documentPayload({ tenantId: "acme", agentId: "a", path: "A.md", docClass: "core", version: 1,
    content: "é".repeat(5) });
  assert.throws(() => validatePayload(documentBound, { maxTextBytes: 1, maxDocumentBytes: 9 }),
    (e: InvalidPayloadError) => e.reason === "document_too_large" && /10 bytes is over the bound of 9/.test(e.message));
});

/** A stand-in for kafkajs: records the producer settings and every send, and answers as a broker would. */
function standIn() {
  const sent: any[] = [];
  const configs: any[] = [];
  let offset = 41;
  const kafka = {
    producer(config: any) {
      configs.push(config);
      return {
        connect: async () => {},
        disconnect: async () => {},
        send: async (record: any) => {
          sent.push(record);
          return [{ topicName: record.topic, partition: 2, errorCode: 0, baseOffset: String(++offset) }];
        },
      } as any;
    },
  };
  return { kafka, sent, configs };
}

test("the producer sends each payload idempotently, as UTF-8 JSON under its key, and reports where it went", async () => {
  const { kafka, sent, configs } = standIn();
  const producer = new EngramKafkaProducer("ignored:9092", { kafka });
  assert.equal(configs[0].idempotent, true);
  assert.equal(configs[0].maxInFlightRequests, 1);
  await producer.connect();
  const report = await producer.sendTurn({ ...turn, text: "Grüße, 你好" });
  assert.deepEqual(report, { topic: "engram.turns.v1", partition: 2, offset: "42", key: "acme/s-1" });
  assert.equal(sent[0].acks, -1);
  assert.equal(sent[0].messages[0].key, "acme/s-1");
  const value = sent[0].messages[0].value as Buffer;
  assert.equal(JSON.parse(value.toString("utf8")).text, "Grüße, 你好");
  assert.deepEqual(value, Buffer.from(JSON.stringify(turnPayload({ ...turn, text: "Grüße, 你好" }).json), "utf8"));
  const doc = await producer.sendDocument({ tenantId: "acme", agentId: "support", path: "AGENTS.md",
    docClass: "core", version: 1, content: "- Never log secrets.\n" });
  const memory = await producer.sendMemory({ tenantId: "acme", memoryId: "m-1", text: "Ann prefers aisle seats." });
  const forget = await producer.sendForget({ tenantId: "acme", forgetId: "f-1", scope: "memory", target: "acme/m-1" });
  assert.deepEqual([doc, memory, forget].map((r) => [r.topic, r.key, r.offset]), [
    ["engram.docs.v1", "acme/support/AGENTS.md", "43"], ["engram.memories.v1", "acme", "44"],
    ["engram.forgets.v1", "acme", "45"]]);
  await assert.rejects(producer.sendTurn({ ...turn, tenantId: "ACME" }),
    (e: InvalidPayloadError) => e instanceof InvalidPayloadError && e.field === "tenant_id");
  await assert.rejects(producer.sendMemory({ tenantId: "acme", memoryId: "m-2" }),
    (e: InvalidPayloadError) => e.field === "text" && e.reason === "schema_violation");
  assert.equal(sent.length, 4, "nothing invalid reached Kafka");
  await producer.disconnect();
});

test("producer settings and size bounds can be overridden", async () => {
  const { kafka, configs } = standIn();
  const producer = new EngramKafkaProducer(["a:9092", "b:9092"], { kafka, producerConfig: { allowAutoTopicCreation: false },
    limits: { maxTextBytes: 4 } });
  assert.equal(configs[0].allowAutoTopicCreation, false);
  assert.equal(configs[0].idempotent, true);
  await assert.rejects(producer.sendTurn({ ...turn, text: "12345" }), (e: InvalidPayloadError) => e.reason === "text_too_large");
});
