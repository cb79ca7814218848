/**
 * The CPU time of the extension host's own thread, in ms (the process's where Node cannot tell threads apart): the
 * activation steps record it beside the wall-clock time, which on a loaded machine also counts the time other
 * processes had the core. It says where activation spends its own CPU, though it still grows under contention (cold
 * caches, a shared core): 12.6-27.9 ms for the same build at load 10-19.
 */
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;

export function cpuMs(): number {
  const u = threadCpuUsage ? threadCpuUsage.call(process) : process.cpuUsage();
  return (u.user + u.system) / 1000;
}
