/** Configuration: schema, validation, variables, envFile and imports. Editor-free. */
export * from './schema';
export * from './validate';
export * from './variables';
export * from './envFile';
export * from './import';
export * from './secrets';
export { joinPath, describeValue, editDistance, closest } from './paths';
