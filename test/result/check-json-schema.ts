/** A JSON Schema subset: what EXECUTION_RESULT_JSON_SCHEMA uses. */
interface Schema {
  description?: string;
  type?: string | readonly string[];
  properties?: Readonly<Record<string, Schema>>;
  required?: readonly string[];
  additionalProperties?: boolean;
  minimum?: number;
}

function typeOf(value: unknown): string[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number")
    return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  return [typeof value];
}

/** Checks a value against a JSON Schema subset; returns the JSON paths that fail. */
export function checkJsonSchema(schema: Schema, value: unknown, path = "$"): string[] {
  const issues: string[] = [];
  if (schema.type !== undefined) {
    const allowed = typeof schema.type === "string" ? [schema.type] : schema.type;
    if (!typeOf(value).some((type) => allowed.includes(type))) {
      return [`${path}: expected ${allowed.join(" or ")}`];
    }
  }
  if (schema.minimum !== undefined && typeof value === "number" && value < schema.minimum) {
    issues.push(`${path}: below ${schema.minimum}`);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (!(key in record)) issues.push(`${path}.${key}: required`);
    }
    for (const [key, child] of Object.entries(record)) {
      const childSchema = schema.properties?.[key];
      if (childSchema) issues.push(...checkJsonSchema(childSchema, child, `${path}.${key}`));
      else if (schema.additionalProperties === false) issues.push(`${path}.${key}: not allowed`);
    }
  }
  return issues;
}
