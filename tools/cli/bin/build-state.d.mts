/** True when `dist` is missing the built CLI or older than a source file or a compiler setting. */
export function needsBuild(root: string): boolean;
