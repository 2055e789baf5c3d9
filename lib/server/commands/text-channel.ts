import type { Answerer } from "../access/answering-as";
import type { Run } from "../../protocol/entities";
import { AppError } from "../../protocol/errors";
import { CHANNEL_WAIT_MS, MAX_OUTBOX_PAGE, channelSender, formatChannelReply, refusalText, slashWord, unknownCommandLine, type ChannelOutbox, type ChannelReply } from "../../protocol/channels";
import type { Question } from "../../protocol/question";
import type { Db } from "../store/db/client";
import type { QuestionService } from "../questions/question-service";
import type { RunService } from "../runs/run-service";
import type { SessionService } from "../sessions/session-service";
import { createMessageStore } from "../store/sessions/message-store";
import type { TextCommandResult, TextCommands } from "./text-commands";
import { subscribe, type DomainEvents } from "../events";
import type { QuestionSurface } from "../surfaces/question-surfaces";
import { createWakers } from "../surfaces/wakers";
import { TURN_RECHECK_MS, watchTurn } from "./turn-watch";

export interface TextChannelDeps {
  db: Db;
  sessions: SessionService;
  questions: QuestionService;
  runs: RunService;
  textCommands: TextCommands;
  /** What happens in the session: a turn's wait wakes on it. */
  events: DomainEvents;
  /** Starts a chat turn (or applies a text command) as a message typed in the app would. */
  postMessage(message: { sessionId: string; text: string; sender?: string; answerer?: Answerer }): Promise<Run | TextCommandResult>;
  /** The chat commands of the functions loaded now (`coffee` for `/coffee`). */
  chatCommands(): readonly string[];
}

/** A plain-text channel (SMS, chat bridges): its messages in, and what the session said out. */
export function createTextChannel({ db, sessions, questions, runs, textCommands, events, postMessage, chatCommands }: TextChannelDeps) {
  const messages = createMessageStore(db.exec);
  // The sessions whose turns wait here, woken when a question of theirs is asked.
  const asked = createWakers();
  const surface: QuestionSurface = {
    deliver: (q) => asked.wake(q.sessionId),
    // Its adapter reads what happened from the outbox.
    retract: () => {},
  };
  const sessionChanges = (sessionId: string) => (heard: () => void) => {
    const offAsked = asked.on(sessionId, heard);
    const offRuns = subscribe(events, { "run.updated": (run) => run.sessionId === sessionId && heard() });
    return () => {
      offAsked();
      offRuns();
    };
  };
  /**
   * A plain-text channel's message (non-blocking mode): a text command is applied; with exactly
   * one question pending, plain text answers it (closed by "channel", the sender in the reply);
   * else it starts a chat turn, and the reply says what the agent said within CHANNEL_WAIT_MS
   * and the question it asks, if any. The request is never held open for an answer. A message
   * that can do nothing (an unknown command, a new turn while a question waits or a turn works) is
   * answered, never refused with an error: a text-only surface could not act on one, so the reply
   * says what waits and how to answer it.
   */
  async function receive({
    sessionId,
    from,
    text,
    waitMs = CHANNEL_WAIT_MS,
    answerer,
  }: {
    sessionId: string;
    from: string;
    text: string;
    waitMs?: number;
    answerer?: Answerer;
  }): Promise<ChannelReply> {
    await sessions.getSession({ id: sessionId });
    const command = await textCommands.apply({ sessionId, text, by: "channel", from, plainAnswer: true, answerer });
    if (command) {
      return { reply: command.reply.text, from, outcome: command.outcome, questionId: command.question?.id ?? null, runId: command.question?.runId ?? null, cursor: command.reply.id };
    }
    const refused = (problem: string, waiting: readonly Question[]): ChannelReply => {
      const only = waiting.length === 1 ? waiting[0]! : null;
      return { reply: refusalText(problem, waiting), from, outcome: "refused", questionId: only?.id ?? null, runId: only?.runId ?? null, cursor: null };
    };
    const waiting = await questions.listPending({ sessionId });
    const word = slashWord(text);
    if (word !== null && !chatCommands().includes(word)) return refused(unknownCommandLine(word, chatCommands()), waiting);
    if (waiting.length > 0) return refused(waiting.length > 1 ? "Several questions are waiting: say which one you answer." : "Answer the question first: a new chat turn waits for it.", waiting);
    // Listening before the turn starts: what it does first is heard.
    const turn = watchTurn(sessionChanges(sessionId));
    let started: Run | TextCommandResult;
    let pending: Question[];
    try {
      try {
        started = await postMessage({ sessionId, text, sender: channelSender(from), answerer });
      } catch (err) {
        // Busy after all: a question was asked, or a turn started, since the look above.
        if (!(err instanceof AppError) || err.code !== "session_busy") throw err;
        return refused(err.message, await questions.listPending({ sessionId }));
      }
      if (!("status" in started)) throw new Error("a chat message started no run");
      const deadline = Date.now() + waitMs;
      for (;;) {
        pending = await questions.listPending({ sessionId });
        const run = await runs.getRun({ id: started.id });
        const left = deadline - Date.now();
        if (pending.length > 0 || (run.status !== "running" && run.status !== "waiting_input") || left <= 0) break;
        await turn.next(Math.min(left, TURN_RECHECK_MS));
      }
    } finally {
      turn.stop();
    }
    const said = await messages.saidInRun(sessionId, started.id);
    const last = await messages.lastSaidId(sessionId);
    return {
      reply: formatChannelReply({ said, pending }),
      from,
      outcome: "started",
      questionId: pending[0]?.id ?? null,
      runId: started.id,
      cursor: last ?? null,
    };
  }

  /** A session's agent and system messages after a cursor (a message id), oldest first, for a channel adapter to relay. */
  async function outbox({ sessionId, after }: { sessionId: string; after?: string }): Promise<ChannelOutbox> {
    await sessions.getSession({ id: sessionId });
    const since = after === undefined ? undefined : await messages.place(sessionId, after);
    if (after !== undefined && !since) throw new AppError("bad_request", "after is not a message of this session: pass the cursor of an earlier outbox answer.");
    const rows = await messages.saidAfter(sessionId, since, MAX_OUTBOX_PAGE);
    const said = rows.map((m) => ({ id: m.id, role: m.role as "agent" | "system", text: m.text, createdAt: m.createdAt.toISOString() }));
    return { messages: said, cursor: said.at(-1)?.id ?? after ?? null };
  }

  return { receive, outbox, surface };
}
