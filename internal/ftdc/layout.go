package ftdc

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The sections of a sample the figures read.
const (
	SectionServerStatus     = "serverStatus"
	SectionSystemMetrics    = "systemMetrics"
	SectionReplSetGetStatus = "replSetGetStatus"
)

// Roles a sample's figures come from (Layout.Role).
const (
	RoleRouter     = "mongos router"
	RoleShard      = "shard member"
	RoleConfig     = "config server"
	RoleReplica    = "replica-set member"
	RoleStandalone = "standalone"
)

// splitKeys are the role documents of the role-split layout, in the
// order the layout is searched for a section: a process's data-bearing
// role first. The server (collector.cpp, MongoDB 8.0 and later, on
// mongos, config servers and shard members) writes each role's
// collectors under a document named for it: "shard" (ClusterRole
// ShardServer, config servers included), "router" (RouterServer) and
// "common" (the collectors of no role: systemMetrics, and buildInfo,
// getCmdLineOpts and hostInfo in the metadata).
var splitKeys = []string{"shard", "common", "router"}

// Layout is where a sample document's sections are: at its top level
// (every version; the only layout before 8.0) or under its role
// documents (the role-split layout of 8.0 and later:
// common.systemMetrics, shard.serverStatus, router.serverStatus,
// shard.replSetGetStatus). The file reader and the live
// getDiagnosticData sample resolve sections through it alike.
type Layout struct {
	// Split is true for the role-split layout.
	Split bool
	// Role is which part of a deployment the sample's figures come
	// from: RoleRouter, RoleShard, RoleConfig, RoleReplica or
	// RoleStandalone.
	Role     string
	sections map[string]string
}

// LayoutOf resolves the sections of a sample document (a chunk's
// reference sample, or getDiagnosticData's data).
func LayoutOf(sample bson.Raw) Layout {
	l := Layout{sections: map[string]string{}}
	elems, err := sample.Elements()
	if err != nil {
		return l
	}
	top := map[string]bson.Raw{}
	for _, e := range elems {
		if v := e.Value(); v.Type == bson.TypeEmbeddedDocument {
			if _, dup := top[e.Key()]; !dup {
				top[e.Key()] = bson.Raw(v.Value)
			}
		}
	}
	for _, k := range splitKeys {
		if _, ok := top[k]; ok {
			l.Split = true
		}
	}
	for _, sec := range []string{SectionServerStatus, SectionSystemMetrics, SectionReplSetGetStatus} {
		if _, ok := top[sec]; ok {
			l.sections[sec] = sec
			continue
		}
		for _, k := range splitKeys {
			if doc, ok := top[k]; ok {
				if v, err := doc.LookupErr(sec); err == nil && v.Type == bson.TypeEmbeddedDocument {
					l.sections[sec] = k + "." + sec
					break
				}
			}
		}
	}
	l.Role = l.role(sample, top)
	return l
}

// role tells the sample's role from what it holds: a serverStatus whose
// process is mongos (or a role-split sample with a router and no shard
// document) is a router; a replSetGetStatus that answers (ok 1) is a
// replica-set member, a config server when it says configsvr, a shard
// member under the role-split layout's shard document; else a
// standalone.
func (l Layout) role(sample bson.Raw, top map[string]bson.Raw) string {
	_, hasShard := top["shard"]
	_, hasRouter := top["router"]
	if proc, ok := l.String(sample, SectionServerStatus, "process"); ok && strings.HasPrefix(proc, "mongos") {
		return RoleRouter
	}
	if hasRouter && !hasShard {
		return RoleRouter
	}
	if rs, ok := l.Document(sample, SectionReplSetGetStatus); ok {
		okv, _ := rs.Lookup("ok").AsFloat64OK()
		_, named := rs.Lookup("set").StringValueOK()
		if okv == 1 || named {
			cfg := rs.Lookup("configsvr")
			isCfg, _ := cfg.BooleanOK()
			if n, ok := cfg.AsInt64OK(); ok && n != 0 {
				isCfg = true
			}
			switch {
			case isCfg:
				return RoleConfig
			case hasShard:
				return RoleShard
			}
			return RoleReplica
		}
	}
	if hasShard {
		return RoleShard
	}
	return RoleStandalone
}

// Path is the dotted path of a section's document in the sample (its
// metrics' prefix), and whether the sample has the section.
func (l Layout) Path(section string) (string, bool) {
	p, ok := l.sections[section]
	return p, ok
}

// Document is a section's document in sample, resolved by l.
func (l Layout) Document(sample bson.Raw, section string) (bson.Raw, bool) {
	p, ok := l.sections[section]
	if !ok {
		return nil, false
	}
	v, err := sample.LookupErr(strings.Split(p, ".")...)
	if err != nil || v.Type != bson.TypeEmbeddedDocument {
		return nil, false
	}
	return bson.Raw(v.Value), true
}

// String is the string at path (its keys separated by dots) under a
// section of sample.
func (l Layout) String(sample bson.Raw, section, path string) (string, bool) {
	doc, ok := l.Document(sample, section)
	if !ok {
		return "", false
	}
	v, err := doc.LookupErr(strings.Split(path, ".")...)
	if err != nil {
		return "", false
	}
	return v.StringValueOK()
}

// MetadataVersion is the server version a metadata document names:
// buildInfo.version at its top level, or under common in the role-split
// layout.
func MetadataVersion(doc bson.Raw) (string, bool) {
	for _, p := range [][]string{{"buildInfo", "version"}, {"common", "buildInfo", "version"}} {
		if v, err := doc.LookupErr(p...); err == nil {
			if s, ok := v.StringValueOK(); ok && s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// MetadataRole is the role a metadata document's getCmdLineOpts gives
// the server (sharding.clusterRole: configsvr or shardsvr), at its top
// level or under common; false when it names none.
func MetadataRole(doc bson.Raw) (string, bool) {
	for _, p := range [][]string{{"getCmdLineOpts", "parsed", "sharding", "clusterRole"}, {"common", "getCmdLineOpts", "parsed", "sharding", "clusterRole"}} {
		if v, err := doc.LookupErr(p...); err == nil {
			switch s, _ := v.StringValueOK(); s {
			case "configsvr":
				return RoleConfig, true
			case "shardsvr":
				return RoleShard, true
			}
		}
	}
	return "", false
}

// SampleVersion is the server version a sample's serverStatus names.
func SampleVersion(sample bson.Raw) (string, bool) {
	return LayoutOf(sample).String(sample, SectionServerStatus, "version")
}

// SampleChunk is one sample document (getDiagnosticData's data) as a
// chunk of one sample, its metrics extracted as the server extracts a
// reference sample's: a live sample is then read by the same code as a
// file's.
func SampleChunk(sample bson.Raw) (*Chunk, error) {
	if err := sample.Validate(); err != nil {
		return nil, err
	}
	metrics, values, err := extract(sample)
	if err != nil {
		return nil, err
	}
	return &Chunk{Reference: sample, Metrics: metrics, Samples: 1, first: values, starts: make([]cursor, len(metrics))}, nil
}

// Layout is the layout of the chunk's samples, resolved from its
// reference sample (every sample of a chunk shares its schema).
func (c *Chunk) Layout() Layout {
	if c.layout == nil {
		l := LayoutOf(c.Reference)
		c.layout = &l
	}
	return *c.layout
}
