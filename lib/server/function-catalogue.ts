import type { AgentFunctionInfo } from "../protocol/entities";

type FunctionInfoInput = Pick<AgentFunctionInfo, "name" | "description"> & Partial<AgentFunctionInfo>;
/** The agent functions a run may name: a fixed list, or what the workers loaded now (it changes when they reload). */
export type FunctionList = readonly FunctionInfoInput[] | (() => readonly FunctionInfoInput[]);

/** The agent functions as they are now, read again at each call. */
export interface FunctionCatalogue {
  listed(): readonly FunctionInfoInput[];
  has(name: string): boolean;
  /** The chat's slash commands the functions bring. */
  chatCommands(): string[];
  info(): AgentFunctionInfo[];
}

export function functionCatalogue(functions: FunctionList): FunctionCatalogue {
  const listed = (): readonly FunctionInfoInput[] => (typeof functions === "function" ? functions() : functions);
  return {
    listed,
    has: (name) => listed().some((f) => f.name === name),
    chatCommands: () => listed().flatMap((f) => (f.command ? [f.command] : [])),
    info: () => listed().map(({ name, description, command = null, tool = false }) => ({ name, description, command, tool })),
  };
}
