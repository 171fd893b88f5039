/**
 * The pages inside the card form's iframes: one input each (number or CVV) and Coffer's own
 * script. Nothing of the merchant's runs here; the page talks to its parent only through
 * postMessage, to the exact origin the browser checked with `frame-ancestors`.
 */

export const FRAME_FIELDS = ['number', 'cvv'] as const;
export type FrameField = (typeof FRAME_FIELDS)[number];

/** A channel id ties the two frames and the parent script of one form together. */
export const CHANNEL = /^[A-Za-z0-9_-]{8,64}$/;

const LABELS: Record<FrameField, { title: string; autocomplete: string }> = {
  number: { title: 'Card number', autocomplete: 'cc-number' },
  cvv: { title: 'Security code', autocomplete: 'cc-csc' },
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The CSP of a frame: only Coffer's script and stylesheet, requests only to Coffer, and only
 * `parentOrigin` may embed it (none when there is no valid one).
 */
export function frameCsp(parentOrigin: string | null): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${parentOrigin ?? "'none'"}`,
  ].join('; ');
}

export interface FramePage {
  field: FrameField;
  environmentKey: string;
  parentOrigin: string;
  channel: string;
}

/** The field's page; the frame script reads its settings from the body's data attributes. */
export function framePage(page: FramePage): string {
  const label = LABELS[page.field];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${label.title}</title>
<link rel="stylesheet" href="/iframe/v1/frame.css">
</head>
<body data-field="${page.field}" data-environment-key="${escapeHtml(page.environmentKey)}" data-parent-origin="${escapeHtml(page.parentOrigin)}" data-channel="${escapeHtml(page.channel)}">
<label id="field-label" for="field-input" class="visually-hidden">${label.title}</label>
<input id="field-input" name="${page.field}" type="text" inputmode="numeric" autocomplete="${label.autocomplete}" spellcheck="false" aria-label="${label.title}">
<script src="/iframe/v1/frame.js"></script>
</body>
</html>
`;
}

/**
 * The page a refused frame gets (unknown environment, origin not allowed): no input; its script
 * tells the parent why, through an `errors` event, when the parent is the origin it claimed.
 */
export function refusalPage(refusal: { parentOrigin: string; channel: string; key: string; message: string }): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Card form unavailable</title><link rel="stylesheet" href="/iframe/v1/frame.css"></head>
<body data-refused="${escapeHtml(refusal.key)}" data-message="${escapeHtml(refusal.message)}" data-parent-origin="${escapeHtml(refusal.parentOrigin)}" data-channel="${escapeHtml(refusal.channel)}">
<p class="refused">${escapeHtml(refusal.message)}</p>
<script src="/iframe/v1/frame.js"></script>
</body>
</html>
`;
}
