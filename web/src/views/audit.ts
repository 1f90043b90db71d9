/**
 * Audit: the site audit of the store (`wga audit`, docs/audit.md). Each check with its count;
 * a check opens onto its pages and their evidence, each page linking to its page view. The check
 * open is in the address bar (`/audit?check=ID`).
 */
import { api } from '../api.js';
import { type Child, formatCount, h, notice, pageLink, replace, routeLink, table } from '../dom.js';
import type { AuditFinding, AuditReport } from '../types.js';

/** Pages shown for an open check (the JSON has them all). */
const SHOWN = 500;

/** A finding's evidence as DOM: URLs become links to their page view. */
function evidenceOf(finding: AuditFinding): Child[] {
  const parts: Child[] = [];
  const add = (...children: Child[]): void => {
    if (parts.length > 0) parts.push('; ');
    parts.push(...children);
  };
  for (const [key, value] of Object.entries(finding)) {
    if (key === 'url' || value === null || value === undefined || value === false) continue;
    if (key === 'linkers' && Array.isArray(value)) {
      const linkers = value as Array<{ url: string; kind: string }>;
      if (linkers.length === 0) add('linked from no page');
      else add('linked from ', ...linkers.slice(0, 3).flatMap((l, i) => [i === 0 ? '' : ', ', pageLink(l.url), l.kind === 'anchor' ? '' : ` (${l.kind})`]), linkers.length > 3 ? ` and ${formatCount(linkers.length - 3)} more` : '');
    } else if (key === 'hops' && Array.isArray(value)) {
      add(...(value as Array<{ url: string; answer: string }>).flatMap((hop, i) => [i === 0 ? '' : ' → ', pageLink(hop.url), ` [${hop.answer}]`]));
    } else if (key === 'others' && Array.isArray(value)) {
      const others = value as string[];
      const all = typeof finding.group === 'number' ? finding.group - 1 : others.length;
      add('with ', ...others.slice(0, 2).flatMap((u, i) => [i === 0 ? '' : ', ', pageLink(u)]), all > 2 ? ` and ${formatCount(all - 2)} more` : '');
    } else if (key === 'canonical' || key === 'final') add(`${key} `, pageLink(String(value)));
    else if (value === true) add(key);
    else add(`${key} ${typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(0) : String(value)}`);
  }
  return parts;
}

export async function auditView(root: HTMLElement, query: URLSearchParams): Promise<void> {
  const open = query.get('check');
  const summary = h('div', { class: 'panel', 'data-audit': '' }, h('p', { class: 'muted' }, 'Auditing the store…'));
  root.append(h('h1', undefined, 'Audit'), summary);
  let report: AuditReport;
  try {
    report = await api.get<AuditReport>('/api/audit');
  } catch (error) {
    replace(summary, notice('error', error instanceof Error ? error.message : String(error)));
    return;
  }
  const rows = report.checks.map((check) => [
    routeLink('/audit', { check: check.id }, check.id, { 'data-check': check.id }),
    check.unavailable !== undefined ? h('span', { class: 'muted', title: check.unavailable }, 'not recorded') : formatCount(check.count),
    check.title,
  ]);
  replace(
    summary,
    h('p', { class: 'muted' }, `${formatCount(report.pages)} pages and ${formatCount(report.links)} links audited in ${report.seconds.toFixed(2)} s. Click a check for its pages.`),
    table(['check', 'pages', 'what it finds'], rows, [1]),
  );
  const check = report.checks.find((c) => c.id === open);
  if (check === undefined) return;
  const detail = h('div', { class: 'panel', 'data-audit-check': check.id });
  root.append(detail);
  if (check.unavailable !== undefined) {
    replace(detail, h('h2', undefined, check.id), notice('info', check.unavailable));
    return;
  }
  const shown = check.pages.slice(0, SHOWN);
  detail.scrollIntoView?.();
  replace(
    detail,
    h('h2', undefined, `${check.id}: ${formatCount(check.count)} page${check.count === 1 ? '' : 's'}`),
    h('p', { class: 'muted' }, check.title, check.count > SHOWN ? ` (the first ${SHOWN}; wga audit --json lists all)` : ''),
    shown.length === 0 ? h('p', undefined, 'None: nothing to fix here.') : table(['page', 'evidence'], shown.map((f) => [pageLink(f.url), h('span', undefined, ...evidenceOf(f))])),
  );
}
