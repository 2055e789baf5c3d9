import type { Run } from "./entities";

/** Who asks to stop a run: a person's name, and whether they are an administrator. */
export interface Stopper {
  name: string;
  admin: boolean;
}

/** Who may stop a run: whoever started it, the chat's owner, and administrators. A member who did not start it may not. */
export function mayStopRun(run: Pick<Run, "ownerId" | "starterId">, who: Stopper): boolean {
  return who.admin || who.name === run.ownerId || (run.starterId !== null && who.name === run.starterId);
}

/** Why a person may not stop a run, naming who may. */
export function stopRefusal(run: Pick<Run, "ownerId" | "starterId">): string {
  const starter = run.starterId && run.starterId !== run.ownerId ? `${run.starterId}, who started it, ` : "";
  return `Only ${starter}this chat's owner (${run.ownerId}) or an administrator may stop this run.`;
}
