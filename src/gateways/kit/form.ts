/** A form body (application/x-www-form-urlencoded) with bracketed nesting, as Stripe and many older gateways read it (`card[number]=…`, `expand[]=…`). */
export type FormValue = string | number | boolean | null | undefined | FormValue[] | { [key: string]: FormValue };

export function formEncode(fields: Record<string, FormValue>): string {
  const params = new URLSearchParams();
  const add = (name: string, value: FormValue): void => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      for (const item of value) add(`${name}[]`, item);
    } else if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) add(`${name}[${key}]`, inner);
    } else {
      params.append(name, String(value));
    }
  };
  for (const [name, value] of Object.entries(fields)) add(name, value);
  return params.toString();
}
