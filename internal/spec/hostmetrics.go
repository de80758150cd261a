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

// WantHostDevice says what --host-device takes, for errors.
const WantHostDevice = "a block device name as the node exporter lists it, such as nvme0n1 or sda, " +
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
	if err := CheckHostDevices(devices); err != nil {
		return fmt.Errorf("--host-device: %w: want %s", err, WantHostDevice)
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

// CheckHostDevices checks each device item: a member, when given, is a
// host:port; at most one device names no member.
func CheckHostDevices(list []HostDevice) error {
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
	p, err := HostMetricsURL(s)
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

// HostMetricsURL parses a node exporter's URL, http:// assumed when
// it has no scheme.
func HostMetricsURL(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	return url.Parse(s)
}
