/*
 * Reading the portal's own markup (src/portal: double-quoted attributes, escaped by its `html`
 * template) well enough to find its links and forms and submit them like a browser.
 */

export interface FormField {
  name: string;
  /** What a browser would send untouched (the value shown, the first option, `on` for a checked box). */
  value: string;
  /** Checkboxes not checked and options are sent only when a probe sets them. */
  sentByDefault: boolean;
}

export interface PortalForm {
  method: 'get' | 'post';
  action: string;
  fields: FormField[];
}

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match === null ? null : unescapeHtml(match[1] as string);
}

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_match, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[entity] as string);
}

/** The portal pages a page links to (its own paths only, without fragments). */
export function portalLinks(page: string): string[] {
  return [...page.matchAll(/<a\s[^>]*href="(\/portal\/[^"#]*)"/g)].map((match) => unescapeHtml(match[1] as string));
}

function fieldsOf(markup: string): FormField[] {
  const fields: FormField[] = [];
  for (const match of markup.matchAll(/<input\s[^>]*>/g)) {
    const tag = match[0];
    const name = attribute(tag, 'name');
    if (name === null) continue;
    const type = attribute(tag, 'type') ?? 'text';
    const checkable = type === 'checkbox' || type === 'radio';
    fields.push({ name, value: attribute(tag, 'value') ?? (checkable ? 'on' : ''), sentByDefault: !checkable || /\schecked[\s>]/.test(tag) });
  }
  for (const match of markup.matchAll(/<textarea\s([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const name = attribute(` ${match[1] as string}`, 'name');
    if (name !== null) fields.push({ name, value: unescapeHtml(match[2] as string), sentByDefault: true });
  }
  for (const match of markup.matchAll(/<select\s([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = attribute(` ${match[1] as string}`, 'name');
    const options = [...(match[2] as string).matchAll(/<option\s[^>]*>/g)].map((option) => option[0]);
    const chosen = options.find((option) => /\sselected[\s>]/.test(option)) ?? options[0];
    if (name !== null) fields.push({ name, value: chosen === undefined ? '' : (attribute(chosen, 'value') ?? ''), sentByDefault: true });
  }
  return fields;
}

/** Every form of a page, with the fields a browser would send. */
export function portalForms(page: string): PortalForm[] {
  return [...page.matchAll(/<form\s([^>]*)>([\s\S]*?)<\/form>/g)].map((match) => {
    const tag = ` ${match[1] as string}`;
    return { method: attribute(tag, 'method') === 'post' ? 'post' : 'get', action: attribute(tag, 'action') ?? '', fields: fieldsOf(match[2] as string) };
  });
}

/** The fields of `form` as sent, with `changes` applied (a changed unchecked box is sent too). */
export function filledForm(form: PortalForm, changes: Record<string, string>): URLSearchParams {
  const body = new URLSearchParams();
  for (const field of form.fields) {
    const changed = changes[field.name];
    if (changed !== undefined) body.append(field.name, changed);
    else if (field.sentByDefault) body.append(field.name, field.value);
  }
  return body;
}

/**
 * The words of a page a person reads as Coffer's answer: the text outside form controls, so a
 * form shown again with what was typed into it is not mistaken for an echo in a message.
 */
export function pageWords(page: string): string {
  return unescapeHtml(
    page
      .replace(/<textarea[\s\S]*?<\/textarea>/g, ' ')
      .replace(/<select[\s\S]*?<\/select>/g, ' ')
      .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
      .replace(/<[^>]*>/g, ' '),
  );
}
