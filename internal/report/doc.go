// Package report builds the view models of result documents for people:
// a run's (RunView) and a study's (StudyView), their SVG charts, and a
// table of runs; textreport renders them for the terminal and as
// Markdown, htmlreport as HTML pages.
//
// The package is pure: it reads a result.Doc and returns models and
// bytes. A value that was not measured (a nil pointer in the document)
// is an empty cell in a model's table, which the terminal shows as "—"
// and Markdown as an empty cell, never as 0. Latencies are milliseconds; latency counts from an
// operation's intended start and service time from its actual send.
package report
