// Package textreport renders the view models of package report as text:
// a run's view (report.RunView) and a study's (report.StudyView) for the
// terminal (Run, Study: aligned tables, a missing figure shown as "—")
// and as Markdown reports with their SVG charts (RunMarkdown,
// StudyMarkdown: numeric columns right-aligned, a missing value left
// empty). htmlreport renders the same models as HTML pages. It builds
// no view and reads no document beyond Summary's.
package textreport
