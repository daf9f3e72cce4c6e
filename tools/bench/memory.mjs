// Resident memory of a process: now (VmRSS) and its peak (VmHWM, the kernel's own high-water
// mark), from Linux /proc.
import { readFileSync } from 'node:fs';

function statusMb(pid, field) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export const peakRssMb = (pid) => statusMb(pid, 'VmHWM');
export const rssMb = (pid) => statusMb(pid, 'VmRSS');
