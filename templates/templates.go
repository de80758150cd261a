// Package templates holds the report templates shipped with mongobench,
// embedded in the binary so that 'mongobench report' needs no files.
package templates

import _ "embed" // for go:embed

// PerformanceTables is templates/performance-tables.md: the MongoDB
// Performance Tables document for the catalog's insert tests, as MONGO_TABLE
// blocks over the results collection.
//
//go:embed performance-tables.md
var PerformanceTables []byte
