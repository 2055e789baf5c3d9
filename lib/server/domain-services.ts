import { systemClock, type Clock } from "./clock";
import { createCommandService } from "./ledger/command-ledger";
import type { Db } from "./store/db/client";
import { DomainEvents } from "./events";
import type { Metrics } from "./metrics";
import { createQuestionService, type QuestionServiceDeps } from "./questions/question-service";
import { createSessionService } from "./sessions/session-service";

/**
 * The services that need nothing but the database: the server builds its runs on top of them,
 * and the CLI uses them as they are (no timers start until asked, no events reach anyone there).
 */
export function createDomainServices({
  db,
  clock = systemClock,
  metrics,
  events = new DomainEvents(),
  ...answering
}: { db: Db; clock?: Clock; metrics?: Pick<Metrics, "time">; events?: DomainEvents } & Pick<QuestionServiceDeps, "settled" | "judge" | "timerOwner" | "editedCalls">) {
  const commands = createCommandService({ db });
  const sessions = createSessionService({ db, events });
  const questions = createQuestionService({ db, events, commands, now: () => new Date(clock.now()), metrics, ...answering });
  return { events, commands, sessions, questions };
}

export type DomainServices = ReturnType<typeof createDomainServices>;
