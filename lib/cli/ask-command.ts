import { AskBodySchema, type AskBody } from "../protocol/asks";
import { commaList } from "../protocol/comma-list";
import { describeZodError } from "../protocol/errors";
import type { Question } from "../protocol/question";
import { shortId } from "../protocol/text-commands";
import { UsageError } from "./arguments";
import { ASK_EXIT } from "./ask-exit";
import { createParleyClient, type ParleyClient } from "../parley-client";
import { ClientSurfaceSchema, SURFACE_HEADER } from "../protocol/rest";
import { createServerClient, type FoundServer } from "./server-client";

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration as people write it (`90`, `90s`, `10m`, `2h`, `1d`) in seconds. */
export function parseTimeout(text: string): number {
  const match = /^(\d+)([smhd]?)$/i.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNITS[(match[2] || "s").toLowerCase()]! : 0;
  if (seconds <= 0) throw new UsageError(`--timeout takes a duration such as 90s, 10m, 2h or 1d, not "${text}".`);
  return seconds;
}

export interface AskFlags {
  options?: string;
  multi?: boolean;
  default?: string;
  timeout?: string;
  session?: string;
  from?: string;
  /** Who may answer: names, comma-separated. */
  answerers?: string;
  /** After this long with no allowed answer, `escalateTo` may answer too. */
  escalateAfter?: string;
  escalateTo?: string;
}

/** The ask the command line describes, checked as the server checks it. */
export function askBody(question: string, flags: AskFlags): AskBody {
  const options = flags.options === undefined ? undefined : commaList(flags.options);
  const fallback = flags.default === undefined ? undefined : flags.multi ? commaList(flags.default) : flags.default;
  if ((flags.escalateAfter === undefined) !== (flags.escalateTo === undefined)) throw new UsageError("--escalate-after and --escalate-to go together.");
  const body = {
    question,
    from: flags.from ?? "parley ask",
    ...(options && { options }),
    ...(flags.multi && { multiple: true }),
    ...(fallback !== undefined && { default: fallback }),
    ...(flags.timeout !== undefined && { timeout_seconds: parseTimeout(flags.timeout) }),
    ...(flags.session !== undefined && { session: flags.session }),
    ...(flags.answerers !== undefined && { answerers: commaList(flags.answerers) }),
    ...(flags.escalateAfter !== undefined && { escalate: [{ after: flags.escalateAfter, to: commaList(flags.escalateTo ?? "") }] }),
  };
  const parsed = AskBodySchema.safeParse(body);
  if (!parsed.success) throw new UsageError(`This cannot be asked: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

const shown = (answer: unknown) => (typeof answer === "string" ? answer : Array.isArray(answer) ? answer.join("\n") : JSON.stringify(answer));

/** What the settled question prints (the answer alone on stdout, so `$(parley ask …)` is the answer) and the exit code. */
export function outcomeOf(question: Question): { code: number; stdout: string | null; stderr: string | null } {
  switch (question.status) {
    case "answered":
      return { code: ASK_EXIT.answered, stdout: shown(question.answer), stderr: null };
    case "declined":
      return { code: ASK_EXIT.declined, stdout: null, stderr: `Declined${question.feedback ? `: ${question.feedback}` : "."}` };
    case "timed_out":
      return { code: ASK_EXIT.unanswered, stdout: null, stderr: "Nobody answered in time." };
    default:
      return { code: ASK_EXIT.unanswered, stdout: null, stderr: `The question was ${question.status.replace("_", " ")}.` };
  }
}

/**
 * Puts the question and waits until it is settled. The first Ctrl-C (a signal on `interrupts`)
 * withdraws it: at once when the question is known, or as soon as the ask returns when the signal
 * came while it was on its way (the server may have stored it: leaving it would strand a card).
 * A second Ctrl-C is Node's own: it ends the process.
 */
export async function askUntilSettled(
  client: Pick<ParleyClient, "ask" | "answer" | "withdraw">,
  body: AskBody,
  { interrupts = process, onAsked }: { interrupts?: Pick<NodeJS.EventEmitter, "once" | "off">; onAsked?: (asked: Question) => void } = {},
): Promise<Question> {
  let asked: Question | undefined;
  let interrupted = false;
  const withdraw = (question: Question) => void client.withdraw(question).catch((err: Error) => process.stderr.write(`Could not withdraw the question: ${err.message}\n`));
  const onInterrupt = () => {
    interrupted = true;
    if (asked) withdraw(asked);
  };
  interrupts.once("SIGINT", onInterrupt);
  try {
    asked = await client.ask(body);
    onAsked?.(asked);
    if (interrupted) withdraw(asked);
    return await client.answer(asked.id);
  } finally {
    interrupts.off("SIGINT", onInterrupt);
  }
}

/**
 * Asks through the running server and waits for the answer (holding each read up to a minute).
 * Ctrl-C withdraws the question (its run is stopped: retracted everywhere) and exits 3.
 */
export async function askCommand({ server, body, newTitle, json }: { server: FoundServer; body: AskBody; newTitle?: string; json: boolean }): Promise<number> {
  const client = createParleyClient({ url: server.url, token: server.token, headers: { [SURFACE_HEADER]: ClientSurfaceSchema.enum.cli } });
  const session = newTitle === undefined ? body.session : (await createServerClient(server).createSession(newTitle)).id;
  const question = await askUntilSettled(
    client,
    { ...body, ...(session !== undefined && { session }) },
    { onAsked: (asked) => json || process.stderr.write(`Asked (question ${shortId(asked.id)}); waiting for the answer in Parley. Ctrl-C withdraws it.\n`) },
  );
  const outcome = outcomeOf(question);
  if (json) process.stdout.write(`${JSON.stringify({ outcome: question.status, value: question.answer ?? null, feedback: question.feedback ?? null, question }, null, 2)}\n`);
  else {
    if (outcome.stdout !== null) process.stdout.write(`${outcome.stdout}\n`);
    if (outcome.stderr !== null) process.stderr.write(`${outcome.stderr}\n`);
  }
  return outcome.code;
}
