/**
 * Engram in the Vercel AI SDK (`ai` 6): memory tools a model calls, and a middleware that puts the context of the
 * user's last message before every model call. `ai` is a peer dependency of this entry point only.
 *
 *     import { engramTools, withEngramContext } from "engram/ai";
 *     const result = await generateText({
 *       model: withEngramContext(model, engram, { sessionId: "s-1" }),
 *       tools: engramTools(engram),
 *       prompt: "What can Ann eat on Friday?",
 *     });
 */
import { jsonSchema, tool, wrapLanguageModel, type LanguageModelMiddleware } from "ai";
import type { Engram } from "./client.js";
import type { MemoryType } from "./types.js";

/** The model `wrapLanguageModel` wraps: a provider's language model (specification v3). */
export type WrappableModel = Parameters<typeof wrapLanguageModel>[0]["model"];

export interface ContextOptions {
  /** The conversation whose recent turns the context ends with. */
  sessionId?: string;
  /** Whose memories rank first. */
  userId?: string;
  /** Default 2000. */
  budgetTokens?: number;
  /** The agent whose document rules and lore the context holds, with the shared documents'. */
  agentId?: string;
  /** Every one of the agent's hard rules, whatever the budget. */
  allRules?: boolean;
}

/**
 * `remember`, `recall` and `forget` as AI SDK tools over `client`'s tenant — the same three operations as the MCP
 * endpoint's tools. `recall` answers the context as text with each item's `[id]`, for `options.agentId` when
 * given; `forget` takes such an id.
 */
export function engramTools(client: Engram, options: ContextOptions = {}) {
  return {
    remember: tool({
      description: "Remember a fact, preference or lesson for later conversations. Searchable about a second later.",
      inputSchema: jsonSchema<{ text: string; type?: MemoryType }>({
        type: "object",
        properties: {
          text: { type: "string", minLength: 1, description: "What to remember, as one self-contained sentence." },
          type: { type: "string", enum: ["memory", "lesson", "knowledge"], description: "Default memory." },
        },
        required: ["text"],
        additionalProperties: false,
      }),
      execute: async ({ text, type }) => {
        const written = await client.addMemory(text, { type });
        if (written.accepted.length === 0) {
          const why = written.rejected[0];
          return { remembered: false, error: `${why?.code}: ${why?.message}` };
        }
        return { remembered: true, id: written.accepted[0] };
      },
    }),
    recall: tool({
      description: "Recall what you know that is relevant to a query: rules to follow, memories, the conversation so far.",
      inputSchema: jsonSchema<{ query: string; budget_tokens?: number }>({
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, description: "What you need to know." },
          budget_tokens: { type: "integer", minimum: 1, description: "Most tokens to recall; default 2000." },
        },
        required: ["query"],
        additionalProperties: false,
      }),
      execute: async ({ query, budget_tokens }) => {
        const context = await client.context(query, {
          sessionId: options.sessionId, userId: options.userId, budgetTokens: budget_tokens ?? options.budgetTokens,
          agentId: options.agentId, allRules: options.allRules,
        });
        return { context: context.prompt, tokensUsed: context.tokensUsed };
      },
    }),
    forget: tool({
      description: "Forget one memory, by the id shown in [brackets] after it when recalled.",
      inputSchema: jsonSchema<{ id: string }>({
        type: "object",
        properties: { id: { type: "string", minLength: 1, description: "The memory's id, without the brackets." } },
        required: ["id"],
        additionalProperties: false,
      }),
      execute: async ({ id }) => {
        const forget = await client.delete(id);
        return { forgetId: forget.forgetId, status: forget.status };
      },
    }),
  };
}

/**
 * A middleware that reads Engram's context for the text of the prompt's last user message and puts it first, as a
 * system message, in every call of the wrapped model. A prompt without a user message is passed on unchanged.
 */
export function engramContextMiddleware(client: Engram, options: ContextOptions = {}): LanguageModelMiddleware {
  return {
    specificationVersion: "v3",
    transformParams: async ({ params }) => {
      const query = lastUserText(params.prompt);
      if (query === "") return params;
      const context = await client.context(query, options);
      if (context.prompt === "") return params;
      return { ...params, prompt: [{ role: "system", content: context.prompt }, ...params.prompt] };
    },
  };
}

/** `model`, wrapped so that each call starts with Engram's context ({@link engramContextMiddleware}). */
export function withEngramContext(model: WrappableModel, client: Engram, options: ContextOptions = {}): WrappableModel {
  return wrapLanguageModel({ model, middleware: engramContextMiddleware(client, options) });
}

type Prompt = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"]["prompt"];

function lastUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message.role === "user") {
      return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n").trim();
    }
  }
  return "";
}
