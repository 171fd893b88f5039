/** A response body undici hands over: chunks to read, and a way to stop reading. */
interface BodyStream extends AsyncIterable<unknown> {
  destroy(): unknown;
}

/**
 * Reads a whole response body, or stops (destroying the stream) as soon as it passes `maxBytes`
 * and returns null: an answer too large to keep is a fault of the peer, never a memory problem.
 */
export async function readCappedBody(body: BodyStream, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
