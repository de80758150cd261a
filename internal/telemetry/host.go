package telemetry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"golang.org/x/sys/unix"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat
// (100 on every Linux architecture Go supports; procfs assumes the same).
const clockTicks = 100

// sectorBytes is the unit of the sector counts in /proc/diskstats, whatever
// the device's own sector size.
const sectorBytes = 512

// HostSample is one reading of the server's host.
type HostSample struct {
	Time time.Time `bson:"t" json:"t"`
	// Source is where the reading came from: SourceLocal or
	// SourceNodeExporter.
	Source string `bson:"source" json:"source"`
	// Cores is the number of CPUs listed in /proc/stat.
	Cores int `bson:"cores" json:"cores"`
	// CPU is nil when /proc/stat could not be read.
	CPU *CPUTimes `bson:"cpu,omitempty" json:"cpu,omitempty"`
	// Proc is nil when the server process could not be read.
	Proc *ProcTimes `bson:"proc,omitempty" json:"proc,omitempty"`
	// ProcSet is the CPU time of the CPUs the server process may run on
	// (its affinity), summed; nil when either could not be read.
	ProcSet *CPUSet `bson:"procSet,omitempty" json:"procSet,omitempty"`
	// Disk is nil when the data directory's device has no disk counters
	// (overlay, tmpfs, network file systems) or they could not be read.
	Disk *DiskCounters `bson:"disk,omitempty" json:"disk,omitempty"`
	// Memory is nil when the source does not give the host's memory.
	Memory *Memory `bson:"memory,omitempty" json:"memory,omitempty"`
	// Swap is nil when the source does not give the host's swap
	// counters.
	Swap *SwapPages `bson:"swap,omitempty" json:"swap,omitempty"`
}

// SwapPages are the pages the host swapped in and out since it booted
// (/proc/vmstat's pswpin and pswpout).
type SwapPages struct {
	In, Out uint64
}

// Memory is the host's memory at a reading, in bytes.
type Memory struct {
	Total, Available uint64
}

// CPUTimes are the host's cumulative CPU seconds, summed over all cores.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal float64
}

// since is all CPU time from b to c (guest time is already counted in
// User and Nice): the sum of each state's own difference, so a state
// that took the whole interval is exactly all of it (the difference of
// two large totals rounds otherwise).
func (c CPUTimes) since(b CPUTimes) float64 {
	return (c.User - b.User) + (c.Nice - b.Nice) + (c.System - b.System) + (c.Idle - b.Idle) +
		(c.IOWait - b.IOWait) + (c.IRQ - b.IRQ) + (c.SoftIRQ - b.SoftIRQ) + (c.Steal - b.Steal)
}

// CPUSet is the cumulative CPU time of a set of CPUs, and their number.
type CPUSet struct {
	CPUs  int
	Times CPUTimes
}

// ProcTimes are a process's cumulative CPU seconds.
type ProcTimes struct {
	User, System float64
}

// DiskCounters are a block device's cumulative I/O counters.
type DiskCounters struct {
	Device       string
	ReadIOs      uint64
	WriteIOs     uint64
	ReadSectors  uint64
	WriteSectors uint64
	// Timing holds the device's busy and queued milliseconds and the
	// milliseconds its reads and writes took (/proc/diskstats' io_ticks,
	// time_in_queue, read and write ticks); nil when the source does not
	// give them.
	Timing *DiskTiming `bson:"timing,omitempty" json:"timing,omitempty"`
}

// DiskTiming are a block device's cumulative times, in milliseconds.
type DiskTiming struct {
	IOTimeMs, QueuedMs, ReadTimeMs, WriteTimeMs uint64
}

// Host reads the counters of a server running on this machine.
type Host struct {
	proc  procfs.FS
	block blockdevice.FS
	pid   int
	dev   blockdevice.Info // zero when the data directory has no block device
}

// NewHost prepares to read the host of the server process pid whose data
// lives in dataDir. It finds the block device holding dataDir by its
// major:minor number in /proc/diskstats; when there is none, disk counters
// are reported missing.
func NewHost(pid int, dataDir string) (*Host, error) {
	pfs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("open /proc: %w", err)
	}
	bfs, err := blockdevice.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("open block device stats: %w", err)
	}
	h := &Host{proc: pfs, block: bfs, pid: pid}
	if h.dev, err = h.findDevice(dataDir); err != nil {
		return nil, err
	}
	return h, nil
}

// Device names the block device holding the data directory, or "" when
// disk counters are not available.
func (h *Host) Device() string { return h.dev.DeviceName }

// findDevice matches the data directory's device number in /proc/diskstats.
func (h *Host) findDevice(dataDir string) (blockdevice.Info, error) {
	if dataDir == "" {
		return blockdevice.Info{}, nil // unknown: disk counters are missing
	}
	fi, err := os.Stat(dataDir)
	if err != nil {
		return blockdevice.Info{}, fmt.Errorf("stat data directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return blockdevice.Info{}, nil
	}
	stats, err := h.block.ProcDiskstats()
	if err != nil {
		return blockdevice.Info{}, fmt.Errorf("read diskstats: %w", err)
	}
	dev := uint64(st.Dev) // Dev's width differs by architecture
	major, minor := unix.Major(dev), unix.Minor(dev)
	for _, d := range stats {
		if d.MajorNumber == major && d.MinorNumber == minor {
			return d.Info, nil
		}
	}
	return blockdevice.Info{}, nil
}

// Read takes one reading. Parts that cannot be read are left nil and their
// errors joined; the rest of the reading is still returned.
func (h *Host) Read() (HostSample, error) {
	s := HostSample{Time: time.Now(), Source: SourceLocal}
	var errs []error
	if stat, err := h.proc.Stat(); err != nil {
		errs = append(errs, fmt.Errorf("read /proc/stat: %w", err))
	} else {
		s.Cores = len(stat.CPU)
		s.CPU = cpuTimes(stat.CPUTotal)
		s.ProcSet = h.procSet(stat)
	}
	if p, err := h.procTimes(); err != nil {
		errs = append(errs, err)
	} else {
		s.Proc = p
	}
	if d, err := h.disk(); err != nil {
		errs = append(errs, err)
	} else {
		s.Disk = d
	}
	if sw, err := readSwap(procfs.DefaultMountPoint); err != nil {
		errs = append(errs, err)
	} else {
		s.Swap = sw
	}
	return s, errors.Join(errs...)
}

// readSwap reads the host's swap counters from /proc/vmstat under root
// (procfs has no parser of /proc/vmstat; its two lines are read here).
func readSwap(root string) (*SwapPages, error) {
	b, err := os.ReadFile(filepath.Join(root, "vmstat"))
	if err != nil {
		return nil, fmt.Errorf("read /proc/vmstat: %w", err)
	}
	return parseSwap(string(b))
}

// parseSwap reads pswpin and pswpout from /proc/vmstat's text.
func parseSwap(text string) (*SwapPages, error) {
	var sw SwapPages
	found := 0
	for line := range strings.Lines(text) {
		name, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		var dst *uint64
		switch name {
		case "pswpin":
			dst = &sw.In
		case "pswpout":
			dst = &sw.Out
		default:
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("/proc/vmstat: %s %q is not a count", name, val)
		}
		*dst = n
		found++
	}
	if found != 2 {
		return nil, errors.New("/proc/vmstat has no pswpin and pswpout")
	}
	return &sw, nil
}

func cpuTimes(c procfs.CPUStat) *CPUTimes {
	return &CPUTimes{
		User: c.User, Nice: c.Nice, System: c.System, Idle: c.Idle,
		IOWait: c.Iowait, IRQ: c.IRQ, SoftIRQ: c.SoftIRQ, Steal: c.Steal,
	}
}

// procSet sums the CPU times of the CPUs the server process may run on;
// nil when its affinity cannot be read.
func (h *Host) procSet(stat procfs.Stat) *CPUSet {
	p, err := h.proc.Proc(h.pid)
	if err != nil {
		return nil
	}
	st, err := p.NewStatus()
	if err != nil || len(st.CpusAllowedList) == 0 {
		return nil
	}
	set := &CPUSet{}
	for _, c := range st.CpusAllowedList {
		t, ok := stat.CPU[int64(c)]
		if !ok {
			continue // allowed but offline
		}
		x := cpuTimes(t)
		set.CPUs++
		set.Times.User += x.User
		set.Times.Nice += x.Nice
		set.Times.System += x.System
		set.Times.Idle += x.Idle
		set.Times.IOWait += x.IOWait
		set.Times.IRQ += x.IRQ
		set.Times.SoftIRQ += x.SoftIRQ
		set.Times.Steal += x.Steal
	}
	if set.CPUs == 0 {
		return nil
	}
	return set
}

func (h *Host) procTimes() (*ProcTimes, error) {
	p, err := h.proc.Proc(h.pid)
	if err != nil {
		return nil, fmt.Errorf("open process %d: %w", h.pid, err)
	}
	st, err := p.Stat()
	if err != nil {
		return nil, fmt.Errorf("read process %d stat: %w", h.pid, err)
	}
	return &ProcTimes{User: float64(st.UTime) / clockTicks, System: float64(st.STime) / clockTicks}, nil
}

// disk reads the data directory's device counters; nil, nil when it has
// no device.
func (h *Host) disk() (*DiskCounters, error) {
	if h.dev.DeviceName == "" {
		return nil, nil
	}
	stats, err := h.block.ProcDiskstats()
	if err != nil {
		return nil, fmt.Errorf("read diskstats: %w", err)
	}
	for _, d := range stats {
		if d.Info == h.dev {
			return &DiskCounters{
				Device: d.DeviceName, ReadIOs: d.ReadIOs, WriteIOs: d.WriteIOs,
				ReadSectors: d.ReadSectors, WriteSectors: d.WriteSectors,
			}, nil
		}
	}
	return nil, fmt.Errorf("device %s left diskstats", h.dev.DeviceName)
}
