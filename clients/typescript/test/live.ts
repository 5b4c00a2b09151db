// What the live suites share: the two tenants' clients of the Engram that run-live-tests started, and waiting on
// a condition with a deadline.
import { randomUUID } from "node:crypto";
import { setTimeout as pause } from "node:timers/promises";
import { Engram } from "../src/index.js";

export const PATIENCE_MS = 90_000;

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is unset: run clients/run-live-tests, which starts Engram and sets it`);
  return value;
}

export const url = () => env("ENGRAM_URL");
export const engram = () => new Engram(url(), env("ENGRAM_KEY"));
export const other = () => new Engram(url(), env("ENGRAM_OTHER_KEY"));

export async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + PATIENCE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${PATIENCE_MS} ms`);
    await pause(300);
  }
}

export const unique = (text: string) => `${text} (run ${randomUUID().slice(0, 8)})`;
export const id = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
