import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { ServiceWorker } from "@/components/ServiceWorker";
import "./globals.css";

export const metadata: Metadata = {
  title: "Parley",
  description: "A chat where agents stop to ask you, and carry on with your answer.",
  // iOS opens a home-screen Parley as its own app (no Safari bars); push needs that on iOS.
  appleWebApp: { capable: true, title: "Parley", statusBarStyle: "default" },
};

// Every page is rendered per request, so Next can put this response's CSP nonce on its scripts.
export const dynamic = "force-dynamic";

export const viewport: Viewport = { themeColor: "#4f46e5" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="bg-stone-50 text-stone-900 antialiased">
        {children}
        <ServiceWorker />
      </body>
    </html>
  );
}
