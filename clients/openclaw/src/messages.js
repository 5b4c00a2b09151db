// OpenClaw's AgentMessage (user, assistant, toolResult, and the harness's bashExecution, custom,
// compactionSummary, branchSummary) as Engram turns, and the token arithmetic of assembly.
import { createHash } from "node:crypto";

/** @param {unknown} content string or [{type: "text", text} | {type: "image"} | {type: "toolCall"} | ...] */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts = [];
  for (const part of content) {
    if (part && typeof part === "object") {
      if (part.type === "text" && typeof part.text === "string") parts.push(part.text);
    }
  }
  return parts.join("\n");
}

/**
 * The Engram role and text of one message, or null when it is not a turn (empty, a summary, an excluded custom
 * message, a tool result when those are not published).
 *
 * @param {any} message
 * @param {{toolResults: boolean}} publish
 * @returns {{role: "user"|"assistant"|"tool"|"system", text: string} | null}
 */
export function turnOf(message, publish) {
  if (!message || typeof message !== "object") return null;
  let role;
  let text;
  switch (message.role) {
    case "user":
      role = "user";
      text = contentText(message.content);
      break;
    case "assistant":
      role = "assistant";
      text = contentText(message.content);
      break;
    case "toolResult":
      if (!publish.toolResults) return null;
      role = "tool";
      text = `${message.toolName ?? "tool"}: ${contentText(message.content)}`;
      break;
    case "bashExecution":
      if (!publish.toolResults || message.excludeFromContext) return null;
      role = "tool";
      text = `$ ${message.command}\n${message.output ?? ""}`;
      break;
    default:
      // custom (application messages), compactionSummary, branchSummary: not something anyone said
      return null;
  }
  text = text.trim();
  return text ? { role, text } : null;
}

/** @param {string} text @param {number} maxChars */
export function clip(text, maxChars) {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}

/** @param {any} message @returns {string} ISO time of the message (now when it has none) */
export function messageTime(message) {
  const t = message?.timestamp;
  const ms = typeof t === "number" ? t : typeof t === "string" ? Date.parse(t) : NaN;
  return new Date(Number.isFinite(ms) ? ms : Date.now()).toISOString();
}

/**
 * A stable turn id for a message that carries no id of its own: the same message (role, time, text) gives the same
 * id, so writing it again replaces the turn instead of adding one.
 * @param {any} message @param {{role: string, text: string}} turn
 */
export function contentTurnId(message, turn) {
  const h = createHash("sha256").update(`${turn.role}\n${message?.timestamp ?? ""}\n${turn.text}`).digest("hex");
  return `oc-${h.slice(0, 24)}`;
}

/** Rough token count (4 characters a token, as OpenClaw's own estimates), never 0 for a message. */
export function estimateTokens(message) {
  if (!message || typeof message !== "object") return 1;
  let chars = 0;
  const add = (v) => { if (typeof v === "string") chars += v.length; };
  add(message.summary);
  add(message.command);
  add(message.output);
  const content = message.content;
  if (typeof content === "string") chars += content.length;
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (!part || typeof part !== "object") continue;
      if (part.type === "text") add(part.text);
      else if (part.type === "thinking") add(part.thinking);
      else if (part.type === "toolCall") chars += JSON.stringify(part.arguments ?? {}).length + String(part.name ?? "").length;
      else if (part.type === "image") chars += 4 * 1000; // images cost about a thousand tokens
    }
  }
  return Math.ceil(chars / 4) + 4;
}

/**
 * The newest messages that fit `budget` tokens, starting at a user message so that no tool result loses its call.
 * The last user message and what follows it are always kept (the turn in progress), even over the budget.
 *
 * @param {any[]} messages @param {number} budget
 * @returns {{messages: any[], tokens: number}}
 */
export function newestWithin(messages, budget) {
  const n = messages.length;
  if (n === 0) return { messages: [], tokens: 0 };
  const cost = messages.map(estimateTokens);
  let lastUser = -1;
  for (let i = n - 1; i >= 0; i--) if (messages[i]?.role === "user") { lastUser = i; break; }
  let start = lastUser >= 0 ? lastUser : n;
  let total = 0;
  for (let i = start; i < n; i++) total += cost[i];
  // walk back turn by turn (a turn starts at a user message)
  let i = start - 1;
  let pending = 0;
  for (; i >= 0; i--) {
    pending += cost[i];
    if (messages[i]?.role === "user") {
      if (total + pending > budget) break;
      total += pending;
      pending = 0;
      start = i;
    }
  }
  if (lastUser >= 0 && i < 0 && pending > 0 && total + pending <= budget) {
    // what precedes the first user message (a summary of compacted history, say) fits too
    total += pending;
    start = 0;
  }
  if (lastUser < 0 && start === n) {
    // no user message at all: keep the newest messages that fit
    start = n;
    total = 0;
    while (start > 0 && total + cost[start - 1] <= budget) total += cost[--start];
  }
  return { messages: messages.slice(start), tokens: total };
}

/** The text of the newest user message (the query for Engram's context). */
export function lastUserText(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") {
      const text = contentText(messages[i].content).trim();
      if (text) return text;
    }
  }
  return "";
}

/**
 * The agent a session key belongs to: OpenClaw's keys are `agent:<agentId>:<rest>`.
 * @param {string | undefined} sessionKey @returns {string | undefined}
 */
export function agentOfSessionKey(sessionKey) {
  if (typeof sessionKey !== "string" || sessionKey.slice(0, 6).toLowerCase() !== "agent:") return undefined;
  const end = sessionKey.indexOf(":", 6);
  if (end === -1) return undefined;
  const id = sessionKey.slice(6, end).trim().toLowerCase();
  const rest = sessionKey.slice(end + 1);
  return id && rest && !rest.startsWith(":") ? id : undefined;
}
