import { randomUUID } from "node:crypto";
import { AgentError, AskRefused, AskTimeout, RunCancelled, ToolDenied, ToolFailed, ToolInputInvalid, UserDeclined, defineAgentFunction, type AskOptions } from "../runtime";

/**
 * Functions for the test suites only, registered when PARLEY_TEST_FUNCTIONS=1
 * (like a mock model switched on by an environment variable).
 */

/** Asks what its input describes and returns how the question ended. */
export const probeAsk = defineAgentFunction({
  name: "test.ask",
  description: "Test: asks the question in its input and reports the outcome.",
  async run(rt, input) {
    const {
      prompt = "Test question?",
      confirm = false,
      schema,
      ...options
    } = (input ?? {}) as AskOptions & {
      prompt?: string;
      confirm?: boolean;
      schema?: Record<string, unknown>;
    };
    try {
      if (confirm) return { outcome: "answered", value: await rt.confirm(prompt, options as never) };
      const value = schema ? await rt.askJson(prompt, { schema, timeoutMs: options.timeoutMs }) : await rt.ask(prompt, options);
      rt.say(`You answered: ${JSON.stringify(value)}`);
      return { outcome: "answered", value };
    } catch (err) {
      if (err instanceof UserDeclined) return { outcome: "declined", feedback: err.feedback };
      if (err instanceof AskTimeout) return { outcome: "timed_out" };
      if (err instanceof AskRefused) return { outcome: "refused", code: err.code, message: err.message };
      throw err;
    }
  },
});

/** Asks the form in its input (`schema`, `prompt`, `timeoutMs`) and reports how it ended. */
export const probeForm = defineAgentFunction({
  name: "test.form",
  description: "Test: asks the form in its input and reports the outcome.",
  async run(rt, input) {
    const { prompt = "Test form", schema, timeoutMs, detail } = (input ?? {}) as { prompt?: string; schema: Record<string, unknown>; timeoutMs?: number | null; detail?: string };
    const result = await rt.form(prompt, schema, { timeoutMs, detail });
    rt.say(result.action === "accept" ? `Form accepted: ${JSON.stringify(result.content)}` : `Form ${result.action === "decline" ? "declined" : "cancelled"}.`);
    return result;
  },
});

/** Ignores being stopped: the server must kill it after the grace period. */
export const stubborn = defineAgentFunction({
  name: "test.stubborn",
  description: "Test: asks, then keeps running after it is stopped.",
  async run(rt) {
    try {
      await rt.ask("Stop me if you can?");
    } catch (err) {
      if (!(err instanceof RunCancelled)) throw err;
    }
    await new Promise(() => setInterval(() => {}, 1_000));
  },
});

/** A step with a random result and a message before a question: replay must not redo either. */
export const journal = defineAgentFunction({
  name: "test.journal",
  description: "Test: a recorded step and message, then a question.",
  async run(rt) {
    const token = await rt.step("make-token", () => randomUUID());
    rt.say(`Token ${token}`);
    const color = await rt.ask("Which color?", { options: ["red", "blue"] });
    return { color, token };
  },
});

let divergeInvocations = 0;

/** Asks a prompt that differs on every invocation: a resumed run cannot replay it. */
export const diverge = defineAgentFunction({
  name: "test.diverge",
  description: "Test: asks something different each time it runs.",
  async run(rt) {
    await rt.ask(`Question of invocation ${++divergeInvocations}?`);
    await rt.ask("Second?");
    return "unreachable when resumed elsewhere";
  },
});

/** Starts two child runs at once and waits for both. */
export const parent = defineAgentFunction({
  name: "test.parent",
  description: "Test: two child runs that each ask, awaited together.",
  async run(rt) {
    const [a, b] = await Promise.all([rt.call("test.ask", { prompt: "Child A?" }), rt.call("test.ask", { prompt: "Child B?" })]);
    return { a, b };
  },
});

/** Asks `count` questions in a row (policy tests). */
export const many = defineAgentFunction({
  name: "test.many",
  description: "Test: asks several questions in a row.",
  async run(rt, input) {
    const { count = 9 } = (input ?? {}) as { count?: number };
    const answers: string[] = [];
    try {
      for (let i = 1; i <= count; i++) answers.push(await rt.ask(`Question ${i}?`, { options: ["ok"] }));
    } catch (err) {
      if (err instanceof AskRefused) return { answers, refused: err.code };
      throw err;
    }
    return { answers };
  },
});

/** Notes the moment its function continues after the answer (benchmarks: reply → next line). */
export const stamp = defineAgentFunction({
  name: "test.stamp",
  description: "Test: asks, then records when it resumed.",
  async run(rt) {
    const value = await rt.ask("Ready?", { timeoutMs: null });
    return { value, resumedAt: Date.now() };
  },
});

/** Asks, then works for `workMs` (execution time limits). */
export const work = defineAgentFunction({
  name: "test.work",
  description: "Test: asks, then works for a while.",
  async run(rt, input) {
    const { workMs = 0 } = (input ?? {}) as { workMs?: number };
    await rt.ask("Go?", { timeoutMs: null });
    await rt.sleep(workMs);
    return { worked: workMs };
  },
});

/** A recorded step and message, then work that a crash can interrupt (resume of a running run). */
export const busy = defineAgentFunction({
  name: "test.busy",
  description: "Test: a step, a message, then a while of work.",
  async run(rt, input) {
    const { workMs = 1_500 } = (input ?? {}) as { workMs?: number };
    const token = await rt.step("make-token", () => randomUUID());
    rt.say(`Token ${token}`);
    await rt.sleep(workMs);
    return { token };
  },
});

/** Kills its own worker process after a recorded step, on every attempt (a crash loop). */
export const crash = defineAgentFunction({
  name: "test.crash",
  description: "Test: kills its worker process while working.",
  async run(rt) {
    await rt.step("before-crash", () => Date.now());
    process.kill(process.pid, "SIGKILL");
    await rt.sleep(60_000);
  },
});

/** Leaves a timer and an interval that touch `rt` a little later, then asks (and so may be parked meanwhile). */
export const stray = defineAgentFunction({
  name: "test.stray",
  description: "Test: timers that outlive the run's turn, then a question.",
  async run(rt, input) {
    const { delayMs = 500 } = (input ?? {}) as { delayMs?: number };
    setTimeout(() => rt.progress("A stray timer fired."), delayMs);
    setInterval(() => rt.say("A stray interval fired."), delayMs);
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the probe: an async timer whose promise nobody holds.
    setTimeout(async () => rt.progress("A stray async timer fired."), delayMs);
    return { value: await rt.ask("Stray?", { timeoutMs: null }) };
  },
});

/** A timer of the run throws a plain Error while the run works. */
export const timerThrows = defineAgentFunction({
  name: "test.timer-throws",
  description: "Test: a timer that throws while the run works.",
  async run(rt, input) {
    const { delayMs = 200, workMs = 5_000, message = "A timer exploded." } = (input ?? {}) as { delayMs?: number; workMs?: number; message?: string };
    setTimeout(() => {
      throw new Error(message);
    }, delayMs);
    await rt.sleep(workMs);
    return { worked: workMs };
  },
});

/** Fails with the message in its input: a plain Error, or an AgentError meant for the person. */
export const fail = defineAgentFunction({
  name: "test.fail",
  description: "Test: throws the error its input describes.",
  async run(_rt, input) {
    const { message = "Failed.", agentError = false } = (input ?? {}) as { message?: string; agentError?: boolean };
    throw agentError ? new AgentError(message) : new Error(message);
  },
});

/** Asks; when stopped it still finishes its work and returns (a stop that loses the race). */
export const finishAnyway = defineAgentFunction({
  name: "test.finish-anyway",
  description: "Test: returns a result even when it is stopped.",
  async run(rt) {
    try {
      await rt.ask("Stop me?");
    } catch (err) {
      if (!(err instanceof RunCancelled)) throw err;
    }
    return { done: true };
  },
});

/** The text `test.stream` writes: a little Markdown, then numbered words ("w1 w2 …"). */
export function streamText(words: number): string[] {
  const pieces = ["**Streaming** a reply:\n\n", "- first item\n", "- second item\n\n", "`inline code` and [a link](https://example.com/docs).\n\n"];
  for (let i = 1; i <= words; i++) pieces.push(`w${i}${i === words ? "." : " "}`);
  return pieces;
}

/** A piece of a `stamped` stream: the monotonic clock (process.hrtime.bigint(), ns) as it is sent; STAMPED_PIECE reads it back. */
export const stampedPiece = (): string => `t${process.hrtime.bigint()} `;
export const STAMPED_PIECE = /^t(\d+) $/;

/**
 * Streams a reply in small pieces with short sleeps; Stop cuts it off and keeps the part written,
 * marked as stopped. `stamped` (for bench-stream): each of the `words` pieces is `t<ns> `, the
 * worker's monotonic clock just before it is sent, so a tab can tell how long it took to arrive.
 */
export const stream = defineAgentFunction({
  name: "test.stream",
  description: "Test: streams a reply of a few hundred words.",
  async run(rt, input) {
    const { words = 300, delayMs = 25, afterMs = 0, stamped = false } = (input ?? {}) as { words?: number; delayMs?: number; afterMs?: number; stamped?: boolean };
    const reply = rt.reply();
    const count = Math.max(1, Math.min(words, 2_000));
    const pieces = stamped ? null : streamText(count);
    try {
      for (let i = 0; i < (pieces ? pieces.length : count); i++) {
        reply.append(pieces ? pieces[i]! : stampedPiece());
        await rt.sleep(delayMs);
      }
    } finally {
      reply.end({ stopped: rt.signal.aborted });
    }
    if (afterMs > 0) await rt.sleep(afterMs);
    return { chars: reply.text.length };
  },
});

/**
 * Asks to use the catalogue tool its input names (`tool`, `input`) and reports how it went: with
 * `real: true` the tool runs for real in the workspace (`result` is what it returned), else a
 * stand-in runs nothing. Refusals come back as `outcome` (a ToolDenied's reason, or "refused"),
 * the error's name and message.
 */
export const probeTool = defineAgentFunction({
  name: "test.tool",
  description: "Test: asks approval for the tool call in its input ({ tool, input, real? }); runs it for real only when real is true.",
  async run(rt, input) {
    const { tool, input: toolInput, real = false } = (input ?? {}) as { tool: string; input: unknown; real?: boolean };
    try {
      if (real) return { outcome: "allowed", result: await rt.tool(tool, toolInput as never) };
      const result = await rt.tool(tool, toolInput as never, () => ({ ran: "nothing (test stand-in)" }));
      rt.say(`Allowed: ${JSON.stringify(result)}`);
      return { outcome: "allowed" };
    } catch (err) {
      if (err instanceof ToolDenied) return { outcome: err.reason, refused: err.name, message: err.message, feedback: err.feedback ?? null };
      if (err instanceof ToolFailed || err instanceof ToolInputInvalid) return { outcome: "refused", refused: err.name, message: err.message };
      throw err;
    }
  },
});

export const testFunctions = [probeAsk, probeForm, stubborn, journal, diverge, parent, many, stamp, work, busy, crash, stray, timerThrows, fail, finishAnyway, stream, probeTool];
