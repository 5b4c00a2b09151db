// The plugin's configuration (plugins.entries.engram.config in openclaw.json), normalized with its defaults.
import os from "node:os";
import path from "node:path";

export const DEFAULT_DOCUMENTS = Object.freeze([
  "AGENTS.md", "SOUL.md", "USER.md", "TOOLS.md", "MEMORY.md", "IDENTITY.md", "HEARTBEAT.md",
]);

/**
 * @typedef {object} EngramPluginConfig
 * @property {string} url
 * @property {string} apiKey
 * @property {"http"|"kafka"} transport
 * @property {{brokers: string[], tenantId?: string, clientId?: string,
 *   ssl?: boolean, sasl?: object} | null} kafka
 * @property {number} budgetShare
 * @property {number} defaultTokenBudget
 * @property {{documents: string[], turns: boolean, toolResults: boolean, heartbeats: boolean}} publish
 * @property {boolean} forgetOnSessionDelete
 * @property {boolean} forgetOnReset
 * @property {string} agentId
 * @property {string} stateDir
 * @property {number} timeoutMs
 * @property {number} maxTurnChars
 */

/**
 * @param {Record<string, unknown> | undefined} raw plugin config as OpenClaw validated it against the manifest
 * @param {{env?: NodeJS.ProcessEnv, stateDir?: string}} [host]
 * @returns {EngramPluginConfig}
 */
export function resolveConfig(raw, host = {}) {
  const env = host.env ?? process.env;
  const c = /** @type {any} */ (raw ?? {});
  const publish = c.publish ?? {};
  const transport = c.transport === "kafka" ? "kafka" : "http";
  const url = String(c.url ?? env.ENGRAM_URL ?? "").replace(/\/+$/, "");
  const apiKey = String(c.apiKey ?? env.ENGRAM_API_KEY ?? env.ENGRAM_KEY ?? "");
  const share = Number(c.budgetShare ?? 0.5);
  if (!Number.isFinite(share) || share < 0 || share > 1) {
    throw new Error(`engram: budgetShare must be between 0 and 1, got ${c.budgetShare}`);
  }
  let kafka = null;
  if (transport === "kafka") {
    const k = c.kafka ?? {};
    if (!Array.isArray(k.brokers) || k.brokers.length === 0) {
      throw new Error("engram: transport kafka needs kafka.brokers");
    }
    kafka = {
      brokers: k.brokers.map(String),
      tenantId: k.tenantId,
      clientId: k.clientId ?? "openclaw-engram",
      ssl: k.ssl,
      sasl: k.sasl,
    };
  }
  const stateRoot = host.stateDir ?? env.OPENCLAW_STATE_DIR ?? path.join(os.homedir(), ".openclaw");
  return {
    url,
    apiKey,
    transport,
    kafka,
    budgetShare: share,
    defaultTokenBudget: Math.max(256, Math.floor(Number(c.defaultTokenBudget ?? 32000))),
    publish: {
      documents: Array.isArray(publish.documents) ? publish.documents.map(String) : [...DEFAULT_DOCUMENTS],
      turns: publish.turns !== false,
      toolResults: publish.toolResults === true,
      heartbeats: publish.heartbeats === true,
    },
    forgetOnSessionDelete: c.forgetOnSessionDelete !== false,
    forgetOnReset: c.forgetOnReset === true,
    agentId: String(c.agentId ?? "main"),
    stateDir: c.stateDir ? String(c.stateDir) : path.join(stateRoot, "plugins", "engram"),
    timeoutMs: Math.max(100, Math.floor(Number(c.timeoutMs ?? 10000))),
    maxTurnChars: Math.max(100, Math.floor(Number(c.maxTurnChars ?? 16000))),
  };
}
