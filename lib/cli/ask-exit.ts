/** `parley ask`'s exit codes: a script branches on them (here alone, so the CLI's entry loads nothing else for them). */
export const ASK_EXIT = { answered: 0, error: 1, declined: 2, unanswered: 3 } as const;
