export * from './meta';
export * from './csp';
export * from './resource';
export * from './bounds';
export * from './files';
