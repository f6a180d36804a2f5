/**
 * Compares two version strings by PEP 440's ordering (epoch, release, pre, post, dev; `1.0rc1`
 * < `1.0` < `1.0.post1` < `1.0.post1+local`, `0.3` == `0.3.0`), as `packaging.version` does.
 * Returns a negative number, zero or a positive number, or null when either is not PEP 440.
 */
export function compareVersions(a: string, b: string): number | null {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (left === null || right === null) return null;
  return (
    compareBig(left.epoch, right.epoch) ||
    compareRelease(left.release, right.release) ||
    compareKeys(left.pre, right.pre) ||
    compareKeys(left.post, right.post) ||
    compareKeys(left.dev, right.dev) ||
    compareLocal(left.local, right.local)
  );
}

// A sort key: -1 sorts before every number, +1 after every number, a bigint list in between.
type Key = -1 | 1 | bigint[];

interface ParsedVersion {
  epoch: bigint;
  release: bigint[];
  pre: Key;
  post: Key;
  dev: Key;
  /** Local label segments, numbers for numeric ones; null without a label. */
  local: (bigint | string)[] | null;
}

// packaging's VERSION_PATTERN, anchored.
const PATTERN =
  /^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?(\d+)?)?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?(?:[-_.]?(dev)[-_.]?(\d+)?)?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$/i;

const PRE_RANK: Record<string, bigint> = {
  a: 0n,
  alpha: 0n,
  b: 1n,
  beta: 1n,
  c: 2n,
  rc: 2n,
  pre: 2n,
  preview: 2n,
};

function parseVersion(text: string): ParsedVersion | null {
  const m = PATTERN.exec(text);
  if (m === null) return null;
  const [, epoch, release, prePhase, preN, postDash, postWord, postN, devWord, devN, local] = m;
  if (release === undefined) return null;
  const hasPost = postDash !== undefined || postWord !== undefined;
  const hasDev = devWord !== undefined;
  const preRank = prePhase === undefined ? undefined : PRE_RANK[prePhase.toLowerCase()];
  let pre: Key;
  if (preRank !== undefined) pre = [preRank, BigInt(preN ?? 0)];
  else if (!hasPost && hasDev)
    pre = -1; // 1.0.dev0 sorts before 1.0a0
  else pre = 1;
  return {
    epoch: BigInt(epoch ?? 0),
    release: trimZeros(release.split(".").map((part) => BigInt(part))),
    pre,
    post: hasPost ? [BigInt(postDash ?? postN ?? 0)] : -1,
    dev: hasDev ? [BigInt(devN ?? 0)] : 1,
    local:
      local === undefined
        ? null
        : local
            .toLowerCase()
            .split(/[-_.]/)
            .map((part) => (/^\d+$/.test(part) ? BigInt(part) : part)),
  };
}

function trimZeros(parts: bigint[]): bigint[] {
  let end = parts.length;
  while (end > 0 && parts[end - 1] === 0n) end -= 1;
  return parts.slice(0, end);
}

function compareBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareRelease(a: bigint[], b: bigint[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    const c = compareBig(x, y);
    if (c !== 0) return c;
  }
  return 0;
}

function compareKeys(a: Key, b: Key): number {
  if (typeof a === "number" || typeof b === "number") {
    const x = typeof a === "number" ? a : 0;
    const y = typeof b === "number" ? b : 0;
    return x - y;
  }
  return compareRelease(a, b);
}

// packaging: no label sorts first; numeric segments sort after alphanumeric ones.
function compareLocal(a: (bigint | string)[] | null, b: (bigint | string)[] | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (typeof x !== typeof y) return typeof x === "bigint" ? 1 : -1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
