// Using the packed `engram` package as an application would: run-live-tests installs the tarball `npm pack` made
// into an empty project, type-checks this file against its declarations, and runs it against the live Engram.
import { Engram, NotFoundError, type Context, type WriteResult } from "engram";

declare const process: { env: Record<string, string | undefined> }; // Node's; the package itself needs no @types/node

const engram = new Engram(process.env.ENGRAM_URL ?? "http://127.0.0.1:8080", process.env.ENGRAM_KEY ?? "");
const session = `usage-${Date.now()}`;

const written: WriteResult = await engram.addTurns(session, [
  { role: "user", text: "I'm allergic to hazelnuts." },
  { role: "assistant", text: "Noted - no hazelnuts." },
], { userId: "ann" });
await engram.waitUntilSearchable(written.accepted);

const context: Context = await engram.context("what can Ann eat?", { sessionId: session, budgetTokens: 1000 });
console.log(context.prompt);
if (!context.prompt.includes("hazelnuts")) throw new Error("the context does not hold the turn just written");

try {
  await engram.get(`${await engram.tenantId()}/no-such-record`);
} catch (error) {
  if (!(error instanceof NotFoundError) || error.code !== "not_found") throw error;
}
await engram.waitUntilForgotten((await engram.forgetSession(session)).forgetId);
console.log(`usage: wrote, read and forgot session ${session} through the packed engram package`);
