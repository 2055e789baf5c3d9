import { randomUUID } from "node:crypto";
import type { QuestionSpecInput } from "../../lib/protocol/question";
import type { AnswerQueue } from "./answer-queue";
import { digestOf, type Claim, type Journal } from "./journal";
import type { RunContext } from "./run-context";
import type { Audience, Settlement } from "./types";

/**
 * Asking the parent: a question (of any kind, an approval too) takes its journal position, goes
 * out in the order the positions were claimed, and waits in the answer queue for its settlement —
 * or, on replay, returns the one the journal recorded.
 */

export const DEFAULT_TIMEOUT_MS = 30 * 60_000;

/** A question's timeout as its spec carries it: the default when none is given, null for none. */
export const timeoutOf = (t: number | null | undefined) => (t === undefined ? DEFAULT_TIMEOUT_MS : t);

/** The audience fields a question's spec takes, only those given (a spec without them reads as before). */
export const audienceOf = ({ answerers, escalate }: Audience) => ({ ...(answerers && { answerers }), ...(escalate && { escalate }) });

/** A question's place in the order questions go out: over when it was sent, or will not be. */
interface SendTurn {
  send: (() => void) | null;
  over: boolean;
}

/** A question whose journal position is taken, not yet asked. */
export interface ClaimedQuestion extends Claim<"question"> {
  digest: string;
  turn: SendTurn;
}

export interface Questions {
  /**
   * Claims the question's journal position (at once: a claim that fails throws here) and its turn
   * to go out. `digestExtra` joins the digest (an approval's tool and input).
   */
  claim(spec: Omit<QuestionSpecInput, "approval">, digestExtra?: unknown[]): ClaimedQuestion;
  /** Asks a claimed question, unless the journal has it: then its recorded settlement, or the wait for it. */
  ask(claimed: ClaimedQuestion, spec: () => QuestionSpecInput): Promise<Settlement>;
  /** A claimed question that will not be asked after all: the questions claimed after it go out without waiting for it. */
  release(claimed: ClaimedQuestion): void;
  /** Claims and asks a question at once. */
  settlementFor(spec: QuestionSpecInput): Promise<Settlement>;
}

export function createQuestions(ctx: RunContext, journal: Journal, answers: AnswerQueue): Questions {
  const { host } = ctx;
  const newId = host.newId ?? randomUUID;

  /**
   * Questions go out in the order their positions were claimed: a tool's approval waits for the
   * tool's checks on disk, and a question claimed after it does not overtake it (the cards show
   * in the order the function asked). A turn is taken at the claim and ends when its question is
   * sent, or when it will not be (recorded already, or refused before asking).
   */
  const sendTurns: SendTurn[] = [];
  function takeSendTurn(): SendTurn {
    const turn: SendTurn = { send: null, over: false };
    sendTurns.push(turn);
    return turn;
  }
  function endSendTurn(turn: SendTurn, send?: () => void): void {
    if (send) turn.send = send;
    else turn.over = true;
    while (sendTurns.length > 0 && (sendTurns[0]!.over || sendTurns[0]!.send)) sendTurns.shift()!.send?.();
  }

  function claim(spec: Omit<QuestionSpecInput, "approval">, digestExtra: unknown[] = []): ClaimedQuestion {
    const digest = digestOf("question", spec.kind, spec.prompt, spec.options ?? [], spec.multi ?? false, spec.allowCustom ?? false, spec.replySchema ?? null, ...digestExtra);
    const claimed = journal.claim("question", digest, `the question "${spec.prompt}"`);
    return { digest, ...claimed, turn: takeSendTurn() };
  }

  function ask(claimed: ClaimedQuestion, spec: () => QuestionSpecInput): Promise<Settlement> {
    const { seq, digest, record, turn } = claimed;
    if (record) {
      endSendTurn(turn);
      return record.settlement ? Promise.resolve(record.settlement) : answers.waitForQuestion(record.questionId);
    }
    const questionId = newId();
    const waiting = answers.waitForQuestion(questionId);
    endSendTurn(turn, () => ctx.send({ type: "question.ask", runId: host.runId, seq, digest, questionId, spec: spec() as never }));
    return waiting;
  }

  return {
    claim,
    ask,
    release: (claimed) => endSendTurn(claimed.turn),
    async settlementFor(spec) {
      return ask(claim(spec), () => spec);
    },
  };
}
