/**
 * Form fields that read back as the API's JSON values: numbers (empty: left out, so the server's
 * default applies), lists (one per line), choices and switches. Each field keeps its API name.
 */
import { type Child, field, h } from './dom.js';

export interface Field {
  name: string;
  element: HTMLElement;
  /** The value for the request body, or undefined to leave the field out. */
  read(): unknown;
  write(value: unknown): void;
}

type Common = { name: string; label: string; help?: string; placeholder?: string };

export function numberField(o: Common & { min?: number; max?: number; step?: number | 'any'; value?: number }): Field {
  const input = h('input', { type: 'number', name: o.name, min: o.min, max: o.max, step: o.step ?? 'any', placeholder: o.placeholder, value: o.value });
  return {
    name: o.name,
    element: field(o.label, input, o.help),
    read: () => (input.value.trim() === '' ? undefined : Number(input.value)),
    write: (value) => (input.value = typeof value === 'number' ? String(value) : ''),
  };
}

export function textField(o: Common & { value?: string }): Field {
  const input = h('input', { type: 'text', name: o.name, placeholder: o.placeholder, value: o.value, spellcheck: 'false', autocomplete: 'off' });
  return {
    name: o.name,
    element: field(o.label, input, o.help),
    read: () => (input.value.trim() === '' ? undefined : input.value.trim()),
    write: (value) => (input.value = typeof value === 'string' ? value : ''),
  };
}

/** A list of values, one per line (regexes, URLs, CIDR ranges, country codes). */
export function linesField(o: Common & { rows?: number }): Field {
  const input = h('textarea', { name: o.name, rows: o.rows ?? 2, placeholder: o.placeholder, spellcheck: 'false', autocomplete: 'off' });
  return {
    name: o.name,
    element: field(o.label, input, o.help),
    read: () => {
      const lines = input.value.split('\n').map((line) => line.trim()).filter((line) => line !== '');
      return lines.length === 0 ? undefined : lines;
    },
    write: (value) => (input.value = Array.isArray(value) ? value.join('\n') : ''),
  };
}

export function selectField(o: Common & { options: ReadonlyArray<readonly [string, string]>; value?: string; optional?: boolean }): Field {
  const select = h('select', { name: o.name });
  if (o.optional === true) select.appendChild(h('option', { value: '' }, '(default)'));
  for (const [value, text] of o.options) select.appendChild(h('option', { value, selected: value === o.value }, text));
  return {
    name: o.name,
    element: field(o.label, select, o.help),
    read: () => (select.value === '' ? undefined : select.value),
    write: (value) => (select.value = typeof value === 'string' ? value : ''),
  };
}

export function checkField(o: Common & { checked?: boolean }): Field {
  const input = h('input', { type: 'checkbox', name: o.name, checked: o.checked === true });
  return {
    name: o.name,
    element: h('label', { class: 'check' }, input, h('span', undefined, o.label), o.help === undefined ? null : h('small', { class: 'muted' }, o.help)),
    read: () => input.checked,
    write: (value) => (input.checked = value === true),
  };
}

/** The request body of a set of fields (fields reading undefined are left out). */
export function readFields(fields: readonly Field[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) {
    const value = f.read();
    if (value !== undefined) body[f.name] = value;
  }
  return body;
}

/** A group folded away until opened (advanced settings); opened at once when it holds a value. */
export function foldedGroup(summary: string, fields: readonly Field[], columns = false): HTMLDetailsElement {
  const inner = columns ? [h('div', { class: 'cols' }, ...fields.map((f) => f.element))] : fields.map((f) => f.element);
  return h('details', { class: 'group', 'data-group': summary }, h('summary', undefined, summary), ...inner);
}

export function group(legend: string, fields: readonly Field[], columns = false, ...extra: Child[]): HTMLFieldSetElement {
  const inner = columns ? [h('div', { class: 'cols' }, ...fields.map((f) => f.element))] : fields.map((f) => f.element);
  return h('fieldset', undefined, h('legend', undefined, legend), ...inner, ...extra);
}
