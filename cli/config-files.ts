// The names a tool's config file may have: its base name with each extension the tool loads.
// One list for the audit's rules and for the Nest rule's rspack builder, which reads the same file.

/** `rspack.config` → rspack.config.ts, .mts, .cts, .js, .mjs, .cjs. */
export function configFiles(base: string, extensions = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs']): string[] {
  return extensions.map((extension) => `${base}.${extension}`);
}

export const RSPACK_CONFIGS = configFiles('rspack.config');
