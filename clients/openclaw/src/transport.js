// How the plugin talks to Engram. Reads (context, search, list) and forgets go to the HTTP API; writes (turns,
// documents) go to the HTTP API too, or to Engram's Kafka topics through the TypeScript client's producer.

/**
 * @typedef {object} TurnRecord  turn.v1 without schema and tenant_id
 * @property {string} session_id
 * @property {string} [user_id]
 * @property {string} turn_id
 * @property {number} seq
 * @property {"user"|"assistant"|"tool"|"system"} role
 * @property {string} text
 * @property {string} ts
 *
 * @typedef {object} DocumentRecord  doc.v1 without schema and tenant_id
 * @property {string} agent_id
 * @property {string} path
 * @property {"core"|"standard"} doc_class
 * @property {number} version
 * @property {string} content
 * @property {boolean} [deleted]
 * @property {string} [ts]
 *
 * @typedef {{accepted: string[], rejected: {index: number, code: string, message: string}[]}} WriteResult
 *
 * @typedef {object} EngramTransport
 * @property {(records: TurnRecord[]) => Promise<WriteResult>} writeTurns
 * @property {(records: DocumentRecord[]) => Promise<WriteResult>} writeDocuments
 * @property {(body: {query: string, budget_tokens: number, agent_id?: string, session_id?: string, user_id?: string}) => Promise<any>} context
 * @property {(body: {query: string, k?: number, agent_id?: string, types?: string[], session_id?: string}) => Promise<any>} search
 * @property {(query: Record<string, string|number|undefined>) => Promise<any>} list
 * @property {(id: string) => Promise<any>} forgetMemory
 * @property {(sessionId: string) => Promise<any>} forgetSession
 * @property {() => Promise<void>} close
 */

export class EngramHttpError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(`engram ${status} ${code}: ${message}`);
    this.name = "EngramHttpError";
    this.status = status;
    this.code = code;
  }
}

const RETRYABLE = new Set([0, 429, 502, 503, 504]);

/**
 * The HTTP API (docs/api.md), with fetch. 429, 5xx gateways and unreachable services are retried a few times with
 * backoff, never sooner than Retry-After; every write is idempotent (a record's id is stable), so retries are safe.
 *
 * @param {{url: string, apiKey: string, timeoutMs?: number, retries?: number, backoffMs?: number,
 *   fetch?: typeof fetch, sleep?: (ms: number) => Promise<void>}} options
 * @returns {EngramTransport}
 */
export function createHttpTransport(options) {
  if (!options.url) throw new Error("engram: url is not configured (plugins.entries.engram.config.url or ENGRAM_URL)");
  const base = options.url.replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  const timeoutMs = options.timeoutMs ?? 10000;
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 300;

  /** @param {string} method @param {string} path @param {unknown} [body] */
  async function call(method, path, body) {
    for (let attempt = 0; ; attempt++) {
      let status = 0;
      let payload = null;
      let retryAfterMs = 0;
      let message = "";
      try {
        const res = await doFetch(base + path, {
          method,
          headers: {
            Authorization: `Bearer ${options.apiKey}`,
            Accept: "application/json",
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.status;
        const text = await res.text();
        try { payload = text ? JSON.parse(text) : null; } catch { payload = { raw: text }; }
        if (res.ok) return payload;
        const ra = res.headers.get("retry-after");
        if (ra) retryAfterMs = /^\d+$/.test(ra) ? Number(ra) * 1000 : Math.max(0, Date.parse(ra) - Date.now());
        message = payload?.error?.message ?? res.statusText;
      } catch (error) {
        status = 0;
        message = error instanceof Error ? error.message : String(error);
      }
      if (!RETRYABLE.has(status) || attempt >= retries) {
        throw new EngramHttpError(status, payload?.error?.code ?? (status === 0 ? "unavailable" : "http_error"), message);
      }
      await sleep(Math.max(retryAfterMs, backoffMs * 2 ** attempt));
    }
  }

  return {
    writeTurns: (records) => call("POST", "/v1/turns", { records }),
    writeDocuments: (records) => call("POST", "/v1/documents", { records }),
    context: (body) => call("POST", "/v1/context", body),
    search: (body) => call("POST", "/v1/search", body),
    list: (query) => {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) qs.set(k, String(v));
      return call("GET", `/v1/memories?${qs}`);
    },
    forgetMemory: (id) => call("DELETE", `/v1/memories/${encodeURIComponent(id)}`),
    forgetSession: (sessionId) => call("DELETE", `/v1/sessions/${encodeURIComponent(sessionId)}`),
    close: async () => {},
  };
}

/**
 * Writes through Kafka, reads and forgets through HTTP. The producer is the TypeScript client's
 * `EngramKafkaProducer` (package `engram`, export `engram/kafka`, on kafkajs), loaded only when this transport is
 * configured; `loadProducerModule` is replaceable for tests.
 *
 * The producer (`new EngramKafkaProducer(brokers, {kafkaConfig})`, `connect()`, `sendTurn` / `sendDocument` with
 * camelCase fields and the tenant, each validated against the published schemas and resolved with its delivery
 * report, `disconnect()`) writes Engram's topics; the records this plugin builds for the HTTP API are mapped onto it.
 *
 * @param {{http: EngramTransport, kafka: NonNullable<import("./config.js").EngramPluginConfig["kafka"]>,
 *   loadProducerModule?: () => Promise<any>}} options
 * @returns {EngramTransport}
 */
export function createKafkaTransport(options) {
  const load = options.loadProducerModule ?? (() => import("engram/kafka"));
  /** @type {Promise<any> | null} */
  let producerPromise = null;
  function producer() {
    producerPromise ??= (async () => {
      let mod;
      try {
        mod = await load();
      } catch (error) {
        throw new Error(`engram: transport kafka needs the engram package's engram/kafka export (and kafkajs) installed next to the plugin: ${error instanceof Error ? error.message : error}`);
      }
      const Producer = mod.EngramKafkaProducer ?? mod.default?.EngramKafkaProducer;
      if (typeof Producer !== "function") throw new Error("engram: engram/kafka has no EngramKafkaProducer");
      const k = options.kafka;
      const p = new Producer(k.brokers, { kafkaConfig: { clientId: k.clientId, ...(k.ssl ? { ssl: k.ssl } : {}),
        ...(k.sasl ? { sasl: k.sasl } : {}) } });
      await p.connect();
      return p;
    })();
    producerPromise.catch(() => { producerPromise = null; });
    return producerPromise;
  }
  const tenantId = options.kafka.tenantId;
  /**
   * @param {"sendTurn"|"sendDocument"} method @param {any[]} records @param {(r: any) => object} payload
   * @param {(r: any) => string} idOf
   */
  async function send(method, records, payload, idOf) {
    const p = await producer();
    const accepted = [];
    for (const record of records) {
      await p[method](payload(record));
      accepted.push(idOf(record));
    }
    return { accepted, rejected: [] };
  }
  return {
    ...options.http,
    writeTurns: (records) => send("sendTurn", records, (r) => ({ tenantId, sessionId: r.session_id,
      userId: r.user_id, turnId: r.turn_id, seq: r.seq, role: r.role, text: r.text, ts: r.ts }),
    (r) => `${r.session_id}/${r.turn_id}`),
    writeDocuments: (records) => send("sendDocument", records, (r) => ({ tenantId, agentId: r.agent_id, path: r.path,
      docClass: r.doc_class, version: r.version, content: r.content, deleted: r.deleted, ts: r.ts }),
    (r) => `${r.agent_id}/${r.path}@${r.version}`),
    close: async () => {
      if (!producerPromise) return;
      const p = await producerPromise.catch(() => null);
      producerPromise = null;
      if (p && typeof p.disconnect === "function") await p.disconnect();
    },
  };
}
