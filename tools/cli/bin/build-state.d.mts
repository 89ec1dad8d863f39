/** True when `dist` is missing the built CLI, or a source file or a compiler setting changed since the CLI's last build. */
export function needsBuild(root: string): boolean;
/** Records a successful build that started at `startedAt` (ms since the epoch). */
export function recordBuild(root: string, startedAt: number): void;
