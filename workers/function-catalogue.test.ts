import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeCatalogue, loadFunctionFiles } from "./function-catalogue";
import { defineAgentFunction } from "./runtime";

const define = JSON.stringify(path.join(import.meta.dirname, "runtime/define.ts"));
const fn = (name: string, extra = "") => `defineAgentFunction({ name: ${JSON.stringify(name)}, description: "Does ${name}.", ${extra} async run() { return null; } })`;

describe("loading the function files of a folder", () => {
  let dir: string;
  const write = (file: string, body: string) => writeFileSync(path.join(dir, file), `import { defineAgentFunction } from ${define};\n${body}\n`);
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-catalogue-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps every export made by defineAgentFunction, default or named, and skips tests, declarations and _helpers", async () => {
    write("interview.ts", `export default ${fn("interview", "tool: true,")};`);
    write("pair.ts", `export const a = ${fn("pair-a")};\nexport const b = ${fn("pair-b", 'command: "b",')};\nexport const notOne = { name: "x" };`);
    write("_shared.ts", `export const helper = 1;`);
    write("interview.test.ts", `throw new Error("a test is no function file");`);
    writeFileSync(path.join(dir, "types.d.ts"), "export type X = 1;\n");
    const catalogue = await loadFunctionFiles([dir], { root: dir });
    expect(catalogue.failures).toEqual([]);
    expect(describeCatalogue(catalogue)).toEqual([
      { name: "interview", description: "Does interview.", command: "interview", tool: true },
      { name: "pair-a", description: "Does pair-a.", command: "pair-a", tool: false },
      { name: "pair-b", description: "Does pair-b.", command: "b", tool: false },
    ]);
  });

  it("reports a file that throws, exports none, or repeats a name or a command, and loads the rest", async () => {
    write("a-first.ts", `export default ${fn("deploy", 'command: "ship",')};`);
    write("b-syntax.ts", `export const = ;`);
    write("c-nothing.ts", `export const x = 1;`);
    write("d-same-name.ts", `export default ${fn("deploy")};`);
    write("e-same-command.ts", `export default ${fn("launch", 'command: "ship",')};`);
    write("f-reserved.ts", `export default ${fn("answer")};`);
    write("g-bad.ts", `export default ${fn("Bad Name")};`);
    write("h-fine.ts", `export default ${fn("fine")};`);
    const { functions, failures } = await loadFunctionFiles([dir], { root: dir });
    expect(functions.map((f) => f.name)).toEqual(["deploy", "fine"]);
    expect(failures.map((f) => f.file)).toEqual(["b-syntax.ts", "c-nothing.ts", "d-same-name.ts", "e-same-command.ts", "f-reserved.ts", "g-bad.ts"]);
    const why = Object.fromEntries(failures.map((f) => [f.file, f.message]));
    expect(why["c-nothing.ts"]).toMatch(/exports no agent function/);
    expect(why["d-same-name.ts"]).toBe('The name "deploy" is taken by a-first.ts.');
    expect(why["e-same-command.ts"]).toBe('The command /ship of "launch" is taken by "deploy" (a-first.ts).');
    expect(why["f-reserved.ts"]).toMatch(/\/answer .* taken by the text command \/answer/);
    expect(why["g-bad.ts"]).toMatch(/defineAgentFunction\("Bad Name"\): name: lower-case words/);
  });

  it("a folder that does not exist is no failure", async () => {
    expect(await loadFunctionFiles([path.join(dir, "missing")])).toEqual({ functions: [], failures: [] });
  });
});

describe("defineAgentFunction", () => {
  const run = async () => null;
  it("gives a function its name as command when the name is one word with dashes, none when it has a dot or says false", () => {
    expect(defineAgentFunction({ name: "order-coffee", description: "Orders.", run }).command).toBe("order-coffee");
    expect(defineAgentFunction({ name: "test.ask", description: "Asks.", run }).command).toBeNull();
    expect(defineAgentFunction({ name: "chat", description: "Chats.", command: false, run }).command).toBeNull();
  });

  it("refuses a definition it cannot run, naming the field", () => {
    expect(() => defineAgentFunction({ name: "x", description: "", run })).toThrow(/description: /);
    expect(() => defineAgentFunction({ name: "x", description: "X.", command: "/x", run })).toThrow(/command: /);
    expect(() => defineAgentFunction({ name: "x", description: "X." } as never)).toThrow(/run: an async function/);
  });
});
