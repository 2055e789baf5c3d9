import type { MetadataRoute } from "next";

/** What a browser reads to install Parley as an app (served at /manifest.webmanifest, before sign-in). */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Parley",
    short_name: "Parley",
    description: "A chat where agents stop to ask you, and carry on with your answer.",
    id: "/",
    start_url: "/",
    scope: "/",
    display: "standalone",
    // stone-50, the page behind every screen; indigo-600, the header's accent.
    background_color: "#fafaf9",
    theme_color: "#4f46e5",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
  };
}
