import path from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { loadFunctionFiles, useCatalogue, type FunctionCatalogue } from "../function-catalogue";
import { chatInput, commandsOf, helpText, parseCommand, toolFunctionsOf } from "./chat";

let catalogue: FunctionCatalogue;
beforeAll(async () => {
  catalogue = await loadFunctionFiles([import.meta.dirname]);
  useCatalogue(catalogue);
});

describe("the chat's slash commands", () => {
  it.each([
    ["/deploy", "deploy"],
    ["/coffee", "order-coffee"],
    ["  /pizza now", "pick-toppings"],
    ["/rename", "rename-project"],
    ["/archive", "archive-emails"],
    ["/lunch", "quick-poll"],
    ["/countdown", "countdown"],
    ["/shirt", "two-questions"],
    ["/budget", "set-budget"],
    ["/trip", "book-trip"],
    ["/evening", "plan-evening"],
    ["/report", "write-report"],
    ["/tests", "run-tests"],
    ["/changelog", "write-changelog"],
    ["/approvals", "update-docs"],
    ["/Deploy", "deploy"],
    ["/order-coffee", "order-coffee"],
  ])("runs %j as %s", (text, name) => {
    const c = parseCommand(text);
    expect(c?.kind === "run" && c.fn.name).toBe(name);
  });

  it.each(["please deploy it", "I'd like a coffee", "rename my code name", "run the tests", "see /deploy", "/usr/bin/env", "hello", ""])("%j is no command: it goes to the model", (text) => {
    expect(parseCommand(text)).toBeNull();
  });

  it("knows /help and unknown commands", () => {
    expect(parseCommand("/help")).toEqual({ kind: "help" });
    expect(parseCommand("/nope")).toEqual({ kind: "unknown", name: "nope" });
  });

  it("/help lists every command, and the chat itself is none", () => {
    const commands = commandsOf(catalogue);
    expect(commands).toHaveLength(15);
    for (const c of commands) expect(helpText()).toContain(`/${c.name} — ${c.fn.description}`);
    expect(parseCommand("/chat")).toEqual({ kind: "unknown", name: "chat" });
  });

  it("offers the model the functions whose definition says tool, by their command", () => {
    expect(toolFunctionsOf(catalogue).map((t) => t.name)).toContain("coffee");
    expect(toolFunctionsOf(catalogue).map((t) => t.fn.name)).not.toContain("chat");
  });

  it("names the file of a command whose function did not load", () => {
    const broken: FunctionCatalogue = { functions: [], failures: [{ file: path.join("workers", "functions", "interview.ts"), message: "SyntaxError: Unexpected token" }] };
    expect(parseCommand("/interview", broken)).toEqual({
      kind: "unknown",
      name: "interview",
      failure: `${path.join("workers", "functions", "interview.ts")} did not load: SyntaxError: Unexpected token`,
    });
  });

  it("reads the history from the input, ignoring anything malformed", () => {
    expect(chatInput({ text: "hi", history: [{ role: "user", text: "a" }, { role: "agent", text: "b" }, { role: "system", text: "c" }, 3] })).toEqual({
      text: "hi",
      history: [
        { role: "user", text: "a" },
        { role: "agent", text: "b" },
      ],
      retryOf: null,
    });
    expect(chatInput(null)).toEqual({ text: "", history: [], retryOf: null });
    expect(chatInput({ text: "hi", retryOf: "run-1" }).retryOf).toBe("run-1");
  });

  it("loads every function file of the folder, each function under a unique name with a description", () => {
    expect(catalogue.failures).toEqual([]);
    const names = catalogue.functions.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const fn of catalogue.functions) expect(fn.description.length).toBeGreaterThan(10);
    expect(names).toContain("chat");
  });
});

describe("the chat function", () => {
  afterEach(() => vi.unstubAllEnvs());
  async function turn(text: string, history: Array<{ role: "user" | "agent"; text: string }> = []) {
    const { createRuntime } = await import("../runtime");
    const { chat } = await import("./chat");
    const sent: Array<{ type: string; text?: string }> = [];
    const { rt } = createRuntime({ runId: "r", sessionId: "s", canAsk: true, send: (m) => sent.push(m as never) });
    vi.stubEnv("PARLEY_SCRIPTED_DELAY_MS", "0");
    const result = await chat.run(rt, { text, history });
    return { result, says: sent.filter((m) => m.type === "run.say").map((m) => m.text) };
  }

  it("answers a sentence through the model loop (the scripted model by default), a keyword inside it starting nothing", async () => {
    const { result, says } = await turn("I want to rename my code name");
    expect(result).toMatchObject({ steps: 1, toolCalls: 0 });
    expect(says[0]).toMatch(/offline scripted model/);
  });

  it("answers /help with the command list and an unknown command with a pointer to it", async () => {
    expect((await turn("/help")).says).toEqual([helpText()]);
    expect((await turn("/nope")).says[0]).toMatch(/no \/nope command/);
  });
});
