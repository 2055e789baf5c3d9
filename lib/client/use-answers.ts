import { useCallback, useEffect, useRef, useState, type Dispatch, type RefObject } from "react";
import type { JsonValue, Question, ReplyReceipt } from "../protocol/question";
import type { Ack } from "../protocol/socket";
import type { Coalescer } from "./coalesce";
import { lateText, retraction } from "./late-text";
import { afterAck, afterReceipt, type OwnAnswers } from "./own-answers";
import type { SessionAction } from "./session-store";
import { emitWithAck } from "./socket";
import type { SessionTransport } from "./transport";

/** A short notice after a reply lost the race, e.g. "Already answered in another tab". */
export interface LateNotice {
  questionId: string;
  text: string;
}

export interface Answers {
  /** The questions this view answered, before their broadcasts. */
  own: OwnAnswers;
  notice: LateNotice | null;
  reply(question: Question, value: JsonValue, input?: Record<string, unknown>, until?: string): Promise<Ack<ReplyReceipt>>;
  reject(question: Question, message?: string): Promise<Ack<ReplyReceipt>>;
}

const LATE_NOTICE_MS = 3_000;

/** Replies and rejections from this view: each receipt is applied at once rather than waiting for the broadcast. */
export function useAnswers(sessionId: string, via: () => SessionTransport, dispatch: Dispatch<SessionAction>, closings: RefObject<Coalescer<SessionAction> | null>): Answers {
  const [notice, setNotice] = useState<LateNotice | null>(null);
  const [own, setOwn] = useState<OwnAnswers>(new Set());
  // Read by a reply's ack: the state above may not have rendered yet when two keys come fast.
  const ownNow = useRef<OwnAnswers>(own);
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());

  const later = useCallback((ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.current.delete(t);
      fn();
    }, ms);
    timers.current.add(t);
  }, []);
  // A notice does not outlive the session (or the transport) it was shown for.
  useEffect(() => {
    const pendingTimers = timers.current;
    return () => {
      pendingTimers.forEach(clearTimeout);
      pendingTimers.clear();
    };
  }, [sessionId, via]);

  /** A race lost to someone else is shown, then retracted. */
  const settle = useCallback(
    (questionId: string, ack: Ack<ReplyReceipt>) => {
      const before = ownNow.current;
      ownNow.current = afterAck(before, questionId, ack);
      if (ownNow.current !== before) setOwn(ownNow.current);
      if (!ack.ok) return;
      const receipt = ack.data;
      switch (afterReceipt(receipt, before)) {
        case "keep":
          return;
        case "retract":
          return void closings.current!.hold(retraction(receipt.question));
        case "update": {
          // Your vote counted: the card stays and shows it (behind any closings held, keeping the order).
          const counted: SessionAction = { type: "question.updated", question: receipt.question };
          return void (closings.current!.waiting ? closings.current!.hold(counted) : dispatch(counted));
        }
        case "late":
          break;
      }
      const late = { questionId: receipt.question.id, text: lateText(receipt, via().surface) };
      setNotice(late);
      later(LATE_NOTICE_MS, () => {
        setNotice((current) => (current === late ? null : current));
        dispatch(retraction(receipt.question));
      });
    },
    [later, via, dispatch, closings],
  );

  const reply = useCallback(
    async (question: Question, value: JsonValue, input?: Record<string, unknown>, until?: string) => {
      // The digest makes a reply to a question that has since changed fail loudly (stale_target).
      const ack = await emitWithAck("question.reply", { id: question.id, value, digest: question.targetDigest, ...(input && { input }), ...(until && { until }) }, via().socket);
      settle(question.id, ack);
      return ack;
    },
    [settle, via],
  );

  const reject = useCallback(
    async (question: Question, message?: string) => {
      const base = { id: question.id, digest: question.targetDigest };
      const ack = await emitWithAck("question.reject", message ? { ...base, message } : base, via().socket);
      settle(question.id, ack);
      return ack;
    },
    [settle, via],
  );

  return { own, notice, reply, reject };
}
