import type { Answerer } from "../access/answering-as";
import type { Run } from "../../protocol/entities";
import { AppError } from "../../protocol/errors";
import type { Db } from "../store/db/client";
import type { SqlTx } from "../store/sql-executor";
import type { TextCommandResult, TextCommands } from "../commands/text-commands";
import type { QuestionService } from "../questions/question-service";
import type { RunService } from "../runs/run-service";
import { loadChatHistory } from "./chat-history";
import { sessionWaitingError } from "./session-busy";
import type { SessionService } from "./session-service";
import type { TitledFunction } from "./automatic-title";

export interface ChatTurnDeps {
  db: Db;
  sessions: SessionService;
  questions: QuestionService;
  runs: RunService;
  textCommands: TextCommands;
  /** The agent function that answers a chat message. */
  chatFunction: string;
  /** The functions loaded now: a slash command that starts one titles an untitled chat after it. */
  functions: () => readonly TitledFunction[];
}

/** A session's chat turns: a message starts one (a run of the chat agent), a failed one can be run again. */
export function createChatTurns({ db, sessions, questions, runs, textCommands, chatFunction, functions }: ChatTurnDeps) {
  /** A new chat turn is refused while a question of the session waits, a run's beside the turns too: its card is the answer box. */
  async function refuseWhileWaiting(tx: SqlTx, sessionId: string): Promise<void> {
    const waiting = await questions.firstPendingIn(tx, { sessionId });
    if (waiting) throw sessionWaitingError(waiting);
  }

  /**
   * A chat message: stored with the run of the chat agent that answers it, in one transaction.
   * A session runs one turn at a time: while a turn is active, or a question waits, it is busy.
   * A text command (`/answer`, `/decline`, `/approve`) is applied instead, busy or not: it answers
   * a pending question as its card would, and starts no run.
   */
  async function postMessage({ sessionId, text, sender, answerer }: { sessionId: string; text: string; sender?: string; answerer?: Answerer }): Promise<Run | TextCommandResult> {
    const { ownerId } = await sessions.getSession({ id: sessionId });
    const command = await textCommands.apply({ sessionId, text, answerer });
    if (command) return command;
    // The model's context: the session's earlier messages, bounded (this one is stored below).
    const history = await loadChatHistory(db, sessionId);
    let message: Awaited<ReturnType<typeof sessions.recordMessage>> | undefined;
    const run = await runs.startRun({
      sessionId,
      sessionOwnerId: ownerId,
      functionName: chatFunction,
      input: { text, history },
      turnOf: sessionId,
      // A text channel's message speaks for the person its sender is linked to (the answerer), else for no one.
      ...(answerer && { starterId: answerer.person }),
      alongWith: async (tx, runId) => {
        await refuseWhileWaiting(tx, sessionId);
        // The message belongs to the turn it starts: the transcript keeps them together.
        message = await sessions.recordMessage(tx, { sessionId, role: "user", text, runId, sender });
      },
      // Tabs see the message before the run that answers it.
      committed: () => sessions.announceMessage(message!),
    });
    await sessions.titleFromMessage({ id: sessionId, text, functions: functions() });
    return run;
  }

  /**
   * Runs a failed chat turn again: the same message and context, in a new turn and without a
   * second user message. Only the session's latest turn, and only once: not_retryable otherwise
   * (checked again in the new run's transaction, so two tabs' Retry start one turn).
   */
  async function retryTurn({ runId, by }: { runId: string; by?: string }): Promise<Run> {
    const failed = await runs.getRun({ id: runId });
    const notRetryable = (why: string) => new AppError("not_retryable", `Run ${runId} cannot be retried: ${why}.`);
    if (failed.functionName !== chatFunction) throw notRetryable("only a chat turn can be");
    if (failed.status !== "failed") throw notRetryable(`it ${failed.status === "succeeded" ? "succeeded" : `is ${failed.status.replace("_", " ")}`}`);
    const input = typeof failed.input === "object" && failed.input !== null ? (failed.input as Record<string, unknown>) : {};
    const { sessionId } = failed;
    return runs.startRun({
      sessionId,
      functionName: chatFunction,
      input: { ...input, retryOf: runId },
      turnOf: sessionId,
      ...(by && { starterId: by }),
      alongWith: async (tx, newRunId) => {
        await refuseWhileWaiting(tx, sessionId);
        if (await runs.store.startedSince(tx, { sessionId, functionName: chatFunction, since: failed.createdAt, failed: runId, retry: newRunId })) {
          throw notRetryable("a later turn was started (a Retry, or a new message)");
        }
      },
    });
  }

  return { postMessage, retryTurn };
}

export type ChatTurns = ReturnType<typeof createChatTurns>;
