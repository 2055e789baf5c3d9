/**
 * When the person last typed in the composer, for the question card that replaces it: a card that
 * appears while they type must not take their keys (see card-key-guard.ts). One page, one composer.
 */
let lastTypedAt: number | null = null;

/** A key went to the composer (or it was focused with text when it left the screen). */
export function noteComposerTyping(at: number = performance.now()): void {
  lastTypedAt = at;
}

/** The last key typed in the composer (performance.now() time), or null. */
export function composerTypedAt(): number | null {
  return lastTypedAt;
}
