interface ConnectionBannerProps {
  status: "connecting" | "connected" | "disconnected";
  /** Only warn about "connecting" once the first attempt has taken a while. */
  show: boolean;
  error?: string | null;
}

export function ConnectionBanner({ status, show, error }: ConnectionBannerProps) {
  const text = error ?? (status === "connected" ? null : status === "disconnected" ? "Connection lost — reconnecting…" : "Connecting…");
  if (!text || (!error && !show)) return null;
  return (
    <div role="status" className="flex items-center justify-center gap-2 border-b border-amber-200 bg-amber-50 px-4 py-1.5 text-sm text-amber-900">
      <span aria-hidden className="h-3 w-3 motion-safe:animate-spin rounded-full border-2 border-amber-600 border-t-transparent" />
      {text}
    </div>
  );
}

export function ConnectionDot({ status }: { status: "connecting" | "connected" | "disconnected" }) {
  const connected = status === "connected";
  return (
    <span
      data-testid="connection-status"
      data-state={connected ? "connected" : "disconnected"}
      title={connected ? "Connected" : status === "connecting" ? "Connecting…" : "Disconnected"}
      className="inline-flex items-center"
    >
      <span aria-hidden className={`h-2 w-2 rounded-full ${connected ? "bg-emerald-500" : "bg-stone-300"}`} />
      <span className="sr-only">{connected ? "Connected" : "Disconnected"}</span>
    </span>
  );
}
