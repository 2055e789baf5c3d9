"use client";

import { useWhoAmI } from "@/lib/client/use-who-am-i";

/**
 * The chat's model, small in the header ("llama3.2 · Ollama", "Offline script"). It stands where the
 * header's free room is and takes only that room: it never pushes the title or the buttons (on a
 * phone with a long title it may not show at all); its tooltip says the rest.
 */
export function ModelBadge() {
  const model = useWhoAmI()?.model;
  return (
    <span data-testid="model-label" data-scripted={model?.scripted ?? undefined} title={model?.detail} className="min-w-0 flex-1 truncate text-xs text-stone-500">
      {model && <span className="sr-only">Model: </span>}
      {model?.label}
    </span>
  );
}
