/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are untyped YAML, read field by field */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The part of Kustomize that deploy/kubernetes uses, to render an overlay in a test where there is no
 * `kubectl`. It refuses any field or patch form it does not implement, so an overlay cannot quietly
 * use something the test would render differently from `kubectl kustomize`:
 *
 * - `resources`: YAML files (several documents each) and directories holding a kustomization;
 * - `configMapGenerator` with `envs` / `literals` and `behavior` create, merge or replace; the name
 *   gets a content hash, and references in pod specs follow it (the hash is not Kustomize's own);
 * - `patches` with `path` to strategic-merge patches (one or more documents, no `target`), merging
 *   maps, `null` deleting a key, and lists merged by their Kubernetes merge key (containers and env
 *   by name, volumes by name, volumeMounts by mountPath); other lists are replaced;
 * - `namespace`, `labels` (metadata only, no selectors or templates) and `images` (newName, newTag).
 */
export type K8sObject = Record<string, any> & { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

const KNOWN_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'labels', 'images', 'configMapGenerator', 'patches']);
const MERGE_KEYS: Record<string, string> = { containers: 'name', initContainers: 'name', env: 'name', volumes: 'name', volumeMounts: 'mountPath' };
const GENERATED = Symbol('generated');

export function renderKustomization(dir: string): K8sObject[] {
  const objects = build(resolve(dir));
  const renames = new Map<string, string>();
  for (const object of objects) {
    if (!(object as { [GENERATED]?: boolean })[GENERATED]) continue;
    const hash = createHash('sha256').update(JSON.stringify(object.data)).digest('hex').slice(0, 10);
    const name = `${object.metadata.name}-${hash}`;
    renames.set(`${object.kind}/${object.metadata.name}`, name);
    object.metadata.name = name;
  }
  for (const object of objects) for (const pod of podSpecs(object)) renameReferences(pod, renames);
  return objects.map((object) => JSON.parse(JSON.stringify(object)) as K8sObject);
}

function build(dir: string): K8sObject[] {
  const kustomization = readYaml(join(dir, 'kustomization.yaml'))[0] as Record<string, any>;
  for (const field of Object.keys(kustomization)) if (!KNOWN_FIELDS.has(field)) throw new Error(`${dir}: kustomization field ${field} is not supported by this renderer`);
  let objects: K8sObject[] = [];
  for (const entry of (kustomization.resources ?? []) as string[]) {
    const path = join(dir, entry);
    objects.push(...(statSync(path).isDirectory() ? build(path) : (readYaml(path) as K8sObject[])));
  }
  for (const generator of (kustomization.configMapGenerator ?? []) as Array<Record<string, any>>) objects = generate(dir, generator, objects);
  for (const patch of (kustomization.patches ?? []) as Array<Record<string, any>>) {
    if (Object.keys(patch).some((key) => key !== 'path')) throw new Error(`${dir}: only patches with a path are supported`);
    for (const document of readYaml(join(dir, patch.path)) as K8sObject[]) {
      const targets = objects.filter((object) => object.kind === document.kind && object.metadata.name === document.metadata.name);
      if (targets.length !== 1) throw new Error(`${patch.path}: ${document.kind}/${document.metadata.name} matches ${targets.length} objects`);
      const [target] = targets;
      const merged = strategicMerge(target, document, []) as K8sObject;
      if ((target as { [GENERATED]?: boolean })[GENERATED]) Object.assign(merged, { [GENERATED]: true });
      objects[objects.indexOf(target)] = merged;
    }
  }
  for (const object of objects) {
    if (kustomization.namespace) object.metadata.namespace = kustomization.namespace;
    for (const label of (kustomization.labels ?? []) as Array<Record<string, any>>) {
      if (Object.keys(label).some((key) => key !== 'pairs')) throw new Error(`${dir}: labels support pairs only (no selectors or templates)`);
      object.metadata.labels = { ...object.metadata.labels, ...label.pairs };
    }
    for (const image of (kustomization.images ?? []) as Array<Record<string, string>>) {
      if (Object.keys(image).some((key) => !['name', 'newName', 'newTag'].includes(key))) throw new Error(`${dir}: images support name, newName and newTag`);
      for (const pod of podSpecs(object))
        for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
          const [name, tag] = splitImage(container.image);
          if (name === image.name) container.image = `${image.newName ?? name}${image.newTag ? `:${image.newTag}` : tag ? `:${tag}` : ''}`;
        }
    }
  }
  return objects;
}

function generate(dir: string, generator: Record<string, any>, objects: K8sObject[]): K8sObject[] {
  for (const key of Object.keys(generator)) if (!['name', 'envs', 'literals', 'behavior'].includes(key)) throw new Error(`${dir}: configMapGenerator ${key} is not supported`);
  const data: Record<string, string> = {};
  for (const file of (generator.envs ?? []) as string[]) Object.assign(data, parseEnvFile(readFileSync(join(dir, file), 'utf8')));
  for (const literal of (generator.literals ?? []) as string[]) Object.assign(data, parseEnvFile(literal));
  const behavior = generator.behavior ?? 'create';
  const existing = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === generator.name);
  if (behavior === 'create') {
    if (existing) throw new Error(`${dir}: ConfigMap ${generator.name} exists; use behavior merge or replace`);
    return [...objects, Object.assign({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data }, { [GENERATED]: true })];
  }
  if (!existing) throw new Error(`${dir}: ConfigMap ${generator.name} to ${behavior} does not exist`);
  existing.data = behavior === 'merge' ? { ...existing.data, ...data } : data;
  return objects;
}

/** Kustomize's env files: KEY=VALUE per line, `#` comments, the value taken as written (no quotes removed). */
export function parseEnvFile(text: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) throw new Error(`not KEY=VALUE: ${line}`);
    data[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return data;
}

function strategicMerge(target: unknown, patch: unknown, path: string[]): unknown {
  if (patch === null) return undefined;
  if (Array.isArray(patch)) {
    const key = MERGE_KEYS[path[path.length - 1]];
    if (!key || !Array.isArray(target)) return structuredClone(patch);
    const merged = structuredClone(target) as Array<Record<string, unknown>>;
    for (const item of patch as Array<Record<string, unknown>>) {
      if (item[key] === undefined || Object.keys(item).some((field) => field.startsWith('$'))) throw new Error(`patch of ${path.join('.')}: every item needs ${key}, and no directives`);
      const at = merged.findIndex((existing) => existing[key] === item[key]);
      if (at === -1) merged.push(structuredClone(item));
      else merged[at] = strategicMerge(merged[at], item, path) as Record<string, unknown>;
    }
    return merged;
  }
  if (typeof patch === 'object') {
    if (Object.keys(patch as object).some((field) => field.startsWith('$'))) throw new Error(`patch of ${path.join('.')}: directives are not supported`);
    const merged: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
    for (const [field, value] of Object.entries(patch as Record<string, unknown>)) {
      const next = strategicMerge(merged[field], value, [...path, field]);
      if (next === undefined) delete merged[field];
      else merged[field] = next;
    }
    return merged;
  }
  return patch;
}

/** The pod specs of a workload (a Deployment's or a Job's template). */
export function podSpecs(object: K8sObject): Array<Record<string, any>> {
  return ['Deployment', 'Job', 'StatefulSet', 'DaemonSet'].includes(object.kind) && object.spec?.template?.spec ? [object.spec.template.spec] : [];
}

function renameReferences(pod: Record<string, any>, renames: Map<string, string>): void {
  const rename = (kind: string, name: string | undefined) => (name === undefined ? name : (renames.get(`${kind}/${name}`) ?? name));
  for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
    for (const source of container.envFrom ?? []) if (source.configMapRef) source.configMapRef.name = rename('ConfigMap', source.configMapRef.name);
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.configMapKeyRef;
      if (ref) ref.name = rename('ConfigMap', ref.name);
    }
  }
  for (const volume of pod.volumes ?? []) if (volume.configMap) volume.configMap.name = rename('ConfigMap', volume.configMap.name);
}

export function splitImage(image: string): [string, string | undefined] {
  const at = image.lastIndexOf(':');
  return at > image.lastIndexOf('/') ? [image.slice(0, at), image.slice(at + 1)] : [image, undefined];
}

export function readYaml(path: string): unknown[] {
  if (!existsSync(path)) throw new Error(`${path} does not exist`);
  return parseAllDocuments(readFileSync(path, 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0].message}`);
    return document.toJS();
  }).filter((value) => value !== null);
}
