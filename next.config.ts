import type { NextConfig } from "next";
import path from "node:path";

const root = path.dirname(new URL(import.meta.url).pathname);

const nextConfig: NextConfig = {
  // A lock file in a parent folder must not become the project root.
  turbopack: { root },
  outputFileTracingRoot: root,
  // The dev server answers on both loopback names; Next 16 blocks cross-host dev requests otherwise.
  allowedDevOrigins: ["127.0.0.1", "localhost"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
