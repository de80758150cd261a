package ftdc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

func marshal(t *testing.T, d bson.D) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The resolver finds each section flat (every version) or under 8.0's
// role documents, and says which role the figures are from.
func TestLayoutOf(t *testing.T) {
	config := ftdcwrite.Sample(t0, ftdcwrite.State{V8: true, Split: "shard"})
	rs := config[1].Value.(bson.D)[2].Value.(bson.D) // shard.replSetGetStatus
	config[1].Value.(bson.D)[2].Value = append(rs, bson.E{Key: "configsvr", Value: true})
	flatRS := ftdcwrite.Sample(t0, ftdcwrite.State{})
	flatRS = append(flatRS[:3], append(bson.D{ftdcwrite.ReplSetStatus(t0)}, flatRS[3:]...)...)
	for _, c := range []struct {
		name               string
		sample             bson.D
		split              bool
		status, system, rs string
		role               string
	}{
		{"7.0 standalone", ftdcwrite.Sample(t0, ftdcwrite.State{}), false, "serverStatus", "systemMetrics", "", RoleStandalone},
		{"7.0 replica-set member", flatRS, false, "serverStatus", "systemMetrics", "replSetGetStatus", RoleReplica},
		{"8.0 mongos", ftdcwrite.Sample(t0, ftdcwrite.State{V8: true, Split: "router"}), true, "router.serverStatus", "common.systemMetrics", "", RoleRouter},
		{"8.0 shard member", ftdcwrite.Sample(t0, ftdcwrite.State{V8: true, Split: "shard"}), true, "shard.serverStatus", "common.systemMetrics", "shard.replSetGetStatus", RoleShard},
		{"8.0 config server", config, true, "shard.serverStatus", "common.systemMetrics", "shard.replSetGetStatus", RoleConfig},
	} {
		raw := marshal(t, c.sample)
		l := LayoutOf(raw)
		for _, s := range []struct{ section, want string }{{SectionServerStatus, c.status}, {SectionSystemMetrics, c.system}, {SectionReplSetGetStatus, c.rs}} {
			if got, ok := l.Path(s.section); got != s.want || ok != (s.want != "") {
				t.Errorf("%s: %s at %q (%v), want %q", c.name, s.section, got, ok, s.want)
			}
		}
		if l.Split != c.split || l.Role != c.role {
			t.Errorf("%s: split %v role %q, want %v %q", c.name, l.Split, l.Role, c.split, c.role)
		}
		if v, ok := SampleVersion(raw); !ok || v == "" {
			t.Errorf("%s: no version from the sample's serverStatus", c.name)
		}
	}
	if v, ok := MetadataVersion(marshal(t, ftdcwrite.Metadata(ftdcwrite.State{V8: true, Split: "router", Version: "8.0.8"}))); !ok || v != "8.0.8" {
		t.Errorf("version under common: %q %v, want 8.0.8", v, ok)
	}
	cmdline := bson.D{{Key: "common", Value: bson.D{{Key: "getCmdLineOpts", Value: bson.D{{Key: "parsed", Value: bson.D{{Key: "sharding", Value: bson.D{{Key: "clusterRole", Value: "configsvr"}}}}}}}}}}
	if r, ok := MetadataRole(marshal(t, cmdline)); !ok || r != RoleConfig {
		t.Errorf("role from getCmdLineOpts under common: %q %v, want %q", r, ok, RoleConfig)
	}
}

// A scan of an 8.0 mongos's file tells the version from the metadata's
// common.buildInfo, and without metadata (an interim file) from the
// samples' serverStatus.version; it says the role and the layout.
func TestScanVersionAndRole(t *testing.T) {
	st := ftdcwrite.State{V8: true, Split: "router", Version: "8.0.8"}
	var samples []bson.D
	for i := range 5 {
		samples = append(samples, ftdcwrite.Sample(t0.Add(time.Duration(i)*time.Second), st))
	}
	dir := t.TempDir()
	with := filepath.Join(dir, "metrics.2026-03-01T12-00-00Z-00000")
	if err := os.WriteFile(with, ftdcwrite.File(ftdcwrite.Metadata(st), samples, 300), 0o644); err != nil {
		t.Fatal(err)
	}
	data := ftdcwrite.File(ftdcwrite.Metadata(st), samples, 300)
	first := int(int32(uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24))
	without := filepath.Join(t.TempDir(), "metrics.interim")
	if err := os.WriteFile(without, data[first:], 0o644); err != nil { // the metric chunks only
		t.Fatal(err)
	}
	for _, c := range []struct {
		file        string
		fromSamples bool
	}{{with, false}, {without, true}} {
		info, err := Scan{Files: []string{c.file}}.Run(func(*Chunk, Document) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(info.Versions, []string{"8.0.8"}) || info.VersionsFromSamples != c.fromSamples ||
			!slices.Equal(info.Roles, []string{RoleRouter}) || !slices.Equal(info.Layouts, []string{"role-split"}) {
			t.Errorf("%s: %+v: want version 8.0.8 (from samples %v), the router, role-split", filepath.Base(c.file), info, c.fromSamples)
		}
	}
}
