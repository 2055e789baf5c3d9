import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SIGN_IN_LINK_PARAM, SIGN_IN_LINK_PATTERN } from "../protocol/teams";
import { createDb, type Db } from "../server/store/db/client";
import { createTestDatabase, type TestDatabase } from "../../tests/helpers/test-db";
import { UsageError } from "./arguments";
import { main } from "./main";
import { tokenCommand } from "./token-commands";
import { userCommand, type UserCommandContext } from "./user-commands";
import type { FoundServer } from "./server-client";

let testDb: TestDatabase;
let db: Db;
beforeEach(async () => {
  testDb = await createTestDatabase("parley_cli_users");
  db = await createDb(testDb.url);
});
afterEach(async () => {
  await db.close();
  await testDb.drop();
});

const ORIGIN = "https://chat.example.com";
const context = (over: Partial<UserCommandContext> = {}): UserCommandContext => ({
  findServer: async () => null,
  explicit: false,
  inDatabase: (work) => work(db),
  origin: ORIGIN,
  usage: (message) => new UsageError(message),
  ...over,
});
const user = (args: string[], { admin = false, slack }: { admin?: boolean; slack?: string } = {}, over?: Partial<UserCommandContext>) => userCommand(args, { admin, slack }, context(over));
const linkIn = (url: string) => new URL(url).searchParams.get(SIGN_IN_LINK_PARAM)!;

describe("parley user, with no server running", () => {
  it("adds a person into the database and prints their link on the origin a server started here would have, saying so", async () => {
    const added = await user(["add", "bob"], { admin: true });
    expect(added.result).toMatchObject({ person: { name: "bob", admin: true }, signInLink: expect.stringMatching(`^${ORIGIN}/\\?${SIGN_IN_LINK_PARAM}=sil_`), expiresAt: expect.any(String) });
    const { signInLink, expiresAt } = added.result as { signInLink: string; expiresAt: string };
    expect(linkIn(signInLink)).toMatch(SIGN_IN_LINK_PATTERN);
    expect(added.text).toContain("Added bob (an administrator)");
    expect(added.text).toContain(`  ${signInLink}\n`);
    expect(added.text).toContain(`until ${expiresAt}`);
    expect(added.text).toContain(`No server is running: the link names ${ORIGIN}`);

    await expect(user(["add", "bob"])).rejects.toMatchObject({ code: "person_exists" });
    await expect(user(["add", "local"])).rejects.toMatchObject({ code: "bad_request" });
    expect((await user(["list"])).text).toMatch(/^bob {2}administrator {2}added \S+$/);
  });

  it("links a person to their Slack user (by id or display name), refuses a Slack user already another's or a malformed id, and unlinks", async () => {
    await user(["add", "ann"]);
    await user(["add", "bob"]);
    await user(["rename", "ann", "Annie"]);
    const linked = await user(["link", "Annie"], { slack: "U0ANN00001" });
    expect(linked.result).toEqual({ person: "ann", slackUserId: "U0ANN00001" });
    expect(linked.text).toBe("ann's clicks in Slack (U0ANN00001) answer as them now.");
    await expect(user(["link", "bob"], { slack: "U0ANN00001" })).rejects.toMatchObject({ code: "slack_user_taken" });
    await expect(user(["link", "bob"], { slack: "ann" })).rejects.toThrow(/A Slack user id is U or W/);
    await expect(user(["link", "nobody"], { slack: "U0NOBODY01" })).rejects.toMatchObject({ code: "not_found:person" });
    await expect(user(["add", "carol"], { slack: "U0CAROL001" })).rejects.toThrow(/--slack goes with parley user link/);
    expect((await user(["link", "ann"], { slack: "off" })).text).toBe("ann is no longer linked to a Slack user.");
    // Free again: bob may have it now.
    expect((await user(["link", "bob"], { slack: "U0ANN00001" })).result).toEqual({ person: "bob", slackUserId: "U0ANN00001" });
  });

  it("makes a new link in place of the unused one, and removes a person with their API tokens", async () => {
    const first = linkIn(((await user(["add", "ann"])).result as { signInLink: string }).signInLink);
    const again = await user(["link", "ann"]);
    expect(again.text).toContain("A new sign-in link for ann (their unused ones no longer work)");
    expect(linkIn((again.result as { signInLink: string }).signInLink)).not.toBe(first);

    const printed: unknown[] = [];
    await tokenCommand(
      db,
      ["create"],
      { name: "ann's script", user: "ann" },
      (data) => printed.push(data),
      (m) => new UsageError(m),
    );
    expect(printed[0]).toMatchObject({ ownerId: "ann", token: expect.stringMatching(/^pat_/) });
    const removed = await user(["remove", "ann"]);
    expect(removed.result).toMatchObject({ person: { name: "ann" }, revokedTokens: [(printed[0] as { id: string }).id] });
    expect(removed.text).toBe("Removed ann: their sign-in links, browser sessions and 1 API token are refused from now on (a running server closes their connections within 10 s).");
    expect((await user(["list"])).text).toMatch(/^No people yet/);
    await expect(user(["remove", "ann"])).rejects.toMatchObject({ code: "not_found:person" });
    await expect(user(["link", "ann"])).rejects.toMatchObject({ code: "not_found:person" });
  });

  it("writes the database when the server it found does not answer, unless that server was named", async () => {
    const gone: FoundServer = { url: "http://127.0.0.1:9", token: "t" };
    expect((await user(["add", "cy"], {}, { findServer: async () => gone })).text).toContain("No server is running");
    await expect(user(["add", "di"], {}, { findServer: async () => gone, explicit: true })).rejects.toThrow(/could not be reached/);
    expect((await user(["list"])).text).toMatch(/^cy /);
  });

  it("refuses a command line it does not know before it looks for a server", async () => {
    const findServer = async (): Promise<FoundServer | null> => {
      throw new Error("looked for a server");
    };
    for (const args of [[], ["add"], ["add", "a", "b"], ["list", "x"], ["remove"], ["link"], ["rename", "a"]]) {
      await expect(user(args, {}, { findServer }), args.join(" ")).rejects.toBeInstanceOf(UsageError);
    }
    await expect(user(["list"], { admin: true }, { findServer })).rejects.toThrow(/--admin goes with parley user add/);
  });
});

describe("parley user, through the running server", () => {
  let server: Server;
  const seen: Array<{ method: string; url: string; body: string; authorization?: string }> = [];
  beforeEach(async () => {
    seen.length = 0;
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, body, authorization: req.headers.authorization });
        res.writeHead(req.method === "POST" && req.url === "/api/users" ? 201 : 200, { "content-type": "application/json" });
        if (req.url === "/api/users" && req.method === "POST")
          res.end(JSON.stringify({ person: { name: "bob", admin: false, createdAt: "2026-12-07T10:00:00.000Z" }, signInLink: "http://srv/?signin=sil_x", expiresAt: "2026-12-08T10:00:00.000Z" }));
        else if (req.method === "DELETE") res.end(JSON.stringify({ person: { name: "bob", admin: false, createdAt: "2026-12-07T10:00:00.000Z" }, revokedTokens: ["t1", "t2"] }));
        else res.end(JSON.stringify({ people: [] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const running = (): Partial<UserCommandContext> => ({ findServer: async () => ({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: "server-token" }) });

  it("sends each command as the server token, and prints the server's link as it is", async () => {
    const added = await user(["add", "bob"], { admin: false }, running());
    expect(added.text).toBe("Added bob. Their sign-in link:\n\n  http://srv/?signin=sil_x\n\nIt signs them in once, until 2026-12-08T10:00:00.000Z. Send it to them alone.");
    const removed = await user(["remove", "bob"], {}, running());
    expect(removed.text).toBe("Removed bob: their sign-in links, browser sessions and 2 API tokens are refused from now on, and their open connections closed.");
    await user(["list"], {}, running());
    expect(seen.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", "/api/users", JSON.stringify({ name: "bob", admin: false })],
      ["DELETE", "/api/users/bob", ""],
      ["GET", "/api/users", ""],
    ]);
    expect(seen.every((r) => r.authorization === "Bearer server-token")).toBe(true);
    // Nothing went into the database.
    expect((await user(["list"])).result).toEqual({ people: [] });
  });
});

describe("parley token create --user", () => {
  const nowhere = ["--database", "file:/nonexistent/parley-cli-test.db", "--server", "http://127.0.0.1:9"];
  const create = (options: { user?: string; owner?: string }) =>
    tokenCommand(
      db,
      ["create"],
      { name: "script", ...options },
      () => {},
      (m) => new UsageError(m),
    );

  it("makes a token only for a person who exists (--owner is the older spelling), and for the administrator by default", async () => {
    await expect(create({ user: "zed" })).rejects.toMatchObject({ code: "not_found:person", message: expect.stringContaining("parley user add zed") });
    await expect(create({ owner: "zed" })).rejects.toMatchObject({ code: "not_found:person" });
    await user(["add", "zed"]);
    await expect(create({ user: "zed" })).resolves.toBe(0);
    await expect(create({ owner: "zed" })).resolves.toBe(0);
    await expect(create({ user: "zed", owner: "local" })).rejects.toBeInstanceOf(UsageError);
    await expect(create({})).resolves.toBe(0);
  });

  it("lists user in --help", async () => {
    const out: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = (chunk: string) => (out.push(chunk), true);
    try {
      expect(await main(["--help", ...nowhere])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    expect(out.join("")).toMatch(/user add NAME \[--admin\][\s\S]*user list[\s\S]*user remove NAME[\s\S]*user link NAME[\s\S]*token create \[--name N\] \[--user NAME\]/);
  });
});
