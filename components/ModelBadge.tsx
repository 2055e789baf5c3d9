"use client";

import { useWhoAmI } from "@/lib/client/use-who-am-i";

/**
 * The chat's model, small in the header ("llama3.2 · Ollama", "Offline script"). It stands where the
 * header's free room is and takes only that room: it never pushes the title or the buttons (not on a
 * phone); its tooltip says the rest.
 */
export function ModelBadge() {
  const model = useWhoAmI()?.model;
  return (
    // On a phone the header's room is the title's: a label cut to a letter or two says nothing.
    <span className="min-w-0 flex-1 truncate">
      <span data-testid="model-label" data-scripted={model?.scripted ?? undefined} title={model?.detail} className="hidden text-xs text-stone-500 sm:inline">
        {model && <span className="sr-only">Model: </span>}
        {model?.label}
      </span>
    </span>
  );
}
