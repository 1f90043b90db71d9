/**
 * A page's neighbourhood as a small force-directed SVG drawing (d3-force): the page in the
 * middle, the pages it links to and that link to it around it, coloured by fetch status. Hover
 * shows a node's URL (an SVG <title> text node), a click opens that page's detail, a drag moves it.
 */
import { drag } from 'd3-drag';
import { forceCenter, forceCollide, forceLink, forceManyBody, forceSimulation, type SimulationLinkDatum, type SimulationNodeDatum } from 'd3-force';
import { select } from 'd3-selection';
import { svg } from '../dom.js';
import { statusColour } from '../status.js';
import type { Neighbourhood } from '../types.js';

interface Node extends SimulationNodeDatum {
  id: number;
  url: string;
  title: string | null;
  status: number | null;
  distance: number;
  degree: number;
}

/** The last segment of a URL's path, or its host for a home page; the whole text when it is not a URL. */
export function shortLabel(url: string): string {
  try {
    const parsed = new URL(url);
    const parts = parsed.pathname.split('/').filter((p) => p !== '');
    const last = parts.length === 0 ? parsed.host : `${parts[parts.length - 1]}${parsed.pathname.endsWith('/') ? '/' : ''}`;
    return last.length > 28 ? `${last.slice(0, 27)}…` : last;
  } catch {
    return url.length > 28 ? `${url.slice(0, 27)}…` : url;
  }
}

/** Draws `n` into `container`; `open(url)` is called when a node is clicked. Returns a stop function. */
export function drawNeighbourhood(container: HTMLElement, n: Neighbourhood, open: (url: string) => void): () => void {
  const width = Math.max(320, container.clientWidth || 480);
  const height = 340;
  const nodes: Node[] = n.nodes.map((p) => ({ id: p.id, url: p.url, title: p.title, status: p.status, distance: p.distance, degree: p.inDegree + p.outDegree }));
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const links: Array<SimulationLinkDatum<Node>> = n.edges
    .filter(([a, b]) => index.has(a) && index.has(b) && a !== b)
    .map(([a, b]) => ({ source: index.get(a)!, target: index.get(b)! }));
  const centre = nodes[index.get(n.center) ?? 0];
  if (centre !== undefined) {
    centre.fx = width / 2;
    centre.fy = height / 2;
  }
  const root = svg('svg', { class: 'drawing neighbourhood', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'links around this page' });
  const defs = svg('defs', undefined, svg('marker', { id: 'arrow', viewBox: '0 -4 8 8', refX: 15, refY: 0, markerWidth: 6, markerHeight: 6, orient: 'auto' }, svg('path', { d: 'M0,-4L8,0L0,4', fill: '#98a2b3' })));
  const linkLayer = svg('g', { stroke: '#c3cad5', 'stroke-width': 1 });
  const nodeLayer = svg('g');
  root.append(defs, linkLayer, nodeLayer);
  const lines = links.map(() => svg('line', { 'marker-end': 'url(#arrow)' }));
  linkLayer.append(...lines);
  const radii = nodes.map((node) => (node.id === n.center ? 10 : 4 + Math.min(6, Math.log2(1 + node.degree))));
  const circles = nodes.map((node, i) => {
    const radius = radii[i]!;
    const circle = svg('circle', { r: radius, fill: statusColour(node.status), stroke: node.id === n.center ? '#1d2330' : '#fff', 'stroke-width': node.id === n.center ? 2.5 : 1, 'data-url': node.url }, svg('title', undefined, node.title === null ? node.url : `${node.title}\n${node.url}`));
    circle.style.cursor = 'pointer';
    circle.addEventListener('click', () => open(node.url));
    return circle;
  });
  nodeLayer.append(...circles);
  // A short label beside each node: the last part of its URL's path (or its host), as SVG text.
  const labels = nodes.map((node) => {
    const text = svg('text', { 'font-size': node.id === n.center ? 12 : 10, fill: '#475467', 'pointer-events': 'none' }, shortLabel(node.url));
    return text;
  });
  const labelLayer = svg('g');
  labelLayer.append(...labels);
  root.appendChild(labelLayer);
  container.replaceChildren(root);

  const simulation = forceSimulation(nodes)
    .force('link', forceLink(links).distance(Math.min(150, 60 + 4 * nodes.length)).strength(0.3))
    .force('charge', forceManyBody().strength(-260))
    .force('center', forceCenter(width / 2, height / 2))
    .force('collide', forceCollide(9));
  const clamp = (v: number, max: number): number => Math.max(12, Math.min(max - 12, v));
  const draw = (): void => {
    links.forEach((link, i) => {
      const s = link.source as Node;
      const t = link.target as Node;
      const line = lines[i]!;
      line.setAttribute('x1', String(clamp(s.x ?? 0, width)));
      line.setAttribute('y1', String(clamp(s.y ?? 0, height)));
      line.setAttribute('x2', String(clamp(t.x ?? 0, width)));
      line.setAttribute('y2', String(clamp(t.y ?? 0, height)));
    });
    nodes.forEach((node, i) => {
      const x = clamp(node.x ?? 0, width);
      const y = clamp(node.y ?? 0, height);
      circles[i]!.setAttribute('cx', String(x));
      circles[i]!.setAttribute('cy', String(y));
      labels[i]!.setAttribute('x', String(x + radii[i]! + 3));
      labels[i]!.setAttribute('y', String(y + 4));
    });
  };
  simulation.on('tick', draw);
  select(nodeLayer)
    .selectAll<SVGCircleElement, Node>('circle')
    .data(nodes)
    .call(
      drag<SVGCircleElement, Node>()
        .on('start', (event, d) => {
          if (!event.active) simulation.alphaTarget(0.2).restart();
          d.fx = d.x;
          d.fy = d.y;
        })
        .on('drag', (event, d) => {
          d.fx = event.x;
          d.fy = event.y;
        })
        .on('end', (event, d) => {
          if (!event.active) simulation.alphaTarget(0);
          if (d.id !== n.center) {
            d.fx = null;
            d.fy = null;
          }
        }),
    );
  return () => simulation.stop();
}
