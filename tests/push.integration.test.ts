import { execFileSync } from "node:child_process";
import { createECDH, createPublicKey, randomBytes, randomUUID, verify, type ECDH } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fakeSw, sentJson, type FakeSw } from "../lib/client/push/fake-sw-env";
import { handleNotificationClick } from "../lib/client/push/sw-click";
import { handlePush } from "../lib/client/push/sw-push";
import { ReplyReceiptSchema } from "../lib/protocol/commands";
import type { Run, Session } from "../lib/protocol/entities";
import { PushDevicesSchema, PushKeySchema, PushPayloadSchema, type PushPayload } from "../lib/protocol/push";
import type { Question } from "../lib/protocol/question";
import { SURFACE_HEADER } from "../lib/protocol/rest";
import { createApiToken } from "./helpers/api-token";
import { addPeople } from "./helpers/people";
import { eventOn, joinSession, openTab, poll, restClient, type RestClient, type Tab } from "./helpers/remote";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/**
 * Web Push against the production server, with a push service of the test's own on 127.0.0.1 over
 * HTTPS (a certificate made here, trusted by the server through NODE_EXTRA_CA_CERTS): it checks
 * each push's VAPID signature against the server's public key and decrypts it with the keys of a
 * fake subscription the test made, as a browser would.
 */

const ece = createRequire(import.meta.url)("http_ece") as { decrypt(buffer: Buffer, params: { version: string; privateKey: ECDH; authSecret: string }): Buffer };

interface Received {
  /** The subscription's id in the endpoint's path. */
  device: string;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** The test's push service: every push it is sent, answered with the status `answer` gives for its device (201 by default). */
async function pushService(certFile: string, keyFile: string) {
  const received: Received[] = [];
  const answers = new Map<string, number>();
  const server: Server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      const device = /^\/push\/([^/?]+)$/.exec(req.url ?? "")?.[1] ?? "?";
      received.push({ device, headers: req.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) });
      res.writeHead(answers.get(device) ?? 201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, received, answers, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
type PushService = Awaited<ReturnType<typeof pushService>>;

/** A browser's push subscription: its endpoint on the test's service, and the keys a push is encrypted to. */
function fakeDevice(service: PushService, name: string) {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16).toString("base64url");
  const path = randomUUID();
  return {
    name,
    path,
    body: { endpoint: `https://127.0.0.1:${service.port}/push/${path}`, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth }, device: name },
    /** Reads a push as this browser: decrypted with its keys. */
    open: (r: Received): PushPayload => PushPayloadSchema.parse(JSON.parse(ece.decrypt(r.body, { version: "aes128gcm", privateKey: ecdh, authSecret: auth }).toString("utf8"))),
  };
}
type Device = ReturnType<typeof fakeDevice>;

/** Checks a push's VAPID header (`vapid t=<jwt>, k=<key>`) as a push service does: the key is the server's, the ES256 signature holds, the audience is the endpoint's origin, it has not expired. */
function checkVapid(r: Received, publicKey: string, origin: string): void {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(r.headers.authorization ?? "");
  expect(m, `Authorization: ${r.headers.authorization}`).not.toBeNull();
  const [, jwt, k] = m!;
  expect(k).toBe(publicKey);
  const [header, claims, signature] = jwt!.split(".");
  const point = Buffer.from(publicKey, "base64url");
  const key = createPublicKey({ key: { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33, 65).toString("base64url") }, format: "jwk" });
  expect(verify("sha256", Buffer.from(`${header}.${claims}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signature!, "base64url"))).toBe(true);
  expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toMatchObject({ alg: "ES256" });
  const payload = JSON.parse(Buffer.from(claims!, "base64url").toString()) as { aud: string; exp: number; sub: string };
  expect(payload.aud).toBe(origin);
  expect(payload.exp * 1000).toBeGreaterThan(Date.now());
  expect(payload.sub).toMatch(/^(mailto:|https:)/);
  expect(r.headers["content-encoding"]).toBe("aes128gcm");
}

/** A self-signed certificate for 127.0.0.1, made with the openssl CLI. */
function makeCertificate(dir: string) {
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      keyFile,
      "-out",
      certFile,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  return { certFile, keyFile };
}

const TIMEOUT = 60_000;
let dir: string;
let cert: { certFile: string; keyFile: string };
let service: PushService;
let server: ServerProcess;
let rest: RestClient;
let publicKey: string;
const tabs: Tab[] = [];

const serverEnv = (port: number, retryMs: number) => ({ NODE_EXTRA_CA_CERTS: cert.certFile, PARLEY_PUSH_HOSTS: `127.0.0.1:${port}`, PARLEY_PUSH_RETRY_MS: String(retryMs) });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-push-"));
  cert = makeCertificate(dir);
  service = await pushService(cert.certFile, cert.keyFile);
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db"), env: serverEnv(service.port, 200) });
  rest = restClient(server.url);
  publicKey = PushKeySchema.parse(await rest.ok(rest.get("/api/push/key"))).publicKey;
}, 90_000);

afterAll(async () => {
  for (const tab of tabs) tab.disconnect();
  await server?.kill();
  await service?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function subscribe(device: Device, client = rest): Promise<string> {
  const res = await client.post<{ id: string }>("/api/push/subscriptions", device.body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** A confirm question asked in a new chat (or `sessionId`) by the test function. */
async function askConfirm(prompt: string, sessionId?: string): Promise<{ session: string; question: Question }> {
  const session = sessionId ?? (await rest.ok(rest.post<Session>("/api/sessions", { title: `Chat of ${prompt}` }))).id;
  await rest.ok(rest.post<Run>(`/api/sessions/${session}/runs`, { function: "test.ask", input: { prompt, confirm: true } }));
  const question = await poll("the question", async () => (await rest.ok(rest.get<Question[]>(`/api/questions?session_id=${session}`))).find((q) => q.prompt === prompt));
  return { session, question };
}

/** A device's service worker: the real handlers, with a fake `self` whose requests reach the server signed in as the owner. */
function serviceWorkerOf() {
  const sw = fakeSw({ maxActions: 2 });
  sw.env.randomUUID = randomUUID;
  sw.respond = (url, init) => fetch(new URL(new URL(url).pathname, server.url), { ...init, headers: { ...(init?.headers as Record<string, string>), ...authHeaders() } });
  return sw;
}

/** The notification a service worker shows now, as a tap hands it to the handler. */
function shownOf(sw: FakeSw) {
  const open = sw.shown.filter((n) => !n.closed).at(-1)!;
  return { tag: open.options.tag, data: open.options.data, body: open.options.body, close: () => void (open.closed = true) };
}

/** The pushes `device` received so far, read as that browser reads them. */
const pushesTo = (device: Device) => service.received.filter((r) => r.device === device.path).map((r) => ({ raw: r, payload: device.open(r) }));
const pushFor = (device: Device, questionId: string, type: PushPayload["type"]) =>
  poll(`a ${type} push of ${questionId} to ${device.name}`, () => pushesTo(device).find((p) => p.payload.questionId === questionId && p.payload.type === type));

describe("subscribing", { timeout: TIMEOUT }, () => {
  it("refuses an endpoint not https (400) or on no known push service nor PARLEY_PUSH_HOSTS (422), and keys that are no keys", async () => {
    const device = fakeDevice(service, "Refused");
    const cases: Array<[string, number, string]> = [
      ["http://127.0.0.1:9/push/x", 400, "https"],
      [`https://127.0.0.1:${service.port + 1}/push/x`, 422, "push_endpoint_not_allowed"],
      ["https://push.example.com/x", 422, "PARLEY_PUSH_HOSTS"],
      ["https://169.254.169.254/latest/meta-data", 422, "push_endpoint_not_allowed"],
    ];
    for (const [endpoint, status, says] of cases) {
      const res = await rest.post("/api/push/subscriptions", { ...device.body, endpoint });
      expect(res.status, endpoint).toBe(status);
      expect(JSON.stringify(res.body), endpoint).toContain(says);
    }
    expect((await rest.post("/api/push/subscriptions", { ...device.body, keys: { p256dh: "AAAA", auth: device.body.keys.auth } })).status).toBe(400);
    expect(PushDevicesSchema.parse(await rest.ok(rest.get("/api/push/subscriptions"))).devices).toEqual([]);
  });

  it("is the owner's: listed without keys or endpoint path, the same endpoint again is the same id, removable by its owner only; an ask-only token reaches none of it", async () => {
    const device = fakeDevice(service, "Laptop");
    const id = await subscribe(device);
    expect(await subscribe({ ...device, body: { ...device.body, device: "Laptop (renamed)" } })).toBe(id);
    const listed = PushDevicesSchema.parse(await rest.ok(rest.get("/api/push/subscriptions")));
    expect(listed.devices).toEqual([{ id, device: "Laptop (renamed)", service: `127.0.0.1:${service.port}`, createdAt: expect.any(String), lastPushAt: null }]);
    expect(JSON.stringify(listed)).not.toContain(device.path);

    const ann = restClient(server.url, { token: (await addPeople(`file:${path.join(dir, "p.db")}`, ["ann"]))[0]!.token });
    expect((await ann.del(`/api/push/subscriptions/${id}`)).body.error.code).toBe("not_found:push_subscription");
    expect(PushDevicesSchema.parse(await ann.ok(ann.get("/api/push/subscriptions"))).devices).toEqual([]);
    // Another person posting the same endpoint does not move it: 409, and the owner keeps it.
    expect(await ann.post("/api/push/subscriptions", { ...device.body, device: "Ann's now" })).toMatchObject({ status: 409, body: { error: { code: "push_endpoint_taken" } } });
    expect(PushDevicesSchema.parse(await ann.ok(ann.get("/api/push/subscriptions"))).devices).toEqual([]);
    expect(PushDevicesSchema.parse(await rest.ok(rest.get("/api/push/subscriptions"))).devices).toEqual([expect.objectContaining({ id, device: "Laptop (renamed)" })]);
    const asker = restClient(server.url, { token: await createApiToken(path.join(dir, "p.db"), "asker", ["--scope", "ask"]) });
    for (const res of [await asker.get("/api/push/key"), await asker.get("/api/push/subscriptions"), await asker.post("/api/push/subscriptions", device.body)]) {
      expect(res.status).toBe(403);
    }

    const removed = await fetch(`${server.url}/api/push/subscriptions/${id}`, { method: "DELETE", headers: authHeaders() });
    expect(removed.status).toBe(204);
    expect((await rest.del(`/api/push/subscriptions/${id}`)).status).toBe(404);
  });
});

describe("a question's push", { timeout: TIMEOUT }, () => {
  let phone: Device;
  let tablet: Device;
  let phoneId: string;
  beforeAll(async () => {
    phone = fakeDevice(service, "Phone");
    tablet = fakeDevice(service, "Tablet");
    phoneId = await subscribe(phone);
    await subscribe(tablet);
  });

  it("reaches every device, signed and encrypted, with Yes / No; a button's answer is the answer, recorded from a notification, and the other device's notification is closed by a second push", async () => {
    const tab = await openTab(server.url);
    tabs.push(tab);
    const { session, question } = await askConfirm("Ship it?");
    await joinSession(tab, session);
    const replied = eventOn(tab, "question.replied", (q) => q.id === question.id);

    const [toPhone, toTablet] = [await pushFor(phone, question.id, "question"), await pushFor(tablet, question.id, "question")];
    for (const push of [toPhone, toTablet]) checkVapid(push.raw, publicKey, `https://127.0.0.1:${service.port}`);
    expect(toPhone.payload).toEqual({
      type: "question",
      questionId: question.id,
      sessionId: session,
      title: "Test ask asks",
      body: "Ship it?\n— Chat of Ship it?",
      tag: question.id,
      url: `/s/${session}#question-${question.id}`,
      digest: question.targetDigest,
      buttons: [
        { action: "yes", title: "Yes", command: { kind: "reply", value: true } },
        { action: "no", title: "No", command: { kind: "reply", value: false } },
      ],
    });
    expect(toPhone.raw.headers).toMatchObject({ urgency: "high", ttl: "86400" });
    expect(toPhone.raw.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);

    // Each device's service worker (its real handlers, with a fake `self` whose fetch reaches this
    // server with the device's sign-in) shows the push with its buttons.
    const [phoneSw, tabletSw] = [serviceWorkerOf(), serviceWorkerOf()];
    await handlePush(phoneSw.env, toPhone.payload);
    await handlePush(tabletSw.env, toTablet.payload);
    for (const sw of [phoneSw, tabletSw]) expect(sw.shown.map((n) => [n.options.tag, n.options.actions?.map((a) => a.title)])).toEqual([[question.id, ["Yes", "No"]]]);

    // "Yes" tapped on the phone: the reply command with a command id, recorded from a notification; the phone's notification closes.
    await handleNotificationClick(phoneSw.env, { action: "yes", notification: shownOf(phoneSw) });
    const [sent] = phoneSw.fetched;
    expect(sent!.init!.headers).toMatchObject({ [SURFACE_HEADER]: "push" });
    const commandId = (sentJson(sent!) as { commandId: string }).commandId;
    expect(await replied).toMatchObject({ status: "answered", answer: true, closedBy: "push" });
    expect(await rest.ok(rest.get<Question>(`/api/questions/${question.id}`))).toMatchObject({ status: "answered", closedBy: "push" });
    expect(phoneSw.shown.every((n) => n.closed)).toBe(true);

    // "No" tapped on the tablet before its retraction arrived: never a second answer, and it says so.
    await handleNotificationClick(tabletSw.env, { action: "no", notification: shownOf(tabletSw) });
    expect(tabletSw.shown.at(-1)).toMatchObject({ title: "Already answered on another device", closed: false, options: { tag: question.id } });
    expect(await rest.ok(rest.get<Question>(`/api/questions/${question.id}`))).toMatchObject({ answer: true });

    // Both devices showed it: both get the retraction, with the same tag, which closes what the tablet shows.
    for (const device of [tablet, phone]) {
      const closed = await pushFor(device, question.id, "closed");
      expect(closed.payload).toEqual({ type: "closed", questionId: question.id, tag: question.id });
      checkVapid(closed.raw, publicKey, `https://127.0.0.1:${service.port}`);
      expect(closed.raw.headers.topic).toBe(toPhone.raw.headers.topic);
      if (device === tablet) await handlePush(tabletSw.env, closed.payload);
    }
    expect(tabletSw.shown.every((n) => n.closed)).toBe(true);

    // A retry of the phone's tap is the same answer, and the receipt says so.
    const retry = await fetch(`${server.url}/api/questions/${question.id}/reply`, {
      method: "POST",
      headers: { ...authHeaders(), "content-type": "application/json", [SURFACE_HEADER]: "push" },
      body: JSON.stringify(sentJson(sent!)),
    });
    expect(ReplyReceiptSchema.parse(await retry.json())).toMatchObject({ commandId, outcome: "answered" });
    const devices = PushDevicesSchema.parse(await rest.ok(rest.get("/api/push/subscriptions"))).devices;
    expect(devices.find((d) => d.id === phoneId)!.lastPushAt).not.toBeNull();
  });

  it("none for a muted session; the other sessions still push", async () => {
    const muted = await rest.ok(rest.post<Session>("/api/sessions", { title: "Quiet" }));
    const put = await fetch(`${server.url}/api/sessions/${muted.id}/push`, { method: "PUT", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify({ muted: true }) });
    expect(put.status).toBe(204);
    expect(PushDevicesSchema.parse(await rest.ok(rest.get("/api/push/subscriptions"))).mutedSessions).toContain(muted.id);
    const quiet = await askConfirm("Quiet?", muted.id);
    // A question asked after it, elsewhere, is pushed: by then the muted one would have been too.
    const loud = await askConfirm("Loud?");
    await pushFor(phone, loud.question.id, "question");
    await pushFor(tablet, loud.question.id, "question");
    expect(service.received.filter((r) => [phone, tablet].some((d) => d.path === r.device)).map((r) => (r.device === phone.path ? phone : tablet).open(r).questionId)).not.toContain(quiet.question.id);
    const unknown = await fetch(`${server.url}/api/sessions/no-such-session/push`, {
      method: "PUT",
      headers: { ...authHeaders(), "content-type": "application/json" },
      body: JSON.stringify({ muted: true }),
    });
    expect(unknown.status).toBe(404);
  });

  it("none to the device whose tab shows the session (device.presence), while the other device gets it; presence is the owner's own", async () => {
    const tab = await openTab(server.url);
    tabs.push(tab);
    const session = await rest.ok(rest.post<Session>("/api/sessions", { title: "Watched" }));
    expect(await tab.emitWithAck("device.presence", { subscriptionId: phoneId, sessionId: session.id })).toEqual({ ok: true, data: null });
    const annTab = await openTab(server.url, { token: (await addPeople(`file:${path.join(dir, "p.db")}`, ["ann"]))[0]!.token });
    tabs.push(annTab);
    expect(await annTab.emitWithAck("device.presence", { subscriptionId: phoneId, sessionId: null })).toMatchObject({ ok: false, error: { code: "not_found:push_subscription" } });

    const watched = await askConfirm("Seen?", session.id);
    const elsewhere = await askConfirm("Elsewhere?");
    await pushFor(tablet, watched.question.id, "question");
    // The phone gets the other session's question, not the one its tab shows.
    await pushFor(phone, elsewhere.question.id, "question");
    expect(pushesTo(phone).map((p) => p.payload.questionId)).not.toContain(watched.question.id);

    // The tab goes: what it set goes with it, and the phone gets that session's next question.
    tab.disconnect();
    const next = await askConfirm("Seen now?", session.id);
    await pushFor(phone, next.question.id, "question");
  });

  it("a tab of the phone's browser switched to another chat: the tab it left saying it shows nothing, after, leaves the new one's presence as it is", async () => {
    const [left, switchedTo] = [await openTab(server.url), await openTab(server.url)];
    tabs.push(left, switchedTo);
    const [first, second] = [await rest.ok(rest.post<Session>("/api/sessions", { title: "First" })), await rest.ok(rest.post<Session>("/api/sessions", { title: "Second" }))];
    expect(await left.emitWithAck("device.presence", { subscriptionId: phoneId, sessionId: first.id })).toEqual({ ok: true, data: null });
    // The new tab's focus reaches the server before the old tab's blur.
    expect(await switchedTo.emitWithAck("device.presence", { subscriptionId: phoneId, sessionId: second.id })).toEqual({ ok: true, data: null });
    expect(await left.emitWithAck("device.presence", { subscriptionId: phoneId, sessionId: null })).toEqual({ ok: true, data: null });

    const shown = await askConfirm("Shown?", second.id);
    const other = await askConfirm("Other?", first.id);
    await pushFor(tablet, shown.question.id, "question");
    await pushFor(phone, other.question.id, "question");
    expect(pushesTo(phone).map((p) => p.payload.questionId)).not.toContain(shown.question.id);
    left.disconnect();
    switchedTo.disconnect();
  });

  it("a push service answering 410 drops the subscription", async () => {
    const gone = fakeDevice(service, "Old phone");
    const id = await subscribe(gone);
    service.answers.set(gone.path, 410);
    const { question } = await askConfirm("Still there?");
    await pushFor(gone, question.id, "question");
    await poll("the subscription dropped", async () => (PushDevicesSchema.parse(await rest.ok(rest.get("/api/push/subscriptions"))).devices.some((d) => d.id === id) ? undefined : true));
  });
});

describe("a push across a restart", () => {
  let second: ServerProcess | undefined;
  let secondDir: string | undefined;
  afterEach(async () => {
    await second?.kill();
    if (secondDir) rmSync(secondDir, { recursive: true, force: true });
  });

  it("refused once (503), the server killed and started again: it arrives after the restart, signed with the same kept key", { timeout: 120_000 }, async () => {
    secondDir = mkdtempSync(path.join(tmpdir(), "parley-push-restart-"));
    const databaseFile = path.join(secondDir, "p.db");
    const port = await freePort();
    // Long enough that the retry cannot come before the kill, short enough to wait for after the restart.
    second = await startServerProcess({ port, databaseFile, env: serverEnv(service.port, 4_000) });
    const client = restClient(second.url);
    const key = PushKeySchema.parse(await client.ok(client.get("/api/push/key"))).publicKey;
    const device = fakeDevice(service, "Restart phone");
    await subscribe(device, client);
    service.answers.set(device.path, 503);
    const session = await client.ok(client.post<Session>("/api/sessions", { title: "Restart" }));
    await client.ok(client.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Across?", confirm: true } }));
    await poll("the refused attempt", () => (service.received.some((r) => r.device === device.path) ? true : undefined));

    await second.kill();
    service.answers.set(device.path, 201);
    const before = pushesTo(device).length;
    second = await startServerProcess({ port, databaseFile, env: serverEnv(service.port, 4_000) });
    expect(PushKeySchema.parse(await restClient(second.url).ok(restClient(second.url).get("/api/push/key"))).publicKey).toBe(key);
    const after = await poll("the push after the restart", () => pushesTo(device).slice(before)[0], 30_000);
    expect(after.payload).toMatchObject({ type: "question", title: "Test ask asks" });
    checkVapid(after.raw, key, `https://127.0.0.1:${service.port}`);
  });
});
