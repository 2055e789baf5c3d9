import { describe, expect, it } from "vitest";
import type { WorkerHandle } from "../workers/worker-port";
import { canMove, checkMove, IllegalTransition, RUN_STATES, TRANSITIONS, type RunStateKind, type StateOf } from "./run-lifecycle";

const worker = { handle: {} as WorkerHandle, left: false };
/** One state of each kind, with the data it carries. */
const SAMPLE: { [K in RunStateKind]: StateOf<K> } = {
  starting: { kind: "starting", missed: [] },
  working: { kind: "working", worker },
  waiting: { kind: "waiting", worker, since: 0 },
  parking: { kind: "parking", worker },
  stopping: { kind: "stopping", worker, intent: { status: "cancelled", reason: "Stopped.", byStop: true } },
  finished: { kind: "finished", record: null },
  parked: { kind: "parked" },
  elsewhere: { kind: "elsewhere" },
};

/** The moves the supervisor makes, each with where it makes it. */
const MOVES: Array<[RunStateKind, RunStateKind, string]> = [
  ["starting", "working", "load: the worker has the run"],
  ["starting", "finished", "a stop or no worker before the load; the run had ended before the load"],
  ["starting", "elsewhere", "another node holds the run's lease at the load"],
  ["working", "waiting", "the run waits on a question or a child run"],
  ["working", "stopping", "stop"],
  ["working", "finished", "the worker said the run finished"],
  ["working", "starting", "the worker was lost: replay"],
  ["working", "elsewhere", "lease lost"],
  ["waiting", "working", "what it waited for settled"],
  ["waiting", "parking", "park timer, or workers wanted"],
  ["waiting", "stopping", "stop"],
  ["waiting", "finished", "the worker said the run finished"],
  ["waiting", "parked", "the worker was lost while the run only waited"],
  ["waiting", "starting", "the worker was lost and an answer had landed"],
  ["waiting", "elsewhere", "lease lost"],
  ["parking", "working", "the worker was busy (parked: false)"],
  ["parking", "parked", "the worker let go of the run"],
  ["parking", "starting", "the worker let go, and an answer had landed: replay"],
  ["parking", "stopping", "stop"],
  ["parking", "finished", "the worker said the run finished"],
  ["parking", "elsewhere", "lease lost"],
  ["stopping", "finished", "the worker answered, exited, or let go of the run"],
  ["stopping", "elsewhere", "lease lost while stopping"],
  ["finished", "elsewhere", "lease lost while the end is recorded"],
];

describe("the run lifecycle table", () => {
  it("allows exactly the moves the supervisor makes", () => {
    const allowed = RUN_STATES.flatMap((from) => RUN_STATES.filter((to) => canMove(from, to)).map((to) => `${from} → ${to}`));
    expect(allowed.sort()).toEqual(MOVES.map(([from, to]) => `${from} → ${to}`).sort());
  });

  it.each(MOVES)("%s → %s (%s) passes the check and lands in the new state with its data", (from, to) => {
    expect(checkMove("r", SAMPLE[from], SAMPLE[to])).toBe(SAMPLE[to]);
  });

  it("refuses every other move with IllegalTransition, naming the run and both states", () => {
    const refused = RUN_STATES.flatMap((from) => RUN_STATES.filter((to) => !TRANSITIONS[from].includes(to)).map((to) => [from, to] as const));
    expect(refused).toContainEqual(["stopping", "working"]);
    for (const [from, to] of refused) {
      expect(() => checkMove("r", SAMPLE[from], SAMPLE[to])).toThrow(IllegalTransition);
    }
  });

  it.each([
    ["stopping", "working"],
    ["stopping", "parked"],
    ["finished", "working"],
    ["parked", "starting"],
    ["elsewhere", "finished"],
    ["starting", "stopping"],
    ["parking", "waiting"],
    ["working", "working"],
  ] as const)("%s → %s is refused", (from, to) => {
    const move = () => checkMove("run-1", SAMPLE[from], SAMPLE[to]);
    expect(move).toThrow(new IllegalTransition("run-1", from, to));
    expect(move).toThrow(`Run run-1 cannot move from ${from} to ${to}.`);
  });
});
