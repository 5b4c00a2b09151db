// The context engine OpenClaw resolves through plugins.slots.contextEngine = "engram"
// (ContextEngine in openclaw's src/context-engine/types.ts, 2026.9.6).
import {
  agentOfSessionKey, clip, contentTurnId, lastUserText, messageTime, newestWithin, turnOf,
} from "./messages.js";

export const ENGINE_ID = "engram";

/**
 * What the engines of one plugin load share: the transport, the state, the document publisher, and what the
 * plugin's hooks learned (the sender of each session's newest inbound message, each session's agent).
 *
 * @typedef {object} EngramCore
 * @property {import("./config.js").EngramPluginConfig} config
 * @property {import("./transport.js").EngramTransport} transport
 * @property {import("./state.js").PluginState} state
 * @property {import("./documents.js").DocumentPublisher} documents
 * @property {Map<string, string>} senders session key -> sender id
 * @property {Map<string, number>} windowScale session -> share of the messages' budget left after compact()
 * @property {{info?: (m: string) => void, warn: (m: string) => void}} logger
 * @property {string} [version]
 */

/**
 * @param {EngramCore} core
 * @param {{config?: unknown, agentDir?: string, workspaceDir?: string}} [ctx] OpenClaw's ContextEngineFactoryContext
 */
export function createContextEngine(core, ctx = {}) {
  const { config, transport, state, documents, senders, logger } = core;
  const workspaceDir = ctx.workspaceDir;

  /** @param {string} sessionId @param {string | undefined} sessionKey */
  const sessionOf = (sessionId, sessionKey) => sessionKey || sessionId;
  /** @param {string | undefined} sessionKey @param {string} [explicit] */
  const agentOf = (sessionKey, explicit) => (explicit ? explicit.toLowerCase() : undefined) ?? agentOfSessionKey(sessionKey) ?? config.agentId;

  /**
   * Turn records for messages, each numbered and named by `ids(i)`.
   * @param {any[]} messages @param {string} session @param {string | undefined} sessionKey
   * @param {(i: number, message: any, turn: {role: string, text: string}) => {turn_id: string, seq: number}} ids
   */
  function records(messages, session, sessionKey, ids) {
    const userId = sessionKey ? senders.get(sessionKey) : undefined;
    /** @type {import("./transport.js").TurnRecord[]} */
    const out = [];
    messages.forEach((message, i) => {
      const turn = turnOf(message, config.publish);
      if (!turn) return;
      const { turn_id, seq } = ids(i, message, turn);
      out.push({
        session_id: session,
        ...(userId && turn.role === "user" ? { user_id: userId } : {}),
        turn_id,
        seq,
        role: /** @type {any} */ (turn.role),
        text: clip(turn.text, config.maxTurnChars),
        ts: messageTime(message),
      });
    });
    return out;
  }

  /** @param {import("./transport.js").TurnRecord[]} recs */
  async function write(recs) {
    if (recs.length === 0) return 0;
    const result = await transport.writeTurns(recs);
    for (const r of result?.rejected ?? []) {
      // a record Engram refuses (schema, size) would be refused again: say so, do not retry it forever
      logger.warn(`engram: turn ${recs[r.index]?.turn_id} of ${recs[r.index]?.session_id} refused: ${r.code}: ${r.message}`);
    }
    return recs.length - (result?.rejected?.length ?? 0);
  }

  /** @param {boolean | undefined} isHeartbeat */
  const skip = (isHeartbeat) => !config.publish.turns || (isHeartbeat === true && !config.publish.heartbeats);

  /** Messages written one by one (ingest, ingestBatch): numbered by a per-session counter the plugin keeps. */
  async function ingestMessages(sessionId, sessionKey, messages, isHeartbeat) {
    if (skip(isHeartbeat) || messages.length === 0) return 0;
    const session = sessionOf(sessionId, sessionKey);
    const first = state.takeSeq(session, messages.length);
    return write(records(messages, session, sessionKey, (i, m, t) => ({ turn_id: contentTurnId(m, t), seq: first + i })));
  }

  /** @type {Map<string, number>} */
  const lastEstimate = new Map();

  /** @type {any} */
  const engine = {
    info: {
      id: ENGINE_ID,
      name: "Engram",
      ...(core.version ? { version: core.version } : {}),
      ownsCompaction: true,
      transcriptSemantics: {
        currentTurnFence: "before-current-turn-entry-v1",
        turnAdvancementIdempotency: "atomic-idempotent-v1",
      },
      acceptedHostParams: ["sessionKey", "prompt", "runtimeSettings", "runtimeContext", "sessionTarget", "abortSignal"],
    },

    /** One message: ingest({sessionId, sessionKey?, message, isHeartbeat?}) -> {ingested} */
    async ingest({ sessionId, sessionKey, message, isHeartbeat }) {
      const n = await ingestMessages(sessionId, sessionKey, [message], isHeartbeat);
      return { ingested: n > 0 };
    },

    /** A completed turn: ingestBatch({sessionId, sessionKey?, messages, isHeartbeat?}) -> {ingestedCount} */
    async ingestBatch({ sessionId, sessionKey, messages, isHeartbeat }) {
      return { ingestedCount: await ingestMessages(sessionId, sessionKey, messages ?? [], isHeartbeat) };
    },

    /**
     * After a run (and within a tool loop) on hosts without durable turns: messages is the transcript,
     * prePromptMessageCount how many of them preceded this prompt. The new ones are written, numbered by their
     * place in the transcript, named by their content (the same message written twice is one turn).
     */
    async afterTurn({ sessionId, sessionKey, messages, prePromptMessageCount, isHeartbeat }) {
      core.windowScale.delete(sessionOf(sessionId, sessionKey));
      if (skip(isHeartbeat)) return;
      const all = messages ?? [];
      const from = Math.max(0, Math.min(all.length, prePromptMessageCount ?? 0));
      const session = sessionOf(sessionId, sessionKey);
      await write(records(all.slice(from), session, sessionKey, (i, m, t) => ({ turn_id: contentTurnId(m, t), seq: from + i })));
    },

    /**
     * A durable accepted turn: messages from the admitted user entry through the terminal entry. Each becomes a
     * turn named by OpenClaw's transcript entry id (the user message's entryId; the others entryId.N) and numbered
     * by its position in the active transcript, so a retry rewrites the same turns. Atomic for OpenClaw: it
     * resolves only once Engram accepted the whole batch, and throws otherwise (the host keeps it queued).
     */
    async commitTurn({ advancementKey, admission, messages, sessionId, sessionKey, isHeartbeat }) {
      const key = sessionKey ?? admission?.sessionKey;
      const session = sessionOf(sessionId ?? admission?.sessionId, key);
      core.windowScale.delete(session);
      if (state.hasCommit(advancementKey)) return { status: "duplicate" };
      if (!skip(isHeartbeat)) {
        const base = admission?.entryId ?? advancementKey;
        const position = Number.isInteger(admission?.activeMessagePosition) ? admission.activeMessagePosition : 0;
        await write(records(messages ?? [], session, key, (i) => ({ turn_id: i === 0 ? base : `${base}.${i}`, seq: position + i })));
      }
      state.addCommit(advancementKey);
      return { status: "committed" };
    },

    /**
     * Before each model run: OpenClaw's newest messages plus Engram's context for the newest user message.
     * Engram gets floor(budgetShare × tokenBudget) tokens (its tokens_used never exceeds them) and answers the
     * agent's rules, the memories the query finds and the session's recent tail, dated, as one prompt: the
     * systemPromptAddition. The messages fill the rest of the budget, newest first, whole turns only.
     */
    async assemble(params) {
      const { sessionId, sessionKey, messages = [], prompt, runtimeSettings, runtimeContext } = params;
      const session = sessionOf(sessionId, sessionKey);
      const agentId = agentOf(sessionKey);
      const tokenBudget = positive(params.tokenBudget)
        ?? positive(runtimeSettings?.limits?.promptTokenBudget)
        ?? positive(runtimeContext?.tokenBudget)
        ?? config.defaultTokenBudget;
      const engramBudget = Math.floor(config.budgetShare * tokenBudget);

      try {
        await documents.sync(agentId, workspaceDir);
      } catch (error) {
        logger.warn(`engram: publishing the workspace documents of ${agentId} failed: ${message(error)}`);
      }

      let addition;
      let used = 0;
      const query = (typeof prompt === "string" && prompt.trim()) || lastUserText(messages);
      if (engramBudget > 0 && query) {
        try {
          const userId = sessionKey ? senders.get(sessionKey) : undefined;
          const context = await transport.context({
            query: clip(query, 4000),
            agent_id: agentId,
            session_id: session,
            ...(userId ? { user_id: userId } : {}),
            budget_tokens: engramBudget,
          });
          used = Math.min(engramBudget, Number(context?.tokens_used ?? 0));
          if (typeof context?.prompt === "string" && context.prompt.trim()) addition = context.prompt;
        } catch (error) {
          // Engram unreachable: the run goes on with the transcript alone (throwing would quarantine the engine)
          logger.warn(`engram: context for ${session} failed, assembling without it: ${message(error)}`);
        }
      }
      const scale = core.windowScale.get(session) ?? 1;
      const window = newestWithin(messages, Math.max(0, Math.floor((tokenBudget - used) * scale)));
      const estimatedTokens = window.tokens + used;
      lastEstimate.set(session, estimatedTokens);
      return {
        messages: window.messages,
        estimatedTokens,
        ...(addition ? { systemPromptAddition: addition } : {}),
      };
    },

    /**
     * Engram compacts the conversation itself (windows of turns into summaries, in its pipeline), and keeps
     * every turn the plugin wrote, so nothing is summarized away here and nothing is deleted from Engram.
     * What compaction can still do for OpenClaw is to shrink the window of transcript messages assemble()
     * sends: each compact() halves it for the session (down to an eighth) until the next turn is written.
     */
    async compact({ sessionId, sessionKey, currentTokenCount }) {
      const session = sessionOf(sessionId, sessionKey);
      const scale = core.windowScale.get(session) ?? 1;
      const next = Math.max(0.125, scale / 2);
      core.windowScale.set(session, next);
      const before = positive(currentTokenCount) ?? lastEstimate.get(session) ?? 0;
      return {
        ok: true,
        compacted: next < scale,
        reason: next < scale
          ? `engram keeps every turn; assemble now sends ${next * 100}% of the message window`
          : "engram keeps every turn; the message window is already at its smallest",
        result: {
          tokensBefore: before,
          details: { engine: ENGINE_ID, windowScale: next },
        },
      };
    },

    /** A subagent run ends: nothing to release (its turns are its session's). */
    async onSubagentEnded() {},

    async dispose() {},
  };
  return engine;
}

/** @param {unknown} v */
function positive(v) {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

/** @param {unknown} error */
function message(error) {
  return error instanceof Error ? error.message : String(error);
}
