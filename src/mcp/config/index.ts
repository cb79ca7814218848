/**
 * Configuration: schema, validation, variables, envFile, imports and the secret linter. Editor-free.
 *
 * The flow: settings/file → `parseInputs` + `parseServers` (ajv, per server; ConfigErrors name server,
 * setting path, value and fix) → `resolveServer(s)` (variables, `${input:}` through the injected
 * resolver, once per id per context) → ServerDefinition → host.reconcile. At spawn the connection calls
 * `loadEnvironment` (user env + envFile + env). `definitionKeyer` (an HMAC of the identity fields, schema.ts's table) makes the one key of a definition.
 * Files: `loadConfigFile` (settings.json, mcp.json, Claude, Cursor, Windsurf) and `importConfig`.
 */
export * from './schema';
export * from './validate';
export * from './variables';
export { definitionKeyer, ephemeralKeyer, isDefinitionKey, isInstallationKey, keyMigration, legacyDefinitionKey, newInstallationKey, type DefinitionKey } from './definitionKey';
export * from './envFile';
export * from './import';
export * from './secrets';
export * from './commandLine';
export { joinPath, appendPath, describeValue, editDistance, closest } from './paths';
