import * as v from "valibot";
import { checkMap } from "./check-map.ts";

/** A map read from the manifest: null-prototype, own keys only. */
export type ManifestDict<T> = Readonly<Record<string, T>>;

/** The schema `manifestDict` returns: a valibot record (so JSON Schema sees one) of own keys. */
export interface ManifestDictSchema<TValue extends v.GenericSchema>
  extends v.BaseSchema<
    Record<string, v.InferInput<TValue>>,
    ManifestDict<v.InferOutput<TValue>>,
    v.RecordIssue | v.InferIssue<TValue>
  > {
  readonly type: "record";
  readonly reference: typeof manifestDict;
  readonly key: v.StringSchema<undefined>;
  readonly value: TValue;
  readonly message: string;
}

/**
 * A map keyed by names from the manifest (commands, options, aliases, runtime sources): valibot's
 * record, except that every own key is kept, `__proto__`, `constructor` and `prototype` included
 * (valibot's record drops them), in a null-prototype object. Its entries' path items are of type
 * `unknown`: their keys come from the file, so a schematic path shows them as `*`.
 */
export function manifestDict<TValue extends v.GenericSchema>(
  value: TValue,
): ManifestDictSchema<TValue> {
  return v._standardSchema<ManifestDictSchema<TValue>>({
    kind: "schema",
    type: "record",
    reference: manifestDict,
    expects: "Object",
    async: false,
    key: v.string(),
    value,
    message: "a map",
    "~run"(dataset, config) {
      // When false, checkMap has turned the dataset into a failure.
      if (!checkMap(this, dataset, config)) {
        return dataset as unknown as v.FailureDataset<v.RecordIssue>;
      }
      const input = dataset.value;
      const value: Record<string, unknown> = Object.create(null);
      const issues: v.BaseIssue<unknown>[] = [];
      let typed = true;
      for (const [key, item] of Object.entries(input)) {
        const entry = this.value["~run"]({ value: item }, config);
        if (!entry.typed) typed = false;
        for (const issue of entry.issues ?? []) {
          const at: v.UnknownPathItem = {
            type: "unknown",
            origin: "value",
            input,
            key,
            value: item,
          };
          issues.push({ ...issue, path: [at, ...(issue.path ?? [])] });
        }
        if (entry.issues && config.abortEarly) break;
        // defineProperty makes an own data property even of "__proto__"; never a prototype change.
        Object.defineProperty(value, key, {
          value: entry.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return (issues.length > 0 ? { typed, value, issues } : { typed, value }) as v.OutputDataset<
        ManifestDict<v.InferOutput<TValue>>,
        v.RecordIssue | v.InferIssue<TValue>
      >;
    },
  });
}
