"use client";

import { memo } from "react";
import Markdown, { type Components } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkBreaks from "remark-breaks";
import remarkGfm from "remark-gfm";

/**
 * An agent message as Markdown, safely: GitHub-flavoured (lists, tables, code, links), single
 * newlines kept as line breaks (chat replies are written that way), no raw HTML (react-markdown
 * drops it, rehype-sanitize cleans what is left, unsafe URLs are removed), links open in a new tab
 * with rel="noopener noreferrer". Renders React elements only: nothing for the CSP to object to.
 */
const components: Components = {
  a: ({ node: _node, href, children, ...rest }) => (
    <a {...rest} href={href} target="_blank" rel="noopener noreferrer nofollow" className="font-medium text-indigo-700 underline decoration-indigo-300 underline-offset-2 hover:decoration-indigo-700">
      {children}
    </a>
  ),
  p: ({ node: _node, ...rest }) => <p {...rest} className="my-2 first:mt-0 last:mb-0" />,
  ul: ({ node: _node, ...rest }) => <ul {...rest} className="my-2 list-disc space-y-0.5 pl-5 first:mt-0 last:mb-0" />,
  ol: ({ node: _node, ...rest }) => <ol {...rest} className="my-2 list-decimal space-y-0.5 pl-5 first:mt-0 last:mb-0" />,
  h1: ({ node: _node, ...rest }) => <h3 {...rest} className="mb-1 mt-3 text-base font-semibold first:mt-0" />,
  h2: ({ node: _node, ...rest }) => <h3 {...rest} className="mb-1 mt-3 text-base font-semibold first:mt-0" />,
  h3: ({ node: _node, ...rest }) => <h4 {...rest} className="mb-1 mt-3 font-semibold first:mt-0" />,
  blockquote: ({ node: _node, ...rest }) => <blockquote {...rest} className="my-2 border-l-2 border-stone-300 pl-3 text-stone-600" />,
  pre: ({ node: _node, ...rest }) => <pre {...rest} className="my-2 overflow-x-auto rounded-lg bg-stone-900 px-3 py-2 font-mono text-[13px] leading-snug text-stone-100 first:mt-0 last:mb-0" />,
  code: ({ node: _node, className, ...rest }) =>
    className?.includes("language-") || (typeof rest.children === "string" && rest.children.includes("\n")) ? (
      <code {...rest} className={className} />
    ) : (
      <code {...rest} className="rounded bg-stone-100 px-1 py-0.5 font-mono text-[13px] text-stone-800" />
    ),
  table: ({ node: _node, ...rest }) => (
    <div className="my-2 overflow-x-auto">
      <table {...rest} className="border-collapse text-sm" />
    </div>
  ),
  th: ({ node: _node, ...rest }) => <th {...rest} className="border border-stone-200 bg-stone-50 px-2 py-1 text-left font-semibold" />,
  td: ({ node: _node, ...rest }) => <td {...rest} className="border border-stone-200 px-2 py-1" />,
  hr: () => <hr className="my-3 border-stone-200" />,
  img: ({ node: _node, alt }) => <span className="text-stone-500">[image{alt ? `: ${alt}` : ""}]</span>,
};

const remarkPlugins = [remarkGfm, remarkBreaks];
const rehypePlugins = [rehypeSanitize];

export const AgentMarkdown = memo(function AgentMarkdown({ text }: { text: string }) {
  return (
    <Markdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} skipHtml>
      {text}
    </Markdown>
  );
});
