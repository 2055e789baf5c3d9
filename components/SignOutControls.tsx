"use client";

import { useMemo, useState } from "react";
import { requestJson } from "@/lib/client/api";
import { createSignOut } from "@/lib/client/sign-out";
import { ConfirmDialog } from "./ConfirmDialog";

const BUTTON =
  "inline-flex items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm pointer-coarse:min-h-11 text-stone-600 outline-none hover:bg-stone-200/70 hover:text-stone-900 focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-60";

/**
 * Sign out (this browser) and Sign out everywhere (every browser signed in to this server, after a
 * confirmation). Either way this tab then goes to the sign-in page.
 */
export function SignOutControls({ className = "" }: { className?: string }) {
  const signOut = useMemo(() => createSignOut({ request: requestJson }), []);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState<"this" | "everywhere" | null>(null);
  const [error, setError] = useState<string | null>(null);

  /** Runs one way of signing out; on success the page is already on its way to the sign-in page, so it stays busy until it goes. */
  const signOutWith = async (which: "this" | "everywhere") => {
    setError(null);
    setBusy(which);
    const res = await (which === "this" ? signOut.thisBrowser() : signOut.everywhere());
    if (!res.ok) {
      setBusy(null);
      setError(res.error.message);
    }
  };

  return (
    <div className={className}>
      <div className="flex flex-wrap items-center gap-1">
        <button type="button" data-testid="sign-out" className={BUTTON} disabled={busy !== null} onClick={() => void signOutWith("this")}>
          <svg viewBox="0 0 20 20" aria-hidden className="h-4 w-4">
            <path
              d="M8 4H5.5A1.5 1.5 0 0 0 4 5.5v9A1.5 1.5 0 0 0 5.5 16H8M12.5 13.5 16 10l-3.5-3.5M16 10H8"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.6"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
          </svg>
          {busy === "this" ? "Signing out…" : "Sign out"}
        </button>
        <button
          type="button"
          data-testid="sign-out-everywhere"
          className={BUTTON}
          disabled={busy !== null}
          aria-haspopup="dialog"
          onClick={() => {
            setError(null);
            setConfirming(true);
          }}
        >
          Sign out everywhere
        </button>
      </div>
      {error && !confirming && (
        <p role="alert" className="mt-1 px-2.5 text-xs text-red-600">
          {error}
        </p>
      )}
      {confirming && (
        <ConfirmDialog
          testId="sign-out-everywhere-dialog"
          title="Sign out everywhere?"
          confirmLabel="Sign out everywhere"
          busyLabel="Signing out…"
          busy={busy === "everywhere"}
          error={error}
          onConfirm={() => void signOutWith("everywhere")}
          onCancel={() => setConfirming(false)}
        >
          <p>Every browser signed in to this server is signed out, this one too, and their open tabs disconnect. Each needs the server token to sign in again.</p>
          <p className="mt-2">Scripts that use the server token or an API token keep working.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
