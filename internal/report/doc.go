// Package report renders result documents for people: a terminal summary,
// a Markdown report with SVG charts, and a table of runs.
//
// Every renderer is pure: it reads a result.Doc and writes to an io.Writer
// or returns bytes. A value that was not measured (a nil pointer in the
// document) is shown as "—" in the terminal and as an empty cell in
// Markdown, never as 0. Latencies are milliseconds; latency counts from an
// operation's intended start and service time from its actual send.
package report
