// The memory slot's agent tools: search Engram, forget one record.
import { agentOfSessionKey } from "./messages.js";

export const TOOL_NAMES = Object.freeze(["engram_search", "engram_forget"]);

/**
 * OpenClaw calls this per run with the tool context (agentId, sessionKey, …) and gets the two tools.
 * @param {import("./engine.js").EngramCore} core
 * @returns {(ctx: {agentId?: string, sessionKey?: string}) => any[]}
 */
export function createToolFactory(core) {
  return (ctx = {}) => {
    const agentId = (ctx.agentId ? String(ctx.agentId).toLowerCase() : undefined)
      ?? agentOfSessionKey(ctx.sessionKey) ?? core.config.agentId;
    return [
      {
        name: "engram_search",
        label: "Search memory",
        description: "Search long-term memory (Engram): what was said in earlier conversations, remembered facts, "
          + "and this agent's rules. Answers one line per hit: [id] (type, score) text. Use it when the memories "
          + "already in the prompt do not answer the question.",
        parameters: {
          type: "object",
          additionalProperties: false,
          properties: {
            query: { type: "string", description: "What to look for, in words." },
            k: { type: "integer", minimum: 1, maximum: 50, description: "How many hits (default 8)." },
          },
          required: ["query"],
        },
        async execute(_toolCallId, params) {
          const query = String(params?.query ?? "").trim();
          if (!query) throw new Error("query is required");
          const k = Number.isInteger(params?.k) ? Math.min(50, Math.max(1, params.k)) : 8;
          const answer = await core.transport.search({ query, k, agent_id: agentId });
          const results = Array.isArray(answer?.results) ? answer.results : [];
          const lines = results.map((r) => `[${r.id}] (${r.type}, ${Number(r.score ?? 0).toFixed(3)}) ${r.text}`);
          return {
            content: [{ type: "text", text: lines.length ? lines.join("\n") : "No memories found." }],
            details: { results },
          };
        },
      },
      {
        name: "engram_forget",
        label: "Forget a memory",
        description: "Forget one record of long-term memory (Engram) and what was built from it, by the [id] a "
          + "search or the recalled memories showed. Use it when the user asks to forget something.",
        parameters: {
          type: "object",
          additionalProperties: false,
          properties: {
            id: { type: "string", description: "The record's id, as shown in brackets." },
          },
          required: ["id"],
        },
        async execute(_toolCallId, params) {
          const id = String(params?.id ?? "").trim().replace(/^\[|\]$/g, "");
          if (!id) throw new Error("id is required");
          const answer = await core.transport.forgetMemory(id);
          return {
            content: [{ type: "text", text: `Forget requested for ${id} (${answer?.forget_id ?? "pending"}); it is removed within seconds.` }],
            details: answer ?? {},
          };
        },
      },
    ];
  };
}

/**
 * The memory slot's prompt section: tells the model what the tools are for, when it has them.
 * @param {{availableTools?: Set<string>}} params
 */
export function memoryPromptSection(params) {
  const tools = params?.availableTools;
  const has = (name) => !tools || tools.has(name);
  const lines = [];
  if (has("engram_search") || has("engram_forget")) {
    lines.push("## Memory");
    lines.push("Your long-term memory is Engram. Rules, memories and the conversation so far that matter to the "
      + "current message are recalled into this prompt before each reply, each with its [id].");
    if (has("engram_search")) lines.push("- To look up something the recalled memories do not cover, use engram_search.");
    if (has("engram_forget")) lines.push("- When the user asks you to forget something, use engram_forget with its [id].");
  }
  return lines;
}
