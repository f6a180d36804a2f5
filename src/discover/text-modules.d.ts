// Bun imports these files as text (`with { type: "text" }`), also inside compiled binaries.
declare module "*.py" {
  const text: string;
  export default text;
}
declare module "*.jsonl" {
  const text: string;
  export default text;
}
