"use client";

import { useEffect, useState, type FormEvent } from "react";
import { requestJson } from "@/lib/client/api";
import type { WhoAmI } from "@/lib/protocol/access";

/** The token form; a browser that is already signed in (a link from another site drops the cookie once) goes straight on. */
export function SignInForm({ next, initialError }: { next: string; initialError: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    void requestJson<WhoAmI>("/api/auth/session", { signInOn401: false }).then((res) => {
      if (live && res.ok) window.location.replace(next);
    });
    return () => {
      live = false;
    };
  }, [next]);

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
    <form onSubmit={(e) => void submit(e)} className="mt-6 space-y-4" noValidate>
      <div>
        <label htmlFor="token" className="block text-sm font-medium text-stone-800">
          Server token
        </label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          autoFocus
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
