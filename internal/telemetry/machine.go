package telemetry

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"golang.org/x/sys/unix"
)

// Machine describes the host of a server running on this machine, as
// /proc and /sys tell it. A zero field was not found.
type Machine struct {
	// CPUs is how many CPUs the server process may run on (its affinity:
	// the CPU set of a profile started under taskset, else every CPU).
	CPUs int
	// CPUModel is the first CPU's model name in /proc/cpuinfo.
	CPUModel string
	// MemoryGB is the host's memory (MemTotal), in GiB to one decimal.
	MemoryGB float64
	// Device is the block device holding the data directory ("nvme0n1p2")
	// and Disk the whole disk it is part of ("nvme0n1"); both empty when
	// the data directory's filesystem has no block device (overlay, tmpfs).
	Device string
	Disk   string
	// Filesystem is the type of the filesystem holding the data
	// directory ("ext4", "xfs", "overlay").
	Filesystem string
	// Rotational is the kernel's rotational flag of Disk
	// (/sys/block/DISK/queue/rotational); nil when unknown. Virtual disks
	// often report true whatever backs them.
	Rotational *bool
}

// machineFacts are what DescribeMachine reads, before anything is
// decided from them.
type machineFacts struct {
	cpuinfo  []procfs.CPUInfo
	memTotal *uint64 // kB
	allowed  []uint64
	mounts   []*procfs.MountInfo
	dataDir  string
	dev      string // the data directory's device number, "major:minor"
	device   string // its block device in /proc/diskstats
	disk     string
	rotation *uint64
}

// DescribeMachine describes the host of the server process pid whose data
// lives in dataDir (may be empty). What cannot be read is left out, and
// the errors met are joined; the description is returned either way.
func DescribeMachine(pid int, dataDir string) (Machine, error) {
	f, err := readMachine(procfs.DefaultMountPoint, "/sys", pid, dataDir)
	return describeMachine(f), err
}

// readMachine reads the facts from the proc and sys filesystems mounted at
// procRoot and sysRoot.
func readMachine(procRoot, sysRoot string, pid int, dataDir string) (machineFacts, error) {
	f := machineFacts{dataDir: dataDir}
	pfs, err := procfs.NewFS(procRoot)
	if err != nil {
		return f, fmt.Errorf("open %s: %w", procRoot, err)
	}
	var errs []error
	note := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	f.cpuinfo, err = pfs.CPUInfo()
	note("read cpuinfo", err)
	mem, err := pfs.Meminfo()
	note("read meminfo", err)
	f.memTotal = mem.MemTotal
	if p, err := pfs.Proc(pid); err != nil {
		note("open process", err)
	} else {
		st, err := p.NewStatus()
		note("read process status", err)
		f.allowed = st.CpusAllowedList
		f.mounts, err = p.MountInfo()
		note("read process mountinfo", err)
	}
	if dataDir != "" {
		note("describe data directory's disk", f.readDisk(procRoot, sysRoot))
	}
	return f, errors.Join(errs...)
}

// readDisk finds the data directory's device number, its block device in
// /proc/diskstats, the whole disk and the disk's rotational flag.
func (f *machineFacts) readDisk(procRoot, sysRoot string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(f.dataDir, &st); err != nil {
		return err
	}
	dev := uint64(st.Dev) // Dev's width differs by architecture
	major, minor := unix.Major(dev), unix.Minor(dev)
	f.dev = fmt.Sprintf("%d:%d", major, minor)
	bfs, err := blockdevice.NewFS(procRoot, sysRoot)
	if err != nil {
		return err
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		return err
	}
	for _, d := range stats {
		if d.MajorNumber == major && d.MinorNumber == minor {
			f.device = d.DeviceName
		}
	}
	if f.device == "" {
		return nil // no block device: overlay, tmpfs, a network filesystem
	}
	class := filepath.Join(sysRoot, "class", "block", f.device)
	link, err := os.Readlink(class)
	if err != nil {
		return err
	}
	_, perr := os.Stat(filepath.Join(class, "partition"))
	f.disk = wholeDisk(f.device, link, perr == nil)
	r, err := bfs.SysBlockDeviceRotational(f.disk)
	if err != nil {
		return err
	}
	f.rotation = &r
	return nil
}

// wholeDisk is the disk a block device belongs to: a partition's
// /sys/class/block link ends in …/DISK/PARTITION, anything else is a
// disk of its own.
func wholeDisk(device, link string, partition bool) string {
	if !partition {
		return device
	}
	return filepath.Base(filepath.Dir(link))
}

// describeMachine decides the description from the facts read.
func describeMachine(f machineFacts) Machine {
	m := Machine{CPUs: len(f.allowed), Device: f.device, Disk: f.disk}
	if m.CPUs == 0 {
		m.CPUs = len(f.cpuinfo)
	}
	for _, c := range f.cpuinfo {
		if name := strings.TrimSpace(c.ModelName); name != "" {
			m.CPUModel = name
			break
		}
	}
	if f.memTotal != nil && *f.memTotal > 0 {
		m.MemoryGB = math.Round(float64(*f.memTotal)/(1<<20)*10) / 10
	}
	if f.rotation != nil {
		rot := *f.rotation == 1
		m.Rotational = &rot
	}
	m.Filesystem = filesystemOf(f.mounts, f.dev, f.dataDir)
	return m
}

// filesystemOf is the type of the mount holding dir with device number dev
// ("major:minor"): of the mounts of that device, the one with the longest
// mount point that contains dir.
func filesystemOf(mounts []*procfs.MountInfo, dev, dir string) string {
	if dev == "" {
		return ""
	}
	best, fsType := -1, ""
	for _, mt := range mounts {
		if mt.MajorMinorVer != dev || !underDir(dir, mt.MountPoint) {
			continue
		}
		if len(mt.MountPoint) > best {
			best, fsType = len(mt.MountPoint), mt.FSType
		}
	}
	return fsType
}

// underDir says whether path is dir or lies under it.
func underDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// ProcessDataDir is the data directory a server process on this host was
// started with, read from its command line (mongod's --dbpath,
// SecantusDB's --storage-path; relative to the process's working
// directory), or "" when its command line does not say.
func ProcessDataDir(pid int) string {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return ""
	}
	args, err := p.CmdLine()
	if err != nil {
		return ""
	}
	cwd, _ := p.Cwd() // needed only for a relative path
	return dataDirFromArgs(args, cwd)
}

// dataDirFromArgs finds the data directory option in a server's
// arguments, as "--dbpath DIR" or "--dbpath=DIR".
func dataDirFromArgs(args []string, cwd string) string {
	dir := ""
	for i, a := range args {
		for _, opt := range []string{"--dbpath", "--storage-path"} {
			switch {
			case a == opt && i+1 < len(args):
				dir = args[i+1]
			case strings.HasPrefix(a, opt+"="):
				dir = strings.TrimPrefix(a, opt+"=")
			}
		}
	}
	if dir == "" || filepath.IsAbs(dir) {
		return dir
	}
	if cwd == "" {
		return ""
	}
	return filepath.Join(cwd, dir)
}
