"use client";

import { useId, useRef, useState, type ReactNode } from "react";
import type { PushDevice } from "@/lib/protocol/push";
import { MAX_DEVICE_NAME_CHARS } from "@/lib/protocol/push";
import { useNotifyDevice } from "@/lib/client/push/use-notify-device";
import { useThisDevice } from "@/lib/client/push/this-device-state";
import { relativeTime } from "@/lib/client/relative-time";
import { HeaderSheet } from "./HeaderSheet";

/**
 * "Notify this device": the bell in the chat header opens a panel (a sheet from the bottom on a
 * phone) that subscribes this browser to pushes under a name, lists the person's devices, each
 * removable, and mutes this chat's pushes.
 */
export function NotifyDeviceButton({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const subscribed = useThisDevice() !== null;
  const button = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const label = subscribed ? "Notify this device (on)" : "Notify this device";

  return (
    <div className="relative shrink-0">
      <button
        ref={button}
        type="button"
        data-testid="notify-button"
        data-subscribed={subscribed}
        aria-label={label}
        title={label}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className={`flex h-11 w-11 items-center justify-center rounded-md text-stone-500 hover:bg-stone-100 hover:text-stone-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 md:h-8 md:w-8 ${open ? "bg-stone-100 text-stone-900" : ""}`}
      >
        <BellIcon on={subscribed} />
      </button>
      {open && <NotifyDevicePanel sessionId={sessionId} onClose={close} />}
    </div>
  );
}

function NotifyDevicePanel({ sessionId, onClose }: { sessionId: string; onClose: () => void }) {
  const state = useNotifyDevice(sessionId);
  return (
    <HeaderSheet
      testId="notify"
      title="Notify this device"
      note="A notification for every question, with answer buttons where they fit, even when Parley is closed."
      width="md:w-[24rem]"
      onClose={onClose}
    >
      {state.error && (
        <p role="alert" data-testid="notify-error" className="mx-4 mt-3 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200">
          {state.error}
        </p>
      )}
      <Section title="This device" testId="notify-this-device">
        <ThisDeviceSection state={state} />
      </Section>
      <Section title="This chat" testId="notify-this-chat">
        <MuteSwitch muted={state.muted} disabled={state.list === null || state.busy === "muting"} onChange={(m) => void state.setMuted(m)} />
      </Section>
      <Section title="Your devices" testId="notify-devices">
        <DeviceList state={state} />
      </Section>
    </HeaderSheet>
  );
}

type State = ReturnType<typeof useNotifyDevice>;

function ThisDeviceSection({ state }: { state: State }) {
  const inputId = useId();
  if (state.support === null) return <Note>Checking this browser…</Note>;
  if (state.support === "needs-home-screen") {
    return (
      <Note testId="notify-home-screen">
        <strong className="font-medium text-stone-800">Add Parley to your Home Screen first.</strong> iPhone and iPad deliver notifications only to apps on the Home Screen (iOS 16.4 or later): tap
        Share, then “Add to Home Screen”, open Parley from there and come back here.
      </Note>
    );
  }
  if (state.support === "unsupported") {
    return (
      <Note testId="notify-unsupported">
        This browser can’t receive push notifications
        {typeof window !== "undefined" && !window.isSecureContext ? ": they need HTTPS (or localhost). See “On your phone” in the README." : "."}
      </Note>
    );
  }
  if (state.device) {
    return (
      <Note testId="notify-subscribed">
        <span className="font-medium text-emerald-800">On.</span> This device, “{state.device.device}”, gets a notification for every question. Remove it below to stop.
      </Note>
    );
  }
  if (state.permission === "denied") {
    return (
      <Note testId="notify-denied">
        Notifications are blocked for this site. Allow them in the browser’s site settings (the icon left of the address, or Settings → Notifications on a phone), then reopen this panel.
      </Note>
    );
  }
  return (
    <form
      className="flex flex-col gap-2 px-4 pb-3"
      onSubmit={(e) => {
        e.preventDefault();
        void state.subscribe();
      }}
    >
      <label htmlFor={inputId} className="text-sm text-stone-700">
        Device name
      </label>
      <input
        id={inputId}
        data-testid="notify-device-name"
        required
        maxLength={MAX_DEVICE_NAME_CHARS}
        value={state.name}
        onChange={(e) => state.setName(e.target.value)}
        className="h-11 min-w-0 rounded-lg border border-stone-300 px-3 text-base text-stone-900 focus-visible:border-indigo-500 focus-visible:outline-2 focus-visible:outline-indigo-200 md:h-9 md:text-sm"
      />
      <button
        type="submit"
        data-testid="notify-subscribe"
        disabled={state.busy === "subscribing" || state.name.trim() === ""}
        className="h-11 rounded-lg bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 md:h-9"
      >
        {state.busy === "subscribing" ? "Turning on…" : "Notify this device"}
      </button>
    </form>
  );
}

function MuteSwitch({ muted, disabled, onChange }: { muted: boolean; disabled: boolean; onChange: (muted: boolean) => void }) {
  const labelId = useId();
  return (
    <div className="flex min-h-11 items-center gap-3 px-4 pb-3">
      <span id={labelId} className="min-w-0 flex-1 text-sm text-stone-700">
        Mute this chat
        <span className="block text-xs text-stone-600">No push to any device for its questions.</span>
      </span>
      <button
        type="button"
        role="switch"
        data-testid="notify-mute"
        aria-checked={muted}
        aria-labelledby={labelId}
        disabled={disabled}
        onClick={() => onChange(!muted)}
        className="flex h-11 w-14 shrink-0 items-center justify-center rounded-full focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:opacity-50"
      >
        <span aria-hidden className={`flex h-6 w-11 items-center rounded-full p-0.5 transition-colors ${muted ? "bg-indigo-600" : "bg-stone-300"}`}>
          <span className={`h-5 w-5 rounded-full bg-white shadow transition-transform ${muted ? "translate-x-5" : ""}`} />
        </span>
      </button>
    </div>
  );
}

function DeviceList({ state }: { state: State }) {
  if (state.listError) {
    return (
      <div role="alert" data-testid="notify-list-error" className="mx-4 mb-3 flex items-center gap-2 rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200">
        <span className="min-w-0 flex-1">{state.listError.message}</span>
        <button type="button" onClick={() => void state.reload()} className="min-h-11 shrink-0 rounded px-2 text-sm font-medium text-red-900 underline-offset-2 hover:underline">
          Retry
        </button>
      </div>
    );
  }
  if (state.list === null) return <Note>Loading devices…</Note>;
  if (state.list.devices.length === 0) return <Note>No device gets notifications yet.</Note>;
  return (
    <ul className="divide-y divide-stone-100">
      {state.list.devices.map((d) => (
        <DeviceRow key={d.id} device={d} mine={d.id === state.device?.id} removing={state.removing.has(d.id)} onRemove={() => void state.remove(d.id)} />
      ))}
    </ul>
  );
}

function DeviceRow({ device, mine, removing, onRemove }: { device: PushDevice; mine: boolean; removing: boolean; onRemove: () => void }) {
  return (
    <li data-testid="notify-device" className="flex items-center gap-3 px-4 py-2">
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm text-stone-900">
          {device.device}
          {mine && <span className="ml-2 rounded bg-indigo-50 px-1.5 py-0.5 text-xs font-medium text-indigo-700">this device</span>}
        </p>
        <p className="truncate text-xs text-stone-600">
          {device.service} · {device.lastPushAt ? `last push ${relativeTime(device.lastPushAt)}` : "no push yet"}
        </p>
      </div>
      <button
        type="button"
        data-testid="notify-remove"
        aria-label={`Remove ${device.device}`}
        disabled={removing}
        onClick={onRemove}
        className="h-11 shrink-0 rounded-md px-3 text-sm font-medium text-stone-700 ring-1 ring-stone-300 hover:bg-stone-50 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 md:h-8"
      >
        {removing ? "Removing…" : "Remove"}
      </button>
    </li>
  );
}

function Section({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <section data-testid={testId} className="pt-3 last:pb-3">
      <h3 className="px-4 pb-2 text-xs font-medium uppercase tracking-wide text-stone-600">{title}</h3>
      {children}
    </section>
  );
}

function Note({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <p data-testid={testId} className="px-4 pb-3 text-sm leading-relaxed text-stone-600">
      {children}
    </p>
  );
}

function BellIcon({ on }: { on: boolean }) {
  return (
    <svg aria-hidden viewBox="0 0 20 20" className="h-5 w-5">
      <path
        d="M10 3a4.5 4.5 0 0 0-4.5 4.5v2.8L4 13h12l-1.5-2.7V7.5A4.5 4.5 0 0 0 10 3Zm-1.8 12a1.8 1.8 0 0 0 3.6 0"
        className={`fill-none stroke-current ${on ? "text-indigo-600" : ""}`}
        strokeWidth="1.5"
        strokeLinejoin="round"
      />
      {on && <circle cx="15" cy="5" r="2.2" className="fill-indigo-600" />}
    </svg>
  );
}
