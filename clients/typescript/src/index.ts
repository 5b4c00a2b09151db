/**
 * The TypeScript client of the Engram memory service (docs/api.md, docs/clients.md): no dependencies beyond the
 * platform's fetch, for Node 18+ and browsers.
 *
 *     import { Engram } from "engram";
 *     const engram = new Engram("http://127.0.0.1:8080", apiKey);
 *     await engram.addTurns("s-1", [{ role: "user", text: "I'm allergic to hazelnuts." }], { userId: "ann" });
 *     const { prompt } = await engram.context("what can Ann eat?", { sessionId: "s-1", budgetTokens: 1000 });
 */
export { Engram } from "./client.js";
export {
  AuthenticationError, EngramError, ForgetPendingError, InvalidRequestError, NotFoundError, NotSearchableError, PermissionDeniedError,
  RateLimitError, UnavailableError,
} from "./errors.js";
export type * from "./types.js";
