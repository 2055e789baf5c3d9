import { AskTimeout, RunCancelled, UserDeclined, defineAgentFunction, type AskOptions } from "../runtime";

/**
 * Functions for the test suites only, registered when PARLEY_TEST_FUNCTIONS=1
 * (like a mock model switched on by an environment variable).
 */

/** Asks what its input describes and returns how the question ended. */
export const probeAsk = defineAgentFunction({
  name: "test.ask",
  description: "Test: asks the question in its input and reports the outcome.",
  async run(rt, input) {
    const { prompt = "Test question?", confirm = false, ...options } = (input ?? {}) as AskOptions & { prompt?: string; confirm?: boolean };
    try {
      if (confirm) return { outcome: "answered", value: await rt.confirm(prompt, options as never) };
      const value = await rt.ask(prompt, options);
      rt.say(`You answered: ${JSON.stringify(value)}`);
      return { outcome: "answered", value };
    } catch (err) {
      if (err instanceof UserDeclined) return { outcome: "declined", feedback: err.feedback };
      if (err instanceof AskTimeout) return { outcome: "timed_out" };
      throw err;
    }
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

export const testFunctions = [probeAsk, stubborn];
