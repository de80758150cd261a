// Package ftdcwindow folds a window of a server's FTDC samples into
// figures (Window: each interval's server and host figures added as they
// are read, in memory bounded whatever the window's length), checks the
// names of the figures asked for (CheckFigures), and sums the window up
// (Summary: minimum, median, p99 and maximum by nearest rank, sampling
// periods, gaps, the longest checkpoints, torn files, what stands out) as
// a table, Markdown, and a report.StudyView with its charts over time.
package ftdcwindow
