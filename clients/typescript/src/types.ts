/** The shapes the client takes and gives: the HTTP API's (docs/api.md), with camelCase names. */

export type Role = "user" | "assistant" | "tool" | "system";
export type MemoryType = "memory" | "lesson" | "knowledge";
export type RecordType = "turn" | "summary" | "invariant" | "lore" | MemoryType;

/** A turn to write. `seq` is its number in its session (0, 1, 2, …); without it the client numbers it. */
export interface TurnInput {
  role: Role;
  text: string;
  seq?: number;
  /** Defaults to `t-SEQ`; a turn with the same id replaces the older one. */
  turnId?: string;
  userId?: string;
  /** ISO-8601; the service uses now when absent. */
  ts?: string;
}

/** A record of a write that failed validation: its index in the request, why, and the validator's message. */
export interface Rejected {
  index: number;
  code: string;
  message: string;
}

/** The store ids of the accepted records (searchable once the pipeline indexed them) and the rejected ones. */
export interface WriteResult {
  accepted: string[];
  rejected: Rejected[];
}

export type Section = "hard_rules" | "soft_rules" | "memories" | "recent_tail";

export interface ContextItem {
  id: string;
  type: string;
  section: Section;
  tokens: number;
  score: number;
  reason: string;
  text: string;
}

export interface ExcludedItem {
  id: string;
  type: string;
  section: string;
  tokens: number;
  reason: string;
}

/** An assembled context: `prompt` is what to put before the model call, `included` what it is made of. */
export interface Context {
  tenantId: string;
  /**
   * The agent whose document rules and lore the context holds, with those of the documents shared with every
   * agent; null: the shared documents' only.
   */
  agentId: string | null;
  prompt: string;
  included: ContextItem[];
  excluded: ExcludedItem[];
  tokensUsed: number;
  budgetTokens: number;
  degraded: boolean;
  degradedReasons: string[];
}

export interface SearchResult {
  id: string;
  type: string;
  score: number;
  cosine: number;
  fused: number;
  lexicalRank?: number;
  vectorRank?: number;
  text: string;
}

/** A stored record without its vector. */
export interface StoredRecord {
  id: string;
  type: RecordType;
  text: string;
  ts: string;
  tier?: number;
  sessionId?: string;
  userId?: string;
  role?: string;
  sourceRefs?: string[];
  generation?: number;
  confidence?: number;
  agentId?: string;
  docPath?: string;
  docVersion?: number;
  /** A turn's number in its session. */
  position?: number;
  tokens?: number;
  /** A memory's slot within its user: a newer memory of the same key supersedes it. */
  key?: string;
  /** Store ids of the memories this one replaces. */
  supersedes?: string[];
  /** Store id of the memory that replaced this one, and from when (ISO-8601). */
  supersededBy?: string;
  supersededAt?: string;
  validFrom?: string;
  validUntil?: string;
  expiresAt?: string;
  /** `get` only: the store ids of its supersession chain, oldest first. */
  chain?: string[];
}

export interface Page {
  records: StoredRecord[];
  /** Pass it back as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/**
 * A line of an export (docs/operations.md, "Export"), its fields as the published schema names them (snake_case), so
 * that a `turn.v1` or `memory.v1` line can be sent back as it is: a turn's or a memory's payload, a `derived.v1` line
 * of what the pipeline derives, or a `cursor.v1` line (`cursor` null and the count of `records` on the last).
 */
export type ExportLine = { schema: "turn.v1" | "memory.v1" | "derived.v1" | "cursor.v1"; [field: string]: unknown };

/** A name the tenant's records mention (lower-cased): in how many, the names most often beside it, its newest mentions. */
export interface Entity {
  name: string;
  records: number;
  coMentions: { name: string; records: number }[];
  mentionedBy: StoredRecord[];
}

/** A forget: `status` is `pending` until the pipeline has removed every record it covers, then `done`. */
export interface Forget {
  forgetId: string;
  scope: "memory" | "session" | "user";
  target: string;
  status: "pending" | "done";
  requestedAt?: string;
  completedAt?: string;
  recordsRemoved?: number;
}

export interface ClientOptions {
  /** Per attempt; an attempt that runs out is retried like an unreachable service. Default 30 000. */
  timeoutMs?: number;
  /** Retries of 429, 503 and unreachable. Default 4. */
  maxRetries?: number;
  /** The first retry's delay, doubling after each. Default 500. */
  backoffMs?: number;
  /** The longest delay between two attempts (a longer `Retry-After` still wins). Default 30 000. */
  maxBackoffMs?: number;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
  /** How to wait between attempts; tests replace it. */
  sleep?: (ms: number) => Promise<void>;
}
