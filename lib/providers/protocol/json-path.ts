/**
 * The value at a dotted path (`links.next`, `data.items`). A key that itself holds dots
 * (`@odata.nextLink`) is found too: at each level the whole remaining path is tried as one key
 * before it is split. An empty path is the value itself.
 */
export function valueAt(data: unknown, path: string | undefined): unknown {
  if (!path) return data;
  if (data === null || typeof data !== 'object') return undefined;
  const record = data as Record<string, unknown>;
  if (Object.hasOwn(record, path)) return record[path];
  for (let dot = path.indexOf('.'); dot !== -1; dot = path.indexOf('.', dot + 1)) {
    const head = path.slice(0, dot);
    if (!Object.hasOwn(record, head)) continue;
    const found = valueAt(record[head], path.slice(dot + 1));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A copy of `data` with `value` at the dotted path, creating objects on the way. */
export function withValueAt(data: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const dot = path.indexOf('.');
  if (dot === -1 || Object.hasOwn(data, path)) return { ...data, [path]: value };
  const head = path.slice(0, dot);
  const inner = data[head];
  const child =
    inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
  return { ...data, [head]: withValueAt(child, path.slice(dot + 1), value) };
}
