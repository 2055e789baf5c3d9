import { z } from "zod";
import { ReplyOutcomeSchema, type ReplyOutcome } from "../../protocol/commands";
import { WireErrorSchema } from "../../protocol/errors";
import type { PushButton } from "../../protocol/push";
import { ClientSurfaceSchema, SURFACE_HEADER } from "../../protocol/rest";
import type { NotificationData, SwEnv } from "./sw-env";

/** Waits before the second and third try; the same commandId makes each try the same answer. */
export const RETRY_DELAYS_MS = [500, 1_500] as const;

export type AnswerResult = { kind: "outcome"; outcome: ReplyOutcome } | { kind: "unauthorized" } | { kind: "refused"; message: string } | { kind: "unreachable" };

const OutcomeSchema = z.object({ outcome: ReplyOutcomeSchema });
/** A gateway between the phone and the server said the server is not there: worth another try. */
const GATEWAY = new Set([502, 503, 504]);

export function answerRequest(data: NotificationData, button: PushButton, commandId: string): { path: string; body: Record<string, unknown> } {
  const id = encodeURIComponent(data.questionId);
  return button.command.kind === "reply"
    ? { path: `/api/questions/${id}/reply`, body: { value: button.command.value, commandId, digest: data.digest } }
    : { path: `/api/questions/${id}/reject`, body: { commandId, digest: data.digest } };
}

/** Sends a button's answer: one commandId for this tap, reused by each retry. */
export async function sendAnswer(env: SwEnv, data: NotificationData, button: PushButton): Promise<AnswerResult> {
  const { path, body } = answerRequest(data, button, env.randomUUID());
  const init: RequestInit = {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", [SURFACE_HEADER]: ClientSurfaceSchema.enum.push },
    body: JSON.stringify(body),
  };
  for (let attempt = 0; ; attempt++) {
    const retry = attempt < RETRY_DELAYS_MS.length ? RETRY_DELAYS_MS[attempt] : undefined;
    let res: Response;
    try {
      res = await env.fetch(new URL(path, env.origin).href, init);
    } catch {
      if (retry === undefined) return { kind: "unreachable" };
      await env.sleep(retry);
      continue;
    }
    if (GATEWAY.has(res.status) && retry !== undefined) {
      await env.sleep(retry);
      continue;
    }
    return resultOf(res);
  }
}

async function resultOf(res: Response): Promise<AnswerResult> {
  const json: unknown = await res.json().catch(() => null);
  if (res.status === 401) return { kind: "unauthorized" };
  if (GATEWAY.has(res.status)) return { kind: "unreachable" };
  if (res.ok) {
    const parsed = OutcomeSchema.safeParse(json);
    // The answer went through but its receipt was cut off: the card shows what happened.
    return parsed.success ? { kind: "outcome", outcome: parsed.data.outcome } : { kind: "refused", message: "The server's answer was cut off." };
  }
  const error = WireErrorSchema.safeParse((json as { error?: unknown } | null)?.error);
  return { kind: "refused", message: error.success ? error.data.message : `The server refused the answer (HTTP ${res.status}).` };
}

/** What the notification says after a tap that did not answer; null when the tap answered (the notification just closes). */
export function noticeFor(result: AnswerResult): { title: string; body: string } | null {
  if (result.kind === "unauthorized") return { title: "Sign in to answer", body: "This device's sign-in has ended. Tap to open Parley." };
  if (result.kind === "unreachable") return { title: "Couldn't send your answer", body: "Couldn't send your answer. Tap to open the question." };
  if (result.kind === "refused") return { title: "Couldn't send your answer", body: `${result.message} Tap to open the question.` };
  switch (result.outcome) {
    case "answered":
    case "declined":
    case "queued":
      return null;
    case "already_answered":
      return { title: "Already answered on another device", body: "Tap to see the answer." };
    case "already_closed":
      return { title: "This question has closed", body: "Tap to open the chat." };
    case "stale_target":
      return { title: "This question changed — open it to answer", body: "Tap to open the question." };
    case "voted":
      return { title: "Your vote counted", body: "It waits for more people. Tap to see who approved." };
  }
}
