import introspectSource from "./introspect.py" with { type: "text" };

/** The embedded introspection script, as the target's Python receives it on stdin. */
export const INTROSPECT_SOURCE: string = introspectSource;
