import type { PushButton } from "../../protocol/push";

/**
 * What the service worker's handlers use of their global scope, passed in so a test can hand them
 * a fake: the registration's notifications and push manager, the window clients, the caches, fetch.
 */
export interface NotificationAction {
  action: string;
  title: string;
}

/** The options Parley shows a notification with (the DOM typings lack `actions` and `renotify`). */
export interface ShowOptions {
  body: string;
  tag: string;
  data: NotificationData;
  actions?: NotificationAction[];
  requireInteraction: boolean;
  renotify: boolean;
  icon: string;
  badge: string;
}

/** What a Parley notification carries for its click. */
export interface NotificationData {
  questionId: string;
  sessionId: string;
  url: string;
  digest: string;
  buttons: PushButton[];
}

export interface ShownNotification {
  tag: string;
  data: unknown;
  close(): void;
}

export interface PushSubscriptionLike {
  endpoint: string;
  toJSON(): { endpoint?: string; keys?: Record<string, string> };
}

export interface SwRegistration {
  showNotification(title: string, options: ShowOptions): Promise<void>;
  getNotifications(filter?: { tag?: string }): Promise<ShownNotification[]>;
  pushManager: { subscribe(options: { userVisibleOnly: boolean; applicationServerKey: BufferSource | string }): Promise<PushSubscriptionLike> };
}

export interface WindowClientLike {
  url: string;
  focus(): Promise<unknown>;
  /** Only for a window this worker controls (it rejects otherwise). */
  navigate(url: string): Promise<unknown>;
}

export interface SwClients {
  matchAll(options: { type: "window"; includeUncontrolled: boolean }): Promise<readonly WindowClientLike[]>;
  openWindow(url: string): Promise<unknown>;
  claim(): Promise<void>;
}

export interface SwEnv {
  /** The server's origin (the worker's scope), for absolute URLs. */
  origin: string;
  /** The build this worker belongs to: its shell cache is named after it. */
  version: string;
  /** In development /_next/static is not content-hashed: nothing is served from the cache. */
  dev: boolean;
  registration: SwRegistration;
  clients: SwClients;
  caches: CacheStorage;
  fetch: typeof fetch;
  /** How many buttons a notification shows here (Notification.maxActions; Chromium says 2). */
  maxActions(): number;
  randomUUID(): string;
  sleep(ms: number): Promise<void>;
}
