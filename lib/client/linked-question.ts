import { useSyncExternalStore } from "react";
import { questionOfAnchor } from "@/lib/protocol/question-notification";

const subscribe = (onChange: () => void) => {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
};

/**
 * The question this page's address names (`#question-…`: a notification's link), or null. Follows
 * a new link in a tab already open (the service worker takes a focused tab to the tapped card).
 */
export function useLinkedQuestion(): string | null {
  return useSyncExternalStore(
    subscribe,
    () => questionOfAnchor(window.location.hash),
    () => null,
  );
}
