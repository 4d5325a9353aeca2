/** Which instance this process is, for the report's line: `node main.mjs <instance> [runForMs]`. */
export const instance = process.argv[2] ?? 'instance';
