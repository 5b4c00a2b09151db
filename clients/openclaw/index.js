// @engram/openclaw: Engram as OpenClaw's context engine (plugins.slots.contextEngine = "engram") and memory
// (plugins.slots.memory = "engram"). OpenClaw loads this file (package.json "openclaw.extensions") and calls the
// default export with its plugin API.
import fs from "node:fs";
import { resolveConfig } from "./src/config.js";
import { DocumentPublisher } from "./src/documents.js";
import { ENGINE_ID, createContextEngine } from "./src/engine.js";
import { PluginState } from "./src/state.js";
import { TOOL_NAMES, createToolFactory, memoryPromptSection } from "./src/tools.js";
import { createHttpTransport, createKafkaTransport } from "./src/transport.js";

export { ENGINE_ID } from "./src/engine.js";
export { resolveConfig } from "./src/config.js";

const VERSION = (() => {
  try {
    return JSON.parse(fs.readFileSync(new URL("./package.json", import.meta.url), "utf8")).version;
  } catch {
    return undefined;
  }
})();

/**
 * Builds what the engine, the tools and the hooks share. Nothing touches the network or the disk before the first
 * call that needs it, so `openclaw plugins list` and other read-only loads cost nothing.
 *
 * @param {{pluginConfig?: Record<string, unknown>, logger?: any, stateDir?: string, env?: NodeJS.ProcessEnv,
 *   fetch?: typeof fetch, loadProducerModule?: () => Promise<any>}} options
 * @returns {import("./src/engine.js").EngramCore}
 */
export function createCore(options) {
  const config = resolveConfig(options.pluginConfig, { stateDir: options.stateDir, env: options.env });
  const logger = {
    info: (m) => options.logger?.info?.(m),
    warn: (m) => (options.logger?.warn ? options.logger.warn(m) : console.warn(m)),
  };
  /** @type {import("./src/transport.js").EngramTransport | undefined} */
  let transport;
  const getTransport = () => {
    if (transport) return transport;
    const http = createHttpTransport({ url: config.url, apiKey: config.apiKey, timeoutMs: config.timeoutMs, fetch: options.fetch });
    transport = config.transport === "kafka" && config.kafka
      ? createKafkaTransport({ http, kafka: config.kafka, loadProducerModule: options.loadProducerModule })
      : http;
    return transport;
  };
  const lazyTransport = /** @type {import("./src/transport.js").EngramTransport} */ (new Proxy({}, {
    get: (_t, prop) => {
      if (prop === "close") return () => (transport ? transport.close() : Promise.resolve());
      return /** @type {any} */ (getTransport())[prop];
    },
  }));
  /** @type {PluginState | undefined} */
  let state;
  const getState = () => (state ??= new PluginState(config.stateDir));
  const lazyState = /** @type {PluginState} */ (new Proxy({}, {
    get: (_t, prop) => {
      const s = getState();
      const v = /** @type {any} */ (s)[prop];
      return typeof v === "function" ? v.bind(s) : v;
    },
  }));
  return {
    config,
    transport: lazyTransport,
    state: lazyState,
    documents: new DocumentPublisher({ transport: lazyTransport, state: lazyState, documents: config.publish.documents, logger }),
    senders: new Map(),
    windowScale: new Map(),
    logger,
    version: VERSION,
  };
}

/**
 * The plugin's registration: OpenClaw calls it with its OpenClawPluginApi (registerContextEngine,
 * registerMemoryCapability, registerTool, on).
 * @param {any} api
 */
export default function register(api) {
  registerWith(api);
}

/**
 * The registration, with what tests replace.
 * @param {any} api
 * @param {{fetch?: typeof fetch, loadProducerModule?: () => Promise<any>, env?: NodeJS.ProcessEnv}} [overrides]
 * @returns {import("./src/engine.js").EngramCore}
 */
export function registerWith(api, overrides = {}) {
  let stateDir;
  try {
    const root = api.runtime?.state?.resolveStateDir?.();
    if (typeof root === "string" && root) stateDir = root;
  } catch {
    // no runtime state helpers in this load mode: the config's stateDir or ~/.openclaw
  }
  const core = createCore({ pluginConfig: api.pluginConfig, logger: api.logger, stateDir, ...overrides });

  api.registerContextEngine(ENGINE_ID, (ctx) => createContextEngine(core, ctx ?? {}));

  if (typeof api.registerMemoryCapability === "function") {
    api.registerMemoryCapability({ promptBuilder: memoryPromptSection });
  }
  if (typeof api.registerTool === "function") {
    api.registerTool(createToolFactory(core), { names: [...TOOL_NAMES] });
  }
  if (typeof api.on === "function") {
    // the sender of a session's newest inbound message becomes the user_id of its user turns
    api.on("message_received", (event, ctx) => {
      const key = event?.sessionKey ?? ctx?.sessionKey;
      const sender = event?.senderId ?? ctx?.senderId;
      if (key && sender) core.senders.set(key, String(sender));
    });
    api.on("session_end", async (event, ctx) => {
      const reason = event?.reason;
      const deleted = reason === "deleted";
      const reset = reason === "reset" || reason === "new";
      if (!((deleted && core.config.forgetOnSessionDelete) || (reset && core.config.forgetOnReset))) return;
      const session = event?.sessionKey ?? ctx?.sessionKey ?? event?.sessionId ?? ctx?.sessionId;
      if (!session) return;
      try {
        await core.transport.forgetSession(session);
        core.state.forgetSession(session);
        core.senders.delete(session);
      } catch (error) {
        core.logger.warn(`engram: forgetting session ${session} failed: ${error instanceof Error ? error.message : error}`);
      }
    });
    api.on("gateway_stop", async () => {
      await core.transport.close();
    });
  }
  return core;
}
