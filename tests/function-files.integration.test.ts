import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Run } from "../lib/protocol/entities";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";

const root = path.resolve(import.meta.dirname, "..");
const runtime = path.join(root, "workers/runtime/index.ts");

/** A function file as a developer writes it, importing the runtime by absolute path (it lives in a temp folder). */
function interviewFile(prompt: string, description = "Asks one question and says the answer back.") {
  return `import { defineAgentFunction } from ${JSON.stringify(runtime)};
export default defineAgentFunction({
  name: "interview",
  description: ${JSON.stringify(description)},
  async run(rt) {
    const name = await rt.ask(${JSON.stringify(prompt)});
    rt.say(\`Hello, \${name}!\`);
    return { name };
  },
});
`;
}

/** The README's "Add your function" example, as written there, importing the runtime from where the file would sit. */
function readmeExample(): { file: string; source: string } {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const block = readme.split("## Add your function")[1]?.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error("README.md has no ts example under 'Add your function'");
  const file = block.match(/^\/\/ workers\/functions\/(\S+\.ts)$/m)?.[1];
  if (!file || !block.includes('from "../runtime"')) throw new Error("the README's example must name its file in workers/functions/ and import ../runtime");
  return { file, source: block.replace('from "../runtime"', `from ${JSON.stringify(runtime)}`) };
}

/** A dropped file is the function: no index to edit. It runs as /interview, /help lists it, REST knows it, and a reload picks up an edit. */
describe("a function file dropped in a function folder", () => {
  let app: TestApp | undefined;
  let dir: string;
  afterEach(async () => {
    await app?.close();
    app = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  async function chatTurn(sessionId: string, text: string) {
    const a = app!;
    const run = (await a.parley.postMessage({ sessionId, text })) as Run;
    return run;
  }

  async function pendingPrompt(sessionId: string) {
    const [q] = await waitFor(async () => {
      const list = await app!.parley.questions.listPending({ sessionId });
      return list.length === 1 && list;
    });
    return q!;
  }

  it("runs as its /command from the chat, is listed by /help and the API, and a reload runs the edited code", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-functions-"));
    writeFileSync(path.join(dir, "interview.ts"), interviewFile("What is your name?"));
    writeFileSync(path.join(dir, "broken.ts"), "export const = 1;\n");
    writeFileSync(path.join(dir, "_helper.ts"), "export const helper = 1;\n");
    app = await startTestApp({ workerOptions: { env: { ...process.env, PARLEY_FUNCTION_DIRS: dir } } });
    const a = app;

    expect(a.parley.listFunctions()).toContainEqual({ name: "interview", description: "Asks one question and says the answer back.", command: "interview", tool: false });
    expect(a.parley.workerPool.catalogue.failures).toEqual([expect.objectContaining({ file: expect.stringMatching(/broken\.ts$/) })]);

    const session = await a.parley.sessions.createSession();
    const help = await chatTurn(session.id, "/help");
    await waitFor(async () => (await a.parley.runs.getRun({ id: help.id })).status === "succeeded");
    const broken = await chatTurn(session.id, "/broken");
    await waitFor(async () => (await a.parley.runs.getRun({ id: broken.id })).status === "succeeded");
    const said = (await a.parley.sessions.getSnapshot({ id: session.id })).messages.filter((m) => m.role === "agent").map((m) => m.text);
    expect(said[0]).toContain("/interview — Asks one question and says the answer back.");
    expect(said[1]).toMatch(/^\/broken cannot run: .*broken\.ts did not load: /);

    const first = await chatTurn(session.id, "/interview");
    const q = await pendingPrompt(session.id);
    expect(q.prompt).toBe("What is your name?");
    await a.parley.questions.reply({ id: q.id, value: "Ada", by: "rest" });
    await waitFor(async () => (await a.parley.runs.getRun({ id: first.id })).status === "succeeded");
    expect((await a.parley.runs.getRun({ id: first.id })).result).toEqual({ name: "Ada" });

    // An edit, then a reload (what `npm run dev` does on save): the next run uses the new code.
    writeFileSync(path.join(dir, "interview.ts"), interviewFile("Who are you?", "Asks who you are."));
    a.parley.workerPool.reload();
    await waitFor(() => a.parley.listFunctions().some((f) => f.name === "interview" && f.description === "Asks who you are."), 20_000);
    const second = await chatTurn(session.id, "/interview");
    expect((await pendingPrompt(session.id)).prompt).toBe("Who are you?");
    await a.parley.runs.stopRun({ id: second.id });
  }, 60_000);

  it("the README's example runs as written: its command asks its questions, and the model is offered it", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-functions-"));
    const example = readmeExample();
    writeFileSync(path.join(dir, example.file), example.source);
    app = await startTestApp({ workerOptions: { env: { ...process.env, PARLEY_FUNCTION_DIRS: dir } } });
    const a = app;
    expect(a.parley.workerPool.catalogue.failures).toEqual([]);
    expect(a.parley.listFunctions()).toContainEqual(expect.objectContaining({ name: "interview", command: "interview", tool: true }));

    const session = await a.parley.sessions.createSession();
    const run = await chatTurn(session.id, "/interview");
    const role = await pendingPrompt(session.id);
    expect(role.prompt).toBe("Which role?");
    await a.parley.questions.reply({ id: role.id, value: "Engineer", by: "rest" });
    const remote = await waitFor(async () => {
      const [q] = await a.parley.questions.listPending({ sessionId: session.id });
      return q && q.id !== role.id && q;
    });
    expect(remote.prompt).toBe("Remote?");
    await a.parley.questions.reply({ id: remote.id, value: true, by: "rest" });
    await waitFor(async () => (await a.parley.runs.getRun({ id: run.id })).status === "succeeded");
    const said = (await a.parley.sessions.getSnapshot({ id: session.id })).messages.filter((m) => m.role === "agent").map((m) => m.text);
    expect(said).toContain("Engineer, remote.");
  }, 60_000);
});
