/**
 * Data: import a graph file into the store (uploaded from this computer, or a path on the server),
 * export a stored run's scores (TSV), and delete all data (after a confirmation).
 */
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { formatCount, h, notice, replace } from '../dom.js';
import { listen } from '../events.js';
import type { Info, Job, RunList } from '../types.js';

interface ImportJson {
  file: string;
  pagesAdded: number;
  linksAdded: number;
  seconds: number;
  pages: number;
  links: number;
}

const changed = (): boolean => window.dispatchEvent(new Event('wga:data-changed'));

export async function dataView(root: HTMLElement): Promise<() => void> {
  const closers: Array<() => void> = [];
  const storeBox = h('div', { 'data-store': '' });
  const file = h('input', { type: 'file', name: 'file' });
  const path = h('input', { type: 'text', name: 'path', placeholder: '/path/on/the/server/graph.txt.gz', spellcheck: 'false' });
  const importButton = h('button', { type: 'button', name: 'import' }, 'Import');
  const importOut = h('div', { 'data-import-result': '' });
  const runSelect = h('select', { name: 'run' });
  const exportLink = h('a', { class: 'button-link', 'data-export': '' }, 'Download scores (TSV)');
  const deleteButton = h('button', { type: 'button', class: 'danger', name: 'reset' }, 'Delete all data…');
  const deleteOut = h('div', { 'data-reset-result': '' });
  root.append(
    h('h1', undefined, 'Data'),
    h('div', { class: 'panel' }, h('h2', undefined, 'Store'), storeBox),
    h(
      'div',
      { class: 'grid' },
      h(
        'div',
        { class: 'panel' },
        h('h2', undefined, 'Import a graph file'),
        h('p', { class: 'muted' }, 'An edge list (SNAP/TSV/CSV, optionally .gz) or a WebGraph BV graph, as wga import reads them: its pages and links are added to the store.'),
        h('label', { class: 'field' }, h('span', { class: 'label' }, 'A file from this computer'), file),
        h('label', { class: 'field' }, h('span', { class: 'label' }, 'or a file on the server'), path),
        h('div', { class: 'actions' }, importButton),
        importOut,
      ),
      h('div', { class: 'panel' }, h('h2', undefined, 'Export a run’s scores'), h('p', { class: 'muted' }, 'Lines “URL<TAB>score”, best first.'), h('div', { class: 'row' }, runSelect, exportLink)),
      h('div', { class: 'panel' }, h('h2', undefined, 'Delete all data'), h('p', { class: 'muted' }, 'Every page, link, run and the crawl’s state are deleted from the store, to start again.'), deleteButton, deleteOut),
    ),
  );

  const loadInfo = async (): Promise<void> => {
    try {
      const info = await api.get<Info>('/api/info');
      const c = info.counts;
      replace(
        storeBox,
        h(
          'dl',
          { class: 'facts' },
          ...(
            [
              ['store', `${info.store} (${info.kind})`],
              ['pages', formatCount(c.pages)],
              ['links', formatCount(c.links)],
              ['fetched, failed, excluded, frontier', [c.fetched, c.failed, c.excluded, c.frontier].map(formatCount).join(', ')],
              ['stored runs', formatCount(c.runs)],
              ['crawl', info.crawl.running ? `running (${info.crawl.owner === 'server' ? 'this server' : 'another process'})` : 'not running'],
            ] as Array<[string, string]>
          ).flatMap(([k, v]) => [h('dt', undefined, k), h('dd', { 'data-fact': k }, v)]),
        ),
      );
      const list = await api.get<RunList>('/api/runs');
      runSelect.replaceChildren(...list.runs.map((r) => h('option', { value: r.id }, `#${r.id} ${r.method} (${formatCount(r.pages)} pages)`)));
      const pick = (): void => {
        if (runSelect.value === '') exportLink.removeAttribute('href');
        else {
          exportLink.href = `/api/runs/${encodeURIComponent(runSelect.value)}/scores`;
          exportLink.setAttribute('download', `run-${runSelect.value}.tsv`);
        }
      };
      runSelect.onchange = pick;
      pick();
      exportLink.classList.toggle('hidden', list.runs.length === 0);
      if (list.runs.length === 0) runSelect.replaceChildren(h('option', { value: '' }, 'no stored runs'));
    } catch (error) {
      replace(storeBox, notice('error', error instanceof Error ? error.message : String(error)));
    }
  };

  importButton.addEventListener('click', () => {
    replace(importOut);
    const chosen = file.files?.[0];
    const serverPath = path.value.trim();
    if (chosen === undefined && serverPath === '') {
      replace(importOut, notice('error', 'Choose a file, or give a path on the server.'));
      return;
    }
    importButton.disabled = true;
    const started = chosen !== undefined ? api.upload<{ job: Job<ImportJson> }>('/api/import', chosen, { name: chosen.name }) : api.post<{ job: Job<ImportJson> }>('/api/import', { path: serverPath });
    const line = h('div', { class: 'progress-line' }, 'Importing…');
    replace(importOut, line);
    const end = (job: Job<ImportJson>): void => {
      importButton.disabled = false;
      if (job.state === 'done' && job.result !== null) {
        const r = job.result;
        replace(importOut, notice('ok', `Imported ${r.file}: ${formatCount(r.pagesAdded)} pages and ${formatCount(r.linksAdded)} links added; the store has ${formatCount(r.pages)} pages and ${formatCount(r.links)} links.`));
        changed();
        void loadInfo();
      } else replace(importOut, notice('error', job.error?.message ?? `The import was ${job.state}.`));
    };
    started
      .then(({ job }) => {
        if (job.state !== 'running') return end(job);
        const close = listen(`/api/jobs/${encodeURIComponent(job.id)}/events`, {
          progress: (data) => (line.textContent = (data as { message: string }).message),
          end: (data) => {
            close();
            end(data as Job<ImportJson>);
          },
          job: (data) => {
            const j = data as Job<ImportJson>;
            if (j.state !== 'running') {
              close();
              end(j);
            }
          },
        });
        closers.push(close);
      })
      .catch((error: unknown) => {
        importButton.disabled = false;
        replace(importOut, notice('error', error instanceof Error ? error.message : String(error)));
      });
  });

  deleteButton.addEventListener('click', () => {
    void confirmAction('Delete all data?', 'Every page, link, stored run and the crawl state of this store will be deleted. This cannot be undone.', 'Delete everything').then(async (yes) => {
      if (!yes) {
        replace(deleteOut, notice('info', 'Nothing was deleted.'));
        return;
      }
      try {
        const answer = await api.post<{ deleted: { pages: number; links: number; runs: number } }>('/api/reset', { confirm: 'delete all data' });
        const d = answer.deleted;
        replace(deleteOut, notice('ok', `Deleted ${formatCount(d.pages)} pages, ${formatCount(d.links)} links and ${formatCount(d.runs)} runs.`));
        changed();
        await loadInfo();
      } catch (error) {
        replace(deleteOut, notice('error', error instanceof Error ? error.message : String(error)));
      }
    });
  });
  await loadInfo();
  return () => closers.forEach((close) => close());
}
