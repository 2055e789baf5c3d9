import type { Metadata } from "next";
import { SignInForm } from "@/components/SignInForm";
import { Logo } from "@/components/Sidebar";
import { safeNext } from "@/lib/client/sign-in";
import { SIGN_IN_LINK_PARAM } from "@/lib/protocol/teams";

export const metadata: Metadata = { title: "Sign in · Parley" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNext(typeof params.next === "string" ? params.next : null);
  const invalid = params.error === "invalid_token";
  // The link itself stays out of the page: the form takes it from the address (and out of it).
  const withLink = typeof params[SIGN_IN_LINK_PARAM] === "string";
  return (
    <main className="flex min-h-dvh items-center justify-center bg-stone-50 px-4 py-12">
      <div className="w-full max-w-md rounded-2xl border border-stone-200 bg-white p-6 shadow-sm sm:p-8">
        <div className="flex items-center gap-2 text-lg font-semibold tracking-tight text-stone-900">
          <Logo className="h-8 w-8" /> Parley
        </div>
        <h1 className="mt-6 text-2xl font-semibold tracking-tight text-stone-900">Sign in</h1>
        <p className="mt-2 text-sm leading-6 text-stone-600">Were you added to this server? Open the sign-in link you were sent: it signs you in once.</p>
        <p className="mt-2 text-sm leading-6 text-stone-600">
          Running the server? Open the link it printed when it started (it ends in <code className="rounded bg-stone-100 px-1 py-0.5 text-[13px]">?token=…</code>), or paste its token here. If the
          server was started with <code className="rounded bg-stone-100 px-1 py-0.5 text-[13px]">PARLEY_TOKEN</code>, use that value.
        </p>
        <SignInForm next={next} withLink={withLink} initialError={invalid ? "That link's token is not this server's. The server prints a new one at each start unless PARLEY_TOKEN is set." : null} />
      </div>
    </main>
  );
}
