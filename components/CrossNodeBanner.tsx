"use client";

import { useEffect, useState } from "react";
import { crossNodeStore, useCrossNodeNotice, type CrossNodeStore } from "@/lib/client/cross-node";
import { getSocket } from "@/lib/client/socket";

/** This tab's store, found after hydration (the socket exists only in the browser). */
function useBrowserStore(): CrossNodeStore | null {
  const [store, setStore] = useState<CrossNodeStore | null>(null);
  useEffect(() => setStore(crossNodeStore(getSocket())), []);
  return store;
}

/** Says, quietly, that this server has lost the others (Redis down): the tab keeps working on its own. Nothing otherwise. */
export function CrossNodeBanner({ store: given }: { store?: CrossNodeStore | null }) {
  const found = useBrowserStore();
  const text = useCrossNodeNotice(given === undefined ? found : given);
  if (!text) return null;
  return (
    <div role="status" data-testid="cross-node-banner" className="flex items-start justify-center gap-2 border-b border-sky-200 bg-sky-50 px-4 py-1.5 text-sm text-sky-900 sm:items-center">
      <svg aria-hidden viewBox="0 0 16 16" className="mt-0.5 h-4 w-4 shrink-0 text-sky-600 sm:mt-0" fill="none" stroke="currentColor" strokeWidth="1.5">
        <circle cx="8" cy="8" r="6.25" />
        <path d="M8 4.75v3.5" strokeLinecap="round" />
        <circle cx="8" cy="10.9" r="0.6" fill="currentColor" stroke="none" />
      </svg>
      <span>{text}</span>
    </div>
  );
}
