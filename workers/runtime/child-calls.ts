import type { JsonValue } from "../../lib/protocol/question";
import type { AnswerQueue } from "./answer-queue";
import { ChildRunFailed } from "./errors";
import { digestOf, type Journal } from "./journal";
import type { RunContext } from "./run-context";
import type { CallSettlement, Runtime } from "./types";

/** `rt.call`: a child run of another agent function, journaled; its end comes back through the answer queue. */
export type ChildCalls = Pick<Runtime, "call">;

export function createChildCalls(ctx: RunContext, journal: Journal, answers: AnswerQueue): ChildCalls {
  const { host, own } = ctx;
  return {
    async call<T extends JsonValue>(functionName: string, input: JsonValue = null): Promise<T> {
      const digest = digestOf("call", functionName, input);
      const { seq, record } = journal.claim("call", digest, `a call of ${functionName}`);
      const arrived = answers.takeCall(seq);
      let settlement: CallSettlement | null = record?.settlement ?? arrived ?? null;
      if (!settlement) {
        const waiting = answers.waitForCall(seq);
        if (!record) ctx.send({ type: "run.call", runId: host.runId, seq, digest, functionName, input });
        settlement = await waiting;
      }
      if (settlement.status === "succeeded") return settlement.result as T;
      throw own(new ChildRunFailed(functionName, settlement.status, settlement.error));
    },
  };
}
