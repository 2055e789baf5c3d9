"use client";

import { useId, useRef, useState } from "react";
import { personNameOf } from "@/lib/client/session-people";

type Sent = { ok: true } | { ok: false; error: { message: string } };

/**
 * A field that takes a person's name (to add them, to rename them): checked as a name is before it
 * is sent, busy while it goes, and what went wrong said under it, the field focused again.
 * `send` answers null when there is nothing to send (the name as it was).
 */
export function useNameField(initial: string, send: (name: string) => Promise<Sent> | null, onSent: () => void) {
  const inputId = useId();
  const errorId = useId();
  const [name, setName] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const failed = (message: string) => {
    setProblem(message);
    input.current?.focus();
  };
  const submit = async () => {
    const typed = personNameOf(name);
    if (!typed.ok) return failed(typed.message);
    const sending = send(typed.name);
    if (!sending) return onSent();
    setBusy(true);
    const res = await sending;
    setBusy(false);
    if (!res.ok) return failed(res.error.message);
    setName(initial);
    setProblem(null);
    onSent();
    input.current?.focus();
  };

  /** What the field's <input> takes beside its own test id and words. */
  const inputProps = {
    ref: input,
    id: inputId,
    value: name,
    autoComplete: "off",
    autoCapitalize: "none",
    spellCheck: false,
    "aria-invalid": problem !== null,
    "aria-describedby": problem ? errorId : undefined,
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      setName(e.target.value);
      setProblem(null);
    },
    className:
      "h-9 min-w-0 flex-1 rounded-lg border border-stone-300 px-3 text-base text-stone-900 pointer-coarse:h-11 focus-visible:border-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-200 aria-[invalid=true]:border-red-400 md:text-sm",
  };
  return { inputId, errorId, problem, busy, submit, inputProps };
}
