import { describe, expect, it, vi } from "vitest";
import { AgentError, createRuntime, type Settlement } from "../runtime";
import { chunk, closeFakeServer, fakeServer, sse, textReply } from "./fake-openai";
import { workspaceEachTest } from "../tools/tool-harness";
import { providerError, redact } from "./errors";
import { runAgentLoop } from "./loop";
import { selectModel } from "./provider";

const KEY = "sk-test-SECRET-0123456789abcdef";

/** The workspace the tools work in: a new one, seeded with the sample project, for each test. */
const workspace = workspaceEachTest("parley-openai-");

function harness(answer: Partial<Settlement> & Pick<Settlement, "outcome"> = { outcome: "answered", value: "once" }) {
  const sent: Array<{ type: string; text?: string; spec?: { kind: string }; name?: string; output?: unknown }> = [];
  const controller = createRuntime({
    runId: "r",
    sessionId: "s",
    canAsk: true,
    workspace: workspace.ws(),
    send(m) {
      sent.push(m as never);
      if (m.type === "question.ask") setTimeout(() => controller.settle(m.questionId, { value: null, feedback: null, ...answer }), 0);
    },
  });
  return { rt: controller.rt, sent };
}

describe("the OpenAI-compatible provider", () => {
  it("is chosen by OPENAI_BASE_URL or PARLEY_PROVIDER=openai; the scripted model otherwise", () => {
    expect(selectModel({}).provider).toBe("scripted");
    expect(selectModel({ OPENAI_BASE_URL: "http://127.0.0.1:1/v1", PARLEY_MODEL: "llama3.2" }).provider).toBe("openai-compatible llama3.2 at http://127.0.0.1:1/v1");
    expect(selectModel({ PARLEY_PROVIDER: "openai", OPENAI_API_KEY: KEY }).apiKey).toBe(KEY);
    expect(selectModel({ PARLEY_PROVIDER: "scripted", OPENAI_BASE_URL: "http://x/v1" }).provider).toBe("scripted");
  });

  it("streams text and a tool call over chat-completions SSE; the tool result goes back as the next request's tool message", async () => {
    const { baseURL, requests } = await fakeServer([
      (_b, _r, res) =>
        sse(res, [
          chunk({ role: "assistant", content: "Running " }),
          chunk({ content: "them." }),
          chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "shell", arguments: '{"comm' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"npm test"}' } }] }),
          chunk({}, "tool_calls"),
        ]),
      textReply("All tests passed."),
    ]);
    const choice = selectModel({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: KEY, PARLEY_MODEL: "test-model", PARLEY_MODEL_RETRIES: "0" });
    const h = harness();
    const deltas: string[] = [];
    const result = await runAgentLoop(h.rt, {
      choice,
      text: "run the tests",
      history: [
        { role: "user", text: "hi" },
        { role: "agent", text: "Hello!" },
      ],
      reply: () => ({ append: (d) => deltas.push(d), end() {} }),
    });
    expect(result).toMatchObject({ steps: 2, toolCalls: 1, reply: "Running them.\n\nAll tests passed." });
    expect(deltas.join("")).toBe("Running them.All tests passed.");
    expect(h.sent.filter((m) => m.type === "question.ask").map((m) => m.spec?.kind)).toEqual(["approval"]);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.auth).toBe(`Bearer ${KEY}`);
    expect(requests[0]!.body).toMatchObject({ model: "test-model", stream: true });
    const first = requests[0]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(first.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect((requests[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      "shell",
      "write_file",
      "edit_file",
      "read_file",
      "list_files",
      "search_files",
      "clarify",
    ]);
    const second = requests[1]!.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>;
    const toolMessage = second.find((m) => m.role === "tool")!;
    expect(toolMessage.tool_call_id).toBe("call_1");
    expect(toolMessage.content).toContain("npm test");
    // The real tests of the workspace ran: their result is what the model got back.
    expect(JSON.parse(toolMessage.content)).toMatchObject({ command: "npm test", exitCode: 0, output: expect.stringContaining("greets a person by name") });
  });

  it("an error midway ends the turn with a readable AgentError; the streamed part was shown and ended", async () => {
    const { baseURL } = await fakeServer([
      (_b, _r, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(chunk({ role: "assistant", content: "Half a rep" }));
        res.end("data: {this is not json\n\n");
      },
    ]);
    const choice = selectModel({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: KEY, PARLEY_MODEL_RETRIES: "0" });
    const h = harness();
    const deltas: string[] = [];
    let ended = 0;
    const err = await runAgentLoop(h.rt, { choice, text: "hi", reply: () => ({ append: (d) => deltas.push(d), end: () => void ended++ }) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect((err as Error).message).toMatch(/could not read|model call failed/);
    expect(deltas.join("")).toBe("Half a rep");
    expect(ended).toBe(1);
    // Nothing journaled as a model step: a retry calls the model again.
    expect(h.sent.filter((m) => m.type === "step.record")).toHaveLength(0);
  });

  it.each([
    [401, { error: { message: `Incorrect API key provided: ${KEY}` } }, /refused the API key \(HTTP 401\)/],
    [429, { error: { message: "Rate limit reached" } }, /rate limiting/],
    [400, { error: { message: "This model's maximum context length is 8192 tokens", code: "context_length_exceeded" } }, /too long for the model/],
    [500, { error: { message: `upstream failed for key ${KEY}` } }, /failed \(HTTP 500\)/],
  ])("HTTP %i becomes a readable message without the key", async (status, body, pattern) => {
    const { baseURL } = await fakeServer([(_b, _r, res) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))]);
    const choice = selectModel({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: KEY, PARLEY_MODEL_RETRIES: "0" });
    const logged = vi.spyOn(console, "error");
    const err = (await runAgentLoop(harness().rt, { choice, text: "hi", reply: () => ({ append() {}, end() {} }) }).catch((e: unknown) => e)) as AgentError;
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
    expect(err).toBeInstanceOf(AgentError);
    expect(err.message).toMatch(pattern);
    expect(`${err.message} ${String((err.cause as Error)?.message)} ${err.stack}`).not.toContain(KEY);
  });

  it("an unreachable server is named as such", async () => {
    const { baseURL } = await fakeServer([]);
    await closeFakeServer();
    const choice = selectModel({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: KEY, PARLEY_MODEL_RETRIES: "0" });
    const err = (await runAgentLoop(harness().rt, { choice, text: "hi", reply: () => ({ append() {}, end() {} }) }).catch((e: unknown) => e)) as AgentError;
    expect(err.message).toMatch(/Could not reach the model provider/);
    expect(err.message).not.toContain(KEY);
  });

  it("redacts the key, bearer headers and sk- keys from any text", () => {
    expect(redact(`key ${KEY} and Authorization: Bearer abc.def`, [KEY])).toBe("key [redacted] and Authorization: Bearer [redacted]");
    expect(redact("sk-abcdefghijklmnop leaked")).toBe("[redacted] leaked");
    expect(providerError(new Error(`boom ${KEY}`), { provider: "p", apiKey: KEY }).message).not.toContain(KEY);
  });
});
