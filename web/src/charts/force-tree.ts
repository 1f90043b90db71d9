/**
 * The crawl tree as a force-directed diagram (as Screaming Frog draws it): each page linked to the
 * page that first linked it, node size by importance, colour by fetch status. Drawn on a canvas
 * (d3-force for the layout, d3-zoom to pan and zoom) so a crawl of a few thousand pages stays
 * interactive; hovering a node shows its URL in a tooltip (text), clicking opens its detail.
 */
import { forceLink, forceManyBody, forceSimulation, forceX, forceY, type SimulationLinkDatum, type SimulationNodeDatum } from 'd3-force';
import { select } from 'd3-selection';
import { zoom, zoomIdentity, type ZoomTransform } from 'd3-zoom';
import { h } from '../dom.js';
import { statusColour } from '../status.js';
import type { TreePage } from '../types.js';

interface Node extends SimulationNodeDatum {
  page: TreePage;
  radius: number;
  colour: string;
}

export function drawForceTree(container: HTMLElement, pages: readonly TreePage[], open: (url: string) => void): () => void {
  const width = Math.max(360, container.clientWidth || 800);
  const height = 560;
  const ratio = window.devicePixelRatio || 1;
  const canvas = h('canvas', { class: 'drawing force-tree', width: Math.round(width * ratio), height: Math.round(height * ratio), 'data-nodes': pages.length, 'aria-label': 'crawl tree, force-directed' });
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const tooltip = h('div', { class: 'tooltip hidden' });
  container.replaceChildren(canvas, tooltip);
  const context = canvas.getContext('2d')!;

  const maxImportance = Math.max(Number.MIN_VALUE, ...pages.map((p) => p.importance ?? 0));
  const nodes: Node[] = pages.map((page) => ({ page, radius: 2.5 + 9 * Math.sqrt((page.importance ?? 0) / maxImportance), colour: statusColour(page.status) }));
  const roots = new Set(pages.filter((p) => p.parent === null).map((p) => p.id));
  const index = new Map(pages.map((p, i) => [p.id, i]));
  const links: Array<SimulationLinkDatum<Node>> = [];
  pages.forEach((p, i) => {
    if (p.parent !== null && index.has(p.parent)) links.push({ source: index.get(p.parent)!, target: i });
  });
  let transform: ZoomTransform = zoomIdentity.translate(width / 2, height / 2);
  const draw = (): void => {
    context.save();
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    context.translate(transform.x, transform.y);
    context.scale(transform.k, transform.k);
    context.strokeStyle = 'rgba(120, 134, 156, 0.45)';
    context.lineWidth = 0.8 / transform.k;
    context.beginPath();
    for (const link of links) {
      const s = link.source as Node;
      const t = link.target as Node;
      context.moveTo(s.x ?? 0, s.y ?? 0);
      context.lineTo(t.x ?? 0, t.y ?? 0);
    }
    context.stroke();
    context.lineWidth = 0.6 / transform.k;
    context.strokeStyle = '#ffffff';
    for (const node of nodes) {
      context.beginPath();
      context.arc(node.x ?? 0, node.y ?? 0, node.radius, 0, 2 * Math.PI);
      context.fillStyle = node.colour;
      context.fill();
      context.stroke();
    }
    // The seeds (the tree's roots) ringed in black.
    context.strokeStyle = '#1d2330';
    context.lineWidth = 2 / transform.k;
    for (const node of nodes) {
      if (!roots.has(node.page.id)) continue;
      context.beginPath();
      context.arc(node.x ?? 0, node.y ?? 0, node.radius + 2 / transform.k, 0, 2 * Math.PI);
      context.stroke();
    }
    context.restore();
  };
  const simulation = forceSimulation(nodes)
    .force('link', forceLink(links).distance(18).strength(0.9))
    .force('charge', forceManyBody().strength(-22).distanceMax(260).theta(0.9))
    .force('x', forceX(0).strength(0.04))
    .force('y', forceY(0).strength(0.04))
    .alphaDecay(0.035)
    .on('tick', () => {
      ticks++;
      // Until the user pans or zooms, the view follows the layout so that all of it is in sight.
      if (!touched && ticks % 10 === 0) fit();
      draw();
    });
  let ticks = 0;
  let touched = false;
  const fit = (): void => {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (const node of nodes) {
      minX = Math.min(minX, node.x ?? 0);
      maxX = Math.max(maxX, node.x ?? 0);
      minY = Math.min(minY, node.y ?? 0);
      maxY = Math.max(maxY, node.y ?? 0);
    }
    if (!Number.isFinite(minX)) return;
    const k = Math.min(4, 0.92 * Math.min(width / Math.max(1, maxX - minX + 24), height / Math.max(1, maxY - minY + 24)));
    const next = zoomIdentity.translate(width / 2 - (k * (minX + maxX)) / 2, height / 2 - (k * (minY + maxY)) / 2).scale(k);
    select(canvas).call(zoomer.transform, next);
  };

  const zoomer = zoom<HTMLCanvasElement, unknown>()
    .scaleExtent([0.1, 12])
    .on('zoom', (event: { transform: ZoomTransform; sourceEvent: unknown }) => {
      if (event.sourceEvent !== null && event.sourceEvent !== undefined) touched = true;
      transform = event.transform;
      draw();
    });
  select(canvas).call(zoomer).call(zoomer.transform, transform);

  const nodeAt = (event: MouseEvent): Node | undefined => {
    const box = canvas.getBoundingClientRect();
    const [x, y] = transform.invert([event.clientX - box.left, event.clientY - box.top]);
    return simulation.find(x, y, 12 / transform.k);
  };
  canvas.addEventListener('mousemove', (event) => {
    const node = nodeAt(event);
    if (node === undefined) {
      tooltip.classList.add('hidden');
      canvas.style.cursor = 'grab';
      return;
    }
    canvas.style.cursor = 'pointer';
    const p = node.page;
    tooltip.textContent = `${p.title === null ? '' : `${p.title} — `}${p.url} · depth ${p.depth} · status ${p.status ?? 'not fetched'}`;
    tooltip.style.left = `${event.clientX + 12}px`;
    tooltip.style.top = `${event.clientY + 12}px`;
    tooltip.classList.remove('hidden');
  });
  canvas.addEventListener('mouseleave', () => tooltip.classList.add('hidden'));
  canvas.addEventListener('click', (event) => {
    const node = nodeAt(event);
    if (node !== undefined) open(node.page.url);
  });
  return () => {
    simulation.stop();
    tooltip.remove();
  };
}
