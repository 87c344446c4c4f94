/**
 * What the memory checks read from a Markdown file: its links (with lines) and which lines are
 * code, through mdast-util-from-markdown (CommonMark, positions for every node), so links and
 * phrases inside code blocks are never taken for prose.
 */
import type { Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";

export interface MarkdownLink {
  /** The link's destination as written (`build.md`, `topics/c.md#x`, `https://...`). */
  readonly url: string;
  /** 1-based line of the link (of the definition, for a reference-style link). */
  readonly line: number;
}

export interface MarkdownFacts {
  /** Inline links, autolinks and link definitions, in document order. */
  readonly links: MarkdownLink[];
  /** 1-based lines inside code blocks (fenced or indented). */
  readonly codeLines: ReadonlySet<number>;
}

/** Reads `text` as CommonMark. Never throws: any text is some Markdown. */
export function readMarkdown(text: string): MarkdownFacts {
  const tree: Root = fromMarkdown(text);
  const links: MarkdownLink[] = [];
  const codeLines = new Set<number>();
  const visit = (node: Nodes) => {
    const line = node.position?.start.line ?? 1;
    if (node.type === "link" || node.type === "definition") links.push({ url: node.url, line });
    if (node.type === "code" && node.position) {
      for (let l = node.position.start.line; l <= node.position.end.line; l++) codeLines.add(l);
    }
    if ("children" in node) for (const child of node.children) visit(child);
  };
  visit(tree);
  return { links, codeLines };
}
