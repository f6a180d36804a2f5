import * as v from "valibot";
import { isJsonObject } from "../is-json-object.ts";

/**
 * True when the dataset holds a map (a JSON object); otherwise adds the schema's type issue.
 * valibot's own object and record schemas would take a list for a map.
 */
export function checkMap(
  schema: v.GenericSchema & { message: string },
  dataset: v.UnknownDataset,
  config: v.Config<v.BaseIssue<unknown>>,
): dataset is v.UnknownDataset & { value: Record<string, unknown> } {
  if (isJsonObject(dataset.value)) return true;
  v._addIssue(schema, "type", dataset, config);
  return false;
}
