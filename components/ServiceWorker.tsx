"use client";

import { useEffect } from "react";
import { registerServiceWorker } from "@/lib/client/push/register-service-worker";

/** Registers Parley's service worker (offline page, push) on every page. */
export function ServiceWorker() {
  useEffect(() => registerServiceWorker(), []);
  return null;
}
