import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QuestionRejectCommandSchema, QuestionReplyCommandSchema } from "../lib/protocol/commands";
import { API_ROUTES, type ApiRoute } from "../lib/protocol/routes";
import { SessionJoinCommandSchema } from "../lib/protocol/socket";
import { openTab, restClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";
import { bodyAccepted, isJsonContentType } from "./fuzz/body-acceptance";
import { clipped, countCase, FUZZ_RUNS, FUZZ_SEED, runProperty, selected, stats } from "./fuzz/case-runner";
import { credentialArb, GOOD_CREDENTIAL, originArb, type HeaderPart } from "./fuzz/credentials";
import { checkAnswer, headBytes, MAX_HEAD_BYTES, send, type ProbeRequest, type ProbeResponse } from "./fuzz/http-probe";
import { mutantsOf } from "./fuzz/mutations";
import { badIdArb, longIdArb, missingIdArb, nearMissesOf } from "./fuzz/path-ids";
import { anyContentTypeArb, rawBodyArb } from "./fuzz/raw-bodies";
import { PATH_SHAPES } from "./fuzz/path-shapes";
import { BODY_SPECS, BODYLESS_WRITES, SIGNED_WRITES, keyOf, OWN_PROTOCOL_ROUTES, pathWith, STANDARD_METHODS, targetOf, uncoveredWrites, WRITE_METHODS, type BodySpec } from "./fuzz/route-specs";
import { arbitraryOf, isValid, jsonSchemaOf } from "./fuzz/schema-arbitrary";
import { refusedByTextQuestionArb } from "./fuzz/refused-answers";
import { FUZZ_PUSH_HOSTS, Sentinel } from "./fuzz/sentinel";
import { checkAck, checkErrorAck, emitForAck, emitRaw, handshake, type Ack } from "./fuzz/socket-probe";

/**
 * Property-based fuzzing of every REST route (API_ROUTES, every method, wrong ones too) and every
 * socket command against the production build: inputs derived from the zod schemas and mutated
 * away from them. Every case gets a typed 4xx JSON error (or a 2xx for a valid input) or an error
 * ack, within a few seconds; no invalid input changes the sentinel question, run or session; valid
 * inputs name ids that do not exist; the database grows by less than a bound.
 *
 * FUZZ_RUNS (cases per property), FUZZ_SEED, FUZZ_ONLY (a property's name) and FUZZ_PATH replay a
 * failure; `npm run fuzz` runs more cases.
 */

const DB_GROWTH_BOUND = 5 * 1024 * 1024;
/** Sockets close a connection on frames above this (Socket.IO's maxHttpBufferSize). */
const SOCKET_FRAME_LIMIT = 2_000_000;
const PLACEHOLDER = "\u0000sentinel";
const PROPERTY_TIMEOUT = 600_000;

let server: ServerProcess;
let dir: string;
let databaseFile: string;
let sentinel: Sentinel;
let closed: { questionId: string; answer: string; sessionId: string };
let tab: Tab;
let sizeBefore = 0;

/** Rows per table, largest first (where the growth went). */
function tableRows(): string {
  const db = new Database(databaseFile, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_prisma%'").all() as Array<{ name: string }>;
    return tables
      .map(({ name }) => [name, (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name} ${n}`)
      .join(", ");
  } finally {
    db.close();
  }
}

/**
 * The database's size on disk: its file and WAL after a checkpoint that empties the WAL (SQLite
 * lets any connection do this beside the server's), so what counts is what is stored, not how far
 * the WAL had grown before its next automatic checkpoint.
 */
async function databaseBytes(): Promise<number> {
  const db = new Database(databaseFile, { fileMustExist: true, timeout: 5_000 });
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
      if (!result?.busy) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    db.close();
  }
  return [databaseFile, `${databaseFile}-wal`].reduce((sum, f) => sum + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-fuzz-"));
  databaseFile = path.join(dir, "fuzz.db");
  server = await startServerProcess({ port: await freePort(), databaseFile, env: { PARLEY_PUSH_HOSTS: FUZZ_PUSH_HOSTS } });
  sentinel = new Sentinel(server.url);
  await sentinel.create();
  // A question already answered: late replies to it must not store anything either.
  const other = new Sentinel(server.url);
  const ids = await other.create();
  const rest = restClient(server.url);
  await rest.ok(rest.post(`/api/questions/${ids.questionId}/reply`, { value: "done" }));
  closed = { questionId: ids.questionId, answer: "done", sessionId: ids.sessionId };
  tab = await openTab(server.url);
  sizeBefore = await databaseBytes();
  console.log(`fuzz: seed ${FUZZ_SEED}, ${FUZZ_RUNS} runs per property (replay a failure with the FUZZ_SEED, FUZZ_ONLY and FUZZ_PATH it prints)`);
}, 120_000);

afterAll(async () => {
  const socketCommands = SOCKET_COMMANDS.length;
  console.log(
    `fuzz: ${stats.cases.toLocaleString("en-US")} cases in ${stats.properties} properties over ${API_ROUTES.length} routes and ${socketCommands} socket commands, ` +
      `${stats.failures.length} failure${stats.failures.length === 1 ? "" : "s"} (seed ${FUZZ_SEED})`,
  );
  tab?.disconnect();
  await server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// REST

const missingOrNearArb = fc.oneof({ weight: 3, arbitrary: missingIdArb.map((id) => ({ id })) }, { weight: 1, arbitrary: fc.nat().map((near) => ({ near })) });
type MissingChoice = { id: string } | { near: number };
function missingId(choice: MissingChoice, target: keyof Sentinel["ids"]): string {
  if ("id" in choice) return choice.id;
  const near = nearMissesOf(sentinel.ids[target]);
  return near[choice.near % near.length]!;
}
const TARGET_KEY = { session: "sessionId", question: "questionId", run: "runId", push_subscription: "pushSubscriptionId" } as const;

/** Sends one case, counts it, and checks what every answer must be. */
async function probe(req: ProbeRequest): Promise<ProbeResponse & { code: string | null }> {
  countCase();
  const res = await send(server.url, req);
  return { ...res, code: checkAnswer(req, res) };
}

const describeReq = (req: ProbeRequest, what: string) => `${req.method} ${req.path.slice(0, 120)} (${what})`;

function headersOf(parts: HeaderPart[], contentType?: string): Record<string, string> {
  return Object.assign({}, ...parts.map((p) => p.headers), contentType === undefined ? {} : { "content-type": contentType });
}

function expectStatus(res: ProbeResponse, allowed: number[] | ((status: number) => boolean), what: string): void {
  const ok = typeof allowed === "function" ? allowed(res.status) : allowed.includes(res.status);
  if (!ok) throw new Error(`${what}: answered ${res.status} ${res.text.slice(0, 300)}, expected ${typeof allowed === "function" ? "otherwise" : allowed.join(" or ")}`);
}
const is4xx = (s: number) => s >= 400 && s < 500;

/** A body the route should take, its mutations away from the schema, and bodies that are not JSON at all. */
function bodyArb(spec: BodySpec): fc.Arbitrary<{ what: string; bytes: Buffer }> {
  const schema = jsonSchemaOf(spec.schema);
  return fc.oneof(
    { weight: 3, arbitrary: arbitraryOf(schema).map((v) => ({ what: "valid-shaped", bytes: Buffer.from(JSON.stringify(v)) })) },
    { weight: 6, arbitrary: mutantsOf(schema).map((m) => ({ what: m.mutation, bytes: Buffer.from(m.text) })) },
    { weight: 2, arbitrary: rawBodyArb.map((r) => ({ what: r.what, bytes: r.bytes })) },
  );
}

/** The statuses a gate check that fails must answer with; empty when the gate lets it through. */
function gateRefusals(route: ApiRoute, parts: { credential: HeaderPart; origin: HeaderPart; chunked?: boolean }, contentType: string | undefined, bytes: Buffer): number[] {
  const refusals: number[] = [];
  if (!parts.origin.valid) refusals.push(403);
  // A chunked body is a body, even an empty one.
  if ((bytes.length > 0 || parts.chunked) && !isJsonContentType(contentType) && !route.signed) refusals.push(415);
  if (!parts.credential.valid && !route.public) refusals.push(401);
  return refusals;
}

function restRoutes() {
  return API_ROUTES.map((route) => ({ route, target: targetOf(route) }));
}

describe("fuzz: REST", () => {
  it("every write route is covered by a body spec", () => {
    expect(uncoveredWrites()).toEqual([]);
  });

  for (const { route, target } of restRoutes()) {
    const wrong = [
      ...STANDARD_METHODS.filter((m) => !route.methods.includes(m)),
      ...(route.methods.includes("GET") ? [] : ["HEAD"]),
      "PROPFIND",
      "SEARCH",
      "PURGE",
      "REPORT",
      "MKCOL",
      "LOCK",
      "TRACE",
    ];

    it(`${route.path}: wrong methods get 405 with Allow`, { timeout: PROPERTY_TIMEOUT }, async () => {
      const name = `${route.path} wrong methods`;
      const post = BODY_SPECS[keyOf("POST", route)];
      const arb = fc.record({
        method: fc.constantFrom(...wrong),
        atSentinel: fc.boolean(),
        missing: missingIdArb,
        body: post ? fc.option(arbitraryOf(jsonSchemaOf(post.schema)), { nil: undefined }) : fc.constant(undefined),
      });
      await runProperty(name, arb, async (c) => {
        const id = target ? (c.atSentinel ? sentinel.ids[TARGET_KEY[target]] : c.missing) : "";
        const body = c.body === undefined ? undefined : Buffer.from(JSON.stringify(c.body));
        const req: ProbeRequest = { method: c.method, path: pathWith(route, id), headers: headersOf([GOOD_CREDENTIAL], body ? "application/json" : undefined), body };
        const res = await probe(req);
        expectStatus(res, [405], describeReq(req, "a method the route does not answer"));
        const allow = String(res.headers.allow ?? "");
        for (const m of route.methods) if (!allow.includes(m)) throw new Error(`${describeReq(req, "wrong method")}: Allow "${allow}" lacks ${m}`);
        if (target && c.atSentinel) await sentinel.assertUnchanged(describeReq(req, "wrong method"));
      });
    });

    if (target) {
      it(`${route.path}: ids that name nothing get 400 or 404`, { timeout: PROPERTY_TIMEOUT }, async () => {
        const methods = [...route.methods, ...(route.methods.includes("GET") ? ["HEAD"] : [])];
        const arb = fc.record({
          method: fc.constantFrom(...methods),
          id: fc.oneof({ weight: 4, arbitrary: badIdArb }, { weight: 1, arbitrary: fc.nat().map((near) => ({ near })) }),
          body: fc.constant(null).chain(() => {
            const spec = BODY_SPECS[keyOf("POST", route)];
            return spec ? arbitraryOf(jsonSchemaOf(spec.schema)) : fc.constant(undefined);
          }),
        });
        await runProperty(`${route.path} ids`, arb, async (c) => {
          const id = "near" in c.id ? missingId(c.id, TARGET_KEY[target]) : c.id.id;
          const kind = "near" in c.id ? "near miss of the sentinel's id" : c.id.kind;
          const write = WRITE_METHODS.has(c.method);
          const body = write && c.body !== undefined ? Buffer.from(JSON.stringify(c.body)) : undefined;
          const req: ProbeRequest = { method: c.method, path: pathWith(route, id), headers: headersOf([GOOD_CREDENTIAL], body ? "application/json" : undefined), body };
          const res = await probe(req);
          const what = describeReq(req, `${kind} id`);
          if (kind === "malformed") expectStatus(res, [400], what);
          else if (kind === "missing" || kind === "long") expectStatus(res, [404], what);
          else expectStatus(res, is4xx, what);
          if (write && "near" in c.id) await sentinel.assertUnchanged(what);
        });
      });
    }

    it(`${route.path}: other spellings of the path get the route's answer or a typed error`, { timeout: PROPERTY_TIMEOUT }, async () => {
      const methods = [...route.methods, ...(route.methods.includes("GET") ? ["HEAD"] : [])];
      const arb = fc.record({ method: fc.constantFrom(...methods), shape: fc.constantFrom(...PATH_SHAPES), atSentinel: fc.boolean(), missing: missingIdArb });
      await runProperty(`${route.path} path shapes`, arb, async (c) => {
        const id = target ? (c.atSentinel ? sentinel.ids[TARGET_KEY[target]] : c.missing) : "";
        const write = WRITE_METHODS.has(c.method);
        // A body no route takes (strict bodies refuse the key), so a write aimed at the sentinel cannot change it.
        const body = write ? Buffer.from(JSON.stringify({ "fuzz-unknown-key": true })) : undefined;
        const req: ProbeRequest = { method: c.method, path: c.shape.shape(pathWith(route, id), server.url), headers: headersOf([GOOD_CREDENTIAL], body ? "application/json" : undefined), body };
        await probe(req);
        if (write && target && c.atSentinel) await sentinel.assertUnchanged(describeReq(req, c.shape.what));
      });
    });

    if (OWN_PROTOCOL_ROUTES.has(route.path)) continue;
    for (const method of route.methods.filter((m) => WRITE_METHODS.has(m))) {
      const key = keyOf(method, route);
      const spec = BODY_SPECS[key];
      if (spec) {
        it(`${key}: bodies away from the schema get 4xx and change nothing`, { timeout: PROPERTY_TIMEOUT }, async () => {
          const arb = fc.record({
            body: bodyArb(spec),
            contentType: anyContentTypeArb,
            credential: credentialArb,
            origin: originArb(server.url),
            missing: missingOrNearArb,
            chunked: fc.nat(4).map((n) => n === 0),
          });
          await runProperty(`${key} bodies`, arb, async (c) => {
            const refusals = gateRefusals(route, c, c.contentType, c.body.bytes);
            const accepted = refusals.length === 0 && bodyAccepted(spec, c.contentType, c.body.bytes);
            const id = target ? (accepted ? missingId(c.missing, TARGET_KEY[target]) : sentinel.ids[TARGET_KEY[target]]) : "";
            const req: ProbeRequest = { method, path: pathWith(route, id), headers: headersOf([c.credential, c.origin], c.contentType), body: c.body.bytes, chunked: c.chunked };
            const what = describeReq(req, `${c.body.what}, ${c.body.bytes.length} bytes${c.chunked ? " chunked" : ""}, ${c.contentType ?? "no content type"}, ${c.credential.what}, ${c.origin.what}`);
            const res = await probe(req);
            if (refusals.length) expectStatus(res, refusals, what);
            else if (!accepted) expectStatus(res, is4xx, what);
            else if (target) expectStatus(res, [404], what);
            if (target && !accepted) await sentinel.assertUnchanged(what);
          });
        });
      } else if (SIGNED_WRITES.has(key)) {
        it(`${key}: any body, type or origin gets a typed refusal, never a 2xx or a 5xx`, { timeout: PROPERTY_TIMEOUT }, async () => {
          const arb = fc.record({ body: fc.option(rawBodyArb, { nil: undefined }), contentType: anyContentTypeArb, credential: credentialArb, origin: originArb(server.url) });
          await runProperty(`${key} requests`, arb, async (c) => {
            const bytes = c.body?.bytes ?? Buffer.alloc(0);
            const refusals = gateRefusals(route, c, c.contentType, bytes);
            const req: ProbeRequest = { method, path: pathWith(route, "fuzz-missing"), headers: headersOf([c.credential, c.origin], c.contentType), body: bytes };
            const res = await probe(req);
            const what = describeReq(req, `${c.body?.what ?? "no body"}, ${c.contentType}, ${c.origin.what}`);
            if (refusals.length) expectStatus(res, refusals, what);
            else expectStatus(res, (s) => s >= 300 && s < 500, what);
          });
        });
      } else if (BODYLESS_WRITES.has(key)) {
        it(`${key}: any body, type or origin gets a typed answer`, { timeout: PROPERTY_TIMEOUT }, async () => {
          const arb = fc.record({ body: fc.option(rawBodyArb, { nil: undefined }), contentType: anyContentTypeArb, credential: credentialArb, origin: originArb(server.url) });
          await runProperty(`${key} requests`, arb, async (c) => {
            const bytes = c.body?.bytes ?? Buffer.alloc(0);
            const refusals = gateRefusals(route, c, c.contentType, bytes);
            const req: ProbeRequest = { method, path: route.path, headers: headersOf([c.credential, c.origin], c.contentType), body: bytes };
            const res = await probe(req);
            const what = describeReq(req, `${c.body?.what ?? "no body"}, ${c.contentType}, ${c.origin.what}`);
            if (refusals.length) expectStatus(res, refusals, what);
          });
        });
      }
    }

    if (route.methods.includes("GET")) {
      it(`GET ${route.path}: reads with any credential and query get a typed answer`, { timeout: PROPERTY_TIMEOUT }, async () => {
        const queryKeys = fc.constantFrom("session_id", "run_id", "pending_id", "id", "limit", "__proto__", "session_id[]", "");
        const queryValue = fc.oneof(
          fc.constantFrom("sentinel-session", "sentinel-run", "sentinel-pending"),
          missingIdArb,
          fc.constantFrom("", "%ff", "%E0%A4%A", "a%00b", "%"),
          longIdArb.map((s) => s.slice(0, 4_000)),
        );
        const arb = fc.record({
          method: fc.constantFrom("GET", "HEAD"),
          credential: credentialArb,
          atSentinel: fc.boolean(),
          missing: missingIdArb,
          query: fc.array(fc.tuple(queryKeys, queryValue), { maxLength: 4 }),
        });
        await runProperty(`GET ${route.path} reads`, arb, async (c) => {
          const id = target ? (c.atSentinel ? sentinel.ids[TARGET_KEY[target]] : c.missing) : "";
          const resolve = (v: string) => (v === "sentinel-session" ? sentinel.ids.sessionId : v === "sentinel-run" ? sentinel.ids.runId : v === "sentinel-pending" ? sentinel.ids.pendingId : v);
          const query = c.query.map(([k, v]) => `${k}=${resolve(v)}`).join("&");
          const req: ProbeRequest = { method: c.method, path: `${pathWith(route, id)}${query ? `?${query}` : ""}`, headers: headersOf([c.credential]) };
          const res = await probe(req);
          const what = describeReq(req, c.credential.what);
          // A long credential and a long query together can pass Node's 16 KiB limit: the parser's typed 400 answers first
          // (near the limit, where what the client adds decides, either answer is right).
          const size = headBytes(req);
          const orTooLarge = (statuses: number[]) => (size > MAX_HEAD_BYTES - 512 ? [...statuses, 400] : statuses);
          if (size > MAX_HEAD_BYTES + 512) expectStatus(res, [400], what);
          else if (!c.credential.valid && !route.public) expectStatus(res, orTooLarge([401]), what);
          else if (target && !c.atSentinel) expectStatus(res, orTooLarge([404]), what);
        });
      });
    }
  }

  for (const [key, field] of [
    ["POST /api/questions/:id/reply", "value"],
    ["POST /api/questions/:id/reject", "message"],
  ] as const) {
    const spec = BODY_SPECS[key]!;
    const route = API_ROUTES.find((r) => keyOf("POST", r) === key)!;

    it(`${key}: a valid body with a stale digest changes nothing, stores nothing large`, { timeout: PROPERTY_TIMEOUT }, async () => {
      const arb = fc.record({
        body: arbitraryOf(jsonSchemaOf(spec.schema)),
        digest: fc.string({ minLength: 1, maxLength: 80 }),
        big: fc.option(fc.integer({ min: 1_000, max: field === "value" ? 1_040_000 : 10_000 }), { freq: 2, nil: undefined }),
      });
      await runProperty(`${key} stale digest`, arb, async (c) => {
        const body = { ...(c.body as object), digest: `stale-${c.digest}`, ...(c.big ? { [field]: "s".repeat(c.big) } : {}) };
        if (!isValid(spec.schema, body)) return;
        const req: ProbeRequest = {
          method: "POST",
          path: pathWith(route, sentinel.ids.questionId),
          headers: headersOf([GOOD_CREDENTIAL], "application/json"),
          body: Buffer.from(JSON.stringify(body)),
        };
        const what = describeReq(req, `stale digest, ${req.body!.length} bytes`);
        const res = await probe(req);
        if (res.status < 300) {
          const receipt = JSON.parse(res.text) as { apply_state?: string; outcome?: string };
          if (receipt.apply_state === "applied") throw new Error(`${what}: applied with a stale digest: ${res.text.slice(0, 300)}`);
        }
        await sentinel.assertUnchanged(what);
      });
    });

    it(`${key}: replies to a closed question change nothing`, { timeout: PROPERTY_TIMEOUT }, async () => {
      const arb = fc.record({
        body: arbitraryOf(jsonSchemaOf(spec.schema)),
        big: fc.option(fc.integer({ min: 1_000, max: field === "value" ? 1_040_000 : 10_000 }), { freq: 2, nil: undefined }),
      });
      await runProperty(`${key} closed question`, arb, async (c) => {
        const body = { ...(c.body as object), ...(c.big ? { [field]: "c".repeat(c.big) } : {}) };
        if (!isValid(spec.schema, body)) return;
        const req: ProbeRequest = { method: "POST", path: pathWith(route, closed.questionId), headers: headersOf([GOOD_CREDENTIAL], "application/json"), body: Buffer.from(JSON.stringify(body)) };
        const what = describeReq(req, `closed question, ${req.body!.length} bytes`);
        const res = await probe(req);
        if (res.status < 300 && (JSON.parse(res.text) as { apply_state?: string }).apply_state === "applied") throw new Error(`${what}: applied to a closed question`);
        const now = await restClient(server.url).ok(restClient(server.url).get<{ status: string; answer: unknown }>(`/api/questions/${closed.questionId}`));
        if (now.status !== "answered" || now.answer !== closed.answer) throw new Error(`${what}: the closed question changed: ${JSON.stringify(now).slice(0, 300)}`);
      });
    });
  }

  it("requests Node's HTTP parser refuses (unknown method, a request line above 16 KiB) still get a typed JSON answer", async () => {
    if (!selected("parser refusals")) return;
    for (const req of [
      { method: "FUZZ", path: "/api/health" },
      { method: "GET", path: `/api/questions/${"i".repeat(17_000)}` },
      // HEAD's answer has no body: before, the JSON after it broke the client's parse ("Data after Connection: close").
      { method: "HEAD", path: `/api/health?q=${"i".repeat(17_000)}` },
    ] as ProbeRequest[]) {
      countCase();
      const res = await send(server.url, { ...req, headers: headersOf([GOOD_CREDENTIAL]) }).catch((err: Error) => ({ status: 0, headers: {}, text: err.message, ms: 0 }));
      expect(res.status, `${req.method} ${req.path.slice(0, 40)}…`).toBeGreaterThanOrEqual(400);
      checkAnswer(req, res);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Socket.IO

const SOCKET_COMMANDS = [
  { event: "session.join", schema: SessionJoinCommandSchema, key: "sessionId", target: "sessionId", missingAck: "error" },
  { event: "session.leave", schema: SessionJoinCommandSchema, key: "sessionId", target: "sessionId", missingAck: "any" },
  { event: "question.reply", schema: QuestionReplyCommandSchema, key: "id", target: "questionId", missingAck: "error" },
  { event: "question.reject", schema: QuestionRejectCommandSchema, key: "id", target: "questionId", missingAck: "error" },
] as const;

/** A case sent through socket.io-client (binary, odd argument lists) or as raw JSON text. */
type SocketCase = { what: string; args: unknown[] } | { what: string; json: string };

const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);
/** Puts `id` where the placeholder is (top-level arguments, or the JSON text). */
function aimed(c: SocketCase, key: string, id: string): SocketCase {
  if ("json" in c) return { ...c, json: c.json.split(PLACEHOLDER_JSON).join(JSON.stringify(id)) };
  const args = c.args.map((a) => (a && typeof a === "object" && !Array.isArray(a) && !Buffer.isBuffer(a) && (a as Record<string, unknown>)[key] === PLACEHOLDER ? { ...a, [key]: id } : a));
  return { ...c, args };
}
const argsOf = (c: SocketCase): unknown[] => ("json" in c ? (JSON.parse(c.json) as unknown[]) : c.args);
const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

async function ensureTab(): Promise<void> {
  if (tab.connected) return;
  tab.disconnect();
  tab = await openTab(server.url);
}

async function emitCase(event: string, c: SocketCase): Promise<Ack> {
  countCase();
  return "json" in c ? (await emitRaw(tab, event, c.json))! : emitForAck(tab, event, c.args);
}

describe("fuzz: Socket.IO", () => {
  for (const command of SOCKET_COMMANDS) {
    const schema = jsonSchemaOf(command.schema);
    const placeholder = { [command.key]: PLACEHOLDER };
    // JSON text only: Socket.IO's framing closes a connection on text that is not JSON, and on frames above its limit.
    const mutants = (huge: boolean) => mutantsOf(schema, { fixed: placeholder, huge }).filter((m) => m.text.length < SOCKET_FRAME_LIMIT - 1_000 && isJson(m.text));

    it(`${command.event}: payloads away from the schema get an error ack and change nothing`, { timeout: PROPERTY_TIMEOUT }, async () => {
      const mutant = mutants(true).map((m): SocketCase => ({ what: m.mutation, json: `[${m.text}]` }));
      const valid = fc.tuple(arbitraryOf(schema), missingIdArb).map(([v, id]): SocketCase => ({ what: "valid-shaped, missing id", args: [{ ...(v as object), [command.key]: id }] }));
      const odd = fc.constantFrom<SocketCase>(
        { what: "no payload", args: [] },
        { what: "a string", args: ["garbage"] },
        { what: "a number", args: [42] },
        { what: "null", args: [null] },
        { what: "true", args: [true] },
        { what: "an array", args: [[placeholder]] },
        { what: "a buffer", args: [Buffer.from("{}")] },
        { what: "an extra argument", args: [placeholder, "extra"] },
      );
      const binary = fc.tuple(fc.constantFrom(...Object.keys(schema.properties ?? {})), fc.uint8Array({ maxLength: 64 })).map(([k, b]): SocketCase => ({
        what: `${k} as binary`,
        args: [{ ...placeholder, [k]: Buffer.from(b) }],
      }));
      const arb = fc.oneof({ weight: 7, arbitrary: mutant }, { weight: 2, arbitrary: valid }, { weight: 2, arbitrary: odd }, { weight: 1, arbitrary: binary });
      await runProperty(`socket ${command.event}`, arb, async (generated) => {
        await ensureTab();
        let c = aimed(generated, command.key, sentinel.ids[command.target]);
        const args = argsOf(c);
        const accepted = args.length === 1 && isValid(command.schema, args[0]);
        // Valid after all (a mutation that kept the shape): aim it at nothing instead.
        if (accepted) c = aimed(generated, command.key, `missing-${Math.random().toString(36).slice(2)}`);
        const what = `${command.event} ${c.what}: ${clipped("json" in c ? c.json : c.args, 300)}`;
        const ack = await emitCase(command.event, c);
        if (!accepted || command.missingAck === "error") checkErrorAck(what, ack);
        else checkAck(what, ack);
        if (!accepted) await sentinel.assertUnchanged(what);
      });
    });

    it(`${command.event}: without an ack callback the server carries on`, { timeout: PROPERTY_TIMEOUT }, async () => {
      await runProperty(
        `socket ${command.event} no ack`,
        mutants(false),
        async (m) => {
          await ensureTab();
          const json = `[${m.text.split(PLACEHOLDER_JSON).join(JSON.stringify(sentinel.ids[command.target]))}]`;
          if (isValid(command.schema, (JSON.parse(json) as unknown[])[0])) return;
          countCase();
          await emitRaw(tab, command.event, json, { ack: false });
          const ack = await emitForAck(tab, "session.leave", [{ sessionId: "fuzz-probe" }]);
          if (!ack.ok) throw new Error(`after ${command.event} without an ack, a valid session.leave failed: ${JSON.stringify(ack)}`);
          await sentinel.assertUnchanged(`${command.event} ${m.mutation} without an ack`);
        },
        { runs: Math.max(5, Math.round(FUZZ_RUNS / 4)) },
      );
    });
  }

  for (const command of SOCKET_COMMANDS.filter((c) => c.event.startsWith("question."))) {
    it(`${command.event}: a valid payload with a stale digest changes nothing`, { timeout: PROPERTY_TIMEOUT }, async () => {
      const arb = fc.tuple(arbitraryOf(jsonSchemaOf(command.schema)), fc.string({ minLength: 1, maxLength: 80 }));
      await runProperty(`socket ${command.event} stale digest`, arb, async ([v, digest]) => {
        await ensureTab();
        const payload = { ...(v as object), id: sentinel.ids.questionId, digest: `stale-${digest}` };
        if (!isValid(command.schema, payload)) return;
        const what = `${command.event} stale digest: ${clipped(payload, 300)}`;
        const ack = await emitCase(command.event, { what, args: [payload] });
        checkAck(what, ack);
        if (ack.ok && (ack.data as { apply_state?: string }).apply_state === "applied") throw new Error(`${what}: applied with a stale digest`);
        await sentinel.assertUnchanged(what);
      });
    });
  }

  it("handshakes without the right token get a typed connect_error; with it, extra keys or not, they connect", { timeout: PROPERTY_TIMEOUT }, async () => {
    const token = fc.oneof(
      fc.constantFrom<unknown>(
        "",
        "wrong",
        TEST_TOKEN.toUpperCase(),
        `${TEST_TOKEN}x`,
        ` ${TEST_TOKEN}`,
        TEST_TOKEN.slice(0, -1),
        "pat_abcdefgh12345678_abcdefghijklmnopqrstuvwxyz",
        0,
        null,
        true,
        [TEST_TOKEN],
        { token: TEST_TOKEN },
      ),
      fc.jsonValue({ maxDepth: 2 }),
      fc.integer({ min: 201, max: 1_000_000 }).map((n) => "t".repeat(n)),
      fc.constant(TEST_TOKEN),
    );
    const arb = fc.record({
      token: fc.option(token, { nil: undefined }),
      extra: fc.dictionary(
        fc.string({ minLength: 1, maxLength: 10 }).filter((k) => k !== "token"),
        fc.jsonValue({ maxDepth: 1 }),
        { maxKeys: 3 },
      ),
    });
    await runProperty(
      "socket handshake",
      arb,
      async (c) => {
        const auth = { ...c.extra, ...(c.token === undefined ? {} : { token: c.token }) };
        countCase();
        const result = await handshake(server.url, auth);
        const what = `a handshake with auth ${clipped(auth, 200)}`;
        if (c.token === TEST_TOKEN) {
          if (!result.connected) throw new Error(`${what}: refused (${result.message})`);
        } else if (result.connected) throw new Error(`${what}: connected`);
        else if ((result.data as { code?: string } | undefined)?.code !== "unauthorized")
          throw new Error(`${what}: connect_error without the unauthorized code: ${result.message} ${clipped(result.data, 200)}`);
      },
      { runs: Math.max(5, Math.round(FUZZ_RUNS / 2)) },
    );
  });

  it("a frame above the socket limit closes that connection only, and changes nothing", { timeout: 60_000 }, async () => {
    if (!selected("socket frame limit")) return;
    const big = await openTab(server.url);
    const closedBy = new Promise<string>((resolve) => big.once("disconnect", (reason) => resolve(reason)));
    countCase();
    big.emit("question.reply", { id: sentinel.ids.questionId, value: "x".repeat(SOCKET_FRAME_LIMIT + 10_000) }, () => {});
    expect(await closedBy).toMatch(/transport (close|error)|io server disconnect|parse error/);
    await ensureTab();
    expect((await emitForAck(tab, "session.leave", [{ sessionId: "fuzz-probe" }])).ok).toBe(true);
    await sentinel.assertUnchanged("a frame above the socket limit");
  });
});

describe("fuzz: inputs of the right shape that their target must refuse", () => {
  it("POST /api/questions/:id/reply and question.reply: values the sentinel question cannot take get 4xx and change nothing", { timeout: PROPERTY_TIMEOUT }, async () => {
    const arb = fc.record({ refused: refusedByTextQuestionArb, digest: fc.boolean(), socket: fc.boolean(), commandId: fc.option(fc.uuid(), { nil: undefined }) });
    await runProperty("reply refused values", arb, async (c) => {
      const body = { value: c.refused.value, ...(c.digest ? { digest: sentinel.ids.digest } : {}), ...(c.commandId ? { commandId: c.commandId } : {}) };
      const what = `${c.socket ? "question.reply" : "POST reply"} with ${c.refused.what}${c.digest ? " and the question's digest" : ""}`;
      if (c.socket) {
        await ensureTab();
        checkErrorAck(what, await emitCase("question.reply", { what, args: [{ ...body, id: sentinel.ids.questionId }] }));
      } else {
        const req: ProbeRequest = {
          method: "POST",
          path: `/api/questions/${sentinel.ids.questionId}/reply`,
          headers: headersOf([GOOD_CREDENTIAL], "application/json"),
          body: Buffer.from(JSON.stringify(body)),
        };
        expectStatus(await probe(req), is4xx, what);
      }
      await sentinel.assertUnchanged(what);
    });
  });

  it("POST /api/sessions/:id/runs: functions that do not exist get 404 and start nothing", { timeout: PROPERTY_TIMEOUT }, async () => {
    const spec = BODY_SPECS["POST /api/sessions/:id/runs"]!;
    const arb = fc.tuple(arbitraryOf(jsonSchemaOf(spec.schema)), fc.string({ minLength: 1, maxLength: 60 }));
    await runProperty("start run unknown function", arb, async ([v, fn]) => {
      const body = { ...(v as object), function: `fuzz.${fn}` };
      const req: ProbeRequest = {
        method: "POST",
        path: `/api/sessions/${sentinel.ids.sessionId}/runs`,
        headers: headersOf([GOOD_CREDENTIAL], "application/json"),
        body: Buffer.from(JSON.stringify(body)),
      };
      const what = describeReq(req, `function ${clipped(body.function, 80)}`);
      const res = await probe(req);
      if (isValid(spec.schema, body)) expectStatus(res, [404], what);
      else expectStatus(res, is4xx, what);
      await sentinel.assertUnchanged(what);
    });
  });

  it("POST /api/runs/:id/resume: valid bodies at the waiting sentinel run change nothing", { timeout: PROPERTY_TIMEOUT }, async () => {
    const spec = BODY_SPECS["POST /api/runs/:id/resume"]!;
    await runProperty(
      "resume the sentinel",
      fc.option(arbitraryOf(jsonSchemaOf(spec.schema)), { nil: undefined }),
      async (v) => {
        const body = v === undefined ? undefined : Buffer.from(JSON.stringify(v));
        const req: ProbeRequest = { method: "POST", path: `/api/runs/${sentinel.ids.runId}/resume`, headers: headersOf([GOOD_CREDENTIAL], body ? "application/json" : undefined), body };
        await probe(req);
        await sentinel.assertUnchanged(describeReq(req, "resume"));
      },
      { runs: Math.max(5, Math.round(FUZZ_RUNS / 4)) },
    );
  });
});

describe("fuzz: afterwards", () => {
  it(`the database (and its WAL) grew by less than ${DB_GROWTH_BOUND / 1024 / 1024} MB`, async () => {
    const size = await databaseBytes();
    const growth = size - sizeBefore;
    console.log(`fuzz: the database grew by ${(growth / 1024).toFixed(0)} KB to ${(size / 1024).toFixed(0)} KB; rows: ${tableRows()}`);
    expect(growth).toBeLessThan(DB_GROWTH_BOUND);
    await sentinel.assertUnchanged("the whole run");
  });
});
