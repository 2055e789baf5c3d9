"use client";

import { useEffect, useRef, useState, type FormEvent } from "react";
import { requestJson } from "@/lib/client/api";
import { spendSignInLink, takeSignInLink, windowAddressBar } from "@/lib/client/sign-in";
import type { WhoAmI } from "@/lib/protocol/access";

/**
 * The token form; a browser that is already signed in (a link from another site drops the cookie
 * once) goes straight on. With a person's sign-in link in the address (`withLink`), the link is
 * taken out of the address and spent first; when it fails, why shows above the form.
 */
export function SignInForm({ next, initialError, withLink = false }: { next: string; initialError: string | null; withLink?: boolean }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);
  const [spending, setSpending] = useState(withLink);
  const [linkError, setLinkError] = useState<string | null>(null);
  // A link is spent once: React may run an effect twice (development), the second finds the address already cleared.
  const linkTaken = useRef(false);

  useEffect(() => {
    if (withLink) {
      if (linkTaken.current) return;
      linkTaken.current = true;
      const link = takeSignInLink(windowAddressBar());
      if (link === null) return setSpending(false);
      void spendSignInLink(requestJson, link).then((res) => {
        if (res.ok) return window.location.replace(next);
        setSpending(false);
        setLinkError(res.error.message);
      });
      return;
    }
    let live = true;
    void requestJson<WhoAmI>("/api/auth/session", { signInOn401: false }).then((res) => {
      if (live && res.ok) window.location.replace(next);
    });
    return () => {
      live = false;
    };
  }, [next, withLink]);

  if (spending) {
    return (
      <p role="status" data-testid="sign-in-link-status" className="mt-6 text-sm text-stone-700">
        Signing you in…
      </p>
    );
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const res = await requestJson<WhoAmI>("/api/auth/session", { method: "POST", body: { token: token.trim() }, signInOn401: false });
    if (res.ok) {
      window.location.replace(next);
      return;
    }
    setBusy(false);
    setError(res.error.message);
  }

  return (
    <>
      {linkError && (
        <p role="alert" data-testid="sign-in-link-error" className="mt-6 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200">
          {linkError}
        </p>
      )}
      <TokenForm token={token} setToken={setToken} error={error} busy={busy} focus={!linkError} onSubmit={(e) => void submit(e)} />
    </>
  );
}

function TokenForm({
  token,
  setToken,
  error,
  busy,
  focus,
  onSubmit,
}: {
  token: string;
  setToken: (token: string) => void;
  error: string | null;
  busy: boolean;
  /** Whether the field takes the focus (not when a link's error above it is what to read). */
  focus: boolean;
  onSubmit: (e: FormEvent) => void;
}) {
  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" noValidate>
      <div>
        <label htmlFor="token" className="block text-sm font-medium text-stone-800">
          Server token
        </label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          autoFocus={focus}
          required
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "token-error" : undefined}
          className="mt-1.5 block w-full rounded-lg border border-stone-300 px-3 py-2 font-mono text-sm text-stone-900 shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30"
        />
      </div>
      {error && (
        <p id="token-error" role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      )}
      <button
        type="submit"
        disabled={busy || token.trim() === ""}
        className="inline-flex w-full items-center justify-center rounded-lg bg-indigo-600 px-4 py-2.5 pointer-coarse:min-h-11 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
      >
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
