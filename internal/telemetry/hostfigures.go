package telemetry

// Host figure keys; see the package documentation.
const (
	KeyCPUUser       = "cpuUserPct"
	KeyCPUKernel     = "cpuKernelPct"
	KeyCPUIOWait     = "cpuIowaitPct"
	KeyCPUSteal      = "cpuStealPct"
	KeyProcCPUUser   = "procCpuUserPct"
	KeyProcCPUKernel = "procCpuKernelPct"
	KeyProcCPUs      = "procCpus"
	KeyProcSetBusy   = "procCpuSetBusyPct"
	KeyDiskIOPS      = "diskIops"
	KeyDiskRead      = "diskReadBytesPerSec"
	KeyDiskWrite     = "diskWriteBytesPerSec"
	KeyDiskUtil      = "diskUtilPct"
	KeyDiskQueue     = "diskQueue"
	KeyDiskWait      = "diskWaitMsPerIO"
	KeyMemAvailable  = "memAvailableBytes"
	KeySwapIn        = "swapInPagesPerSec"
	KeySwapOut       = "swapOutPagesPerSec"
)

// HostFigures derives an interval's host figures from the host readings at
// its start and end. Parts missing from either reading, and counters that
// went backwards, yield no figures. It returns nil when nothing could be
// derived.
func HostFigures(before, after HostSample) map[string]float64 {
	out := map[string]float64{}
	systemCPU(out, before.CPU, after.CPU)
	setCPU(out, before.ProcSet, after.ProcSet)
	secs := after.Time.Sub(before.Time).Seconds()
	if secs > 0 {
		processCPU(out, before.Proc, after.Proc, secs*float64(after.Cores))
		diskRates(out, before.Disk, after.Disk, secs)
		swapRates(out, before.Swap, after.Swap, secs)
	}
	if after.Memory != nil {
		out[KeyMemAvailable] = float64(after.Memory.Available)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// swapRates are the pages swapped in and out per second.
func swapRates(out map[string]float64, b, a *SwapPages, secs float64) {
	if b == nil || a == nil || a.In < b.In || a.Out < b.Out {
		return
	}
	out[KeySwapIn] = float64(a.In-b.In) / secs
	out[KeySwapOut] = float64(a.Out-b.Out) / secs
}

// setCPU is the number of CPUs the server process may run on and how busy
// they were, as a percent of their time: the ceiling of a server pinned
// to some of the host's CPUs.
func setCPU(out map[string]float64, b, a *CPUSet) {
	if b == nil || a == nil || a.CPUs != b.CPUs {
		return
	}
	// How many CPUs the server may use needs no times: it is the ceiling
	// the diagnosis judges the server's CPU against, kept even when the
	// set's times cannot say how busy it was.
	out[KeyProcCPUs] = float64(a.CPUs)
	total := a.Times.since(b.Times)
	idle := (a.Times.Idle - b.Times.Idle) + (a.Times.IOWait - b.Times.IOWait) // each state's own difference, as since
	if total <= 0 {
		return
	}
	// A CPU's idle and iowait ticks are accounted apart, and the kernel
	// may move ticks between them (a CPU busy for the whole interval can
	// read an idle time a tick short): a busy set is 100% busy, never
	// left out.
	idle = min(max(idle, 0), total)
	out[KeyProcSetBusy] = (total - idle) / total * 100
}

// systemCPU is each CPU state's share of all CPU time in the interval.
func systemCPU(out map[string]float64, b, a *CPUTimes) {
	if b == nil || a == nil {
		return
	}
	total := a.since(*b)
	if total <= 0 {
		return
	}
	// Each share from its states' own differences, as since sums them.
	share := func(key string, d float64) {
		if d >= 0 {
			out[key] = d / total * 100
		}
	}
	share(KeyCPUUser, a.User-b.User)
	share(KeyCPUKernel, (a.System-b.System)+(a.IRQ-b.IRQ)+(a.SoftIRQ-b.SoftIRQ))
	share(KeyCPUIOWait, a.IOWait-b.IOWait)
	share(KeyCPUSteal, a.Steal-b.Steal)
}

// processCPU is the process's CPU time as a share of all cores' time.
func processCPU(out map[string]float64, b, a *ProcTimes, coreSecs float64) {
	if b == nil || a == nil || coreSecs <= 0 {
		return
	}
	if a.User < b.User || a.System < b.System {
		return // a different process with the same PID
	}
	out[KeyProcCPUUser] = (a.User - b.User) / coreSecs * 100
	out[KeyProcCPUKernel] = (a.System - b.System) / coreSecs * 100
}

// diskRates are the device's operations and bytes per second.
func diskRates(out map[string]float64, b, a *DiskCounters, secs float64) {
	if b == nil || a == nil || a.Device != b.Device {
		return
	}
	if a.ReadIOs < b.ReadIOs || a.WriteIOs < b.WriteIOs ||
		a.ReadSectors < b.ReadSectors || a.WriteSectors < b.WriteSectors {
		return
	}
	out[KeyDiskIOPS] = float64(a.ReadIOs-b.ReadIOs+a.WriteIOs-b.WriteIOs) / secs
	out[KeyDiskRead] = float64(a.ReadSectors-b.ReadSectors) * sectorBytes / secs
	out[KeyDiskWrite] = float64(a.WriteSectors-b.WriteSectors) * sectorBytes / secs
	diskTiming(out, a.ReadIOs-b.ReadIOs+a.WriteIOs-b.WriteIOs, b.Timing, a.Timing, secs)
}

// diskTiming is the device's utilisation (share of the interval it was
// busy), its mean queue depth (queued time over the interval) and the
// mean wait per I/O completed.
func diskTiming(out map[string]float64, ios uint64, b, a *DiskTiming, secs float64) {
	if b == nil || a == nil || a.IOTimeMs < b.IOTimeMs || a.QueuedMs < b.QueuedMs ||
		a.ReadTimeMs < b.ReadTimeMs || a.WriteTimeMs < b.WriteTimeMs {
		return
	}
	out[KeyDiskUtil] = min(float64(a.IOTimeMs-b.IOTimeMs)/(secs*1000)*100, 100)
	out[KeyDiskQueue] = float64(a.QueuedMs-b.QueuedMs) / (secs * 1000)
	if ios > 0 {
		out[KeyDiskWait] = float64(a.ReadTimeMs-b.ReadTimeMs+a.WriteTimeMs-b.WriteTimeMs) / float64(ios)
	}
}
