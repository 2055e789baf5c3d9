/**
 * The service worker (bundled by scripts/build-sw.mjs to public/sw.js, served at /sw.js, scope /):
 * it wires the worker's events to the handler modules, which take their environment as a parameter.
 */
import { handleNotificationClick, type ClickedNotification } from "./sw-click";
import { dropOldShells, installShell, respond, routeOf } from "./sw-cache";
import type { SwClients, SwEnv, SwRegistration } from "./sw-env";
import { oneAtATime } from "./sw-one-at-a-time";
import { handlePush, pushJson } from "./sw-push";
import { handleSubscriptionChange, type SubscriptionChange } from "./sw-resubscribe";

declare const __PARLEY_SW_VERSION__: string;
declare const __PARLEY_SW_DEV__: boolean;

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(r: Promise<Response>): void;
}
interface WorkerScope {
  location: Location;
  registration: SwRegistration;
  clients: SwClients;
  caches: CacheStorage;
  fetch: typeof fetch;
  crypto: Crypto;
  skipWaiting(): Promise<void>;
  addEventListener(type: string, listener: (event: never) => void): void;
}

const scope = self as unknown as WorkerScope;
const maxActions = () => (globalThis as { Notification?: { maxActions?: number } }).Notification?.maxActions ?? 0;

const env: SwEnv = {
  origin: scope.location.origin,
  version: __PARLEY_SW_VERSION__,
  dev: __PARLEY_SW_DEV__,
  registration: oneAtATime(scope.registration),
  clients: scope.clients,
  caches: scope.caches,
  fetch: (input, init) => scope.fetch(input, init),
  maxActions,
  randomUUID: () => scope.crypto.randomUUID(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

scope.addEventListener("install", (event: ExtendableEvent) => {
  event.waitUntil(installShell(env).then(() => scope.skipWaiting()));
});

scope.addEventListener("activate", (event: ExtendableEvent) => {
  event.waitUntil(dropOldShells(env).then(() => env.clients.claim()));
});

scope.addEventListener("fetch", (event: FetchEvent) => {
  const route = routeOf(event.request, env.origin, env.dev);
  if (route !== "network") event.respondWith(respond(env, event.request, route));
});

scope.addEventListener("push", (event: ExtendableEvent & { data: { json(): unknown } | null }) => {
  event.waitUntil(handlePush(env, pushJson(event.data)));
});

scope.addEventListener("notificationclick", (event: ExtendableEvent & { action: string; notification: ClickedNotification }) => {
  event.waitUntil(handleNotificationClick(env, { action: event.action, notification: event.notification }));
});

scope.addEventListener("pushsubscriptionchange", (event: ExtendableEvent & SubscriptionChange) => {
  event.waitUntil(handleSubscriptionChange(env, event));
});
