import { v7 } from "uuid";

/**
 * Ids of rows listed in the order they were made (messages, runs): UUIDv7, whose text sorts by
 * time, and by the order of making within one millisecond of one process. Lists sort by
 * createdAt, then id, so rows of the same millisecond keep their order on both engines.
 */
export const newOrderedId = (): string => v7();

/** The order of lists of such rows (and of questions: their ids are random, but every list agrees): by createdAt, then id. */
