// A scripted stand-in for Engram's HTTP API (node:http): records every request, answers as docs/api.md says.
import http from "node:http";

/**
 * @param {{key?: string, contextPrompt?: (body: any) => string}} [options]
 */
export async function startFakeEngram(options = {}) {
  const key = options.key ?? "ek_test";
  /** @type {{method: string, path: string, headers: http.IncomingHttpHeaders, body: any}[]} */
  const requests = [];
  /** @type {{status: number, body?: any, headers?: Record<string, string>}[]} scripted answers, taken first */
  const failures = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => { raw += c; });
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = raw; }
      requests.push({ method: req.method ?? "", path: url.pathname + url.search, headers: req.headers, body });
      const send = (status, payload, headers = {}) => {
        res.writeHead(status, { "Content-Type": "application/json", ...headers });
        res.end(JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Bearer ${key}`) return send(401, { error: { code: "unauthorized", message: "no key" } });
      const scripted = failures.shift();
      if (scripted) return send(scripted.status, scripted.body ?? { error: { code: "unavailable", message: "scripted" } }, scripted.headers);
      const p = url.pathname;
      if (req.method === "POST" && (p === "/v1/turns" || p === "/v1/documents")) {
        const records = body?.records ?? [body];
        return send(202, {
          accepted: records.map((r) => (p === "/v1/turns" ? `t/${r.session_id}/${r.turn_id}` : `t/${r.agent_id}/${r.path}`)),
          rejected: [],
        });
      }
      if (req.method === "POST" && p === "/v1/context") {
        const prompt = options.contextPrompt ? options.contextPrompt(body) : `## Rules you must follow\n- Be kind. [t/r1]\n\n## What you remember\n- ${body.query} [t/m1]`;
        const tokens = Math.min(body.budget_tokens, Math.ceil(prompt.length / 4));
        return send(200, {
          tenant_id: "t", agent_id: body.agent_id ?? null, budget_tokens: body.budget_tokens, tokens_used: tokens,
          degraded: false, degraded_reasons: [], included: [], excluded: [], prompt,
        });
      }
      if (req.method === "POST" && p === "/v1/search") {
        return send(200, { tenant_id: "t", results: [{ id: "t/m1", type: "memory", score: 0.9, cosine: 0.8, fused: 0.9, text: `about ${body.query}` }] });
      }
      if (req.method === "DELETE" && (p.startsWith("/v1/memories/") || p.startsWith("/v1/sessions/"))) {
        return send(202, { forget_id: "f-1", scope: p.startsWith("/v1/sessions/") ? "session" : "memory", target: decodeURIComponent(p.split("/").pop() ?? ""), status: "pending", requested_at: new Date().toISOString() });
      }
      if (req.method === "GET" && p === "/v1/memories") return send(200, { records: [], next_cursor: null });
      return send(404, { error: { code: "not_found", message: p } });
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const address = /** @type {import("node:net").AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    key,
    requests,
    failures,
    /** @param {string} method @param {string} prefix */
    of: (method, prefix) => requests.filter((r) => r.method === method && r.path.startsWith(prefix)),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** An OpenClaw plugin API that records what the plugin registers. */
export function recordingApi(pluginConfig, extra = {}) {
  const api = {
    id: "engram",
    name: "Engram",
    pluginConfig,
    config: {},
    logger: { info() {}, warn(m) { api.warnings.push(m); }, error() {}, debug() {} },
    warnings: /** @type {string[]} */ ([]),
    engines: /** @type {Map<string, Function>} */ (new Map()),
    memoryCapabilities: /** @type {any[]} */ ([]),
    tools: /** @type {{factory: any, opts: any}[]} */ ([]),
    hooks: /** @type {Map<string, Function[]>} */ (new Map()),
    registerContextEngine(id, factory) { api.engines.set(id, factory); },
    registerMemoryCapability(capability) { api.memoryCapabilities.push(capability); },
    registerTool(factory, opts) { api.tools.push({ factory, opts }); },
    on(name, handler) { api.hooks.set(name, [...(api.hooks.get(name) ?? []), handler]); },
    async emit(name, event, ctx) { for (const h of api.hooks.get(name) ?? []) await h(event, ctx); },
    ...extra,
  };
  return api;
}
