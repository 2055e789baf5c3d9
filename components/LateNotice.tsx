/** Shown when a reply lost the race and the card has already gone. */
export function LateNotice({ text }: { text: string }) {
  return (
    <p data-testid="question-late" role="status" className="mx-auto mb-2 w-full max-w-3xl rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      {text}
    </p>
  );
}
