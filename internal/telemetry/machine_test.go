package telemetry

import (
	"os"
	"reflect"
	"testing"

	"github.com/prometheus/procfs"
)

func TestDescribeMachine(t *testing.T) {
	mem, rot := uint64(16_384_000), uint64(0)
	f := machineFacts{
		cpuinfo:  []procfs.CPUInfo{{ModelName: "  AMD EPYC 7R13 Processor "}, {ModelName: "AMD EPYC 7R13 Processor"}, {}, {}},
		memTotal: &mem, allowed: []uint64{0, 1},
		mounts: []*procfs.MountInfo{
			{MajorMinorVer: "259:2", MountPoint: "/", FSType: "ext4"},
			{MajorMinorVer: "259:2", MountPoint: "/data", FSType: "xfs"},
			{MajorMinorVer: "259:2", MountPoint: "/database", FSType: "btrfs"},
			{MajorMinorVer: "0:40", MountPoint: "/data/db", FSType: "tmpfs"},
		},
		dataDir: "/data/db/x", dev: "259:2", device: "nvme0n1p2", disk: "nvme0n1", rotation: &rot,
	}
	ssd := false
	want := Machine{CPUs: 2, CPUModel: "AMD EPYC 7R13 Processor", MemoryGB: 15.6, Device: "nvme0n1p2", Disk: "nvme0n1", Filesystem: "xfs", Rotational: &ssd}
	if got := describeMachine(f); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}

	// Nothing known but /proc/cpuinfo: every CPU counts, the rest is left out.
	got := describeMachine(machineFacts{cpuinfo: make([]procfs.CPUInfo, 4)})
	if !reflect.DeepEqual(got, Machine{CPUs: 4}) {
		t.Errorf("bare: got %+v, want 4 CPUs and nothing else", got)
	}
}

func TestWholeDisk(t *testing.T) {
	cases := []struct {
		device, link string
		partition    bool
		want         string
	}{
		{"vda", "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda", false, "vda"},
		{"nvme0n1p2", "../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p2", true, "nvme0n1"},
		{"sda1", "../../devices/platform/host0/target0:0:0/0:0:0:0/block/sda/sda1", true, "sda"},
	}
	for _, c := range cases {
		if got := wholeDisk(c.device, c.link, c.partition); got != c.want {
			t.Errorf("wholeDisk(%s) = %q, want %q", c.device, got, c.want)
		}
	}
}

// This process described as the server: its CPUs, memory and the
// filesystem of a temporary directory are found; its device when the
// directory has one.
func TestDescribeOwnMachine(t *testing.T) {
	dir := t.TempDir()
	m, err := DescribeMachine(os.Getpid(), dir)
	if err != nil {
		t.Fatalf("DescribeMachine: %v", err)
	}
	if m.CPUs < 1 || m.MemoryGB <= 0 || m.Filesystem == "" {
		t.Errorf("got %+v, want CPUs, memory and the filesystem", m)
	}
	if onBlockDevice(t, dir) && (m.Device == "" || m.Disk == "" || m.Rotational == nil) {
		t.Errorf("got %+v, want the block device of %s, its disk and rotational flag", m, dir)
	}
	t.Logf("%+v (rotational %v)", m, m.Rotational != nil && *m.Rotational)
}

func TestDataDirFromArgs(t *testing.T) {
	cases := []struct {
		args []string
		cwd  string
		want string
	}{
		{[]string{"secantusd-rs", "--port", "1", "--storage-path", "/tmp/x/data", "--cache-size", "256M"}, "/", "/tmp/x/data"},
		{[]string{"mongod", "--dbpath=/var/lib/mongo", "--replSet", "rs0"}, "/", "/var/lib/mongo"},
		{[]string{"mongod", "--dbpath", "db"}, "/srv", "/srv/db"},
		{[]string{"mongod", "--dbpath", "db"}, "", ""},
		{[]string{"mongod", "--config", "/etc/mongod.conf"}, "/", ""},
		{[]string{"mongod", "--dbpath"}, "/", ""},
	}
	for _, c := range cases {
		if got := dataDirFromArgs(c.args, c.cwd); got != c.want {
			t.Errorf("dataDirFromArgs(%q, %q) = %q, want %q", c.args, c.cwd, got, c.want)
		}
	}
}
