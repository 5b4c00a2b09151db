/// <reference types="node" />
/**
 * A gateway's Kafka producer for Engram (docs/clients.md, "Gateway producers"): turns, agent documents, memories
 * and forgets straight onto Engram's input topics, as the Java `client` module's `EngramProducer` sends them. Each
 * payload is validated against the published JSON Schema (docs/schemas, packed into this package at build time)
 * before anything is sent, and keyed as the contract says (docs/contracts.md, "Contracts"). Node only: `kafkajs`,
 * `ajv` and `ajv-formats` are peer dependencies of this entry point only.
 *
 *     import { EngramKafkaProducer } from "engram/kafka";
 *     const producer = new EngramKafkaProducer("kafka:9092");
 *     await producer.connect();
 *     const report = await producer.sendTurn({ tenantId: "acme", sessionId: "s-1", turnId: "t-0", seq: 0,
 *       role: "user", text: "I'm allergic to hazelnuts." });   // { topic, partition, offset, key }
 *     await producer.disconnect();
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formatsModule from "ajv-formats";
import { Kafka, Partitioners, logLevel, type KafkaConfig, type Producer, type ProducerConfig } from "kafkajs";
import type { MemoryType, Role } from "./types.js";

// ajv-formats is CommonJS whose types declare an ES default export: under Node's ESM loader the default import is
// the plugin itself, under a bundler that honours __esModule it is the module with `default`.
const addFormats = ((formatsModule as any).default ?? formatsModule) as typeof formatsModule.default;

/** Engram's input topics (docs/contracts.md, "Contracts"). */
export const TOPICS = {
  turn: "engram.turns.v1",
  doc: "engram.docs.v1",
  memory: "engram.memories.v1",
  forget: "engram.forgets.v1",
} as const;

export type PayloadKind = keyof typeof TOPICS;

/** One payload ready to send: its kind, topic, Kafka key and JSON (snake_case, as the schemas name the fields). */
export interface Payload {
  kind: PayloadKind;
  topic: string;
  key: string;
  json: Record<string, unknown>;
}

/** Where the broker stored a record: its topic, partition and offset (an int64, as a decimal string). */
export interface DeliveryReport {
  topic: string;
  partition: number;
  offset: string;
  key: string;
}

/** A date-time: an RFC 3339 string with an offset (`2025-01-31T12:00:00Z`), or a Date (sent in UTC). */
export type DateTime = string | Date;

export interface KafkaTurn {
  tenantId: string;
  sessionId: string;
  userId?: string;
  turnId: string;
  /** The turn's number in its session: 0, 1, 2, … (the pipeline reads neighbouring turns by it). */
  seq: number;
  role: Role;
  text: string;
  /** Event time; now when absent. */
  ts?: DateTime;
}

export interface KafkaDocument {
  tenantId: string;
  /** The agent whose document it is; `*` shares it with every agent of the tenant. */
  agentId: string;
  path: string;
  docClass: "core" | "standard";
  /** A newer version replaces every chunk of the older one. */
  version: number;
  content: string;
  /** True: the document is deleted (its chunks leave the store). */
  deleted?: boolean;
  ts?: DateTime;
}

export interface KafkaMemory {
  tenantId: string;
  memoryId: string;
  /** Default `memory`. */
  type?: MemoryType;
  /** Default `upsert`; `delete` needs no text. */
  op?: "upsert" | "delete";
  text?: string;
  /** Default `[]` for an upsert. */
  sourceRefs?: string[];
  /** Default 0 for an upsert. */
  generation?: number;
  userId?: string;
  /** Whose memory it is, where a gateway keeps one per agent (never `*`). */
  agentId?: string;
  /** A slot such as `user.city`: a newer memory of the same key (and user) supersedes the older one. */
  key?: string;
  supersedes?: string[];
  validFrom?: DateTime;
  validUntil?: DateTime;
  expiresAt?: DateTime;
  cycleId?: string;
  ts?: DateTime;
}

export interface KafkaForget {
  tenantId: string;
  forgetId: string;
  scope: "memory" | "session" | "user";
  /** A record's store id, a session id or a user id. */
  target: string;
  ts?: DateTime;
}

/** Size bounds in UTF-8 bytes, as the pipeline's defaults (`PayloadValidator.Limits.DEFAULT`). */
export interface Limits {
  /** A turn's or a memory's text. Default 64 KiB. */
  maxTextBytes: number;
  /** A document's content. Default 8 MiB. */
  maxDocumentBytes: number;
}

export const DEFAULT_LIMITS: Limits = { maxTextBytes: 64 * 1024, maxDocumentBytes: 8 * 1024 * 1024 };

/** One thing wrong with a payload: the field (`text`, `source_refs/0`; empty for the payload itself) and why. */
export interface PayloadProblem {
  field: string;
  message: string;
}

/**
 * A payload that Engram would reject, refused before anything was sent. `reason` is the reject reason the pipeline
 * would give it (`schema_violation`, `invalid_tenant`, `text_too_large`, `document_too_large`, `invalid_utf8`),
 * `field` the first field at fault and `problems` every one found.
 */
export class InvalidPayloadError extends Error {
  readonly reason: string;
  readonly field: string;
  readonly problems: PayloadProblem[];

  constructor(schema: string, reason: string, problems: PayloadProblem[]) {
    super(`${schema}: ${problems.slice(0, 3).map((p) => (p.field ? `${p.field}: ${p.message}` : p.message)).join("; ")}`);
    this.name = "InvalidPayloadError";
    this.reason = reason;
    this.field = problems[0]?.field ?? "";
    this.problems = problems;
  }
}

// -- payloads -------------------------------------------------------------------------------------------------------

/** A conversation turn, keyed `tenant_id/session_id` so that a session stays in order on one partition. */
export function turnPayload(turn: KafkaTurn): Payload {
  const json = withoutUndefined({
    schema: "turn.v1", tenant_id: turn.tenantId, session_id: turn.sessionId, user_id: turn.userId,
    turn_id: turn.turnId, seq: turn.seq, role: turn.role, text: turn.text, ts: when(turn.ts),
  });
  return { kind: "turn", topic: TOPICS.turn, key: `${turn.tenantId}/${turn.sessionId}`, json };
}

/** A version of an agent document, keyed `tenant_id/agent_id/path` so that its versions stay in order. */
export function documentPayload(doc: KafkaDocument): Payload {
  const json = withoutUndefined({
    schema: "doc.v1", tenant_id: doc.tenantId, agent_id: doc.agentId, path: doc.path, doc_class: doc.docClass,
    version: doc.version, content: doc.content, ts: when(doc.ts), deleted: doc.deleted,
  });
  return { kind: "doc", topic: TOPICS.doc, key: `${doc.tenantId}/${doc.agentId}/${doc.path}`, json };
}

/** A memory written by the gateway's own consolidation, keyed `tenant_id` so that a tenant's memories stay in order. */
export function memoryPayload(memory: KafkaMemory): Payload {
  const op = memory.op ?? "upsert";
  const upsert = op === "upsert";
  const json = withoutUndefined({
    schema: "memory.v1", tenant_id: memory.tenantId, memory_id: memory.memoryId, type: memory.type ?? "memory", op,
    text: memory.text, source_refs: memory.sourceRefs ?? (upsert ? [] : undefined),
    generation: memory.generation ?? (upsert ? 0 : undefined), cycle_id: memory.cycleId, ts: when(memory.ts),
    user_id: memory.userId, agent_id: memory.agentId, key: memory.key, supersedes: memory.supersedes,
    valid_from: when(memory.validFrom, false), valid_until: when(memory.validUntil, false),
    expires_at: when(memory.expiresAt, false),
  });
  return { kind: "memory", topic: TOPICS.memory, key: memory.tenantId, json };
}

/** A forget of a record, a session or a user, keyed `tenant_id`: it follows the tenant's memories before it. */
export function forgetPayload(forget: KafkaForget): Payload {
  const json = withoutUndefined({
    schema: "forget.v1", tenant_id: forget.tenantId, forget_id: forget.forgetId, scope: forget.scope,
    target: forget.target, ts: when(forget.ts),
  });
  return { kind: "forget", topic: TOPICS.forget, key: forget.tenantId, json };
}

// -- validation -----------------------------------------------------------------------------------------------------

const SCHEMA_NAMES: Record<PayloadKind, string> = { turn: "turn.v1", doc: "doc.v1", memory: "memory.v1", forget: "forget.v1" };
const DATE_FIELDS = ["ts", "valid_from", "valid_until", "expires_at"];
const INTEGER_FIELDS = ["seq", "version", "generation"];
let validators: Record<PayloadKind, ValidateFunction> | undefined;

/** The folder of the published schemas this package was built with (`schemas/`, copied from docs/schemas). */
export function schemaDirectory(): string {
  // dist/kafka.js in the package, build/src/kafka.js in this package's own test build
  for (const up of ["../schemas/", "../../schemas/"]) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(`${dir}turn.v1.json`)) return dir;
  }
  throw new Error("the published schemas are not in this package (schemas/): build it with `npm run build`, which copies docs/schemas");
}

/** The published JSON Schema of a payload kind, e.g. `turn.v1`. */
export function schema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(`${schemaDirectory()}${name}.json`, "utf8"));
}

function compiled(): Record<PayloadKind, ValidateFunction> {
  if (!validators) {
    const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true });
    addFormats(ajv, ["date-time"]);
    validators = Object.fromEntries(Object.entries(SCHEMA_NAMES)
      .map(([kind, name]) => [kind, ajv.compile(schema(name))])) as Record<PayloadKind, ValidateFunction>;
  }
  return validators;
}

/**
 * Checks a payload as the pipeline will (`PayloadValidator`): its schema, then what a schema does not say — text
 * that UTF-8 cannot encode (a lone surrogate), integers past what a JSON number holds exactly, date-times the
 * pipeline cannot read, `valid_until` not after `valid_from`, and the size bounds. Throws
 * {@link InvalidPayloadError}.
 */
export function validatePayload(payload: Payload, limits: Limits = DEFAULT_LIMITS): void {
  const name = SCHEMA_NAMES[payload.kind];
  const json = payload.json;
  const unencodable = loneSurrogates(json);
  if (unencodable.length > 0) {
    throw new InvalidPayloadError(name, "invalid_utf8",
      unencodable.map((field) => ({ field, message: "has a lone surrogate, which UTF-8 cannot encode" })));
  }
  const validate = compiled()[payload.kind];
  if (!validate(json)) {
    const problems = (validate.errors ?? []).filter((e) => e.keyword !== "if").map(problem);
    const tenant = problems.some((p) => p.field === "tenant_id");
    throw new InvalidPayloadError(name, tenant ? "invalid_tenant" : "schema_violation", problems);
  }
  const refuse = (reason: string, field: string, message: string) => {
    throw new InvalidPayloadError(name, reason, [{ field, message }]);
  };
  for (const field of INTEGER_FIELDS) {
    if (field in json && !Number.isSafeInteger(json[field])) {
      refuse("schema_violation", field, `${json[field]} is past ${Number.MAX_SAFE_INTEGER}, the largest integer a JSON number holds exactly here`);
    }
  }
  for (const field of DATE_FIELDS) {
    // the schema's date-time also takes a space for the T; the pipeline (java.time.OffsetDateTime) does not
    if (field in json && !/^\d{4}-\d\d-\d\d[Tt]/.test(String(json[field]))) {
      refuse("schema_violation", field, `is not an RFC 3339 date-time with a T: ${json[field]}`);
    }
  }
  if (json.valid_from !== undefined && json.valid_until !== undefined
      && !(Date.parse(String(json.valid_until)) > Date.parse(String(json.valid_from)))) {
    refuse("schema_violation", "valid_until", `${json.valid_until} is not after valid_from ${json.valid_from}`);
  }
  const doc = payload.kind === "doc";
  const field = doc ? "content" : "text";
  const size = Buffer.byteLength(String(json[field] ?? ""), "utf8");
  const limit = doc ? limits.maxDocumentBytes : limits.maxTextBytes;
  if (size > limit) {
    refuse(doc ? "document_too_large" : "text_too_large", field, `${size} bytes is over the bound of ${limit}`);
  }
}

function problem(error: ErrorObject): PayloadProblem {
  const path = error.instancePath.replace(/^\//, "");
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") {
    const missing = String(params.missingProperty);
    return { field: path ? `${path}/${missing}` : missing, message: "is required" };
  }
  if (error.keyword === "additionalProperties") {
    return { field: String(params.additionalProperty), message: "is not a field of this payload" };
  }
  if (error.keyword === "not") return { field: path, message: `must not be ${JSON.stringify(error.data)}` };
  if (error.keyword === "enum") return { field: path, message: `must be one of ${(params.allowedValues as unknown[]).join(", ")}` };
  return { field: path, message: error.message ?? error.keyword };
}

/** The fields (paths such as `source_refs/0`) whose strings hold an unpaired UTF-16 surrogate. */
function loneSurrogates(value: unknown, path = ""): string[] {
  if (typeof value === "string") return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value) ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => loneSurrogates(v, `${path}/${i}`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => loneSurrogates(v, path ? `${path}/${k}` : k));
  }
  return [];
}

// -- the producer ---------------------------------------------------------------------------------------------------

export interface KafkaProducerOptions {
  /** kafkajs client settings (ssl, sasl, clientId, logLevel, …) over Engram's; ignored when `kafka` is given. */
  kafkaConfig?: Omit<KafkaConfig, "brokers">;
  /** kafkajs producer settings over Engram's (idempotent, one request in flight, the Java client's partitioner). */
  producerConfig?: ProducerConfig;
  /** A kafkajs client the gateway already has, to make the producer with. */
  kafka?: Pick<Kafka, "producer">;
  /** Size bounds, if the pipeline runs with other ones than its defaults. */
  limits?: Partial<Limits>;
}

/**
 * Sends Engram's input payloads to Kafka: each is validated first (an invalid one throws
 * {@link InvalidPayloadError} and nothing is sent), keyed as the contract says, sent idempotently with acks from
 * every in-sync replica, and answered with where the broker stored it. The record time is the send time; the
 * pipeline reads event time from the payload's `ts`.
 */
export class EngramKafkaProducer {
  private readonly producer: Producer;
  private readonly limits: Limits;

  /** @param brokers bootstrap servers: `host:port`, several joined by commas, or a list */
  constructor(brokers: string | string[], options: KafkaProducerOptions = {}) {
    const list = (Array.isArray(brokers) ? brokers : brokers.split(",")).map((b) => b.trim()).filter((b) => b);
    const kafka = options.kafka
      ?? new Kafka({ clientId: "engram-gateway", logLevel: logLevel.WARN, ...options.kafkaConfig, brokers: list });
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // murmur2 of the key, as the Java client partitions: every producer puts a session on the same partition
      createPartitioner: Partitioners.DefaultPartitioner,
      ...options.producerConfig,
    });
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  sendTurn(turn: KafkaTurn): Promise<DeliveryReport> {
    return this.send(turnPayload(turn));
  }

  sendDocument(doc: KafkaDocument): Promise<DeliveryReport> {
    return this.send(documentPayload(doc));
  }

  sendMemory(memory: KafkaMemory): Promise<DeliveryReport> {
    return this.send(memoryPayload(memory));
  }

  sendForget(forget: KafkaForget): Promise<DeliveryReport> {
    return this.send(forgetPayload(forget));
  }

  /** Validates and sends a payload built by {@link turnPayload} and the others. */
  async send(payload: Payload): Promise<DeliveryReport> {
    validatePayload(payload, this.limits);
    const [stored] = await this.producer.send({
      topic: payload.topic,
      acks: -1,
      messages: [{ key: payload.key, value: Buffer.from(JSON.stringify(payload.json), "utf8") }],
    });
    return { topic: stored.topicName, partition: stored.partition, offset: stored.baseOffset ?? stored.offset ?? "", key: payload.key };
  }
}

/** A date-time as the payload carries it: a string as given, a Date in UTC; `now` for an absent `ts`. */
function when(value: DateTime | undefined, now = true): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  return value ?? (now ? new Date().toISOString() : undefined);
}

function withoutUndefined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null));
}
