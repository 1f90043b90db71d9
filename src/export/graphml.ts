/**
 * GraphML (igraph, NetworkX, Cytoscape, yEd): <key> declarations with
 * attr.type, then nodes n0..n(n-1) and edges. Every value goes through
 * xmlEscape. Streamed through a FileSink.
 */
import type { AppContext } from '../app/context.js';
import type { AttributeType, ExportGraph } from './model.js';
import { numberText, present, relText } from './model.js';
import type { FileSink } from './sink.js';
import { xmlEscape } from './xml.js';

const GRAPHML_TYPES: Record<AttributeType, string> = { string: 'string', integer: 'long', double: 'double', boolean: 'boolean' };

export async function writeGraphml(graph: ExportGraph, sink: FileSink, context: AppContext = {}): Promise<void> {
  sink.write(`<?xml version="1.0" encoding="UTF-8"?>\n`);
  sink.write(
    `<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
      `xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n`,
  );
  graph.attributes.forEach((a, i) =>
    sink.write(`  <key id="d${i}" for="node" attr.name="${xmlEscape(a.name)}" attr.type="${GRAPHML_TYPES[a.type]}"/>\n`),
  );
  const { offsets, targets, kinds, kindNames, rel, weights } = graph;
  if (kinds !== null) sink.write(`  <key id="type" for="edge" attr.name="type" attr.type="string"/>\n`);
  if (rel !== null) {
    sink.write(`  <key id="nofollow" for="edge" attr.name="nofollow" attr.type="boolean"/>\n`);
    sink.write(`  <key id="rel" for="edge" attr.name="rel" attr.type="string"/>\n`);
  }
  if (weights !== null) sink.write(`  <key id="weight" for="edge" attr.name="weight" attr.type="double"/>\n`);
  sink.write(`  <graph id="wga" edgedefault="directed">\n`);
  for (let v = 0; v < graph.nodeCount; v++) {
    let line = `    <node id="n${v}">`;
    graph.attributes.forEach((a, i) => {
      const value = a.value(v);
      if (present(value)) line += `<data key="d${i}">${typeof value === 'number' ? numberText(value) : xmlEscape(String(value))}</data>`;
    });
    sink.write(`${line}</node>\n`);
    if (sink.full) {
      await sink.flush();
      context.signal?.throwIfAborted();
    }
  }
  for (let v = 0; v < graph.nodeCount; v++) {
    const end = offsets[v + 1]!;
    for (let e = offsets[v]!; e < end; e++) {
      let line = `    <edge source="n${v}" target="n${targets[e]}"`;
      if (kinds === null && rel === null && weights === null) line += '/>\n';
      else {
        line += '>';
        if (kinds !== null) line += `<data key="type">${kindNames[kinds[e]!]}</data>`;
        if (rel !== null) line += `<data key="nofollow">${(rel[e]! & 1) === 1}</data><data key="rel">${relText(rel[e]!)}</data>`;
        if (weights !== null) line += `<data key="weight">${numberText(weights[e]!)}</data>`;
        line += '</edge>\n';
      }
      sink.write(line);
    }
    if (sink.full) {
      await sink.flush();
      context.signal?.throwIfAborted();
      context.onProgress?.({ phase: 'export', message: `graphml: links of ${v + 1} of ${graph.nodeCount} pages`, done: v + 1, total: graph.nodeCount });
    }
  }
  sink.write(`  </graph>\n</graphml>\n`);
}
