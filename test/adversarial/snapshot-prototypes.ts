/** Built-in prototypes whose pollution would change every object of the process. */
const PROTOTYPES: [string, object][] = [
  ["Object", Object.prototype],
  ["Array", Array.prototype],
  ["Function", Function.prototype],
  ["String", String.prototype],
];

/**
 * The own property names and descriptors of Object/Array/Function/String prototypes, as text,
 * plus what a fresh object inherits under hostile names: equal snapshots mean nothing polluted.
 */
export function snapshotPrototypes(): Record<string, string> {
  const snapshot: Record<string, string> = {};
  for (const [name, proto] of PROTOTYPES) {
    snapshot[name] = Reflect.ownKeys(proto)
      .map((key) => {
        const d = Object.getOwnPropertyDescriptor(proto, key);
        const kind = d && "value" in d ? typeof d.value : "accessor";
        return `${String(key)}:${kind}:${d?.writable}:${d?.enumerable}:${d?.configurable}`;
      })
      .sort()
      .join("\n");
  }
  const fresh: Record<string, unknown> = {};
  snapshot.inherited = ["json", "polluted", "yes", "name", "prefix", "0", "length"]
    .map((key) => `${key}=${typeof fresh[key]}`)
    .join(",");
  return snapshot;
}
