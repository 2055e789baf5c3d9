import type { Metadata } from "next";
import { connection } from "next/server";
import { AnswerByLink } from "@/components/AnswerByLink";
import { getParley } from "@/lib/server/registry";

export const metadata: Metadata = { title: "Answer · Parley", robots: { index: false, follow: false } };

/** An email's answer page (docs/email.md): opening it shows the question and answers nothing. */
export default async function AnswerPage({ params, searchParams }: { params: Promise<{ token: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const [{ token }, query] = await Promise.all([params, searchParams]);
  const email = getParley().email;
  const error = typeof query.error === "string" ? query.error.slice(0, 500) : null;
  const view = email ? await email.answers.view(token, error) : ({ state: "invalid" } as const);
  return <AnswerByLink token={token} view={view} pick={typeof query.pick === "string" ? query.pick : null} />;
}
