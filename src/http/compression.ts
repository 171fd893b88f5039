import type { FastifyCompressOptions } from '@fastify/compress';

/** Responses smaller than this go out as they are: compressing them costs more than it saves. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * Response compression as Spreedly does it (docs/wire-compatibility.md): br, gzip or deflate, whichever the
 * client's Accept-Encoding prefers, for bodies of 1 KiB or more (brotli at the plugin's quality 4,
 * not zlib's slow 11). Request bodies are never decompressed: a compressed body could expand past
 * the 1 MiB limit before it is checked. The plugin attaches itself to each route as it is added,
 * so it is registered before the routes.
 */
export const COMPRESSION_OPTIONS: FastifyCompressOptions = {
  global: true,
  globalDecompression: false,
  threshold: COMPRESSION_THRESHOLD,
  encodings: ['br', 'gzip', 'deflate'],
};
