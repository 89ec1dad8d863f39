// A package-lock.json for one service: the entries of the workspace's lockfile its production
// dependencies reach, at the paths they have there. Nx can prune a lockfile too (createLockFile,
// generatePrunedDeployOutput), but as of 23.2 it re-nests duplicated packages, e.g. typeorm's own
// string-width 7.2.0 lands under yargs, where typeorm's cliui cannot find it, and npm ci rejects the
// lock (nrwl/nx#28051). Keeping the workspace's own tree layout needs no placement decisions at all.

/**
 * Where Node.js and npm find `name` for the package installed at `from` (a lockfile path, '' for
 * the root): in its own node_modules, then in each enclosing package's, then at the top.
 * @param {Record<string, object>} packages
 * @param {string} from
 * @param {string} name
 */
function resolve(packages, from, name) {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (base === '') return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent === -1 ? '' : base.slice(0, parent);
  }
}

/**
 * The lockfile for a package.json whose `dependencies` are a subset of the workspace's. Entries only
 * optional dependencies reach (platform builds) are kept and marked optional; dev flags are dropped,
 * since everything kept is a production dependency now.
 * @param {{ packages: Record<string, any> }} lock the workspace's package-lock.json (version 3)
 * @param {{ name: string, version: string, dependencies?: Record<string, string> }} packageJson
 */
export function pruneLockfile(lock, packageJson) {
  const { packages } = lock;
  const walk = (withOptional) => {
    const reached = new Set();
    const queue = Object.keys(packageJson.dependencies ?? {}).map((name) => ['', name, false]);
    while (queue.length > 0) {
      const [from, name, optional] = queue.shift();
      const path = resolve(packages, from, name);
      if (path === undefined) {
        if (optional) continue;
        throw new Error(`${name}, needed by ${from === '' ? packageJson.name : from}, is not in package-lock.json`);
      }
      if (reached.has(path)) continue;
      reached.add(path);
      const entry = packages[path];
      for (const dep of Object.keys(entry.dependencies ?? {})) queue.push([path, dep, false]);
      // npm installs peers like dependencies, but an optional peer only when something else needs it.
      for (const dep of Object.keys(entry.peerDependencies ?? {})) {
        if (entry.peerDependenciesMeta?.[dep]?.optional !== true) queue.push([path, dep, false]);
      }
      if (withOptional) for (const dep of Object.keys(entry.optionalDependencies ?? {})) queue.push([path, dep, true]);
    }
    return reached;
  };
  const required = walk(false);
  const all = walk(true);
  const pruned = { '': { name: packageJson.name, version: packageJson.version, dependencies: packageJson.dependencies ?? {} } };
  for (const path of [...all].sort()) {
    const { dev: _dev, devOptional: _devOptional, optional: _optional, peer: _peer, ...entry } = packages[path];
    pruned[path] = required.has(path) ? entry : { ...entry, optional: true };
  }
  return { name: packageJson.name, version: packageJson.version, lockfileVersion: 3, requires: true, packages: pruned };
}
