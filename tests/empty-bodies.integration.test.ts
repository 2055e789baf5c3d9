import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PermissionRule, SessionRules } from "../lib/protocol/permissions";
import { restClient } from "./helpers/remote";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/** Routes that take no body take none, or `{}`: anything else is refused with 400 before anything changes (production build). */

const TIMEOUT = 60_000;
let dir: string;
let server: ServerProcess;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-empty-bodies-"));
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db") });
}, TIMEOUT);
afterAll(async () => {
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

/** A DELETE with a raw body (JSON or not). */
async function del(pathname: string, body?: string): Promise<{ status: number; body: { error?: { code: string; message: string } } & Record<string, unknown> }> {
  const res = await fetch(`${server.url}${pathname}`, {
    method: "DELETE",
    headers: { ...authHeaders(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body,
  });
  return { status: res.status, body: await res.json() };
}

it("DELETE /api/sessions/{id}/rules/{ruleId} refuses a body that is not JSON or not empty, and keeps the rule", { timeout: TIMEOUT }, async () => {
  const rest = restClient(server.url);
  const session = await rest.ok(rest.post("/api/sessions", {}));
  const add = () => rest.ok(rest.post<PermissionRule>(`/api/sessions/${session.id}/rules`, { tool: "shell", pattern: "npm test", decision: "allow" }));
  const rulesOf = async () => (await rest.ok(rest.get<SessionRules>(`/api/sessions/${session.id}/rules`))).session.map((r) => r.id);
  const rule = await add();

  const notJson = await del(`/api/sessions/${session.id}/rules/${rule.id}`, "{ not json");
  expect(notJson).toMatchObject({ status: 400, body: { error: { code: "invalid_json" } } });
  const unknownField = await del(`/api/sessions/${session.id}/rules/${rule.id}`, JSON.stringify({ force: true }));
  expect(unknownField.status).toBe(400);
  expect(unknownField.body.error!.message).toMatch(/Invalid request body.*force/);
  for (const other of ["[]", "null", '"x"', "1"]) expect((await del(`/api/sessions/${session.id}/rules/${rule.id}`, other)).status).toBe(400);
  expect(await rulesOf()).toEqual([rule.id]);

  expect(await del(`/api/sessions/${session.id}/rules/${rule.id}`, "{}")).toEqual({ status: 200, body: { removed: true } });
  const second = await add();
  expect(await del(`/api/sessions/${session.id}/rules/${second.id}`)).toEqual({ status: 200, body: { removed: true } });
  expect(await rulesOf()).toEqual([]);
});

it("the other routes without a body refuse one too: sign out, delete a session, sign out everywhere, rotate", { timeout: TIMEOUT }, async () => {
  const rest = restClient(server.url);
  const session = await rest.ok(rest.post("/api/sessions", {}));
  expect((await del("/api/auth/session", JSON.stringify({ everywhere: true }))).status).toBe(400);
  expect((await del("/api/auth/session", "{}")).status).toBe(200);
  expect((await del(`/api/sessions/${session.id}`, JSON.stringify({ force: true }))).status).toBe(400);
  expect((await rest.get(`/api/sessions/${session.id}`)).status).toBe(200);
  for (const pathname of ["/api/auth/sign-out-everywhere", "/api/auth/rotate-token"]) expect((await rest.post(pathname, { now: true })).status).toBe(400);
});
