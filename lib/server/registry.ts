import { AppError } from "../protocol/errors";
import type { ModelInfo } from "../protocol/model";
import type { Parley } from "./app";

// Next bundles route handlers apart from server.ts, so module singletons exist twice;
// globalThis is the one object both see.
const KEY = Symbol.for("parley.services");

type Holder = { [KEY]?: Parley };

export function setParley(parley: Parley | undefined): void {
  (globalThis as Holder)[KEY] = parley;
}

export function getParley(): Parley {
  const parley = (globalThis as Holder)[KEY];
  if (!parley) throw new AppError("unavailable", "The Parley server is not running (start it with server.ts).");
  return parley;
}

const MODEL = Symbol.for("parley.model");

type ModelHolder = { [MODEL]?: ModelInfo };

/** The chat's model as server.ts chose it at start-up. */
export function setModelInfo(model: ModelInfo | undefined): void {
  (globalThis as ModelHolder)[MODEL] = model;
}

/** Undefined where no server.ts chose one (an app built in a test). */
export function getModelInfo(): ModelInfo | undefined {
  return (globalThis as ModelHolder)[MODEL];
}
