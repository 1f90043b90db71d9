/**
 * GEXF (Gephi's format; GEXF 1.3 by default, 1.2draft for older readers such
 * as NetworkX 2/3 whose reader knows only the 1.1 and 1.2 drafts). Attributes
 * are declared with their types in <attributes> blocks; every value goes
 * through xmlEscape. Streamed through a FileSink.
 */
import type { AppContext } from '../app/context.js';
import type { AttributeType, ExportGraph } from './model.js';
import { numberText, present, relText } from './model.js';
import type { FileSink } from './sink.js';
import { xmlEscape } from './xml.js';

export type GexfVersion = '1.3' | '1.2draft';

const NAMESPACES: Record<GexfVersion, { ns: string; schema: string }> = {
  '1.3': { ns: 'http://gexf.net/1.3', schema: 'http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd' },
  '1.2draft': { ns: 'http://www.gexf.net/1.2draft', schema: 'http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd' },
};

const GEXF_TYPES: Record<AttributeType, string> = { string: 'string', integer: 'long', double: 'double', boolean: 'boolean' };

function valueText(value: string | number | boolean): string {
  return typeof value === 'number' ? numberText(value) : xmlEscape(String(value));
}

export async function writeGexf(graph: ExportGraph, sink: FileSink, version: GexfVersion, context: AppContext = {}): Promise<void> {
  const { ns, schema } = NAMESPACES[version];
  sink.write(`<?xml version="1.0" encoding="UTF-8"?>\n`);
  sink.write(`<gexf xmlns="${ns}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${schema}" version="${version === '1.3' ? '1.3' : '1.2'}">\n`);
  const unit = graph.labelName === 'host' || graph.labelName === 'domain' ? `${graph.labelName}s` : 'pages';
  sink.write(`  <meta><creator>wga</creator><description>web graph: ${graph.nodeCount} ${unit}, ${graph.edgeCount} links</description></meta>\n`);
  sink.write(`  <graph defaultedgetype="directed" mode="static">\n`);
  sink.write(`    <attributes class="node">\n`);
  graph.attributes.forEach((a, i) => sink.write(`      <attribute id="${i}" title="${xmlEscape(a.name)}" type="${GEXF_TYPES[a.type]}"/>\n`));
  sink.write(`    </attributes>\n`);
  const edgeAttributes: string[] = [];
  if (graph.kinds !== null) edgeAttributes.push(`      <attribute id="type" title="type" type="string"/>\n`);
  if (graph.rel !== null) {
    edgeAttributes.push(`      <attribute id="nofollow" title="nofollow" type="boolean"/>\n`);
    edgeAttributes.push(`      <attribute id="rel" title="rel" type="string"/>\n`);
  }
  if (edgeAttributes.length > 0) sink.write(`    <attributes class="edge">\n${edgeAttributes.join('')}    </attributes>\n`);

  sink.write(`    <nodes count="${graph.nodeCount}">\n`);
  for (let v = 0; v < graph.nodeCount; v++) {
    let values = '';
    graph.attributes.forEach((a, i) => {
      const value = a.value(v);
      if (present(value)) values += `<attvalue for="${i}" value="${valueText(value)}"/>`;
    });
    sink.write(`      <node id="${v}" label="${xmlEscape(graph.label(v))}">${values === '' ? '' : `<attvalues>${values}</attvalues>`}</node>\n`);
    if (sink.full) {
      await sink.flush();
      context.signal?.throwIfAborted();
    }
  }
  sink.write(`    </nodes>\n`);

  sink.write(`    <edges count="${graph.edgeCount}">\n`);
  const { offsets, targets, kinds, kindNames, rel, weights } = graph;
  for (let v = 0; v < graph.nodeCount; v++) {
    const end = offsets[v + 1]!;
    for (let e = offsets[v]!; e < end; e++) {
      let line = `      <edge id="${e}" source="${v}" target="${targets[e]}"`;
      if (weights !== null) line += ` weight="${numberText(weights[e]!)}"`;
      if (kinds === null && rel === null) line += '/>\n';
      else {
        line += '><attvalues>';
        if (kinds !== null) line += `<attvalue for="type" value="${kindNames[kinds[e]!]}"/>`;
        if (rel !== null) line += `<attvalue for="nofollow" value="${(rel[e]! & 1) === 1}"/><attvalue for="rel" value="${relText(rel[e]!)}"/>`;
        line += '</attvalues></edge>\n';
      }
      sink.write(line);
    }
    if (sink.full) {
      await sink.flush();
      context.signal?.throwIfAborted();
      context.onProgress?.({ phase: 'export', message: `gexf: links of ${v + 1} of ${graph.nodeCount} pages`, done: v + 1, total: graph.nodeCount });
    }
  }
  sink.write(`    </edges>\n  </graph>\n</gexf>\n`);
}
