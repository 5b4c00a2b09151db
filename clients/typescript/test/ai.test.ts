// The Vercel AI SDK integration against a live Engram: the AI SDK's own generateText drives a mock model from
// its test utilities (ai/test) that calls the tools; what it writes is read back through the plain client, and
// the second tenant sees nothing of it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { engramTools, withEngramContext } from "../src/ai.js";
import { NotFoundError } from "../src/index.js";
import { PATIENCE_MS, engram, eventually, id, other, unique } from "./live.js";

type Generated = Awaited<ReturnType<MockLanguageModelV3["doGenerate"]>>;
type CallOptions = MockLanguageModelV3["doGenerateCalls"][number];

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function callTool(toolName: string, input: object): Generated {
  return {
    content: [{ type: "tool-call", toolCallId: id("call"), toolName, input: JSON.stringify(input) }],
    finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [],
  };
}

function say(text: string): Generated {
  return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
}

/** What the tool results in the prompt say, as the model would read them. */
function toolOutputs(options: CallOptions): string {
  return JSON.stringify(options.prompt.filter((m) => m.role === "tool").map((m) => m.content));
}

test("remember and recall through the tools, read back through the client; forget through the tools", async () => {
  const client = engram();
  // the run's tag in the fact and the query: the context leaves out near-duplicates of what it already holds
  const tag = id("run");
  const fact = `Ann is allergic to hazelnuts (${tag}).`;
  const query = `what is Ann allergic to (${tag})?`;
  const remembering = new MockLanguageModelV3({
    doGenerate: [callTool("remember", { text: fact }), say("Noted.")],
  });
  const remembered = await generateText({
    model: remembering, tools: engramTools(client), prompt: "Remember that Ann is allergic to hazelnuts.",
    stopWhen: stepCountIs(3),
  });
  assert.equal(remembered.text, "Noted.");
  const output = remembered.steps[0].toolResults[0].output as { remembered: boolean; id: string };
  assert.equal(output.remembered, true);
  const memoryId = output.id;
  await eventually("the remembered fact is in the client's context", async () =>
    (await client.context(query)).included.some((i) => i.id === memoryId && i.text === fact));
  assert.ok(!(await other().context(query)).included.some((i) => i.id === memoryId),
    "the other tenant's context holds nothing of it");

  // recall, then forget the id the model read in the recall's answer
  const recalling = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const seen = toolOutputs(options);
      if (!seen.includes("allergic")) return callTool("recall", { query });
      if (!seen.includes("forgetId")) return callTool("forget", { id: seen.match(new RegExp(`${tag}\\)\\. \\[([^\\]]+)\\]`))![1] });
      return say("Forgotten.");
    },
  });
  const forgotten = await generateText({
    model: recalling, tools: engramTools(client), prompt: "Forget what you know about Ann's allergy.",
    stopWhen: stepCountIs(4),
  });
  const recalled = forgotten.steps[0].toolResults[0].output as { context: string; tokensUsed: number };
  assert.ok(recalled.context.includes(`${fact} [${memoryId}]`), recalled.context);
  assert.ok(recalled.tokensUsed > 0);
  const forget = forgotten.steps[1].toolResults[0].output as { forgetId: string; status: string };
  assert.deepEqual(forgotten.steps[1].toolCalls[0].input, { id: memoryId });
  assert.equal(forget.status, "pending");
  await eventually("the forget is done", async () => (await client.forgetStatus(forget.forgetId)).status === "done");
  await assert.rejects(client.get(memoryId), NotFoundError);
  assert.equal(forgotten.text, "Forgotten.");
});

test("a rejected remember is the model's to read, not a thrown error", async () => {
  const result = await engramTools(engram()).remember.execute!({ text: "x", type: "diary" as never },
    { toolCallId: "c", messages: [] });
  assert.deepEqual(Object.keys(result as object).sort(), ["error", "remembered"]);
  assert.match((result as { error: string }).error, /^schema_violation: /);
});

test("withEngramContext puts the context before the call; the other tenant's call gets none of it", async () => {
  const client = engram();
  const session = id("s");
  const fact = unique("Ben's flight to Lisbon leaves from gate B12.");
  const written = await client.addTurns(session, [{ role: "user", text: fact }], { userId: "ben" });
  await client.waitUntilSearchable(written.accepted, { timeoutMs: PATIENCE_MS });

  const model = new MockLanguageModelV3({ doGenerate: [say("Gate B12.")] });
  const answer = await generateText({
    model: withEngramContext(model, client, { sessionId: session, userId: "ben", budgetTokens: 800 }),
    system: "You are a travel assistant.",
    prompt: "Which gate does my Lisbon flight leave from?",
  });
  assert.equal(answer.text, "Gate B12.");
  const prompt = model.doGenerateCalls[0].prompt;
  assert.equal(prompt[0].role, "system");
  assert.ok(String(prompt[0].content).includes(`${fact} [${written.accepted[0]}]`), String(prompt[0].content));
  assert.deepEqual(prompt.slice(1).map((m) => m.role), ["system", "user"], "the caller's own messages follow");

  const strangers = new MockLanguageModelV3({ doGenerate: [say("I don't know.")] });
  await generateText({
    model: withEngramContext(strangers, other(), { sessionId: session }),
    prompt: "Which gate does my Lisbon flight leave from?",
  });
  assert.ok(!JSON.stringify(strangers.doGenerateCalls[0].prompt).includes("B12"));
});
