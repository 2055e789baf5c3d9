import type { Question } from "../../protocol/question";
import { subscribe, type DomainEvents } from "../events";
import { log } from "../log";

/**
 * Every surface that shows waiting questions and takes them back, in the order each hears a
 * question's news: the tabs and terminals first, then the outboxes, then those waiting on an
 * answer in a request. Adding one: a member here, its folder, and its line where it is attached.
 */
export const DELIVERY_SURFACES = ["sockets", "push", "slack", "email", "webhooks", "asks", "channel"] as const;
export type DeliverySurface = (typeof DELIVERY_SURFACES)[number];

/**
 * What a surface does with a question's news. The answer it brings back goes through
 * `questions.reply` / `reject` with its `AnswerSurface` as `by` and the person who answered
 * (`AnswerCommand`), so the claim decides the first answer for every surface alike.
 */
export interface QuestionSurface {
  /** A question was stored and waits: show it to those who may answer. */
  deliver(question: Question): void;
  /** An escalation let `to` answer it too: tell them. */
  escalate?(question: Question, to: readonly string[]): void;
  /** It changed while waiting (a vote, an escalation). */
  update?(question: Question): void;
  /** It was settled (answered, declined, timed out, withdrawn): take it back wherever it was shown. */
  retract(question: Question): void;
}

/** The surfaces the domain builds itself (null: one this server is not set up for); the tabs' sockets attach from their transport. */
export type DomainSurfaces = Record<Exclude<DeliverySurface, "sockets">, QuestionSurface | null>;

export interface QuestionSurfaces {
  /** Attaches a surface under its name (one each); the function returned detaches it. */
  attach(name: DeliverySurface, surface: QuestionSurface): () => void;
  /** Attaches every surface the domain builds: a new member of DELIVERY_SURFACES is missing here until it is built. */
  attachAll(table: DomainSurfaces): void;
  /** Which are attached now, in delivery order. */
  attached(): DeliverySurface[];
  close(): void;
}

/** The one registry of delivering surfaces: it hears the question events once and tells each surface in order. */
export function createQuestionSurfaces(events: DomainEvents): QuestionSurfaces {
  const surfaces = new Map<DeliverySurface, QuestionSurface>();
  // One surface's fault never keeps the news from the others.
  const each = (what: string, question: Question, tell: (s: QuestionSurface) => void) => {
    for (const name of DELIVERY_SURFACES) {
      const surface = surfaces.get(name);
      if (!surface) continue;
      try {
        tell(surface);
      } catch (err) {
        log.error({ surface: name, questionId: question.id, err }, `[surfaces] ${what} failed`);
      }
    }
  };
  const unsubscribe = subscribe(events, {
    "question.asked": (q) => each("deliver", q, (s) => s.deliver(q)),
    "question.escalated": (q, to) => each("escalate", q, (s) => s.escalate?.(q, to)),
    "question.updated": (q) => each("update", q, (s) => s.update?.(q)),
    "question.closed": (q) => each("retract", q, (s) => s.retract(q)),
  });
  return {
    attach(name, surface) {
      if (surfaces.has(name)) throw new Error(`the ${name} surface is attached already`);
      surfaces.set(name, surface);
      return () => {
        if (surfaces.get(name) === surface) surfaces.delete(name);
      };
    },
    attachAll(table) {
      for (const [name, surface] of Object.entries(table) as Array<[DeliverySurface, QuestionSurface | null]>) if (surface) this.attach(name, surface);
    },
    attached: () => DELIVERY_SURFACES.filter((name) => surfaces.has(name)),
    close() {
      unsubscribe();
      surfaces.clear();
    },
  };
}
