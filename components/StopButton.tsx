"use client";

/**
 * Stop, with the square every player uses; "Stopping…" while it takes effect. `compact`: on a
 * phone the square alone (the word stays for screen readers), where a header has little room.
 */
export function StopButton({ onStop, stopping, testId, size = "small", compact = false }: { onStop?: () => void; stopping: boolean; testId: string; size?: "small" | "large"; compact?: boolean }) {
  const box = `${size === "large" ? "h-10 gap-2 rounded-xl px-4" : "gap-1.5 rounded-md px-2.5 py-1 shadow-sm"} ${compact ? "max-sm:min-w-11 max-sm:justify-center" : ""}`;
  return (
    <button
      type="button"
      data-testid={testId}
      onClick={onStop}
      disabled={stopping}
      className={`inline-flex shrink-0 items-center border pointer-coarse:min-h-11 border-stone-300 bg-white text-sm font-medium text-stone-800 hover:bg-stone-100 disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 ${box}`}
    >
      <span aria-hidden className="h-2.5 w-2.5 rounded-[2px] bg-current" />
      <span className={compact ? "max-sm:sr-only" : undefined}>{stopping ? "Stopping…" : "Stop"}</span>
    </button>
  );
}
