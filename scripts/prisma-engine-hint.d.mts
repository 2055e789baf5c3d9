/** The docs section on running Prisma where its engine cannot be downloaded. */
export const ENGINE_DOCS: string;
/** The one line to print after Prisma's stderr when it shows a failed engine download; null otherwise. */
export function engineDownloadHint(output: string): string | null;
