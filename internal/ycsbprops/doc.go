// Package ycsbprops reads YCSB's property files and -p properties as
// YCSB's client does (Parse, Assignment) and maps them to mongobench's
// settings (Resolve): the workload and its parameters, the client's
// threads, target rate, operation count, time limit, connection string
// and its options. A property that cannot apply is refused by name with
// the reason; an unknown one with the closest known name. Read reads the
// -P files (each at most its bound) and the -p assignments and resolves
// them; Settings.Scenario lists the scenario settings they give.
package ycsbprops
