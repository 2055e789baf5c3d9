"use client";

import { useRef, useState } from "react";
import type { ReplyReceipt } from "@/lib/protocol/question";
import type { Ack } from "@/lib/protocol/socket";
import { settledHere } from "@/lib/client/own-answers";

/** What answering a card returns: the receipt, or a typed error. */
export type Settle = Promise<Ack<ReplyReceipt>>;

/**
 * Sends a card's answer at most once at a time and turns its ack into the card's error:
 * a refusal's message, or `staleText` when the card was answered for a question that changed.
 */
export function useSettle(staleText: string) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A ref, not `busy`: a double click must not send twice (the second would read "already answered").
  const inFlight = useRef(false);
  // Answered from here: the card still shows until the next render, but its question is no longer open.
  const answered = useRef(false);

  /** The ack, or null when an answer was already on its way. */
  async function settle(work: () => Settle): Promise<Ack<ReplyReceipt> | null> {
    if (inFlight.current) return null;
    inFlight.current = true;
    setBusy(true);
    setError(null);
    const ack = await work();
    answered.current = settledHere(ack);
    inFlight.current = false;
    setBusy(false);
    if (!ack.ok) setError(ack.error.message);
    else if (ack.data.outcome === "stale_target") setError(staleText);
    return ack;
  }

  /** Whether this card's own answer is on its way or went through (read at key time, before a render shows it). */
  const answering = () => inFlight.current || answered.current;

  return { busy, answering, error, setError, settle };
}
