import type { ApprovalSpec, CommandBound } from "./permissions";

/** What a command can reach, as every surface says it (web card, terminal, push, text channel). */
export const BOUND_TEXT: Record<CommandBound, string> = {
  sandboxed: "Runs sandboxed: can change only the workspace, no network",
  network: "Runs sandboxed: can change only the workspace, with network access",
  unsandboxed: "Not sandboxed: it can reach everything the server's user can (bubblewrap cannot run here)",
  "opted-out": "Not sandboxed (PARLEY_SANDBOX=off): it can reach everything the server's user can",
};

/** Whether the operating system bounds what the command can do. */
export const isSandboxed = (bound: CommandBound) => bound === "sandboxed" || bound === "network";

/**
 * Whether allow rules may cover a command so bound: sandboxed without network, or with the sandbox
 * turned off on purpose (PARLEY_SANDBOX=off). A command that asks for the network, or that runs
 * unsandboxed because bubblewrap cannot run here, is asked for every time.
 */
export const boundByRules = (bound: CommandBound) => bound === "sandboxed" || bound === "opted-out";

/** What an approval's command can reach, as a line of text; null for an approval that runs no command of Parley's. */
export function approvalBoundText(approval: Partial<Pick<ApprovalSpec, "preview">> | null | undefined): string | null {
  const preview = approval?.preview;
  return preview?.type === "command" && preview.bound ? BOUND_TEXT[preview.bound] : null;
}
