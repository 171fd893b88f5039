/**
 * PEM framing (RFC 7468) read strictly: only what sits between matching BEGIN/END lines counts,
 * and everything is re-encoded from its DER before it is stored or shown, so text around the
 * blocks (comments, "Bag Attributes", stray secrets) never travels further.
 */

/** One `-----BEGIN <label>-----` … `-----END <label>-----` block. */
export interface PemBlock {
  label: string;
  /** RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`) of legacy encrypted keys. */
  headers: Record<string, string>;
  der: Buffer;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
const HEADER = /^([A-Za-z-]+):\s*(.*)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The PEM blocks of `text`, in order. A block whose body is not base64 makes the whole text
 * unreadable (null): a half-understood PEM is not one to guess about.
 */
export function pemBlocks(text: string): PemBlock[] | null {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const headers: Record<string, string> = {};
    const body: string[] = [];
    for (const raw of (match[2] as string).split(/\r?\n/)) {
      const line = raw.trim();
      if (line === '') continue;
      const header = body.length === 0 ? HEADER.exec(line) : null;
      if (header !== null) headers[(header[1] as string).toLowerCase()] = header[2] as string;
      else body.push(line);
    }
    const base64 = body.join('');
    if (base64 === '' || !BASE64.test(base64)) return null;
    blocks.push({ label: match[1] as string, headers, der: Buffer.from(base64, 'base64') });
  }
  return blocks;
}

/** DER as a PEM block with 64-character lines and a final newline. */
export function toPem(label: string, der: ArrayBuffer | Uint8Array): string {
  const base64 = Buffer.from(der instanceof Uint8Array ? der : new Uint8Array(der)).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
