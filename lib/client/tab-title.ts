import { useEffect } from "react";
import type { Question } from "../protocol/question";

const APP = "Parley";
const MAX_PROMPT = 60;

/** A hidden tab with pending questions shows them, e.g. "(2) ❓ Which environment? — Parley". */
export function tabTitle({ title, pending, hidden }: { title: string | null; pending: Question[]; hidden: boolean }): string {
  const first = pending[0];
  if (hidden && first) {
    const prompt = first.prompt.length > MAX_PROMPT ? `${first.prompt.slice(0, MAX_PROMPT - 1)}…` : first.prompt;
    return `(${pending.length}) ❓ ${prompt} — ${APP}`;
  }
  return title ? `${title} — ${APP}` : APP;
}

export function useTabTitle(title: string | null, pending: Question[]): void {
  useEffect(() => {
    const update = () => {
      document.title = tabTitle({ title, pending, hidden: document.visibilityState === "hidden" });
    };
    update();
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, [title, pending]);
}
