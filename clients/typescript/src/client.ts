import { EngramError, ForgetPendingError, NotFoundError, NotSearchableError, UnavailableError, errorFor } from "./errors.js";
import type {
  ClientOptions, Context, Entity, ExportLine, Forget, MemoryType, Page, RecordType, SearchResult, StoredRecord, TurnInput,
  WriteResult,
} from "./types.js";

type Json = Record<string, any>;

/** One attempt's answer: its status, its JSON, `Retry-After` and the raw text, or the unread response of a stream. */
type Attempt = { status: number; payload: Json; retryAfter: number | undefined; raw: string; response?: Response };

/** Answers retried with backoff: 0 is a service that could not be reached or did not answer in time. */
const RETRIED = new Set([0, 429, 503]);

/**
 * A tenant's memory, as its API key reaches it (docs/api.md). Every failure the API answers is an
 * {@link EngramError} carrying the API's status and code; 429, 503 and an unreachable service are retried with
 * exponential backoff, never sooner than `Retry-After`. Writes are safe to retry: a record's id is stable, so a
 * retry rewrites the same record.
 */
export class Engram {
  private readonly url: string;
  private readonly key: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The next turn number of each session this client numbered turns of. */
  private readonly nextSeq = new Map<string, number>();
  /** Numbering runs one call at a time, so that two concurrent calls for a session never take the same numbers. */
  private numbering: Promise<unknown> = Promise.resolve();
  private tenant: string | undefined;

  constructor(url: string, apiKey: string, options: ClientOptions = {}) {
    this.url = url.replace(/\/+$/, "");
    this.key = apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 4;
    this.backoffMs = options.backoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  // -- writes ----------------------------------------------------------------------------------------------------

  /**
   * Writes turns of a conversation. `seq` is a turn's number in its session (the pipeline reads neighbouring
   * turns by it); without one, this client numbers turns after the last it numbered for the session, or, the
   * first time, after the newest stored turns. Two writers of one session must pass `seq` themselves.
   */
  async addTurns(sessionId: string, turns: TurnInput[], options: { userId?: string } = {}): Promise<WriteResult> {
    const seqs = await this.number(sessionId, turns);
    const records = turns.map((turn, i) => withoutUndefined({
      session_id: sessionId,
      user_id: turn.userId ?? options.userId,
      turn_id: turn.turnId ?? `t-${seqs[i]}`,
      seq: seqs[i],
      role: turn.role,
      text: turn.text,
      ts: turn.ts,
    }));
    return this.write("/v1/turns", records);
  }

  /**
   * Writes one of the agent's own memories. Without `memoryId` it is named by its text: writing it twice keeps one.
   * A newer memory with the same `key` (and `userId`) supersedes the older one; `supersedes` names memories it
   * replaces; `validFrom`/`validUntil` bound when it holds and `expiresAt` when it is deleted (ISO-8601 or Date).
   */
  addMemory(text: string, options: {
    memoryId?: string; type?: MemoryType; sourceRefs?: string[]; userId?: string; key?: string; supersedes?: string[];
    validFrom?: string | Date; validUntil?: string | Date; expiresAt?: string | Date;
  } = {}): Promise<WriteResult> {
    return this.write("/v1/memories", [withoutUndefined({
      text, type: options.type ?? "memory", memory_id: options.memoryId, source_refs: options.sourceRefs,
      user_id: options.userId, key: options.key, supersedes: options.supersedes, valid_from: iso(options.validFrom),
      valid_until: iso(options.validUntil), expires_at: iso(options.expiresAt),
    })]);
  }

  /**
   * Writes a version of an agent document (AGENTS.md, SOUL.md, …); the pipeline splits it into hard rules, soft
   * rules and lore, and a newer version replaces the older one's records.
   */
  addDocument(agentId: string, path: string, content: string, options: { version: number; docClass?: string }):
      Promise<WriteResult> {
    return this.write("/v1/documents", [{
      agent_id: agentId, path, content, version: options.version, doc_class: options.docClass ?? "standard",
    }]);
  }

  // -- reads -----------------------------------------------------------------------------------------------------

  /**
   * The context to read before the next model call: rules, relevant memories and the recent turns of
   * `sessionId`, within `budgetTokens` (default 2000). The rules and lore are those of `agentId`'s documents and of
   * the documents shared with every agent (written with agent `*`); without `agentId`, in a tenant whose documents
   * belong to several agents, the shared ones only. `tokensUsed` stays within the budget, leaving out the weaker
   * rules when they do not all fit (each in `excluded`), unless `allRules`: then every one of the agent's hard
   * rules is in, whatever the budget.
   */
  async context(query: string, options: {
    budgetTokens?: number; sessionId?: string; userId?: string; asOf?: string | Date; agentId?: string;
    allRules?: boolean;
  } = {}): Promise<Context> {
    const body = await this.request("POST", "/v1/context", withoutUndefined({
      query, budget_tokens: options.budgetTokens ?? 2000, session_id: options.sessionId, user_id: options.userId,
      as_of: iso(options.asOf), agent_id: options.agentId, all_rules: options.allRules ? true : undefined,
    }));
    return { ...camel(body), agentId: body.agent_id ?? null } as Context;
  }

  /**
   * Hybrid (keyword and vector) search of the tenant's records valid now (or at `asOf`), best first. With
   * `agentId`, the rules and lore of other agents' documents are left out (those of shared documents, and turns,
   * memories and summaries, stay).
   */
  async search(query: string, options: {
    k?: number; types?: RecordType[]; sessionId?: string; userId?: string; asOf?: string | Date; agentId?: string;
  } = {}): Promise<SearchResult[]> {
    const body = await this.request("POST", "/v1/search", withoutUndefined({
      query, k: options.k ?? 10, types: options.types, session_id: options.sessionId, user_id: options.userId,
      as_of: iso(options.asOf), agent_id: options.agentId,
    }));
    return body.results.map(camel) as SearchResult[];
  }

  /** One page of the tenant's records, newest first; pass `nextCursor` back for the next page. */
  async list(options: { type?: RecordType; sessionId?: string; userId?: string; limit?: number; cursor?: string } = {}):
      Promise<Page> {
    const query = new URLSearchParams(withoutUndefined({
      type: options.type, session_id: options.sessionId, user_id: options.userId,
      limit: String(options.limit ?? 20), cursor: options.cursor,
    }) as Record<string, string>);
    const body = await this.request("GET", "/v1/memories?" + query.toString());
    return { records: body.records.map(camel) as StoredRecord[], nextCursor: body.next_cursor ?? null };
  }

  /**
   * Every record of the tenant (or of a user, a session, an agent), oldest first, as the export's lines, each parsed
   * as it streams (docs/operations.md, "Export"): `turn.v1` and `memory.v1` payloads, `derived.v1` lines, and a
   * `cursor.v1` line after each page, the last with `cursor` null and the count of `records`. A stream that breaks
   * off before its last line throws an {@link UnavailableError} (code `export_incomplete`) naming the last cursor:
   * `export({ cursor })` resumes after it.
   */
  async *export(options: { userId?: string; sessionId?: string; agentId?: string; types?: RecordType[]; cursor?: string } = {}):
      AsyncGenerator<ExportLine> {
    const query = new URLSearchParams(withoutUndefined({
      user_id: options.userId, session_id: options.sessionId, agent_id: options.agentId, types: options.types?.join(","),
      cursor: options.cursor,
    }) as Record<string, string>);
    const { response } = await this.answer("GET", "/v1/export?" + query.toString(), undefined, false, true);
    let last = options.cursor ?? null;
    const broken = (why: string) => new UnavailableError(0, "export_incomplete",
      `the export ${why}: resume with cursor ${JSON.stringify(last)}`);
    let buffered = "";
    const decoder = new TextDecoder();
    const reader = response!.body!.getReader();
    try {
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch (failure) {
          throw broken(`broke off (${String((failure as Error)?.message ?? failure)})`);
        }
        if (chunk.done) throw broken("ended before its last line");
        buffered += decoder.decode(chunk.value, { stream: true });
        for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
          const line = JSON.parse(buffered.slice(0, end)) as ExportLine;
          buffered = buffered.slice(end + 1);
          yield line;
          if (line.schema === "cursor.v1") {
            if (line.cursor === null) return;
            last = line.cursor as string;
          }
        }
      }
    } finally {
      reader.releaseLock();
      await response!.body!.cancel().catch(() => undefined);
    }
  }

  /**
   * Who and what the tenant's records name, most mentioned first: a user's or a session's records, or those naming
   * `name` (it and what is named beside it).
   */
  async entities(options: { userId?: string; sessionId?: string; name?: string; limit?: number } = {}): Promise<Entity[]> {
    const query = new URLSearchParams(withoutUndefined({
      user_id: options.userId, session_id: options.sessionId, name: options.name, limit: String(options.limit ?? 20),
    }) as Record<string, string>);
    const body = await this.request("GET", "/v1/entities?" + query.toString());
    return camel(body.entities) as Entity[];
  }

  /** One record by its store id; {@link NotFoundError} when the tenant has none. */
  async get(recordId: string): Promise<StoredRecord> {
    return camel(await this.request("GET", "/v1/memories/" + encodeURIComponent(recordId))) as StoredRecord;
  }

  /**
   * Waits until every record is searchable (the pipeline has indexed it, about a second after its write):
   * read-your-writes for a caller whose next step depends on it. {@link NotSearchableError} after `timeoutMs`
   * (default 30 000).
   */
  async waitUntilSearchable(recordIds: string[], options: { timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (const recordId of recordIds) {
      for (;;) {
        try {
          await this.get(recordId);
          break;
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          if (Date.now() > deadline) throw new NotSearchableError(recordId, timeoutMs);
          await this.sleep(200);
        }
      }
    }
  }

  /** The tenant this client's key writes to and reads: store ids are `TENANT/…`. */
  async tenantId(): Promise<string> {
    if (this.tenant === undefined) {
      const body = await this.request("GET", "/v1/tenants");
      if (body.operator) throw new EngramError(400, "operator_key", "an operator key has no tenant of its own");
      this.tenant = body.tenants[0] as string;
    }
    return this.tenant;
  }

  // -- forgets ---------------------------------------------------------------------------------------------------

  /** Forgets one record and everything summarised from it. */
  async delete(recordId: string): Promise<Forget> {
    return camel(await this.request("DELETE", "/v1/memories/" + encodeURIComponent(recordId))) as Forget;
  }

  /** Forgets a conversation: its turns and the summaries made from them. */
  async forgetSession(sessionId: string): Promise<Forget> {
    return camel(await this.request("DELETE", "/v1/sessions/" + encodeURIComponent(sessionId))) as Forget;
  }

  /** Forgets a user: their records and every record of their sessions. */
  async forgetUser(userId: string): Promise<Forget> {
    return camel(await this.request("DELETE", "/v1/users/" + encodeURIComponent(userId))) as Forget;
  }

  /** Whether a forget is done, and how many records it removed. */
  async forgetStatus(forgetId: string): Promise<Forget> {
    return camel(await this.request("GET", "/v1/forgets/" + encodeURIComponent(forgetId))) as Forget;
  }

  /**
   * Waits until the pipeline has removed every record a forget covers (status `done`, seconds after the request)
   * and answers it. {@link ForgetPendingError} after `timeoutMs` (default 30 000).
   */
  async waitUntilForgotten(forgetId: string, options: { timeoutMs?: number } = {}): Promise<Forget> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const forget = await this.forgetStatus(forgetId);
      if (forget.status === "done") return forget;
      if (Date.now() > deadline) throw new ForgetPendingError(forgetId, timeoutMs);
      await this.sleep(200);
    }
  }

  // -- internals -------------------------------------------------------------------------------------------------

  private number(sessionId: string, turns: TurnInput[]): Promise<number[]> {
    const run = this.numbering.then(async () => {
      if (turns.some((t) => t.seq === undefined) && !this.nextSeq.has(sessionId)) {
        const stored = (await this.list({ type: "turn", sessionId, limit: 100 })).records;
        this.nextSeq.set(sessionId, 1 + Math.max(-1, ...stored.map((r) => r.position ?? -1)));
      }
      return turns.map((turn) => {
        const seq = turn.seq ?? this.nextSeq.get(sessionId)!;
        this.nextSeq.set(sessionId, Math.max(this.nextSeq.get(sessionId) ?? 0, seq + 1));
        return seq;
      });
    });
    this.numbering = run.catch(() => undefined);
    return run;
  }

  private async write(path: string, records: Json[]): Promise<WriteResult> {
    // A request whose every record fails validation is answered 400 with the write result: not an error.
    const body = await this.request("POST", path, records.length === 1 ? records[0] : { records }, true);
    return { accepted: body.accepted, rejected: body.rejected };
  }

  private async request(method: string, path: string, body?: unknown, rejectionsAnswer = false): Promise<Json> {
    return (await this.answer(method, path, body, rejectionsAnswer, false)).payload;
  }

  /** A 2xx answer (`streamed`: its body left unread, in `response`), after the retries; any other failure thrown. */
  private async answer(method: string, path: string, body: unknown, rejectionsAnswer: boolean, streamed: boolean):
      Promise<Attempt> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      const answered = await this.attempt(method, path, data, streamed);
      const { status, payload, retryAfter, raw } = answered;
      if (status >= 200 && status < 300) return answered;
      if (rejectionsAnswer && status === 400 && Array.isArray(payload.accepted)) return answered;
      if (RETRIED.has(status) && attempt < this.maxRetries) {
        const backoff = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** attempt * (1 + Math.random() / 10));
        await this.sleep(Math.max(backoff, (retryAfter ?? 0) * 1000));
        continue;
      }
      const error = payload.error ?? {};
      throw errorFor(status, error.code ?? `http_${status}`, error.message ?? raw.slice(0, 200), retryAfter);
    }
  }

  private async attempt(method: string, path: string, data: string | undefined, streamed: boolean): Promise<Attempt> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.key}` };
    if (data !== undefined) headers["Content-Type"] = "application/json";
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      const response = await this.fetchFn(this.url + path, { method, headers, body: data, signal: abort.signal });
      // a streamed body is read after the timer is cleared: it may take longer than one request does
      if (streamed && response.ok) return { status: response.status, payload: {}, retryAfter: undefined, raw: "", response };
      const raw = await response.text();
      return { status: response.status, payload: parse(raw), retryAfter: seconds(response.headers.get("Retry-After")), raw };
    } catch (failure) {
      const code = abort.signal.aborted ? "timeout" : "unreachable";
      const message = abort.signal.aborted ? `no answer within ${this.timeoutMs} ms` : String((failure as Error)?.message ?? failure);
      return { status: 0, payload: { error: { code, message } }, retryAfter: undefined, raw: message };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A date-time as the API takes it: an ISO-8601 string as given, a Date in UTC. */
function iso(value: string | Date | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value;
}

function withoutUndefined<T extends Json>(values: T): T {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== null)) as T;
}

/** The API's snake_case answer with camelCase names, nested objects and arrays included. */
function camel(value: any): any {
  if (Array.isArray(value)) return value.map(camel);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), camel(v)]));
}

function parse(raw: string): Json {
  try {
    const value = JSON.parse(raw || "{}");
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date. */
function seconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  const value = Number(header);
  if (header.trim() !== "" && Number.isFinite(value)) return value;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
