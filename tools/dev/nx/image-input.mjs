// `nx run <project>:prune`: the image input of one project, everything its container image is built
// from and nothing else. Nx's own prune-lockfile and copy-workspace-modules executors expect each
// project's package.json to declare its dependencies and ship libs as packages; here the root
// package.json declares them and the build compiles libs in place, so the project graph says what a
// service uses: the files under its source root (specs and tests excluded) and, through their
// imports, the same files of each lib they reach. Built files no module imports (a web application's
// pages and bundles) are not in the graph: `assets` names them.
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { logger, readJsonFile, workspaceRoot } from '@nx/devkit';
import { fileDataDepTarget, readFileMapCache } from '@nx/devkit/internal';
import { createPackageJson } from '@nx/js';
import { pruneLockfile } from './prune-lockfile.mjs';

/** Source files that never run in a deployment. */
const NOT_SHIPPED = /\.(spec|test)\.ts$|\/test\//;

/**
 * The shipped source files of `project` and of every workspace project they import, by project.
 * Only runtime files count, so a lib a service uses in its tests alone stays out.
 * @param {import('@nx/devkit').ProjectGraph} graph
 * @param {import('@nx/devkit').ProjectFileMap} fileMap
 * @param {string} project
 * @returns {import('@nx/devkit').ProjectFileMap}
 */
export function shippedFiles(graph, fileMap, project) {
  const shipped = {};
  const queue = [project];
  while (queue.length > 0) {
    const name = queue.shift();
    if (shipped[name]) continue;
    const { root, sourceRoot = `${root}/src` } = graph.nodes[name].data;
    shipped[name] = (fileMap[name] ?? []).filter(({ file }) => file.startsWith(`${sourceRoot}/`) && file.endsWith('.ts') && !NOT_SHIPPED.test(file));
    for (const { deps = [] } of shipped[name]) {
      for (const dep of deps) {
        const target = fileDataDepTarget(dep);
        if (graph.nodes[target] && !shipped[target]) queue.push(target);
      }
    }
  }
  return shipped;
}

/**
 * @param {{ outputPath: string, assets?: string[] }} options
 * @param {import('@nx/devkit').ExecutorContext} context
 */
export default async function imageInput(options, context) {
  const graph = context.projectGraph;
  const project = context.projectName;
  // Cached with the graph Nx made for this run: every file with the imports found in it.
  const fileMap = readFileMapCache()?.fileMap?.projectFileMap;
  if (!fileMap) {
    logger.error('No cached project file map: run this through Nx (nx run <project>:prune).');
    return { success: false };
  }
  const shipped = shippedFiles(graph, fileMap, project);
  const output = join(workspaceRoot, options.outputPath);
  rmSync(output, { recursive: true, force: true });

  // Each shipped file as the build compiled it, at the same path under dist/, so the relative
  // imports swc wrote from an app to its libs resolve as they do in the workspace.
  for (const { file } of Object.values(shipped).flat()) {
    const compiled = join('dist', file.replace(/\.ts$/, '.js'));
    if (!existsSync(join(workspaceRoot, compiled))) {
      logger.error(`${compiled} is missing: build first (nx run ${project}:build).`);
      return { success: false };
    }
    for (const name of [compiled, `${compiled}.map`]) {
      if (!existsSync(join(workspaceRoot, name))) continue;
      mkdirSync(dirname(join(output, name)), { recursive: true });
      copyFileSync(join(workspaceRoot, name), join(output, name));
    }
  }

  // Build output the code reads from disk rather than imports (the portal's dist/apps/portal/web),
  // whole and at the same path: the walk above cannot see it. Absent for a project that builds none.
  const assets = (options.assets ?? []).filter((dir) => existsSync(join(workspaceRoot, dir)));
  for (const dir of assets) cpSync(join(workspaceRoot, dir), join(output, dir), { recursive: true });

  // The npm packages the shipped files import, at the workspace's versions. Given only the shipped
  // files, createPackageJson leaves out what tests, benchmarks and dev tools use. The lockfile
  // pins what npm resolved for the workspace, so the root's overrides have nothing left to do.
  const shippedFileMap = Object.fromEntries(Object.keys(fileMap).map((name) => [name, shipped[name] ?? []]));
  const packageJson = createPackageJson(project, graph, { isProduction: true, root: workspaceRoot, skipOverrides: true }, shippedFileMap);
  const rootPackageJson = readJsonFile(join(workspaceRoot, 'package.json'));
  // npm takes its install-script allowlist from the package being installed.
  if (rootPackageJson.allowScripts) packageJson.allowScripts = rootPackageJson.allowScripts;
  const lock = pruneLockfile(readJsonFile(join(workspaceRoot, 'package-lock.json')), packageJson);
  writeFileSync(join(output, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);
  writeFileSync(join(output, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);

  const libs = Object.keys(shipped).filter((name) => name !== project);
  logger.info(
    `${options.outputPath}: ${project}${libs.length > 0 ? ` with ${libs.join(', ')}` : ''}${assets.length > 0 ? `, ${assets.join(', ')}` : ''}; ` +
      `${Object.keys(packageJson.dependencies ?? {}).length} npm packages`,
  );
  return { success: true };
}
