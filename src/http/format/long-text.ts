/*
 * A long text (stored free-form `data` may hold 64 KiB of `&`, five bytes each in XML; values stored
 * before input was bounded, megabytes) is escaped by the response writers a piece at a time, so that
 * one value never makes a long step of a body written in steps (body-writer.ts). Escaping works
 * character by character, so the pieces escaped one after another give the text escaped whole, as
 * long as no piece ends between the two halves of a surrogate pair (JSON would escape each half).
 */

/** Texts longer than this are escaped in pieces of this many characters. */
export const LONG_TEXT = 8 * 1024;

/** Where the piece of `text` that starts at `start` ends: LONG_TEXT characters on, one fewer rather than cut a surrogate pair. */
export function pieceEnd(text: string, start: number): number {
  const end = start + LONG_TEXT;
  if (end >= text.length) return text.length;
  const last = text.charCodeAt(end - 1);
  return last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}
