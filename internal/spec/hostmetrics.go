package spec

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

const wantHostMetrics = "the URL of a Prometheus node exporter, such as http://db1:9100/metrics or db1:9100, " +
	"or a comma-separated list of them for a replica set's members, each URL or MEMBER=URL with MEMBER the member's host:port " +
	"as the replica set names it, such as db1:27017=http://db1:9100"

const wantHostDevice = "a block device name as the node exporter lists it, such as nvme0n1 or sda, " +
	"or a comma-separated list of MEMBER=DEVICE for a replica set's members, such as db2:27017=sdb"

// HostMetric is one node exporter of --host-metrics: its URL, and the
// replica set member whose host it runs on, as the set names it
// (host:port). An empty Member is found from the URL's host name, or,
// for the only node exporter given, is the server the run connects to.
type HostMetric struct {
	Member string
	URL    string
}

// String is the item as given, MEMBER=URL or URL, without a password.
func (h HostMetric) String() string {
	if h.Member == "" {
		return RedactHostMetrics(h.URL)
	}
	return h.Member + "=" + RedactHostMetrics(h.URL)
}

// HostDevice is the disk read on a member's host by --host-device; an
// empty Member names the disk of every measured host that has no device
// of its own.
type HostDevice struct {
	Member string
	Device string
}

// String is the item as given: MEMBER=DEVICE or DEVICE.
func (d HostDevice) String() string {
	if d.Member == "" {
		return d.Device
	}
	return d.Member + "=" + d.Device
}

// ParseHostMetrics splits a comma-separated list of node exporters, each
// URL or MEMBER=URL, without checking them (CheckHostMetric does, without
// echoing a password). Empty items are skipped.
func ParseHostMetrics(text string) []HostMetric {
	var out []HostMetric
	for _, item := range splitList(text) {
		m, u := splitMember(item)
		out = append(out, HostMetric{Member: m, URL: u})
	}
	return out
}

// ParseHostDevices splits a comma-separated list of devices, each DEVICE
// or MEMBER=DEVICE. Empty items are skipped.
func ParseHostDevices(text string) []HostDevice {
	var out []HostDevice
	for _, item := range splitList(text) {
		m, d := splitMember(item)
		out = append(out, HostDevice{Member: m, Device: d})
	}
	return out
}

// HostMetricsText is the list as one comma-separated text, passwords
// hidden.
func HostMetricsText(list []HostMetric) string {
	parts := make([]string, len(list))
	for i, h := range list {
		parts[i] = h.String()
	}
	return strings.Join(parts, ",")
}

// HostDevicesText is the list as one comma-separated text.
func HostDevicesText(list []HostDevice) string {
	parts := make([]string, len(list))
	for i, d := range list {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

func splitList(text string) []string {
	var out []string
	for _, item := range strings.Split(text, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// splitMember splits MEMBER=VALUE. A "=" after a "/", "?", "#" or "@"
// belongs to a URL (its query), not to a member.
func splitMember(item string) (member, value string) {
	i := strings.Index(item, "=")
	if i < 0 || strings.ContainsAny(item[:i], "/?#@") {
		return "", item
	}
	return strings.TrimSpace(item[:i]), strings.TrimSpace(item[i+1:])
}

// CheckHostMetric checks one item: its member, when given, is a host:port
// and its URL passes CheckHostMetrics.
func CheckHostMetric(h HostMetric) error {
	if h.Member != "" {
		if err := checkMember(h.Member); err != nil {
			return fmt.Errorf("%w: want MEMBER=URL with MEMBER as the replica set names it, such as db1:27017=http://db1:9100", err)
		}
	}
	return CheckHostMetrics(h.URL)
}

// CheckHostFlags checks --host-metrics and --host-device as parsed, each
// error naming its flag.
func CheckHostFlags(metrics []HostMetric, devices []HostDevice) error {
	if err := checkHostMetricsList(metrics); err != nil {
		return fmt.Errorf("--host-metrics: %w", err)
	}
	if err := checkDevices(devices); err != nil {
		return fmt.Errorf("--host-device: %w: want %s", err, wantHostDevice)
	}
	if len(devices) > 0 && len(metrics) == 0 {
		return errors.New("--host-device: needs --host-metrics: the device's counters are read from a node exporter")
	}
	return nil
}

// checkHostMetricsList checks every item of a list.
func checkHostMetricsList(list []HostMetric) error {
	for _, h := range list {
		if err := CheckHostMetric(h); err != nil {
			return fmt.Errorf("%q %w", h.String(), err)
		}
	}
	return nil
}

// checkDevices checks each device item: a member, when given, is a
// host:port; at most one device names no member.
func checkDevices(list []HostDevice) error {
	bare := 0
	for _, d := range list {
		if d.Device == "" {
			return fmt.Errorf("%q has no device", d.String())
		}
		if d.Member != "" {
			if err := checkMember(d.Member); err != nil {
				return fmt.Errorf("%q: %w", d.String(), err)
			}
		} else if bare++; bare > 1 {
			return errors.New("gives two devices without a member: give one device for every host, or MEMBER=DEVICE")
		}
	}
	return nil
}

// checkMember checks a member's name: host:port, as a replica set names
// its members.
func checkMember(m string) error {
	i := strings.LastIndex(m, ":")
	if i <= 0 || i == len(m)-1 {
		return fmt.Errorf("member %q is not host:port", m)
	}
	if p, err := strconv.Atoi(m[i+1:]); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("member %q is not host:port", m)
	}
	return nil
}

// RedactHostMetrics hides the password of a URL that carries one, for
// messages.
func RedactHostMetrics(s string) string {
	p, err := url.Parse(s)
	if err != nil || p.User == nil {
		if m, u := splitMember(s); m != "" {
			return m + "=" + RedactHostMetrics(u)
		}
		return s
	}
	p.User = url.User(p.User.Username())
	return p.String()
}

// CheckHostMetrics checks a node exporter's URL: http or https, a host,
// and no credentials (a password in a URL would be stored and printed).
func CheckHostMetrics(s string) error {
	p, err := parseHostMetricsURL(s)
	switch {
	case err != nil:
		return errors.New("is not a URL: want " + wantHostMetrics)
	case p.Scheme != "http" && p.Scheme != "https":
		return errors.New("is not http or https: want " + wantHostMetrics)
	case p.Host == "":
		return errors.New("has no host: want " + wantHostMetrics)
	case p.User != nil:
		return errors.New("carries credentials, which mongobench would store: want " + wantHostMetrics + " (a node exporter behind authentication is not supported)")
	}
	return nil
}

// parseHostMetricsURL parses a node exporter's URL, http:// assumed when
// it has no scheme.
func parseHostMetricsURL(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	return url.Parse(s)
}

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

// MapHostMetrics maps node exporters to the members of rs. One exporter
// without a member is the host of the server connected to (rs.Main). With
// several, an exporter without a member is the one member whose host name
// is its URL's host name. A member that names no member of rs, a URL
// whose host runs no member or several, and two exporters for one member
// are errors naming the item (without a password) and listing the
// members. Devices are given to the members they name, a device without
// a member to every member without one. The main member comes first, the
// others in rs.Members's order.
func MapHostMetrics(items []HostMetric, devices []HostDevice, rs ReplicaSet) ([]MemberHost, error) {
	if len(items) == 0 {
		if len(devices) > 0 {
			return nil, &Error{Field: "--host-device", Value: HostDevicesText(devices), Want: "--host-metrics as well: the device is read from a node exporter"}
		}
		return nil, nil
	}
	if err := checkDevices(devices); err != nil {
		return nil, &Error{Field: "--host-device", Problem: err.Error(), Want: wantHostDevice}
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
func mapMembers(items []HostMetric, rs ReplicaSet) ([]MemberHost, error) {
	if len(rs.Members) == 0 {
		what := "not a replica set"
		if rs.Topology != "" {
			what += " (" + rs.Topology + ")"
		}
		return nil, &Error{Field: "--host-metrics", Problem: fmt.Sprintf("%q: the target is %s, so it has no members to map", HostMetricsText(items), what),
			Want: "one node exporter URL, without a member, for the host of the server connected to"}
	}
	members := "replica set " + rs.Name + " has members " + strings.Join(rs.Members, ", ")
	byMember := map[string]HostMetric{}
	for _, it := range items {
		m, err := memberOf(it, rs)
		if err != nil {
			return nil, &Error{Field: "--host-metrics", Problem: fmt.Sprintf("%q %s", it.String(), err), Want: "MEMBER=URL with MEMBER a member, or a URL on the host of exactly one member; " + members}
		}
		if first, dup := byMember[m]; dup {
			return nil, &Error{Field: "--host-metrics", Problem: fmt.Sprintf("%q is a second node exporter for member %s (the first is %q)", it.String(), m, first.String()),
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
func memberOf(it HostMetric, rs ReplicaSet) (string, error) {
	if it.Member != "" {
		for _, m := range rs.Members {
			if strings.EqualFold(m, it.Member) {
				return m, nil
			}
		}
		return "", fmt.Errorf("names %s, which is not a member of the replica set", it.Member)
	}
	u, err := parseHostMetricsURL(it.URL)
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
func giveDevices(hosts []MemberHost, devices []HostDevice) error {
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
			return &Error{Field: "--host-device", Problem: fmt.Sprintf("%q names %s, whose host no node exporter of --host-metrics measures", d.String(), d.Member), Want: want}
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
