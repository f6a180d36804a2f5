import * as v from "valibot";
import { checkMap } from "./check-map.ts";

const OPTIONAL_TYPES: ReadonlySet<string> = new Set(["optional", "nullish", "exact_optional"]);

/**
 * A manifest map of named fields: valibot's object (unknown keys dropped), where a field that is
 * nil reads as absent, as an absent key does (Python's None). A required field that is absent is
 * handed to its own schema, so the refusal says what that field expects, not what the map does.
 */
export function manifestFields<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  const object = v.object(entries, "a map");
  return v._standardSchema<typeof object>({
    ...object,
    "~run"(dataset, config) {
      // When false, checkMap has turned the dataset into a failure.
      if (!checkMap(object, dataset, config)) {
        return dataset as unknown as v.FailureDataset<v.ObjectIssue>;
      }
      const input = dataset.value;
      const fields: Record<string, unknown> = Object.create(null);
      for (const [key, schema] of Object.entries(entries)) {
        const value = Object.hasOwn(input, key) ? input[key] : null;
        if (value !== null) fields[key] = value;
        else if (!OPTIONAL_TYPES.has(schema.type)) fields[key] = undefined;
      }
      return object["~run"]({ value: fields }, config);
    },
  });
}
