/**
 * Building DOM nodes without HTML strings: every value from the API goes in as a text node
 * (`textContent`), never through `innerHTML`, so a path or a note cannot become markup.
 */

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  /** Space-separated class names. */
  class?: string;
  /** Attributes set with setAttribute (values are attribute text, never markup). */
  attrs?: Record<string, string | number | boolean | undefined>;
  /** Event listeners by event name (`click`, `submit`, `change`). */
  on?: Partial<Record<string, (event: Event) => void>>;
}

/** Appends children (strings become text nodes) to `parent`; returns `parent`. */
export function append<T extends Node>(parent: T, ...children: Child[]): T {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
  return parent;
}

function apply(node: Element, props: Props): void {
  if (props.class) node.setAttribute("class", props.class);
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [name, listener] of Object.entries(props.on ?? {})) if (listener) node.addEventListener(name, listener);
}

/** An HTML element with props and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  apply(node, props);
  return append(node, ...children);
}

const SVG_NS = "http://www.w3.org/2000/svg";
/** An SVG element with attributes and children. */
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  apply(node, { attrs });
  return append(node, ...children);
}

/** Removes every child of `node`, then appends `children`. */
export function replace(node: Element, ...children: Child[]): void {
  node.replaceChildren();
  append(node, ...children);
}

let idCounter = 0;
/** A document-unique id for pairing a label with its control. */
export function uid(prefix: string): string {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/** A labelled control: `<div><label for=id>text</label>control</div>` (the control gets the id). */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement): HTMLDivElement {
  if (!control.id) control.id = uid("f");
  return h("div", {}, h("label", { attrs: { for: control.id } }, label), control);
}

/** A `<select>` of `options` ([value, label] pairs), `selected` chosen. */
export function select(name: string, options: readonly (readonly [string, string])[], selected = ""): HTMLSelectElement {
  const node = h("select", { attrs: { name } });
  for (const [value, label] of options) {
    const option = h("option", { attrs: { value } }, label);
    if (value === selected) option.selected = true;
    node.append(option);
  }
  return node;
}

/** A table in a horizontally scrolling wrapper (so a wide table never widens the page). */
export function table(caption: string, headers: readonly string[], rows: readonly HTMLTableRowElement[], empty = "Nothing to show."): HTMLDivElement {
  const body = h("tbody");
  if (rows.length === 0) body.append(h("tr", {}, h("td", { attrs: { colspan: headers.length }, class: "muted" }, empty)));
  else body.append(...rows);
  return h(
    "div",
    { class: "table-wrap" },
    h("table", {}, h("caption", {}, caption), h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", { attrs: { scope: "col" } }, t)))), body),
  );
}

/** A table row of cells (strings and nodes). */
export function row(...cells: Child[]): HTMLTableRowElement {
  return h("tr", {}, ...cells.map((c) => h("td", { class: "wrap" }, c)));
}

/** A local, readable form of an ISO 8601 time (the ISO text stays in the title). */
export function time(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return "";
  const d = new Date(iso);
  return h("time", { attrs: { datetime: iso, title: iso } }, Number.isNaN(d.getTime()) ? iso : d.toLocaleString());
}

/** A small status badge. */
export function badge(text: string, kind = text): HTMLSpanElement {
  return h("span", { class: `badge ${kind}` }, text);
}
