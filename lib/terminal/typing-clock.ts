/** When the last key was typed anywhere in the terminal client: a question that appears right after it does not take the keys that follow. */
let typedAt: number | null = null;

export const noteTyped = (at: number = performance.now()): void => {
  typedAt = at;
};

export const lastTypedAt = (): number | null => typedAt;
