import { createAnswerQueue } from "./answer-queue";
import { createChatMessages } from "./chat-messages";
import { createChildCalls } from "./child-calls";
import { createJournal } from "./journal";
import { createQuestionKinds } from "./question-kinds";
import { createQuestions } from "./questions";
import { createRunContext } from "./run-context";
import { createToolRunner } from "./tool-runner";
import type { AskOptions, FormOptions, RunController, Runtime, RuntimeHost, ToolOptions } from "./types";
import type { Tool } from "../tools";

/**
 * The runtime of one run, composed of its parts: the run's context (stop, park, the way out;
 * run-context.ts), its journal (journal.ts), the answer queue (answer-queue.ts), asking in order
 * (questions.ts), the question kinds (question-kinds.ts), tool calls (tool-runner.ts), child runs
 * (child-calls.ts) and chat messages (chat-messages.ts). The contract is in types.ts.
 */

export type {
  AskJsonOptions,
  AskOptions,
  Audience,
  CallSettlement,
  ConfirmOptions,
  FormOptions,
  FormResult,
  ReplyStream,
  RunController,
  Runtime,
  RuntimeHost,
  Settlement,
  StepContext,
  ToolInputOf,
  ToolOptions,
  ToolParsedInputOf,
  ToolResultOf,
} from "./types";
export { digestOf } from "./journal";
export { DEFAULT_TIMEOUT_MS } from "./questions";

export function createRuntime(host: RuntimeHost): RunController {
  const ctx = createRunContext(host);
  const journal = createJournal(ctx, host.journal);
  const answers = createAnswerQueue(ctx);
  const questions = createQuestions(ctx, journal, answers);
  const kinds = createQuestionKinds(ctx, questions);
  const { tool } = createToolRunner(ctx, journal, questions);
  const { call } = createChildCalls(ctx, journal, answers);
  const messages = createChatMessages(ctx, journal);

  const rt: Runtime = {
    runId: host.runId,
    sessionId: host.sessionId,
    signal: ctx.signal,
    ask: kinds.ask,
    askJson: kinds.askJson,
    confirm: kinds.confirm,
    form: kinds.form,
    canAsk: () => host.canAsk && !ctx.signal.aborted,
    askUser: kinds.askUser,
    step: journal.step,
    tool,
    call,
    say: messages.say,
    reply: messages.reply,
    progress: messages.progress,
    sleep: ctx.sleep,
    withOwner: (owner) => ownedBy(rt, owner),
  };

  return {
    rt,
    settle: answers.settle,
    refuse: answers.refuse,
    settleCall: answers.settleCall,
    cancel(reason) {
      if (!ctx.stop(reason)) return;
      answers.rejectAll(ctx.cancelledError);
    },
    park() {
      if (journal.busy()) return false;
      ctx.park();
      answers.drop();
      return true;
    },
    divergence: journal.divergence,
    isParked: ctx.isParked,
    pendingCount: answers.size,
  };
}

/** The same runtime whose questions default to another owner label. */
function ownedBy(rt: Runtime, owner: string): Runtime {
  return {
    ...rt,
    ask: ((prompt: string, options: AskOptions = {}) => rt.ask(prompt, { owner, ...options })) as Runtime["ask"],
    askJson: (prompt, options) => rt.askJson(prompt, { owner, ...options }),
    confirm: (prompt, options = {}) => rt.confirm(prompt, { owner, ...options }),
    form: (message: string, schema: Record<string, unknown>, options: FormOptions = {}) => rt.form(message, schema, { owner, ...options } as never),
    askUser: (prompt, options = {}) => rt.askUser(prompt, { owner, ...options }),
    tool: ((name: string | Tool, input: unknown, impl: never, options: ToolOptions = {}) => rt.tool(name as never, input as never, impl, { owner, ...options })) as Runtime["tool"],
  };
}
