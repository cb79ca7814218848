/** Spawning support for stdio servers: command resolution, the host-owned stdio transport, bounded framing, process-tree shutdown. */
export * from './resolveCommand';
export * from './processTree';
export * from './readBuffer';
export * from './lineFramer';
export * from './stdioTransport';
export * from './stdoutReader';
export * from './stderrLines';
