import { systemClock, type Clock } from "./clock";
import { createCommandService } from "./commands/command-service";
import type { Db } from "./db/client";
import { DomainEvents } from "./events";
import { createQuestionService } from "./questions/question-service";
import { createSessionService } from "./sessions/session-service";

/**
 * The services that need nothing but the database: the server builds its runs on top of them,
 * and the CLI uses them as they are (no timers start until asked, no events reach anyone there).
 */
export function createDomainServices({ db, clock = systemClock }: { db: Db; clock?: Clock }) {
  const events = new DomainEvents();
  const commands = createCommandService({ db });
  const sessions = createSessionService({ db, events });
  const questions = createQuestionService({ db, events, commands, now: () => new Date(clock.now()) });
  return { events, commands, sessions, questions };
}

export type DomainServices = ReturnType<typeof createDomainServices>;
