package hostmap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/spec"
)

// ReplicaSet is the deployment a run connects to, as its hello answers:
// the replica set's Name and Members (host:port as the set names them,
// data-bearing members only; none for a standalone server or a mongos),
// the Primary that takes the writes ("" when none is known), and Me, the
// server that answered (the primary, or the member a direct connection
// reaches).
type ReplicaSet struct {
	Name     string
	Members  []string
	Primary  string
	Me       string
	Topology string // how errors name a deployment that is not a replica set: "standalone", "sharded"
}

// Main is the member whose host the run's resource figures read: the
// server the run's commands reach (the primary, or the member of a
// direct connection), else the primary.
func (rs ReplicaSet) Main() string {
	if rs.Me != "" {
		return rs.Me
	}
	return rs.Primary
}

// Role is a member's role: "primary" or "secondary"; "" outside a
// replica set.
func (rs ReplicaSet) Role(member string) string {
	switch {
	case rs.Name == "" || member == "":
		return ""
	case strings.EqualFold(member, rs.Primary):
		return "primary"
	}
	return "secondary"
}

// MemberHost is a node exporter mapped to the host of one member.
type MemberHost struct {
	// Member is the member's host:port as the replica set names it; ""
	// when the server connected to is no replica set member.
	Member string
	// Role is "primary" or "secondary" when the run starts; "" outside a
	// replica set.
	Role string
	URL  string
	// Device is the disk to read, as given; "" to find it from the
	// member's dbPath.
	Device string
	// Main marks the host the run's resource figures read (the primary's,
	// or the connected server's on a direct connection).
	Main bool
}

// Map maps node exporters to the members of rs. One exporter
// without a member is the host of the server connected to (rs.Main). With
// several, an exporter without a member is the one member whose host name
// is its URL's host name. A member that names no member of rs, a URL
// whose host runs no member or several, and two exporters for one member
// are errors naming the item (without a password) and listing the
// members. Devices are given to the members they name, a device without
// a member to every member without one. The main member comes first, the
// others in rs.Members's order.
func Map(items []spec.HostMetric, devices []spec.HostDevice, rs ReplicaSet) ([]MemberHost, error) {
	if len(items) == 0 {
		if len(devices) > 0 {
			return nil, &spec.Error{Field: "--host-device", Value: spec.HostDevicesText(devices), Want: "--host-metrics as well: the device is read from a node exporter"}
		}
		return nil, nil
	}
	if err := spec.CheckHostDevices(devices); err != nil {
		return nil, &spec.Error{Field: "--host-device", Problem: err.Error(), Want: spec.WantHostDevice}
	}
	var out []MemberHost
	if len(items) == 1 && items[0].Member == "" {
		main := rs.Main()
		if len(rs.Members) == 0 {
			main = ""
		}
		out = []MemberHost{{Member: main, Role: rs.Role(main), URL: items[0].URL, Main: true}}
	} else {
		var err error
		if out, err = mapMembers(items, rs); err != nil {
			return nil, err
		}
	}
	if err := giveDevices(out, devices); err != nil {
		return nil, err
	}
	return out, nil
}

// mapMembers maps several node exporters, or one given with its member,
// to members of rs.
func mapMembers(items []spec.HostMetric, rs ReplicaSet) ([]MemberHost, error) {
	if len(rs.Members) == 0 {
		what := "not a replica set"
		if rs.Topology != "" {
			what += " (" + rs.Topology + ")"
		}
		return nil, &spec.Error{Field: "--host-metrics", Problem: fmt.Sprintf("%q: the target is %s, so it has no members to map", spec.HostMetricsText(items), what),
			Want: "one node exporter URL, without a member, for the host of the server connected to"}
	}
	members := "replica set " + rs.Name + " has members " + strings.Join(rs.Members, ", ")
	byMember := map[string]spec.HostMetric{}
	for _, it := range items {
		m, err := memberOf(it, rs)
		if err != nil {
			return nil, &spec.Error{Field: "--host-metrics", Problem: fmt.Sprintf("%q %s", it.String(), err), Want: "MEMBER=URL with MEMBER a member, or a URL on the host of exactly one member; " + members}
		}
		if first, dup := byMember[m]; dup {
			return nil, &spec.Error{Field: "--host-metrics", Problem: fmt.Sprintf("%q is a second node exporter for member %s (the first is %q)", it.String(), m, first.String()),
				Want: "one node exporter per member; " + members}
		}
		byMember[m] = it
	}
	var out []MemberHost
	main := rs.Main()
	for _, m := range rs.Members {
		if strings.EqualFold(m, main) {
			main = m // as the set names it
		}
	}
	for _, m := range append([]string{main}, rs.Members...) {
		it, ok := byMember[m]
		if !ok {
			continue
		}
		delete(byMember, m)
		out = append(out, MemberHost{Member: m, Role: rs.Role(m), URL: it.URL, Main: strings.EqualFold(m, main)})
	}
	return out, nil
}

// memberOf is the member an item names, as rs names it: the one given,
// or the one member whose host is the URL's host.
func memberOf(it spec.HostMetric, rs ReplicaSet) (string, error) {
	if it.Member != "" {
		for _, m := range rs.Members {
			if strings.EqualFold(m, it.Member) {
				return m, nil
			}
		}
		return "", fmt.Errorf("names %s, which is not a member of the replica set", it.Member)
	}
	u, err := spec.HostMetricsURL(it.URL)
	if err != nil {
		return "", errors.New("is not a URL")
	}
	host := u.Hostname()
	var found []string
	for _, m := range rs.Members {
		if strings.EqualFold(memberHost(m), host) {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("is on host %s, which runs no member of the replica set", host)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("is on host %s, which runs several members (%s): the URL cannot say which", host, strings.Join(found, ", "))
}

// memberHost is the host name of a member's host:port, without an IPv6
// address's brackets.
func memberHost(m string) string {
	if i := strings.LastIndex(m, ":"); i >= 0 {
		m = m[:i]
	}
	return strings.TrimSuffix(strings.TrimPrefix(m, "["), "]")
}

// giveDevices sets each mapped host's device: the one naming its member,
// else the one naming none.
func giveDevices(hosts []MemberHost, devices []spec.HostDevice) error {
	var all string
	named := map[string]string{}
	for _, d := range devices {
		if d.Member == "" {
			all = d.Device
			continue
		}
		found := false
		for i := range hosts {
			if hosts[i].Member != "" && strings.EqualFold(hosts[i].Member, d.Member) {
				named[hosts[i].Member], found = d.Device, true
			}
		}
		if !found {
			var measured []string
			for _, h := range hosts {
				if h.Member != "" {
					measured = append(measured, h.Member)
				}
			}
			want := "MEMBER=DEVICE for a member --host-metrics measures"
			if len(measured) > 0 {
				want += ": " + strings.Join(measured, ", ")
			}
			return &spec.Error{Field: "--host-device", Problem: fmt.Sprintf("%q names %s, whose host no node exporter of --host-metrics measures", d.String(), d.Member), Want: want}
		}
	}
	for i := range hosts {
		hosts[i].Device = all
		if d, ok := named[hosts[i].Member]; ok {
			hosts[i].Device = d
		}
	}
	return nil
}
