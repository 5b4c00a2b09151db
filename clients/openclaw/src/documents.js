// An agent's workspace files (AGENTS.md, SOUL.md, …) as its Engram documents: published when they change, with an
// increasing version; a file whose content did not change (same sha256) is not sent again, and a file removed
// after it was published is published as deleted.
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

const CHECK_INTERVAL_MS = 2000;

export class DocumentPublisher {
  /**
   * @param {{transport: import("./transport.js").EngramTransport, state: import("./state.js").PluginState,
   *   documents: string[], logger?: {warn: (m: string) => void}, now?: () => number}} options
   */
  constructor(options) {
    this.transport = options.transport;
    this.state = options.state;
    this.documents = options.documents;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    /** @type {Map<string, number>} agent/workspace -> last check time */
    this.checked = new Map();
    /** @type {Map<string, Promise<number>>} */
    this.running = new Map();
  }

  /**
   * Publishes what changed in one agent's workspace, at most once every two seconds per agent and workspace
   * (`force` checks now). Resolves to the number of documents sent.
   * @param {string} agentId @param {string | undefined} workspaceDir @param {{force?: boolean}} [opts]
   */
  sync(agentId, workspaceDir, opts = {}) {
    if (!workspaceDir || this.documents.length === 0) return Promise.resolve(0);
    const key = `${agentId}\u0000${workspaceDir}`;
    const inflight = this.running.get(key);
    if (inflight) return inflight;
    const last = this.checked.get(key);
    if (!opts.force && last !== undefined && this.now() - last < CHECK_INTERVAL_MS) return Promise.resolve(0);
    const run = this.#sync(agentId, workspaceDir).finally(() => {
      this.checked.set(key, this.now());
      this.running.delete(key);
    });
    this.running.set(key, run);
    return run;
  }

  /** @param {string} agentId @param {string} workspaceDir */
  async #sync(agentId, workspaceDir) {
    /** @type {import("./transport.js").DocumentRecord[]} */
    const records = [];
    /** @type {[string, any][]} */
    const updates = [];
    for (const rel of this.documents) {
      const stateKey = `${agentId}\u0000${rel}`;
      const prev = this.state.data.docs[stateKey];
      const file = path.resolve(workspaceDir, rel);
      let stat;
      try {
        stat = await fs.stat(file);
      } catch {
        stat = null;
      }
      if (!stat || !stat.isFile()) {
        if (prev && !prev.deleted) {
          const version = prev.version + 1;
          records.push({ agent_id: agentId, path: rel, doc_class: "core", version, content: "", deleted: true, ts: new Date(this.now()).toISOString() });
          updates.push([stateKey, { ...prev, version, deleted: true }]);
        }
        continue;
      }
      if (prev && !prev.deleted && prev.mtimeMs === stat.mtimeMs && prev.size === stat.size) continue;
      const content = await fs.readFile(file, "utf8");
      const sha = createHash("sha256").update(content).digest("hex");
      if (prev && !prev.deleted && prev.sha === sha) {
        updates.push([stateKey, { ...prev, mtimeMs: stat.mtimeMs, size: stat.size }]);
        continue;
      }
      // increasing across restarts and lost state alike: the file's mtime in ms, past the last version sent
      const version = Math.max((prev?.version ?? 0) + 1, Math.floor(stat.mtimeMs));
      records.push({ agent_id: agentId, path: rel, doc_class: "core", version, content, ts: new Date(stat.mtimeMs).toISOString() });
      updates.push([stateKey, { sha, version, mtimeMs: stat.mtimeMs, size: stat.size }]);
    }
    if (records.length > 0) {
      const result = await this.transport.writeDocuments(records);
      for (const r of result?.rejected ?? []) {
        this.logger?.warn(`engram: document ${records[r.index]?.path} of agent ${agentId} refused: ${r.code}: ${r.message}`);
      }
    }
    if (updates.length > 0) {
      for (const [k, v] of updates) this.state.data.docs[k] = v;
      this.state.save();
    }
    return records.length;
  }
}
