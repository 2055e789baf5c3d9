"use client";

import { useEffect, useId, useState } from "react";
import { useMyEmail } from "@/lib/client/use-my-email";

/** "Questions by email" in People: my address, and whether questions I may answer are mailed to me (docs/email.md). */
export function MyEmail({ me }: { me: string | null }) {
  const { current, error, busy, save } = useMyEmail(me);
  const [email, setEmail] = useState("");
  const [questions, setQuestions] = useState(true);
  const [saved, setSaved] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const emailId = useId();
  const errorId = useId();

  // The first read fills the form once: what the person types since is theirs (the field waits for it).
  useEffect(() => {
    if (!current || loaded) return;
    setEmail(current.email ?? "");
    setQuestions(current.email === null ? true : current.questions);
    setLoaded(true);
  }, [current, loaded]);

  if (me === null) return null;
  return (
    <form
      data-testid="my-email"
      className="flex flex-col gap-1.5 border-t border-stone-100 px-4 pb-4 pt-3"
      onSubmit={(e) => {
        e.preventDefault();
        setSaved(false);
        void save(email, questions).then(setSaved);
      }}
    >
      <label htmlFor={emailId} className="text-sm font-medium text-stone-800">
        Questions by email
      </label>
      <div className="flex gap-2">
        <input
          id={emailId}
          data-testid="my-email-address"
          type="email"
          autoComplete="email"
          value={email}
          disabled={!loaded}
          placeholder={loaded ? "you@example.com" : "Loading…"}
          aria-invalid={error !== null}
          aria-describedby={error ? errorId : undefined}
          onChange={(e) => {
            setEmail(e.target.value);
            setSaved(false);
          }}
          className="h-9 min-w-0 flex-1 rounded-lg border border-stone-300 px-3 text-sm text-stone-900 pointer-coarse:h-11 focus:border-indigo-600 focus:outline-none focus:ring-1 focus:ring-indigo-600"
        />
        <button
          type="submit"
          data-testid="my-email-save"
          disabled={busy || !loaded}
          className="h-9 shrink-0 rounded-lg bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60 pointer-coarse:h-11 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          {busy ? "Saving…" : "Save"}
        </button>
      </div>
      <label className="flex items-center gap-2 text-sm text-stone-700 pointer-coarse:min-h-11">
        <input
          type="checkbox"
          data-testid="my-email-questions"
          checked={questions}
          disabled={!loaded}
          onChange={(e) => {
            setQuestions(e.target.checked);
            setSaved(false);
          }}
          className="h-4 w-4 rounded border-stone-300 text-indigo-600 focus-visible:outline-2 focus-visible:outline-indigo-600"
        />
        Mail me the questions I may answer
      </label>
      {error && (
        <p id={errorId} role="alert" data-testid="my-email-error" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {saved && !error && (
        <p role="status" data-testid="my-email-saved" className="text-sm text-stone-600">
          {email.trim() === "" ? "No address: no questions are mailed to you." : questions ? `Questions you may answer go to ${email.trim().toLowerCase()}.` : "Saved: no questions are mailed to you."}
        </p>
      )}
    </form>
  );
}
