// Package studyview holds the studies' views: each study's one
// report.StudyView built from what it found (the typed result a study's
// Outcome carries, or its runs read back from the store), which the
// terminal, the Markdown report, the HTML page and the results browser
// all render. Of picks the view of an Outcome.
//
// The package is pure: it reads study results and result documents and
// builds view models; it neither measures nor talks to MongoDB. Each
// table renders for the terminal (aligned text, a missing value shown as
// "—") or as Markdown (numeric columns right-aligned, a missing value
// left empty). Latencies are milliseconds to three significant figures;
// rates are whole operations per second with thousands separators.
package studyview
