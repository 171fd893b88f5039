import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { decodeForm } from '../../src/http/format/form-codec.js';

/** The transparent redirect's form decoder checks control characters as it reads the pairs. */
function refusal(form: string): unknown {
  try {
    decodeForm(form);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).entries;
  }
}

const control = (attribute: string, field: string) => [{ key: 'errors.invalid', attribute, message: `${field} contains a control character` }];

describe('form bodies and the control-character bound', () => {
  it('names the field like the bounds walk does: the name itself, or the name in brackets for a value', () => {
    expect(refusal('email=a%01b')).toEqual(control('email', 'Email'));
    expect(refusal('e%02mail=x')).toMatchObject([{ key: 'errors.invalid' }]);
    expect(refusal('credit_card[first_name]=A%00')).toEqual(control('first_name', 'First name'));
    expect(refusal('credit_card[na%1Fme]=A')).toEqual(control('credit_card', 'Credit card'));
    expect(refusal('credit%0Bcard[name]=A')).toMatchObject([{ key: 'errors.invalid' }]);
  });

  it('allows tab, line feed and carriage return', () => {
    expect(decodeForm('note=a%09b%0Ac%0Dd').fields).toEqual({ note: 'a\tb\nc\rd' });
  });

  it('forgets a fault whose value a later pair replaces, as the decoded fields do', () => {
    expect(decodeForm('email=a%01&email=fine').fields).toEqual({ email: 'fine' });
    expect(decodeForm('credit_card[first_name]=A%01&credit_card[first_name]=Ada').fields).toEqual({ credit_card: { first_name: 'Ada' } });
    // A text replaced by a group, and a group replaced by a text.
    expect(decodeForm('credit_card=%01&credit_card[first_name]=Ada').fields).toEqual({ credit_card: { first_name: 'Ada' } });
    expect(decodeForm('metadata[k]=%01&metadata=plain').fields).toEqual({ metadata: 'plain' });
    // A fault elsewhere in the same group stays.
    expect(refusal('credit_card[last_name]=B%01&credit_card[first_name]=Ada')).toEqual(control('last_name', 'Last name'));
  });

  it('ignores the pairs it drops (prototype names, deeper brackets)', () => {
    expect(decodeForm('__proto__[x]=%01&constructor=%01&a[b][c]=%01&email=x').fields).toEqual({ email: 'x' });
  });
});
