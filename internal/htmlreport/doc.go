// Package htmlreport renders mongobench's reports as self-contained HTML
// pages: the Markdown reports' text and tables, with interactive charts
// (zoom, hover values, series toggled from the legend) drawn by the
// vendored uPlot library, which every page embeds along with its styles,
// so a page opens with no network access.
//
// Each report type has one function: Run renders a run's view
// (report.RunView, which the Markdown report renders too), the answer
// first; Sweep, Compare, SLA, Calibrate, Plan and Document (the
// Performance Tables, or any rendered template) take what their Markdown
// report takes. Beyond the charts over time, a run's page draws the HDR percentile distribution of each
// operation type from its stored histograms, and a plan's page one per
// operation type with a line per candidate. Missing values are gaps in a
// chart and "—" in a legend, never zero; percentiles are read from
// histograms, never averaged.
package htmlreport
