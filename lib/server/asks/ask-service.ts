import { peopleNamed } from "../../protocol/teams";
import { createMemberStore } from "../store/members/member-store";
import { checkPeopleNamed } from "../questions/people-named";
import { ACTIVE_RUN_STATUSES, type RunStarter } from "../../protocol/entities";
import { AppError } from "../../protocol/errors";
import { APPROVAL_FUNCTION, ASK_FUNCTION, type ApprovalAskInput, type AskBody } from "../../protocol/asks";
import type { Question } from "../../protocol/question";
import { subscribe, type DomainEvents } from "../events";
import type { QuestionSurface } from "../surfaces/question-surfaces";
import { createWakers } from "../surfaces/wakers";
import type { QuestionService } from "../questions/question-service";
import type { RunService } from "../runs/run-service";
import type { SessionService } from "../sessions/session-service";
import { keyedSerial } from "../one-at-a-time";
import type { Db } from "../store/db/client";
import { createSessionStore } from "../store/sessions/session-store";
import { checkCallbackUrl, DEFAULT_WEBHOOK_HOSTS } from "../webhooks/callback-hosts";

/** How long an ask waits for its run to put the question (a worker starts it, warm: a few ms). */
const ASKED_WITHIN_MS = 15_000;

export interface AskRequest<B = AskBody> {
  ownerId: string;
  body: B;
  /** The asker's key for this ask, kept per credential: the same key again returns the same question. */
  idempotencyKey?: string;
  /** The credential that asks (`api:<token id>`, `server`, …): keys of different credentials never meet. */
  credential: string;
  startedBy?: RunStarter;
}

/**
 * Asks from outside Parley: each is a run of the built-in `ask` function in a session of the
 * asker's owner, so its question is an ordinary one (cards, inbox, text channel, first answer
 * wins, retraction, audit, parking and restarts). This service starts it and waits for it.
 */
export function createAskService({
  db,
  sessions,
  runs,
  questions,
  events,
  callbackHosts = DEFAULT_WEBHOOK_HOSTS,
}: {
  db: Db;
  sessions: SessionService;
  runs: RunService;
  questions: QuestionService;
  events: DomainEvents;
  /** The hosts an ask's callbackUrl may name (PARLEY_WEBHOOK_HOSTS). */
  callbackHosts?: readonly string[];
}) {
  const sessionsByName = keyedSerial();
  const members = createMemberStore(db.exec);
  const sessionStore = createSessionStore(db.exec);
  // Asks waiting for their run's question (by run id), and for their question's end (by its id).
  const askedIn = createWakers();
  const closed = createWakers();

  /** The session an ask names (an id, else a title), or the one named after who asks; made on first use. */
  function sessionFor(ownerId: string, named: string | undefined, from: string): Promise<string> {
    const title = named ?? from;
    return sessionsByName(`${ownerId}\n${title}`, async () => {
      return (await sessionStore.idNamed(ownerId, title)) ?? (await sessions.createSession({ ownerId, title })).id;
    });
  }

  /** Settles with the first question of the run, once it is stored (or fails when the run ends without one). */
  function questionOf(runId: string): Promise<Question> {
    const deadline = Date.now() + ASKED_WITHIN_MS;
    return watch(
      async () => {
        const [question] = await questions.listOfRun(runId);
        if (question) return question;
        const run = await runs.getRun({ id: runId });
        if (!ACTIVE_RUN_STATUSES.includes(run.status)) throw new AppError("internal", `The ask's run ended ${run.status} before it asked: ${run.error ?? "no reason given"}`);
        if (Date.now() >= deadline) throw new AppError("unavailable", "The question could not be put in time (no worker took the ask). Ask again with the same Idempotency-Key.");
        return undefined;
      },
      (wake) => {
        const offAsked = askedIn.on(runId, wake);
        const offRuns = subscribe(events, { "run.updated": (run) => run.id === runId && wake() });
        return () => {
          offAsked();
          offRuns();
        };
      },
      deadline,
    );
  }

  /** Starts the run that asks (idempotent by key: the same key finds the same run), and returns its question once stored. */
  async function put(
    functionName: string,
    { ownerId, body, idempotencyKey, credential, startedBy }: AskRequest<{ session?: string; from: string } & Parameters<typeof peopleNamed>[0]>,
  ): Promise<Question> {
    const { session, ...input } = body;
    const sessionId = await sessionFor(ownerId, session, body.from);
    // Refused before a run starts: its question could only fail to be asked.
    await checkPeopleNamed(members, sessionId, peopleNamed(body));
    const commandId = idempotencyKey === undefined ? undefined : `ask:${credential}:${idempotencyKey}`;
    const run = await runs.startRun({ sessionId, functionName, input, commandId, startedBy, starterId: ownerId });
    return questionOf(run.id);
  }

  return {
    /** What the surfaces' registry tells it: the waits on a run's question and on a question's end. */
    surface: {
      deliver: (q) => askedIn.wake(q.runId),
      retract: (q) => closed.wake(q.id),
    } satisfies QuestionSurface,

    /** Puts the question (idempotent by key): its run is started, or found again, and the question returned once stored. */
    ask(request: AskRequest): Promise<Question> {
      // Refused before anything is stored: a callback to a host not allowed is never enqueued.
      if (request.body.callbackUrl !== undefined) checkCallbackUrl(request.body.callbackUrl, callbackHosts);
      return put(request.body.kind === "approval" ? APPROVAL_FUNCTION : ASK_FUNCTION, request);
    },

    /** Puts an approval of a tool outside Parley (idempotent by key); the permission rules may have settled it already. */
    approve: (request: AskRequest<ApprovalAskInput & { session?: string }>) => put(APPROVAL_FUNCTION, request),

    /** Withdraws the question (its run is stopped: every surface retracts it); one already settled stays as it is. */
    async withdraw(question: Pick<Question, "runId">): Promise<void> {
      await runs.stopRun({ id: question.runId, by: "asker" });
    },

    /** The question, once it is settled, `seconds` have passed or `signal` is aborted, whichever is first (settled on another node: seen within a second). */
    settled(id: string, seconds: number, signal?: AbortSignal): Promise<Question> {
      const deadline = Date.now() + seconds * 1000;
      return watch(
        async () => {
          const question = await questions.getQuestion({ id });
          return question.status !== "pending" || Date.now() >= deadline || signal?.aborted ? question : undefined;
        },
        (wake) => {
          signal?.addEventListener("abort", wake);
          const offClosed = closed.on(id, wake);
          return () => {
            signal?.removeEventListener("abort", wake);
            offClosed();
          };
        },
        deadline,
      );
    },
  };
}

export type AskService = ReturnType<typeof createAskService>;

/** Looks until `look` gives a value: again at each event `listen` wakes it for, at least each second (what another node changed is not heard here), and at `deadline`. */
async function watch<T>(look: () => Promise<T | undefined>, listen: (wake: () => void) => () => void, deadline: number): Promise<T> {
  let wake: () => void = () => {};
  const unlisten = listen(() => wake());
  try {
    for (;;) {
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const value = await look();
      if (value !== undefined) return value;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, Math.min(1_000, deadline - Date.now())))))]);
      clearTimeout(timer);
    }
  } finally {
    unlisten();
  }
}
