"use client";

import { useEffect, useState } from "react";

type Permission = NotificationPermission | "unsupported";

/** Asks once for desktop notifications of questions that wait while the tab is hidden, and shows whether they are on. */
export function NotifyToggle() {
  const [permission, setPermission] = useState<Permission>("unsupported");
  useEffect(() => setPermission("Notification" in window ? Notification.permission : "unsupported"), []);
  if (permission === "unsupported") return null;

  const label =
    permission === "granted"
      ? "Desktop notifications are on for questions that wait while this tab is hidden"
      : permission === "denied"
        ? "Desktop notifications are blocked in this browser's site settings"
        : "Notify me when a question waits";
  return (
    <button
      type="button"
      data-testid="notify-toggle"
      data-permission={permission}
      aria-label={label}
      title={label}
      disabled={permission !== "default"}
      onClick={() => void Notification.requestPermission().then(setPermission)}
      className="hidden h-9 w-9 items-center justify-center rounded-lg text-stone-500 sm:flex hover:bg-stone-100 hover:text-stone-800 disabled:hover:bg-transparent focus-visible:outline focus-visible:outline-2 focus-visible:outline-indigo-500"
    >
      <svg aria-hidden viewBox="0 0 20 20" className="h-5 w-5">
        <path
          d="M10 3a4.5 4.5 0 0 0-4.5 4.5v2.8L4 13h12l-1.5-2.7V7.5A4.5 4.5 0 0 0 10 3Zm-1.8 12a1.8 1.8 0 0 0 3.6 0"
          className={`fill-none stroke-current ${permission === "granted" ? "text-indigo-600" : ""}`}
          strokeWidth="1.5"
          strokeLinejoin="round"
        />
        {permission === "granted" && <circle cx="15" cy="5" r="2.2" className="fill-indigo-600" />}
        {permission === "denied" && <path d="m3.5 3.5 13 13" className="stroke-current" strokeWidth="1.5" strokeLinecap="round" />}
      </svg>
    </button>
  );
}
