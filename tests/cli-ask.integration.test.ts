import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Session } from "../lib/protocol/entities";
import type { Question } from "../lib/protocol/question";
import { poll } from "./helpers/remote";
import { TEST_TOKEN } from "./helpers/server-process";
import { suiteServer } from "./helpers/suite-server";

/** `parley ask` against the production server: it blocks until the person answers elsewhere, and its exit code says how. */

const root = path.resolve(import.meta.dirname, "..");
const suite = suiteServer("cli-ask");

interface Asking {
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  signal(name: NodeJS.Signals): void;
}

function parleyAsk(...args: string[]): Asking {
  const child = spawn(process.execPath, ["bin/parley.mjs", "ask", ...args, "--server", suite.server.url, "--token", TEST_TOKEN], {
    cwd: root,
    env: { ...process.env, PARLEY_TOKEN: "", PARLEY_URL: "" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return {
    exited: new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr }))),
    signal: (name) => child.kill(name),
  };
}

/** The pending question `from` asked, once the CLI has put it. */
const pendingFrom = (from: string) =>
  poll(`${from}'s question`, async () => {
    const session = (await suite.rest.ok(suite.rest.get<Session[]>("/api/sessions"))).find((s) => s.title === from);
    if (!session) return undefined;
    return (await suite.rest.ok(suite.rest.get<Question[]>(`/api/questions?session_id=${session.id}`)))[0];
  });

describe("parley ask", { timeout: 60_000 }, () => {
  it("prints the answer given in another surface and exits 0; a declined ask exits 2 with the feedback", async () => {
    const asking = parleyAsk("Deploy to production?", "--options", "yes, no", "--from", "release script");
    const question = await pendingFrom("release script");
    expect(question).toMatchObject({ prompt: "Deploy to production?", options: ["yes", "no"], owner: "release script" });
    await suite.rest.ok(suite.rest.post(`/api/questions/${question.id}/reply`, { value: "yes" }));
    expect(await asking.exited).toMatchObject({ code: 0, stdout: "yes\n" });

    const declining = parleyAsk("Tag it?", "--from", "tagger");
    await suite.rest.ok(suite.rest.post(`/api/questions/${(await pendingFrom("tagger")).id}/reject`, { message: "not today" }));
    const declined = await declining.exited;
    expect(declined).toMatchObject({ code: 2, stdout: "" });
    expect(declined.stderr).toContain("Declined: not today");
  });

  it("exits 3 when nobody answers in time, and when Ctrl-C withdraws the question (retracted: cancelled)", async () => {
    expect(await parleyAsk("Quick?", "--timeout", "1s", "--from", "hasty").exited).toMatchObject({ code: 3 });

    const asking = parleyAsk("Wait for me?", "--from", "impatient");
    const question = await pendingFrom("impatient");
    asking.signal("SIGINT");
    expect((await asking.exited).code).toBe(3);
    expect(await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${question.id}`))).toMatchObject({ status: "cancelled" });
  });

  it("a script imports parley/client (the package's export): it asks, and its answer() returns the answer given elsewhere", async () => {
    const script = `
      import { createParleyClient, ParleyError } from "parley/client";
      const parley = createParleyClient({ url: process.env.URL, token: process.env.TOKEN });
      const question = await parley.ask({ question: "From a script?", options: ["a", "b"], from: "node script" });
      console.log(JSON.stringify({ id: question.id }));
      const settled = await parley.answer(question.id);
      const refused = await parley.question("no-such-question").catch((err) => err instanceof ParleyError && err.code);
      console.log(JSON.stringify({ status: settled.status, answer: settled.answer, refused }));`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: root, env: { ...process.env, URL: suite.server.url, TOKEN: TEST_TOKEN } });
    const lines: string[] = [];
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean)));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const { id } = JSON.parse(await poll("the script's question", () => lines[0])) as { id: string };
    await suite.rest.ok(suite.rest.post(`/api/questions/${id}/reply`, { value: "b" }));
    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(lines[1]!)).toEqual({ status: "answered", answer: "b", refused: "not_found:question" });
  });

  it("a mistyped ask exits 1 (never 2, which means declined) and asks nothing", async () => {
    for (const args of [["Pick?", "--multi"], ["When?", "--timeout", "soon"], []]) {
      const { code, stderr } = await parleyAsk(...args).exited;
      expect(code).toBe(1);
      expect(stderr).not.toBe("");
    }
  });
});
