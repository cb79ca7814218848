/**
 * The CPU time of the extension host's own thread, in ms (the process's where Node cannot tell threads apart): the
 * activation steps record it beside the wall-clock time, so where activation spends its CPU shows whatever the load of
 * the machine (a wall-clock figure on a loaded machine also counts the time other processes had the core).
 */
const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;

export function cpuMs(): number {
  const u = threadCpuUsage ? threadCpuUsage.call(process) : process.cpuUsage();
  return (u.user + u.system) / 1000;
}
