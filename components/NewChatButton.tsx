interface NewChatButtonProps {
  onClick: () => void;
  busy: boolean;
  size?: "small" | "large";
}

export function NewChatButton({ onClick, busy, size = "small" }: NewChatButtonProps) {
  const large = size === "large";
  return (
    <button
      type="button"
      data-testid="new-session"
      onClick={onClick}
      disabled={busy}
      className={[
        "inline-flex items-center justify-center gap-2 rounded-lg bg-indigo-600 font-medium text-white shadow-sm",
        "hover:bg-indigo-500 disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600",
        large ? "px-6 py-3 text-base" : "w-full px-3 py-2 text-sm pointer-coarse:min-h-11",
      ].join(" ")}
    >
      <span aria-hidden className="text-lg leading-none">
        +
      </span>
      {busy ? "Creating…" : "New chat"}
    </button>
  );
}
