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

/** The rules a command's card names as letting the agent change the code it runs: "It runs the workspace's code, which these rules let the agent change without asking: write_file src/**." */
export function chainText(chain: readonly string[] | undefined): string | null {
  return chain && chain.length > 0 ? `It runs the workspace's code, which ${chain.length === 1 ? "this rule lets" : "these rules let"} the agent change without asking: ${chain.join("; ")}.` : null;
}

/** What an approval's command can reach (and which rules let the agent change the code it runs), as text; null for an approval that runs no command of Parley's. */
export function approvalBoundText(approval: Partial<Pick<ApprovalSpec, "preview">> | null | undefined): string | null {
  const preview = approval?.preview;
  if (preview?.type !== "command") return null;
  const lines = [preview.bound ? BOUND_TEXT[preview.bound] : null, chainText(preview.chain)].filter((l): l is string => l !== null);
  return lines.length > 0 ? lines.join("\n") : null;
}
