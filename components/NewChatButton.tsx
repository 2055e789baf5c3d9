interface NewChatButtonProps {
  onClick: () => void;
  busy: boolean;
}

export function NewChatButton({ onClick, busy }: NewChatButtonProps) {
  return (
    <button
      type="button"
      data-testid="new-session"
      onClick={onClick}
      disabled={busy}
      className="inline-flex w-full items-center justify-center gap-2 rounded-lg bg-indigo-600 px-3 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 pointer-coarse:min-h-11"
    >
      <span aria-hidden className="text-lg leading-none">
        +
      </span>
      {busy ? "Creating…" : "New chat"}
    </button>
  );
}
