// Package hostmap maps the node exporters of --host-metrics (and the
// disks of --host-device) to the members of the replica set a run
// connects to, as its hello answers (ReplicaSet): which member's host
// each exporter reads, the main member's first (Map). An exporter that
// names no member, or whose host runs none or several, is a *spec.Error
// naming it without its password and listing the members.
package hostmap
