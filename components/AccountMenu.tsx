"use client";

import { useMemo, useRef, useState } from "react";
import { requestJson } from "@/lib/client/api";
import { createSignOut } from "@/lib/client/sign-out";
import { forgetThisBrowserDevice } from "@/lib/client/push/this-device-state";
import { useWhoAmI } from "@/lib/client/use-who-am-i";
import { personInitial, screenName } from "@/lib/client/who-am-i";
import { useNameOf } from "@/lib/client/use-names";
import { LOCAL_OWNER, type WhoAmI } from "@/lib/protocol/access";
import { ConfirmDialog } from "./ConfirmDialog";
import { HeaderSheet } from "./HeaderSheet";

const ITEM =
  "flex w-full items-center gap-2 rounded-lg px-3 py-2 text-left text-sm text-stone-700 pointer-coarse:min-h-11 hover:bg-stone-100 hover:text-stone-900 focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-indigo-600 disabled:opacity-60";

/** What the panel says under the name: how this person signed in, and what they may do. */
function aboutOf(who: WhoAmI): string {
  if (who.ownerId === LOCAL_OWNER) return "The administrator: signed in with the server token. Add people with parley user add NAME.";
  if (who.admin) return "An administrator: you may add and remove people (parley user).";
  return "Signed in with your sign-in link.";
}

/**
 * Who is signed in, in the header: their badge and display name (the administrator `local` reads
 * "Administrator" until renamed), opening a small menu with Sign out; an administrator also has Sign out
 * everywhere (after a confirmation). Either way this tab then goes to the sign-in page.
 * `compact`: the name shows from the `xl` width up (narrower, a chat's header keeps its room for the title; the badge stays).
 */
export function AccountMenu({ compact = false }: { compact?: boolean }) {
  const who = useWhoAmI();
  const nameOf = useNameOf();
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState<"this" | "everywhere" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const signOut = useMemo(() => createSignOut({ request: requestJson, forgetDevice: forgetThisBrowserDevice }), []);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  /** On success the page is already on its way to the sign-in page, so it stays busy until it goes. */
  const signOutWith = async (which: "this" | "everywhere") => {
    setError(null);
    setBusy(which);
    const res = await (which === "this" ? signOut.thisBrowser() : signOut.everywhere());
    if (!res.ok) {
      setBusy(null);
      setError(res.error.message);
    }
  };

  const label = who ? screenName(who.ownerId, nameOf) : null;
  return (
    <div className="relative shrink-0">
      <button
        ref={button}
        type="button"
        data-testid="account-button"
        aria-haspopup="dialog"
        aria-expanded={open}
        disabled={!who}
        onClick={() => {
          setError(null);
          setOpen((o) => !o);
        }}
        className={`flex h-11 min-w-11 items-center justify-center gap-2 rounded-lg px-1.5 text-sm font-medium text-stone-700 outline-none hover:bg-stone-100 hover:text-stone-900 focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-60 md:h-9 ${open ? "bg-stone-100 text-stone-900" : ""}`}
      >
        <span aria-hidden className="flex h-7 w-7 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-800 ring-1 ring-indigo-200">
          {who ? personInitial(who.ownerId, nameOf) : ""}
        </span>
        <span data-testid="account-name" className={`max-w-[10rem] truncate ${compact ? "sr-only xl:not-sr-only" : ""}`}>
          {label ?? <span className="sr-only">Account</span>}
        </span>
      </button>
      {open && who && (
        <HeaderSheet testId="account" title={label!} note={aboutOf(who)} width="md:w-[18rem]" onClose={close}>
          <div className="space-y-1 p-2">
            <button type="button" data-testid="sign-out" className={ITEM} disabled={busy !== null} onClick={() => void signOutWith("this")}>
              <SignOutIcon />
              {busy === "this" ? "Signing out…" : "Sign out"}
            </button>
            {who.admin && (
              <button
                type="button"
                data-testid="sign-out-everywhere"
                className={ITEM}
                disabled={busy !== null}
                aria-haspopup="dialog"
                onClick={() => {
                  setError(null);
                  setOpen(false);
                  setConfirming(true);
                }}
              >
                <span aria-hidden className="h-4 w-4" />
                Sign out everywhere
              </button>
            )}
            {error && !confirming && (
              <p role="alert" className="px-3 pb-1 text-xs text-red-600">
                {error}
              </p>
            )}
          </div>
        </HeaderSheet>
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
          onCancel={() => {
            setConfirming(false);
            button.current?.focus();
          }}
        >
          <p>Every browser signed in to this server is signed out, this one too, and their open tabs disconnect. Each needs the server token or a new sign-in link to sign in again.</p>
          <p className="mt-2">Scripts that use the server token or an API token keep working.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function SignOutIcon() {
  return (
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
  );
}
