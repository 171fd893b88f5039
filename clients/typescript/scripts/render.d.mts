/** The text of src/schema.d.ts for an OpenAPI document (render.mjs). */
export function renderClientTypes(document: Record<string, unknown>): Promise<string>;
