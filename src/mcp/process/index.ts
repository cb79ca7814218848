/** Spawning support for stdio servers: command resolution and process-tree shutdown. */
export * from './resolveCommand';
export * from './processTree';
export * from './endStdin';
export * from './readBuffer';
