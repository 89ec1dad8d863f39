import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into dist/apps/portal/web, where the portal service serves it from.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [react()],
  build: {
    outDir: new URL('../../../dist/apps/portal/web', import.meta.url).pathname,
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    // `vite` in apps/portal/web during page work: the pages call the running portal's API.
    proxy: { '/api': 'http://localhost:3005', '/session': 'http://localhost:3005' },
  },
});
